# open_http2_protocol: h2 over TLS (ALPN) and h2c by prior knowledge, driven by curl, nghttp and h2load.
"""Run with: RSWOOLE_SO=/path/to/librswoole.so python3 -m unittest discover -s tests/integration -p 'test_http2.py' -v

One server per mode: the main port speaks HTTP/1.1 and h2c (prior knowledge), a `listen()` port speaks TLS
with ALPN h2/http1.1 (certificates made at test time, see test_tls.make_certs).
"""

import os
import re
import shutil
import socket
import struct
import subprocess
import tempfile
import time
import unittest

from test_http import ServerProcess, free_port
from test_tls import make_certs

SERVER = r"""<?php
[$port, $tls, $mode, $dir] = [(int)$argv[1], (int)$argv[2], (int)$argv[3], $argv[4]];
$s = new Swoole\Http\Server('127.0.0.1', $port, $mode);
$s->set(['worker_num' => 1, 'log_level' => SWOOLE_LOG_WARNING, 'open_http2_protocol' => true,
         'http2_max_concurrent_streams' => 50, 'http2_init_window_size' => 1 << 20]);
$p = $s->listen('127.0.0.1', $tls, SWOOLE_SOCK_TCP | SWOOLE_SSL);
$p->set(['open_http_protocol' => true, 'open_http2_protocol' => true,
         'ssl_cert_file' => "$dir/server.pem", 'ssl_key_file' => "$dir/server.key"]);
$s->on('request', function ($req, $resp) {
    if (isset($req->get['sleep'])) {
        Swoole\Coroutine::sleep((float)$req->get['sleep']);
    }
    if ($req->server['request_uri'] === '/post') {
        $resp->end('len=' . strlen($req->getContent()) . ' md5=' . md5($req->getContent()));
        return;
    }
    if ($req->server['request_uri'] === '/big') {
        $resp->end(str_repeat('0123456789', 200000));
        return;
    }
    $resp->header('x-stream', (string)$req->streamId);
    $resp->end('proto=' . $req->server['server_protocol'] . ' host=' . ($req->header['host'] ?? '-')
        . ' path=' . $req->server['request_uri']);
});
$s->start();
"""


def run(cmd, timeout=20):
    r = subprocess.run(cmd, capture_output=True, timeout=timeout)
    return r.returncode, r.stdout.decode(errors="replace"), r.stderr.decode(errors="replace")


