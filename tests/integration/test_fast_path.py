# The HTTP/1 fast path against hyper: the same raw requests, byte for byte the same answers.
"""Run with: RSWOOLE_SO=/path/to/librswoole.so python3 -m unittest tests/integration/test_fast_path.py -v

Two servers run tests/integration/servers/fast_path_server.php: one as shipped (the fast path on), one
with RSWOOLE_HTTP_FAST=0 (every request through hyper, the path the fast one must imitate). Each case
sends the same bytes on a new connection to both and compares everything that comes back until the
server closes or goes quiet, with the Date values blanked. The servers log at debug level, which
says when a connection leaves the fast path, so the tests also check which path served what.
"""

import os
import re
import socket
import time
import unittest

from test_http import HOST, ServerProcess

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "servers", "fast_path_server.php")

DATE = re.compile(rb"\r\nDate: [^\r]*\r\n")


def exchange(port, parts, quiet=0.4, limit=5.0):
    """Sends `parts` (bytes, or a float: a pause) on one connection; returns what came back, and
    whether the server closed it."""
    s = socket.create_connection((HOST, port), timeout=limit)
    try:
        for p in parts:
            if isinstance(p, float):
                time.sleep(p)
            else:
                s.sendall(p)
        s.settimeout(quiet)
        got = b""
        closed = False
        end = time.monotonic() + limit
        while time.monotonic() < end:
            try:
                chunk = s.recv(65536)
            except socket.timeout:
                break
            except ConnectionResetError:
                closed = True
                break
            if not chunk:
                closed = True
                break
            got += chunk
        return DATE.sub(b"\r\nDate: *\r\n", got), closed
    finally:
        s.close()


def get(path, extra=b"", version=b"HTTP/1.1"):
    return b"GET " + path + b" " + version + b"\r\nHost: t\r\n" + extra + b"\r\n"


class FastPathTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.fast = ServerProcess(SCRIPT)
        os.environ["RSWOOLE_HTTP_FAST"] = "0"
        try:
            cls.hyper = ServerProcess(SCRIPT)
        finally:
            del os.environ["RSWOOLE_HTTP_FAST"]

    @classmethod
    def tearDownClass(cls):
        cls.fast.cleanup()
        cls.hyper.cleanup()

    def same(self, parts, expect_closed=None, min_responses=1):
        a = exchange(self.fast.port, parts)
        b = exchange(self.hyper.port, parts)
        self.assertEqual(a[0], b[0], "fast path and hyper answered differently to %r" % (parts,))
        self.assertEqual(a[1], b[1], "one closed the connection, the other did not: %r" % (parts,))
        self.assertGreaterEqual(a[0].count(b"HTTP/1."), min_responses, a[0])
        if expect_closed is not None:
            self.assertEqual(a[1], expect_closed, a)
        return a[0]

    def log_lines(self, server, since):
        return [l for l in server.read_log()[since:].splitlines() if "http fast path" in l]

    def test_plain_requests_stay_on_the_fast_path(self):
        mark = len(self.fast.read_log())
        body = self.same([get(b"/"), 0.05, get(b"/echo?a=1&b=%20x", b"Cookie: k=v; k2=v2\r\nX-Custom: y\r\n"),
                          0.05, get(b"/headers"), 0.05, get(b"/status?c=404"), 0.05, get(b"/status?c=500"),
                          0.05, get(b"/status?c=201"), 0.05, get(b"/empty"), 0.05, get(b"/big"), 0.05,
                          get(b"/sleep"), 0.05, get(b"/big", b"Accept-Encoding: gzip\r\n"), 0.05,
                          get(b"/echo", b"Accept-Encoding: br, gzip\r\n")], expect_closed=False,
                         min_responses=11)
        self.assertIn(b"Content-Encoding: gzip\r\nVary: Accept-Encoding\r\n", body)
        self.assertIn(b"HTTP/1.1 200 OK\r\nServer: swoole-http-server\r\n", body)
        self.assertIn(b"Set-Cookie: sid=abc; path=/\r\n", body)
        self.assertIn(b"HTTP/1.1 404 Not Found\r\n", body)
        self.assertEqual(self.log_lines(self.fast, mark), [], "a plain request left the fast path")

    def test_pipelined_and_post(self):
        form = b"a=1&b=two"
        post = (b"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                b"Content-Length: " + str(len(form)).encode() + b"\r\n\r\n" + form)
        mark = len(self.fast.read_log())
        out = self.same([get(b"/") + post + get(b"/echo?x=1") + get(b"/")], expect_closed=False,
                        min_responses=4)
        self.assertIn(b'"post":{"a":"1","b":"two"}', out)
        self.assertEqual(self.log_lines(self.fast, mark), [])

    def test_http10_keep_alive(self):
        mark = len(self.fast.read_log())
        out = self.same([get(b"/", b"Connection: keep-alive\r\n", b"HTTP/1.0"), 0.05,
                         get(b"/echo", b"Connection: Keep-Alive\r\n", b"HTTP/1.0")], expect_closed=False,
                        min_responses=2)
        self.assertTrue(out.startswith(b"HTTP/1.0 200 OK\r\n"), out[:40])
        self.assertEqual(self.log_lines(self.fast, mark), [])

    def test_answers_hyper_writes(self):
        # The script answered on the fast path; hyper writes these answers (replay).
        for path in (b"/write", b"/reason", b"/exact", b"/length", b"/date", b"/status?c=204",
                     b"/status?c=304", b"/throw", b"/forget"):
            with self.subTest(path=path):
                mark = len(self.fast.read_log())
                self.same([get(path), 0.1, get(b"/")], expect_closed=None, min_responses=1)
                lines = self.log_lines(self.fast, mark)
                if path == b"/date":
                    # A script's own Date stays on the fast path (written where the script put it,
                    # as hyper does; the default Date comes after Server, as in Swoole).
                    self.assertEqual(lines, [])
                elif path not in (b"/throw", b"/forget"):
                    self.assertTrue(any("(answer)" in l for l in lines), lines)

    def test_connection_close_answers(self):
        self.same([get(b"/close"), 0.1, get(b"/")], expect_closed=True)
        self.same([get(b"/", b"Connection: close\r\n")], expect_closed=True)
        self.same([get(b"/", version=b"HTTP/1.0")], expect_closed=True)

    def test_requests_hyper_reads(self):
        cases = [
            [b"HEAD / HTTP/1.1\r\nHost: t\r\n\r\n", 0.1, get(b"/")],
            [b"GET http://other/echo HTTP/1.1\r\nHost: t\r\n\r\n"],
            [b"GET / HTTP/1.1\r\n\r\n"],
            [b"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"],
            [b"POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
             0.1, get(b"/")],
            [b"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n"
             b"3\r\nabc\r\n0\r\n\r\n"],
            [b"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nab", 0.2, b"cde", 0.1, get(b"/")],
            [b"GET /echo HTTP/1.1\r\nHo", 0.2, b"st: t\r\n\r\n", 0.1, get(b"/")],
            [b"GET / HTTP/1.1\r\nHost: t\r\n" + b"".join(b"X-H%d: v\r\n" % i for i in range(150)) + b"\r\n"],
            [b"GET / HTTP/1.1\r\nHost: t\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab"],
            [b"BREW / HTTP/1.1\r\nHost: t\r\n\r\n"],
            [b"GET / HTTP/1.1\r\nHost: t\r\nBad Header: x\r\n\r\n"],
            [b"GET / HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n", 0.2, b"abc"],
            [b"GET /\x01 HTTP/1.1\r\nHost: t\r\n\r\n"],
            [get(b"/") + b"GARBAGE\r\n\r\n"],
        ]
        for parts in cases:
            with self.subTest(parts=parts[0][:40]):
                self.same(parts, min_responses=1)

    def test_heads_in_pieces_after_pauses(self):
        # Every read here takes all the socket has, so the server's readiness is cleared after each
        # (stream.rs `forget_readable`): each later piece must still wake the connection, whether
        # the connection was idle (no buffer) or had half a head.
        mark = len(self.fast.read_log())
        body = self.same([b"GET /echo?p=1 HT", 0.1, b"TP/1.1\r\nHo", 0.1, b"st: t\r\n", 0.1, b"\r\n", 0.2,
                          get(b"/echo?p=2"), 0.2, b"G", 0.1, b"ET /echo?p=3 HTTP/1.1\r\nHost: t\r\n\r\n"],
                         expect_closed=False, min_responses=3)
        self.assertEqual(body.count(b"HTTP/1.1 200 OK"), 3, body)
        self.assertEqual(self.log_lines(self.fast, mark), [], "a plain request left the fast path")

    def test_idle_and_silent_clients(self):
        # A connection that sends nothing, and one that closes after half a head.
        a = exchange(self.fast.port, [], quiet=0.3)
        self.assertEqual(a, (b"", False))
        a = exchange(self.fast.port, [b"GET / HT"], quiet=0.3)
        self.assertEqual(a, (b"", False))
        # The server still answers after both.
        self.same([get(b"/")], expect_closed=False)


if __name__ == "__main__":
    unittest.main()
