--TEST--
swoole_http_client_coro: seed 003's benchmark client (go() at top level, sequential clients, websocket_mask false, push + recv) against its task-worker broadcast server
--DESCRIPTION--
The client class is seed 003's "压测脚本" with 10 clients x 20 messages instead of 100 x 100 (to stay quick in a debug build),
run as its own php process so the loop runs after the script's main code, as in the seed. The server is the seed's, with
worker_num 1 and task_worker_num 2.
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
$client = <<<'SEED'
<?php
class Test
{
    protected $concurrency; //并发量
    protected $request;     //请求量
    protected $requested = 0;
    protected $start_time;

    function __construct()
    {
        $this->concurrency = 10;
        $this->request     = 200;
    }

    protected function webSocket()
    {
        go(function () {
            for ($c = 1; $c <= $this->concurrency; $c++ ) {
                $cli = new \Swoole\Coroutine\Http\Client('127.0.0.1', PORT);
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

rsw_run_server(static function (int $port, callable $ready, string $host): void {
    $serv = new Swoole\WebSocket\Server($host, $port);
    $serv->set(['worker_num' => 1, 'task_worker_num' => 2, 'enable_coroutine' => true, 'task_enable_coroutine' => true,
        'log_level' => SWOOLE_LOG_WARNING]);
    $serv->on('workerStart', static fn ($s, $id) => $id === 0 ? $ready() : null);
    $serv->on('open', function ($serv, $request) {});
    $serv->on('message', function ($serv, $frame) {
        $serv->task($frame->data);
    });
    $serv->on('task', function ($serv, $task) {
        foreach ($serv->connections as $fd) {
            $connectionInfo = $serv->connection_info($fd);
            if (isset($connectionInfo['websocket_status']) && intval($connectionInfo['websocket_status']) == 3) {
                $serv->push($fd, $task->data);
            }
        }
    });
    $serv->on('finish', function ($serv, $task_id, $data) {});
    $serv->on('close', function ($serv, $fd) {});
    $serv->start();
}, function (int $port) use ($client) {
    $file = rsw_tempfile('rsw_seed3_');
    file_put_contents($file, str_replace('PORT', (string) $port, $client));
    $cmd = array_merge(['timeout', '-k', '5', '60'], rsw_php_cmd(), [$file]);
    $p = proc_open($cmd, [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
    $out = stream_get_contents($pipes[1]);
    $err = stream_get_contents($pipes[2]);
    $code = proc_close($p);
    echo preg_replace(['/^Total time:.*$/m', '/^Request per second:.*$/m'], ['Total time:T', 'Request per second:N'], $out);
    var_dump($code, $err);
}, 10, ['ready_count' => 1]);
?>
--EXPECT--
Concurrency:10
Request num:200
Success num:200
Total time:T
Request per second:N
int(0)
string(108) "Deprecated: swoole_event_rshutdown(): Event::wait() in shutdown function is deprecated in Unknown on line 0
"
