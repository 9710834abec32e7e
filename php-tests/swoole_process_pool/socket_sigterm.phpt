--TEST--
swoole_process_pool: SWOOLE_IPC_SOCKET listen(): length-prefixed messages to onMessage, write() answers; SIGTERM to the master stops every worker (workerStop) and start() returns
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
use Swoole\Process\Pool;

$port = rsw_free_port();
$log = rsw_tempfile('rsw_pool_');
$master = pcntl_fork();
if ($master === 0) {
    $pool = new Pool(2, SWOOLE_IPC_SOCKET);
    $pool->on('workerStart', function (Pool $pool, int $id) use ($log) {
        file_put_contents($log, "start $id\n", FILE_APPEND);
    });
    $pool->on('message', function (Pool $pool, string $msg) {
        $pool->write("worker {$pool->workerId}: ");
        $pool->write(strtoupper($msg));
    });
    $pool->on('workerStop', function (Pool $pool, int $id) use ($log) {
        file_put_contents($log, "stop $id\n", FILE_APPEND);
    });
    var_dump($pool->listen('127.0.0.1', $port));
    $pool->start();
    file_put_contents($log, "start() returned\n", FILE_APPEND);
    exit(0);
}
rsw_wait_until(fn() => count(@file($log) ?: []) >= 2, 5);
function ask(int $port, string $msg): string {
    $c = stream_socket_client("tcp://127.0.0.1:$port", $errno, $errstr, 3);
    fwrite($c, pack('N', strlen($msg)) . $msg);
    stream_set_timeout($c, 3);
    $head = fread($c, 4);
    $len = unpack('N', $head)[1];
    $body = '';
    while (strlen($body) < $len && !feof($c)) {
        $body .= fread($c, $len - strlen($body));
    }
    $eof = fread($c, 1);
    return preg_replace('/^worker \d: /', 'worker N: ', $body) . ($eof === '' ? ' (closed)' : ' (open?)');
}
echo ask($port, "hello pool"), "\n";
echo ask($port, str_repeat('a', 100000)) === 'worker N: ' . str_repeat('A', 100000) . ' (closed)' ? "big ok\n" : "big bad\n";
posix_kill($master, SIGTERM);
pcntl_waitpid($master, $status);
var_dump(pcntl_wexitstatus($status));
$lines = file($log, FILE_IGNORE_NEW_LINES);
echo end($lines), "\n";
sort($lines);
echo implode("\n", $lines), "\n";
?>
--EXPECT--
bool(true)
worker N: HELLO POOL (closed)
big ok
int(0)
start() returned
start 0
start 1
start() returned
stop 0
stop 1
