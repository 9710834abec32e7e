//! `Swoole\Http\Request`: the request arrays (`header`, `server`, `get`,
//! `post`, `cookie`, `files`) are built from the engine's `HttpRequest` on
//! first access, once, and cached as real PHP arrays.
//!
//! Query strings, bodies and cookies are split into pairs by the engine and
//! handed to PHP's own `php_register_variable_safe`, so `a[]=1&b[x]=2`
//! nests exactly as it does in `$_GET`.

use std::cell::RefCell;
use std::ffi::CString;
use std::path::PathBuf;
use std::rc::Rc;

use bytes::Bytes;
use ext_php_rs::convert::IntoZval;
use ext_php_rs::ffi;
use ext_php_rs::prelude::*;
use ext_php_rs::types::{ZendClassObject, ZendHashTable, ZendObject, Zval};

use crate::engine::http::form;

extern "C" {
    // PHPAPI void php_register_variable_ex(const char *var, zval *val, zval *track_vars_array);
    fn php_register_variable_ex(var: *const std::ffi::c_char, val: *mut Zval, track: *mut Zval);
}
pub use super::zval::bytes_zval;
use crate::engine::http::HttpRequest;

/// What the request needs of the server settings.
#[derive(Clone)]
pub struct ParseOptions {
    pub parse_post: bool,
    /// `http_parse_files`: `form[file]` gives `files['form']['name']['file']`
    /// (PHP's `$_FILES` layout) instead of `files['form']['file']['name']`.
    pub parse_files: bool,
    pub parse_cookie: bool,
    pub upload_tmp_dir: PathBuf,
}

#[derive(Default)]
struct Cache {
    header: Option<Zval>,
    server: Option<Zval>,
    get: Option<Zval>,
    cookie: Option<Zval>,
    /// `post` and `files` come from one pass over the body.
    body_parsed: bool,
    /// `get`, `post` and `cookie` are parsed together on the first access
    /// to any of them (so PHP's warnings come in Swoole's order).
    inputs_parsed: bool,
    post: Option<Zval>,
    files: Option<Zval>,
}

#[php_class]
#[php(name = "Swoole\\Http\\Request")]
pub struct Request {
    req: HttpRequest,
    opts: Rc<ParseOptions>,
    cache: RefCell<Cache>,
    /// Uploads written for this request; removed when the request is freed.
    tmpfiles: RefCell<Vec<PathBuf>>,
    /// `Request::create()`: the parser `parse()` feeds, and every byte fed
    /// (`getData()`). `None` for a request the server read.
    created: Option<Box<Created>>,
    /// The fd `Response::create([$server, $request], $fd)` gave it.
    fd_override: std::cell::Cell<Option<i64>>,
}

/// The state of a request made by `Request::create()`.
struct Created {
    parser: crate::engine::http::parse::RequestParser,
    data: Vec<u8>,
}

fn array_zval(ht: ext_php_rs::boxed::ZBox<ZendHashTable>) -> Zval {
    let mut z = Zval::new();
    z.set_hashtable(ht);
    z
}

fn empty_array() -> Zval {
    array_zval(ZendHashTable::new())
}

/// Registers `name=value` into the array in `track` with PHP's nesting rules.
fn register_var(track: &mut Zval, name: &[u8], value: &[u8]) {
    let Ok(cname) = CString::new(name.split(|&c| c == 0).next().unwrap_or(b"")) else {
        return;
    };
    // SAFETY: `cname` is NUL-terminated, `value` is valid for its length and
    // `track` is an array zval we own; PHP copies what it keeps.
    unsafe {
        ffi::php_register_variable_safe(cname.as_ptr(), value.as_ptr().cast(), value.len(), track);
    }
}

/// Registers an arbitrary value (moved into PHP) under `name`.
fn register_value(track: &mut Zval, name: &[u8], value: Zval) {
    let Ok(cname) = CString::new(name.split(|&c| c == 0).next().unwrap_or(b"")) else {
        return;
    };
    let mut value = std::mem::ManuallyDrop::new(value);
    // SAFETY: php_register_variable_ex takes ownership of `value` (it is
    // moved into the array or released by PHP), hence the ManuallyDrop.
    unsafe {
        php_register_variable_ex(cname.as_ptr(), &mut *value, track);
    }
}

