--TEST--
swoole_function: version, cpu_num, hashcode, local ip/mac, error log and ignore_error
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
var_dump(swoole_version() === SWOOLE_VERSION);
var_dump(swoole_cpu_num() === (int) trim(shell_exec('nproc')));
var_dump(swoole_hashcode('abc'), swoole_hashcode('abc', 1), swoole_hashcode('abc', 2));
foreach (swoole_get_local_ip() as $if => $ip) {
    var_dump(filter_var($ip, FILTER_VALIDATE_IP, FILTER_FLAG_IPV4) !== false && $ip !== '127.0.0.1');
}
var_dump(isset(swoole_get_local_ip()['lo']), isset(swoole_get_local_mac()['lo']));
foreach (swoole_get_local_mac() as $if => $mac) {
    var_dump((bool) preg_match('/^([0-9A-F]{2}:){5}[0-9A-F]{2}$/', $mac));
}
var_dump(swoole_errno() >= 0);
swoole_error_log(SWOOLE_LOG_WARNING, 'plain line');
swoole_error_log(SWOOLE_LOG_DEBUG, 'below the level');
swoole_error_log_ex(SWOOLE_LOG_WARNING, SWOOLE_ERROR_INVALID_PARAMS, 'with a code');
var_dump(swoole_last_error());
swoole_clear_error();
swoole_ignore_error(SWOOLE_ERROR_INVALID_PARAMS);
swoole_error_log_ex(SWOOLE_LOG_WARNING, SWOOLE_ERROR_INVALID_PARAMS, 'ignored');
var_dump(swoole_last_error());
?>
--EXPECTF--
bool(true)
bool(true)
int(-9223372036661289845)
int(3977453403)
bool(false)
%A
bool(false)
bool(false)
%A
bool(true)
[%s]	WARNING	plain line
[%s]	WARNING	zif_swoole_error_log_ex() (ERRNO 505): with a code
int(505)
int(505)
