--TEST--
swoole_runtime: hook_flags in one worker: 100 concurrent requests each doing file_get_contents('http://.../slow') (the far end answers after 0.2 s) finish in < 1 s; without hooks 5 take the serial 1 s
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/hooks.inc';
// The far end: a coroutine server that answers /slow after 0.2 s, whatever the number of requests.
$far = rsw_hook_server(<<<'PHP'
function ($req, $resp) {
    Swoole\Coroutine::sleep(0.2);
    $resp->end('far:' . $req->server['request_uri']);
}
PHP, 0, []);
$handler = <<<'PHP'
function ($req, $resp) use ($cfg) {
    $body = file_get_contents("http://127.0.0.1:{$cfg['far']}/slow");
    $resp->end($body === false ? 'failed' : $body);
}
PHP;
foreach ([SWOOLE_HOOK_ALL => 100, 0 => 5] as $flags => $n) {
    $srv = rsw_hook_server($handler, $flags, [], ['far' => $far->port]);
    [$t, $bodies] = rsw_concurrent_get($srv->port, '/', $n);
    echo "flags=$flags n=$n: ", rsw_summary($bodies), "\n";
    if ($flags) {
        rsw_check('hooked: concurrent, < 1 s', $t < 1.0, sprintf('%.2f s', $t));
    } else {
        rsw_check('unhooked: serial, >= 1 s', $t >= 0.95, sprintf('%.2f s', $t));
    }
    $srv->stop();
    if (trim($srv->log()) !== '') echo $srv->log();
}
$far->stop();
?>
--EXPECT--
flags=2143285247 n=100: 100 x far:/slow
hooked: concurrent, < 1 s: OK
flags=0 n=5: 5 x far:/slow
unhooked: serial, >= 1 s: OK
