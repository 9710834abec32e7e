//! SWOOLE_HOOK_TCP/UDP/UNIX/UDG: PHP's `tcp://`, `udp://`, `unix://` and
//! `udg://` transports replaced by ones whose connect, read, write and
//! accept suspend only the calling coroutine while the socket is not ready.
//!
//! PHP's own factory still builds each socket stream; ours then points the
//! stream's `ops` at a copy of PHP's socket ops whose `read`, `write`,
//! `set_option` and `close` first wait for readiness in the coroutine
//! (`coro::fdwait`) and then call PHP's operation, which finds the socket
//! ready and does not block. The stream's private data stays PHP's
//! `php_netstream_data_t`, so libraries that read it (phpredis sets
//! TCP_NODELAY through it) and every timeout set through the stream API
//! (`default_socket_timeout`, a context, `stream_set_timeout`, phpredis's
//! and mysqlnd's own) keep working: the wait uses the stream's own timeout.
//! A connect is turned into PHP's asynchronous connect plus a wait for
//! writability. Outside a coroutine every operation is PHP's, unchanged.
//!
//! SWOOLE_HOOK_SSL/TLS: `ssl://`, `tls://` (and `tlsv1.x://`) streams are
//! ext/openssl's, hooked the same way; PHP's OpenSSL code still does the
//! TLS (so every `ssl` context option works as in PHP). Their connect runs
//! without `enable_on_connect`, then the handshake is PHP's crypto enable
//! driven non-blocking, with a coroutine wait between its attempts; reads
//! wait only when OpenSSL holds no decrypted bytes (`SSL_pending`). The same
//! applies to `stream_socket_enable_crypto()` (and mysqlnd's TLS) on a hooked
//! `tcp://` stream, which is an ext/openssl stream too.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use ext_php_rs::ffi::{
    php_stream, php_stream_context, php_stream_ops, zend_hash_str_find, HashTable,
};
use ext_php_rs::types::{ZendStr, Zval};

use super::runtime::{in_coroutine, HOOK_TCP, HOOK_UDG, HOOK_UDP, HOOK_UNIX};
use crate::coro::fdwait::{self, Want};

/// `php_netstream_data_t` (main/php_network.h, PHP 8.2): the private data
/// of every socket stream.
#[repr(C)]
struct NetStreamData {
    socket: c_int,
    is_blocked: c_char,
    timeout: libc::timeval,
    timeout_event: c_char,
    ownsize: usize,
}

/// `php_stream_xport_param` (main/streams/php_stream_transport.h, PHP 8.2).
#[repr(C)]
struct XportParam {
    op: c_int,
    /// Bit fields: want_addr:1, want_textaddr:1, want_errortext:1, how:2.
    bits: u32,
    inputs: XportInputs,
    outputs: XportOutputs,
}

#[repr(C)]
struct XportInputs {
    name: *mut c_char,
    namelen: usize,
    timeout: *mut libc::timeval,
    addr: *mut libc::sockaddr,
    buf: *mut c_char,
    buflen: usize,
    addrlen: libc::socklen_t,
    backlog: c_int,
    flags: c_int,
}

#[repr(C)]
struct XportOutputs {
    client: *mut php_stream,
    addr: *mut libc::sockaddr,
    addrlen: libc::socklen_t,
    textaddr: *mut ext_php_rs::ffi::zend_string,
    error_text: *mut ext_php_rs::ffi::zend_string,
    returncode: c_int,
    error_code: c_int,
}

const _: () = {
    assert!(std::mem::size_of::<NetStreamData>() == 40);
    assert!(std::mem::offset_of!(NetStreamData, timeout) == 8);
    assert!(std::mem::offset_of!(NetStreamData, timeout_event) == 24);
    assert!(std::mem::offset_of!(XportParam, inputs) == 8);
    assert!(std::mem::offset_of!(XportParam, outputs) == 72);
    assert!(std::mem::size_of::<XportParam>() == 120);
};

const PHP_STREAM_OPTION_XPORT_API: c_int = 7;
const PHP_STREAM_OPTION_CRYPTO_API: c_int = 8;
const STREAM_XPORT_CRYPTO_OP_ENABLE: c_int = 1;
/// `SWOOLE_HOOK_SSL` / `SWOOLE_HOOK_TLS`.
pub const HOOK_SSL: i64 = 1 << 5;
pub const HOOK_TLS: i64 = 1 << 6;
const STREAM_XPORT_OP_CONNECT: c_int = 1;
const STREAM_XPORT_OP_ACCEPT: c_int = 3;
const STREAM_XPORT_OP_CONNECT_ASYNC: c_int = 4;
const STREAM_XPORT_OP_RECV: c_int = 7;
const WANT_ERRORTEXT: u32 = 1 << 2;

/// `php_stream_transport_factory_func` (STREAMS_DC is empty in a release
/// build of PHP).
type Factory = unsafe extern "C" fn(
    proto: *const c_char,
    protolen: usize,
    resourcename: *const c_char,
    resourcenamelen: usize,
    persistent_id: *const c_char,
    options: c_int,
    flags: c_int,
    timeout: *mut libc::timeval,
    context: *mut php_stream_context,
) -> *mut php_stream;

extern "C" {
    // PHPAPI HashTable *php_stream_xport_get_hash(void);
    fn php_stream_xport_get_hash() -> *mut HashTable;
    // ZEND_API ZEND_COLD zend_result zend_exception_error(zend_object *ex, int severity);
    fn zend_exception_error(ex: *mut ext_php_rs::ffi::zend_object, severity: c_int) -> c_int;
}

const TRANSPORTS: [(&str, i64); 10] = [
    ("tcp", HOOK_TCP),
    ("udp", HOOK_UDP),
    ("unix", HOOK_UNIX),
    ("udg", HOOK_UDG),
    ("ssl", HOOK_SSL),
    ("tls", HOOK_TLS),
    ("tlsv1.0", HOOK_TLS),
    ("tlsv1.1", HOOK_TLS),
    ("tlsv1.2", HOOK_TLS),
    ("tlsv1.3", HOOK_TLS),
];

/// `php_stream_xport_crypto_param` (main/streams/php_stream_transport.h).
#[repr(C)]
struct CryptoParam {
    session: *mut php_stream,
    activate: c_int,
    method: c_int,
    returncode: c_int,
    op: c_int,
}

/// The head of ext/openssl's `php_openssl_netstream_data_t` (PHP 8.2,
/// ext/openssl/xp_ssl.c): PHP's socket data first, then the TLS state.
#[repr(C)]
struct OpensslData {
    s: NetStreamData,
    ssl_handle: *mut c_void,
    ctx: *mut c_void,
    connect_timeout: libc::timeval,
    enable_on_connect: c_int,
    is_client: c_int,
    ssl_active: c_int,
    method: c_int,
}

