<?php
// TLS test helpers: certificates made at test time with `openssl req` (a CA, a server certificate for
// localhost/127.0.0.1, a client certificate, a self-signed one, one for another name), and a Python TLS far
// end (tls_peer.py: https, wss echo, raw echo) that is always stopped.

declare(strict_types=1);

/** Makes the certificates in a fresh temp dir; returns their paths. Removed at exit. */
function rsw_tls_certs(): array
{
    $d = rsw_tmpdir('rsw_tls_');
    $ossl = static function (string $args) use ($d): void {
        exec("cd " . escapeshellarg($d) . " && openssl $args 2>&1", $out, $rc);
        if ($rc !== 0) {
            throw new RuntimeException("openssl $args: " . implode("\n", $out));
        }
    };
    $ec = '-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes';
    $ossl("req -x509 $ec -keyout ca.key -out ca.crt -days 2 -subj /CN=rsw-test-ca");
    $leaf = static function (string $name, string $cn, string $san, string $ext) use ($ossl, $ec, $d): void {
        file_put_contents("$d/$name.ext", "subjectAltName=$san\n$ext\n");
        $ossl("req $ec -keyout $name.key -out $name.csr -subj /CN=$cn");
        $ossl("x509 -req -in $name.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 -out $name.crt -extfile $name.ext");
    };
    $leaf('server', 'localhost', 'DNS:localhost,IP:127.0.0.1', 'extendedKeyUsage=serverAuth');
    $leaf('other', 'other.example', 'DNS:other.example', 'extendedKeyUsage=serverAuth');
    $leaf('client', 'rsw-client', 'DNS:rsw-client', 'extendedKeyUsage=clientAuth');
    file_put_contents("$d/self.ext", "subjectAltName=DNS:localhost,IP:127.0.0.1\n");
    $ossl("req -x509 $ec -keyout self.key -out self.crt -days 2 -subj /CN=localhost -addext subjectAltName=DNS:localhost,IP:127.0.0.1");
    $p = [];
    foreach (['ca', 'server', 'other', 'client', 'self'] as $n) {
        $p["{$n}_crt"] = "$d/$n.crt";
        $p["{$n}_key"] = "$d/$n.key";
    }
    $p['dir'] = $d;
    return $p;
}

/**
 * X.509 v1 certificates (no extensions, as `openssl x509 -req` makes without `-extfile`): a v1 self-signed
 * CA, a server and a client certificate it signs, and a client certificate signed by another v1 CA.
 */
function rsw_tls_v1_certs(): array
{
    $d = rsw_tmpdir('rsw_tls1_');
    $ossl = static function (string $args) use ($d): void {
        exec("cd " . escapeshellarg($d) . " && openssl $args 2>&1", $out, $rc);
        if ($rc !== 0) {
            throw new RuntimeException("openssl $args: " . implode("\n", $out));
        }
    };
    $rsa = '-newkey rsa:2048 -nodes';
    foreach (['ca', 'other_ca'] as $ca) {
        $ossl("req $rsa -keyout $ca.key -out $ca.csr -subj /CN=rsw-v1-$ca");
        $ossl("x509 -req -in $ca.csr -signkey $ca.key -days 2 -out $ca.crt");
    }
    foreach (['server' => 'ca', 'client' => 'ca', 'stranger' => 'other_ca'] as $n => $ca) {
        $ossl("req $rsa -keyout $n.key -out $n.csr -subj /CN=rsw-v1-$n");
        $ossl("x509 -req -in $n.csr -CA $ca.crt -CAkey $ca.key -CAcreateserial -days 2 -out $n.crt");
    }
    $p = ['dir' => $d];
    foreach (['ca', 'other_ca', 'server', 'client', 'stranger'] as $n) {
        $p["{$n}_crt"] = "$d/$n.crt";
        $p["{$n}_key"] = "$d/$n.key";
    }
    return $p;
}

final class RswTlsPeer
{
    public int $port;
    private $proc;
    private array $pipes = [];

    /** $mode: https | wss | echo; $clientCa: require a client certificate signed by it. */
    public function __construct(string $mode, string $cert, string $key, ?string $clientCa = null)
    {
        $this->port = rsw_free_port();
        $cmd = ['python3', __DIR__ . '/tls_peer.py', $mode, (string) $this->port, $cert, $key];
        if ($clientCa !== null) {
            $cmd[] = $clientCa;
        }
        $this->proc = proc_open($cmd, [0 => ['pipe', 'r'], 1 => ['pipe', 'w'], 2 => ['file', '/dev/null', 'a']], $this->pipes);
        if (!is_resource($this->proc)) {
            throw new RuntimeException('tls_peer.py did not start');
        }
        $line = fgets($this->pipes[1]);
        if (trim((string) $line) !== 'READY') {
            $this->stop();
            throw new RuntimeException('tls_peer.py: ' . var_export($line, true));
        }
        register_shutdown_function([$this, 'stop']);
    }

    public function stop(): void
    {
        if (!is_resource($this->proc)) {
            return;
        }
        $st = proc_get_status($this->proc);
        if ($st['running']) {
            posix_kill($st['pid'], SIGKILL);
        }
        foreach ($this->pipes as $p) {
            if (is_resource($p)) {
                fclose($p);
            }
        }
        proc_close($this->proc);
    }
}
