//! An incremental HTTP/1.x request parser for `Swoole\Http\Request::parse()`:
//! bytes come in pieces, the head is parsed with `httparse` once it is whole,
//! then a `Content-Length` or chunked body is read; bytes after the end of
//! the message are not consumed.

use bytes::Bytes;
use http::{HeaderMap, HeaderName, HeaderValue, Method, Uri};

/// The parsed head of a request.
#[derive(Debug, Clone)]
pub struct Head {
    pub method: Method,
    pub uri: Uri,
    /// `HTTP/1.1` or `HTTP/1.0`.
    pub protocol: &'static str,
    pub headers: HeaderMap,
}

#[derive(Debug)]
enum State {
    Head,
    Length(usize),
    Chunked,
    Done,
    Failed,
}

/// What `feed` saw.
#[derive(Debug, PartialEq, Eq)]
pub enum Fed {
    /// This many bytes of the input were taken.
    Took(usize),
    /// The message is malformed; this many bytes were taken before.
    Error(usize),
}

#[derive(Debug)]
pub struct RequestParser {
    state: State,
    /// Head bytes so far, or the chunked body as sent (undecoded).
    pending: Vec<u8>,
    head: Option<Head>,
    body: Vec<u8>,
}

impl Default for RequestParser {
    fn default() -> Self {
        Self::new()
    }
}

const MAX_HEADERS: usize = 128;

impl RequestParser {
    pub fn new() -> Self {
        RequestParser {
            state: State::Head,
            pending: Vec::new(),
            head: None,
            body: Vec::new(),
        }
    }

    pub fn head(&self) -> Option<&Head> {
        self.head.as_ref()
    }

    /// The method, as soon as the request line's first word is in.
    pub fn method(&self) -> Option<Method> {
        if let Some(h) = &self.head {
            return Some(h.method.clone());
        }
        let sp = self.pending.iter().position(|&c| c == b' ')?;
        Method::from_bytes(&self.pending[..sp]).ok()
    }

    pub fn is_complete(&self) -> bool {
        matches!(self.state, State::Done)
    }

    /// The body read so far (a chunked one only once it is complete).
    pub fn body(&self) -> Bytes {
        Bytes::copy_from_slice(&self.body)
    }

    /// Feeds the next piece of the message.
    pub fn feed(&mut self, data: &[u8]) -> Fed {
        let mut took = 0;
        loop {
            let rest = &data[took..];
            match self.state {
                State::Done => return Fed::Took(took),
                State::Failed => return Fed::Error(took),
                State::Head => {
                    let before = self.pending.len();
                    self.pending.extend_from_slice(rest);
                    match self.parse_head() {
                        Ok(None) => return Fed::Took(data.len()),
                        Ok(Some(n)) => {
                            took += n - before;
                            self.pending.clear();
                        }
                        Err(()) => {
                            self.state = State::Failed;
                            return Fed::Error(took);
                        }
                    }
                }
                State::Length(left) => {
                    let n = left.min(rest.len());
                    self.body.extend_from_slice(&rest[..n]);
                    took += n;
                    if n == left {
                        self.state = State::Done;
                    } else {
                        self.state = State::Length(left - n);
                        return Fed::Took(took);
                    }
                }
                State::Chunked => {
                    let before = self.pending.len();
                    self.pending.extend_from_slice(rest);
                    match decode_chunked(&self.pending) {
                        Ok(None) => return Fed::Took(data.len()),
                        Ok(Some((end, body))) => {
                            took += end - before;
                            self.body = body;
                            self.pending.clear();
                            self.state = State::Done;
                        }
                        Err(()) => {
                            self.pending.truncate(before);
                            self.state = State::Failed;
                            return Fed::Error(took);
                        }
                    }
                }
            }
        }
    }