const _: () = {
    assert!(std::mem::size_of::<CryptoParam>() == 24);
    assert!(std::mem::offset_of!(OpensslData, enable_on_connect) == 72);
    assert!(std::mem::offset_of!(OpensslData, method) == 84);
};

/// The label of ext/openssl's socket ops (`php_openssl_socket_ops`).
const OPENSSL_OPS_LABEL: &[u8] = b"tcp_socket/ssl";

extern "C" {
    // PHPAPI int php_stream_xport_crypto_setup(php_stream *stream,
    //     php_stream_xport_crypt_method_t crypto_method, php_stream *session_stream);
    fn php_stream_xport_crypto_setup(
        stream: *mut php_stream,
        method: c_int,
        session: *mut php_stream,
    ) -> c_int;
    // PHPAPI int php_stream_xport_crypto_enable(php_stream *stream, int activate);
    fn php_stream_xport_crypto_enable(stream: *mut php_stream, activate: c_int) -> c_int;
    // PHPAPI php_stream_context *php_stream_context_alloc(void);
    fn php_stream_context_alloc() -> *mut php_stream_context;
    // PHPAPI php_stream_context *php_stream_context_set(php_stream *stream, php_stream_context *context);
    fn php_stream_context_set(
        stream: *mut php_stream,
        context: *mut php_stream_context,
    ) -> *mut php_stream_context;
    // PHPAPI zval *php_stream_context_get_option(php_stream_context *context,
    //     const char *wrappername, const char *optionname);
    fn php_stream_context_get_option(
        context: *mut php_stream_context,
        wrapper: *const c_char,
        option: *const c_char,
    ) -> *mut ext_php_rs::ffi::zval;
    // PHPAPI void php_stream_context_set_option(php_stream_context *context,
    //     const char *wrappername, const char *optionname, zval *optionvalue);
    fn php_stream_context_set_option(
        context: *mut php_stream_context,
        wrapper: *const c_char,
        option: *const c_char,
        value: *mut ext_php_rs::ffi::zval,
    );
    // PHPAPI int _php_stream_free(php_stream *stream, int close_options);
    fn _php_stream_free(stream: *mut php_stream, close_options: c_int) -> c_int;
}

/// `PHP_STREAM_FREE_CLOSE`.
const PHP_STREAM_FREE_CLOSE: c_int = 3;

/// libssl's `SSL_pending`, looked up in the process (PHP's ext/openssl
/// brought libssl in); None without it.
fn ssl_pending_fn() -> Option<unsafe extern "C" fn(*const c_void) -> c_int> {
    static F: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    let p = *F.get_or_init(|| {
        // SAFETY: dlsym on the global namespace with a NUL-terminated name.
        unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"SSL_pending".as_ptr()) as usize }
    });
    // SAFETY: a non-null `SSL_pending` has this C signature.
    (p != 0).then(|| unsafe {
        std::mem::transmute::<usize, unsafe extern "C" fn(*const c_void) -> c_int>(p)
    })
}

/// The OpenSSL data of an ext/openssl stream (PHP's ops label tells).
///
/// # Safety
/// `stream` is a live hooked stream.
unsafe fn openssl_data<'a>(stream: *mut php_stream) -> Option<&'a mut OpensslData> {
    // SAFETY: the caller's live stream.
    let h = lookup(unsafe { (*stream).ops })?;
    // SAFETY: as above.
    unsafe { openssl_data_of(stream, h) }
}

/// `openssl_data` for a caller that has looked the stream's ops up.
///
/// # Safety
/// `stream` is a live hooked stream whose ops are `h`'s.
unsafe fn openssl_data_of<'a>(stream: *mut php_stream, h: &Hooked) -> Option<&'a mut OpensslData> {
    if !h.ssl {
        return None;
    }
    // SAFETY: an ext/openssl stream's abstract is its OpenSSL data.
    unsafe { (*stream).abstract_.cast::<OpensslData>().as_mut() }
}

/// Swoole's client default: no peer verification unless the `ssl` context
/// sets `verify_peer` (PHP verifies by default). With `verify_peer` given,
/// everything is PHP's.
///
/// # Safety
/// `stream` is a live stream about to run a client handshake.
unsafe fn swoole_verify_default(stream: *mut php_stream) {
    // SAFETY: the caller's live stream; `ctx` is null or a live context
    // resource; the option names are NUL-terminated.
    unsafe {
        let res = (*stream).ctx;
        let mut ctx = if res.is_null() {
            std::ptr::null_mut()
        } else {
            (*res).ptr.cast::<php_stream_context>()
        };
        if ctx.is_null() {
            ctx = php_stream_context_alloc();
            if ctx.is_null() {
                return;
            }
            php_stream_context_set(stream, ctx);
        }
        require_key(ctx);
        if !php_stream_context_get_option(ctx, c"ssl".as_ptr(), c"verify_peer".as_ptr()).is_null() {
            return;
        }
        for opt in [c"verify_peer", c"verify_peer_name"] {
            if php_stream_context_get_option(ctx, c"ssl".as_ptr(), opt.as_ptr()).is_null() {
                let mut z = ext_php_rs::types::Zval::new();
                z.set_bool(false);
                php_stream_context_set_option(ctx, c"ssl".as_ptr(), opt.as_ptr(), &mut z);
            }
        }
    }
}

/// Swoole's `ssl require key file` warning for a client `local_cert`
/// without `local_pk`. When the certificate file holds no private key
/// either (PHP would fail the handshake on it), `local_cert` is dropped and
/// the handshake goes on without a client certificate, as Swoole's does; a
/// combined PEM keeps PHP's behaviour.
///
/// # Safety
/// `ctx` is a live stream context.
unsafe fn require_key(ctx: *mut php_stream_context) {
    // SAFETY: the caller's context; the names are NUL-terminated.
    let cert =
        unsafe { php_stream_context_get_option(ctx, c"ssl".as_ptr(), c"local_cert".as_ptr()) };
    // SAFETY: as above.
    let pk = unsafe { php_stream_context_get_option(ctx, c"ssl".as_ptr(), c"local_pk".as_ptr()) };
    if cert.is_null() || !pk.is_null() {
        return;
    }
    // SAFETY: a live option zval of the context.
    let Some(path) = (unsafe { &*cert.cast::<ext_php_rs::types::Zval>() }).string() else {
        return;
    };
    let has_key =
        std::fs::read(&path).is_ok_and(|b| b.windows(16).any(|w| w == b"PRIVATE KEY-----"));
    if has_key {
        return;
    }
    ext_php_rs::error::php_error(
        &ext_php_rs::flags::ErrorType::Warning,
        "ssl require key file",
    );
    // SAFETY: setting an option separates the context's `ssl` array (PHP's
    // SEPARATE_ARRAY), so the entry can then be deleted from it alone.
    unsafe {
        let mut z = ext_php_rs::types::Zval::new();
        z.set_bool(false);
        php_stream_context_set_option(ctx, c"ssl".as_ptr(), c"local_cert".as_ptr(), &mut z);
        let opts = &(*ctx).options;
        if let Some(ssl) = opts
            .array()
            .and_then(|a| a.get("ssl"))
            .and_then(|z| z.dereference().array())
        {
            let ht = std::ptr::from_ref(ssl).cast_mut();
            ext_php_rs::ffi::zend_hash_str_del(ht, c"local_cert".as_ptr(), "local_cert".len());
        }
    }
}

