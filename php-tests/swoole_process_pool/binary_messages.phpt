--TEST--
swoole_process_pool: sendMessage() and Process::write() carry binary strings (bytes that are not UTF-8, NULs) of 1-8 KB intact and in order, from a coroutine worker; an int is sent as its decimal string
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
use Swoole\Process\Pool;

const N = 64;
mt_srand(7);
$in = [];
for ($i = 0; $i < N; $i++) {
    $n = mt_rand(1024, 8192);
    $s = '';
    for ($j = 0; $j < $n; $j++) {
        $s .= chr(mt_rand(0, 255));
    }
    $in[] = $s;
}
$log = tempnam(sys_get_temp_dir(), 'rsw_poolbin_');
$pool = new Pool(2, SWOOLE_IPC_UNIXSOCK);
$pool->set(['enable_coroutine' => true]);
$pool->on('workerStart', function (Pool $pool, int $id) use ($in) {
    if ($id === 0) {
        foreach ($in as $item) {
            if (!$pool->sendMessage($item, 1)) {
                echo "send failed\n";
            }
            Co::sleep(0.001);
        }
        $pool->sendMessage(12345, 1);
    }
});
$got = [];
$pool->on('message', function (Pool $pool, string $msg) use (&$got, $in, $log) {
    if ($msg === '12345') {
        file_put_contents($log, json_encode([count($got), $got === array_map('md5', $in)]));
        $pool->shutdown();
        return;
    }
    $got[] = md5($msg);
});
$pool->start();
echo file_get_contents($log), "\n";
unlink($log);
?>
--EXPECT--
[64,true]
