//! WebSocket close frames (RFC 6455 §5.5.1, §7.4): every status code named
//! once, which codes a peer may send, and the one parse and one encode of a
//! close payload (`CloseFrame`), for the server, the coroutine client and
//! the PHP `CloseFrame` objects alike.

use bytes::{BufMut, Bytes, BytesMut};

/// `WEBSOCKET_CLOSE_NORMAL`.
pub const NORMAL: u16 = 1000;
/// `WEBSOCKET_CLOSE_GOING_AWAY`: the server is stopping.
pub const GOING_AWAY: u16 = 1001;
/// `WEBSOCKET_CLOSE_PROTOCOL_ERROR`: a frame or close payload that breaks
/// the protocol.
pub const PROTOCOL_ERROR: u16 = 1002;
/// `WEBSOCKET_CLOSE_DATA_ERROR`: a kind of data the endpoint cannot take.
pub const DATA_ERROR: u16 = 1003;
/// Reserved (1004): never sent, never accepted.
pub const RESERVED: u16 = 1004;
/// `WEBSOCKET_CLOSE_STATUS_ERROR`: "no status code" (never on the wire).
pub const STATUS_ERROR: u16 = 1005;
/// `WEBSOCKET_CLOSE_ABNORMAL`: closed without a close frame (never on the wire).
pub const ABNORMAL: u16 = 1006;
/// `WEBSOCKET_CLOSE_MESSAGE_ERROR`: a text message or close reason that is
/// not UTF-8.
pub const MESSAGE_ERROR: u16 = 1007;
/// `WEBSOCKET_CLOSE_POLICY_ERROR`.
pub const POLICY_ERROR: u16 = 1008;
/// `WEBSOCKET_CLOSE_MESSAGE_TOO_BIG`: a message over `package_max_length`.
pub const MESSAGE_TOO_BIG: u16 = 1009;
/// `WEBSOCKET_CLOSE_EXTENSION_MISSING`.
pub const EXTENSION_MISSING: u16 = 1010;
/// `WEBSOCKET_CLOSE_SERVER_ERROR`.
pub const SERVER_ERROR: u16 = 1011;
/// `WEBSOCKET_CLOSE_CLOSE_SERVICE_RESTART`.
pub const SERVICE_RESTART: u16 = 1012;
/// `WEBSOCKET_CLOSE_TRY_AGAIN_LATER`.
pub const TRY_AGAIN_LATER: u16 = 1013;
/// `WEBSOCKET_CLOSE_BAD_GATEWAY`.
pub const BAD_GATEWAY: u16 = 1014;
/// `WEBSOCKET_CLOSE_TLS`: the TLS handshake failed (never on the wire).
pub const TLS: u16 = 1015;

/// Older names of `MESSAGE_ERROR` and `MESSAGE_TOO_BIG`, still used by the
/// connection task in `ws` (being rewritten in parallel); drop them once it
/// uses the names above.
pub const INVALID_DATA: u16 = MESSAGE_ERROR;
pub const TOO_BIG: u16 = MESSAGE_TOO_BIG;

/// Swoole's `WEBSOCKET_CLOSE_*` constants (without the prefix), in order.
pub const SWOOLE_NAMES: [(&str, u16); 15] = [
    ("NORMAL", NORMAL),
    ("GOING_AWAY", GOING_AWAY),
    ("PROTOCOL_ERROR", PROTOCOL_ERROR),
    ("DATA_ERROR", DATA_ERROR),
    ("STATUS_ERROR", STATUS_ERROR),
    ("ABNORMAL", ABNORMAL),
    ("MESSAGE_ERROR", MESSAGE_ERROR),
    ("POLICY_ERROR", POLICY_ERROR),
    ("MESSAGE_TOO_BIG", MESSAGE_TOO_BIG),
    ("EXTENSION_MISSING", EXTENSION_MISSING),
    ("SERVER_ERROR", SERVER_ERROR),
    ("CLOSE_SERVICE_RESTART", SERVICE_RESTART),
    ("TRY_AGAIN_LATER", TRY_AGAIN_LATER),
    ("BAD_GATEWAY", BAD_GATEWAY),
    ("TLS", TLS),
];

/// A close reason is at most 123 bytes: a control frame carries at most
/// 125, two of them the code.
pub const MAX_REASON: usize = 123;

/// Codes a peer may put on the wire: 1000-1003 and 1007-1014 (the defined
/// and IANA-registered ones; 1004-1006 and 1015 are reserved or must never
/// be sent), and 3000-4999 (libraries, applications).
pub fn is_valid(code: u16) -> bool {
    matches!(code, NORMAL..=DATA_ERROR | MESSAGE_ERROR..=BAD_GATEWAY | 3000..=4999)
}

/// What a close frame says: its status code and reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CloseFrame {
    pub code: u16,
    pub reason: Bytes,
}

impl CloseFrame {
    pub fn new(code: u16, reason: Bytes) -> Self {
        CloseFrame { code, reason }
    }

    /// A close payload read as Swoole 6.2.2 fills a `CloseFrame` object
    /// (server `onMessage`, client `recv()`, `unpack()`): the code and the
    /// reason bytes as they are; a payload shorter than two bytes has no
    /// code and reads as `NORMAL` with no reason (the property's default).
    pub fn read(payload: &Bytes) -> Self {
        if payload.len() < 2 {
            return CloseFrame::new(NORMAL, Bytes::new());
        }
        CloseFrame::new(
            u16::from_be_bytes([payload[0], payload[1]]),
            payload.slice(2..),
        )
    }

