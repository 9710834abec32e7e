--TEST--
swoole_http_server: $server->setting reflects the values given to set(), merged across calls
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// set() stores its options in the public ->setting array; a second set() merges.
$http = new Swoole\Http\Server('127.0.0.1', 0, SWOOLE_BASE);
var_dump($http->set(['worker_num' => 3, 'max_request' => 100, 'package_max_length' => 2048]));
var_dump($http->set(['document_root' => '/tmp', 'enable_static_handler' => true]));
$s = $http->setting;
var_dump($s['worker_num'], $s['max_request'], $s['package_max_length'], $s['document_root'], $s['enable_static_handler']);
?>
--EXPECT--
bool(true)
bool(true)
int(3)
int(100)
int(2048)
string(4) "/tmp"
bool(true)