/// True when TLS is on for the stream (its bytes are records, not data).
///
/// # Safety
/// `stream` is a live hooked stream.
unsafe fn tls_active(stream: *mut php_stream, h: &Hooked) -> bool {
    // SAFETY: as above.
    unsafe { openssl_data_of(stream, h) }.is_some_and(|d| d.ssl_active != 0)
}

/// Decrypted bytes are waiting inside OpenSSL.
///
/// # Safety
/// `stream` is a live hooked stream.
unsafe fn tls_pending(stream: *mut php_stream, h: &Hooked) -> bool {
    // SAFETY: as above.
    let Some(d) = (unsafe { openssl_data_of(stream, h) }) else {
        return false;
    };
    if d.ssl_active == 0 || d.ssl_handle.is_null() {
        return false;
    }
    // SAFETY: a live SSL* of an active TLS stream.
    ssl_pending_fn().is_some_and(|f| unsafe { f(d.ssl_handle) } > 0)
}

fn set_nonblocking(fd: c_int, on: bool) {
    // SAFETY: fcntl on the stream's own open socket.
    unsafe {
        let fl = libc::fcntl(fd, libc::F_GETFL);
        if fl >= 0 {
            let nf = if on {
                fl | libc::O_NONBLOCK
            } else {
                fl & !libc::O_NONBLOCK
            };
            libc::fcntl(fd, libc::F_SETFL, nf);
        }
    }
}

/// PHP's crypto enable on a blocking stream from a coroutine: the stream
/// is made non-blocking for the handshake, so OpenSSL answers "not yet"
/// instead of polling in the thread, and the coroutine waits in between.
///
/// # Safety
/// `stream` is a live hooked stream, `cp` its crypto parameters.
unsafe fn crypto_enable(
    stream: *mut php_stream,
    cp: *mut CryptoParam,
    call: impl Fn(*mut c_void) -> c_int,
) -> c_int {
    // SAFETY: the caller's live stream.
    let Some(sock) = (unsafe { data(stream) }) else {
        return call(cp.cast());
    };
    let fd = sock.socket;
    let timeout = timeout_of(&sock.timeout);
    sock.is_blocked = 0;
    set_nonblocking(fd, true);
    let deadline = timeout.map(|t| std::time::Instant::now() + t);
    let r = loop {
        let r = call(cp.cast());
        // SAFETY: the caller's parameters, filled by PHP's set_option.
        let rc = unsafe { (*cp).returncode };
        if r != 0 || rc != 0 {
            break r;
        }
        let left = deadline.map(|d| d.saturating_duration_since(std::time::Instant::now()));
        if left.is_some_and(|l| l.is_zero()) {
            // SAFETY: as above.
            unsafe { (*cp).returncode = -1 };
            break r;
        }
        match fdwait::wait(fd, Want::Read, left) {
            Ok(true) => {}
            _ => {
                // SAFETY: as above.
                unsafe { (*cp).returncode = -1 };
                break r;
            }
        }
    };
    // SAFETY: the stream outlives the call (PHP holds it).
    if let Some(sock) = unsafe { data(stream) } {
        sock.is_blocked = 1;
    }
    set_nonblocking(fd, false);
    r
}

// Process-wide (see `runtime`): the transport table is the process's.
/// PHP's factory of each transport hooked now, by name.
static FACTORIES: Mutex<Vec<(&'static str, Factory)>> = Mutex::new(Vec::new());
/// The hooked copy of one of PHP's socket ops tables, with what every
/// hooked call needs to know about it. `ops` comes first, so a hooked
/// stream's `ops` pointer is the address of its whole row.
#[repr(C)]
struct Hooked {
    ops: php_stream_ops,
    /// PHP's table this is a copy of (static data).
    orig: *const php_stream_ops,
    /// PHP's table is ext/openssl's.
    ssl: bool,
}

// SAFETY: a row is written once, before it is published, and only read
// afterwards; its pointers are to PHP's static ops tables and labels.
unsafe impl Sync for Hooked {}
// SAFETY: as above (rows are leaked, never moved or freed).
unsafe impl Send for Hooked {}

/// (PHP's ops address, our copy) for every socket ops table met so far;
/// the copies are leaked (a few, for the process's life).
static OPS: Mutex<Vec<(usize, &'static Hooked)>> = Mutex::new(Vec::new());

/// A lock-free copy of the first `OPS` rows' copies, read on every hooked
/// call (the `Mutex` and a label compare per call were ~200 instructions
/// of a Redis command). Rows are written once, under `OPS`'s lock, before
/// `OPS_FAST_LEN` publishes them.
const OPS_FAST_MAX: usize = 16;
static OPS_FAST: [AtomicUsize; OPS_FAST_MAX] = [const { AtomicUsize::new(0) }; OPS_FAST_MAX];
static OPS_FAST_LEN: AtomicUsize = AtomicUsize::new(0);

type FdMap<V> = HashMap<c_int, V, crate::engine::hash::IntBuild>;

thread_local! {
    /// The coroutine reading each hooked socket now, by fd. Boxed: the
    /// dlopen()ed extension has little static TLS room (tools/tls-check.sh).
    static READERS: Box<RefCell<FdMap<crate::coro::Cid>>> = Box::new(RefCell::new(FdMap::default()));
}

fn factories() -> std::sync::MutexGuard<'static, Vec<(&'static str, Factory)>> {
    FACTORIES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn ops_table() -> std::sync::MutexGuard<'static, Vec<(usize, &'static Hooked)>> {
    OPS.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn factory_of(name: &str) -> Option<Factory> {
    factories()
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, f)| *f)
}

