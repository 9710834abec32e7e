<?php
// Seed 003's group-chat server, as printed (bench/seed003.sh). Changes: it listens on 127.0.0.1
// and RSW_PORT (the seed: 0.0.0.0:9501), and RSW_MODE=process passes SWOOLE_PROCESS (the seed uses
// the default mode, SWOOLE_BASE).
define('RSW_PORT', (int) (getenv('RSW_PORT') ?: 9501));
define('RSW_MODE', getenv('RSW_MODE') === 'process' ? SWOOLE_PROCESS : SWOOLE_BASE);

class Server
{
    private $serv;
    public function __construct() {
        $this->serv = new Swoole\WebSocket\Server("127.0.0.1", RSW_PORT, RSW_MODE);
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
