--TEST--
swoole_server: Http\Server and WebSocket\Server on SWOOLE_SOCK_UNIX_STREAM (BASE and PROCESS): curl --unix-socket, $request->server and getClientInfo() for a unix peer
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc';
if (!is_executable('/usr/bin/curl')) die('skip curl not installed'); ?>
--FILE--
<?php
require __DIR__ . '/../include/tcp.php';

foreach ([SWOOLE_BASE => 'BASE', SWOOLE_PROCESS => 'PROCESS'] as $mode => $name) {
    foreach (['Swoole\Http\Server', 'Swoole\WebSocket\Server'] as $class) {
        $path = sys_get_temp_dir() . "/rsw_unix_http_" . getmypid() . "_$mode.sock";
        @unlink($path);
        $t = new ServerTest(static function (int $port, callable $ready) use ($path, $mode, $class): void {
            $s = new $class($path, 0, $mode, SWOOLE_SOCK_UNIX_STREAM);
            $s->set(['worker_num' => 1]);
            $s->on('workerStart', function () use ($ready) { $ready(); });
            $s->on('message', function () {});
            $s->on('request', function ($req, $resp) use ($s) {
                $v = $req->server;
                $i = $s->getClientInfo($req->fd);
                $resp->end(json_encode([
                    'get' => $req->get,
                    'server_addr' => $v['server_addr'] ?? null,
                    'server_port' => $v['server_port'],
                    'remote_addr' => $v['remote_addr'],
                    'remote_port' => $v['remote_port'],
                    'info' => [$i['socket_type'], $i['remote_ip'], $i['remote_port']],
                ], JSON_UNESCAPED_SLASHES));
            });
            $s->start();
        }, ['ready_count' => 1, 'wait_port' => false]);
        $t->start();
        try {
            $out = shell_exec('curl -s -m 5 --unix-socket ' . escapeshellarg($path) . " 'http://localhost/x?a=hello&b=2'; curl -s -m 5 --unix-socket " . escapeshellarg($path) . ' http://localhost/y');
            echo "$name $class: ", str_replace($path, 'PATH', (string) $out), "\n";
            // No Host header: taken on a unix port, as Swoole takes it.
            $c = stream_socket_client("unix://$path", $errno, $errstr, 3);
            stream_set_timeout($c, 3);
            fwrite($c, "GET /nohost HTTP/1.1\r\n\r\n");
            $head = (string) fgets($c);
            echo "$name $class no Host: ", trim($head), "\n";
            fclose($c);
        } finally {
            $t->stop();
        }
        echo "$name $class file removed: ", var_export(!file_exists($path), true), "\n";
    }
}
?>
--EXPECT--
BASE Swoole\Http\Server: {"get":{"a":"hello","b":"2"},"server_addr":"PATH","server_port":0,"remote_addr":"","remote_port":0,"info":[5,"",0]}{"get":null,"server_addr":"PATH","server_port":0,"remote_addr":"","remote_port":0,"info":[5,"",0]}
BASE Swoole\Http\Server no Host: HTTP/1.1 200 OK
BASE Swoole\Http\Server file removed: true
BASE Swoole\WebSocket\Server: {"get":{"a":"hello","b":"2"},"server_addr":"PATH","server_port":0,"remote_addr":"","remote_port":0,"info":[5,"",0]}{"get":null,"server_addr":"PATH","server_port":0,"remote_addr":"","remote_port":0,"info":[5,"",0]}
BASE Swoole\WebSocket\Server no Host: HTTP/1.1 200 OK
BASE Swoole\WebSocket\Server file removed: true
PROCESS Swoole\Http\Server: {"get":{"a":"hello","b":"2"},"server_addr":"PATH","server_port":0,"remote_addr":"","remote_port":0,"info":[5,"",0]}{"get":null,"server_addr":"PATH","server_port":0,"remote_addr":"","remote_port":0,"info":[5,"",0]}
PROCESS Swoole\Http\Server no Host: HTTP/1.1 200 OK
PROCESS Swoole\Http\Server file removed: true
PROCESS Swoole\WebSocket\Server: {"get":{"a":"hello","b":"2"},"server_addr":"PATH","server_port":0,"remote_addr":"","remote_port":0,"info":[5,"",0]}{"get":null,"server_addr":"PATH","server_port":0,"remote_addr":"","remote_port":0,"info":[5,"",0]}
PROCESS Swoole\WebSocket\Server no Host: HTTP/1.1 200 OK
PROCESS Swoole\WebSocket\Server file removed: true
