--TEST--
swoole_http_server: closures, function names, [$obj, 'method'] and 'Class::method' all work as request callbacks
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// Each callable form is registered with on('request') and must serve a request.
require __DIR__ . '/../include/bootstrap.php';
function rsw_named_handler($req, $resp) { $resp->end('function'); }
class RswHandlers {
    public function handle($req, $resp) { $resp->end('method'); }
    public static function handleStatic($req, $resp) { $resp->end('static'); }
}
$callables = [
    'closure' => function ($req, $resp) { $resp->end('closure'); },
    'function name' => 'rsw_named_handler',
    'array' => [new RswHandlers(), 'handle'],
    'Class::method' => 'RswHandlers::handleStatic',
];
foreach ($callables as $kind => $cb) {
    rsw_run_server(rsw_http_server_fn($cb), function ($port) use ($kind) {
        [$status, , $body] = rsw_http_get($port, '/');
        echo "$kind: $status $body\n";
    });
}
?>
--EXPECT--
closure: 200 closure
function name: 200 function
array: 200 method
Class::method: 200 static
