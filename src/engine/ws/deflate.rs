//! permessage-deflate (RFC 7692) for WebSocket: the handshake negotiation
//! and the per-message compression and decompression.
//!
//! rswoole always negotiates "no context takeover" in both directions (the
//! answer Swoole sends), so every message is compressed and decompressed on
//! its own: no per-connection zlib state, and a connection costs nothing more
//! when compression is on.

use flate2::{Compress, Compression, Decompress, FlushCompress, FlushDecompress, Status};

/// What rswoole answers to an offer it accepts (Swoole's exact answer).
pub const RESPONSE: &str =
    "permessage-deflate; client_no_context_takeover; server_no_context_takeover";

/// The trailer a sender strips from each compressed message (RFC 7692 §7.2.1).
const TAIL: [u8; 4] = [0x00, 0x00, 0xff, 0xff];

/// Picks the first `permessage-deflate` offer of the client's
/// `Sec-WebSocket-Extensions` values that rswoole can honour and returns the
/// response header value; `None` when there is none.
///
/// An offer is declined (RFC 7692 §5) when it has an unknown or repeated
/// parameter, a bad value, or `server_max_window_bits` below 15: flate2's
/// Rust backend always compresses with a 32 KiB window. The answer always
/// carries `client_no_context_takeover`, which a server may add to any offer
/// (§7.1.1.2), so each client message can be inflated on its own.
pub fn negotiate<'a>(values: impl IntoIterator<Item = &'a [u8]>) -> Option<String> {
    for value in values {
        let Ok(value) = std::str::from_utf8(value) else {
            continue;
        };
        for offer in value.split(',') {
            if let Some(resp) = accept_offer(offer) {
                return Some(resp);
            }
        }
    }
    None
}

fn accept_offer(offer: &str) -> Option<String> {
    let mut parts = offer.split(';').map(str::trim);
    if !parts.next()?.eq_ignore_ascii_case("permessage-deflate") {
        return None;
    }
    let mut seen: Vec<String> = Vec::new();
    let mut server_bits_15 = false;
    for p in parts {
        if p.is_empty() {
            return None;
        }
        let (name, value) = match p.split_once('=') {
            Some((n, v)) => (
                n.trim().to_ascii_lowercase(),
                Some(v.trim().trim_matches('"')),
            ),
            None => (p.to_ascii_lowercase(), None),
        };
        if seen.contains(&name) {
            return None;
        }
        let bits = |v: Option<&str>| {
            v.and_then(|v| v.parse::<u8>().ok())
                .filter(|b| (8..=15).contains(b))
        };
        match name.as_str() {
            "server_no_context_takeover" | "client_no_context_takeover" if value.is_none() => {}
            "client_max_window_bits" => {
                if value.is_some() && bits(value).is_none() {
                    return None;
                }
            }
            "server_max_window_bits" => match bits(value) {
                Some(15) => server_bits_15 = true,
                _ => return None,
            },
            _ => return None,
        }
        seen.push(name);
    }
    let mut resp = RESPONSE.to_string();
    if server_bits_15 {
        resp.push_str("; server_max_window_bits=15");
    }
    Some(resp)
}

/// Compresses one whole message: raw deflate, sync flush, the trailing
/// `00 00 ff ff` removed. `None` if zlib fails (the caller sends it plain).
pub fn compress(data: &[u8]) -> Option<Vec<u8>> {
    let mut c = Compress::new(Compression::default(), false);
    let mut out = Vec::with_capacity(data.len() / 2 + 64);
    loop {
        let consumed = c.total_in() as usize;
        let status = c
            .compress_vec(&data[consumed..], &mut out, FlushCompress::Sync)
            .ok()?;
        let done = c.total_in() as usize == data.len() && out.len() < out.capacity();
        if done || status == Status::StreamEnd {
            break;
        }
        out.reserve(out.capacity().max(4096));
    }
    if !out.ends_with(&TAIL) {
        return None;
    }
    out.truncate(out.len() - TAIL.len());
    Some(out)
}

/// Why a compressed message could not be inflated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InflateError {
    /// The result would pass the size limit (close code 1009).
    TooBig,
    /// Not a valid deflate stream (close code 1002).
    Corrupt,
}

