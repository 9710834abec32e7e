--TEST--
swoole_http_server: Response::create($fd) in a task worker answers the request a worker detached (status, headers, cookies, a large body), also given the fd as a numeric string
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
foreach ([SWOOLE_PROCESS, SWOOLE_BASE] as $mode) {
    rsw_run_server(rsw_http_server_fn(function ($req, $resp) {
        $resp->detach();
        rsw_server()->task(['fd' => (string) $resp->fd, 'uri' => $req->server['request_uri']]);
    }, ['worker_num' => 2, 'task_worker_num' => 2], $mode, [
        'task' => function ($s, $id, $src, $data) {
            $r = Swoole\Http\Response::create($data['fd']);
            if ($data['uri'] === '/big') {
                $r->end(str_repeat('x', 200000));
                return;
            }
            $r->status(201, 'Made Here');
            $r->header('X-From', 'task');
            $r->cookie('k', 'v');
            $r->end('answered by task ' . get_class($r));
        },
    ]), function ($port) {
        $r = rsw_request($port, 'GET', '/small');
        echo $r['status'], ' ', rsw_header($r, 'x-from'), ' ', rsw_header($r, 'set-cookie'), ' ', $r['body'], "\n";
        $r = rsw_request($port, 'GET', '/big');
        echo $r['status'], ' ', strlen($r['body']), "\n";
    }, 10, ['ready_count' => 4]);
}
?>
--EXPECT--
201 task k=v answered by task Swoole\Http\Response
200 200000
201 task k=v answered by task Swoole\Http\Response
200 200000
