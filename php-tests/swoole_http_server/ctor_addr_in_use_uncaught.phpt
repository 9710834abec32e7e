--TEST--
swoole_http_server: an uncaught "Address already in use" makes the php process exit non-zero
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// Runs a plain server script in a subprocess on an occupied port and checks it fails loudly.
require __DIR__ . '/../include/bootstrap.php';
$port = rsw_free_port();
$holder = stream_socket_server("tcp://127.0.0.1:$port");
$dir = rsw_tmpdir();
file_put_contents("$dir/server.php", <<<PHP
<?php
// occupied-port server script
\$http = new Swoole\\Http\\Server('127.0.0.1', $port);
\$http->on('request', function (\$req, \$resp) { \$resp->end('should not serve'); });
\$http->start();
PHP);
$p = new ScriptServer("$dir/server.php", $port);
$p->start(10, false);
$code = $p->wait(8);
if ($code === null) {
    echo "still running after 8 s\n";
    $p->stop();
}
var_dump($code !== null && $code !== 0);
$log = $p->log();
var_dump(str_contains($log, 'Swoole\Exception'));
var_dump(str_contains($log, 'Address already in use'));
fclose($holder);
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
