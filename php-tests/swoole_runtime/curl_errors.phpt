--TEST--
swoole_runtime: curl hook: a timeout gives errno 28 (Guzzle: ConnectException) without holding other coroutines, a refused connection errno 7 (ConnectException), and outside a coroutine curl is ext/curl's own
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc';
require __DIR__ . '/curl.inc'; if (!rsw_have_guzzle()) die('skip Guzzle or ext/curl not available'); ?>
--FILE--
<?php
require __DIR__ . '/curl.inc';
$far = rsw_curl_far();
$closed = rsw_free_port();
$guzzle = RSW_GUZZLE;
echo rsw_curl_run(<<<PHP
require '$guzzle';
error_reporting(E_ALL & ~E_DEPRECATED);
\$base = 'http://127.0.0.1:{$far->port}';
\$refused = 'http://127.0.0.1:$closed/';
\$native = function () use (\$refused) {
    \$ch = curl_init(\$refused);
    curl_setopt(\$ch, CURLOPT_RETURNTRANSFER, true);
    \$r = curl_exec(\$ch);
    return [var_export(\$r, true), curl_errno(\$ch), preg_replace('/after \\d+ ms/', 'after N ms', curl_error(\$ch))];
};
\$outside = \$native();
echo 'outside, refused: ', implode(' ', \$outside), "\\n";
Co\\run(function () use (\$base, \$refused, \$native, \$outside) {
    \$ticks = 0;
    go(function () use (&\$ticks) { for (\$i = 0; \$i < 5; \$i++) { Swoole\Coroutine::sleep(0.05); \$ticks++; } });
    \$t = microtime(true);
    \$ch = curl_init(\$base . '/sleep');
    curl_setopt_array(\$ch, [CURLOPT_RETURNTRANSFER => true, CURLOPT_TIMEOUT_MS => 300]);
    \$r = curl_exec(\$ch);
    \$el = microtime(true) - \$t;
    echo 'timeout: ', var_export(\$r, true), ' errno=', curl_errno(\$ch), ' ', preg_replace('/\\d+ milli/', 'N milli', curl_error(\$ch)),
        ' in 0.3..0.9 s: ', \$el >= 0.29 && \$el < 0.9 ? 'OK' : sprintf('FAIL %.2f', \$el), ', other coroutine ticked: ', \$ticks >= 4 ? 'OK' : "FAIL \$ticks", "\\n";
    \$in = \$native();
    echo 'in a coroutine, refused: ', implode(' ', \$in), ' (same as outside: ', var_export(\$in === \$outside, true), ")\\n";
    \$c = new GuzzleHttp\Client();
    foreach ([[\$base . '/sleep', ['timeout' => 0.3]], [\$refused, []]] as [\$url, \$o]) {
        try {
            \$c->get(\$url, \$o);
            echo "guzzle: no exception\\n";
        } catch (GuzzleHttp\Exception\ConnectException \$e) {
            echo 'guzzle: ', get_class(\$e), ' ', substr(\$e->getMessage(), 0, 30), ' errno=', \$e->getHandlerContext()['errno'], "\\n";
        }
    }
    // The same through the multi handler (getAsync).
    try {
        \$c->getAsync(\$refused)->wait();
    } catch (GuzzleHttp\Exception\ConnectException \$e) {
        echo 'guzzle async: ConnectException errno=', \$e->getHandlerContext()['errno'], "\\n";
    }
});
// Hooks on but outside a coroutine: ext/curl's own, blocking.
\$t = microtime(true);
\$ch = curl_init(\$base . '/slow');
curl_setopt(\$ch, CURLOPT_RETURNTRANSFER, true);
\$r = json_decode(curl_exec(\$ch), true);
echo 'after Co\\run: ', \$r['uri'], ' ', curl_getinfo(\$ch, CURLINFO_HTTP_CODE), ' ', isset(curl_getinfo(\$ch)['certinfo']) ? 'ext/curl info' : '?', "\\n";
PHP);
$far->stop();
?>
--EXPECTF--
outside, refused: false 7 Failed to connect to 127.0.0.1 port %d after N ms: Couldn't connect to server
timeout: false errno=28 Operation timed out after N milliseconds with 0 bytes received in 0.3..0.9 s: OK, other coroutine ticked: OK
in a coroutine, refused: false 7 Failed to connect to 127.0.0.1 port %d after N ms: Couldn't connect to server (same as outside: true)
guzzle: GuzzleHttp\Exception\ConnectException cURL error 28: Operation timed errno=28
guzzle: GuzzleHttp\Exception\ConnectException cURL error 7: Failed to connec errno=7
guzzle async: ConnectException errno=7
after Co\run: /slow 200 ext/curl info