class Http2Base:
    MODE = 1

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="rsw_h2_")
        make_certs(cls.dir)
        cls.script = os.path.join(cls.dir, "server.php")
        with open(cls.script, "w") as f:
            f.write(SERVER)
        cls.tls = free_port()
        cls.server = ServerProcess(cls.script, args=(cls.tls, cls.MODE, cls.dir))
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", cls.tls), timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
        cls.h2c = "http://127.0.0.1:%d" % cls.server.port
        cls.h2 = "https://localhost:%d" % cls.tls

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()
        shutil.rmtree(cls.dir, ignore_errors=True)

    def curl(self, *args):
        return run(["curl", "-sS", "-m", "10", "--cacert", os.path.join(self.dir, "ca.pem"),
                    "--resolve", "localhost:%d:127.0.0.1" % self.tls, *args])

    def test_h2c_prior_knowledge(self):
        rc, out, err = self.curl("--http2-prior-knowledge", "-D", "-", self.h2c + "/a")
        self.assertEqual(rc, 0, err)
        self.assertTrue(out.startswith("HTTP/2 200"), out)
        self.assertIn("proto=HTTP/2 host=127.0.0.1:%d path=/a" % self.server.port, out)
        self.assertRegex(out, r"x-stream: [13579]\d*\r\n")
        self.assertNotIn("connection:", out.lower())

    def test_head_is_answered(self):
        # A HEAD response carries no DATA frame (one would be a protocol error: curl exit 92).
        for url in (self.h2c + "/h", self.h2 + "/h"):
            rc, out, err = self.curl("--http2-prior-knowledge" if url.startswith("http:") else "--http2", "-I", url)
            self.assertEqual(rc, 0, err)
            self.assertTrue(out.startswith("HTTP/2 200"), out)

    def test_http1_still_served_on_the_same_port(self):
        rc, out, err = self.curl("--http1.1", self.h2c + "/one")
        self.assertEqual(rc, 0, err)
        self.assertEqual(out, "proto=HTTP/1.1 host=127.0.0.1:%d path=/one" % self.server.port)

    def test_h2_over_tls_by_alpn(self):
        rc, out, err = self.curl("--http2", "-D", "-", self.h2 + "/tls")
        self.assertEqual(rc, 0, err)
        self.assertTrue(out.startswith("HTTP/2 200"), out)
        self.assertIn("proto=HTTP/2 host=localhost:%d path=/tls" % self.tls, out)
        rc, out, err = self.curl("--http1.1", self.h2 + "/tls1")
        self.assertIn("proto=HTTP/1.1", out)

    def test_streams_run_concurrently(self):
        # Ten streams on one connection, each handler sleeping 0.5 s in its own coroutine.
        t0 = time.monotonic()
        rc, out, err = run(["nghttp", "-n", "-s", "-m", "10", self.h2c + "/x?sleep=0.5"])
        took = time.monotonic() - t0
        self.assertEqual(rc, 0, out + err)
        self.assertEqual(len(re.findall(r" 200 .*/x\?sleep=0\.5$", out, re.M)), 10, out)
        self.assertLess(took, 2.5, out)

    def test_settings_announced(self):
        rc, out, err = run(["nghttp", "-nv", self.h2c + "/s"])
        self.assertEqual(rc, 0, out + err)
        self.assertIn("SETTINGS_MAX_CONCURRENT_STREAMS(0x03):50", out)
        self.assertIn("SETTINGS_INITIAL_WINDOW_SIZE(0x04):1048576", out)

    def test_large_bodies_both_ways(self):
        data = os.urandom(3 * 1024 * 1024 // 2)
        path = os.path.join(self.dir, "up.bin")
        with open(path, "wb") as f:
            f.write(data)
        rc, out, err = self.curl("--http2", "--data-binary", "@" + path, self.h2 + "/post")
        self.assertEqual(rc, 0, err)
        import hashlib
        self.assertEqual(out, "len=%d md5=%s" % (len(data), hashlib.md5(data).hexdigest()))
        rc, out, err = self.curl("--http2-prior-knowledge", self.h2c + "/big")
        self.assertEqual(rc, 0, err)
        self.assertEqual(out, "0123456789" * 200000)

    def test_h2load(self):
        for url in (self.h2c + "/", self.h2 + "/"):
            rc, out, err = run(["h2load", "-n", "1000", "-c", "10", "-m", "10", url], timeout=60)
            self.assertEqual(rc, 0, out + err)
            self.assertIn("1000 succeeded, 0 failed, 0 errored", out)
            self.assertIn("status codes: 1000 2xx", out)

    def test_bad_preface_and_protocol_error(self):
        # A preface that is not quite HTTP/2's: read as HTTP/1, refused, closed.
        with socket.create_connection(("127.0.0.1", self.server.port), timeout=5) as s:
            s.sendall(b"PRI * HTTP/2.0\r\n\r\nXX\r\n\r\n")
            data = b""
            while True:
                b = s.recv(4096)
                if not b:
                    break
                data += b
            self.assertFalse(data.startswith(b"HTTP/1.1 200"), data)
        # The right preface, then a DATA frame on stream 0: GOAWAY(PROTOCOL_ERROR), closed.
        with socket.create_connection(("127.0.0.1", self.server.port), timeout=5) as s:
            s.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"
                      + b"\x00\x00\x04\x00\x00\x00\x00\x00\x00data")
            data = b""
            while True:
                b = s.recv(4096)
                if not b:
                    break
                data += b
            frames, off = [], 0
            while off + 9 <= len(data):
                ln = int.from_bytes(data[off:off + 3], "big")
                frames.append((data[off + 3], data[off + 9:off + 9 + ln]))
                off += 9 + ln
            goaway = [p for t, p in frames if t == 7]
            self.assertTrue(goaway, frames)
            self.assertEqual(struct.unpack("!I", goaway[0][4:8])[0], 1)  # PROTOCOL_ERROR
        rc, out, err = self.curl("--http2-prior-knowledge", self.h2c + "/after")
        self.assertEqual(rc, 0, err)
        self.assertIn("path=/after", out)


class Http2BaseModeTest(Http2Base, unittest.TestCase):
    MODE = 1


class Http2ProcessModeTest(Http2Base, unittest.TestCase):
    MODE = 2


if __name__ == "__main__":
    unittest.main()
