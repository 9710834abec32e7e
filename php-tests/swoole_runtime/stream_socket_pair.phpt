--TEST--
swoole_runtime: hooks set with Co::set(['hook_flags' => ...]) (getHookFlags() reports them; Co\run() keeps them); with SWOOLE_HOOK_STREAM_FUNCTION the streams of stream_socket_pair() suspend only the reading coroutine (a reader waiting on an empty pair does not stop a writer coroutine)
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';

Co::set(['hook_flags' => 0]);
Co\run(function () {
    echo 'flags after Co::set(0): ', Swoole\Runtime::getHookFlags(), "\n";
});
Co::set(['hook_flags' => SWOOLE_HOOK_STREAM_FUNCTION | SWOOLE_HOOK_SLEEP]);
Co\run(function () {
    var_dump(Swoole\Runtime::getHookFlags() === (SWOOLE_HOOK_STREAM_FUNCTION | SWOOLE_HOOK_SLEEP));
    $pair = stream_socket_pair(STREAM_PF_UNIX, STREAM_SOCK_STREAM, STREAM_IPPROTO_IP);
    $log = [];
    go(function () use ($pair, &$log) {
        while (($buf = fread($pair[1], 100)) !== '' && $buf !== false) {
            $log[] = "read $buf";
        }
        $log[] = 'eof';
    });
    for ($i = 0; $i < 3; $i++) {
        $log[] = "write $i";
        fwrite($pair[0], "m$i");
        usleep(20000);
    }
    fclose($pair[0]);
    usleep(20000);
    echo implode("\n", $log), "\n";
});
?>
--EXPECT--
flags after Co::set(0): 0
bool(true)
write 0
read m0
write 1
read m1
write 2
read m2
eof
