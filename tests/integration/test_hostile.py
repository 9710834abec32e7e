# Hostile input and faults (issue 17): raw-socket clients against tests/integration/servers/hostile_server.php.
"""Run with: RSWOOLE_SO=/path/to/librswoole.so python3 -m unittest discover -s tests/integration -p test_hostile.py -v

Protocol strictness (Host, CL+TE, absolute form, header count and head size, WebSocket close frames),
bounded output buffers (RSS measured before, during and after a client that never reads), stalled and
slow request bodies, form limits, and failures that must still answer.
"""

import base64
import json
import os
import shutil
import socket
import struct
import tempfile
import threading
import time
import unittest

from test_http import HOST, RawConn, ServerProcess, free_port

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "servers", "hostile_server.php")


def start(settings=None, mode="base", tcp_port=None):
    args = [json.dumps(settings or {}), mode]
    if tcp_port:
        args.append(tcp_port)
    return ServerProcess(SCRIPT, args)


def exchange(port, data, timeout=5.0):
    """Sends `data`, reads until the server closes (or `timeout`); returns (bytes, closed)."""
    s = socket.create_connection((HOST, port), timeout=timeout)
    try:
        s.sendall(data)
        out = b""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                chunk = s.recv(65536)
            except socket.timeout:
                return out, False
            if not chunk:
                return out, True
            out += chunk
        return out, False
    finally:
        s.close()


def status_of(raw):
    line = raw.split(b"\r\n", 1)[0]
    parts = line.split(b" ")
    return int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else None


def get_json(port, path):
    c = RawConn(port)
    try:
        c.send(("GET %s HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n" % path).encode())
        r = c.read_response()
        return json.loads(r.body)
    finally:
        c.close()


def rss_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


# ---- WebSocket helpers ------------------------------------------------------------------------