/// The value slot of transport `name` in PHP's transport table.
fn slot(name: &str) -> Option<*mut ext_php_rs::ffi::zval> {
    // SAFETY: the transport hash is PHP's process-wide table, used on the
    // PHP thread; the key is passed with its length.
    unsafe {
        let ht = php_stream_xport_get_hash();
        if ht.is_null() {
            return None;
        }
        let zv = zend_hash_str_find(ht, name.as_ptr().cast(), name.len());
        (!zv.is_null()).then_some(zv)
    }
}

/// Hooks the transports whose bits are in `flags`, unhooks the others.
pub fn set(flags: i64) {
    for (name, bit) in TRANSPORTS {
        let hooked = factory_of(name).is_some();
        let Some(zv) = slot(name) else {
            continue;
        };
        if flags & bit != 0 && !hooked {
            // SAFETY: the slot holds a factory pointer (zend_hash_update_ptr
            // in php_stream_xport_register); it is swapped in place.
            unsafe {
                let old = (*zv).value.ptr;
                if old.is_null() {
                    continue;
                }
                let old: Factory = std::mem::transmute::<*mut c_void, Factory>(old);
                factories().push((name, old));
                (*zv).value.ptr = factory as *mut c_void;
            }
        } else if flags & bit == 0 && hooked {
            let old = {
                let mut f = factories();
                f.iter()
                    .position(|(n, _)| *n == name)
                    .map(|i| f.remove(i).1)
            };
            if let Some(old) = old {
                // SAFETY: as above: PHP's factory goes back in its slot.
                unsafe { (*zv).value.ptr = old as *mut c_void };
            }
        }
    }
}

// Our factory for every hooked transport: PHP's builds the stream, then
// its ops are swapped for the hooked copy.
// may_bail: yes, PHP's own factory runs (a user stream-context callback, a warning a handler turns into a fatal).
crate::php::ffi::php_fn!(throw unsafe fn factory(proto: *const c_char, protolen: usize, resourcename: *const c_char, resourcenamelen: usize, persistent_id: *const c_char, options: c_int, flags: c_int, timeout: *mut libc::timeval, context: *mut php_stream_context) -> *mut php_stream => factory_body ?= std::ptr::null_mut());
#[allow(clippy::too_many_arguments)] // PHP's php_stream_transport_factory signature.
unsafe fn factory_body(
    proto: *const c_char,
    protolen: usize,
    resourcename: *const c_char,
    resourcenamelen: usize,
    persistent_id: *const c_char,
    options: c_int,
    flags: c_int,
    timeout: *mut libc::timeval,
    context: *mut php_stream_context,
) -> *mut php_stream {
    // SAFETY: PHP passes the protocol name and its length.
    let name = unsafe { std::slice::from_raw_parts(proto.cast::<u8>(), protolen) };
    let name = std::str::from_utf8(name).unwrap_or("").to_ascii_lowercase();
    let orig = factory_of(&name).or_else(|| factory_of("tcp"));
    let Some(orig) = orig else {
        return std::ptr::null_mut();
    };
    // SAFETY: PHP's own factory with PHP's own arguments.
    let stream = unsafe {
        orig(
            proto,
            protolen,
            resourcename,
            resourcenamelen,
            persistent_id,
            options,
            flags,
            timeout,
            context,
        )
    };
    if !stream.is_null() {
        // SAFETY: a stream PHP's factory just built.
        unsafe { hook(stream) };
    }
    stream
}

/// The `php_stream` of a stream resource zval.
pub fn stream_of(z: &Zval) -> Option<*mut php_stream> {
    let z = z.dereference();
    if !z.is_resource() {
        return None;
    }
    let zp = std::ptr::from_ref(z)
        .cast_mut()
        .cast::<ext_php_rs::ffi::zval>();
    // SAFETY: `zp` is a live resource zval; with a null type name the
    // lookup reports no error and returns null for a non-stream.
    let stream = unsafe {
        stream_fetch(
            zp,
            std::ptr::null(),
            php_file_le_stream(),
            php_file_le_pstream(),
        )
    };
    (!stream.is_null()).then(|| stream.cast())
}

// PHP's stream resource API, for every file of the binding that turns a
// stream resource into its `php_stream` or descriptor.
extern "C" {
    // void *zend_fetch_resource2_ex(zval *res, const char *resource_type_name,
    //     int resource_type1, int resource_type2);
    #[link_name = "zend_fetch_resource2_ex"]
    pub(crate) fn stream_fetch(
        res: *mut ext_php_rs::ffi::zval,
        name: *const c_char,
        t1: c_int,
        t2: c_int,
    ) -> *mut c_void;
    pub(crate) fn php_file_le_stream() -> c_int;
    pub(crate) fn php_file_le_pstream() -> c_int;
    // int _php_stream_cast(php_stream *stream, int castas, void **ret, int show_err);
    #[link_name = "_php_stream_cast"]
    pub(crate) fn stream_cast(
        stream: *mut c_void,
        castas: c_int,
        ret: *mut *mut c_void,
        show_err: c_int,
    ) -> c_int;
}

/// Gives a socket stream made outside the transports (`stream_socket_pair`)
/// the hooked ops.
///
/// # Safety
/// `stream` is a live socket stream (PHP's generic socket ops).
pub unsafe fn adopt(stream: *mut php_stream) {
    // SAFETY: the caller's live socket stream.
    unsafe { hook(stream) }
}

/// Points `stream` at the hooked copy of its ops.
///
/// # Safety
/// `stream` is a live socket stream.
unsafe fn hook(stream: *mut php_stream) {
    // SAFETY: the caller's live stream.
    let ops = unsafe { (*stream).ops };
    if ops.is_null() {
        return;
    }
    let hooked = {
        let mut o = ops_table();
        let key = ops as usize;
        let found = o
            .iter()
            .find(|(p, h)| *p == key || std::ptr::eq(&h.ops, ops))
            .map(|(_, h)| *h);
        if let Some(h) = found {
            std::ptr::from_ref(&h.ops)
        } else {
            // SAFETY: PHP's ops table is static data; a copy is taken.
            let mut copy: php_stream_ops = unsafe { *ops };
            copy.read = Some(read);
            copy.write = Some(write);
            copy.close = Some(close);
            copy.set_option = Some(set_option);
            // SAFETY: PHP's ops table is static data; its label is null or
            // a NUL-terminated static string.
            let ssl = unsafe {
                let label = (*ops).label;
                !label.is_null() && CStr::from_ptr(label).to_bytes() == OPENSSL_OPS_LABEL
            };
            let h: &'static Hooked = Box::leak(Box::new(Hooked {
                ops: copy,
                orig: ops,
                ssl,
            }));
            o.push((key, h));
            let n = OPS_FAST_LEN.load(Ordering::Relaxed);
            if n < OPS_FAST_MAX {
                OPS_FAST[n].store(std::ptr::from_ref(h) as usize, Ordering::Relaxed);
                OPS_FAST_LEN.store(n + 1, Ordering::Release);
            }
            std::ptr::from_ref(&h.ops)
        }
    };
    // SAFETY: the caller's live stream; the new table lives forever.
    unsafe { (*stream).ops = hooked };
}

