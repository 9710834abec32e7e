--TEST--
swoole_runtime: curl hook: handles used in a coroutine are freed when the script drops them (what the hook records for a handle does not keep it alive)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc';
require __DIR__ . '/curl.inc'; if (!rsw_have_ext('curl')) die('skip ext/curl not available'); ?>
--FILE--
<?php
require __DIR__ . '/curl.inc';
$far = rsw_curl_far();
echo rsw_curl_run(<<<PHP
Co\\run(function () {
    \$run = function (int \$n) {
        for (\$i = 0; \$i < \$n; \$i++) {
            \$ch = curl_init('http://127.0.0.1:{$far->port}/echo');
            curl_setopt_array(\$ch, [CURLOPT_RETURNTRANSFER => true, CURLOPT_HEADERFUNCTION => fn (\$h, \$l) => strlen(\$l)]);
            \$ok = curl_exec(\$ch) !== false && curl_getinfo(\$ch, CURLINFO_HTTP_CODE) === 200;
            if (!\$ok) {
                echo "request failed: ", curl_error(\$ch), "\\n";
            }
        }
    };
    \$run(50);
    gc_collect_cycles();
    \$before = memory_get_usage();
    \$run(300);
    gc_collect_cycles();
    \$grown = memory_get_usage() - \$before;
    echo '300 more handles, memory grew < 100 KB: ', \$grown < 100000 ? 'OK' : "FAIL \$grown bytes", "\\n";
});
PHP);
$far->stop();
?>
--EXPECT--
300 more handles, memory grew < 100 KB: OK
