--TEST--
swoole_http_server: ssl_verify_depth with a CA -> intermediate -> leaf chain made by openssl: the server refuses a client chain with more intermediates than the depth (curl), Co\Http\Client refuses such a server chain, and both accept it at depth 1
--SKIPIF--
<?php require __DIR__ . '/../include/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/../include/bootstrap.php';
require __DIR__ . '/../include/tls.php';

$d = rsw_tmpdir('rsw_depth_');
$ossl = function (string $args) use ($d): void {
    exec('cd ' . escapeshellarg($d) . " && openssl $args 2>&1", $out, $rc);
    if ($rc !== 0) {
        throw new RuntimeException("openssl $args: " . implode("\n", $out));
    }
};
$ec = '-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes';
$ossl("req -x509 $ec -keyout ca.key -out ca.crt -days 2 -subj /CN=rsw-depth-root");
file_put_contents("$d/int.ext", "basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n");
$ossl("req $ec -keyout int.key -out int.csr -subj /CN=rsw-depth-intermediate");
$ossl('x509 -req -in int.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 -out int.crt -extfile int.ext');
file_put_contents("$d/leaf.ext", "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n");
$ossl("req $ec -keyout leaf.key -out leaf.csr -subj /CN=localhost");
$ossl('x509 -req -in leaf.csr -CA int.crt -CAkey int.key -CAcreateserial -days 2 -out leaf.crt -extfile leaf.ext');
file_put_contents("$d/chain.pem", file_get_contents("$d/leaf.crt") . file_get_contents("$d/int.crt"));

$serverWith = fn(int $depth) => function (int $port, callable $ready, string $host) use ($d, $depth) {
    $http = new Swoole\Http\Server($host, $port, SWOOLE_BASE, SWOOLE_SOCK_TCP | SWOOLE_SSL);
    $http->set([
        'worker_num' => 1, 'log_level' => SWOOLE_LOG_ERROR,
        'ssl_cert_file' => "$d/chain.pem", 'ssl_key_file' => "$d/leaf.key",
        'ssl_verify_peer' => true, 'ssl_client_cert_file' => "$d/ca.crt", 'ssl_verify_depth' => $depth,
    ]);
    $http->on('workerStart', fn() => $ready());
    $http->on('request', fn($req, $resp) => $resp->end('depth ok'));
    $http->start();
};
$curl = function (int $port) use ($d): array {
    exec(sprintf('curl -s -m 5 --cacert %s --cert %s --key %s https://localhost:%d/ 2>&1',
        escapeshellarg("$d/ca.crt"), escapeshellarg("$d/chain.pem"), escapeshellarg("$d/leaf.key"), $port), $out, $rc);
    return [$rc, implode("\n", $out)];
};
$client = function (int $port, ?int $depth) use ($d): array {
    $res = [];
    Co\run(function () use ($port, $depth, $d, &$res) {
        $c = new Co\Http\Client('localhost', $port, true);
        $set = ['timeout' => 5, 'ssl_verify_peer' => true, 'ssl_cafile' => "$d/ca.crt",
            'ssl_cert_file' => "$d/chain.pem", 'ssl_key_file' => "$d/leaf.key"];
        if ($depth !== null) {
            $set['ssl_verify_depth'] = $depth;
        }
        $c->set($set);
        $ok = $c->get('/');
        $res = [$ok, $c->statusCode, $c->errCode, $c->body];
    });
    return $res;
};

rsw_run_server($serverWith(0), function (int $port) use ($curl) {
    [$rc, $out] = $curl($port);
    rsw_check('server depth 0: client chain with an intermediate refused', $rc !== 0 && !str_contains($out, 'depth ok'), [$rc, $out]);
});
rsw_run_server($serverWith(1), function (int $port) use ($curl, $client) {
    [$rc, $out] = $curl($port);
    rsw_check('server depth 1: client chain accepted', $rc === 0 && $out === 'depth ok', [$rc, $out]);
    $r = $client($port, 0);
    rsw_check('client depth 0: server chain refused (SSL verify failed)', $r[0] === false && $r[1] === -1 && $r[2] === 1014, $r);
    $r = $client($port, 1);
    rsw_check('client depth 1: accepted', $r[0] === true && $r[3] === 'depth ok', $r);
    $r = $client($port, null);
    rsw_check('client without depth: accepted', $r[0] === true && $r[3] === 'depth ok', $r);
});
?>
--EXPECT--
server depth 0: client chain with an intermediate refused: OK
server depth 1: client chain accepted: OK
client depth 0: server chain refused (SSL verify failed): OK
client depth 1: accepted: OK
client without depth: accepted: OK
