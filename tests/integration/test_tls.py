# SWOOLE_SSL server ports driven by real clients: curl, Python's ssl, the websockets library over wss.
"""Run with: RSWOOLE_SO=/path/to/librswoole.so python3 -m unittest discover -s tests/integration -p 'test_tls.py' -v

The certificates (a CA, a server certificate for localhost/127.0.0.1, a client certificate) are made at
test time with `openssl req` in a temporary directory; no key is committed. One server per mode (BASE,
PROCESS) serves three TLS ports: the main one (WebSocket server: HTTP and wss), a raw TCP port (EOF
split echo) and an HTTP port that requires a client certificate (ssl_verify_peer).
"""

import asyncio
import os
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import unittest
import warnings

try:
    import websockets
except ImportError:
    sys.path.append("/usr/lib/python3/dist-packages")
    import websockets
import websockets.client

from test_http import ServerProcess, free_port, so_path, ROOT

T = 5.0

SERVER = r"""<?php
[$port, $raw, $mtls, $mode, $dir] = [(int)$argv[1], (int)$argv[2], (int)$argv[3], (int)$argv[4], $argv[5]];
$s = new Swoole\WebSocket\Server('127.0.0.1', $port, $mode, SWOOLE_SOCK_TCP | SWOOLE_SSL);
$s->set(['worker_num' => 2, 'log_level' => SWOOLE_LOG_NOTICE,
         'ssl_cert_file' => "$dir/server.pem", 'ssl_key_file' => "$dir/server.key"]);
$s->on('request', function ($req, $resp) use ($s) {
    $info = $s->getClientInfo($req->fd);
    if ($req->server['request_uri'] === '/cert') {
        $resp->end($info['ssl_client_cert'] ?? 'none');
        return;
    }
    $resp->header('x-port', (string)$req->server['server_port']);
    $resp->end('hello ' . $req->server['request_uri'] . ' ssl=' . var_export($s->ssl, true));
});
$s->on('message', function ($s, $f) { $s->push($f->fd, 'echo:' . $f->data); });
$p = $s->listen('127.0.0.1', $raw, SWOOLE_SOCK_TCP | SWOOLE_SSL);
$p->set(['open_eof_split' => true, 'package_eof' => "\n"]);
$p->on('receive', function ($s, $fd, $r, $d) { $s->send($fd, 'tcp:' . $d); });
$m = $s->listen('127.0.0.1', $mtls, SWOOLE_SOCK_TCP | SWOOLE_SSL);
$m->set(['open_http_protocol' => true, 'ssl_cert_file' => "$dir/server.pem", 'ssl_key_file' => "$dir/server.key",
         'ssl_verify_peer' => true, 'ssl_client_cert_file' => "$dir/ca.pem"]);
$s->start();
"""

BAD_CERT = r"""<?php
$s = new Swoole\Http\Server('127.0.0.1', (int)$argv[1], SWOOLE_BASE, SWOOLE_SOCK_TCP | SWOOLE_SSL);
$s->set(['ssl_cert_file' => $argv[2], 'ssl_key_file' => $argv[3]]);
$s->on('request', function ($req, $resp) { $resp->end('x'); });
try {
    $s->start();
    echo "started\n";
} catch (Swoole\Exception $e) {
    echo get_class($e), ': ', $e->getMessage(), "\n";
}
"""


def make_certs(d):
    def run(*args):
        subprocess.run(["openssl", *args], cwd=d, check=True, capture_output=True, timeout=60)

    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
        "-subj", "/CN=rswoole test CA")
    with open(os.path.join(d, "server.ext"), "w") as f:
        f.write("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    with open(os.path.join(d, "client.ext"), "w") as f:
        f.write("extendedKeyUsage=clientAuth\n")
    for who in ("server", "client"):
        run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", who + ".key", "-out", who + ".csr",
            "-subj", "/CN=rswoole " + who)
        run("x509", "-req", "-in", who + ".csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
            "-out", who + ".pem", "-days", "2", "-extfile", who + ".ext")


