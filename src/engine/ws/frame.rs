//! WebSocket frames (RFC 6455 §5): the codec shared by the server
//! (`engine::ws`), the coroutine client (`engine::client::http`) and
//! `WebSocket\Server::pack()`/`unpack()`: parse a client's or a server's
//! frame, encode one (masked or not), and Swoole's `pack`/`unpack`.

use bytes::{Buf, BufMut, Bytes, BytesMut};

use crate::engine::ws::close;

pub const OP_CONTINUATION: u8 = 0;
pub const OP_TEXT: u8 = 1;
pub const OP_BINARY: u8 = 2;
pub const OP_CLOSE: u8 = 8;
pub const OP_PING: u8 = 9;
pub const OP_PONG: u8 = 10;

/// `SWOOLE_WEBSOCKET_FLAG_FIN`.
pub const FLAG_FIN: u8 = 1;
/// `SWOOLE_WEBSOCKET_FLAG_COMPRESS`: compress this message (when negotiated).
pub const FLAG_COMPRESS: u8 = 2;
/// `SWOOLE_WEBSOCKET_FLAG_RSV1`: set on a compressed message.
pub const FLAG_RSV1: u8 = 4;
/// `SWOOLE_WEBSOCKET_FLAG_MASK`: Swoole reports it on every client message.
pub const FLAG_MASK: u8 = 32;

/// One frame off the wire.
#[derive(Debug, PartialEq, Eq)]
pub struct Frame {
    pub fin: bool,
    /// RSV1..3 as bits 0..2.
    pub rsv: u8,
    pub opcode: u8,
    pub payload: Bytes,
}

/// A frame's payload length and the offset after the length field (where
/// the mask key or the payload starts); `None` until those bytes are in.
fn payload_len(buf: &[u8]) -> Option<(u64, usize)> {
    match buf[1] & 0x7f {
        126 if buf.len() < 4 => None,
        126 => Some((u16::from_be_bytes([buf[2], buf[3]]) as u64, 4)),
        127 if buf.len() < 10 => None,
        127 => {
            let mut b = [0u8; 8];
            b.copy_from_slice(&buf[2..10]);
            Some((u64::from_be_bytes(b), 10))
        }
        n => Some((n as u64, 2)),
    }
}

/// Control frames are short and whole (1002); no message over `max` (1009).
fn check_len(opcode: u8, fin: bool, len: u64, max: usize) -> Result<usize, u16> {
    if opcode >= 8 && (len > 125 || !fin) {
        return Err(close::PROTOCOL_ERROR);
    }
    if len > max as u64 {
        return Err(close::MESSAGE_TOO_BIG);
    }
    Ok(len as usize)
}

/// XORs `bytes` with the 4-byte `mask` (RFC 6455 5.3), in place.
fn apply_mask(bytes: &mut [u8], mask: [u8; 4]) {
    for (i, b) in bytes.iter_mut().enumerate() {
        *b ^= mask[i & 3];
    }
}

/// The payload of the frame at the start of `buf` (its first two bytes
/// already checked by the caller), unmasked, and the frame cut off `buf`;
/// `Ok(None)` until the whole frame is in.
fn cut_payload(
    buf: &mut BytesMut,
    max: usize,
    fin: bool,
    opcode: u8,
    masked: bool,
) -> Result<Option<BytesMut>, u16> {
    let Some((len, off)) = payload_len(buf) else {
        return Ok(None);
    };
    let len = check_len(opcode, fin, len, max)?;
    let mask_len = if masked { 4 } else { 0 };
    if buf.len() < off + mask_len + len {
        buf.reserve(off + mask_len + len - buf.len());
        return Ok(None);
    }
    let mask = masked.then(|| [buf[off], buf[off + 1], buf[off + 2], buf[off + 3]]);
    buf.advance(off + mask_len);
    let mut payload = buf.split_to(len);
    if let Some(mask) = mask {
        apply_mask(&mut payload, mask);
    }
    Ok(Some(payload))
}

