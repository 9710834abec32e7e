--TEST--
swoole_runtime: curl hook: 50 concurrent curl_exec in Co\run (the far end answers after 0.2 s) finish in < 1 s with SWOOLE_HOOK_ALL, and with the hooks off 5 take the serial 1 s
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc';
require __DIR__ . '/curl.inc'; if (!rsw_have_ext('curl')) die('skip ext/curl not available'); ?>
--FILE--
<?php
require __DIR__ . '/curl.inc';
$far = rsw_curl_far();
foreach ([SWOOLE_HOOK_ALL => 50, 0 => 5] as $flags => $n) {
    echo rsw_curl_run(<<<PHP
Swoole\Runtime::enableCoroutine($flags);
Co\\run(function () {
    \$t = microtime(true);
    \$wg = new Swoole\Coroutine\WaitGroup();
    \$codes = [];
    for (\$i = 0; \$i < $n; \$i++) {
        \$wg->add();
        go(function () use (\$wg, &\$codes, \$i) {
            \$ch = curl_init("http://127.0.0.1:{$far->port}/slow");
            curl_setopt(\$ch, CURLOPT_RETURNTRANSFER, true);
            \$body = curl_exec(\$ch);
            \$codes[] = curl_getinfo(\$ch, CURLINFO_HTTP_CODE) . ':' . json_decode(\$body, true)['uri'];
            \$wg->done();
        });
    }
    \$wg->wait();
    \$el = microtime(true) - \$t;
    \$c = array_count_values(\$codes);
    echo "flags=$flags n=$n: ", json_encode(\$c), "\\n";
    if ($flags) {
        echo 'hooked: concurrent, < 1 s: ', \$el < 1.0 ? 'OK' : sprintf('FAIL %.2f s', \$el), "\\n";
    } else {
        echo 'unhooked: serial, >= 1 s: ', \$el >= 0.95 ? 'OK' : sprintf('FAIL %.2f s', \$el), "\\n";
    }
});
PHP);
}
$far->stop();
?>
--EXPECT--
flags=2143285247 n=50: {"200:\/slow":50}
hooked: concurrent, < 1 s: OK
flags=0 n=5: {"200:\/slow":5}
unhooked: serial, >= 1 s: OK
