# Swoole\WebSocket\Server driven by the real `websockets` library (Debian's python3-websockets, 10.x asyncio client).
"""Run with: RSWOOLE_SO=/path/to/librswoole.so python3 -m unittest discover -s tests/integration -p 'test_websockets_lib.py' -v

One PHP server (2 workers, websocket_compression on, package_max_length 100000) serves the whole class on a
free 127.0.0.1 port and is stopped by pid in tearDownClass. Every await is bounded by asyncio.wait_for. Bad
input is written raw through the library's transport after a library handshake, while a second library
connection stays open and must keep echoing.
"""

import asyncio
import contextlib
import json
import os
import struct
import sys
import tempfile
import time
import unittest

try:
    import websockets
except ImportError:  # pyenv's python3 does not see Debian's dist-packages (same 3.x, pure Python).
    sys.path.append("/usr/lib/python3/dist-packages")
    try:
        import websockets
    except ImportError as e:
        raise ImportError("the websockets library is required: apt-get install python3-websockets (make deps)") from e

import websockets.client
import websockets.exceptions

from test_http import ServerProcess

T = 5.0  # seconds any single await may take

SERVER = r"""<?php
$port = (int)$argv[1];
$log = getenv('RSW_WSL_LOG');
$s = new Swoole\WebSocket\Server('127.0.0.1', $port);
$s->set(['worker_num' => 2, 'package_max_length' => 100000, 'websocket_compression' => true,
         'log_level' => SWOOLE_LOG_WARNING]);
$s->on('message', function ($s, $f) use ($log) {
    if ($f->data === 'count') {
        $n = 0;
        foreach ($s->connections as $fd) {
            $n += $s->isEstablished($fd) ? 1 : 0;
        }
        $s->push($f->fd, (string)$n);
        return;
    }
    if ($f->data === 'fd') {
        $s->push($f->fd, (string)$f->fd);
        return;
    }
    if ($f->data === 'bye') {
        $s->disconnect($f->fd, 4000, 'bye');
        return;
    }
    if (str_starts_with($f->data, 'info:')) {
        $s->push($f->fd, json_encode(['compressed' => ($f->flags & SWOOLE_WEBSOCKET_FLAG_COMPRESS) !== 0,
                                      'len' => strlen($f->data), 'md5' => md5($f->data)]));
        return;
    }
    $s->push($f->fd, $f->data, $f->opcode);
});
$s->on('close', function ($s, $fd) use ($log) {
    file_put_contents($log, "close $fd\n", FILE_APPEND);
});
$s->start();
"""


def masked(b0, payload, length=None):
    """A client frame with first byte b0 and a mask (length may lie, to announce more than is sent)."""
    n = len(payload) if length is None else length
    if n < 126:
        head = bytes([b0, 0x80 | n])
    elif n < 65536:
        head = bytes([b0, 0x80 | 126]) + struct.pack("!H", n)
    else:
        head = bytes([b0, 0x80 | 127]) + struct.pack("!Q", n)
    mask = os.urandom(4)
    return head + mask + bytes(b ^ mask[i & 3] for i, b in enumerate(payload))


class WebsocketsLibTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        f = tempfile.NamedTemporaryFile(prefix="rsw_wsl_", suffix=".php", delete=False, mode="w")
        f.write(SERVER)
        f.close()
        cls.script = f.name
        log = tempfile.NamedTemporaryFile(prefix="rsw_wsl_close_", delete=False)
        log.close()
        cls.log = log.name
        os.environ["RSW_WSL_LOG"] = cls.log
        cls.server = ServerProcess(cls.script)
        cls.uri = "ws://127.0.0.1:%d/" % cls.server.port

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()
        for p in (cls.script, cls.log):
            try:
                os.unlink(p)
            except OSError:
                pass

    def run_async(self, coro, timeout=30):
        return asyncio.run(asyncio.wait_for(coro, timeout))

    def connect(self, **kw):
        kw.setdefault("compression", None)
        kw.setdefault("open_timeout", T)
        kw.setdefault("close_timeout", T)
        return asyncio.wait_for(websockets.client.connect(self.uri, **kw), T)

    @contextlib.asynccontextmanager
    async def client(self, **kw):
        """A connected client, closed (bounded) on the way out."""
        ws = await self.connect(**kw)
        try:
            yield ws
        finally:
            await asyncio.wait_for(ws.close(), T)

    async def roundtrip(self, ws, msg):
        await asyncio.wait_for(ws.send(msg), T)
        return await asyncio.wait_for(ws.recv(), T)

    async def closed_with(self, ws):
        """Waits (bounded) for the server's close; returns (code, reason)."""
        try:
            while True:
                await asyncio.wait_for(ws.recv(), T)
        except websockets.exceptions.ConnectionClosed:
            pass
        await asyncio.wait_for(ws.wait_closed(), T)
        return ws.close_code, ws.close_reason

    def closes(self):
        with open(self.log) as f:
            return f.read().split("\n")

    # ---- plain messaging -------------------------------------------------------------------

    def test_echo_text_and_70k_binary(self):
        async def go():
            async with self.client() as ws:
                self.assertEqual(await self.roundtrip(ws, "héllo"), "héllo")
                blob = os.urandom(70_000)
                got = await self.roundtrip(ws, blob)
                self.assertIsInstance(got, bytes)
                self.assertEqual(got, blob)
        self.run_async(go())

    def test_fragmented_send_is_joined(self):
        async def go():
            async with self.client() as ws:
                await asyncio.wait_for(ws.send(["frag1-", "frag2-", "frag3"]), T)
                self.assertEqual(await asyncio.wait_for(ws.recv(), T), "frag1-frag2-frag3")
                await asyncio.wait_for(ws.send([b"\x00\x01", b"\x02"]), T)
                self.assertEqual(await asyncio.wait_for(ws.recv(), T), b"\x00\x01\x02")
        self.run_async(go())

    def test_ping_is_answered(self):
        async def go():
            async with self.client() as ws:
                waiter = await asyncio.wait_for(ws.ping(b"are you there"), T)
                await asyncio.wait_for(waiter, T)
                # Still a working connection afterwards.
                self.assertEqual(await self.roundtrip(ws, "after ping"), "after ping")
        self.run_async(go())

    def test_50_clients_seen_in_connections(self):
        async def go():
            clients = await asyncio.gather(*[self.connect() for _ in range(50)])
            try:
                # Each answers its own echo, so all 50 handshakes are done and owned by a worker.
                for i, ws in enumerate(clients):
                    self.assertEqual(await self.roundtrip(ws, "c%d" % i), "c%d" % i)
                self.assertEqual(await self.roundtrip(clients[0], "count"), "50")
                self.assertEqual(await self.roundtrip(clients[49], "count"), "50")
            finally:
                await asyncio.wait_for(asyncio.gather(*[ws.close() for ws in clients]), 15)
            # Once they are gone, a new client sees only itself.
            deadline = time.monotonic() + T
            async with self.client() as ws:
                while True:
                    n = await self.roundtrip(ws, "count")
                    if n == "1" or time.monotonic() > deadline:
                        break
                    await asyncio.sleep(0.05)
                self.assertEqual(n, "1")
        self.run_async(go(), timeout=60)

    def test_disconnect_with_code_and_reason(self):
        async def go():
            async with self.client() as ws:
                await asyncio.wait_for(ws.send("bye"), T)
                self.assertEqual(await self.closed_with(ws), (4000, "bye"))
        self.run_async(go())

    def test_compression_negotiated_and_echoed(self):
        async def go():
            async with self.client(compression="deflate") as ws:
                ext = ws.response_headers.get("Sec-WebSocket-Extensions", "")
                self.assertTrue(ext.startswith("permessage-deflate"), ext)
                self.assertEqual([e.name for e in ws.extensions], ["permessage-deflate"])
                text = "info:" + "compress me please " * 3000
                info = json.loads(await self.roundtrip(ws, text))
                self.assertEqual(info["len"], len(text))
                self.assertTrue(info["compressed"], info)
                big = "abc" * 20000
                self.assertEqual(await self.roundtrip(ws, big), big)
                blob = os.urandom(50_000)
                self.assertEqual(await self.roundtrip(ws, blob), blob)
                self.assertEqual(await self.roundtrip(ws, "é"), "é")
            # Without the offer nothing is negotiated.
            async with self.client(compression=None) as ws:
                self.assertNotIn("Sec-WebSocket-Extensions", ws.response_headers)
                info = json.loads(await self.roundtrip(ws, "info:x"))
                self.assertFalse(info["compressed"])
        self.run_async(go())

    # ---- bad input: each closes with its code, a second connection keeps working ---------------

    def bad_input(self, raw, code):
        async def go():
            async with self.client() as keeper:
                self.assertEqual(await self.roundtrip(keeper, "before"), "before")
                async with self.client() as ws:
                    self.assertEqual(await self.roundtrip(ws, "ok"), "ok")
                    ws.transport.write(raw)
                    got, _ = await self.closed_with(ws)
                    self.assertEqual(got, code)
                self.assertEqual(await self.roundtrip(keeper, "after"), "after")
        self.run_async(go())

    def test_unmasked_frame_1002(self):
        self.bad_input(b"\x81\x02hi", 1002)

    def test_rsv2_bit_1002(self):
        self.bad_input(masked(0xA1, b"x"), 1002)

    def test_reserved_opcode_1002(self):
        self.bad_input(masked(0x83, b"x"), 1002)

    def test_rsv1_without_compression_1002(self):
        self.bad_input(masked(0xC1, b"x"), 1002)

    def test_invalid_utf8_text_1007(self):
        self.bad_input(masked(0x81, b"ok \xff\xfe"), 1007)

    def test_announced_oversize_frame_1009_at_once(self):
        # 50 MB announced, 10 bytes sent: the header alone must get 1009.
        self.bad_input(masked(0x82, b"0123456789", length=50_000_000)[:24], 1009)

    def test_oversize_message_sent_by_library_1009(self):
        async def go():
            async with self.client() as keeper:
                async with self.client() as ws:
                    try:
                        await asyncio.wait_for(ws.send(b"x" * 150_000), T)
                    except websockets.exceptions.ConnectionClosed:
                        pass
                    got, _ = await self.closed_with(ws)
                    self.assertEqual(got, 1009)
                self.assertEqual(await self.roundtrip(keeper, "still"), "still")
        self.run_async(go())

    def test_abrupt_disconnect_fires_close_once(self):
        async def go():
            async with self.client() as keeper:
                async with self.client() as ws:
                    fd = await self.roundtrip(ws, "fd")
                    ws.transport.abort()
                line = "close %s" % fd
                deadline = time.monotonic() + T
                while line not in self.closes() and time.monotonic() < deadline:
                    await asyncio.sleep(0.05)
                await asyncio.sleep(0.5)  # a second close event would be logged by now
                self.assertEqual(self.closes().count(line), 1, self.closes())
                self.assertEqual(await self.roundtrip(keeper, "alive"), "alive")
        self.run_async(go())


if __name__ == "__main__":
    unittest.main()
