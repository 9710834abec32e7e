# Raw TCP server (Swoole\Server) under load: 1000 concurrent clients echo correctly; task round trips under concurrency.
"""Run with: RSWOOLE_SO=/path/to/librswoole.so python3 -m unittest discover -s tests/integration -p 'test_tcp.py' -v

The server is tests/integration/servers/tcp_echo.php on a free 127.0.0.1 port, stopped by pid in tearDown.
Every socket has a timeout; every wait is bounded.
"""

import os
import selectors
import socket
import time
import unittest

from test_http import HOST, ServerProcess

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "servers", "tcp_echo.php")


def run_clients(port, n, rounds, make_msg, timeout=30.0):
    """n non-blocking clients, each sends `rounds` lines one after the other and checks every answer.

    Returns (ok_answers, errors)."""
    sel = selectors.DefaultSelector()
    conns = []
    for i in range(n):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.settimeout(10)
        s.connect((HOST, port))
        s.setblocking(False)
        st = {"sock": s, "i": i, "round": 0, "buf": b"", "expect": None}
        conns.append(st)
    ok = 0
    errors = []

    def send_next(st):
        msg = make_msg(st["i"], st["round"])
        st["expect"] = msg
        st["sock"].sendall(msg)  # small: fits the socket buffer

    for st in conns:
        send_next(st)
        sel.register(st["sock"], selectors.EVENT_READ, st)
    deadline = time.monotonic() + timeout
    live = n
    while live and time.monotonic() < deadline:
        for key, _ in sel.select(timeout=1.0):
            st = key.data
            try:
                data = st["sock"].recv(65536)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError as e:
                errors.append("client %d: %s" % (st["i"], e))
                sel.unregister(st["sock"])
                live -= 1
                continue
            if not data:
                errors.append("client %d: closed by server" % st["i"])
                sel.unregister(st["sock"])
                live -= 1
                continue
            st["buf"] += data
            if len(st["buf"]) < len(st["expect"]):
                continue
            if st["buf"] != st["expect"]:
                errors.append("client %d round %d: got %r, want %r" % (st["i"], st["round"], st["buf"][:80], st["expect"][:80]))
            else:
                ok += 1
            st["buf"] = b""
            st["round"] += 1
            if st["round"] < rounds:
                send_next(st)
            else:
                sel.unregister(st["sock"])
                live -= 1
    if live:
        errors.append("%d clients unfinished after %.0fs" % (live, timeout))
    for st in conns:
        st["sock"].close()
    sel.close()
    return ok, errors


class TcpServerTest(unittest.TestCase):
    def tearDown(self):
        if getattr(self, "server", None):
            self.server.stop()

    def test_1000_concurrent_clients_echo(self):
        """1000 clients connected at once, 5 lines each, every answer byte-exact (two workers)."""
        self.server = ServerProcess(SCRIPT, args=(2, 0))
        ok, errors = run_clients(self.server.port, 1000, 5, lambda i, r: b"client-%d-round-%d-%s\n" % (i, r, b"x" * (i % 50)))
        self.assertEqual(errors[:5], [])
        self.assertEqual(ok, 5000)

    def test_task_roundtrips_concurrent(self):
        """200 clients x 5 taskwait round trips through 2 task workers: every result comes back to its sender."""
        self.server = ServerProcess(SCRIPT, args=(2, 2))
        ok, errors = run_clients(self.server.port, 200, 5, lambda i, r: b"task:%d/%d\n" % (i, r))
        self.assertEqual(errors[:5], [])
        self.assertEqual(ok, 1000)


if __name__ == "__main__":
    unittest.main()
