//! `document_root` + `enable_static_handler`: files answered without PHP, as
//! Swoole's static handler answers them: `static_handler_locations`,
//! `url_rewrite_rules`, `http_index_files` / `http_autoindex`, `Range`
//! (206, `multipart/byteranges`, 416) with `If-Range`, and 304s for
//! `If-Modified-Since` / `If-None-Match`.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use http::header::{self, HeaderMap, HeaderValue};
use http::{Method, Response, StatusCode};

use super::body::{Part, RespBody};
use super::form::url_decode;
use super::mime;
use crate::engine::config::{RewritePattern, RewriteRule};

/// Swoole's 404 page, answered for a missing file under a location.
const PAGE_404: &str = concat!(
    "<html><body><style> body { padding: 0.5em; line-height: 2; } ",
    "h1 { font-size: 1.5em; padding-bottom: 0.3em; border-bottom: 1px solid #ccc; } ",
    "ul { list-style-type: disc; } footer { border-top: 1px solid #ccc; } ",
    "a { color: #0969da; } </style><h1>HTTP 404 Not Found</h1>",
    "<footer><i>Powered by Swoole</i></footer></body></html>"
);

/// The static handler's settings.
pub struct Settings<'a> {
    /// `document_root`, resolved (the settings parser canonicalises it).
    pub root: &'a Path,
    pub locations: &'a [String],
    pub rewrite: &'a [RewriteRule],
    pub index_files: &'a [String],
    pub autoindex: bool,
}

/// What the static handler answers for a request.
#[derive(Debug, PartialEq, Eq)]
pub enum Target {
    /// A regular file (an index file of a directory too).
    File(PathBuf),
    /// A directory to list (`http_autoindex`); `url` is the request path.
    Listing { dir: PathBuf, url: String },
    /// No file under a `static_handler_locations` prefix: Swoole's 404.
    NotFound,
}

/// What the static handler does with a request target (path and query):
/// None hands the request to PHP, as Swoole's `try_serve()` decides.
pub fn resolve_target(s: &Settings<'_>, target: &str) -> Option<Target> {
    let rewritten = rewrite(s.rewrite, target);
    let url = rewritten.as_deref().unwrap_or(target);
    // Swoole matches locations against the URL, query included.
    let last = !s.locations.is_empty() && s.locations.iter().any(|l| starts_with_ci(url, l));
    if !s.locations.is_empty() && !last {
        return None;
    }
    let miss = || last.then_some(Target::NotFound);
    let end = url.find('?').or_else(|| url.find('#')).unwrap_or(url.len());
    let path = &url[..end];
    let Some((file, meta)) = locate(s.root, path) else {
        return miss();
    };
    if meta.is_dir() {
        if !s.index_files.is_empty() {
            // The first index file the directory holds; anything but a
            // regular file there goes to PHP.
            for name in s.index_files {
                let f = file.join(name);
                if let Ok(m) = std::fs::metadata(&f) {
                    return m.is_file().then_some(Target::File(f));
                }
            }
        }
        return s.autoindex.then(|| Target::Listing {
            dir: file,
            url: String::from_utf8_lossy(&url_decode(path.as_bytes())).into_owned(),
        });
    }
    // Outside a location only known types are served.
    if !last && !known_type(&file) {
        return None;
    }
    meta.is_file().then_some(Target::File(file))
}

