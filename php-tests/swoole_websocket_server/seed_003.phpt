--TEST--
swoole_websocket_server: seed 003 unchanged: its group-chat server (messages to 10 task workers, which push to every established connection) and its coroutine client give Success num:10000, in the default mode and in SWOOLE_PROCESS
--DESCRIPTION--
Both scripts are the seed's text as printed. Changes: the port (a free one instead of 9501), the host the server binds
(127.0.0.1 instead of 0.0.0.0: tests listen on loopback only), `<?php` before the client (the article prints it without),
and, for the second run, SWOOLE_PROCESS as the server's mode argument.
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
$server = <<<'SEED'
<?php

class Server
{
    private $serv;
    public function __construct() {
        $this->serv = new Swoole\WebSocket\Server("0.0.0.0", 9501);
        $this->serv->set([
            'task_worker_num'       => 10,
            'enable_coroutine'      => true,
            'task_enable_coroutine' => true
        ]);
        $this->serv->on('open', function ($serv, $request) {});
        $this->serv->on('message', function ($serv, $frame) {
            $serv->task($frame->data);
        });
        $this->serv->on('task', function ($serv, $task) {
            foreach ($serv->connections as $fd) {
                $connectionInfo = $serv->connection_info($fd);
                if (isset($connectionInfo['websocket_status']) && intval($connectionInfo['websocket_status']) == 3) {
                    $serv->push($fd, $task->data);
                }
            }
        });
        $this->serv->on('finish', function ($serv, $task_id, $data) {});
        $this->serv->on('close', function ($serv, $fd) {});
        $this->serv->start();
    }
}

$server = new Server();
SEED;
$client = <<<'SEED'
class Test
{
    protected $concurrency; //并发量
    protected $request;     //请求量
    protected $requested = 0;
    protected $start_time;

    function __construct()
    {
        $this->concurrency = 100;
        $this->request     = 10000;
    }

    protected function webSocket()
    {
        go(function () {
            for ($c = 1; $c <= $this->concurrency; $c++ ) {
                $cli = new \Swoole\Coroutine\Http\Client('127.0.0.1', 9501);
                $cli->set(['websocket_mask' => false]);
                $ret = $cli->upgrade('/');
                if ($ret) {
                    $i = $this->request / $this->concurrency;
                    while ($i >= 1) {
                        $this->push($cli);
                        $cli->recv();
                        $i--;
                    }
                }
            }
            $this->finish();
        });
    }

    protected function push($cli)
    {
        $ret = $cli->push('Hello World');
        if ($ret === true) {
            $this->requested ++ ;
        }
    }

    protected function finish()
    {
        $cost_time = round(microtime(true) - $this->start_time, 4);
        echo "Concurrency:".$this->concurrency.PHP_EOL;
        echo "Request num:".$this->request.PHP_EOL;
        echo "Success num:".$this->requested.PHP_EOL;
        echo "Total time:".$cost_time.PHP_EOL;
        echo "Request per second:" . intval($this->request / $cost_time).PHP_EOL;
    }

    public function run()
    {
        $this->start_time = microtime(true);
        $this->webSocket();
    }
}

$test = new Test();
$test->run();
SEED;
foreach (['default', 'SWOOLE_PROCESS'] as $mode) {
    $port = rsw_free_port();
    $dir = rsw_tmpdir();
    $src = str_replace(['"0.0.0.0", 9501', '9501'], ['"127.0.0.1", ' . $port, (string) $port], $server);
    if ($mode === 'SWOOLE_PROCESS') {
        $src = str_replace('"127.0.0.1", ' . $port . ')', '"127.0.0.1", ' . $port . ', SWOOLE_PROCESS)', $src);
    }
    file_put_contents("$dir/server.php", $src);
    file_put_contents("$dir/client.php", "<?php\n" . str_replace('9501', (string) $port, $client) . "\n");
    $srv = (new ScriptServer("$dir/server.php", $port))->start(15.0);
    try {
        usleep(300000); // the task workers start too
        $cmd = array_merge(['timeout', '-k', '5', '60'], rsw_php_cmd(), ["$dir/client.php"]);
        $p = proc_open($cmd, [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
        $out = stream_get_contents($pipes[1]);
        $err = stream_get_contents($pipes[2]);
        $code = proc_close($p);
        echo "== $mode\n";
        echo preg_replace(['/^Total time:.*$/m', '/^Request per second:.*$/m'], ['Total time:T', 'Request per second:N'], $out);
        echo "client exit: $code", $err === '' ? '' : "\n$err", "\n";
        if ($mode === 'SWOOLE_PROCESS') {
            $kids = array_filter(explode(' ', trim((string) @file_get_contents("/proc/{$srv->pid}/task/{$srv->pid}/children"))));
            echo 'one manager under the master: ', count($kids) === 1 ? 'yes' : 'no', "\n";
        }
    } finally {
        echo 'server exit: ', $srv->stop(), "\n";
    }
}
?>
--EXPECT--
== default
Concurrency:100
Request num:10000
Success num:10000
Total time:T
Request per second:N
client exit: 0
Deprecated: swoole_event_rshutdown(): Event::wait() in shutdown function is deprecated in Unknown on line 0

server exit: 0
== SWOOLE_PROCESS
Concurrency:100
Request num:10000
Success num:10000
Total time:T
Request per second:N
client exit: 0
Deprecated: swoole_event_rshutdown(): Event::wait() in shutdown function is deprecated in Unknown on line 0

one manager under the master: yes
server exit: 0
