--TEST--
swoole_runtime: hooked stream_select() in a coroutine counts each ready stream once, even when it is in both the read and write arrays
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
Swoole\Runtime::enableCoroutine(SWOOLE_HOOK_ALL);
Co\run(function () {
    $srv = stream_socket_server('tcp://127.0.0.1:0', $errno, $errstr);
    $addr = stream_socket_get_name($srv, false);
    go(function () use ($srv) {
        for ($i = 0; $i < 2; $i++) {
            $c = stream_socket_accept($srv, 2);
            fwrite($c, "hello");
            $keep[] = $c;
        }
        Co::sleep(0.3);
    });
    $a = stream_socket_client("tcp://$addr", $errno, $errstr, 2);
    $b = stream_socket_client("tcp://$addr", $errno, $errstr, 2);
    Co::sleep(0.05);
    $r = [$a, $b];
    $w = [$a, $b];
    $e = null;
    var_dump(stream_select($r, $w, $e, 2), count($r), count($w));
    // Only writable: each stream once.
    $r = [];
    $w = [$a];
    var_dump(stream_select($r, $w, $e, 2));
});
?>
--EXPECT--
int(2)
int(2)
int(2)
int(1)
