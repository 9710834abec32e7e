# WebSocket server (Swoole\WebSocket\Server, BASE mode) tested with a raw-socket RFC 6455 client.
"""Run with: RSWOOLE_SO=/path/to/librswoole.so python3 -m unittest discover -s tests/integration -p 'test_websocket.py' -v

The PHP servers are written to temp files from the sources below and started on a free 127.0.0.1 port.
Every socket has a timeout; every wait is bounded.
"""

import base64
import hashlib
import json
import os
import socket
import struct
import tempfile
import time
import unittest

from test_http import HOST, ServerProcess

ECHO_SERVER = r"""<?php
$port = (int)$argv[1];
$s = new Swoole\WebSocket\Server('127.0.0.1', $port);
$s->set(['worker_num' => 2, 'task_worker_num' => 1, 'package_max_length' => 100000,
         'log_level' => SWOOLE_LOG_WARNING, 'heartbeat_check_interval' => 1, 'heartbeat_idle_time' => 3,
         'websocket_subprotocol' => 'chat']);
$s->on('open', function ($s, $req) {
    $s->push($req->fd, 'welcome ' . $req->server['request_uri']);
});
$s->on('message', function ($s, $f) {
    if ($f->data === 'bye') {
        $s->disconnect($f->fd, 4000, 'see you');
        return;
    }
    if ($f->data === 'info') {
        $s->push($f->fd, json_encode([$s->isEstablished($f->fd), $s->exists($f->fd),
            $s->connection_info($f->fd)['websocket_status'] ?? null, get_class($f),
            $f->opcode, $f->flags, $f->finish, $f->fd]));
        return;
    }
    if ($f->data === 'task' || $f->data === 'taskclose') {
        $s->task($f->data === 'task' ? $f->fd : "close:{$f->fd}");
        return;
    }
    $s->push($f->fd, $f->data, $f->opcode);
});
$s->on('task', function ($s, $tid, $src, $fd) {
    if (str_starts_with($fd, 'close:')) {
        $s->close((int)substr($fd, 6));
        return;
    }
    $s->push((int)$fd, 'from task ' . ($s->isEstablished((int)$fd) ? 'yes' : 'no'));
});
$s->on('request', function ($req, $resp) { $resp->end('plain http'); });
$s->on('close', function ($s, $fd, $rid) {
    file_put_contents(getenv('RSW_WS_CLOSE_LOG'), "$fd\n", FILE_APPEND);
});
$s->start();
"""

CONTROL_SERVER = r"""<?php
$port = (int)$argv[1];
$s = new Swoole\WebSocket\Server('127.0.0.1', $port);
$s->set(['worker_num' => 1, 'log_level' => SWOOLE_LOG_WARNING, 'open_websocket_close_frame' => true,
         'open_websocket_ping_frame' => true, 'open_websocket_pong_frame' => true]);
$s->on('message', function ($s, $f) {
    $line = json_encode([get_class($f), $f->opcode, $f->flags, $f->data, $f->code ?? null, $f->reason ?? null]);
    file_put_contents(getenv('RSW_WS_CLOSE_LOG') . '.msg', "$line\n", FILE_APPEND);
    if ($f->opcode == WEBSOCKET_OPCODE_PING) {
        $s->push($f->fd, 'manual', WEBSOCKET_OPCODE_PONG);
    }
});
$s->on('close', function ($s, $fd) {
    file_put_contents(getenv('RSW_WS_CLOSE_LOG'), "$fd\n", FILE_APPEND);
});
$s->start();
"""

# Seed 003's server, unchanged but for the port (and quieter logs).
SEED_003_SERVER = r"""<?php

class Server
{
    private $serv;
    public function __construct() {
        $this->serv = new Swoole\WebSocket\Server("0.0.0.0", 9501);
        $this->serv->set([
            'task_worker_num'       => 10,
            'enable_coroutine'      => true,
            'task_enable_coroutine' => true
        ]);
        $this->serv->on('open', function ($serv, $request) {});
        $this->serv->on('message', function ($serv, $frame) {
            $serv->task($frame->data);
        });
        $this->serv->on('task', function ($serv, $task) {
            foreach ($serv->connections as $fd) {
                $connectionInfo = $serv->connection_info($fd);
                if (isset($connectionInfo['websocket_status']) && intval($connectionInfo['websocket_status']) == 3) {
                    $serv->push($fd, $task->data);
                }
            }
        });
        $this->serv->on('finish', function ($serv, $task_id, $data) {});
        $this->serv->on('close', function ($serv, $fd) {});
        $this->serv->start();
    }
}

$server = new Server();
"""