class TlsBase:
    MODE = 1  # SWOOLE_BASE

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="rsw_tls_")
        make_certs(cls.dir)
        cls.script = os.path.join(cls.dir, "server.php")
        with open(cls.script, "w") as f:
            f.write(SERVER)
        cls.raw, cls.mtls = free_port(), free_port()
        cls.server = ServerProcess(cls.script, args=(cls.raw, cls.mtls, cls.MODE, cls.dir))
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", cls.mtls), timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
        cls.port = cls.server.port

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()
        shutil.rmtree(cls.dir, ignore_errors=True)

    def ctx(self, cert=False):
        c = ssl.create_default_context(cafile=os.path.join(self.dir, "ca.pem"))
        if cert:
            c.load_cert_chain(os.path.join(self.dir, "client.pem"), os.path.join(self.dir, "client.key"))
        return c

    def https_get(self, port, path, cert=False, alpn=None):
        c = self.ctx(cert)
        if alpn:
            c.set_alpn_protocols(alpn)
        with socket.create_connection(("127.0.0.1", port), timeout=T) as raw:
            with c.wrap_socket(raw, server_hostname="localhost") as s:
                s.sendall(("GET %s HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n" % path).encode())
                data = b""
                while True:
                    b = s.recv(65536)
                    if not b:
                        break
                    data += b
                return s.version(), s.selected_alpn_protocol(), data

    def curl(self, *args):
        r = subprocess.run(["curl", "-sS", "-m", "5", "--cacert", os.path.join(self.dir, "ca.pem"), *args],
                           capture_output=True, timeout=15)
        return r.returncode, r.stdout.decode(errors="replace"), r.stderr.decode(errors="replace")

    def test_curl_https(self):
        rc, out, err = self.curl("https://localhost:%d/a" % self.port, "--resolve",
                                 "localhost:%d:127.0.0.1" % self.port)
        self.assertEqual(rc, 0, err)
        self.assertEqual(out, "hello /a ssl=true")

    def test_python_ssl_tls13_and_alpn(self):
        ver, alpn, data = self.https_get(self.port, "/py", alpn=["http/1.1"])
        self.assertEqual(ver, "TLSv1.3")
        self.assertEqual(alpn, "http/1.1")
        self.assertIn(b"hello /py", data)

    def test_tls12_works_old_versions_refused(self):
        c = self.ctx()
        c.minimum_version = c.maximum_version = ssl.TLSVersion.TLSv1_2
        with socket.create_connection(("127.0.0.1", self.port), timeout=T) as raw:
            with c.wrap_socket(raw, server_hostname="localhost") as s:
                self.assertEqual(s.version(), "TLSv1.2")
                self.assertIn(s.cipher()[0], ("ECDHE-RSA-AES256-GCM-SHA384", "ECDHE-RSA-AES128-GCM-SHA256",
                                              "ECDHE-RSA-CHACHA20-POLY1305"))
        c = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        c.check_hostname = False
        c.verify_mode = ssl.CERT_NONE
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                c.minimum_version = ssl.TLSVersion.TLSv1
                c.maximum_version = ssl.TLSVersion.TLSv1_1
            c.set_ciphers("ALL:@SECLEVEL=0")
        except (ValueError, ssl.SSLError):
            self.skipTest("this OpenSSL cannot offer TLS 1.1")
        with socket.create_connection(("127.0.0.1", self.port), timeout=T) as raw:
            with self.assertRaises((ssl.SSLError, ConnectionError)):
                c.wrap_socket(raw, server_hostname="localhost")

    def test_wss_with_websockets(self):
        async def go():
            async with websockets.client.connect("wss://localhost:%d/" % self.port, ssl=self.ctx(),
                                                 open_timeout=T, close_timeout=T, compression=None) as ws:
                await asyncio.wait_for(ws.send("hi"), T)
                a = await asyncio.wait_for(ws.recv(), T)
                await asyncio.wait_for(ws.send("x" * 100000), T)
                b = await asyncio.wait_for(ws.recv(), T)
                return a, b
        a, b = asyncio.run(asyncio.wait_for(go(), 20))
        self.assertEqual(a, "echo:hi")
        self.assertEqual(b, "echo:" + "x" * 100000)

    def test_raw_tcp_over_tls(self):
        with socket.create_connection(("127.0.0.1", self.raw), timeout=T) as raw:
            with self.ctx().wrap_socket(raw, server_hostname="localhost") as s:
                s.sendall(b"one\ntwo\n")
                data = b""
                while data.count(b"\n") < 2:
                    b = s.recv(4096)
                    if not b:
                        break
                    data += b
                self.assertEqual(data, b"tcp:one\ntcp:two\n")

    def test_plain_http_to_tls_port_is_closed_server_keeps_serving(self):
        with socket.create_connection(("127.0.0.1", self.port), timeout=T) as s:
            s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            self.assertEqual(s.recv(4096), b"")
        time.sleep(0.2)
        self.assertIn("bad SSL client[127.0.0.1:", self.server.read_log())
        self.assertIn("reason=156, error_string=http request", self.server.read_log())
        _, _, data = self.https_get(self.port, "/after")
        self.assertIn(b"hello /after", data)

    def test_mutual_tls(self):
        # Without a client certificate the handshake fails.
        with socket.create_connection(("127.0.0.1", self.mtls), timeout=T) as raw:
            with self.assertRaises((ssl.SSLError, ConnectionError)):
                with self.ctx().wrap_socket(raw, server_hostname="localhost") as s:
                    s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                    if not s.recv(100):
                        raise ConnectionError("closed")
        rc, out, err = self.curl("--cert", os.path.join(self.dir, "client.pem"), "--key",
                                 os.path.join(self.dir, "client.key"), "https://127.0.0.1:%d/cert" % self.mtls)
        self.assertEqual(rc, 0, err)
        with open(os.path.join(self.dir, "client.pem")) as f:
            want = f.read()
        self.assertEqual(out.strip(), want.strip())
        # The port without verify_peer shows none.
        _, _, data = self.https_get(self.port, "/cert")
        self.assertTrue(data.endswith(b"none"), data[-100:])