/// PHP's truth of a value (`zend_is_true`).
pub fn zval_is_true(v: &Zval) -> bool {
    let mut copy = v.shallow_clone();
    // SAFETY: `zend_is_true` only reads the zval (a shallow copy we own).
    unsafe { ffi::zend_is_true(&mut copy) != 0 }
}

/// An integer php.ini value (`None`: unset or not a number).
fn ini_int(name: &str) -> Option<i64> {
    ext_php_rs::zend::ExecutorGlobals::get()
        .ini_values()
        .get(name)
        .cloned()
        .flatten()
        .and_then(|v| v.trim().parse::<i64>().ok())
}

/// PHP's `max_input_vars` (default 1000).
fn max_input_vars() -> usize {
    ini_int("max_input_vars").map_or(1000, |n| n.max(0) as usize)
}

/// PHP's `max_file_uploads` (default 20).
fn max_file_uploads() -> usize {
    ini_int("max_file_uploads").map_or(20, |n| n.max(0) as usize)
}

/// PHP's `max_multipart_body_parts` (default -1: `max_input_vars` +
/// `max_file_uploads`).
fn max_body_parts() -> usize {
    match ini_int("max_multipart_body_parts") {
        Some(n) if n >= 0 => n as usize,
        _ => max_input_vars() + max_file_uploads(),
    }
}

/// The warning (a server log line, as Swoole writes it) when a request
/// carries more than `max_input_vars`.
fn warn_input_vars(max: usize) {
    crate::rlog!(
        Warning,
        "Input variables exceeded {max}. To increase the limit change max_input_vars in php.ini."
    );
}

/// The pairs as a PHP array, at most `max_input_vars` of them (as PHP's
/// own parser: the rest is dropped, with its warning).
fn pairs_zval(pairs: impl IntoIterator<Item = (Vec<u8>, Vec<u8>)>) -> Zval {
    let max = max_input_vars();
    let mut arr = empty_array();
    for (i, (k, v)) in pairs.into_iter().enumerate() {
        if i >= max {
            warn_input_vars(max);
            break;
        }
        register_var(&mut arr, &k, &v);
    }
    arr
}

impl Request {
    #[inline]
    pub fn new(req: HttpRequest, opts: Rc<ParseOptions>) -> Self {
        Request {
            req,
            opts,
            cache: RefCell::new(Cache::default()),
            tmpfiles: RefCell::new(Vec::new()),
            created: None,
            fd_override: std::cell::Cell::new(None),
        }
    }

    /// The PHP object of `req`: `ZendClassObject::new(Request::new(..))`
    /// with the request written once, where the object keeps it (`new`
    /// copies a built value into the object's memory, and
    /// `ZendClassObject::new_uninit` copies a whole `None` there).
    #[inline]
    pub fn object(req: HttpRequest, opts: Rc<ParseOptions>) -> ext_php_rs::boxed::ZBox<ZendObject> {
        use ext_php_rs::class::RegisteredClass;
        let meta = <Request as RegisteredClass>::get_metadata();
        let ce = std::ptr::from_ref(meta.ce()).cast_mut();
        // SAFETY: as `ZendClassObject::new` does it: a Zend object of the
        // class's size (the Zend allocator bails out rather than return
        // null), its standard part initialised, then its Rust value written
        // (over uninitialised memory: nothing to drop) before anything can
        // see it, then the class's handlers; the box takes the one reference.
        unsafe {
            let size = std::mem::size_of::<ZendClassObject<Request>>();
            let obj =
                ffi::ext_php_rs_zend_object_alloc(size as _, ce).cast::<ZendClassObject<Request>>();
            if obj.is_null() {
                std::process::abort();
            }
            ffi::zend_object_std_init(&raw mut (*obj).std, ce);
            ffi::object_properties_init(&raw mut (*obj).std, ce);
            std::ptr::write(&raw mut (*obj).obj, Some(Request::new(req, opts)));
            (*obj).std.handlers = meta.handlers();
            ext_php_rs::boxed::ZBox::from_raw(obj).into()
        }
    }

