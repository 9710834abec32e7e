# Worker recycling (max_request, reload) loses no request: keep-alive clients, sequential and concurrent, BASE and PROCESS mode.
"""Run with: RSWOOLE_SO=/path/to/librswoole.so python3 -m unittest discover -s tests/integration -p 'test_recycle.py' -v

The server is tests/integration/servers/process_server.php (as in test_process.py) with max_request=5 and no grace,
so a worker is replaced every few requests. The clients never retry: any exception or non-200 answer is a lost
request. PROCESS mode: an idle keep-alive connection of a draining worker goes back to the master, which hands it
to another worker, so even a client that pauses between requests (its connection idle when the worker exits)
loses nothing; in BASE mode there is no master to hand it to, and the check is that back-to-back keep-alive
clients lose nothing.
"""

import http.client
import os
import random
import signal
import socket
import threading
import time
import unittest

from test_http import HOST
from test_process import ProcessTestBase, wait_until

HANDLER = """<?php
return function ($req, $resp, $server) {
    $resp->end('ok ' . getmypid());
};
"""

RECYCLE = {"worker_num": 2, "max_request": 5, "max_request_grace": 0}


def clients(port, threads, requests, pause=0.0, seed=1):
    """`threads` keep-alive clients sending `requests` GETs each (pausing up to `pause` s before each one);
    returns (answers, failures, pids). A connection the server closed with `Connection: close` is replaced."""
    lock = threading.Lock()
    out = {"ok": 0, "failures": [], "pids": set()}

    def run(k):
        rnd = random.Random(seed * 1000 + k)
        conn = None
        for _ in range(requests):
            if pause:
                time.sleep(rnd.random() * pause)
            try:
                if conn is None:
                    conn = http.client.HTTPConnection(HOST, port, timeout=5)
                conn.request("GET", "/")
                r = conn.getresponse()
                body = r.read().decode()
                if r.status != 200:
                    raise RuntimeError("status %d" % r.status)
                with lock:
                    out["ok"] += 1
                    out["pids"].add(int(body.split()[-1]))
                if (r.getheader("Connection") or "").lower() == "close":
                    conn.close()
                    conn = None
            except Exception as e:  # no retry: a failure is a lost request
                with lock:
                    out["failures"].append(repr(e))
                if conn is not None:
                    conn.close()
                conn = None
        if conn is not None:
            conn.close()

    ts = [threading.Thread(target=run, args=(k,), daemon=True) for k in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(60)
    return out["ok"], out["failures"], out["pids"]


class RecycleBase(ProcessTestBase):
    def test_back_to_back_keep_alive_clients_lose_nothing(self):
        srv = self.start_server(RECYCLE, HANDLER)
        ok, failures, pids = clients(srv.port, threads=6, requests=150)
        self.assertEqual(failures, [], srv.read_log()[-2000:])
        self.assertEqual(ok, 900)
        self.assertGreater(len(pids), 10, "workers were not recycled")
        self.assertIn("max_request reached", srv.read_log())

    def test_half_sent_head_survives_reload(self):
        # A client is part-way through its request head when every worker is replaced: hyper has
        # those bytes in its buffer (so in PROCESS mode the connection cannot go back to the
        # master); the draining worker answers that request itself (with Connection: close)
        # instead of cutting it.
        srv = self.start_server({"worker_num": 1}, HANDLER)
        first = self.worker_pids()
        s = socket.create_connection((HOST, srv.port), timeout=5)
        # A first request, so that the connection is idle keep-alive (hyper treats a connection's
        # first request as in progress from its first byte).
        s.sendall(b"GET /first HTTP/1.1\r\nHost: x\r\n\r\n")
        data = b""
        while not data.endswith(b"ok %d" % min(first)):
            chunk = s.recv(4096)
            self.assertTrue(chunk, data)
            data += chunk
        s.sendall(b"GET /half HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n")
        time.sleep(0.3)
        os.kill(srv.proc.pid, signal.SIGUSR1)
        time.sleep(1.5)  # past the grace a draining worker keeps an idle connection (1 s)
        s.sendall(b"X-B: 2\r\n\r\n")
        data = b""
        while b"\r\n\r\n" not in data or not data.split(b"\r\n\r\n", 1)[1].startswith(b"ok"):
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
        s.close()
        self.assertTrue(data.startswith(b"HTTP/1.1 200"), (data, srv.read_log()[-2000:]))
        self.assertIn(b"connection: close", data.lower())
        self.assertIn(int(data.split()[-1]), first, "answered by the worker that read the head")


class RecycleProcess(RecycleBase):
    MODE = "process"

    def test_pausing_keep_alive_clients_lose_nothing(self):
        # Connections sit idle for up to 1.4 s, longer than a draining worker waits for an idle
        # connection (1 s): before the hand-back, about one request in ten was lost here.
        srv = self.start_server(RECYCLE, HANDLER)
        ok, failures, pids = clients(srv.port, threads=20, requests=8, pause=1.4)
        self.assertEqual(failures, [], srv.read_log()[-2000:])
        self.assertEqual(ok, 160)
        self.assertGreater(len(pids), 5, "workers were not recycled")

    def test_idle_connection_outlives_its_worker(self):
        # One keep-alive connection, idle while every worker is replaced (reload), then used again:
        # it is answered by a new worker on the same TCP connection.
        srv = self.start_server({"worker_num": 2}, HANDLER)
        conn = http.client.HTTPConnection(HOST, srv.port, timeout=5)
        conn.request("GET", "/")
        r = conn.getresponse()
        first = int(r.read().decode().split()[-1])
        self.assertNotEqual((r.getheader("Connection") or "").lower(), "close")
        local = conn.sock.getsockname()
        os.kill(srv.proc.pid, signal.SIGUSR1)
        self.assertTrue(wait_until(lambda: len(self.events("afterReload")) >= 1, 10), srv.read_log())
        self.assertTrue(wait_until(lambda: not os.path.exists("/proc/%d" % first) or
                                   open("/proc/%d/stat" % first).read().split(")")[1].split()[0] in "ZX", 10))
        time.sleep(1.5)  # past the 1 s a draining worker would have kept it
        conn.request("GET", "/")
        r = conn.getresponse()
        second = int(r.read().decode().split()[-1])
        self.assertEqual(r.status, 200)
        self.assertNotEqual(second, first)
        self.assertEqual(conn.sock.getsockname(), local, "the same TCP connection")
        conn.close()


if __name__ == "__main__":
    unittest.main()
