//! Splitting a TCP byte stream into messages, as Swoole's `open_eof_check`,
//! `open_eof_split` and `open_length_check` do. Pure: bytes in, frames out.

use bytes::{Bytes, BytesMut};

/// How a port cuts its stream into `receive` events.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Framing {
    /// Every read is one `receive` (Swoole's default).
    #[default]
    Raw,
    /// `open_eof_check`: deliver the buffered bytes once they end with `eof`
    /// (one delivery may hold several messages); `split` (`open_eof_split`)
    /// cuts at every `eof` instead, one message per delivery.
    Eof { eof: Vec<u8>, split: bool },
    /// `open_length_check`: a length field of `kind` at `length_offset`;
    /// a frame is `body_offset + length` bytes.
    Length {
        kind: LengthType,
        length_offset: usize,
        body_offset: usize,
    },
    /// `open_mqtt_protocol`: a fixed-header byte, the remaining length as
    /// MQTT's variable-length integer (1 to 4 bytes), then that many bytes.
    Mqtt,
}

/// `package_length_type`: the pack() letters Swoole accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LengthType {
    I8,
    U8,
    I16,
    U16,
    U16Be,
    U16Le,
    I32,
    U32,
    U32Be,
    U32Le,
    I64,
    U64,
    U64Be,
    U64Le,
}

impl LengthType {
    /// Parses a pack() letter: c C s S n v l L N V q Q J P.
    pub fn from_letter(s: &str) -> Option<Self> {
        Some(match s {
            "c" => LengthType::I8,
            "C" => LengthType::U8,
            "s" => LengthType::I16,
            "S" => LengthType::U16,
            "n" => LengthType::U16Be,
            "v" => LengthType::U16Le,
            "l" => LengthType::I32,
            "L" => LengthType::U32,
            "N" => LengthType::U32Be,
            "V" => LengthType::U32Le,
            "q" => LengthType::I64,
            "Q" => LengthType::U64,
            "J" => LengthType::U64Be,
            "P" => LengthType::U64Le,
            _ => return None,
        })
    }

    pub fn size(self) -> usize {
        use LengthType::*;
        match self {
            I8 | U8 => 1,
            I16 | U16 | U16Be | U16Le => 2,
            I32 | U32 | U32Be | U32Le => 4,
            I64 | U64 | U64Be | U64Le => 8,
        }
    }

    /// The length read from `b` (exactly `size()` bytes); negative values
    /// are invalid frames.
    fn read(self, b: &[u8]) -> i128 {
        use LengthType::*;
        let a2 = || [b[0], b[1]];
        let a4 = || [b[0], b[1], b[2], b[3]];
        let a8 = || [b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]];
        match self {
            I8 => b[0] as i8 as i128,
            U8 => b[0] as i128,
            I16 => i16::from_ne_bytes(a2()) as i128,
            U16 => u16::from_ne_bytes(a2()) as i128,
            U16Be => u16::from_be_bytes(a2()) as i128,
            U16Le => u16::from_le_bytes(a2()) as i128,
            I32 => i32::from_ne_bytes(a4()) as i128,
            U32 => u32::from_ne_bytes(a4()) as i128,
            U32Be => u32::from_be_bytes(a4()) as i128,
            U32Le => u32::from_le_bytes(a4()) as i128,
            I64 => i64::from_ne_bytes(a8()) as i128,
            U64 => u64::from_ne_bytes(a8()) as i128,
            U64Be => u64::from_be_bytes(a8()) as i128,
            U64Le => u64::from_le_bytes(a8()) as i128,
        }
    }
}

/// A frame the connection must be closed for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FrameError {
    /// Larger than `package_max_length` (the size seen so far or announced).
    TooLarge(usize),
    /// A negative length field.
    BadLength,
}

/// Takes every complete frame out of `buf`; what is left is the start of
/// the next one.
pub fn take_frames(
    framing: &Framing,
    buf: &mut BytesMut,
    max_len: usize,
    out: &mut Vec<Bytes>,
) -> Result<(), FrameError> {
    match framing {
        Framing::Raw => {
            if !buf.is_empty() {
                out.push(buf.split().freeze());
            }
            Ok(())
        }
        Framing::Eof { eof, split } => {
            if eof.is_empty() {
                if !buf.is_empty() {
                    out.push(buf.split().freeze());
                }
                return Ok(());
            }
            if *split {
                let mut from = 0;
                while let Some(p) = find(&buf[from..], eof) {
                    let end = from + p + eof.len();
                    out.push(buf.split_to(end).freeze());
                    from = 0;
                }
            } else if buf.ends_with(eof) {
                out.push(buf.split().freeze());
            }
            if buf.len() > max_len {
                return Err(FrameError::TooLarge(buf.len()));
            }
            Ok(())
        }
        Framing::Length {
            kind,
            length_offset,
            body_offset,
        } => loop {
            let need = length_offset + kind.size();
            if buf.len() < need {
                return Ok(());
            }
            let len = kind.read(&buf[*length_offset..need]);
            if len < 0 {
                return Err(FrameError::BadLength);
            }
            let total = (*body_offset as i128 + len) as u128;
            if total > max_len as u128 {
                return Err(FrameError::TooLarge(total.min(usize::MAX as u128) as usize));
            }
            let total = total as usize;
            if buf.len() < total {
                buf.reserve(total - buf.len());
                return Ok(());
            }
            out.push(buf.split_to(total).freeze());
        },
        Framing::Mqtt => loop {
            let Some(total) = mqtt_len(buf)? else {
                return Ok(());
            };
            if total > max_len {
                return Err(FrameError::TooLarge(total));
            }
            if buf.len() < total {
                buf.reserve(total - buf.len());
                return Ok(());
            }
            out.push(buf.split_to(total).freeze());
        },
    }
}