    /// An empty request for `Request::create()`, with its options
    /// (`parse_cookie`, `parse_body`, `parse_files`, `upload_tmp_dir`).
    fn created(options: Option<&ZendHashTable>) -> Self {
        let mut opts = ParseOptions {
            parse_post: true,
            parse_files: true,
            parse_cookie: true,
            upload_tmp_dir: PathBuf::from("/tmp"),
        };
        for (k, v) in options.into_iter().flat_map(|h| h.iter()) {
            let key = k.to_string().to_ascii_lowercase();
            let on = || zval_is_true(v);
            match key.as_str() {
                "parse_cookie" => opts.parse_cookie = on(),
                "parse_body" => opts.parse_post = on(),
                "parse_files" => opts.parse_files = on(),
                "upload_tmp_dir" => {
                    if let Some(d) = v.string() {
                        opts.upload_tmp_dir = PathBuf::from(d);
                    }
                }
                _ => {}
            }
        }
        let req = HttpRequest {
            fd: 0,
            // llhttp's method 0, what Swoole's getMethod() gives before a head.
            method: http::Method::DELETE,
            uri: http::Uri::from_static("/"),
            protocol: "HTTP/1.1",
            headers: Default::default(),
            body: Bytes::new(),
            peer: std::net::SocketAddr::from(([0, 0, 0, 0], 0)),
            local: None,
            server_port: 0,
            time: 0.0,
            master_time: 0,
            stream_id: 0,
        };
        let mut r = Request::new(req, Rc::new(opts));
        r.created = Some(Box::new(Created {
            parser: crate::engine::http::parse::RequestParser::new(),
            data: Vec::new(),
        }));
        r
    }

    /// `Response::create([$server, $request], $fd)` ties the request to `$fd`.
    pub fn set_fd(&self, fd: i64) {
        self.fd_override.set(Some(fd));
    }

    /// A created request whose head has not been parsed yet shows empty
    /// `header`/`server` arrays and no inputs (as Swoole).
    fn before_head(&self) -> bool {
        self.created
            .as_ref()
            .is_some_and(|c| c.parser.head().is_none())
    }

    fn build_header(&self) -> Zval {
        let mut ht = ZendHashTable::new();
        for (k, values) in self.req.headers.grouped() {
            if k == "cookie" && self.opts.parse_cookie {
                continue;
            }
            match values[..] {
                [] => {}
                [one] => {
                    let _ = ht.insert(&*k, bytes_zval(one));
                }
                _ => {
                    // A repeated header is a list of its values (as Swoole).
                    let mut list = ZendHashTable::new();
                    for v in values {
                        let _ = list.push(bytes_zval(v));
                    }
                    let _ = ht.insert(&*k, array_zval(list));
                }
            }
        }
        array_zval(ht)
    }

    fn build_server(&self) -> Zval {
        let r = &self.req;
        let mut ht = ZendHashTable::new();
        if let Some(q) = r.query().filter(|q| !q.is_empty()) {
            let _ = ht.insert("query_string", q);
        }
        let _ = ht.insert("request_method", r.method.as_str());
        let _ = ht.insert("request_uri", r.path());
        let _ = ht.insert(
            "path_info",
            bytes_zval(&form::url_decode(r.path().as_bytes())),
        );
        let _ = ht.insert("request_time", r.time as i64);
        let _ = ht.insert("request_time_float", r.time);
        let _ = ht.insert("server_protocol", r.protocol);
        if self.created.is_some() {
            return array_zval(ht);
        }
        let _ = ht.insert("server_port", r.server_port as i64);
        let _ = ht.insert("remote_port", r.peer.port() as i64);
        // An IPv4 client of a dual-stack `::` port: ::ffff:a.b.c.d, as Swoole.
        let ip = |a: std::net::IpAddr| a.to_string();
        if let Some(local) = r.local {
            let _ = ht.insert("server_addr", ip(local.ip()));
        } else if crate::engine::net::listener::is_unix_peer(&r.peer) {
            // A unix port: Swoole gives its path, and no remote address.
            let path = crate::engine::shared::session::get(r.fd)
                .and_then(|s| crate::engine::net::listener::unix_path(s.port_index))
                .unwrap_or_default();
            let _ = ht.insert("server_addr", path);
        }
        if crate::engine::net::listener::is_unix_peer(&r.peer) {
            let _ = ht.insert("remote_addr", "");
        } else {
            let _ = ht.insert("remote_addr", ip(r.peer.ip()));
        }
        let _ = ht.insert("master_time", r.master_time);
        array_zval(ht)
    }

