--TEST--
swoole_http_server: seed 000 benchmark server (4 workers, wrongly typed handler) answers 500 and keeps serving over keep-alive
--DESCRIPTION--
The script is verbatim from shared/seeds/000_33cf6eef32e82d11.txt with only the port replaced, run as its own php process.
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// Every request hits the TypeError (Swoole\Http\Server hint for the response); the server must answer 500 each time.
require __DIR__ . '/../include/bootstrap.php';
$seed = <<<'SEED'
$http = new Swoole\Http\Server("127.0.0.1", 9501, SWOOLE_BASE);

$http->set([
    'worker_num' => 4,
]);

$http->on('request', function ($request, Swoole\Http\Server $response) {
    $response->header('Last-Modified', 'Thu, 18 Jun 2015 10:24:27 GMT');
    $response->header('E-Tag', '55829c5b-17');
    $response->header('Accept-Ranges', 'bytes');    
    $response->end("<h1>\nHello Swoole.\n</h1>");
});

$http->start();
SEED;
$port = rsw_free_port();
$dir = rsw_tmpdir();
file_put_contents("$dir/seed000.php", "<?php\n" . str_replace('9501', (string) $port, $seed) . "\n");
$srv = (new ScriptServer("$dir/seed000.php", $port))->start();
try {
    $c = new RswConn($port);
    $statuses = [];
    for ($i = 0; $i < 20; $i++) {
        $c->send("GET / HTTP/1.1\r\nHost: 127.0.0.1:$port\r\nConnection: keep-alive\r\n\r\n");
        $r = $c->readResponse(false, 5);
        $statuses[] = $r['status'] ?? 'none';
    }
    echo 'statuses: ', implode(',', array_unique($statuses)), ' x', count($statuses), "\n";
    rsw_check('keep-alive connection still open', !$c->closedByPeer(0.2));
    $others = [];
    for ($i = 0; $i < 8; $i++) {
        $others[] = rsw_http_get($port, '/')[0];
    }
    echo 'new connections: ', implode(',', array_unique($others)), "\n";
    rsw_check('log names the TypeError', str_contains($srv->log(), 'TypeError'));
} finally {
    $code = $srv->stop();
}
echo "exit code: $code\n";
?>
--EXPECT--
statuses: 500 x20
keep-alive connection still open: OK
new connections: 500
log names the TypeError: OK
exit code: 0
