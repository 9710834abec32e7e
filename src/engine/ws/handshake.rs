//! The WebSocket opening handshake's key (RFC 6455 §4.2.2): SHA-1 and
//! base64 from the RustCrypto `sha1` and the `base64` crates, never our own.

use base64::Engine as _;
use sha1::{Digest, Sha1};

/// RFC 6455's GUID, appended to the client's key before hashing.
const GUID: &str = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

/// `Sec-WebSocket-Accept` for a client's `Sec-WebSocket-Key`.
pub fn accept_key(key: &[u8]) -> String {
    let mut h = Sha1::new();
    h.update(key);
    h.update(GUID.as_bytes());
    base64_encode(&h.finalize())
}

/// Standard base64 with padding (the client's `Sec-WebSocket-Key`, PEM
/// bodies, Basic auth).
pub fn base64_encode(data: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_key_rfc_example() {
        assert_eq!(
            accept_key(b"dGhlIHNhbXBsZSBub25jZQ=="),
            "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
        );
    }

    #[test]
    fn base64_pads() {
        assert_eq!(base64_encode(b""), "");
        assert_eq!(base64_encode(b"f"), "Zg==");
        assert_eq!(base64_encode(b"fo"), "Zm8=");
        assert_eq!(base64_encode(b"foo"), "Zm9v");
    }
}
