--TEST--
swoole_runtime: curl hook: 50 concurrent Guzzle requests in Co\run finish in < 1 s (hooks off: 5 take the serial 1 s); a getAsync batch and a Pool run concurrently; a POST with body and headers round-trips
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc';
require __DIR__ . '/curl.inc'; if (!rsw_have_guzzle()) die('skip Guzzle or ext/curl not available'); ?>
--FILE--
<?php
require __DIR__ . '/curl.inc';
$far = rsw_curl_far();
$guzzle = RSW_GUZZLE;
foreach ([SWOOLE_HOOK_ALL => 50, 0 => 5] as $flags => $n) {
    echo rsw_curl_run(<<<PHP
require '$guzzle';
error_reporting(E_ALL & ~E_DEPRECATED);
Swoole\Runtime::enableCoroutine($flags);
Co\\run(function () {
    \$c = new GuzzleHttp\Client(['base_uri' => 'http://127.0.0.1:{$far->port}']);
    \$t = microtime(true);
    \$wg = new Swoole\Coroutine\WaitGroup();
    \$ok = 0;
    for (\$i = 0; \$i < $n; \$i++) {
        \$wg->add();
        go(function () use (\$wg, \$c, &\$ok) {
            \$ok += \$c->get('/slow')->getStatusCode() === 200;
            \$wg->done();
        });
    }
    \$wg->wait();
    \$el = microtime(true) - \$t;
    echo "flags=$flags: \$ok of $n answered 200\\n";
    if (!$flags) {
        echo 'unhooked: serial, >= 1 s: ', \$el >= 0.95 ? 'OK' : sprintf('FAIL %.2f s', \$el), "\\n";
        return;
    }
    echo 'hooked: concurrent, < 1 s: ', \$el < 1.0 ? 'OK' : sprintf('FAIL %.2f s', \$el), "\\n";

    // getAsync: 20 promises waited together (CurlMultiHandler over the hooked curl_multi_*).
    \$t = microtime(true);
    \$ps = [];
    for (\$i = 0; \$i < 20; \$i++) {
        \$ps[] = \$c->getAsync('/slow');
    }
    \$res = GuzzleHttp\Promise\Utils::unwrap(\$ps);
    \$el = microtime(true) - \$t;
    echo 'getAsync x20: ', count(\$res), ' answers, one round (< 0.6 s): ', \$el < 0.6 ? 'OK' : sprintf('FAIL %.2f s', \$el), "\\n";

    // A Pool of 20 with concurrency 10: two rounds of 0.2 s.
    \$t = microtime(true);
    \$n = 0;
    \$reqs = (function () { for (\$i = 0; \$i < 20; \$i++) yield new GuzzleHttp\Psr7\Request('GET', '/slow'); })();
    (new GuzzleHttp\Pool(\$c, \$reqs, ['concurrency' => 10, 'fulfilled' => function () use (&\$n) { \$n++; }]))->promise()->wait();
    \$el = microtime(true) - \$t;
    echo "pool 20/10: \$n fulfilled, two rounds (0.39..0.8 s): ", \$el >= 0.39 && \$el < 0.8 ? 'OK' : sprintf('FAIL %.2f s', \$el), "\\n";

    // POST with a body and headers, the response's headers.
    \$r = \$c->post('/echo?q=1', ['body' => 'payload=1', 'headers' => ['X-Test' => 'abc', 'Content-Type' => 'text/plain']]);
    \$j = json_decode((string) \$r->getBody(), true);
    echo 'post: ', \$r->getStatusCode(), ' ', \$j['method'], ' ', \$j['uri'], ' ', \$j['body'], ' ',
        \$j['headers']['x-test'], ' ', \$j['headers']['content-type'], ' ', \$j['headers']['user-agent'], "\\n";
    echo 'response headers: ', \$r->getHeaderLine('X-Far'), ' ', \$r->getHeaderLine('Content-Type'), ' ',
        implode(',', \$r->getHeader('Set-Cookie')), "\\n";
    // form_params and json bodies.
    \$j = json_decode((string) \$c->post('/echo', ['form_params' => ['a' => 'b c']])->getBody(), true);
    echo 'form: ', json_encode(\$j['post']), "\\n";
    \$j = json_decode((string) \$c->put('/echo', ['json' => ['k' => 1]])->getBody(), true);
    echo 'json: ', \$j['method'], ' ', \$j['body'], ' ', \$j['headers']['content-type'], "\\n";
});
PHP);
}
$far->stop();
?>
--EXPECT--
flags=2143285247: 50 of 50 answered 200
hooked: concurrent, < 1 s: OK
getAsync x20: 20 answers, one round (< 0.6 s): OK
pool 20/10: 20 fulfilled, two rounds (0.39..0.8 s): OK
post: 200 POST /echo?q=1 payload=1 abc text/plain GuzzleHttp/7
response headers: yes application/json a=1,b=2
form: {"a":"b c"}
json: PUT {"k":1} application/json
flags=0: 5 of 5 answered 200
unhooked: serial, >= 1 s: OK
