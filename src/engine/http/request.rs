//! `HttpRequest`: one parsed request, owned bytes only, as the engine hands it
//! to the PHP layer.

use std::net::SocketAddr;

use bytes::Bytes;
use std::time::{SystemTime, UNIX_EPOCH};

use http::{HeaderMap, HeaderValue, Method, Uri, Version};

/// The request's header lines: hyper's map, or (the HTTP/1 fast path) the
/// lines where they are in the read buffer, names as sent.
#[derive(Debug, Clone)]
pub enum ReqHeaders {
    Map(HeaderMap),
    Raw(RawHeaders),
}

/// Header lines as ranges into the request's bytes (no map, no copy):
/// `[name start, name end, value start, value end]` per line, in arrival
/// order. The names are tokens (the fast path's scanner or httparse
/// checked them), in the case sent.
#[derive(Debug, Clone)]
pub struct RawHeaders {
    pub buf: Bytes,
    pub lines: Vec<[u32; 4]>,
    /// The index in `lines` of the first `Accept-Encoding` line (the parse
    /// saw it), `u32::MAX` for none: every request looks it up.
    pub accept_encoding: u32,
}

impl RawHeaders {
    fn name(&self, l: &[u32; 4]) -> &[u8] {
        &self.buf[l[0] as usize..l[1] as usize]
    }

    fn value(&self, l: &[u32; 4]) -> &[u8] {
        &self.buf[l[2] as usize..l[3] as usize]
    }
}

impl Default for ReqHeaders {
    fn default() -> Self {
        ReqHeaders::Map(HeaderMap::new())
    }
}

impl From<HeaderMap> for ReqHeaders {
    fn from(m: HeaderMap) -> Self {
        ReqHeaders::Map(m)
    }
}

impl ReqHeaders {
    /// The first value of header `name` (lower case).
    pub fn get(&self, name: &str) -> Option<&[u8]> {
        match self {
            ReqHeaders::Map(m) => m.get(name).map(HeaderValue::as_bytes),
            ReqHeaders::Raw(r) => r
                .lines
                .iter()
                .find(|l| r.name(l).eq_ignore_ascii_case(name.as_bytes()))
                .map(|l| r.value(l)),
        }
    }

    /// The first `Accept-Encoding` value (`get("accept-encoding")`).
    pub fn accept_encoding(&self) -> Option<&[u8]> {
        match self {
            ReqHeaders::Map(m) => m
                .get(http::header::ACCEPT_ENCODING)
                .map(HeaderValue::as_bytes),
            ReqHeaders::Raw(r) => r.lines.get(r.accept_encoding as usize).map(|l| r.value(l)),
        }
    }

    /// Every value of header `name` (lower case), in order.
    pub fn get_all(&self, name: &str) -> Vec<&[u8]> {
        match self {
            ReqHeaders::Map(m) => m.get_all(name).iter().map(HeaderValue::as_bytes).collect(),
            ReqHeaders::Raw(r) => r
                .lines
                .iter()
                .filter(|l| r.name(l).eq_ignore_ascii_case(name.as_bytes()))
                .map(|l| r.value(l))
                .collect(),
        }
    }

    /// True when header `name` (lower case) is there.
    pub fn contains(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// The names (lower case) in the order each first came, each with all
    /// its values in order (as a `HeaderMap` groups them).
    pub fn grouped(&self) -> Vec<(std::borrow::Cow<'_, str>, Vec<&[u8]>)> {
        match self {
            ReqHeaders::Map(m) => m
                .keys()
                .map(|k| {
                    let values = m.get_all(k).iter().map(HeaderValue::as_bytes).collect();
                    (std::borrow::Cow::Borrowed(k.as_str()), values)
                })
                .collect(),
            ReqHeaders::Raw(r) => {
                let mut out: Vec<(std::borrow::Cow<'_, str>, Vec<&[u8]>)> = Vec::new();
                for (i, l) in r.lines.iter().enumerate() {
                    let name = r.name(l);
                    if r.lines[..i]
                        .iter()
                        .any(|p| r.name(p).eq_ignore_ascii_case(name))
                    {
                        continue;
                    }
                    let values = r.lines[i..]
                        .iter()
                        .filter(|p| r.name(p).eq_ignore_ascii_case(name))
                        .map(|p| r.value(p))
                        .collect();
                    // A token is ASCII.
                    let lower = String::from_utf8_lossy(name).to_ascii_lowercase();
                    out.push((std::borrow::Cow::Owned(lower), values));
                }
                out
            }
        }
    }
}

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
    /// In arrival order (hyper's map: names lower-cased).
    pub headers: ReqHeaders,
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

/// Unix time now in seconds (fractional), read straight from the clock
/// (`SystemTime`'s `duration_since` costs as much again as the read).
fn unix_now() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid out-parameter for the call.
    if unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &mut ts) } == 0 {
        return ts.tv_sec as f64 + ts.tv_nsec as f64 / 1_000_000_000.0;
    }
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
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
        headers: ReqHeaders,
        body: Bytes,
        at: (SocketAddr, Option<SocketAddr>, u16),
    ) -> HttpRequest {
        let now = unix_now();
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
    pub fn header(&self, name: &str) -> Option<&[u8]> {
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
        for (k, values) in self.headers.grouped() {
            for v in values {
                out.extend_from_slice(k.as_bytes());
                out.extend_from_slice(b": ");
                out.extend_from_slice(v);
                out.extend_from_slice(b"\r\n");
            }
        }
        out.extend_from_slice(b"\r\n");
        out.extend_from_slice(&self.body);
        out
    }
}