    fn parse_body(&self, cache: &mut Cache) {
        cache.body_parsed = true;
        if !self.opts.parse_post || self.req.body.is_empty() {
            return;
        }
        let ct = self
            .req
            .header("content-type")
            .map(<[u8]>::to_vec)
            .unwrap_or_default();
        let lower = String::from_utf8_lossy(&ct).to_ascii_lowercase();
        if lower.starts_with("application/x-www-form-urlencoded") {
            cache.post = Some(pairs_zval(form::query_pairs(&self.req.body)));
        } else if let Some(boundary) = form::multipart_boundary(&ct) {
            let mut post = empty_array();
            let mut files = empty_array();
            let (mut any_post, mut any_file) = (false, false);
            let (max, mut fields) = (max_input_vars(), 0usize);
            let (mut uploads_left, mut uploads_warned) = (max_file_uploads(), false);
            let max_parts = max_body_parts();
            let (parts, cut) = form::parse_multipart_limited(&self.req.body, &boundary, max_parts);
            if cut {
                // PHP's rfc1867 parser: the parts read so far count.
                crate::rlog!(
                    Warning,
                    "Multipart body parts limit exceeded {max_parts}. To increase the limit change max_multipart_body_parts in php.ini."
                );
            }
            for part in parts {
                match &part.filename {
                    None if fields >= max => {
                        if fields == max {
                            warn_input_vars(max);
                        }
                        fields += 1;
                    }
                    None => {
                        any_post = true;
                        fields += 1;
                        register_var(&mut post, &part.name, &part.data);
                    }
                    // Past `max_file_uploads`, as PHP: one warning, and
                    // the other files are skipped (no entry, no file).
                    Some(fname) if !fname.is_empty() && uploads_left == 0 => {
                        if !uploads_warned {
                            uploads_warned = true;
                            crate::rlog!(
                                Warning,
                                "Maximum number of allowable file uploads has been exceeded"
                            );
                        }
                    }
                    Some(fname) => {
                        if !fname.is_empty() {
                            uploads_left -= 1;
                        }
                        any_file = true;
                        let info = self.save_file(fname, &part.content_type, &part.data);
                        self.register_file(&mut files, &part.name, info);
                    }
                }
            }
            if any_post {
                cache.post = Some(post);
            }
            if any_file {
                cache.files = Some(files);
            }
        }
    }

    /// Puts one upload's entry into `files` under its input name. With
    /// `http_parse_files` a nested name (`form[group][file]`) is split the
    /// way PHP's `$_FILES` is (`form[name][group][file]`, ...).
    fn register_file(&self, files: &mut Zval, name: &[u8], info: Zval) {
        let split = name.iter().position(|&c| c == b'[').filter(|&i| i > 0);
        let (Some(at), true) = (split, self.opts.parse_files) else {
            register_value(files, name, info);
            return;
        };
        let Some(ht) = info.array() else {
            return;
        };
        for key in ["name", "type", "tmp_name", "error", "size"] {
            let Some(v) = ht.get(key) else {
                continue;
            };
            let mut meta = name[..at].to_vec();
            meta.push(b'[');
            meta.extend_from_slice(key.as_bytes());
            meta.push(b']');
            meta.extend_from_slice(&name[at..]);
            register_value(files, &meta, v.shallow_clone());
        }
    }