    /// A peer's close payload checked (RFC 6455 §5.5.1, §7.4): `Ok` with
    /// what it says (an empty payload: `NORMAL`, no reason), or `Err` with
    /// the code to close with instead (a 1-byte payload or a code that may
    /// not be sent: `PROTOCOL_ERROR`; a reason that is not UTF-8:
    /// `MESSAGE_ERROR`).
    pub fn parse(payload: &Bytes) -> Result<Self, u16> {
        if payload.len() == 1 {
            return Err(PROTOCOL_ERROR);
        }
        let f = CloseFrame::read(payload);
        if !payload.is_empty() && !is_valid(f.code) {
            return Err(PROTOCOL_ERROR);
        }
        if std::str::from_utf8(&f.reason).is_err() {
            return Err(MESSAGE_ERROR);
        }
        Ok(f)
    }

    /// The close payload: the code, then at most `MAX_REASON` bytes of reason.
    pub fn encode(&self) -> BytesMut {
        encode(self.code, &self.reason)
    }
}

/// `CloseFrame::encode` without building one: the payload for `code` and
/// `reason` (cut to `MAX_REASON` bytes).
pub fn encode(code: u16, reason: &[u8]) -> BytesMut {
    let reason = &reason[..reason.len().min(MAX_REASON)];
    let mut p = BytesMut::with_capacity(2 + reason.len());
    p.put_u16(code);
    p.extend_from_slice(reason);
    p
}

/// A peer's close payload checked (`CloseFrame::parse`) as a pair.
pub fn parse(payload: &Bytes) -> Result<(u16, Bytes), u16> {
    CloseFrame::parse(payload).map(|f| (f.code, f.reason))
}

/// What to answer a peer's close frame with: its own code and reason when
/// valid (`NORMAL` for an empty payload), else the error code, no reason.
pub fn answer(payload: &Bytes) -> (u16, Bytes) {
    parse(payload).unwrap_or_else(|code| (code, Bytes::new()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(b: &[u8]) -> Result<CloseFrame, u16> {
        CloseFrame::parse(&Bytes::copy_from_slice(b))
    }

    #[test]
    fn every_code_that_may_not_be_sent_gets_protocol_error() {
        for code in 0..=u16::MAX {
            let sendable = matches!(code, 1000..=1003 | 1007..=1014 | 3000..=4999);
            assert_eq!(is_valid(code), sendable, "{code}");
            let got = p(&code.to_be_bytes());
            if sendable {
                assert_eq!(got, Ok(CloseFrame::new(code, Bytes::new())), "{code}");
            } else {
                assert_eq!(got, Err(PROTOCOL_ERROR), "{code}");
            }
        }
        for code in [0u16, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000] {
            assert_eq!(p(&code.to_be_bytes()), Err(1002), "{code}");
        }
    }

    #[test]
    fn one_byte_payload_is_a_protocol_error() {
        for b in [0u8, 3, 0xe8, 0xff] {
            assert_eq!(p(&[b]), Err(PROTOCOL_ERROR));
        }
    }

    #[test]
    fn reason_must_be_utf8() {
        assert_eq!(p(b"\x03\xe8\xff\xfe"), Err(MESSAGE_ERROR));
        assert_eq!(p(b"\x03\xe8\xc3"), Err(1007));
        // An invalid code is reported before the reason.
        assert_eq!(p(b"\x00\x00\xff"), Err(PROTOCOL_ERROR));
        let f = p(b"\x0f\xa0h\xc3\xa9").expect("valid");
        assert_eq!((f.code, &f.reason[..]), (4000, "h\u{e9}".as_bytes()));
    }

    #[test]
    fn empty_payload_reads_as_normal() {
        assert_eq!(p(b""), Ok(CloseFrame::new(NORMAL, Bytes::new())));
        assert_eq!(answer(&Bytes::new()), (NORMAL, Bytes::new()));
        // Swoole's CloseFrame object: no code on the wire, 1000 in `code`.
        for short in [&b""[..], b"\x03"] {
            let f = CloseFrame::read(&Bytes::copy_from_slice(short));
            assert_eq!(f, CloseFrame::new(1000, Bytes::new()));
        }
        // read() never checks: an invalid code shows as it was sent.
        let f = CloseFrame::read(&Bytes::from_static(b"\x03\xe7\xff"));
        assert_eq!((f.code, &f.reason[..]), (999, &b"\xff"[..]));
    }

    #[test]
    fn answers_carry_the_error_code() {
        assert_eq!(answer(&Bytes::from_static(b"\x03")), (1002, Bytes::new()));
        assert_eq!(
            answer(&Bytes::from_static(b"\x03\xe8\xff")),
            (1007, Bytes::new())
        );
        assert_eq!(
            answer(&Bytes::from_static(b"\x0f\xa1why")),
            (4001, Bytes::from_static(b"why"))
        );
    }

    #[test]
    fn round_trip() {
        for (code, reason) in [
            (NORMAL, &b""[..]),
            (GOING_AWAY, b"bye"),
            (4999, "\u{263a} ok".as_bytes()),
        ] {
            let f = CloseFrame::new(code, Bytes::copy_from_slice(reason));
            let wire = f.encode().freeze();
            assert_eq!(&wire[..2], &code.to_be_bytes());
            assert_eq!(CloseFrame::parse(&wire), Ok(f.clone()));
            assert_eq!(CloseFrame::read(&wire), f);
        }
        assert_eq!(&encode(1002, b"")[..], b"\x03\xea");
        // The reason is cut so the payload fits a control frame.
        let long = CloseFrame::new(NORMAL, Bytes::from(vec![b'x'; 200]));
        assert_eq!(long.encode().len(), 125);
    }

    #[test]
    fn swoole_names_match_the_rfc_numbers() {
        let codes: Vec<u16> = SWOOLE_NAMES.iter().map(|n| n.1).collect();
        let want: Vec<u16> = (1000..=1015).filter(|&c| c != 1004).collect();
        assert_eq!(codes, want);
    }
}