/// An MQTT frame's length at the start of `b`: `Ok(None)` while its fixed
/// header is incomplete; a fifth length byte is a bad frame.
fn mqtt_len(b: &[u8]) -> Result<Option<usize>, FrameError> {
    let mut len = 0usize;
    for i in 0..4 {
        let Some(&byte) = b.get(1 + i) else {
            return Ok(None);
        };
        len |= usize::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return Ok(Some(2 + i + len));
        }
    }
    Err(FrameError::BadLength)
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.len() > hay.len() {
        return None;
    }
    hay.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(f: &Framing, chunks: &[&[u8]], max: usize) -> Result<Vec<Vec<u8>>, FrameError> {
        let mut buf = BytesMut::new();
        let mut out = Vec::new();
        for c in chunks {
            buf.extend_from_slice(c);
            take_frames(f, &mut buf, max, &mut out)?;
        }
        Ok(out.into_iter().map(|b| b.to_vec()).collect())
    }

    /// MQTT frames: the length may arrive a byte at a time, several frames
    /// may share a read, and a length of five bytes is refused.
    #[test]
    fn mqtt_frames() {
        let f = Framing::Mqtt;
        let got = run(&f, &[b"\xc0", b"\x00\x30\x82", b"\x01", &[7u8; 130]], 1024);
        let mut big = vec![0x30, 0x82, 0x01];
        big.extend_from_slice(&[7u8; 130]);
        assert_eq!(got, Ok(vec![vec![0xc0, 0x00], big]));
        assert_eq!(
            run(&f, &[b"\x30\x80\x80\x80\x80\x01"], 1024),
            Err(FrameError::BadLength)
        );
        assert_eq!(
            run(&f, &[b"\x30\xff\x01"], 100),
            Err(FrameError::TooLarge(258))
        );
    }

    #[test]
    fn eof_split_coalesced_and_split() {
        let f = Framing::Eof {
            eof: b"\r\n".to_vec(),
            split: true,
        };
        let r = run(&f, &[b"a\r\nbb\r\nc", b"c\r", b"\n"], 100).expect("ok");
        assert_eq!(
            r,
            vec![b"a\r\n".to_vec(), b"bb\r\n".to_vec(), b"cc\r\n".to_vec()]
        );
    }

    #[test]
    fn eof_check_waits_for_the_end() {
        let f = Framing::Eof {
            eof: b"##".to_vec(),
            split: false,
        };
        let r = run(&f, &[b"ab#", b"#cd##"], 100).expect("ok");
        assert_eq!(r, vec![b"ab##cd##".to_vec()]);
        let err = run(&f, &[&[b'x'; 20]], 10).expect_err("too large");
        assert_eq!(err, FrameError::TooLarge(20));
    }

    #[test]
    fn length_n_with_header() {
        let f = Framing::Length {
            kind: LengthType::U32Be,
            length_offset: 0,
            body_offset: 4,
        };
        let mut stream = Vec::new();
        for body in [&b"hello"[..], b"", b"world!"] {
            stream.extend_from_slice(&(body.len() as u32).to_be_bytes());
            stream.extend_from_slice(body);
        }
        // Every split point of the stream gives the same three frames.
        for cut in 0..stream.len() {
            let r = run(&f, &[&stream[..cut], &stream[cut..]], 100).expect("ok");
            assert_eq!(r.len(), 3, "cut at {cut}");
            assert_eq!(&r[0][4..], b"hello");
            assert_eq!(&r[2][4..], b"world!");
        }
        // Byte by byte.
        let bytes: Vec<&[u8]> = stream.chunks(1).collect();
        assert_eq!(run(&f, &bytes, 100).expect("ok").len(), 3);
    }

    #[test]
    fn length_offsets_and_types() {
        // A 2-byte type, then a little-endian u16 length counting the whole frame.
        let f = Framing::Length {
            kind: LengthType::from_letter("v").expect("v"),
            length_offset: 2,
            body_offset: 0,
        };
        let frame = [0xAA, 0xBB, 6, 0, b'x', b'y'];
        let r = run(&f, &[&frame, &frame], 100).expect("ok");
        assert_eq!(r, vec![frame.to_vec(), frame.to_vec()]);
        assert_eq!(LengthType::from_letter("Q").map(LengthType::size), Some(8));
        assert_eq!(LengthType::from_letter("x"), None);
    }

    #[test]
    fn length_too_large_and_negative() {
        let f = Framing::Length {
            kind: LengthType::I32,
            length_offset: 0,
            body_offset: 4,
        };
        let e = run(&f, &[&1000i32.to_ne_bytes()], 100).expect_err("too large");
        assert_eq!(e, FrameError::TooLarge(1004));
        let e = run(&f, &[&(-1i32).to_ne_bytes()], 100).expect_err("negative");
        assert_eq!(e, FrameError::BadLength);
    }
}
