//! `HttpRequest`: one parsed request, owned bytes only, as the engine hands it
//! to the PHP layer.

use std::net::SocketAddr;

use bytes::Bytes;
use std::time::{SystemTime, UNIX_EPOCH};

use http::{HeaderMap, HeaderValue, Method, Uri, Version};

/// hyper's parsed head is kept as it is (no copies on the hot path); the
/// PHP layer turns it into arrays only when a script reads them.
#[derive(Debug, Clone)]
pub struct HttpRequest {
    /// Connection id (`$request->fd`).
    pub fd: i64,
    pub method: Method,
    /// The request target as sent (`/path?query`).
    pub uri: Uri,
    /// `HTTP/1.1`, `HTTP/1.0` or `HTTP/2`.
    pub protocol: &'static str,
    /// HTTP/2: the stream's id (`$request->streamId`); 0 over HTTP/1.
    pub stream_id: u32,
    /// Names lower-cased, in arrival order.
    pub headers: HeaderMap,
    pub body: Bytes,
    pub peer: SocketAddr,
    /// The server's end of the connection (`server_addr`), when known.
    pub local: Option<SocketAddr>,
    pub server_port: u16,
    /// Unix time (seconds, fractional) when the request head was complete.
    pub time: f64,
    /// Unix time (seconds) the connection's last data arrived: Swoole's `master_time`.
    pub master_time: i64,
}

impl HttpRequest {
    /// A request whose head is complete now; `at` is the connection's
    /// `(peer, local address, local port)`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        fd: i64,
        version: Version,
        stream_id: u32,
        method: Method,
        uri: Uri,
        headers: HeaderMap,
        body: Bytes,
        at: (SocketAddr, Option<SocketAddr>, u16),
    ) -> HttpRequest {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs_f64())
            .unwrap_or(0.0);
        HttpRequest {
            fd,
            protocol: match version {
                Version::HTTP_10 => "HTTP/1.0",
                Version::HTTP_2 => "HTTP/2",
                _ => "HTTP/1.1",
            },
            stream_id,
            method,
            uri,
            headers,
            body,
            peer: at.0,
            local: at.1,
            server_port: at.2,
            time: now,
            master_time: now as i64,
        }
    }

    /// The first header called `name` (lower-case).
    pub fn header(&self, name: &str) -> Option<&HeaderValue> {
        self.headers.get(name)
    }

    pub fn path(&self) -> &str {
        self.uri.path()
    }

    pub fn query(&self) -> Option<&str> {
        self.uri.query()
    }

    /// The raw request as text: request line, headers and body (`getData()`).
    /// hyper does not keep the bytes it parsed, so this is rebuilt from them.
    pub fn raw(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(128 + self.body.len());
        out.extend_from_slice(self.method.as_str().as_bytes());
        out.push(b' ');
        out.extend_from_slice(self.uri.to_string().as_bytes());
        out.push(b' ');
        out.extend_from_slice(self.protocol.as_bytes());
        out.extend_from_slice(b"\r\n");
        for (k, v) in &self.headers {
            out.extend_from_slice(k.as_str().as_bytes());
            out.extend_from_slice(b": ");
            out.extend_from_slice(v.as_bytes());
            out.extend_from_slice(b"\r\n");
        }
        out.extend_from_slice(b"\r\n");
        out.extend_from_slice(&self.body);
        out
    }
}