/// The hooked row behind a hooked stream's ops (None: not a hooked table).
/// Called once per hooked operation; the row then answers PHP's ops and
/// whether they are ext/openssl's without another search.
#[inline]
fn lookup(ops: *const php_stream_ops) -> Option<&'static Hooked> {
    let key = ops as usize;
    let n = OPS_FAST_LEN.load(Ordering::Acquire);
    for row in &OPS_FAST[..n.min(OPS_FAST_MAX)] {
        if row.load(Ordering::Relaxed) == key {
            // SAFETY: published rows are leaked `Hooked`s, fully written
            // before `OPS_FAST_LEN` was stored (Release/Acquire).
            return Some(unsafe { &*(key as *const Hooked) });
        }
    }
    if n < OPS_FAST_MAX {
        return None;
    }
    ops_table()
        .iter()
        .find(|(_, h)| std::ptr::eq(&h.ops, ops))
        .map(|(_, h)| *h)
}

/// PHP's ops behind a hooked stream's ops.
fn original(ops: *const php_stream_ops) -> Option<*const php_stream_ops> {
    lookup(ops).map(|h| h.orig)
}

/// Runs `f` with PHP's ops (`h`'s original) in place on `stream` (PHP's
/// socket code compares `stream->ops` with its own tables, and an accepted
/// stream copies them).
///
/// # Safety
/// `stream` is a live stream whose ops are `h`'s.
#[inline]
unsafe fn with_original<R>(
    stream: *mut php_stream,
    h: &Hooked,
    f: impl FnOnce(&php_stream_ops) -> R,
) -> R {
    let orig = h.orig;
    // SAFETY: the caller's live stream; the original table is PHP's static
    // data.
    unsafe {
        (*stream).ops = orig;
        let r = f(&*orig);
        // The stream may be gone after a close: only the close path
        // (`close` below) skips this.
        (*stream).ops = &h.ops;
        r
    }
}

/// The socket data of a hooked stream (null-checked).
///
/// # Safety
/// `stream` is a live socket stream.
unsafe fn data<'a>(stream: *mut php_stream) -> Option<&'a mut NetStreamData> {
    // SAFETY: every stream the socket factory builds has a
    // php_netstream_data_t as its abstract.
    unsafe { (*stream).abstract_.cast::<NetStreamData>().as_mut() }
}

fn timeout_of(tv: &libc::timeval) -> Option<Duration> {
    if tv.tv_sec < 0 {
        return None;
    }
    Some(Duration::new(
        tv.tv_sec as u64,
        (tv.tv_usec.max(0) as u32) * 1000,
    ))
}

/// Swoole's fatal error for a second reader of one socket.
fn bound_error(fd: c_int, other: crate::coro::Cid, me: crate::coro::Cid) -> ! {
    let msg = format!(
        "Socket#{fd} has already been bound to another coroutine#{other}, reading of the same socket in coroutine#{me} at the same time is not allowed"
    );
    let ex = ext_php_rs::exception::PhpException::new(
        msg,
        super::errors::SWOOLE_ERROR_CO_HAS_BEEN_BOUND as i32,
        super::exception::error_ce(),
    );
    ex.throw();
    if let Some(obj) = ext_php_rs::zend::ExecutorGlobals::take_exception() {
        let raw = obj.into_raw();
        // SAFETY: a live exception object; PHP prints it as "PHP Fatal
        // error: Uncaught ..." (E_ERROR, printed without a bailout).
        unsafe { zend_exception_error(raw, 1) };
    }
    eprint!(
        "\n [Coroutine-{other}] Stack trace:\n -------------------------------------------------------------------\n"
    );
    // As Swoole: the process ends here. `_exit`, not `exit`: nothing of
    // this process (thread-locals, PHP's shutdown) may run after a fatal.
    // SAFETY: ends the process; nothing runs afterwards.
    unsafe { libc::_exit(255) }
}

/// Waits in the coroutine until `stream`'s socket is ready for `want`,
/// within the stream's timeout. False when the timeout ran out (the
/// stream's `timed_out` is then set). `known_busy`: the caller has just
/// seen EAGAIN, so the zero-timeout check is skipped.
///
/// # Safety
/// `stream` is a live hooked socket stream.
unsafe fn wait_ready(stream: *mut php_stream, want: Want, known_busy: bool) -> bool {
    // SAFETY: the caller's live stream.
    let Some(sock) = (unsafe { data(stream) }) else {
        return true;
    };
    let fd = sock.socket;
    if fd < 0 || sock.is_blocked == 0 || !in_coroutine() {
        return true;
    }
    if !known_busy && fdwait::ready_now(fd, want) {
        return true;
    }
    let reader = (want == Want::Read).then(|| bind_reader(fd));
    let timeout = timeout_of(&sock.timeout);
    let r = fdwait::wait_busy(fd, want, timeout);
    drop(reader);
    match r {
        Ok(true) | Err(_) => true,
        Ok(false) => {
            // SAFETY: the stream outlives the wait (PHP holds it for the
            // call that is waiting); re-read after the suspension.
            if let Some(sock) = unsafe { data(stream) } {
                sock.timeout_event = 1;
            }
            false
        }
    }
}

/// The socket of a blocking hooked stream used from a coroutine, when the
/// fast path may do its I/O itself: no progress notifier on the stream's
/// context (PHP's own read/write would call it).
///
/// # Safety
/// `stream` is a live hooked socket stream.
unsafe fn fast_fd(stream: *mut php_stream, h: &Hooked) -> Option<c_int> {
    // SAFETY: the caller's live stream.
    let sock = unsafe { data(stream) }?;
    if sock.socket < 0 || sock.is_blocked == 0 || !in_coroutine() {
        return None;
    }
    // SAFETY: the caller's live stream.
    if h.ssl && unsafe { tls_active(stream, h) } {
        return None;
    }
    // SAFETY: `ctx` is null or a live context resource of the stream.
    unsafe {
        let ctx = (*stream).ctx;
        if !ctx.is_null() {
            let c = (*ctx).ptr.cast::<php_stream_context>();
            if !c.is_null() && !(*c).notifier.is_null() {
                return None;
            }
        }
    }
    sock.timeout_event = 0;
    Some(sock.socket)
}