/// Cuts one client frame off `buf`: `Ok(None)` when incomplete, `Err(code)`
/// with the close code when the peer broke the protocol.
pub fn parse(buf: &mut BytesMut, max: usize) -> Result<Option<Frame>, u16> {
    parse_ext(buf, max, false)
}

/// `parse`, with RSV1 allowed on the first frame of a data message when
/// permessage-deflate was negotiated (`deflate`).
pub fn parse_ext(buf: &mut BytesMut, max: usize, deflate: bool) -> Result<Option<Frame>, u16> {
    if buf.len() < 2 {
        return Ok(None);
    }
    let b0 = buf[0];
    let b1 = buf[1];
    let fin = b0 & 0x80 != 0;
    let rsv = rsv_bits(b0);
    let opcode = b0 & 0x0f;
    let masked = b1 & 0x80 != 0;
    if !masked || rsv & !1 != 0 {
        return Err(close::PROTOCOL_ERROR);
    }
    if !matches!(opcode, 0 | 1 | 2 | 8 | 9 | 10) {
        return Err(close::PROTOCOL_ERROR);
    }
    // RSV1 means "compressed": only with the extension, and only on the
    // first frame of a text or binary message (RFC 7692 §6).
    if rsv == 1 && (!deflate || !matches!(opcode, OP_TEXT | OP_BINARY)) {
        return Err(close::PROTOCOL_ERROR);
    }
    let Some(payload) = cut_payload(buf, max, fin, opcode, true)? else {
        return Ok(None);
    };
    Ok(Some(Frame {
        fin,
        rsv,
        opcode,
        payload: payload.freeze(),
    }))
}

/// RSV1..3 of a frame's first byte as bits 0..2 (RSV1 is 0x40 on the wire).
fn rsv_bits(b0: u8) -> u8 {
    ((b0 >> 6) & 1) | ((b0 >> 5) & 1) << 1 | ((b0 >> 4) & 1) << 2
}

/// A server frame (never masked). `flags` are `SWOOLE_WEBSOCKET_FLAG_*`.
pub fn encode(opcode: u8, flags: u8, payload: &[u8]) -> BytesMut {
    encode_masked(opcode, flags, payload, None)
}

/// The mask key Swoole writes when a frame is packed with
/// `SWOOLE_WEBSOCKET_FLAG_MASK`.
const PACK_MASK: [u8; 4] = *b"258E";

/// `WebSocket\Server::pack()`: one frame built as Swoole builds it.
/// `FLAG_COMPRESS` deflates a whole (FIN) text or binary message and sets
/// RSV1; control frames always get FIN and are never compressed; RSV2/RSV3
/// are never set; `FLAG_MASK` masks with Swoole's fixed key. A close frame
/// carries `close_code` before `data` (the reason). `Err` is the warning.
pub fn pack(opcode: u8, flags: u8, data: &[u8], close_code: u16) -> Result<BytesMut, &'static str> {
    if opcode == OP_CLOSE && data.len() > 125 {
        return Err("the max length of close reason is 125");
    }
    let mut flags = flags;
    let mut compress = flags & FLAG_COMPRESS != 0 && !data.is_empty();
    if matches!(opcode, OP_CLOSE | OP_PING | OP_PONG) {
        flags = (flags & !(FLAG_COMPRESS | FLAG_RSV1)) | FLAG_FIN;
        compress = false;
    } else if opcode == OP_CONTINUATION || flags & FLAG_FIN == 0 {
        compress = false;
    }
    let mut payload: Vec<u8>;
    let mut body: &[u8] = data;
    if compress {
        match crate::engine::ws::deflate::compress(data) {
            Some(c) => {
                payload = c;
                body = &payload;
                flags |= FLAG_RSV1;
            }
            None => flags &= !FLAG_RSV1,
        }
    }
    if opcode == OP_CLOSE {
        // The whole reason (up to 125 bytes, checked above), as Swoole's
        // pack() writes it: a payload over RFC 6455's 125 is the caller's
        // to send or not (the server's own close frames cut the reason).
        payload = close_code.to_be_bytes().to_vec();
        payload.extend_from_slice(data);
        body = &payload;
    }
    // RSV1..3 come from the flags; pack() only ever sets RSV1.
    let mask = (flags & FLAG_MASK != 0).then_some(PACK_MASK);
    Ok(encode_masked(
        opcode,
        flags & (FLAG_FIN | FLAG_RSV1),
        body,
        mask,
    ))
}