def ws_connect(port, timeout=5.0):
    s = socket.create_connection((HOST, port), timeout=timeout)
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall(("GET /ws HTTP/1.1\r\nHost: t\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n" % key).encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = s.recv(1)
        if not chunk:
            raise ConnectionError("closed during handshake")
        head += chunk
    assert head.startswith(b"HTTP/1.1 101"), head
    return s


def ws_frame(opcode, payload, fin=True):
    mask = os.urandom(4)
    b0 = (0x80 if fin else 0) | opcode
    n = len(payload)
    if n < 126:
        head = struct.pack("!BB", b0, 0x80 | n)
    elif n < 65536:
        head = struct.pack("!BBH", b0, 0x80 | 126, n)
    else:
        head = struct.pack("!BBQ", b0, 0x80 | 127, n)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def recv_exact(s, n):
    out = b""
    while len(out) < n:
        chunk = s.recv(n - len(out))
        if not chunk:
            raise ConnectionError("closed")
        out += chunk
    return out


def ws_read(s):
    b0, b1 = recv_exact(s, 2)
    n = b1 & 0x7F
    if n == 126:
        n = struct.unpack("!H", recv_exact(s, 2))[0]
    elif n == 127:
        n = struct.unpack("!Q", recv_exact(s, 8))[0]
    return b0 & 0x0F, recv_exact(s, n)


def ws_close_answer(port, payload):
    """Sends a close frame with `payload`; returns the code of the server's close frame."""
    s = ws_connect(port)
    try:
        s.sendall(ws_frame(8, payload))
        while True:
            op, data = ws_read(s)
            if op == 8:
                return struct.unpack("!H", data[:2])[0] if len(data) >= 2 else None
    finally:
        s.close()


class ProtocolStrictness(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.srv = start({"http_max_headers": 1024})

    @classmethod
    def tearDownClass(cls):
        cls.srv.cleanup()

    def test_http11_without_host_is_served_as_by_swoole(self):
        out, closed = exchange(self.srv.port, b"GET /echo HTTP/1.1\r\n\r\n")
        self.assertEqual(status_of(out), 200, out)
        self.assertFalse(closed)
        self.assertIn(b'"host":null', out.split(b"\r\n\r\n", 1)[1])

    def test_two_host_headers_are_400_and_closed(self):
        out, closed = exchange(self.srv.port, b"GET /echo HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n")
        self.assertEqual(status_of(out), 400, out)
        self.assertTrue(closed)

    def test_http10_without_host_is_served(self):
        out, _ = exchange(self.srv.port, b"GET /echo HTTP/1.0\r\n\r\n")
        self.assertEqual(status_of(out), 200, out)

    def test_cl_and_te_answer_says_only_close(self):
        req = (b"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n"
               b"3\r\nabc\r\n0\r\n\r\n")
        out, closed = exchange(self.srv.port, req)
        self.assertEqual(status_of(out), 200, out)
        conn = [l for l in out.split(b"\r\n\r\n")[0].split(b"\r\n") if l.lower().startswith(b"connection:")]
        self.assertEqual(conn, [b"Connection: close"], out)
        self.assertTrue(closed)

    def test_raw_content_without_body_is_empty_string(self):
        self.assertEqual(get_json(self.srv.port, "/echo")["raw"], "''")

    def test_absolute_form_host_is_the_targets_authority(self):
        out, _ = exchange(self.srv.port, b"GET http://example.org:8080/echo HTTP/1.1\r\nHost: other\r\n"
                                         b"Connection: close\r\n\r\n")
        self.assertEqual(status_of(out), 200, out)
        body = json.loads(out.split(b"\r\n\r\n", 1)[1])
        self.assertEqual(body["host"], "example.org:8080")

    def test_150_headers_are_accepted(self):
        extra = b"".join(b"X-H%d: v\r\n" % i for i in range(150))
        out, _ = exchange(self.srv.port, b"GET /echo HTTP/1.1\r\nHost: t\r\n" + extra + b"Connection: close\r\n\r\n")
        self.assertEqual(status_of(out), 200, out[:200])
        self.assertGreaterEqual(json.loads(out.split(b"\r\n\r\n", 1)[1])["headers"], 150)

    def test_150_headers_sent_in_two_pieces_are_accepted(self):
        extra = b"".join(b"X-Header-Number-%d: some value\r\n" % i for i in range(150))
        req = b"GET /echo HTTP/1.1\r\nHost: t\r\n" + extra + b"Connection: close\r\n\r\n"
        s = socket.create_connection((HOST, self.srv.port), timeout=5)
        try:
            s.sendall(req[:1500])
            time.sleep(0.005)
            s.sendall(req[1500:])
            out = b""
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                out += chunk
        finally:
            s.close()
        self.assertEqual(status_of(out), 200, out[:200])

    def test_ws_invalid_close_codes_get_1002(self):
        for code in (0, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000):
            self.assertEqual(ws_close_answer(self.srv.port, struct.pack("!H", code)), 1002, code)

    def test_ws_valid_close_code_is_echoed(self):
        self.assertEqual(ws_close_answer(self.srv.port, struct.pack("!H", 4000) + b"bye"), 4000)

    def test_ws_one_byte_close_payload_gets_1002(self):
        self.assertEqual(ws_close_answer(self.srv.port, b"\x03"), 1002)

    def test_ws_close_reason_not_utf8_gets_1007(self):
        self.assertEqual(ws_close_answer(self.srv.port, struct.pack("!H", 1000) + b"\xff\xfe"), 1007)


class HeadLimits(unittest.TestCase):
    def test_count_and_size_are_settings(self):
        srv = start({"http_max_headers": 20, "http_max_header_size": 4096})
        try:
            few = b"".join(b"X-H%d: v\r\n" % i for i in range(10))
            many = b"".join(b"X-H%d: v\r\n" % i for i in range(40))
            big = b"X-Big: " + b"a" * 5000 + b"\r\n"
            for extra, want in ((few, 200), (many, 431), (big, 431)):
                out, _ = exchange(srv.port, b"GET /echo HTTP/1.1\r\nHost: t\r\n" + extra + b"Connection: close\r\n\r\n")
                self.assertEqual(status_of(out), want, out[:200])
        finally:
            srv.cleanup()


def wait_status(port, cond, timeout=20.0):
    deadline = time.monotonic() + timeout
    st = get_json(port, "/status")
    while not cond(st) and time.monotonic() < deadline:
        time.sleep(0.1)
        st = get_json(port, "/status")
    return st


def never_reading_client(port, request):
    """A client that sends `request` and then never reads (a small receive buffer, so the kernel holds little)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect((HOST, port))
    s.sendall(request)
    return s


class BoundedOutput(unittest.TestCase):
    """write()/push() to a client that never reads: the queue stops at socket_buffer_size, RSS stays bounded
    and comes back when the client is gone. RSS (KiB) is printed as before/during/after."""

    LIMIT = 2 * 1024 * 1024

    def measure(self, srv, start_flood, done_cond, label):
        pid = get_json(srv.port, "/status")["pid"]
        before = rss_kb(pid)
        s = start_flood()
        time.sleep(1.5)
        during = rss_kb(pid)
        st = get_json(srv.port, "/status")
        s.close()
        st_after = wait_status(srv.port, done_cond)
        time.sleep(0.5)
        after = rss_kb(pid)
        print("\n%s RSS KiB before=%d during=%d after=%d status=%s" % (label, before, during, after, st_after))
        return before, during, after, st, st_after

    def test_http_write_flood_coroutine_waits_and_is_bounded(self):
        srv = start({"socket_buffer_size": self.LIMIT})
        try:
            req = b"GET /flood?n=3200&size=65536 HTTP/1.1\r\nHost: t\r\n\r\n"
            before, during, after, st, st_after = self.measure(
                srv, lambda: never_reading_client(srv.port, req), lambda st: st["done"], "http write 64KiB x3200")
            # send_yield (coroutine mode): the handler waits; it has not queued 3200 chunks.
            self.assertFalse(st["done"], st)
            self.assertLess(st["ok"], 200, st)
            self.assertGreaterEqual(st["full"], 1, st)
            self.assertLess(during - before, 64 * 1024, (before, during))
            self.assertTrue(st_after["done"], st_after)
            self.assertGreaterEqual(st_after["fail"], 1, st_after)
            self.assertLess(after - before, 16 * 1024, (before, after))
        finally:
            srv.cleanup()

    def test_http_write_flood_without_coroutine_fails_with_1009(self):
        srv = start({"socket_buffer_size": self.LIMIT, "enable_coroutine": False})
        try:
            s = never_reading_client(srv.port, b"GET /flood?n=3200&size=65536 HTTP/1.1\r\nHost: t\r\n\r\n")
            time.sleep(1.0)
            s.close()
            st = wait_status(srv.port, lambda st: st["done"])
            self.assertTrue(st["done"], st)
            self.assertEqual(st["fail"], 1, st)
            self.assertEqual(st["err"], 1009, st)
            self.assertLess(st["ok"], 200, st)
            self.assertIn("output buffer overflow", srv.read_log())
        finally:
            srv.cleanup()

    def test_ws_push_flood_is_bounded(self):
        srv = start({"socket_buffer_size": self.LIMIT})
        try:
            def flood():
                s = ws_connect(srv.port)
                s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
                s.sendall(ws_frame(1, b"flood 300 1048576"))
                return s
            before, during, after, st, st_after = self.measure(
                srv, flood, lambda st: st["done"], "ws push 1MiB x300")
            self.assertFalse(st["done"], st)
            self.assertLess(st["ok"], 20, st)
            self.assertLess(during - before, 64 * 1024, (before, during))
            self.assertTrue(st_after["done"], st_after)
            self.assertLess(after - before, 16 * 1024, (before, after))
        finally:
            srv.cleanup()

    def tcp_flood(self, settings):
        tcp_port = free_port()
        srv = start(dict({"socket_buffer_size": self.LIMIT}, **settings), tcp_port=tcp_port)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            try:
                socket.create_connection((HOST, tcp_port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
        return srv, tcp_port

    def test_tcp_send_flood_coroutine_waits_and_is_bounded(self):
        srv, tcp_port = self.tcp_flood({})
        try:
            before, during, after, st, st_after = self.measure(
                srv, lambda: never_reading_client(tcp_port, b"flood 3200 65536\n"),
                lambda st: st["done"], "tcp send 64KiB x3200")
            # send_yield: the callback waits for room instead of queueing 200 MB.
            self.assertFalse(st["done"], st)
            self.assertLess(st["ok"], 200, st)
            self.assertGreaterEqual(st["full"], 1, st)
            self.assertLess(during - before, 64 * 1024, (before, during))
            self.assertTrue(st_after["done"], st_after)
            self.assertLess(after - before, 16 * 1024, (before, after))
        finally:
            srv.cleanup()

    def test_tcp_send_flood_without_coroutine_fails_with_1009(self):
        srv, tcp_port = self.tcp_flood({"enable_coroutine": False})
        try:
            s = never_reading_client(tcp_port, b"flood 3200 65536\n")
            time.sleep(1.0)
            st = get_json(srv.port, "/status")
            s.close()
            self.assertTrue(st["done"], st)
            self.assertEqual(st["fail"], 1, st)
            self.assertEqual(st["err"], 1009, st)
            self.assertLess(st["ok"], 200, st)
            self.assertIn("output buffer overflow", srv.read_log())
            # The server still answers on both ports.
            c = socket.create_connection((HOST, tcp_port), timeout=5)
            c.sendall(b"ping")
            self.assertEqual(c.recv(16), b"ping")
            c.close()
        finally:
            srv.cleanup()


class SlowBodies(unittest.TestCase):
    """http_body_timeout cuts stalled and trickling bodies (408, closed); bodies past http_body_buffer_size are
    spooled to upload_tmp_dir, so stalled uploads do not hold their bytes in the worker's memory."""

    def test_stalled_uploads_are_spooled_then_cut(self):
        srv = start({"http_body_timeout": 3, "package_max_length": 2 * 1024 * 1024})
        socks = []
        try:
            pid = get_json(srv.port, "/status")["pid"]
            before = rss_kb(pid)
            chunk = b"z" * (1900 * 1024)
            for _ in range(20):
                s = socket.create_connection((HOST, srv.port), timeout=10)
                s.sendall(b"POST /form HTTP/1.1\r\nHost: t\r\nContent-Length: 2000000\r\n\r\n" + chunk)
                socks.append(s)
            time.sleep(0.8)
            during = rss_kb(pid)
            answers = []
            for s in socks:
                s.settimeout(6)
                try:
                    answers.append(s.recv(4096))
                except socket.timeout:
                    answers.append(b"")
            time.sleep(0.3)
            after = rss_kb(pid)
            print("\nstalled uploads 20 x 1.9 MB RSS KiB before=%d during=%d after=%d" % (before, during, after))
            self.assertLess(during - before, 16 * 1024, (before, during))
            self.assertTrue(all(status_of(a) == 408 for a in answers), answers[:3])
            # The server still serves.
            self.assertEqual(get_json(srv.port, "/status")["pid"], pid)
        finally:
            for s in socks:
                s.close()
            srv.cleanup()

    def test_trickling_body_is_cut(self):
        srv = start({"http_body_timeout": 2})
        try:
            s = socket.create_connection((HOST, srv.port), timeout=1)
            s.sendall(b"POST /form HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\n")
            t0 = time.monotonic()
            got = b""
            while time.monotonic() - t0 < 6 and not got:
                try:
                    s.sendall(b"a")
                except OSError:
                    break
                try:
                    got = s.recv(4096)
                except socket.timeout:
                    pass
                except OSError:
                    break
                time.sleep(0.5) if not got else None
            elapsed = time.monotonic() - t0
            s.close()
            self.assertEqual(status_of(got), 408, got)
            self.assertLess(elapsed, 4.5)
        finally:
            srv.cleanup()

    def test_spooled_body_reaches_the_handler_whole(self):
        srv = start({"http_body_buffer_size": 4096, "package_max_length": 4 * 1024 * 1024})
        try:
            body = b"q" * (3 * 1024 * 1024)
            out, _ = exchange(srv.port, b"POST /form HTTP/1.1\r\nHost: t\r\nConnection: close\r\n"
                                        b"Content-Length: %d\r\n\r\n" % len(body) + body)
            self.assertEqual(status_of(out), 200, out[:200])
            self.assertEqual(json.loads(out.split(b"\r\n\r\n", 1)[1])["body"], len(body))
        finally:
            srv.cleanup()


def colliding_keys(bits):
    """2**bits distinct keys with one PHP (DJBX33A) hash: every key is made of the blocks "Ez" / "FY"."""
    keys = [b""]
    for _ in range(bits):
        keys = [k + b for k in keys for b in (b"Ez", b"FY")]
    return keys


def multipart(parts, boundary=b"XyZ"):
    out = b""
    for name, filename, data in parts:
        out += b"--" + boundary + b"\r\n"
        if filename is None:
            out += b'Content-Disposition: form-data; name="%s"\r\n\r\n' % name
        else:
            out += (b'Content-Disposition: form-data; name="%s"; filename="%s"\r\n'
                    b"Content-Type: text/plain\r\n\r\n" % (name, filename))
        out += data + b"\r\n"
    return out + b"--" + boundary + b"--\r\n"


class FormLimits(unittest.TestCase):
    """max_input_vars and max_file_uploads as PHP's own parser honours them: a warning, and the request goes on."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="rsw_up_")
        cls.srv = start({"package_max_length": 4 * 1024 * 1024, "upload_tmp_dir": cls.tmp})

    @classmethod
    def tearDownClass(cls):
        cls.srv.cleanup()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def post(self, ctype, body):
        out, _ = exchange(self.srv.port, b"POST /form HTTP/1.1\r\nHost: t\r\nConnection: close\r\n"
                                         b"Content-Type: " + ctype + b"\r\nContent-Length: %d\r\n\r\n" % len(body)
                          + body, timeout=30)
        self.assertEqual(status_of(out), 200, out[:300])
        return json.loads(out.split(b"\r\n\r\n", 1)[1])

    def test_colliding_urlencoded_keys_stop_at_max_input_vars_quickly(self):
        body = b"&".join(k + b"=1" for k in colliding_keys(15))
        self.assertGreater(len(body), 1024 * 1024)
        t0 = time.monotonic()
        r = self.post(b"application/x-www-form-urlencoded", body)
        elapsed = time.monotonic() - t0
        self.assertEqual(r["post"], 1000, r)
        self.assertLess(elapsed, 1.0)
        self.assertIn("Input variables exceeded 1000", self.srv.read_log())

    def test_max_file_uploads_stops_at_20(self):
        before = len(os.listdir(self.tmp))
        parts = [(b"f%d" % i, b"a%d.txt" % i, b"data") for i in range(2000)]
        r = self.post(b"multipart/form-data; boundary=XyZ", multipart(parts))
        self.assertEqual(r["files"], 20, r)
        self.assertEqual(r["tmp"], 20, r)
        self.assertIn("Maximum number of allowable file uploads has been exceeded", self.srv.read_log())
        # The request's uploads are removed when it ends; none was left over.
        time.sleep(0.2)
        self.assertEqual(len(os.listdir(self.tmp)), before)

    def test_multipart_fields_stop_at_max_input_vars(self):
        parts = [(b"v%d" % i, None, b"x") for i in range(1500)]
        r = self.post(b"multipart/form-data; boundary=XyZ", multipart(parts))
        self.assertEqual(r["post"], 1000, r)


class FailuresAnswer(unittest.TestCase):
    """A fatal failure in a callback answers its request 500; the worker's other requests in flight finish or get
    503 before the worker is replaced; a chunked response that cannot finish is cut, never ended cleanly."""

    @classmethod
    def setUpClass(cls):
        cls.srv = start({"worker_num": 1})

    @classmethod
    def tearDownClass(cls):
        cls.srv.cleanup()

    def bad_with_one_in_flight(self, bad):
        res = {}

        def slow():
            res["slow"] = exchange(self.srv.port, b"GET /slow?t=1 HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
                                   timeout=8)
        t = threading.Thread(target=slow)
        t.start()
        time.sleep(0.3)
        res["bad"] = exchange(self.srv.port, ("GET %s HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n" % bad)
                              .encode(), timeout=8)
        t.join()
        # The replacement worker serves.
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            try:
                get_json(self.srv.port, "/status")
                break
            except (OSError, ValueError, AttributeError):
                time.sleep(0.1)
        return res["bad"][0], res["slow"][0]

    def test_memory_limit_answers_500_and_the_other_request_503(self):
        bad, slow = self.bad_with_one_in_flight("/oom")
        self.assertEqual(status_of(bad), 500, bad)
        self.assertIn(status_of(slow), (200, 503), slow)

    def test_exit_answers_500_and_the_other_request_finishes(self):
        bad, slow = self.bad_with_one_in_flight("/exit")
        self.assertEqual(status_of(bad), 500, bad)
        self.assertIn(status_of(slow), (200, 503), slow)

    def test_fatal_error_answers_500_and_the_other_request_finishes(self):
        bad, slow = self.bad_with_one_in_flight("/fatal")
        self.assertEqual(status_of(bad), 500, bad)
        self.assertIn(status_of(slow), (200, 503), slow)

    def test_stream_cut_by_exception_has_no_final_chunk(self):
        for path in ("/stream_fail", "/stream_exit"):
            out, closed = exchange(self.srv.port, ("GET %s HTTP/1.1\r\nHost: t\r\n\r\n" % path).encode())
            self.assertTrue(closed, path)
            self.assertFalse(out.endswith(b"0\r\n\r\n"), (path, out[-60:]))
            time.sleep(0.5)


class StuckWorkerDispatch(unittest.TestCase):
    """PROCESS mode: while one worker spins in PHP (it stops taking connections from its channel), the master
    hands new connections to the others, and the ones sent to it before the stall was visible are withdrawn
    (their claim) and handed to another worker: every client is served."""

    def test_new_clients_go_to_the_other_workers(self):
        srv = start({"worker_num": 2}, mode="process")
        try:
            time.sleep(0.5)
            spin = socket.create_connection((HOST, srv.port), timeout=10)
            spin.sendall(b"GET /spin?t=4 HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
            time.sleep(0.3)
            results = [None] * 20

            def one(i):
                try:
                    out, _ = exchange(srv.port, b"GET /echo HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
                                      timeout=2.0)
                    results[i] = status_of(out)
                except OSError:
                    results[i] = None
            threads = []
            for i in range(20):
                t = threading.Thread(target=one, args=(i,))
                t.start()
                threads.append(t)
                time.sleep(0.02)
            for t in threads:
                t.join()
            served = sum(1 for r in results if r == 200)
            self.assertEqual(served, 20, results)
            spin.close()
        finally:
            srv.cleanup()


if __name__ == "__main__":
    unittest.main()