/// Checks the bound-reader rule for `fd` and marks the current coroutine
/// as its reader until the returned guard drops.
fn bind_reader(fd: c_int) -> ReaderGuard {
    let me = crate::coro::current();
    let other = READERS.with(|r| r.borrow_mut().insert(fd, me));
    if let Some(other) = other.filter(|o| *o != me && crate::coro::exists(*o)) {
        bound_error(fd, other, me);
    }
    ReaderGuard(fd)
}

struct ReaderGuard(c_int);

impl Drop for ReaderGuard {
    fn drop(&mut self) {
        let _ = READERS.try_with(|r| r.borrow_mut().remove(&self.0));
    }
}

/// What the fast path of a hooked read or write ended with.
enum Fast {
    /// Bytes moved: PHP's answer.
    Done(isize),
    /// The stream's timeout ran out.
    TimedOut,
    /// End of stream or an error: PHP's own operation sees it again and
    /// reports it its own way.
    Fallback,
}

/// One non-blocking `recv`/`send`, as an io::Result (`WouldBlock` on EAGAIN).
fn sys(n: isize) -> std::io::Result<isize> {
    if n >= 0 {
        Ok(n)
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// The fast path of read (`want` Read) or write: try `op` at once, and on
/// EAGAIN let the loop retry it whenever the socket is ready, within the
/// stream's timeout.
///
/// # Safety
/// `stream` is a live hooked socket stream, `fd` its socket, and `op`
/// touches only buffers that outlive this call.
unsafe fn fast_io(
    stream: *mut php_stream,
    fd: c_int,
    want: Want,
    mut op: impl FnMut() -> isize + 'static,
) -> Fast {
    loop {
        match sys(op()) {
            Ok(0) if want == Want::Read => return Fast::Fallback,
            Ok(n) => return Fast::Done(n),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
            Err(_) => return Fast::Fallback,
        }
    }
    let _reader = (want == Want::Read).then(|| bind_reader(fd));
    // SAFETY: the caller's live stream.
    let timeout = unsafe { data(stream) }.and_then(|s| timeout_of(&s.timeout));
    match fdwait::io(fd, want, timeout, move || sys(op())) {
        Ok(Some(Ok(0))) if want == Want::Read => Fast::Fallback,
        Ok(Some(Ok(n))) => Fast::Done(n),
        Ok(Some(Err(_))) => Fast::Fallback,
        Ok(None) => {
            // SAFETY: the stream outlives the wait (PHP holds it for the
            // call that is waiting); re-read after the suspension.
            if let Some(sock) = unsafe { data(stream) } {
                sock.timeout_event = 1;
            }
            Fast::TimedOut
        }
        // The coroutine cannot wait here: PHP's own (blocking) operation.
        Err(_) => Fast::Fallback,
    }
}

/// A read or write of an active TLS stream from a coroutine: PHP's
/// operation made non-blocking (OpenSSL would otherwise poll in the thread,
/// for instance after a TLS 1.3 session ticket that carries no data), and a
/// coroutine wait while it moves nothing. None: not such a stream.
///
/// # Safety
/// `stream` is a live hooked stream; `op` is PHP's operation on it.
unsafe fn tls_io(
    stream: *mut php_stream,
    h: &Hooked,
    want: Want,
    op: impl Fn(&php_stream_ops) -> isize,
) -> Option<isize> {
    // SAFETY: the caller's live stream.
    let sock = unsafe { data(stream) }?;
    if sock.socket < 0 || sock.is_blocked == 0 || !in_coroutine() {
        return None;
    }
    // SAFETY: as above.
    if !unsafe { tls_active(stream, h) } {
        return None;
    }
    let fd = sock.socket;
    let timeout = timeout_of(&sock.timeout);
    let deadline = timeout.map(|t| std::time::Instant::now() + t);
    let _reader = (want == Want::Read).then(|| bind_reader(fd));
    loop {
        // SAFETY: the stream is live for this call (PHP holds it).
        unsafe {
            if let Some(d) = data(stream) {
                d.is_blocked = 0;
                d.timeout_event = 0;
            }
        }
        set_nonblocking(fd, true);
        // SAFETY: PHP's operation with PHP's arguments.
        let n = unsafe { with_original(stream, h, &op) };
        set_nonblocking(fd, false);
        // SAFETY: as above.
        unsafe {
            if let Some(d) = data(stream) {
                d.is_blocked = 1;
            }
        }
        // SAFETY: as above.
        if n != 0 || unsafe { (*stream).eof() } != 0 {
            return Some(n);
        }
        // SAFETY: as above.
        if want == Want::Read && unsafe { tls_pending(stream, h) } {
            continue;
        }
        let left = deadline.map(|d| d.saturating_duration_since(std::time::Instant::now()));
        let timed_out = match left {
            Some(l) if l.is_zero() => true,
            _ => match fdwait::wait_busy(fd, want, left) {
                Ok(ready) => !ready,
                // The coroutine cannot wait: PHP's own blocking operation.
                // SAFETY: as above.
                Err(_) => return Some(unsafe { with_original(stream, h, &op) }),
            },
        };
        if timed_out {
            // SAFETY: as above.
            if let Some(d) = unsafe { data(stream) } {
                d.timeout_event = 1;
            }
            return Some(-1);
        }
    }
}

// may_bail: yes, PHP's own read runs (ext/openssl may raise warnings).
crate::php::ffi::php_fn!(throw unsafe fn read(stream: *mut php_stream, buf: *mut c_char, count: usize) -> isize => read_body ?= -1);
unsafe fn read_body(stream: *mut php_stream, buf: *mut c_char, count: usize) -> isize {
    // SAFETY: PHP's live stream for this call.
    let Some(h) = lookup(unsafe { (*stream).ops }) else {
        return -1;
    };
    let ssl = h.ssl;
    let tls = if ssl {
        // SAFETY: PHP's live stream and buffer for this call.
        unsafe {
            tls_io(stream, h, Want::Read, |o| {
                o.read.map_or(-1, |f| f(stream, buf, count))
            })
        }
    } else {
        None
    };
    if let Some(n) = tls {
        return n;
    }
    // In a coroutine: recv without waiting; on EAGAIN suspend until the
    // loop's retry succeeds (or the stream's timeout).
    // SAFETY: PHP's live stream for this call.
    if let Some(fd) = unsafe { fast_fd(stream, h) } {
        let b = buf as usize;
        // SAFETY: `buf` holds `count` bytes for this read, which is still
        // running whenever the loop calls the closure (`fdwait::io`).
        let op = move || unsafe { libc::recv(fd, b as *mut c_void, count, libc::MSG_DONTWAIT) };
        // SAFETY: as above.
        match unsafe { fast_io(stream, fd, Want::Read, op) } {
            Fast::Done(n) => return n,
            // What PHP 8.2's socket read answers on a timeout.
            Fast::TimedOut => return -1,
            Fast::Fallback => {}
        }
    } else {
        // SAFETY: PHP's live stream for this call.
        let pending = ssl && unsafe { tls_pending(stream, h) };
        // SAFETY: as above (OpenSSL holds no decrypted bytes, so the socket
        // must become readable).
        if !pending && !unsafe { wait_ready(stream, Want::Read, false) } {
            return -1;
        }
    }
    // SAFETY: PHP's read with PHP's arguments, the socket now readable.
    unsafe { with_original(stream, h, |o| o.read.map_or(-1, |f| f(stream, buf, count))) }
}

// may_bail: yes, PHP's own write runs.
crate::php::ffi::php_fn!(throw unsafe fn write(stream: *mut php_stream, buf: *const c_char, count: usize) -> isize => write_body ?= -1);
unsafe fn write_body(stream: *mut php_stream, buf: *const c_char, count: usize) -> isize {
    // SAFETY: PHP's live stream for this call.
    let Some(h) = lookup(unsafe { (*stream).ops }) else {
        return -1;
    };
    let tls = if h.ssl {
        // SAFETY: PHP's live stream and buffer for this call.
        unsafe {
            tls_io(stream, h, Want::Write, |o| {
                o.write.map_or(-1, |f| f(stream, buf, count))
            })
        }
    } else {
        None
    };
    if let Some(n) = tls {
        return n;
    }
    // SAFETY: PHP's live stream for this call.
    if let Some(fd) = unsafe { fast_fd(stream, h) } {
        let b = buf as usize;
        // SAFETY: as in `read`: PHP's `count` bytes, alive while waited for.
        let op = move || unsafe { libc::send(fd, b as *const c_void, count, libc::MSG_DONTWAIT) };
        // SAFETY: as above.
        match unsafe { fast_io(stream, fd, Want::Write, op) } {
            Fast::Done(n) => return n,
            Fast::TimedOut => return -1,
            Fast::Fallback => {}
        }
    } else {
        // SAFETY: PHP's live stream for this call.
        if !unsafe { wait_ready(stream, Want::Write, false) } {
            return -1;
        }
    }
    // SAFETY: PHP's write with PHP's arguments, the socket now writable.
    unsafe { with_original(stream, h, |o| o.write.map_or(-1, |f| f(stream, buf, count))) }
}

// may_bail: yes, PHP's own close runs.
crate::php::ffi::php_fn!(throw unsafe fn close(stream: *mut php_stream, close_handle: c_int) -> c_int => close_body ?= 0);
unsafe fn close_body(stream: *mut php_stream, close_handle: c_int) -> c_int {
    // SAFETY: PHP's live stream, not yet closed.
    if let Some(sock) = unsafe { data(stream) } {
        if sock.socket >= 0 {
            fdwait::forget(sock.socket);
            READERS.with(|r| r.borrow_mut().remove(&sock.socket));
        }
    }
    // SAFETY: the stream's ops are hooked ones (this is their close).
    let Some(orig) = original(unsafe { (*stream).ops }) else {
        return 0;
    };
    // SAFETY: PHP's close on PHP's stream; the stream struct itself is
    // freed by the caller afterwards, so its ops are set back first.
    unsafe {
        (*stream).ops = orig;
        (*orig).close.map_or(0, |f| f(stream, close_handle))
    }
}

/// `zend_string` of `text` for an xport error (freed by PHP).
fn error_string(text: &str) -> *mut ext_php_rs::ffi::zend_string {
    ZendStr::new(text, false).into_raw()
}

// may_bail: yes, PHP's own set_option runs (connect, crypto enable).
crate::php::ffi::php_fn!(throw unsafe fn set_option(stream: *mut php_stream, option: c_int, value: c_int, ptrparam: *mut c_void) -> c_int => set_option_body ?= -1);
unsafe fn set_option_body(
    stream: *mut php_stream,
    option: c_int,
    value: c_int,
    ptrparam: *mut c_void,
) -> c_int {
    // SAFETY: PHP's live stream for this call.
    let Some(h) = lookup(unsafe { (*stream).ops }) else {
        return -2;
    };
    if ptrparam.is_null()
        || (option != PHP_STREAM_OPTION_XPORT_API && option != PHP_STREAM_OPTION_CRYPTO_API)
    {
        // The common case (phpredis' liveness check before every command,
        // read-buffer and blocking options): PHP's own, with nothing to wait
        // for; kept out of the large function below.
        // SAFETY: PHP's set_option with PHP's arguments.
        return unsafe {
            with_original(stream, h, |o| {
                o.set_option
                    .map_or(-2, |f| f(stream, option, value, ptrparam))
            })
        };
    }
    // SAFETY: as above.
    unsafe { set_option_api(stream, h, option, value, ptrparam) }
}

/// `set_option` for the transport and crypto APIs (connect, accept, recv,
/// crypto enable), which may wait in the coroutine.
///
/// # Safety
/// As `set_option`; `h` is the stream's hooked row.
#[inline(never)]
unsafe fn set_option_api(
    stream: *mut php_stream,
    h: &'static Hooked,
    option: c_int,
    value: c_int,
    ptrparam: *mut c_void,
) -> c_int {
    let call = |ptrparam: *mut c_void| {
        // SAFETY: PHP's set_option with PHP's arguments.
        unsafe {
            with_original(stream, h, |o| {
                o.set_option
                    .map_or(-2, |f| f(stream, option, value, ptrparam))
            })
        }
    };
    if option == PHP_STREAM_OPTION_CRYPTO_API && !ptrparam.is_null() && in_coroutine() {
        let cp = ptrparam.cast::<CryptoParam>();
        // SAFETY: for the crypto API `ptrparam` is a php_stream_xport_crypto_param;
        // the stream is live for this call.
        unsafe {
            let blocking = data(stream).is_some_and(|d| d.is_blocked != 0 && d.socket >= 0);
            if (*cp).op == STREAM_XPORT_CRYPTO_OP_ENABLE && (*cp).activate != 0 && blocking {
                if openssl_data(stream).is_some_and(|d| d.is_client != 0) {
                    swoole_verify_default(stream);
                }
                return crypto_enable(stream, cp, call);
            }
        }
    }
    if option != PHP_STREAM_OPTION_XPORT_API || ptrparam.is_null() {
        return call(ptrparam);
    }
    let xp = ptrparam.cast::<XportParam>();
    // SAFETY: for the transport API `ptrparam` is a php_stream_xport_param.
    let op = unsafe { (*xp).op };
    match op {
        STREAM_XPORT_OP_CONNECT if in_coroutine() => {
            // An ssl:// stream: connect in the coroutine first, then the
            // handshake (PHP would run it inside its connect, polling).
            // SAFETY: the caller's live stream.
            let tls = unsafe { openssl_data(stream) }
                .filter(|d| d.enable_on_connect != 0)
                .map(|d| {
                    d.enable_on_connect = 0;
                    d.method
                });
            // SAFETY: as above.
            let r = unsafe { connect(stream, xp, call) };
            if let Some(method) = tls {
                // SAFETY: as above; `xp` is the caller's parameters.
                unsafe {
                    if let Some(d) = openssl_data(stream) {
                        d.enable_on_connect = 1;
                    }
                    if (*xp).outputs.returncode == 0 {
                        swoole_verify_default(stream);
                    }
                    if (*xp).outputs.returncode == 0
                        && (php_stream_xport_crypto_setup(stream, method, std::ptr::null_mut()) < 0
                            || php_stream_xport_crypto_enable(stream, 1) < 0)
                    {
                        ext_php_rs::error::php_error(
                            &ext_php_rs::flags::ErrorType::Warning,
                            "Failed to enable crypto",
                        );
                        (*xp).outputs.returncode = -1;
                    }
                }
            }
            r
        }
        STREAM_XPORT_OP_ACCEPT => {
            // SAFETY: as above.
            let timeout = unsafe { (*xp).inputs.timeout.as_ref() }.and_then(timeout_of);
            let mut zero = libc::timeval {
                tv_sec: 0,
                tv_usec: 0,
            };
            // SAFETY: the caller's live stream.
            let fd = unsafe { data(stream) }.map_or(-1, |s| s.socket);
            if fd >= 0 && in_coroutine() && !fdwait::ready_now(fd, Want::Read) {
                if let Ok(false) = fdwait::wait(fd, Want::Read, timeout) {
                    // Timed out: PHP's accept with a zero timeout reports it.
                    // SAFETY: as above; the zero timeval outlives the call.
                    unsafe { (*xp).inputs.timeout = &mut zero };
                }
            }
            // An ssl:// listener: PHP would run the server handshake inside
            // its accept, polling; it runs after the accept instead, hooked.
            // SAFETY: the caller's live stream.
            let tls = unsafe { openssl_data(stream) }
                .filter(|d| d.enable_on_connect != 0 && in_coroutine())
                .map(|d| {
                    d.enable_on_connect = 0;
                    d.method
                });
            let r = call(ptrparam);
            // SAFETY: as above; a new client stream is hooked too.
            unsafe {
                if let Some(d) = openssl_data(stream) {
                    if tls.is_some() {
                        d.enable_on_connect = 1;
                    }
                }
                let client = (*xp).outputs.client;
                if !client.is_null() {
                    hook(client);
                    if let Some(method) = tls {
                        // The server side: STREAM_CRYPTO_IS_CLIENT cleared, as
                        // PHP's accept does.
                        let method = method & !1;
                        if php_stream_xport_crypto_setup(client, method, std::ptr::null_mut()) < 0
                            || php_stream_xport_crypto_enable(client, 1) < 0
                        {
                            ext_php_rs::error::php_error(
                                &ext_php_rs::flags::ErrorType::Warning,
                                "Failed to enable crypto",
                            );
                            _php_stream_free(client, PHP_STREAM_FREE_CLOSE);
                            (*xp).outputs.client = std::ptr::null_mut();
                        }
                    }
                }
            }
            r
        }
        STREAM_XPORT_OP_RECV => {
            // SAFETY: the caller's live stream.
            if !unsafe { wait_ready(stream, Want::Read, false) } {
                // SAFETY: as above.
                unsafe {
                    (*xp).outputs.returncode = -1;
                }
                return 0;
            }
            call(ptrparam)
        }
        _ => call(ptrparam),
    }
}

/// A connect from a coroutine: PHP's asynchronous connect, then a wait for
/// writability within the connect timeout, then SO_ERROR.
///
/// # Safety
/// `stream` is a live hooked stream, `xp` its connect parameters.
unsafe fn connect(
    stream: *mut php_stream,
    xp: *mut XportParam,
    call: impl Fn(*mut c_void) -> c_int,
) -> c_int {
    // SAFETY: the caller's parameters.
    unsafe { (*xp).op = STREAM_XPORT_OP_CONNECT_ASYNC };
    let r = call(xp.cast());
    // SAFETY: as above.
    let xp = unsafe { &mut *xp };
    xp.op = STREAM_XPORT_OP_CONNECT;
    // SAFETY: the caller's live stream.
    let Some(sock) = (unsafe { data(stream) }) else {
        return r;
    };
    let fd = sock.socket;
    let blocking = sock.is_blocked != 0;
    let set_blocking = |fd: c_int| {
        if blocking {
            // SAFETY: fcntl on the stream's own open socket.
            unsafe {
                let fl = libc::fcntl(fd, libc::F_GETFL);
                if fl >= 0 {
                    libc::fcntl(fd, libc::F_SETFL, fl & !libc::O_NONBLOCK);
                }
            }
        }
    };
    match xp.outputs.returncode {
        0 if fd >= 0 => set_blocking(fd),
        1 if fd >= 0 => {
            // SAFETY: PHP passes the connect timeout (or null: none).
            let timeout = unsafe { xp.inputs.timeout.as_ref() }.and_then(timeout_of);
            let err = match fdwait::wait(fd, Want::Write, timeout) {
                Ok(false) => libc::ETIMEDOUT,
                _ => {
                    let mut err: c_int = 0;
                    let mut len = std::mem::size_of::<c_int>() as libc::socklen_t;
                    // SAFETY: getsockopt into a c_int of the given length.
                    let rc = unsafe {
                        libc::getsockopt(
                            fd,
                            libc::SOL_SOCKET,
                            libc::SO_ERROR,
                            (&mut err as *mut c_int).cast(),
                            &mut len,
                        )
                    };
                    if rc != 0 {
                        std::io::Error::last_os_error()
                            .raw_os_error()
                            .unwrap_or(libc::EIO)
                    } else {
                        err
                    }
                }
            };
            if err == 0 {
                set_blocking(fd);
                xp.outputs.returncode = 0;
                xp.outputs.error_code = 0;
            } else {
                xp.outputs.returncode = -1;
                xp.outputs.error_code = err;
                if xp.bits & WANT_ERRORTEXT != 0 && xp.outputs.error_text.is_null() {
                    // SAFETY: strerror returns a static, NUL-terminated text.
                    let text = unsafe { CStr::from_ptr(libc::strerror(err)) };
                    xp.outputs.error_text = error_string(&text.to_string_lossy());
                }
            }
        }
        _ => {}
    }
    r
}
