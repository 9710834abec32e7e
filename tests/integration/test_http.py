# Integration tests for rswoole's HTTP server: real php processes driven by http.client and raw sockets (stdlib only).
"""Run with: RSWOOLE_SO=/path/to/librswoole.so python3 -m unittest discover -s tests/integration -v

Each test class starts tests/integration/servers/http_server.php as its own process group on a free
127.0.0.1 port, waits (bounded) for the port, and always stops it by pid/process group in tearDown.
"""

import hashlib
import http.client
import json
import os
import re
import signal
import socket
import subprocess
import tempfile
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SERVER_SCRIPT = os.path.join(HERE, "servers", "http_server.php")
HOST = "127.0.0.1"


def so_path():
    return os.environ.get("RSWOOLE_SO") or os.path.join(ROOT, "target", "release", "librswoole.so")


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def port_open(port, timeout=0.2):
    try:
        with socket.create_connection((HOST, port), timeout=timeout):
            return True
    except OSError:
        return False


class ServerProcess:
    """A php server process in its own session; stop() is SIGTERM, bounded wait, then SIGKILL of the group."""

    def __init__(self, script, args=(), start_timeout=10.0):
        self.port = free_port()
        self.log = tempfile.NamedTemporaryFile(prefix="rsw_py_", suffix=".log", delete=False)
        php = os.environ.get("PHP_BINARY", "php")
        cmd = [php, "-n", "-d", "extension=" + so_path(), "-d", "display_errors=stderr", script, str(self.port)]
        cmd += [str(a) for a in args]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT,
                                     start_new_session=True, cwd=ROOT)
        deadline = time.monotonic() + start_timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                break
            if port_open(self.port):
                return
            time.sleep(0.05)
        self.stop()
        raise RuntimeError("server did not start (exit=%s); log:\n%s" % (self.proc.returncode, self.read_log()))

    def read_log(self):
        try:
            with open(self.log.name, "r", errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def stop(self, sig=signal.SIGTERM, timeout=8.0):
        if self.proc.poll() is None:
            try:
                os.kill(self.proc.pid, sig)
            except ProcessLookupError:
                pass
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                pass
        # Whatever is left of the group (workers, manager) is killed.
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=5)
        return self.proc.returncode

    def cleanup(self):
        self.stop()
        self.log.close()
        try:
            os.unlink(self.log.name)
        except OSError:
            pass


class RawResponse:
    def __init__(self, version, status, reason, headers, body):
        self.version, self.status, self.reason, self.headers, self.body = version, status, reason, headers, body

    def header(self, name):
        for k, v in self.headers:
            if k.lower() == name.lower():
                return v
        return None


class RawConn:
    """A raw HTTP/1.1 client socket that can parse several responses from one stream (pipelining)."""

    def __init__(self, port, timeout=5.0):
        self.sock = socket.create_connection((HOST, port), timeout=timeout)
        self.rfile = self.sock.makefile("rb")

    def send(self, data):
        self.sock.sendall(data)

    def read_response(self, head=False):
        line = self.rfile.readline(65537)
        if not line:
            return None
        m = re.match(r"^(HTTP/1\.[01]) (\d{3})(?: (.*))?$", line.decode("latin-1").rstrip("\r\n"))
        if m is None:
            raise ValueError("bad status line %r" % line)
        version, code, reason = m.group(1), m.group(2), m.group(3) or ""
        headers = []
        while True:
            h = self.rfile.readline(65537)
            if not h:
                raise ConnectionError("connection closed inside headers")
            h = h.decode("latin-1").rstrip("\r\n")
            if h == "":
                break
            k, _, v = h.partition(":")
            headers.append((k.strip(), v.strip()))
        resp = RawResponse(version, int(code), reason, headers, b"")
        if 100 <= resp.status < 200:
            return resp
        if head or resp.status in (204, 304):
            return resp
        te = (resp.header("transfer-encoding") or "").lower()
        if "chunked" in te:
            body = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b""):
                        pass
                    break
                body += self.rfile.read(size)
                self.rfile.readline()
            resp.body = body
        elif resp.header("content-length") is not None:
            resp.body = self.rfile.read(int(resp.header("content-length")))
        else:
            resp.body = self.rfile.read()
        return resp

    def closed_by_peer(self, timeout=3.0):
        """True when the server closes the connection (EOF or reset) within timeout."""
        self.sock.settimeout(timeout)
        try:
            return self.rfile.read(1) == b""
        except (socket.timeout, TimeoutError):
            return False
        except (ConnectionResetError, BrokenPipeError):
            return True

    def close(self):
        try:
            self.rfile.close()
        finally:
            self.sock.close()


