#!/usr/bin/env python3
"""A TLS far end for the rswoole client tests: HTTPS, WSS echo or raw TLS echo.

Usage: tls_peer.py MODE PORT CERT KEY [CLIENT_CA]
MODE is https, wss or echo. With CLIENT_CA the server requires a client
certificate signed by it. Prints READY once it listens; serves until killed or until its stdin closes
(the test process ended).
"""
import base64
import os
import hashlib
import http.server
import socket
import socketserver
import ssl
import struct
import sys
import threading
import time
import urllib.parse

mode, port, cert, key = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
client_ca = sys.argv[5] if len(sys.argv) > 5 else None

def _exit_with_parent():
    # The test holds our stdin open; EOF means it is gone (even killed).
    sys.stdin.read()
    os._exit(0)


threading.Thread(target=_exit_with_parent, daemon=True).start()

ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(cert, key)
if client_ca:
    ctx.verify_mode = ssl.CERT_REQUIRED
    ctx.load_verify_locations(client_ca)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def send(self, body, headers=()):
        self.send_response(200)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        u = urllib.parse.urlparse(self.path)
        q = urllib.parse.parse_qs(u.query)
        if u.path == "/slow":
            time.sleep(0.2)
            self.send(b"slow ok")
        elif u.path == "/br":
            # The compressed body comes from the test (base64 in the query).
            b64 = q["b64"][0]
            body = base64.urlsafe_b64decode(b64 + "=" * (-len(b64) % 4))
            self.send(body, [("Content-Encoding", "br"),
                             ("X-Accept-Encoding", self.headers.get("Accept-Encoding", ""))])
        elif u.path == "/whoami":
            pc = self.connection.getpeercert()
            cn = ""
            for rdn in (pc or {}).get("subject", ()):
                for k, v in rdn:
                    if k == "commonName":
                        cn = v
            self.send(("client=" + cn).encode())
        else:
            sni = getattr(self.connection, "rsw_sni", None) or ""
            self.send(("hello tls " + u.path + " sni=" + sni).encode())


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    request_queue_size = 256


def ws_serve(conn):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(4096)
        if not chunk:
            return
        data += chunk
    head = data.split(b"\r\n\r\n", 1)[0].decode()
    key = ""
    for line in head.split("\r\n")[1:]:
        k, _, v = line.partition(":")
        if k.strip().lower() == "sec-websocket-key":
            key = v.strip()
    acc = base64.b64encode(hashlib.sha1((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").encode()).digest())
    conn.sendall(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                 b"Sec-WebSocket-Accept: " + acc + b"\r\n\r\n")
    buf = b""

    def need(n):
        nonlocal buf
        while len(buf) < n:
            c = conn.recv(65536)
            if not c:
                raise EOFError
            buf += c
        out, buf = buf[:n], buf[n:]
        return out

    while True:
        b0, b1 = need(2)
        op, ln = b0 & 0x0F, b1 & 0x7F
        if ln == 126:
            ln = struct.unpack("!H", need(2))[0]
        elif ln == 127:
            ln = struct.unpack("!Q", need(8))[0]
        mask = need(4) if b1 & 0x80 else b"\0\0\0\0"
        payload = bytes(c ^ mask[i % 4] for i, c in enumerate(need(ln)))
        if op == 8:
            conn.sendall(bytes([0x88, len(payload)]) + payload)
            return
        reply = b"echo:" + payload
        n = len(reply)
        hdr = bytes([0x80 | op]) + (bytes([n]) if n < 126 else (bytes([126]) + struct.pack("!H", n) if n < 65536 else bytes([127]) + struct.pack("!Q", n)))
        conn.sendall(hdr + reply)


def raw_serve(conn):
    while True:
        d = conn.recv(65536)
        if not d:
            return
        conn.sendall(b"echo:" + d)


def stream_server(fn):
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", port))
    ls.listen(128)
    print("READY", flush=True)

    def one(c):
        try:
            with ctx.wrap_socket(c, server_side=True) as t:
                fn(t)
        except Exception:
            pass

    while True:
        c, _ = ls.accept()
        threading.Thread(target=one, args=(c,), daemon=True).start()


if mode == "https":
    ctx.sni_callback = lambda s, n, c: setattr(s, "rsw_sni", n)
    srv = Server(("127.0.0.1", port), Handler, bind_and_activate=False)
    srv.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.server_bind()
    srv.server_activate()

    orig_get = srv.get_request

    def get_request():
        s, a = orig_get()
        s.settimeout(10)
        try:
            t = ctx.wrap_socket(s, server_side=True)
        except Exception:
            s.close()
            raise OSError("handshake failed")
        return t, a

    srv.get_request = get_request
    print("READY", flush=True)
    srv.serve_forever()
elif mode == "wss":
    stream_server(ws_serve)
else:
    stream_server(raw_serve)
