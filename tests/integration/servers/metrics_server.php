<?php
// Server for tests/integration/test_metrics.py: php metrics_server.php PORT METRICS_PORT SETTINGS_JSON
// "_mode": "process" in the settings runs SWOOLE_PROCESS. A Swoole\Table of 64 rows holds 3 rows.
// Handlers by path: /x answers at once, /co sleeps 3 s in a coroutine then adds a table row, /block sleeps 3 s (blocking),
// /usleep blocks 0.3 s (the BLOCKING-LINE marker below), /spin never returns, /task sends a task.

$port = (int) $argv[1];
$settings = json_decode($argv[3], true) + ['metrics_port' => (int) $argv[2]];
$mode = ($settings['_mode'] ?? 'base') === 'process' ? SWOOLE_PROCESS : SWOOLE_BASE;
unset($settings['_mode']);
$table = new Swoole\Table(64);
$table->column('n', Swoole\Table::TYPE_INT);
$table->create();
$GLOBALS['table'] = $table;
foreach (['a', 'b', 'c'] as $k) {
    $table->set($k, ['n' => 1]);
}
$http = new Swoole\Http\Server('127.0.0.1', $port, $mode);
$http->set($settings);
$http->on('task', static function ($server, $id, $src, $data) {
    return $data;
});
$http->on('request', static function ($req, $resp) use ($http): void {
    $p = $req->server['request_uri'];
    if ($p === '/co') {
        Swoole\Coroutine::sleep(3);
        // Reached at once when request_timeout wakes the coroutine (a 4th table row).
        $GLOBALS['table']->set('woke', ['n' => 1]);
    } elseif ($p === '/block') {
        sleep(3);
    } elseif ($p === '/usleep') {
        usleep(300000); // BLOCKING-LINE
    } elseif ($p === '/spin') {
        while (true) {
        }
    }
    $resp->end("ok $p");
});
$http->start();