    /// Writes one upload and returns its entry (Swoole's key order). An
    /// input left empty (no file name) gets `UPLOAD_ERR_NO_FILE`, no file.
    fn save_file(&self, name: &[u8], ctype: &[u8], data: &Bytes) -> Zval {
        let mut ht = ZendHashTable::new();
        if name.is_empty() {
            let _ = ht.insert("type", "");
            let _ = ht.insert("tmp_name", "");
            let _ = ht.insert("size", 0i64);
            let _ = ht.insert("name", "");
            // UPLOAD_ERR_NO_FILE
            let _ = ht.insert("error", 4i64);
            return array_zval(ht);
        }
        let _ = ht.insert("type", bytes_zval(ctype));
        match form::save_upload(&self.opts.upload_tmp_dir, data) {
            Ok(path) => {
                let _ = ht.insert("tmp_name", bytes_zval(form::path_bytes(&path)));
                let _ = ht.insert("size", data.len() as i64);
                let _ = ht.insert("name", bytes_zval(name));
                let _ = ht.insert("error", 0i64);
                uploaded_files::add(form::path_bytes(&path));
                self.tmpfiles.borrow_mut().push(path);
            }
            Err(e) => {
                crate::rlog!(
                    Warning,
                    "upload: cannot write to {}: {e}",
                    self.opts.upload_tmp_dir.display()
                );
                let _ = ht.insert("tmp_name", "");
                let _ = ht.insert("size", 0i64);
                let _ = ht.insert("name", bytes_zval(name));
                // UPLOAD_ERR_CANT_WRITE
                let _ = ht.insert("error", 7i64);
            }
        }
        array_zval(ht)
    }

    fn build_get(&self) -> Option<Zval> {
        self.req
            .query()
            .filter(|q| !q.is_empty())
            .map(|q| pairs_zval(form::query_pairs(q.as_bytes())))
    }

    fn build_cookie(&self) -> Option<Zval> {
        if !self.opts.parse_cookie {
            return None;
        }
        let all = self.req.headers.get_all("cookie");
        let (first, rest) = all.split_first()?;
        if rest.is_empty() {
            return Some(pairs_zval(form::parse_cookie(first)));
        }
        // HTTP/2 clients send one `cookie` field per cookie (RFC 9113
        // 8.2.3): joined with "; " as one header.
        let mut joined = first.to_vec();
        for v in rest {
            joined.extend_from_slice(b"; ");
            joined.extend_from_slice(v);
        }
        Some(pairs_zval(form::parse_cookie(&joined)))
    }

    /// Parses `get`, the body and `cookie` (Swoole's order) once.
    fn parse_inputs(&self) {
        let mut cache = self.cache.borrow_mut();
        if cache.inputs_parsed {
            return;
        }
        cache.inputs_parsed = true;
        if cache.get.is_none() {
            cache.get = self.build_get();
        }
        if !cache.body_parsed {
            self.parse_body(&mut cache);
        }
        if cache.cookie.is_none() {
            cache.cookie = self.build_cookie();
        }
    }

    fn cached(
        &self,
        pick: fn(&mut Cache) -> &mut Option<Zval>,
        build: impl FnOnce(&Self) -> Option<Zval>,
    ) -> Zval {
        let mut cache = self.cache.borrow_mut();
        let slot = pick(&mut cache);
        if slot.is_none() {
            *slot = build(self);
        }
        slot.as_ref().map(Zval::shallow_clone).unwrap_or_default()
    }

    fn body_field(&self, pick: fn(&mut Cache) -> &mut Option<Zval>) -> Zval {
        if self
            .created
            .as_ref()
            .is_some_and(|c| !c.parser.is_complete())
        {
            return Zval::new();
        }
        self.parse_inputs();
        let mut cache = self.cache.borrow_mut();
        if !cache.body_parsed {
            self.parse_body(&mut cache);
        }
        pick(&mut cache)
            .as_ref()
            .map(Zval::shallow_clone)
            .unwrap_or_default()
    }
}

impl Drop for Request {
    fn drop(&mut self) {
        for p in self.tmpfiles.get_mut().drain(..) {
            let _ = std::fs::remove_file(&p);
            uploaded_files::remove(form::path_bytes(&p));
        }
        // The header map's allocation serves a later response.
    }
}

