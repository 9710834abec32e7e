//! A strict scanner for the common HTTP/1 request head (the fast path's
//! first look): it takes only a subset of what httparse takes, gives the
//! same result for it, and says "not mine" for anything else, which then
//! goes to httparse unchanged (so hostile or odd input meets the same
//! parser as before).
//!
//! Why: httparse costs ~1,200 instructions for ab's 4-line head (its
//! runtime SIMD dispatch per run of bytes, the `Header` slots, the checks
//! for shapes no client sends). This scanner reads the request line with a
//! few word compares, the header names with a byte table and the values
//! eight bytes at a time.
//!
//! What it takes (everything else: `None`):
//! - a request line `METHOD SP /target SP HTTP/1.x CRLF`, METHOD one of
//!   GET, POST, PUT, DELETE, PATCH, OPTIONS (the fast path's), the target
//!   starting with `/` and made of visible ASCII (0x21-0x7E) only;
//! - no empty line before it;
//! - header lines `name ":" OWS value CRLF`: name 1+ token bytes, OWS
//!   spaces and tabs, value of visible ASCII, space and tab (trailing ones
//!   trimmed, as httparse trims them); no obs-fold, no bare LF, no byte
//!   0x80-0xFF, no control byte;
//! - at most `max` lines (httparse's slots), then CRLF;
//! - the whole head in the buffer (a partial head is httparse's to judge).
//!
//! For such a head httparse returns the same method, target, version,
//! lines and length (the engine tests compare them on many shapes).

use http::{Method, Version};

/// A request line and head length the scanner took; the lines are in the
/// caller's vector.
#[derive(Debug, PartialEq)]
pub(super) struct Head {
    pub method: Method,
    /// The request target's range in the buffer.
    pub target: std::ops::Range<usize>,
    pub version: Version,
    /// Bytes of the head, with its final CRLF.
    pub len: usize,
}

/// Whether `b` is a token byte (RFC 9110 `tchar`): a header name's.
pub(super) const fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric()
        || matches!(
            b,
            b'!' | b'#'
                | b'$'
                | b'%'
                | b'&'
                | b'\''
                | b'*'
                | b'+'
                | b'-'
                | b'.'
                | b'^'
                | b'_'
                | b'`'
                | b'|'
                | b'~'
        )
}

/// [`is_tchar`] as a table.
static TOKEN: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 256 {
        t[c] = is_tchar(c as u8);
        c += 1;
    }
    t
};

const ONES: u64 = 0x0101_0101_0101_0101;
const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// The eight bytes of `buf` from `i` on as a word (first byte lowest).
#[inline]
pub(super) fn le8(buf: &[u8], i: usize) -> Option<u64> {
    buf.get(i..)?
        .first_chunk::<8>()
        .map(|w| u64::from_le_bytes(*w))
}