class HttpServerTest(unittest.TestCase):
    server = None

    @classmethod
    def setUpClass(cls):
        cls.server = ServerProcess(SERVER_SCRIPT, args=(2,))

    @classmethod
    def tearDownClass(cls):
        if cls.server is not None:
            cls.server.cleanup()

    def conn(self, timeout=5.0):
        return http.client.HTTPConnection(HOST, self.server.port, timeout=timeout)

    def test_keepalive_reuse_http_client(self):
        """100 requests over one http.client connection: all 200 and served on one server-side fd."""
        c = self.conn()
        c.connect()
        sock = c.sock
        fds = set()
        try:
            for i in range(100):
                c.request("GET", "/echo?i=%d" % i)
                r = c.getresponse()
                data = json.loads(r.read())
                self.assertEqual(r.status, 200)
                self.assertEqual(data["query"], {"i": str(i)})
                fds.add(data["fd"])
                self.assertIs(c.sock, sock, "http.client had to reconnect: keep-alive was not honoured")
        finally:
            c.close()
        self.assertEqual(len(fds), 1)

    def test_pipelining(self):
        """Five requests in one write come back in order on the same connection."""
        rc = RawConn(self.server.port)
        try:
            reqs = b"".join(b"GET /echo?n=%d HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" % i for i in range(5))
            rc.send(reqs)
            got = []
            for _ in range(5):
                r = rc.read_response()
                self.assertIsNotNone(r)
                self.assertEqual(r.status, 200)
                got.append(json.loads(r.body)["query"]["n"])
            self.assertEqual(got, ["0", "1", "2", "3", "4"])
        finally:
            rc.close()

    def test_malformed_request_line(self):
        """Garbage instead of a request line: 400, then the server closes the connection."""
        rc = RawConn(self.server.port)
        try:
            rc.send(b"THIS IS NOT HTTP AT ALL\r\n\r\n")
            r = rc.read_response()
            self.assertIsNotNone(r, "no response to a malformed request")
            self.assertEqual(r.status, 400)
            self.assertTrue(rc.closed_by_peer(3.0))
        finally:
            rc.close()
        self.assertEqual(self._get("/")[0], 200)

    def test_oversize_body_413(self):
        """Content-Length (4 MB) above package_max_length (1 MB): 413 without reading the body; the server keeps serving."""
        rc = RawConn(self.server.port)
        try:
            rc.send(b"POST /md5 HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: %d\r\n\r\n" % (4 * 1024 * 1024))
            # No body is sent: the verdict must come from the declared length alone (sending data the
            # server will never read would make its close a reset that can destroy the 413 in flight).
            r = rc.read_response()
            self.assertIsNotNone(r)
            self.assertEqual(r.status, 413)
        finally:
            rc.close()
        self.assertEqual(self._get("/")[0], 200)

    def test_expect_100_continue(self):
        """Headers with Expect: 100-continue get an interim 100 before the body is sent, then the final 200."""
        rc = RawConn(self.server.port)
        try:
            body = b"payload after continue"
            rc.send(b"POST /md5 HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: 100-continue\r\n"
                    b"Content-Length: %d\r\n\r\n" % len(body))
            interim = rc.read_response()
            self.assertIsNotNone(interim)
            self.assertEqual(interim.status, 100)
            rc.send(body)
            r = rc.read_response()
            self.assertEqual(r.status, 200)
            self.assertEqual(r.body.decode(), "%s %d" % (hashlib.md5(body).hexdigest(), len(body)))
        finally:
            rc.close()

    def test_chunked_upload(self):
        """http.client sends a chunked body (30 KB in uneven pieces); the handler sees the reassembled bytes."""
        pieces = [os.urandom(n) for n in (1, 4096, 10000, 7, 16000)]
        whole = b"".join(pieces)
        c = self.conn()
        try:
            c.request("POST", "/md5", body=iter(pieces), encode_chunked=True,
                      headers={"Transfer-Encoding": "chunked"})
            r = c.getresponse()
            self.assertEqual(r.status, 200)
            self.assertEqual(r.read().decode(), "%s %d" % (hashlib.md5(whole).hexdigest(), len(whole)))
        finally:
            c.close()

    def test_head(self):
        """HEAD: 200 with Content-Length of the GET body and no body bytes; the next GET on the socket parses cleanly."""
        rc = RawConn(self.server.port)
        try:
            rc.send(b"HEAD / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            r = rc.read_response(head=True)
            self.assertEqual(r.status, 200)
            self.assertEqual(r.header("content-length"), "5")
            rc.send(b"GET /echo?after=head HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            r2 = rc.read_response()
            self.assertEqual(r2.status, 200, "a HEAD body leaked into the next response")
            self.assertEqual(json.loads(r2.body)["query"], {"after": "head"})
        finally:
            rc.close()

    def test_concurrent_clients(self):
        """50 threads x 20 keep-alive requests each: all 1000 answers are 200 with the right body."""
        results = []
        errors = []
        lock = threading.Lock()

        def client(tid):
            ok = 0
            try:
                c = self.conn(timeout=10.0)
                for i in range(20):
                    c.request("GET", "/echo?t=%d&i=%d" % (tid, i))
                    r = c.getresponse()
                    data = json.loads(r.read())
                    if r.status == 200 and data["query"] == {"t": str(tid), "i": str(i)}:
                        ok += 1
                c.close()
            except Exception as e:  # recorded and asserted below
                with lock:
                    errors.append("thread %d: %r" % (tid, e))
            with lock:
                results.append(ok)

        threads = [threading.Thread(target=client, args=(t,), daemon=True) for t in range(50)]
        for t in threads:
            t.start()
        deadline = time.monotonic() + 60
        for t in threads:
            t.join(timeout=max(0.1, deadline - time.monotonic()))
        self.assertFalse(any(t.is_alive() for t in threads), "clients still running after 60 s")
        self.assertEqual(errors, [])
        self.assertEqual(sum(results), 1000)

    def _get(self, path):
        c = self.conn()
        try:
            c.request("GET", path)
            r = c.getresponse()
            return r.status, r.read()
        finally:
            c.close()


class ServerShutdownTest(unittest.TestCase):
    def test_sigterm_exits_zero_and_frees_port(self):
        """SIGTERM after serving: the php process exits 0 within 8 s and the port no longer accepts."""
        srv = ServerProcess(SERVER_SCRIPT, args=(2,))
        try:
            c = http.client.HTTPConnection(HOST, srv.port, timeout=5)
            c.request("GET", "/")
            self.assertEqual(c.getresponse().read(), b"hello")
            c.close()
            os.kill(srv.proc.pid, signal.SIGTERM)
            code = srv.proc.wait(timeout=8)
            self.assertEqual(code, 0, srv.read_log())
            self.assertFalse(port_open(srv.port))
        finally:
            srv.cleanup()


if __name__ == "__main__":
    unittest.main(verbosity=2)