#[php_impl]
impl Request {
    #[php(getter, name = "fd")]
    pub fn prop_fd(&self) -> i64 {
        self.fd_override.get().unwrap_or(self.req.fd)
    }

    #[php(getter, name = "streamId")]
    pub fn prop_stream_id(&self) -> i64 {
        self.req.stream_id as i64
    }

    #[php(getter, name = "header")]
    pub fn prop_header(&self) -> Zval {
        if self.before_head() {
            return empty_array();
        }
        self.cached(|c| &mut c.header, |s| Some(s.build_header()))
    }

    #[php(getter, name = "server")]
    pub fn prop_server(&self) -> Zval {
        if self.before_head() {
            return empty_array();
        }
        self.cached(|c| &mut c.server, |s| Some(s.build_server()))
    }

    #[php(getter, name = "cookie")]
    pub fn prop_cookie(&self) -> Zval {
        if self.before_head() {
            return Zval::new();
        }
        self.parse_inputs();
        self.cached(|c| &mut c.cookie, Self::build_cookie)
    }

    #[php(getter, name = "get")]
    pub fn prop_get(&self) -> Zval {
        if self.before_head() {
            return Zval::new();
        }
        self.parse_inputs();
        self.cached(|c| &mut c.get, Self::build_get)
    }

    #[php(getter, name = "files")]
    pub fn prop_files(&self) -> Zval {
        self.body_field(|c| &mut c.files)
    }

    #[php(getter, name = "post")]
    pub fn prop_post(&self) -> Zval {
        self.body_field(|c| &mut c.post)
    }

    #[php(getter, name = "tmpfiles")]
    pub fn prop_tmpfiles(&self) -> Zval {
        // Uploads are written when `files`/`post` is first read.
        let _ = self.body_field(|c| &mut c.files);
        let list = self.tmpfiles.borrow();
        if list.is_empty() {
            return Zval::new();
        }
        let mut ht = ZendHashTable::new();
        for p in list.iter() {
            let _ = ht.push(bytes_zval(form::path_bytes(p)));
        }
        array_zval(ht)
    }

    /// The request body; `''` when there is none (as Swoole).
    pub fn raw_content(&self) -> Zval {
        bytes_zval(&self.req.body)
    }

    pub fn get_content(&self) -> Zval {
        self.raw_content()
    }

    /// The whole request as text (rebuilt: hyper does not keep the raw
    /// bytes); for a created request every byte given to `parse()`.
    pub fn get_data(&self) -> Zval {
        match &self.created {
            Some(c) => bytes_zval(&c.data),
            None => bytes_zval(&self.req.raw()),
        }
    }

    pub fn get_method(&self) -> String {
        self.req.method.as_str().to_string()
    }

    pub fn is_completed(&self) -> bool {
        self.created.as_ref().is_none_or(|c| c.parser.is_complete())
    }

    /// An empty request to `parse()` raw HTTP into.
    pub fn create(options: Option<&ZendHashTable>) -> Zval {
        match ZendClassObject::new(Request::created(options)).into_zval(false) {
            Ok(z) => z,
            Err(_) => {
                let mut z = Zval::new();
                z.set_bool(false);
                z
            }
        }
    }

    /// Feeds raw request bytes; returns how many were taken (the bytes
    /// after the end of the message are not), false once the request is
    /// complete or when it was not made by `create()`.
    pub fn parse(&mut self, data: &Zval) -> Zval {
        let mut out = Zval::new();
        out.set_bool(false);
        if let Some(Some(n)) = super::http_response::with_scalar_bytes(data, |b| self.feed(b)) {
            out.set_long(n as i64);
        }
        out
    }
}