/// `WebSocket\Server::unpack()`: one whole frame, masked or not, its payload
/// unmasked (and inflated when RSV1 is set). Returns the frame and Swoole's
/// flags for it (FIN, RSV1..3, MASK, and COMPRESS with RSV1); `None` for
/// anything short or broken.
pub fn unpack(data: &[u8]) -> Option<(Frame, u8)> {
    if data.len() < 2 {
        return None;
    }
    let (b0, b1) = (data[0], data[1]);
    let (len, mut off) = payload_len(data)?;
    let masked = b1 & 0x80 != 0;
    let mask = if masked {
        let m = data.get(off..off + 4)?;
        off += 4;
        Some([m[0], m[1], m[2], m[3]])
    } else {
        None
    };
    let len = usize::try_from(len).ok()?;
    let mut payload = data.get(off..off.checked_add(len)?)?.to_vec();
    if let Some(m) = mask {
        apply_mask(&mut payload, m);
    }
    let rsv = rsv_bits(b0);
    let mut flags = (b0 >> 7) | rsv << 2;
    if masked {
        flags |= FLAG_MASK;
    }
    if rsv & 1 != 0 {
        payload = crate::engine::ws::deflate::decompress(&payload, 1 << 30).ok()?;
        flags |= FLAG_COMPRESS;
    }
    let frame = Frame {
        fin: b0 & 0x80 != 0,
        rsv,
        opcode: b0 & 0x0f,
        payload: Bytes::from(payload),
    };
    Some((frame, flags))
}

/// A pushed frame as it goes out: on a connection that negotiated
/// permessage-deflate, every whole non-empty text or binary message is
/// compressed (Swoole sets `FLAG_COMPRESS` on every push to such a
/// connection); without the extension `FLAG_COMPRESS` is ignored, since a
/// client must fail a connection that gets RSV1 it did not agree to.
pub fn outgoing(opcode: u8, flags: u8, data: &[u8], deflate: bool) -> BytesMut {
    if deflate && matches!(opcode, OP_TEXT | OP_BINARY) && flags & FLAG_FIN != 0 && !data.is_empty()
    {
        if let Some(c) = crate::engine::ws::deflate::compress(data) {
            return encode(opcode, flags | FLAG_RSV1, &c);
        }
    }
    encode(opcode, flags, data)
}

/// A frame, masked with `mask` when given (RFC 6455 5.3: every client
/// frame is masked; a server's never is). `flags` are
/// `SWOOLE_WEBSOCKET_FLAG_*`: FIN, and RSV1..3 (0x40, 0x20, 0x10 on the
/// wire) from FLAG_RSV1 (4), _RSV2 (8), _RSV3 (16).
pub fn encode_masked(opcode: u8, flags: u8, payload: &[u8], mask: Option<[u8; 4]>) -> BytesMut {
    let mut out = BytesMut::with_capacity(payload.len() + 14);
    let mut b0 = opcode & 0x0f;
    if flags & FLAG_FIN != 0 {
        b0 |= 0x80;
    }
    if flags & FLAG_RSV1 != 0 {
        b0 |= 0x40;
    }
    if flags & 8 != 0 {
        b0 |= 0x20;
    }
    if flags & 16 != 0 {
        b0 |= 0x10;
    }
    out.put_u8(b0);
    let mask_bit = if mask.is_some() { 0x80 } else { 0 };
    let n = payload.len();
    if n < 126 {
        out.put_u8(mask_bit | n as u8);
    } else if n <= 0xffff {
        out.put_u8(mask_bit | 126);
        out.put_u16(n as u16);
    } else {
        out.put_u8(mask_bit | 127);
        out.put_u64(n as u64);
    }
    let start = out.len() + if mask.is_some() { 4 } else { 0 };
    if let Some(mask) = mask {
        out.extend_from_slice(&mask);
    }
    out.extend_from_slice(payload);
    if let Some(mask) = mask {
        apply_mask(&mut out[start..], mask);
    }
    out
}