/// The file `path` (percent-decoded) names under `root` and its metadata.
/// A path with `..` in it is resolved and must stay strictly inside `root`;
/// one without is `root` plus plain components, and a symlink there is
/// followed wherever it points (as Swoole: links under the root are the
/// owner's choice).
fn locate(root: &Path, path: &str) -> Option<(PathBuf, std::fs::Metadata)> {
    let decoded = url_decode(path.as_bytes());
    if decoded.contains(&0) {
        return None;
    }
    let mut joined = root.as_os_str().as_bytes().to_vec();
    if !decoded.starts_with(b"/") {
        joined.push(b'/');
    }
    joined.extend_from_slice(&decoded);
    let mut file = PathBuf::from(OsStr::from_bytes(&joined));
    let meta = std::fs::symlink_metadata(&file).ok()?;
    let dotdot = decoded.windows(2).any(|w| w == b"..");
    if dotdot {
        file = std::fs::canonicalize(&file).ok()?;
        if file == root || !file.starts_with(root) {
            return None;
        }
    } else if meta.file_type().is_symlink() {
        file = std::fs::canonicalize(&file).ok()?;
    } else {
        return Some((file, meta));
    }
    let meta = std::fs::metadata(&file).ok()?;
    Some((file, meta))
}

/// Whether the file's suffix has a MIME type (`swoole_mime_type_exists`).
fn known_type(file: &Path) -> bool {
    file.file_name()
        .map(|n| n.to_string_lossy())
        .is_some_and(|n| n.contains('.') && mime::exists(&n))
}

fn starts_with_ci(s: &str, prefix: &str) -> bool {
    s.len() >= prefix.len() && s.as_bytes()[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
}

/// The URL after the first rule that changes it (None: no rule did). A
/// prefix rule swaps the prefix; a regex rule replaces every match, with
/// ECMAScript's `$n`, `$&`, `$$` in the replacement.
pub fn rewrite(rules: &[RewriteRule], url: &str) -> Option<String> {
    for rule in rules {
        match &rule.pattern {
            RewritePattern::Prefix(p) => {
                if let Some(rest) = url.strip_prefix(p.as_str()) {
                    return Some(format!("{}{}", rule.replacement, rest));
                }
            }
            RewritePattern::Regex(re) => {
                let out = replace_all(re, url, &rule.replacement);
                if out != url {
                    return Some(out);
                }
            }
        }
    }
    None
}

/// `url` with every match of `re` replaced (`std::regex_replace`).
fn replace_all(re: &regex_automata::meta::Regex, url: &str, repl: &str) -> String {
    let mut out = String::new();
    let mut last = 0;
    for caps in re.captures_iter(url) {
        let Some(m) = caps.get_match() else {
            continue;
        };
        out.push_str(&url[last..m.start()]);
        let group = |n: usize| caps.get_group(n).map_or("", |s| &url[s.range()]);
        out.push_str(&expand(repl, caps.group_len(), &group));
        last = m.end();
    }
    out.push_str(&url[last..]);
    out
}

/// An ECMAScript replacement string for one match: `$1`..`$99` (two digits
/// when that group exists), `$&` and `$$`; any other `$` is kept as is.
fn expand<'h>(repl: &str, groups: usize, group: &dyn Fn(usize) -> &'h str) -> String {
    let b = repl.as_bytes();
    let mut out = String::new();
    let mut i = 0;
    let mut lit = 0;
    while i < b.len() {
        if b[i] != b'$' || i + 1 >= b.len() {
            i += 1;
            continue;
        }
        let next = b[i + 1];
        let (text, used): (Option<&str>, usize) = match next {
            b'$' => (Some("$"), 2),
            b'&' => (Some(group(0)), 2),
            b'0'..=b'9' => {
                let d1 = (next - b'0') as usize;
                let two = b
                    .get(i + 2)
                    .filter(|d| d.is_ascii_digit())
                    .map(|d| d1 * 10 + (d - b'0') as usize)
                    .filter(|&n| n > 0 && n < groups);
                match two {
                    Some(n) => (Some(group(n)), 3),
                    None if d1 > 0 && d1 < groups => (Some(group(d1)), 2),
                    None => (None, 0),
                }
            }
            _ => (None, 0),
        };
        match text {
            Some(t) => {
                out.push_str(&repl[lit..i]);
                out.push_str(t);
                i += used;
                lit = i;
            }
            None => i += 1,
        }
    }
    out.push_str(&repl[lit..]);
    out
}