impl InflateError {
    /// The WebSocket close code for this failure.
    pub fn close_code(self) -> u16 {
        match self {
            InflateError::TooBig => crate::engine::ws::close::MESSAGE_TOO_BIG,
            InflateError::Corrupt => crate::engine::ws::close::PROTOCOL_ERROR,
        }
    }
}

/// Inflates one whole message (the trailer is added back here), stopping as
/// soon as the output passes `max` bytes: a small "deflate bomb" costs at
/// most `max` bytes of memory.
pub fn decompress(data: &[u8], max: usize) -> Result<Vec<u8>, InflateError> {
    let mut input = Vec::with_capacity(data.len() + TAIL.len());
    input.extend_from_slice(data);
    input.extend_from_slice(&TAIL);
    let mut d = Decompress::new(false);
    let mut out: Vec<u8> = Vec::with_capacity((data.len() * 3).max(64).min(max.saturating_add(1)));
    loop {
        let consumed = d.total_in() as usize;
        let before = d.total_out();
        let status = d
            .decompress_vec(&input[consumed..], &mut out, FlushDecompress::Sync)
            .map_err(|_| InflateError::Corrupt)?;
        if out.len() > max {
            return Err(InflateError::TooBig);
        }
        let all_in = d.total_in() as usize == input.len();
        if status == Status::StreamEnd || (all_in && out.len() < out.capacity()) {
            return Ok(out);
        }
        if out.len() == out.capacity() {
            let grow = out.capacity().max(4096).min(max + 1 - out.len());
            out.reserve(grow.max(1));
        } else if d.total_out() == before && d.total_in() as usize == consumed {
            // No progress with room left: the stream is truncated or broken.
            return Err(InflateError::Corrupt);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negotiation() {
        let n = |s: &str| negotiate([s.as_bytes()]);
        assert_eq!(n("permessage-deflate").as_deref(), Some(RESPONSE));
        assert_eq!(
            n("permessage-deflate; client_max_window_bits").as_deref(),
            Some(RESPONSE)
        );
        assert_eq!(
            n("permessage-deflate; server_no_context_takeover; client_no_context_takeover")
                .as_deref(),
            Some(RESPONSE)
        );
        assert_eq!(
            n("permessage-deflate; server_max_window_bits=15").unwrap(),
            format!("{RESPONSE}; server_max_window_bits=15")
        );
        // A 10-bit server window cannot be honoured: the next offer is taken.
        assert_eq!(
            n("permessage-deflate; server_max_window_bits=10, permessage-deflate").as_deref(),
            Some(RESPONSE)
        );
        assert_eq!(n("permessage-deflate; server_max_window_bits=10"), None);
        assert_eq!(n("permessage-deflate; foo"), None);
        assert_eq!(n("permessage-deflate; client_max_window_bits=99"), None);
        assert_eq!(
            n("permessage-deflate; server_no_context_takeover; server_no_context_takeover"),
            None
        );
        assert_eq!(n("x-webkit-deflate-frame"), None);
        assert_eq!(negotiate(std::iter::empty()), None);
    }

    #[test]
    fn roundtrip_and_rfc_example() {
        // RFC 7692 §7.2.3.1: "Hello" compressed without context takeover.
        let hello = [0xf2, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00];
        assert_eq!(decompress(&hello, 100).unwrap(), b"Hello");
        let c = compress(b"Hello").unwrap();
        assert_eq!(decompress(&c, 100).unwrap(), b"Hello");
        let big: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        let c = compress(&big).unwrap();
        assert!(c.len() < big.len());
        assert_eq!(decompress(&c, big.len()).unwrap(), big);
        assert_eq!(decompress(&compress(b"").unwrap(), 10).unwrap(), b"");
    }

    #[test]
    fn limits_and_garbage() {
        let zeros = vec![0u8; 1_000_000];
        let c = compress(&zeros).unwrap();
        assert!(c.len() < 5000);
        assert_eq!(decompress(&c, 10_000), Err(InflateError::TooBig));
        assert_eq!(decompress(&c, 1_000_000).unwrap().len(), 1_000_000);
        assert_eq!(
            decompress(&[0xff, 0xff, 0xff], 100),
            Err(InflateError::Corrupt)
        );
        assert_eq!(InflateError::TooBig.close_code(), 1009);
    }
}
