//! `document_root` + `enable_static_handler`: files answered without PHP, with
//! `ETag`, `Last-Modified` and 304s for `If-Modified-Since` / `If-None-Match`.

use std::path::{Component, Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use http::header::{self, HeaderMap, HeaderValue};
use http::{Method, Response, StatusCode};

use super::body::RespBody;
use super::form::url_decode;
use super::mime;

/// What the static handler answers for a request path.
#[derive(Debug, PartialEq, Eq)]
pub enum Target {
    /// A regular file (an index file of a directory too).
    File(PathBuf),
    /// A directory to list (`http_autoindex`); `url` is the request path.
    Listing { dir: PathBuf, url: String },
}

/// The file (or, with `http_index_files` / `http_autoindex`, the index
/// file or listing) a request path names under `root`, as Swoole picks it.
pub fn resolve_target(
    root: &Path,
    req_path: &str,
    index_files: &[String],
    autoindex: bool,
) -> Option<Target> {
    let path = under_root(root, req_path)?;
    let meta = std::fs::metadata(&path).ok()?;
    if meta.is_file() {
        return Some(Target::File(path));
    }
    if !meta.is_dir() {
        return None;
    }
    for name in index_files {
        let f = path.join(name);
        if std::fs::metadata(&f).is_ok_and(|m| m.is_file()) {
            return Some(Target::File(f));
        }
    }
    autoindex.then(|| Target::Listing {
        dir: path,
        url: String::from_utf8(url_decode(req_path.as_bytes())).unwrap_or_default(),
    })
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

/// The file under `root` a request path names, if it is a regular file.
/// `..` and other escapes are refused by construction.
pub fn resolve(root: &Path, req_path: &str) -> Option<PathBuf> {
    let out = under_root(root, req_path)?;
    let meta = std::fs::metadata(&out).ok()?;
    meta.is_file().then_some(out)
}

/// `req_path` (percent-decoded) under `root`; `..` is refused.
fn under_root(root: &Path, req_path: &str) -> Option<PathBuf> {
    let decoded = url_decode(req_path.as_bytes());
    let decoded = String::from_utf8(decoded).ok()?;
    let mut out = root.to_path_buf();
    for comp in Path::new(&decoded).components() {
        match comp {
            Component::Normal(c) => out.push(c),
            Component::RootDir | Component::CurDir => {}
            Component::ParentDir | Component::Prefix(_) => return None,
        }
    }
    Some(out)
}

/// Serves `file` for a GET or HEAD request.
pub fn serve(
    file: &Path,
    method: &Method,
    req_headers: &HeaderMap,
    keep_alive: bool,
) -> Option<Response<RespBody>> {
    if method != Method::GET && method != Method::HEAD {
        return None;
    }
    let f = std::fs::File::open(file).ok()?;
    let meta = f.metadata().ok()?;
    let mtime = meta.modified().unwrap_or(UNIX_EPOCH);
    let secs = mtime
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let etag = format!("\"{:x}-{:x}\"", secs, meta.len());
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

    let mut resp = if not_modified {
        let mut r = Response::new(RespBody::empty());
        *r.status_mut() = StatusCode::NOT_MODIFIED;
        r
    } else {
        let body = RespBody::file(f, 0, meta.len()).ok()?;
        let mut r = Response::new(body);
        r.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static(mime::for_path(file)),
        );
        r
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

    #[test]
    fn refuses_escapes_and_serves_files() {
        let dir = std::env::temp_dir().join(format!("rsw-static-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::write(dir.join("a.txt"), b"hello").expect("write");
        assert!(resolve(&dir, "/a.txt").is_some());
        assert!(resolve(&dir, "/../a.txt").is_none());
        assert!(resolve(&dir, "/%2e%2e/etc/passwd").is_none());
        assert!(resolve(&dir, "/missing").is_none());

        let f = resolve(&dir, "/a.txt").expect("file");
        let resp = serve(&f, &Method::GET, &HeaderMap::new(), true).expect("served");
        assert_eq!(resp.status(), 200);
        let lm = resp.headers()[header::LAST_MODIFIED].clone();
        let mut h = HeaderMap::new();
        h.insert(header::IF_MODIFIED_SINCE, lm);
        let resp = serve(&f, &Method::GET, &h, true).expect("served");
        assert_eq!(resp.status(), 304);
        std::fs::remove_dir_all(&dir).expect("rm");
    }
}