/// The HTML listing of `dir` (Swoole's autoindex page: entries sorted, `.`
/// left out, `..` too at the root).
pub fn listing(dir: &Path, url: &str, keep_alive: bool) -> Option<Response<RespBody>> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.push("..".to_string());
    names.sort();
    let mut base = url.to_string();
    if !base.ends_with('/') {
        base.push('/');
    }
    let esc = |s: &str| {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;")
    };
    let mut html = format!(
        "<html>\n<head>\n\t<meta charset='UTF-8'>\n<title>Index of {0}</title></head>\n<body>\n<h1>Index of {0}</h1>\t<ul>\n",
        esc(&base)
    );
    for n in names
        .iter()
        .filter(|n| !(n.as_str() == ".." && base == "/"))
    {
        html.push_str(&format!(
            "\t\t<li><a href=\"{}{}\">{}</a></li>\n",
            esc(&base),
            esc(n),
            esc(n)
        ));
    }
    html.push_str("\t</ul>\n</body>\n</html>\n");
    let mut r = Response::new(RespBody::full(bytes::Bytes::from(html)));
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/html"));
    h.insert(
        header::SERVER,
        HeaderValue::from_static("swoole-http-server"),
    );
    h.insert(
        header::CONNECTION,
        HeaderValue::from_static(if keep_alive { "keep-alive" } else { "close" }),
    );
    Some(r)
}

/// Swoole's 404 for a missing file under a `static_handler_locations` prefix.
pub fn not_found() -> Response<RespBody> {
    let mut r = Response::new(RespBody::full(bytes::Bytes::from_static(
        PAGE_404.as_bytes(),
    )));
    *r.status_mut() = StatusCode::NOT_FOUND;
    r.headers_mut().insert(
        header::SERVER,
        HeaderValue::from_static("swoole-http-server"),
    );
    r
}

/// What a `Range` header asks of a file of `size` bytes.
#[derive(Debug, PartialEq, Eq)]
pub enum Ranges {
    /// The whole file (no header, not `bytes=`, or nothing satisfiable).
    Full,
    /// `(offset, length)` pieces, in the order asked.
    Parts(Vec<(u64, u64)>),
    /// A malformed `bytes=` list: 416.
    Invalid,
}

/// Parses a `Range` value as Swoole does: `bytes=` then `a-b`, `a-` or
/// `-n` specs split by commas (spaces allowed around them); specs past the
/// end are clipped, empty ones skipped; a syntax error or an overflowing
/// number is a 416. Unlike Swoole, more than [`MAX_RANGES`] ranges, or
/// ranges adding up to more than the file, get the whole file.
pub fn parse_ranges(value: &[u8], size: u64) -> Ranges {
    if value.len() < 6 || !value[..6].eq_ignore_ascii_case(b"bytes=") {
        return Ranges::Full;
    }
    let mut c = Cursor { p: value, i: 6 };
    let mut parts = Vec::new();
    loop {
        c.spaces();
        let (start, end);
        if c.at() == b'-' {
            c.i += 1;
            let Some(n) = c.closing() else {
                return Ranges::Invalid;
            };
            (start, end) = (size.saturating_sub(n), size);
        } else {
            if !c.at().is_ascii_digit() {
                return Ranges::Invalid;
            }
            let Some(a) = c.number() else {
                return Ranges::Invalid;
            };
            c.spaces();
            if c.at() != b'-' {
                return Ranges::Invalid;
            }
            c.i += 1;
            c.spaces();
            if matches!(c.at(), b',' | 0) {
                (start, end) = (a, size);
            } else {
                let Some(b) = c.closing() else {
                    return Ranges::Invalid;
                };
                (start, end) = (a, if b >= size { size } else { b + 1 });
            }
        }
        if start < end {
            parts.push((start, end - start));
        } else if start == 0 {
            break;
        }
        if c.at() != b',' {
            break;
        }
        c.i += 1;
        if matches!(c.at(), b'\r' | 0) {
            break;
        }
    }
    // Many ranges, or overlapping ones asking for more bytes than the file
    // has, turn a small request into a large answer (Apache's CVE-2011-3192):
    // those get the whole file, which RFC 9110 §14.2 allows.
    let asked = parts.iter().fold(0u64, |n, p| n.saturating_add(p.1));
    if parts.is_empty() || parts.len() > MAX_RANGES || asked > size {
        Ranges::Full
    } else {
        Ranges::Parts(parts)
    }
}

