//! Content types by file extension, for `sendfile()`, the static handler and
//! `swoole_mime_type_*()`: one table per process, seeded with common types,
//! that a script may change before `start()` (workers inherit it at fork).

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

pub const DEFAULT: &str = "application/octet-stream";

/// Extension (lower case, no dot) to content type.
const SEED: &[(&str, &str)] = &[
    ("html", "text/html"),
    ("htm", "text/html"),
    ("shtml", "text/html"),
    ("css", "text/css"),
    ("csv", "text/csv"),
    ("js", "application/javascript"),
    ("mjs", "application/javascript"),
    ("json", "application/json"),
    ("map", "application/json"),
    ("jsonld", "application/ld+json"),
    ("webmanifest", "application/manifest+json"),
    ("txt", "text/plain"),
    ("text", "text/plain"),
    ("log", "text/plain"),
    ("conf", "text/plain"),
    ("ini", "text/plain"),
    ("md", "text/markdown"),
    ("markdown", "text/markdown"),
    ("xml", "application/xml"),
    ("xsl", "application/xml"),
    ("rss", "application/rss+xml"),
    ("atom", "application/atom+xml"),
    ("yaml", "text/yaml"),
    ("yml", "text/yaml"),
    ("ics", "text/calendar"),
    ("vtt", "text/vtt"),
    ("svg", "image/svg+xml"),
    ("svgz", "image/svg+xml"),
    ("png", "image/png"),
    ("apng", "image/apng"),
    ("jpg", "image/jpeg"),
    ("jpeg", "image/jpeg"),
    ("jpe", "image/jpeg"),
    ("gif", "image/gif"),
    ("webp", "image/webp"),
    ("avif", "image/avif"),
    ("bmp", "image/bmp"),
    ("tif", "image/tiff"),
    ("tiff", "image/tiff"),
    ("ico", "image/x-icon"),
    ("pdf", "application/pdf"),
    ("zip", "application/zip"),
    ("gz", "application/gzip"),
    ("tgz", "application/gzip"),
    ("tar", "application/x-tar"),
    ("bz2", "application/x-bzip2"),
    ("7z", "application/x-7z-compressed"),
    ("rar", "application/vnd.rar"),
    ("jar", "application/java-archive"),
    ("wasm", "application/wasm"),
    ("bin", DEFAULT),
    ("exe", DEFAULT),
    ("dll", DEFAULT),
    ("iso", DEFAULT),
    ("doc", "application/msword"),
    (
        "docx",
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    ),
    ("xls", "application/vnd.ms-excel"),
    (
        "xlsx",
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    ),
    ("ppt", "application/vnd.ms-powerpoint"),
    (
        "pptx",
        "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    ),
    ("rtf", "application/rtf"),
    ("epub", "application/epub+zip"),
    ("swf", "application/x-shockwave-flash"),
    ("woff", "font/woff"),
    ("woff2", "font/woff2"),
    ("ttf", "font/ttf"),
    ("otf", "font/otf"),
    ("eot", "application/vnd.ms-fontobject"),
    ("mp4", "video/mp4"),
    ("m4v", "video/mp4"),
    ("mpeg", "video/mpeg"),
    ("mpg", "video/mpeg"),
    ("webm", "video/webm"),
    ("ogv", "video/ogg"),
    ("mov", "video/quicktime"),
    ("avi", "video/x-msvideo"),
    ("flv", "video/x-flv"),
    ("mkv", "video/x-matroska"),
    ("ts", "video/mp2t"),
    ("m3u8", "application/vnd.apple.mpegurl"),
    ("mp3", "audio/mpeg"),
    ("m4a", "audio/mp4"),
    ("aac", "audio/aac"),
    ("ogg", "audio/ogg"),
    ("oga", "audio/ogg"),
    ("opus", "audio/ogg"),
    ("wav", "audio/wav"),
    ("flac", "audio/flac"),
    ("weba", "audio/webm"),
    ("mid", "audio/midi"),
    ("midi", "audio/midi"),
];

/// The table. Values are `&'static str` because a response header borrows
/// them; a type a script adds is leaked once (scripts add a handful).
fn table() -> &'static Mutex<HashMap<String, &'static str>> {
    static TABLE: OnceLock<Mutex<HashMap<String, &'static str>>> = OnceLock::new();
    TABLE.get_or_init(|| {
        Mutex::new(
            SEED.iter()
                .map(|(ext, ty)| ((*ext).to_string(), *ty))
                .collect(),
        )
    })
}

fn with<R>(f: impl FnOnce(&mut HashMap<String, &'static str>) -> R) -> R {
    let mut guard = table().lock().unwrap_or_else(|p| p.into_inner());
    f(&mut guard)
}

/// What follows the last `.` of `name`, lower case; all of `name` if it has
/// no dot (as Swoole: `swoole_mime_type_exists('html')` is true).
pub fn suffix(name: &str) -> String {
    let s = name.rsplit_once('.').map_or(name, |(_, s)| s);
    s.to_ascii_lowercase()
}

/// The content type for a file name; `application/octet-stream` if unknown.
pub fn get(name: &str) -> &'static str {
    let key = suffix(name);
    with(|t| t.get(&key).copied()).unwrap_or(DEFAULT)
}

pub fn for_path(path: &std::path::Path) -> &'static str {
    get(&path.to_string_lossy())
}

pub fn exists(name: &str) -> bool {
    let key = suffix(name);
    with(|t| t.contains_key(&key))
}

/// Adds a type for a new suffix; false if the suffix has one.
pub fn add(suffix: &str, mime: &str) -> bool {
    let key = suffix.to_ascii_lowercase();
    with(|t| {
        if t.contains_key(&key) {
            return false;
        }
        t.insert(key, leak(mime));
        true
    })
}

/// Sets (adds or replaces) the type of a suffix.
pub fn set(suffix: &str, mime: &str) {
    let key = suffix.to_ascii_lowercase();
    with(|t| t.insert(key, leak(mime)));
}

/// Removes a suffix; false if it had no type.
pub fn delete(suffix: &str) -> bool {
    let key = suffix.to_ascii_lowercase();
    with(|t| t.remove(&key).is_some())
}

/// Every type in the table (one entry per suffix).
pub fn list() -> Vec<&'static str> {
    with(|t| t.values().copied().collect())
}

fn leak(s: &str) -> &'static str {
    Box::leak(s.to_string().into_boxed_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffix_is_after_the_last_dot_in_lower_case() {
        assert_eq!(suffix("a/b.tar.GZ"), "gz");
        assert_eq!(suffix("html"), "html");
        assert_eq!(get("x.y/readme"), DEFAULT);
        assert_eq!(get("INDEX.HTML"), "text/html");
    }

    #[test]
    fn add_set_delete() {
        assert!(add("rsw-test", "x/a"));
        assert!(!add("rsw-test", "x/b"));
        assert_eq!(get("f.rsw-test"), "x/a");
        set("rsw-test", "x/c");
        assert_eq!(get("f.rsw-test"), "x/c");
        assert!(list().contains(&"x/c"));
        assert!(delete("rsw-test"));
        assert!(!delete("rsw-test"));
        assert!(!exists("f.rsw-test"));
    }
}
