//! `HttpRequest`: one parsed request, owned bytes only, as the engine hands it
//! to the PHP layer.

use std::net::SocketAddr;

use bytes::Bytes;

#[derive(Debug, Clone)]
pub struct HttpRequest {
    /// Connection id (`$request->fd`).
    pub fd: i64,
    pub method: String,
    /// The request target as sent (`/path?query`).
    pub uri: String,
    pub path: String,
    pub query: Option<String>,
    /// `HTTP/1.1` or `HTTP/1.0`.
    pub protocol: &'static str,
    /// Names lower-cased, in arrival order; values as bytes.
    pub headers: Vec<(String, Bytes)>,
    pub body: Bytes,
    pub peer: SocketAddr,
    pub server_port: u16,
    /// Unix time (seconds, fractional) when the request head was complete.
    pub time: f64,
    /// Unix time (seconds) the connection's last data arrived: Swoole's `master_time`.
    pub master_time: i64,
}

impl HttpRequest {
    /// The first header called `name` (lower-case).
    pub fn header(&self, name: &str) -> Option<&Bytes> {
        self.headers.iter().find(|(k, _)| k == name).map(|(_, v)| v)
    }

    /// The raw request as text: request line, headers and body (`getData()`).
    /// hyper does not keep the bytes it parsed, so this is rebuilt from them.
    pub fn raw(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(128 + self.body.len());
        out.extend_from_slice(self.method.as_bytes());
        out.push(b' ');
        out.extend_from_slice(self.uri.as_bytes());
        out.push(b' ');
        out.extend_from_slice(self.protocol.as_bytes());
        out.extend_from_slice(b"\r\n");
        for (k, v) in &self.headers {
            out.extend_from_slice(k.as_bytes());
            out.extend_from_slice(b": ");
            out.extend_from_slice(v);
            out.extend_from_slice(b"\r\n");
        }
        out.extend_from_slice(b"\r\n");
        out.extend_from_slice(&self.body);
        out
    }
}