/// The most ranges one `Range` header gets answered part by part.
const MAX_RANGES: usize = 64;

/// A read position in a `Range` value; past the end reads as NUL.
struct Cursor<'a> {
    p: &'a [u8],
    i: usize,
}

impl Cursor<'_> {
    fn at(&self) -> u8 {
        self.p.get(self.i).copied().unwrap_or(0)
    }

    fn spaces(&mut self) {
        while self.at() == b' ' {
            self.i += 1;
        }
    }

    /// Digits; None if they overflow.
    fn number(&mut self) -> Option<u64> {
        let mut n: u64 = 0;
        while self.at().is_ascii_digit() {
            n = n
                .checked_mul(10)?
                .checked_add(u64::from(self.at() - b'0'))?;
            self.i += 1;
        }
        Some(n)
    }

    /// The number closing a spec, which must end there.
    fn closing(&mut self) -> Option<u64> {
        if !self.at().is_ascii_digit() {
            return None;
        }
        let n = self.number()?;
        self.spaces();
        matches!(self.at(), b',' | 0 | b'\r').then_some(n)
    }
}

/// An HTTP date as Swoole's `strptime` formats read it (IMF-fixdate with
/// `GMT` or `UTC`, RFC 850, asctime), in seconds.
fn parse_date(v: &str) -> Option<u64> {
    let v = v.trim();
    let fixed;
    let v = match v.strip_suffix(" UTC") {
        Some(head) => {
            fixed = format!("{head} GMT");
            fixed.as_str()
        }
        None => v,
    };
    httpdate::parse_http_date(v)
        .ok()?
        .duration_since(UNIX_EPOCH)
        .ok()
        .map(|d| d.as_secs())
}

/// A random `multipart/byteranges` boundary in Swoole's shape.
fn boundary() -> String {
    use std::hash::{BuildHasher, Hasher};
    const ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    let mut out = String::from("SwooleBoundary");
    let mut bits = 0u64;
    for k in 0..24u64 {
        if k % 8 == 0 {
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_u64(k);
            h.write_u128(
                SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .map_or(0, |d| d.as_nanos()),
            );
            bits = h.finish();
        }
        out.push(ALNUM[(bits % ALNUM.len() as u64) as usize] as char);
        bits /= ALNUM.len() as u64;
    }
    out
}