class WsClient:
    def __init__(self, port, path="/chat", extra=""):
        self.sock = socket.create_connection((HOST, port), timeout=10)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(("GET %s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                           "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n%s\r\n" % (path, HOST, port, key, extra)).encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise AssertionError("closed during handshake: %r" % head)
            head += chunk
        head, self.buf = head.split(b"\r\n\r\n", 1)
        lines = head.decode().split("\r\n")
        self.status = lines[0]
        self.headers = {k.strip().lower(): v.strip() for k, v in (l.split(":", 1) for l in lines[1:])}
        want = base64.b64encode(hashlib.sha1((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").encode()).digest()).decode()
        self.accept_ok = self.headers.get("sec-websocket-accept") == want

    def send_frame(self, opcode, payload, fin=True, mask=True):
        b0 = (0x80 if fin else 0) | opcode
        n = len(payload)
        mbit = 0x80 if mask else 0
        if n < 126:
            head = struct.pack("!BB", b0, mbit | n)
        elif n < 65536:
            head = struct.pack("!BBH", b0, mbit | 126, n)
        else:
            head = struct.pack("!BBQ", b0, mbit | 127, n)
        if mask:
            key = os.urandom(4)
            payload = bytes(b ^ key[i & 3] for i, b in enumerate(payload))
            head += key
        self.sock.sendall(head + payload)

    def _read(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError("connection closed")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def recv_frame(self):
        """(fin, opcode, payload)."""
        b0, b1 = self._read(2)
        self.assert_unmasked = not (b1 & 0x80)
        n = b1 & 0x7f
        if n == 126:
            n = struct.unpack("!H", self._read(2))[0]
        elif n == 127:
            n = struct.unpack("!Q", self._read(8))[0]
        return bool(b0 & 0x80), b0 & 0x0f, self._read(n)

    def recv_close(self):
        """The close code and reason of the server's close frame."""
        fin, op, p = self.recv_frame()
        assert op == 8, "expected a close frame, got opcode %d %r" % (op, p[:40])
        return struct.unpack("!H", p[:2])[0], p[2:]

    def close(self):
        self.sock.close()


class WebSocketServerTest(unittest.TestCase):
    def setUp(self):
        f = tempfile.NamedTemporaryFile(prefix="rsw_ws_close_", delete=False)
        f.close()
        self.close_log = f.name
        os.environ["RSW_WS_CLOSE_LOG"] = f.name
        self.addCleanup(os.unlink, f.name)

    def closes(self):
        with open(self.close_log) as f:
            return [int(x) for x in f.read().split()]

    def start(self, source):
        f = tempfile.NamedTemporaryFile(prefix="rsw_ws_", suffix=".php", delete=False, mode="w")
        f.write(source)
        f.close()
        self.addCleanup(os.unlink, f.name)
        self.server = ServerProcess(f.name)
        self.addCleanup(self.server.cleanup)
        return self.server.port

    def client(self, port, path="/chat", extra=""):
        c = WsClient(port, path, extra)
        self.addCleanup(c.close)
        self.assertIn("101", c.status)
        self.assertTrue(c.accept_ok, c.headers)
        return c

    def test_handshake_echo_text_and_plain_http(self):
        port = self.start(ECHO_SERVER)
        c = self.client(port, "/room?x=1", "Sec-WebSocket-Protocol: other, chat\r\n")
        self.assertEqual(c.headers.get("upgrade", "").lower(), "websocket")
        # websocket_subprotocol is answered only when the client offers it.
        self.assertEqual(c.headers.get("sec-websocket-protocol"), "chat")
        self.assertIsNone(self.client(port).headers.get("sec-websocket-protocol"))
        self.assertEqual(c.recv_frame(), (True, 1, b"welcome /room"))
        c.send_frame(1, "héllo wörld".encode())
        self.assertEqual(c.recv_frame(), (True, 1, "héllo wörld".encode()))
        c.send_frame(1, b"info")
        fin, op, p = c.recv_frame()
        info = json.loads(p)
        # flags: FIN | MASK, as Swoole reports a client message.
        self.assertEqual(info[:7], [True, True, 3, "Swoole\\WebSocket\\Frame", 1, 33, True])
        # A fragmented message arrives whole.
        c.send_frame(1, b"frag-", fin=False)
        c.send_frame(0, b"ment")
        self.assertEqual(c.recv_frame(), (True, 1, b"frag-ment"))
        # Plain HTTP on the same port still reaches onRequest.
        with socket.create_connection((HOST, port), timeout=10) as h:
            h.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            data = b""
            while True:
                chunk = h.recv(4096)
                if not chunk:
                    break
                data += chunk
        self.assertTrue(data.startswith(b"HTTP/1.1 200"), data[:100])
        self.assertTrue(data.endswith(b"plain http"), data[-100:])

    def test_binary_70k(self):
        port = self.start(ECHO_SERVER)
        c = self.client(port)
        c.recv_frame()
        payload = os.urandom(70 * 1024)
        c.send_frame(2, payload)
        self.assertEqual(c.recv_frame(), (True, 2, payload))

    def test_ping_pong_and_close_answered(self):
        port = self.start(ECHO_SERVER)
        c = self.client(port)
        c.recv_frame()
        c.send_frame(9, b"are you there")
        self.assertEqual(c.recv_frame(), (True, 10, b"are you there"))
        c.send_frame(8, struct.pack("!H", 1000) + b"done")
        code, _ = c.recv_close()
        self.assertEqual(code, 1000)
        self.assertEqual(c.sock.recv(10), b"")

    def test_push_from_task_worker(self):
        port = self.start(ECHO_SERVER)
        c = self.client(port)
        c.recv_frame()
        c.send_frame(1, b"task")
        self.assertEqual(c.recv_frame(), (True, 1, b"from task yes"))

    def test_close_from_task_worker(self):
        port = self.start(ECHO_SERVER)
        c = self.client(port)
        c.recv_frame()
        c.send_frame(1, b"taskclose")
        self.assertEqual(c.recv_close(), (1000, b""))
        self.assertEqual(c.sock.recv(10), b"")

    def test_abrupt_disconnect_fires_close_once(self):
        port = self.start(ECHO_SERVER)
        c = self.client(port)
        c.recv_frame()
        c.send_frame(1, b"info")
        fd = json.loads(c.recv_frame()[2])[7]
        c.sock.close()
        deadline = time.monotonic() + 5
        while not self.closes() and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.3)
        self.assertEqual(self.closes(), [fd])

    def test_heartbeat_closes_idle_connection(self):
        port = self.start(ECHO_SERVER)
        c = self.client(port)
        c.recv_frame()
        c.sock.settimeout(8)
        t0 = time.monotonic()
        self.assertEqual(c.sock.recv(10), b"")
        self.assertGreaterEqual(time.monotonic() - t0, 2.0)
        # close fires just after the socket is shut down.
        deadline = time.monotonic() + 5
        while not self.closes() and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertEqual(len(self.closes()), 1)

    def test_control_frames_to_message(self):
        """open_websocket_ping/pong/close_frame: the frames reach onMessage, as Swoole 6 does it."""
        port = self.start(CONTROL_SERVER)
        self.addCleanup(lambda: os.path.exists(self.close_log + ".msg") and os.unlink(self.close_log + ".msg"))
        c = self.client(port)
        c.send_frame(9, b"pi")
        self.assertEqual(c.recv_frame(), (True, 10, b"manual"))  # no automatic pong
        c.send_frame(10, b"po")
        c.send_frame(8, struct.pack("!H", 4001) + b"why")
        self.assertEqual(c.recv_close(), (4001, b"why"))
        self.assertEqual(c.sock.recv(10), b"")
        deadline = time.monotonic() + 5
        while not self.closes() and time.monotonic() < deadline:
            time.sleep(0.05)
        with open(self.close_log + ".msg") as f:
            lines = [json.loads(x) for x in f.read().split("\n") if x]
        self.assertEqual(lines, [
            ["Swoole\\WebSocket\\Frame", 9, 33, "pi", None, None],
            ["Swoole\\WebSocket\\Frame", 10, 33, "po", None, None],
            ["Swoole\\WebSocket\\CloseFrame", 8, 33, "", 4001, "why"],
        ])
        self.assertEqual(len(self.closes()), 1)

    def test_disconnect_with_code_and_reason(self):
        port = self.start(ECHO_SERVER)
        c = self.client(port)
        c.recv_frame()
        c.send_frame(1, b"bye")
        self.assertEqual(c.recv_close(), (4000, b"see you"))
        self.assertEqual(c.sock.recv(10), b"")

    def test_bad_input_close_codes(self):
        port = self.start(ECHO_SERVER)
        cases = [
            ("unmasked", lambda c: c.send_frame(1, b"hi", mask=False), 1002),
            ("bad utf-8", lambda c: c.send_frame(1, b"\xff\xfe\xfd"), 1007),
            ("too big", lambda c: c.send_frame(2, b"x" * 150000), 1009),
            ("bad opcode", lambda c: c.send_frame(3, b"x"), 1002),
            ("stray continuation", lambda c: c.send_frame(0, b"x"), 1002),
        ]
        healthy = self.client(port)
        healthy.recv_frame()
        for name, act, want in cases:
            with self.subTest(name):
                c = self.client(port)
                c.recv_frame()
                try:
                    act(c)
                except OSError:
                    pass  # the server may close before the whole oversize frame is written
                code, _ = c.recv_close()
                self.assertEqual(code, want)
        # Other connections are unaffected.
        healthy.send_frame(1, b"still here")
        self.assertEqual(healthy.recv_frame(), (True, 1, b"still here"))

    def test_seed_003_task_broadcast(self):
        src = SEED_003_SERVER.replace('"0.0.0.0", 9501', '"127.0.0.1", (int)$GLOBALS["argv"][1]')
        port = self.start(src)
        clients = [self.client(port) for _ in range(5)]
        clients[2].send_frame(1, b"hello everyone")
        for c in clients:
            self.assertEqual(c.recv_frame(), (True, 1, b"hello everyone"))
        clients[4].send_frame(1, b"second")
        for c in clients:
            self.assertEqual(c.recv_frame(), (True, 1, b"second"))

    def test_seed_003_broadcast_50_clients(self):
        src = SEED_003_SERVER.replace('"0.0.0.0", 9501', '"127.0.0.1", (int)$GLOBALS["argv"][1]')
        port = self.start(src)
        clients = [self.client(port) for _ in range(50)]
        clients[17].send_frame(1, b"to all fifty")
        for c in clients:
            self.assertEqual(c.recv_frame(), (True, 1, b"to all fifty"))


if __name__ == "__main__":
    unittest.main()
