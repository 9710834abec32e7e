--TEST--
swoole_server: a plain-text client on a SWOOLE_SSL port is closed and logged as Swoole logs it (WARNING Socket::ssl_accept(): bad SSL client[ip:port], reason=, error_string= with OpenSSL's reason for a non-TLS record and for an HTTP request); a TLS client is served after; ssl_ciphers classes OpenSSL 3 has no suites for either (RC4, SSLv2, EXP) log nothing, while DHE, which OpenSSL has and rustls does not, is still reported
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
require __DIR__ . '/../include/tls.php';
$c = rsw_tls_certs();
$log = rsw_tempfile('rsw_sslbad_');

$server = function (string $ciphers) use ($c, $log) {
    return function (int $port, callable $ready, string $host) use ($c, $log, $ciphers) {
        $serv = new Swoole\Server($host, $port, SWOOLE_BASE, SWOOLE_SOCK_TCP | SWOOLE_SSL);
        $serv->set(['worker_num' => 1, 'log_file' => $log, 'ssl_ciphers' => $ciphers,
            'ssl_cert_file' => $c['server_crt'], 'ssl_key_file' => $c['server_key']]);
        $serv->on('workerStart', fn() => $ready());
        $serv->on('receive', fn($s, $fd, $r, $data) => $s->send($fd, "Swoole $data"));
        $serv->start();
    };
};

rsw_run_server($server('ALL:!ADH:!EXPORT56:RC4+RSA:+HIGH:+MEDIUM:+LOW:+SSLv2:+EXP'), function (int $port) use ($log) {
    foreach (["hello world\n", "GET / HTTP/1.1\r\nHost: x\r\n\r\n"] as $plain) {
        $s = stream_socket_client("tcp://127.0.0.1:$port", $errno, $errstr, 3);
        fwrite($s, $plain);
        stream_set_timeout($s, 3);
        rsw_check('plain client closed: ' . json_encode(substr($plain, 0, 5)), fread($s, 100) === '');
        fclose($s);
    }
    $cli = new Swoole\Client(SWOOLE_SOCK_TCP | SWOOLE_SSL, SWOOLE_SOCK_SYNC);
    rsw_check('TLS client served after', $cli->connect('127.0.0.1', $port, 3) && $cli->send('hi') && $cli->recv() === 'Swoole hi');
    rsw_wait_until(fn() => substr_count((string) file_get_contents($log), 'bad SSL client') >= 2, 3);
});
$text = (string) file_get_contents($log);
rsw_check('non-TLS record logged', preg_match('/\]\tWARNING\tSocket::ssl_accept\(\): bad SSL client\[127\.0\.0\.1:\d+\], reason=267, error_string=wrong version number$/m', $text) === 1, $text);
rsw_check('HTTP request logged', preg_match('/\]\tWARNING\tSocket::ssl_accept\(\): bad SSL client\[127\.0\.0\.1:\d+\], reason=156, error_string=http request$/m', $text) === 1, $text);
rsw_check('no ssl_ciphers warning for RC4/SSLv2/EXP', !str_contains($text, 'ssl_ciphers'), $text);

file_put_contents($log, '');
rsw_run_server($server('EDH+AESGCM:ECDHE+AESGCM'), function (int $port) {
    $cli = new Swoole\Client(SWOOLE_SOCK_TCP | SWOOLE_SSL, SWOOLE_SOCK_SYNC);
    rsw_check('TLS client served with ECDHE+AESGCM', $cli->connect('127.0.0.1', $port, 3) && $cli->send('hi') && $cli->recv() === 'Swoole hi');
});
rsw_check('EDH+AESGCM still reported', str_contains((string) file_get_contents($log), 'ssl_ciphers: rustls has no cipher suite for EDH+AESGCM'));
?>
--EXPECT--
plain client closed: "hello": OK
plain client closed: "GET \/": OK
TLS client served after: OK
non-TLS record logged: OK
HTTP request logged: OK
no ssl_ciphers warning for RC4/SSLv2/EXP: OK
TLS client served with ECDHE+AESGCM: OK
EDH+AESGCM still reported: OK
