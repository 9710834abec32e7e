--TEST--
swoole_http_server: set() rejects a wrongly typed value with a TypeError or Swoole\Exception
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// rswoole contract (stricter than Swoole 6.2, which silently casts): worker_num must be an integer.
$http = new Swoole\Http\Server('127.0.0.1', 0, SWOOLE_BASE);
foreach (['abc', ['x' => 1]] as $bad) {
    try {
        $http->set(['worker_num' => $bad]);
        echo "accepted ", json_encode($bad), "\n";
    } catch (Throwable $e) {
        $ok = $e instanceof TypeError || $e instanceof Swoole\Exception;
        echo $ok ? 'rejected' : 'unexpected ' . get_class($e), ', names key: ', var_export(str_contains($e->getMessage(), 'worker_num'), true), "\n";
    }
}
?>
--EXPECT--
rejected, names key: true
rejected, names key: true
