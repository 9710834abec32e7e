//! Request body and query helpers: percent-decoding, `a=1&b=2` splitting,
//! cookies, and multipart/form-data with uploads saved to `upload_tmp_dir`.
//!
//! Everything here yields flat `(name, value)` pairs of bytes. Building the
//! nested PHP arrays (`a[]=1&b[x]=2`) is PHP's own job: the PHP layer hands
//! each pair to the engine's variable registration, so the rules are PHP's.

use std::io::Write;
use std::path::{Path, PathBuf};

use bytes::Bytes;

/// PHP's `urldecode()`: `+` is a space, `%XX` a byte, a bad escape stays as is.
pub fn url_decode(input: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(input.len());
    let mut i = 0;
    while i < input.len() {
        match input[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < input.len() => match (hex(input[i + 1]), hex(input[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push(h << 4 | l);
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            c => out.push(c),
        }
        i += 1;
    }
    out
}

fn hex(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

/// Splits `a=1&b=2` into decoded pairs; a name without `=` has an empty value.
pub fn parse_query(input: &[u8]) -> Vec<(Vec<u8>, Vec<u8>)> {
    query_pairs(input).collect()
}

/// `parse_query`, one pair at a time: a caller that stops at a limit
/// (`max_input_vars`) decodes nothing past it.
pub fn query_pairs(input: &[u8]) -> impl Iterator<Item = (Vec<u8>, Vec<u8>)> + '_ {
    input
        .split(|&c| c == b'&')
        .filter(|p| !p.is_empty())
        .map(|pair| match pair.iter().position(|&c| c == b'=') {
            Some(eq) => (url_decode(&pair[..eq]), url_decode(&pair[eq + 1..])),
            None => (url_decode(pair), Vec::new()),
        })
        .filter(|(k, _)| !k.is_empty())
}

/// Splits a `Cookie:` header: `a=1; b=2`. Values are percent-decoded, names
/// are not (as PHP does).
pub fn parse_cookie(input: &[u8]) -> Vec<(Vec<u8>, Vec<u8>)> {
    input
        .split(|&c| c == b';')
        .filter_map(|part| {
            let part = trim(part);
            if part.is_empty() {
                return None;
            }
            let (k, v) = match part.iter().position(|&c| c == b'=') {
                Some(eq) => (&part[..eq], &part[eq + 1..]),
                None => (part, &b""[..]),
            };
            let k = trim(k);
            if k.is_empty() {
                return None;
            }
            Some((k.to_vec(), url_decode(trim(v))))
        })
        .collect()
}

fn trim(mut s: &[u8]) -> &[u8] {
    while let [first, rest @ ..] = s {
        if first.is_ascii_whitespace() {
            s = rest;
        } else {
            break;
        }
    }
    while let [rest @ .., last] = s {
        if last.is_ascii_whitespace() {
            s = rest;
        } else {
            break;
        }
    }
    s
}

/// One part of a multipart body.
#[derive(Debug, Clone)]
pub struct Part {
    pub name: Vec<u8>,
    /// `Some` for a file upload, even when the browser sent an empty name.
    pub filename: Option<Vec<u8>>,
    pub content_type: Vec<u8>,
    pub data: Bytes,
}

/// The boundary of a `multipart/form-data; boundary=...` content type.
pub fn multipart_boundary(content_type: &[u8]) -> Option<Vec<u8>> {
    let ct = std::str::from_utf8(content_type).ok()?;
    let lower = ct.to_ascii_lowercase();
    if !lower.trim_start().starts_with("multipart/form-data") {
        return None;
    }
    let idx = lower.find("boundary=")?;
    let raw = ct[idx + 9..].split(';').next()?.trim();
    let raw = raw.trim_matches('"');
    if raw.is_empty() {
        None
    } else {
        Some(raw.as_bytes().to_vec())
    }
}

/// Parses a multipart body. Malformed input yields the parts read so far.
pub fn parse_multipart(body: &Bytes, boundary: &[u8]) -> Vec<Part> {
    parse_multipart_limited(body, boundary, usize::MAX).0
}

/// `parse_multipart` that stops after `max_parts` parts (PHP's
/// `max_multipart_body_parts`); true when parts were left unread.
pub fn parse_multipart_limited(
    body: &Bytes,
    boundary: &[u8],
    max_parts: usize,
) -> (Vec<Part>, bool) {
    let mut delim = b"--".to_vec();
    delim.extend_from_slice(boundary);
    let mut parts = Vec::new();
    let Some(mut pos) = find(body, &delim, 0) else {
        return (parts, false);
    };
    loop {
        pos += delim.len();
        if body[pos..].starts_with(b"--") {
            break;
        }
        if parts.len() >= max_parts {
            return (parts, true);
        }
        // skip the CRLF after the boundary
        if body[pos..].starts_with(b"\r\n") {
            pos += 2;
        } else if body[pos..].starts_with(b"\n") {
            pos += 1;
        }
        let Some(head_end) = find(body, b"\r\n\r\n", pos) else {
            break;
        };
        let head = &body[pos..head_end];
        let data_start = head_end + 4;
        let mut next_delim = b"\r\n".to_vec();
        next_delim.extend_from_slice(&delim);
        let Some(data_end) = find(body, &next_delim, data_start) else {
            break;
        };
        let mut part = Part {
            name: Vec::new(),
            filename: None,
            content_type: Vec::new(),
            data: body.slice(data_start..data_end),
        };
        for line in head.split(|&c| c == b'\n') {
            let line = trim(line);
            let Some(colon) = line.iter().position(|&c| c == b':') else {
                continue;
            };
            let name = trim(&line[..colon]).to_ascii_lowercase();
            let value = trim(&line[colon + 1..]);
            if name == b"content-disposition" {
                part.name = disposition_param(value, b"name").unwrap_or_default();
                part.filename = disposition_param(value, b"filename");
            } else if name == b"content-type" {
                part.content_type = value.to_vec();
            }
        }
        parts.push(part);
        pos = data_end + 2;
    }
    (parts, false)
}

fn disposition_param(value: &[u8], key: &[u8]) -> Option<Vec<u8>> {
    for item in value.split(|&c| c == b';') {
        let item = trim(item);
        let Some(eq) = item.iter().position(|&c| c == b'=') else {
            continue;
        };
        if trim(&item[..eq]).eq_ignore_ascii_case(key) {
            let v = trim(&item[eq + 1..]);
            let v = v.strip_prefix(b"\"").unwrap_or(v);
            let v = v.strip_suffix(b"\"").unwrap_or(v);
            return Some(v.to_vec());
        }
    }
    None
}

fn find(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    if needle.is_empty() || from > hay.len() {
        return None;
    }
    hay[from..]
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

/// Writes an upload to a fresh `swoole.upfile.XXXXXX` file in `dir`.
pub fn save_upload(dir: &Path, data: &[u8]) -> std::io::Result<PathBuf> {
    save_tmp(dir, "swoole.upfile.XXXXXX", data)
}

/// Writes a packed task's payload to a fresh `swoole.task.XXXXXX` file in `dir`.
pub fn save_task_file(dir: &Path, data: &[u8]) -> std::io::Result<PathBuf> {
    save_tmp(dir, "swoole.task.XXXXXX", data)
}

fn save_tmp(dir: &Path, name: &str, data: &[u8]) -> std::io::Result<PathBuf> {
    let mut template = dir.join(name).into_os_string().into_vec();
    template.push(0);
    // SAFETY: `template` is a NUL-terminated, writable buffer ending in
    // XXXXXX, as mkstemp requires; it rewrites the X's in place.
    let fd = unsafe { libc::mkstemp(template.as_mut_ptr().cast()) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    template.pop();
    // SAFETY: mkstemp returned a new descriptor that nothing else owns.
    let mut file = unsafe { <std::fs::File as std::os::fd::FromRawFd>::from_raw_fd(fd) };
    let path = PathBuf::from(std::ffi::OsString::from_vec(template));
    if let Err(e) = file.write_all(data) {
        let _ = std::fs::remove_file(&path);
        return Err(e);
    }
    Ok(path)
}

use std::os::unix::ffi::{OsStrExt as _, OsStringExt};

/// For a `Path` that came from bytes: the bytes back.
pub fn path_bytes(p: &Path) -> &[u8] {
    p.as_os_str().as_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_like_php() {
        assert_eq!(url_decode(b"a+b%20c%2"), b"a b c%2");
        assert_eq!(url_decode(b"%00x"), b"\0x");
        assert_eq!(url_decode(b"%zz"), b"%zz");
    }

    #[test]
    fn query_pairs() {
        let q = parse_query(b"a[]=1&a[]=2&b[x]=2&flag&=skip");
        assert_eq!(q.len(), 4);
        assert_eq!(q[0], (b"a[]".to_vec(), b"1".to_vec()));
        assert_eq!(q[3], (b"flag".to_vec(), b"".to_vec()));
    }

    #[test]
    fn cookies() {
        let c = parse_cookie(b"a=1; b=hello%20world;c");
        assert_eq!(c[1], (b"b".to_vec(), b"hello world".to_vec()));
        assert_eq!(c[2], (b"c".to_vec(), b"".to_vec()));
    }

    #[test]
    fn multipart_fields_and_files() {
        let body = Bytes::from_static(
            b"--XX\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nvalue\0bin\r\n\
--XX\r\nContent-Disposition: form-data; name=\"f\"; filename=\"t.txt\"\r\nContent-Type: text/plain\r\n\r\nfile\r\ndata\r\n--XX--\r\n",
        );
        let b = multipart_boundary(b"multipart/form-data; boundary=XX").expect("boundary");
        let parts = parse_multipart(&body, &b);
        assert_eq!(parts.len(), 2);
        assert_eq!(parts[0].name, b"a");
        assert_eq!(&parts[0].data[..], b"value\0bin");
        assert_eq!(parts[1].filename.as_deref(), Some(&b"t.txt"[..]));
        assert_eq!(parts[1].content_type, b"text/plain");
        assert_eq!(&parts[1].data[..], b"file\r\ndata");
    }

    #[test]
    fn upload_is_saved_and_removable() {
        let dir = std::env::temp_dir();
        let p = save_upload(&dir, b"abc").expect("save");
        assert!(path_bytes(&p).starts_with(path_bytes(&dir)));
        assert_eq!(std::fs::read(&p).expect("read"), b"abc");
        std::fs::remove_file(&p).expect("rm");
    }
}