class TlsBaseModeTest(TlsBase, unittest.TestCase):
    MODE = 1

    def test_stalled_handshake_is_cut(self):
        t0 = time.monotonic()
        with socket.create_connection(("127.0.0.1", self.port), timeout=10) as s:
            s.sendall(b"\x16\x03\x01")  # the start of a record, never finished
            self.assertEqual(s.recv(100), b"")
        took = time.monotonic() - t0
        self.assertGreater(took, 4)
        self.assertLess(took, 8)
        _, _, data = self.https_get(self.port, "/alive")
        self.assertIn(b"hello /alive", data)


class TlsProcessModeTest(TlsBase, unittest.TestCase):
    MODE = 2


CIPHERS = r"""<?php
[$port, $dir] = [(int)$argv[1], $argv[2]];
$s = new Swoole\Http\Server('127.0.0.1', $port, SWOOLE_BASE, SWOOLE_SOCK_TCP | SWOOLE_SSL);
$s->set(['worker_num' => 1, 'ssl_cert_file' => "$dir/server.pem", 'ssl_key_file' => "$dir/server.key",
         'ssl_protocols' => SWOOLE_SSL_TLSv1 | SWOOLE_SSL_TLSv1_2,
         'ssl_ciphers' => 'DHE-RSA-AES128-SHA:ECDHE-RSA-CHACHA20-POLY1305:!aNULL']);
$s->on('request', function ($req, $resp) { $resp->end('ok'); });
$s->start();
"""


