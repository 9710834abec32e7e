--TEST--
swoole_http_server: constructing on a port already in use throws Swoole\Exception naming the address
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// Another socket holds the port; the constructor must throw Swoole\Exception, not start serving.
require __DIR__ . '/../include/bootstrap.php';
$port = rsw_free_port();
$holder = stream_socket_server("tcp://127.0.0.1:$port");
try {
    $http = new Swoole\Http\Server('127.0.0.1', $port, SWOOLE_BASE);
    echo "no exception from the constructor\n";
} catch (Throwable $e) {
    echo get_class($e), "\n";
    var_dump($e instanceof Swoole\Exception);
    var_dump(str_contains($e->getMessage(), "127.0.0.1:$port"));
    var_dump(str_contains($e->getMessage(), 'Address already in use'));
}
fclose($holder);
?>
--EXPECT--
Swoole\Exception
bool(true)
bool(true)
bool(true)