    /// `Ok(Some(n))`: the head is the first `n` bytes of `pending`.
    fn parse_head(&mut self) -> Result<Option<usize>, ()> {
        let mut hs = [httparse::EMPTY_HEADER; MAX_HEADERS];
        let mut req = httparse::Request::new(&mut hs);
        let n = match req.parse(&self.pending) {
            Ok(httparse::Status::Partial) => return Ok(None),
            Ok(httparse::Status::Complete(n)) => n,
            Err(_) => return Err(()),
        };
        let method = Method::from_bytes(req.method.unwrap_or("").as_bytes()).map_err(|_| ())?;
        let uri: Uri = req.path.unwrap_or("/").parse().map_err(|_| ())?;
        let protocol = if req.version == Some(0) {
            "HTTP/1.0"
        } else {
            "HTTP/1.1"
        };
        let mut headers = HeaderMap::new();
        let (mut length, mut chunked) = (None, false);
        for h in req.headers.iter() {
            let name = HeaderName::from_bytes(h.name.as_bytes()).map_err(|_| ())?;
            let value = HeaderValue::from_bytes(h.value).map_err(|_| ())?;
            if name == http::header::CONTENT_LENGTH {
                let v = std::str::from_utf8(h.value).map_err(|_| ())?;
                length = Some(v.trim().parse::<usize>().map_err(|_| ())?);
            } else if name == http::header::TRANSFER_ENCODING {
                chunked = h.value.to_ascii_lowercase().starts_with(b"chunked");
            }
            headers.append(name, value);
        }
        self.head = Some(Head {
            method,
            uri,
            protocol,
            headers,
        });
        self.state = match (chunked, length) {
            (true, _) => State::Chunked,
            (false, Some(len)) if len > 0 => State::Length(len),
            _ => State::Done,
        };
        Ok(Some(n))
    }
}

/// `Ok(Some((end, body)))` once `buf` holds a whole chunked body (its last
/// chunk and trailers end at `end`); `Ok(None)` while more is needed.
fn decode_chunked(buf: &[u8]) -> Result<Option<(usize, Vec<u8>)>, ()> {
    let mut at = 0;
    let mut body = Vec::new();
    loop {
        let (skip, size) = match httparse::parse_chunk_size(&buf[at..]) {
            Ok(httparse::Status::Complete(v)) => v,
            Ok(httparse::Status::Partial) => return Ok(None),
            Err(_) => return Err(()),
        };
        at += skip;
        if size == 0 {
            // Trailers, if any, then the empty line.
            loop {
                let Some(eol) = buf[at..].windows(2).position(|w| w == b"\r\n") else {
                    return Ok(None);
                };
                at += eol + 2;
                if eol == 0 {
                    return Ok(Some((at, body)));
                }
            }
        }
        let size = usize::try_from(size).map_err(|_| ())?;
        if buf.len() < at + size + 2 {
            return Ok(None);
        }
        body.extend_from_slice(&buf[at..at + size]);
        at += size;
        if &buf[at..at + 2] != b"\r\n" {
            return Err(());
        }
        at += 2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn head_in_pieces_then_extra_bytes_are_left() {
        let mut p = RequestParser::new();
        assert_eq!(p.feed(b"GET /a?x=1 HTTP/1.1\r\nHo"), Fed::Took(23));
        assert!(p.head().is_none());
        assert_eq!(p.feed(b"st: h\r\n\r\nEXTRA"), Fed::Took(9));
        assert!(p.is_complete());
        let head = p.head().map(|h| h.uri.to_string());
        assert_eq!(head.as_deref(), Some("/a?x=1"));
    }

    #[test]
    fn length_body_across_feeds() {
        let mut p = RequestParser::new();
        let first = b"POST / HTTP/1.0\r\nContent-Length: 7\r\n\r\na=1";
        assert_eq!(p.feed(first), Fed::Took(first.len()));
        assert!(!p.is_complete());
        assert_eq!(p.feed(b"&b=2xx"), Fed::Took(4));
        assert!(p.is_complete());
        assert_eq!(&p.body()[..], b"a=1&b=2");
    }

    #[test]
    fn chunked_body() {
        let mut p = RequestParser::new();
        let msg = b"PUT / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n";
        assert_eq!(p.feed(&msg[..50]), Fed::Took(50));
        assert_eq!(p.feed(&msg[50..]), Fed::Took(msg.len() - 50));
        assert!(p.is_complete());
        assert_eq!(&p.body()[..], b"abc");
    }

    #[test]
    fn garbage_is_an_error() {
        let mut p = RequestParser::new();
        assert_eq!(p.feed(b"garbage\r\n\r\n"), Fed::Error(0));
        assert!(!p.is_complete());
    }
}