class TlsSettingsTest(unittest.TestCase):
    def test_protocols_and_ciphers_mapped_with_warnings(self):
        d = tempfile.mkdtemp(prefix="rsw_tls_c_")
        try:
            make_certs(d)
            script = os.path.join(d, "s.php")
            with open(script, "w") as f:
                f.write(CIPHERS)
            srv = ServerProcess(script, args=(d,))
            try:
                c = ssl.create_default_context(cafile=os.path.join(d, "ca.pem"))
                with socket.create_connection(("127.0.0.1", srv.port), timeout=T) as raw:
                    with c.wrap_socket(raw, server_hostname="localhost") as s:
                        # TLS 1.3 is off; of the TLS 1.2 suites only the one named is offered.
                        self.assertEqual(s.version(), "TLSv1.2")
                        self.assertEqual(s.cipher()[0], "ECDHE-RSA-CHACHA20-POLY1305")
                log = srv.read_log()
                self.assertIn("ssl_protocols: TLSv1 not supported", log)
                self.assertIn("rustls has no cipher suite for DHE-RSA-AES128-SHA", log)
            finally:
                srv.cleanup()
        finally:
            shutil.rmtree(d, ignore_errors=True)


SNI = r"""<?php
[$port, $dir] = [(int)$argv[1], $argv[2]];
$s = new Swoole\Http\Server('127.0.0.1', $port, SWOOLE_BASE, SWOOLE_SOCK_TCP | SWOOLE_SSL);
$s->set(['worker_num' => 1, 'ssl_cert_file' => "$dir/server.pem", 'ssl_key_file' => "$dir/server.key",
         'ssl_sni_certs' => ['other.test' => ['ssl_cert_file' => "$dir/other.pem", 'ssl_key_file' => "$dir/other.key"]]]);
$s->on('request', function ($req, $resp) { $resp->end('ok'); });
$s->start();
"""


class TlsSniTest(unittest.TestCase):
    def test_sni_certs(self):
        d = tempfile.mkdtemp(prefix="rsw_tls_sni_")
        try:
            make_certs(d)
            with open(os.path.join(d, "other.ext"), "w") as f:
                f.write("subjectAltName=DNS:other.test\n")
            for args in (["req", "-newkey", "rsa:2048", "-nodes", "-keyout", "other.key", "-out", "other.csr",
                          "-subj", "/CN=other.test"],
                         ["x509", "-req", "-in", "other.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                          "-out", "other.pem", "-days", "2", "-extfile", "other.ext"]):
                subprocess.run(["openssl", *args], cwd=d, check=True, capture_output=True, timeout=60)
            script = os.path.join(d, "s.php")
            with open(script, "w") as f:
                f.write(SNI)
            srv = ServerProcess(script, args=(d,))
            try:
                c = ssl.create_default_context(cafile=os.path.join(d, "ca.pem"))
                for name, cn in (("other.test", "other.test"), ("localhost", "rswoole server")):
                    with socket.create_connection(("127.0.0.1", srv.port), timeout=T) as raw:
                        with c.wrap_socket(raw, server_hostname=name) as s:
                            subject = dict(x[0] for x in s.getpeercert()["subject"])
                            self.assertEqual(subject["commonName"], cn)
            finally:
                srv.cleanup()
        finally:
            shutil.rmtree(d, ignore_errors=True)


class TlsStartErrorTest(unittest.TestCase):
    def run_php(self, cert, key):
        with tempfile.NamedTemporaryFile("w", suffix=".php", delete=False) as f:
            f.write(BAD_CERT)
        try:
            r = subprocess.run(["php", "-n", "-d", "extension=" + so_path(), f.name, str(free_port()), cert, key],
                               capture_output=True, timeout=20, cwd=ROOT)
            return r.stdout.decode() + r.stderr.decode()
        finally:
            os.unlink(f.name)

    def test_missing_cert_file_is_named(self):
        out = self.run_php("/nonexistent/cert.pem", "/nonexistent/key.pem")
        self.assertIn("Swoole\\Exception: ssl cert file[/nonexistent/cert.pem] not found", out)

    def test_key_not_matching(self):
        d = tempfile.mkdtemp(prefix="rsw_tls_bad_")
        try:
            make_certs(d)
            out = self.run_php(os.path.join(d, "server.pem"), os.path.join(d, "client.key"))
            self.assertIn("does not match ssl cert file", out)
            out = self.run_php(os.path.join(d, "server.pem"), os.path.join(d, "server.csr"))
            self.assertIn("holds no PEM private key", out)
        finally:
            shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