/// The index of the first byte from `i` on below `LO` or above 0x7E
/// (`buf.len()` if none), eight bytes at a time. (In each word, a byte
/// flagged by a borrow is always above a byte flagged for itself, so the
/// lowest flag is exact.)
#[inline(always)]
fn skip_visible<const LO: u8>(buf: &[u8], mut i: usize) -> usize {
    let lo = u64::from(LO) * ONES;
    while let Some(x) = le8(buf, i) {
        // Below LO (high bit clear), 0x80 and above, or 0x7F.
        let del = x ^ (0x7f * ONES);
        let m = ((x.wrapping_sub(lo) & !x) | x | (del.wrapping_sub(ONES) & !del)) & HIGH;
        if m != 0 {
            return i + (m.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < buf.len() && (LO..=0x7e).contains(&buf[i]) {
        i += 1;
    }
    i
}

/// The index of the first byte from `i` on that is not a token byte
/// (`buf.len()` if none). Letters, digits and `-` (what names are made of)
/// are found eight at a time, exactly (no carry crosses a byte: each byte
/// is at most 0x7F before 0x80 or less is added); any other byte is looked
/// up in `TOKEN`.
#[inline(always)]
fn skip_token(buf: &[u8], mut i: usize) -> usize {
    // 0x80 in each byte that is at least `c` (`v`: high bits clear).
    let ge = |v: u64, c: u8| v + u64::from(0x80 - c) * ONES;
    loop {
        while let Some(x) = le8(buf, i) {
            let low = x & LOW7;
            let fold = (x | 0x2020_2020_2020_2020) & LOW7;
            let letter = ge(fold, b'a') & !ge(fold, b'z' + 1);
            let digit = ge(low, b'0') & !ge(low, b'9' + 1);
            let dash = ge(low, b'-') & !ge(low, b'-' + 1);
            let other = !((letter | digit | dash) & !x) & HIGH;
            if other != 0 {
                i += (other.trailing_zeros() / 8) as usize;
                break;
            }
            i += 8;
        }
        match buf.get(i) {
            Some(&b) if TOKEN[usize::from(b)] => i += 1,
            _ => return i,
        }
    }
}

/// The method at the start of `buf` and where its target starts.
fn method(buf: &[u8]) -> Option<(Method, usize)> {
    let w = buf.get(..8)?;
    let four = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
    let word = |s: &[u8; 4]| u32::from_le_bytes(*s);
    if four == word(b"GET ") {
        return Some((Method::GET, 4));
    }
    let (m, n) = if four == word(b"POST") {
        (Method::POST, 4)
    } else if four == word(b"PUT ") {
        return Some((Method::PUT, 4));
    } else if four == word(b"DELE") && &w[4..6] == b"TE" {
        (Method::DELETE, 6)
    } else if four == word(b"PATC") && w[4] == b'H' {
        (Method::PATCH, 5)
    } else if four == word(b"OPTI") && &w[4..7] == b"ONS" {
        (Method::OPTIONS, 7)
    } else {
        return None;
    };
    (w[n] == b' ').then_some((m, n + 1))
}

/// The head at the start of `buf` when it is of the shape the module
/// comment lists, its header lines appended to `lines` as
/// `[name start, name end, value start, value end]`; `None` for any other
/// (`lines` then holds what was read so far).
pub(super) fn head(buf: &[u8], max: usize, lines: &mut Vec<[u32; 4]>) -> Option<Head> {
    // (Offsets are kept as u32.)
    if buf.len() > u32::MAX as usize {
        return None;
    }
    let (method, t0) = method(buf)?;
    if buf.get(t0) != Some(&b'/') {
        return None;
    }
    let t1 = skip_visible::<0x21>(buf, t0 + 1);
    // ` HTTP/1.x\r\n`
    let line = buf.get(t1..t1 + 11)?;
    let version = match le8(line, 1)? {
        w if w == u64::from_le_bytes(*b"HTTP/1.1") => Version::HTTP_11,
        w if w == u64::from_le_bytes(*b"HTTP/1.0") => Version::HTTP_10,
        _ => return None,
    };
    if line[0] != b' ' || line[9] != b'\r' || line[10] != b'\n' {
        return None;
    }
    let mut i = t1 + 11;
    loop {
        if *buf.get(i)? == b'\r' {
            return (buf.get(i + 1) == Some(&b'\n')).then_some(Head {
                method,
                target: t0..t1,
                version,
                len: i + 2,
            });
        }
        let n0 = i;
        let n1 = skip_token(buf, i);
        if n1 == n0 || buf.get(n1) != Some(&b':') {
            return None;
        }
        let mut v0 = n1 + 1;
        while let Some(b' ' | b'\t') = buf.get(v0) {
            v0 += 1;
        }
        // Visible bytes and spaces; a tab goes on, anything else ends.
        let mut e = v0;
        loop {
            e = skip_visible::<0x20>(buf, e);
            if buf.get(e) != Some(&b'\t') {
                break;
            }
            e += 1;
        }
        if buf.get(e..e + 2) != Some(b"\r\n") {
            return None;
        }
        let mut v1 = e;
        while v1 > v0 {
            match buf[v1 - 1] {
                b' ' | b'\t' => v1 -= 1,
                _ => break,
            }
        }
        if lines.len() >= max {
            return None;
        }
        lines.push([n0 as u32, n1 as u32, v0 as u32, v1 as u32]);
        i = e + 2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Lines = Vec<(Vec<u8>, Vec<u8>)>;

    /// httparse's reading of `buf` (with `max` slots), as the scanner
    /// gives it; `None` when it does not give a complete head.
    fn by_httparse(buf: &[u8], max: usize) -> Option<(String, String, u8, Lines, usize)> {
        let mut slots = vec![httparse::EMPTY_HEADER; max];
        let mut req = httparse::Request::new(&mut slots);
        match req.parse(buf) {
            Ok(httparse::Status::Complete(n)) => Some((
                req.method?.to_string(),
                req.path?.to_string(),
                req.version?,
                req.headers
                    .iter()
                    .map(|h| (h.name.as_bytes().to_vec(), h.value.to_vec()))
                    .collect(),
                n,
            )),
            _ => None,
        }
    }

    fn by_scan(buf: &[u8], max: usize) -> Option<(String, String, u8, Lines, usize)> {
        let mut lines = Vec::new();
        let h = head(buf, max, &mut lines)?;
        let at = |a: u32, b: u32| buf[a as usize..b as usize].to_vec();
        Some((
            h.method.as_str().to_string(),
            String::from_utf8(buf[h.target].to_vec()).ok()?,
            u8::from(h.version == Version::HTTP_11),
            lines
                .iter()
                .map(|l| (at(l[0], l[1]), at(l[2], l[3])))
                .collect(),
            h.len,
        ))
    }

    /// The scanner takes `buf` (`taken`) and then reads it as httparse
    /// does; or it leaves it to httparse.
    fn check(buf: &[u8], max: usize, taken: bool) {
        let s = by_scan(buf, max);
        assert_eq!(
            s.is_some(),
            taken,
            "taken? {:?} -> {s:?}",
            String::from_utf8_lossy(buf)
        );
        if let Some(s) = s {
            assert_eq!(
                Some(s),
                by_httparse(buf, max),
                "{:?}",
                String::from_utf8_lossy(buf)
            );
        }
    }

    const AB: &[u8] = b"GET / HTTP/1.0\r\nConnection: Keep-Alive\r\nHost: 127.0.0.1:19621\r\nUser-Agent: ApacheBench/2.3\r\nAccept: */*\r\n\r\n";

    #[test]
    fn common_heads_read_as_httparse() {
        check(AB, 100, true);
        for h in [
            &b"POST /a/b?c=d&e=%20f HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc"[..],
            b"PUT /x HTTP/1.1\r\n\r\n",
            b"DELETE /x HTTP/1.1\r\nA:b\r\n\r\n",
            b"PATCH /x HTTP/1.1\r\nA:\r\nB: \t \r\nC:\t v \t\r\n\r\n",
            b"OPTIONS /x HTTP/1.1\r\nX-A: a\tb  c\r\n\r\nGET / HTTP/1.1\r\n",
            b"GET /0123456789abcdef0123456789abcdef!~ HTTP/1.1\r\nh:0123456789abcdef0123456789abcdefgh \r\n\r\n",
            b"GET / HTTP/1.1\r\n!#$%&'*+-.^_`|~0aZ: {}[]()<>@,;\\\"/?=:\r\n\r\n",
        ] {
            check(h, 100, true);
        }
    }

    #[test]
    fn odd_shapes_go_to_httparse() {
        for h in [
            // empty line first, bare LF, obs-fold, no colon, space before it
            &b"\r\nGET / HTTP/1.1\r\n\r\n"[..],
            b"GET / HTTP/1.1\n\n",
            b"GET / HTTP/1.1\r\nA: b\n\r\n",
            b"GET / HTTP/1.1\r\nA: b\r\n c\r\n\r\n",
            b"GET / HTTP/1.1\r\nA b\r\n\r\n",
            b"GET / HTTP/1.1\r\nA : b\r\n\r\n",
            b"GET / HTTP/1.1\r\n: b\r\n\r\n",
            b"GET / HTTP/1.1\r\n A: b\r\n\r\n",
            // control and non-ASCII bytes, a CR alone
            b"GET / HTTP/1.1\r\nA: b\x00c\r\n\r\n",
            b"GET / HTTP/1.1\r\nA: b\x7fc\r\n\r\n",
            b"GET / HTTP/1.1\r\nA: \xc3\xa9\r\n\r\n",
            b"GET / HTTP/1.1\r\nA: b\rc\r\n\r\n",
            b"GET / HTTP/1.1\r\nA\x01: b\r\n\r\n",
            b"GET / HTTP/1.1\r\n\r",
            b"GET /\xc3\xa9 HTTP/1.1\r\n\r\n",
            b"GET /a\tb HTTP/1.1\r\n\r\n",
            // request line shapes
            b"GET  / HTTP/1.1\r\n\r\n",
            b"GET / HTTP/1.1 \r\n\r\n",
            b"GET /  HTTP/1.1\r\n\r\n",
            b"GET * HTTP/1.1\r\n\r\n",
            b"GET http://a/ HTTP/1.1\r\n\r\n",
            b"get / HTTP/1.1\r\n\r\n",
            b"HEAD / HTTP/1.1\r\n\r\n",
            b"CONNECT a:1 HTTP/1.1\r\n\r\n",
            b"POSTX / HTTP/1.1\r\n\r\n",
            b"GET / HTTP/2.0\r\n\r\n",
            b"GET / HTTP/1.1\n\r\n",
            b"GET / http/1.1\r\n\r\n",
            // partial heads
            b"GET / HTTP/1.1\r\nHost: a\r\n",
            b"GET / HTTP/1.1\r\nHost: a",
            b"GET / HTTP/1.1\r\nHost",
            b"GET / HTTP/1.",
            b"GET /",
            b"GE",
            b"",
        ] {
            check(h, 100, false);
        }
    }

    #[test]
    fn too_many_lines_go_to_httparse() {
        let h = b"GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\n\r\n";
        check(h, 2, true);
        check(h, 1, false);
        check(h, 0, false);
        check(b"GET / HTTP/1.1\r\n\r\n", 0, true);
    }

    /// Heads put together at random from pieces (names with every token
    /// byte, values with tabs and odd bytes, line ends): wherever the
    /// scanner takes one, httparse reads the same.
    #[test]
    fn random_heads_read_as_httparse_or_fall_back() {
        let starts: [&[u8]; 6] = [
            b"GET /",
            b"POST /a?b=c",
            b"OPTIONS /x~y",
            b"DELETE /%41",
            b"PATCH /",
            b"PUT /p",
        ];
        let names: [&[u8]; 10] = [
            b"Host",
            b"content-length",
            b"X-!#$%&'*+.^_`|~",
            b"a",
            b"Transfer-Encoding",
            b"x_y",
            b"H\x80",
            b"A B",
            b"ABCDEFGHIJKLMNOPQRSTUVWXYZ-0123456789",
            b"",
        ];
        let values: [&[u8]; 10] = [
            b"v",
            b" v ",
            b"\tv\t",
            b"a\tb",
            b"",
            b"  ",
            b"\x7f",
            b"\xe9",
            b"0123456789abcdef0123456789abcdef\t!",
            b"a\x00b",
        ];
        let ends: [&[u8]; 5] = [b"\r\n", b"\r\n", b"\r\n", b"\n", b"\r\n "];
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let mut taken = 0;
        for _ in 0..20_000 {
            let mut h = starts[next(starts.len())].to_vec();
            h.extend_from_slice(if next(8) == 0 {
                b" HTTP/1.0\r\n"
            } else {
                b" HTTP/1.1\r\n"
            });
            for _ in 0..next(5) {
                h.extend_from_slice(names[next(names.len())]);
                h.extend_from_slice(if next(10) == 0 { b" :" } else { b":" });
                h.extend_from_slice(values[next(values.len())]);
                h.extend_from_slice(ends[next(ends.len())]);
            }
            h.extend_from_slice(b"\r\n");
            let max = next(6);
            if let Some(s) = by_scan(&h, max) {
                taken += 1;
                assert_eq!(
                    Some(s),
                    by_httparse(&h, max),
                    "{:?}",
                    String::from_utf8_lossy(&h)
                );
            }
        }
        assert!(taken > 1_000, "{taken}");
    }

    /// Every head made from AB by changing one byte (to each of a set of
    /// values), cutting it, or doubling a byte: wherever the scanner takes
    /// it, httparse reads the same.
    #[test]
    fn mutations_read_as_httparse_or_fall_back() {
        let values = [
            0u8, b'\t', b'\n', b'\r', b' ', b'!', b'"', b'(', b',', b'/', b':', b';', b'@', b'A',
            b'a', b'-', b'~', 0x7f, 0x80, 0xff,
        ];
        let mut taken = 0;
        for i in 0..AB.len() {
            for &v in &values {
                let mut h = AB.to_vec();
                h[i] = v;
                taken += usize::from(by_scan(&h, 100).is_some());
                if let Some(s) = by_scan(&h, 100) {
                    assert_eq!(
                        Some(s),
                        by_httparse(&h, 100),
                        "{:?}",
                        String::from_utf8_lossy(&h)
                    );
                }
            }
            let mut h = AB.to_vec();
            h.insert(i, AB[i]);
            if let Some(s) = by_scan(&h, 100) {
                assert_eq!(
                    Some(s),
                    by_httparse(&h, 100),
                    "{:?}",
                    String::from_utf8_lossy(&h)
                );
            }
            assert_eq!(by_scan(&AB[..i], 100), None);
        }
        // (Many of the changes leave a head both read the same way.)
        assert!(taken > AB.len());
    }
}