impl Request {
    fn feed(&mut self, data: &[u8]) -> Option<usize> {
        use crate::engine::http::parse::Fed;
        let c = self.created.as_mut().filter(|c| !c.parser.is_complete())?;
        c.data.extend_from_slice(data);
        let had_head = c.parser.head().is_some();
        let n = match c.parser.feed(data) {
            Fed::Took(n) | Fed::Error(n) => n,
        };
        let (head, complete) = (c.parser.head().cloned(), c.parser.is_complete());
        let body = c.parser.body();
        if let Some(m) = c.parser.method() {
            self.req.method = m;
        }
        if let (Some(h), false) = (&head, had_head) {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs_f64())
                .unwrap_or(0.0);
            self.req.method = h.method.clone();
            self.req.uri = h.uri.clone();
            self.req.protocol = h.protocol;
            self.req.headers = h.headers.clone().into();
            self.req.time = now;
            *self.cache.get_mut() = Cache::default();
        }
        self.req.body = body;
        if complete {
            // `post`/`files` are parsed from the whole body.
            let cache = self.cache.get_mut();
            cache.body_parsed = false;
            cache.inputs_parsed = false;
            cache.post = None;
            cache.files = None;
        }
        Some(n)
    }
}

/// PHP's list of uploaded files (`SG(rfc1867_uploaded_files)`), which
/// `is_uploaded_file()` and `move_uploaded_file()` consult: our uploads are
/// entered as PHP's own request parser enters them (the path as key, a
/// `zend_string` of it as the value) and removed when the request is freed.
mod uploaded_files {
    use ext_php_rs::boxed::ZBox;
    use ext_php_rs::ffi;
    use ext_php_rs::types::{ZendStr, Zval};

    extern "C" {
        // ZEND_API zval* ZEND_FASTCALL zend_hash_str_add(HashTable *ht, const char *key, size_t len, zval *pData);
        // (ZEND_FASTCALL is the plain C convention on x86-64 and aarch64.)
        fn zend_hash_str_add(
            ht: *mut ffi::HashTable,
            key: *const std::ffi::c_char,
            len: usize,
            data: *mut Zval,
        ) -> *mut Zval;
    }

    // may_bail: no.
    crate::php::ffi::php_fn!(log unsafe fn free_filename(zv: *mut ffi::zval) => free_filename_body);
    /// The table's destructor, as PHP's `free_filename`: releases the value.
    unsafe fn free_filename_body(zv: *mut ffi::zval) {
        // SAFETY: every value in the table is an IS_PTR holding a
        // `zend_string` we (or PHP's rfc1867 parser) allocated for it.
        unsafe {
            let p = (*zv).value.ptr as *mut ffi::zend_string;
            if !p.is_null() {
                drop(ZBox::<ZendStr>::from_raw(p.cast()));
            }
        }
    }

    pub fn add(path: &[u8]) {
        // SAFETY: the worker's PHP thread; `sapi_globals` is PHP's (NTS)
        // global. The table is created as PHP creates it (emalloc'ed, freed
        // by `destroy_uploaded_files_hash` at request end).
        unsafe {
            let sg = &raw mut ffi::sapi_globals;
            if (*sg).rfc1867_uploaded_files.is_null() {
                let ht = ffi::_zend_new_array(8);
                if ht.is_null() {
                    return;
                }
                (*ht).pDestructor = Some(free_filename);
                (*sg).rfc1867_uploaded_files = ht;
            }
            let s = ZendStr::new(path, false).into_raw();
            let mut z = Zval::new();
            z.u1.type_info = ffi::IS_PTR;
            z.value.ptr = (s as *mut ZendStr).cast();
            let added = zend_hash_str_add(
                (*sg).rfc1867_uploaded_files,
                path.as_ptr().cast(),
                path.len(),
                &mut z,
            );
            if added.is_null() {
                // Already there: the table keeps its own copy.
                drop(ZBox::<ZendStr>::from_raw(s));
            }
        }
    }

    pub fn remove(path: &[u8]) {
        // SAFETY: as in `add`; deleting a missing key is a no-op.
        unsafe {
            let ht = ffi::sapi_globals.rfc1867_uploaded_files;
            if !ht.is_null() {
                ffi::zend_hash_str_del(ht, path.as_ptr().cast(), path.len());
            }
        }
    }
}

pub fn register(module: ModuleBuilder) -> ModuleBuilder {
    module.class::<Request>()
}