/// Serves `file`: 304 for a fresh `If-Modified-Since`/`If-None-Match`,
/// else the file or the ranges `Range` asks for (unless `If-Range` names
/// another date).
pub fn serve(
    file: &Path,
    method: &Method,
    req_headers: &HeaderMap,
    keep_alive: bool,
) -> Option<Response<RespBody>> {
    let f = std::fs::File::open(file).ok()?;
    let meta = f.metadata().ok()?;
    let size = meta.len();
    let mtime = meta.modified().unwrap_or(UNIX_EPOCH);
    let secs = mtime
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let etag = format!("\"{:x}-{:x}\"", secs, size);
    let last_modified = httpdate::fmt_http_date(UNIX_EPOCH + std::time::Duration::from_secs(secs));

    let not_modified = match req_headers.get(header::IF_NONE_MATCH) {
        Some(inm) => inm
            .to_str()
            .map(|v| v.split(',').any(|t| t.trim() == etag || t.trim() == "*"))
            .unwrap_or(false),
        None => req_headers
            .get(header::IF_MODIFIED_SINCE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| httpdate::parse_http_date(v).ok())
            .map(|since: SystemTime| since >= UNIX_EPOCH + std::time::Duration::from_secs(secs))
            .unwrap_or(false),
    };

    let mime = mime::for_path(file);
    let mut ranges = match req_headers.get(header::RANGE) {
        Some(v) => parse_ranges(v.as_bytes(), size),
        None => Ranges::Full,
    };
    // If-Range with a date other than the file's: the whole file. Anything
    // that is not a date (an entity tag) leaves the range alone.
    if let Some(d) = req_headers
        .get(header::IF_RANGE)
        .and_then(|v| v.to_str().ok())
        .and_then(parse_date)
    {
        if d != secs {
            ranges = Ranges::Full;
        }
    }
    let head = method == Method::HEAD;
    let mut resp = if not_modified {
        let mut r = Response::new(RespBody::empty());
        *r.status_mut() = StatusCode::NOT_MODIFIED;
        r
    } else {
        match ranges {
            Ranges::Full => {
                let mut r = Response::new(RespBody::file(f, 0, size).ok()?);
                let h = r.headers_mut();
                h.insert(header::CONTENT_TYPE, HeaderValue::from_static(mime));
                h.insert(header::ACCEPT_RANGES, HeaderValue::from_static("bytes"));
                r
            }
            Ranges::Invalid => {
                let mut r = Response::new(RespBody::empty());
                *r.status_mut() = StatusCode::RANGE_NOT_SATISFIABLE;
                r.headers_mut()
                    .insert(header::CONTENT_TYPE, HeaderValue::from_static(mime));
                r
            }
            Ranges::Parts(parts) if parts.len() == 1 => {
                let (off, len) = parts[0];
                let body = if head {
                    RespBody::empty()
                } else {
                    RespBody::file(f, off, len).ok()?
                };
                let mut r = Response::new(body);
                *r.status_mut() = StatusCode::PARTIAL_CONTENT;
                let h = r.headers_mut();
                h.insert(header::CONTENT_TYPE, HeaderValue::from_static(mime));
                let cr = format!("bytes {}-{}/{}", off, off + len - 1, size);
                h.insert(header::CONTENT_RANGE, HeaderValue::from_str(&cr).ok()?);
                r
            }
            Ranges::Parts(parts) => {
                let b = boundary();
                let mut pieces = Vec::with_capacity(parts.len() * 2 + 1);
                for (n, (off, len)) in parts.iter().enumerate() {
                    let head = format!(
                        "{}--{}\r\nContent-Type: {}\r\nContent-Range: bytes {}-{}/{}\r\n\r\n",
                        if n == 0 { "" } else { "\r\n" },
                        b,
                        mime,
                        off,
                        off + len - 1,
                        size
                    );
                    pieces.push(Part::Data(head.into()));
                    pieces.push(Part::Range {
                        offset: *off,
                        len: *len,
                    });
                }
                pieces.push(Part::Data(format!("\r\n--{b}--\r\n").into()));
                let body = if head {
                    RespBody::empty()
                } else {
                    RespBody::file_parts(f, pieces)
                };
                let mut r = Response::new(body);
                *r.status_mut() = StatusCode::PARTIAL_CONTENT;
                let ct = format!("multipart/byteranges; boundary={b}");
                r.headers_mut()
                    .insert(header::CONTENT_TYPE, HeaderValue::from_str(&ct).ok()?);
                r
            }
        }
    };
    let h = resp.headers_mut();
    h.insert(
        header::SERVER,
        HeaderValue::from_static("swoole-http-server"),
    );
    if let Ok(v) = HeaderValue::from_str(&etag) {
        h.insert(header::ETAG, v);
    }
    if let Ok(v) = HeaderValue::from_str(&last_modified) {
        h.insert(header::LAST_MODIFIED, v);
    }
    h.insert(
        header::CONNECTION,
        HeaderValue::from_static(if keep_alive { "keep-alive" } else { "close" }),
    );
    Some(resp)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmpdir(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("rsw-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::canonicalize(&dir).expect("canonicalize")
    }

    fn settings<'a>(
        root: &'a Path,
        locations: &'a [String],
        rules: &'a [RewriteRule],
    ) -> Settings<'a> {
        Settings {
            root,
            locations,
            rewrite: rules,
            index_files: &[],
            autoindex: false,
        }
    }

    #[test]
    fn refuses_escapes_and_serves_files() {
        let base = tmpdir("static");
        let dir = base.join("root");
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::create_dir_all(base.join("root2")).expect("mkdir");
        std::fs::write(dir.join("a.txt"), b"hello").expect("write");
        std::fs::write(base.join("secret.txt"), b"s").expect("write");
        std::fs::write(base.join("root2/b.txt"), b"s").expect("write");
        let s = settings(&dir, &[], &[]);
        let file = Some(Target::File(dir.join("a.txt")));
        assert_eq!(resolve_target(&s, "/a.txt"), file);
        assert_eq!(resolve_target(&s, "/a.txt?x=1"), file);
        // `..` that stays inside the root is resolved ...
        assert_eq!(resolve_target(&s, "/../root/a.txt"), file);
        assert_eq!(resolve_target(&s, "/x/../a.txt"), None, "x does not exist");
        // ... one that leaves it is not, however it is written.
        for p in [
            "/../secret.txt",
            "/%2e%2e/secret.txt",
            "/..%2fsecret.txt",
            "/../root2/b.txt",
            "/..",
            "/../root",
            "/a.txt%00.html",
        ] {
            assert_eq!(resolve_target(&s, p), None, "{p}");
        }
        let loc = ["/".to_string()];
        let s = settings(&dir, &loc, &[]);
        assert_eq!(resolve_target(&s, "/../secret.txt"), Some(Target::NotFound));
        assert_eq!(resolve_target(&s, "/missing"), Some(Target::NotFound));

        let f = dir.join("a.txt");
        let resp = serve(&f, &Method::GET, &HeaderMap::new(), true).expect("served");
        assert_eq!(resp.status(), 200);
        let lm = resp.headers()[header::LAST_MODIFIED].clone();
        let mut h = HeaderMap::new();
        h.insert(header::IF_MODIFIED_SINCE, lm);
        let resp = serve(&f, &Method::GET, &h, true).expect("served");
        assert_eq!(resp.status(), 304);
        std::fs::remove_dir_all(&base).expect("rm");
    }

    #[test]
    fn locations_and_unknown_types() {
        let dir = tmpdir("loc");
        std::fs::create_dir_all(dir.join("pub")).expect("mkdir");
        std::fs::write(dir.join("pub/a.unknownext"), b"x").expect("write");
        std::fs::write(dir.join("a.unknownext"), b"x").expect("write");
        std::fs::write(dir.join("a.txt"), b"x").expect("write");
        let none: [String; 0] = [];
        let s = settings(&dir, &none, &[]);
        // Outside a location only known types are served.
        assert_eq!(resolve_target(&s, "/a.unknownext"), None);
        assert!(resolve_target(&s, "/a.txt").is_some());
        let loc = ["/pub".to_string()];
        let s = settings(&dir, &loc, &[]);
        assert_eq!(resolve_target(&s, "/a.txt"), None, "not under a location");
        assert_eq!(
            resolve_target(&s, "/PUB/a.unknownext"),
            Some(Target::NotFound),
            "the prefix matches case-insensitively; the file name does not"
        );
        assert_eq!(
            resolve_target(&s, "/pub/a.unknownext"),
            Some(Target::File(dir.join("pub/a.unknownext")))
        );
        assert_eq!(resolve_target(&s, "/pub/nope.txt"), Some(Target::NotFound));
        assert_eq!(resolve_target(&s, "/pub"), None, "a directory goes to PHP");
        std::fs::remove_dir_all(&dir).expect("rm");
    }

    #[test]
    fn rewrite_rules() {
        let rules = vec![
            RewriteRule::new("~^/view/post/(\\d+)$~", "/static/$1.html").expect("rule"),
            RewriteRule::new("/article/", "/static/article/").expect("rule"),
            RewriteRule::new("~^/d/(\\w+)$~", "/x/$1$$/$&/$9").expect("rule"),
        ];
        assert!(
            RewriteRule::new("~(~", "x").is_none(),
            "a bad regex is skipped"
        );
        assert_eq!(
            rewrite(&rules, "/view/post/3").as_deref(),
            Some("/static/3.html")
        );
        assert_eq!(rewrite(&rules, "/view/post/3?a=1"), None);
        assert_eq!(
            rewrite(&rules, "/article/a.html").as_deref(),
            Some("/static/article/a.html")
        );
        assert_eq!(rewrite(&rules, "/x/article/a.html"), None);
        assert_eq!(rewrite(&rules, "/d/ab").as_deref(), Some("/x/ab$//d/ab/$9"));
    }

    #[test]
    fn ranges() {
        use Ranges::*;
        let r = |v: &str| parse_ranges(v.as_bytes(), 100);
        assert_eq!(r("bytes=0-15"), Parts(vec![(0, 16)]));
        assert_eq!(r("BYTES=0-"), Parts(vec![(0, 100)]));
        assert_eq!(r("bytes=-16"), Parts(vec![(84, 16)]));
        assert_eq!(r("bytes=-1000"), Parts(vec![(0, 100)]));
        assert_eq!(r("bytes=90-1000"), Parts(vec![(90, 10)]));
        assert_eq!(r("bytes= 0 - 0 , -1"), Parts(vec![(0, 1), (99, 1)]));
        assert_eq!(r("bytes=0-15,32-63"), Parts(vec![(0, 16), (32, 32)]));
        assert_eq!(r("bytes=200-300"), Full);
        assert_eq!(r("abc"), Full);
        assert_eq!(r("bytes=abc"), Invalid);
        assert_eq!(r("bytes=999999"), Invalid);
        assert_eq!(r("bytes=1-2x"), Invalid);
        assert_eq!(r("bytes=99999999999999999999999-"), Invalid);
        assert_eq!(r("bytes=-"), Invalid);
        // Overlaps past the file's size and too many ranges: the whole file.
        assert_eq!(r("bytes=0-,0-"), Full);
        assert_eq!(r("bytes=0-60,40-99"), Full);
        assert_eq!(r("bytes=0-49,50-99"), Parts(vec![(0, 50), (50, 50)]));
        let many = (0..65)
            .map(|n| format!("{n}-{n}"))
            .collect::<Vec<_>>()
            .join(",");
        assert_eq!(r(&format!("bytes={many}")), Full);
        let ok = (0..64)
            .map(|n| format!("{n}-{n}"))
            .collect::<Vec<_>>()
            .join(",");
        assert!(matches!(r(&format!("bytes={ok}")), Parts(p) if p.len() == 64));
    }

    #[test]
    fn index_files_and_listing() {
        let dir = tmpdir("index");
        std::fs::create_dir_all(dir.join("d")).expect("mkdir");
        std::fs::write(dir.join("d/home.html"), b"h").expect("write");
        let idx = vec!["index.html".to_string(), "home.html".to_string()];
        let mut s = settings(&dir, &[], &[]);
        s.index_files = &idx;
        assert_eq!(
            resolve_target(&s, "/d"),
            Some(Target::File(dir.join("d/home.html")))
        );
        s.index_files = &[];
        assert_eq!(resolve_target(&s, "/d"), None);
        s.autoindex = true;
        assert!(matches!(
            resolve_target(&s, "/d/"),
            Some(Target::Listing { .. })
        ));
        assert_eq!(resolve_target(&s, "/../d"), None);
        let page = listing(&dir.join("d"), "/d", true).expect("listing");
        assert_eq!(page.status(), 200);
        std::fs::remove_dir_all(&dir).expect("rm");
    }
}
