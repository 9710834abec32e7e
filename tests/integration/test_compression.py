# http_compression: br, gzip and deflate chosen by Accept-Encoding q-values; http_compression_types.
"""Run with: RSWOOLE_SO=/path/to/librswoole.so python3 -m unittest discover -s tests/integration -p 'test_compression.py' -v"""

import gzip
import os
import subprocess
import sys
import tempfile
import unittest
import zlib
import http.client

try:
    import brotli
except ImportError:  # pyenv's python3 does not see Debian's dist-packages
    sys.path.append("/usr/lib/python3/dist-packages")
    import brotli

from test_http import ServerProcess

SERVER = r"""<?php
$s = new Swoole\Http\Server('127.0.0.1', (int)$argv[1], SWOOLE_BASE);
$s->set(['worker_num' => 1, 'log_level' => SWOOLE_LOG_WARNING, 'http_compression_level' => 5,
         'http_compression_types' => ['text/plain', 'application/json']]);
$s->on('request', function ($req, $resp) {
    $body = str_repeat('hello brotli world ', 200);
    if ($req->server['request_uri'] === '/html') {
        $resp->end($body);  // text/html: not in http_compression_types
        return;
    }
    $resp->header('Content-Type', 'text/plain; charset=utf-8');
    $resp->end($body);
});
$s->start();
"""

BODY = b"hello brotli world " * 200


class CompressionTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        f = tempfile.NamedTemporaryFile(prefix="rsw_br_", suffix=".php", delete=False, mode="w")
        f.write(SERVER)
        f.close()
        cls.script = f.name
        cls.server = ServerProcess(cls.script)

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()
        os.unlink(cls.script)

    def get(self, path, ae):
        c = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=5)
        try:
            c.request("GET", path, headers={"Accept-Encoding": ae} if ae is not None else {})
            r = c.getresponse()
            return r.getheader("Content-Encoding"), r.getheader("Vary"), r.read()
        finally:
            c.close()

    def test_br_preferred_on_a_tie(self):
        enc, vary, body = self.get("/", "gzip, deflate, br")
        self.assertEqual(enc, "br")
        self.assertEqual(vary, "Accept-Encoding")
        self.assertLess(len(body), len(BODY))
        self.assertEqual(brotli.decompress(body), BODY)

    def test_q_values_decide(self):
        enc, _, body = self.get("/", "br;q=0.5, gzip;q=0.9, deflate;q=0.1")
        self.assertEqual(enc, "gzip")
        self.assertEqual(gzip.decompress(body), BODY)
        enc, _, body = self.get("/", "br;q=0, gzip;q=0, deflate")
        self.assertEqual(enc, "deflate")
        self.assertEqual(zlib.decompress(body), BODY)
        enc, _, body = self.get("/", "br;q=0, gzip;q=0")
        self.assertIsNone(enc)
        self.assertEqual(body, BODY)
        enc, _, body = self.get("/", None)
        self.assertIsNone(enc)

    def test_compression_types(self):
        enc, _, body = self.get("/html", "br")
        self.assertIsNone(enc)
        self.assertEqual(body, BODY)

    def test_curl_compressed(self):
        r = subprocess.run(["curl", "-sS", "-m", "5", "--compressed", "-D", "-",
                            "http://127.0.0.1:%d/" % self.server.port], capture_output=True, timeout=15)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(b"Content-Encoding: br", r.stdout)
        self.assertTrue(r.stdout.endswith(BODY))


if __name__ == "__main__":
    unittest.main()
