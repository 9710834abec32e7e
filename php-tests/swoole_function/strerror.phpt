--TEST--
swoole_function: swoole_strerror() gives Swoole's texts, strerror, gai_strerror and hstrerror
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
var_dump(swoole_strerror(SOCKET_ECONNREFUSED));
var_dump(swoole_strerror(SWOOLE_ERROR_CO_OUT_OF_COROUTINE));
var_dump(swoole_strerror(SWOOLE_ERROR_SERVER_SEND_IN_MASTER));
var_dump(swoole_strerror(SWOOLE_ERROR_HTTP2_STREAM_ID_TOO_BIG));
var_dump(swoole_strerror(9999));
var_dump(swoole_strerror(5000, SWOOLE_STRERROR_SWOOLE));
var_dump(swoole_strerror(2, SWOOLE_STRERROR_SWOOLE));
var_dump(swoole_strerror(-3, SWOOLE_STRERROR_GAI));
var_dump(swoole_strerror(1, SWOOLE_STRERROR_DNS));
?>
--EXPECT--
string(18) "Connection refused"
string(26) "Coroutine out of coroutine"
string(21) "Server send in master"
string(23) "Http2 stream id too big"
string(18) "Unknown error 9999"
string(18) "Unknown error 5000"
string(25) "No such file or directory"
string(36) "Temporary failure in name resolution"
string(12) "Unknown host"
