--TEST--
swoole_http_server: set() with an unknown option warns and names the option
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
// An unknown key must produce a warning that contains the key; known keys are still applied.
$http = new Swoole\Http\Server('127.0.0.1', 0, SWOOLE_BASE);
$warnings = [];
set_error_handler(function ($no, $msg) use (&$warnings) {
    $warnings[] = [$no, $msg];
    return true;
});
ob_start(); // Swoole also prints a backtrace after the warning; it is not part of the contract
$ret = $http->set(['worker_num' => 3, 'no_such_option_xyz' => 1]);
ob_end_clean();
restore_error_handler();
$named = array_filter($warnings, fn($w) => in_array($w[0], [E_WARNING, E_USER_WARNING, E_NOTICE, E_USER_NOTICE], true)
    && str_contains($w[1], 'no_such_option_xyz'));
var_dump(count($named) >= 1);
var_dump($http->setting['worker_num']);
?>
--EXPECT--
bool(true)
int(3)