/// Cuts one server frame off `buf` (what a client reads): unmasked as a
/// server sends them (a masked one is unmasked too), RSV bits kept in
/// `rsv` (as `parse` keeps them: RSV1 is bit 0). `Ok(None)` when incomplete, `Err(code)` on a protocol error.
pub fn parse_server_frame(buf: &mut BytesMut, max: usize) -> Result<Option<Frame>, u16> {
    if buf.len() < 2 {
        return Ok(None);
    }
    let b0 = buf[0];
    let b1 = buf[1];
    let fin = b0 & 0x80 != 0;
    let rsv = rsv_bits(b0);
    let opcode = b0 & 0x0f;
    let masked = b1 & 0x80 != 0;
    if !matches!(opcode, 0 | 1 | 2 | 8 | 9 | 10) {
        return Err(close::PROTOCOL_ERROR);
    }
    let Some(payload) = cut_payload(buf, max, fin, opcode, masked)? else {
        return Ok(None);
    };
    Ok(Some(Frame {
        fin,
        rsv,
        opcode,
        payload: payload.freeze(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn masked(b0: u8, payload: &[u8]) -> BytesMut {
        let mut out = BytesMut::new();
        out.put_u8(b0);
        let mask = [1u8, 2, 3, 4];
        if payload.len() < 126 {
            out.put_u8(0x80 | payload.len() as u8);
        } else {
            out.put_u8(0x80 | 126);
            out.put_u16(payload.len() as u16);
        }
        out.extend_from_slice(&mask);
        for (i, b) in payload.iter().enumerate() {
            out.put_u8(b ^ mask[i & 3]);
        }
        out
    }

    #[test]
    fn parse_masked_text_and_errors() {
        let mut b = masked(0x81, b"hello");
        let f = parse(&mut b, 100).expect("ok").expect("complete");
        assert_eq!(&f.payload[..], b"hello");
        assert!(f.fin);
        assert_eq!(f.opcode, OP_TEXT);
        assert!(b.is_empty());
        let mut big = masked(0x82, &[7u8; 300]);
        assert_eq!(parse(&mut big, 100), Err(1009));
        let mut unmasked = BytesMut::from(&[0x81u8, 2, b'h', b'i'][..]);
        assert_eq!(parse(&mut unmasked, 100), Err(1002));
        let mut half = masked(0x81, b"hello");
        half.truncate(5);
        assert_eq!(parse(&mut half, 100), Ok(None));
    }

    #[test]
    fn rsv1_only_with_deflate_on_first_data_frame() {
        let mut b = masked(0xc1, b"x");
        assert_eq!(parse(&mut b, 100), Err(1002));
        let mut b = masked(0xc1, b"x");
        assert_eq!(parse_ext(&mut b, 100, true).unwrap().unwrap().rsv, 1);
        let mut cont = masked(0x40, b"x");
        assert_eq!(parse_ext(&mut cont, 100, true), Err(1002));
        let mut ping = masked(0xc9, b"");
        assert_eq!(parse_ext(&mut ping, 100, true), Err(1002));
        let mut rsv2 = masked(0xa1, b"x");
        assert_eq!(parse_ext(&mut rsv2, 100, true), Err(1002));
        let mut op3 = masked(0x83, b"x");
        assert_eq!(parse_ext(&mut op3, 100, true), Err(1002));
    }

    #[test]
    fn pack_and_unpack() {
        let f = pack(OP_TEXT, FLAG_FIN, b"hi", 0).unwrap();
        assert_eq!(&f[..], &[0x81, 2, b'h', b'i']);
        let (fr, flags) = unpack(&f).unwrap();
        assert_eq!(
            (fr.opcode, &fr.payload[..], flags),
            (OP_TEXT, &b"hi"[..], FLAG_FIN)
        );
        // Masked with Swoole's key, then read back.
        let m = pack(OP_BINARY, FLAG_FIN | FLAG_MASK, b"abcd", 0).unwrap();
        assert_eq!(&m[..6], &[0x82, 0x84, b'2', b'5', b'8', b'E']);
        let (fr, flags) = unpack(&m).unwrap();
        assert_eq!(&fr.payload[..], b"abcd");
        assert_eq!(flags, FLAG_FIN | FLAG_MASK);
        // Compressed: RSV1 set, inflated by unpack, COMPRESS reported.
        let text = "hello hello hello hello hello".repeat(10);
        let c = pack(OP_TEXT, FLAG_FIN | FLAG_COMPRESS, text.as_bytes(), 0).unwrap();
        assert_eq!(c[0], 0xc1);
        assert!(c.len() < text.len());
        let (fr, flags) = unpack(&c).unwrap();
        assert_eq!(&fr.payload[..], text.as_bytes());
        assert_eq!(flags, FLAG_FIN | FLAG_RSV1 | FLAG_COMPRESS);
        // Control frames: FIN forced, never compressed; close carries its code.
        let p = pack(OP_PING, FLAG_COMPRESS, b"p", 0).unwrap();
        assert_eq!(&p[..], &[0x89, 1, b'p']);
        let cl = pack(OP_CLOSE, 0, b"bye", 4000).unwrap();
        assert_eq!(&cl[..], &[0x88, 5, 0x0f, 0xa0, b'b', b'y', b'e']);
        assert_eq!(
            pack(OP_PING, FLAG_FIN, &[0; 126], 0).map(|b| b.len()).ok(),
            Some(130)
        );
        // RSV2/RSV3 are never written by pack.
        assert_eq!(pack(OP_TEXT, FLAG_FIN | 8 | 16, b"", 0).unwrap()[0], 0x81);
        // Short or truncated input.
        assert!(unpack(&[0x81]).is_none());
        assert!(unpack(&[0x81, 5, b'a']).is_none());
    }

    #[test]
    fn outgoing_compresses_only_when_negotiated() {
        let data = vec![b'a'; 1000];
        assert_eq!(
            outgoing(OP_TEXT, FLAG_FIN | FLAG_COMPRESS, &data, false)[0],
            0x81
        );
        let c = outgoing(OP_TEXT, FLAG_FIN, &data, true);
        assert_eq!(c[0], 0xc1);
        let (fr, _) = unpack(&c).unwrap();
        assert_eq!(&fr.payload[..], &data[..]);
        assert_eq!(outgoing(OP_PING, FLAG_FIN, b"x", true)[0], 0x89);
        assert_eq!(outgoing(OP_TEXT, 0, b"x", true)[0], 0x01);
    }

    #[test]
    fn encode_lengths() {
        assert_eq!(
            &encode(OP_TEXT, FLAG_FIN, b"hi")[..],
            &[0x81, 2, b'h', b'i']
        );
        assert_eq!(encode(OP_BINARY, FLAG_FIN, &[0; 300])[1], 126);
        assert_eq!(encode(OP_BINARY, FLAG_FIN, &[0; 70000])[1], 127);
        assert_eq!(encode(OP_TEXT, 0, b"x")[0], 0x01);
    }
}
