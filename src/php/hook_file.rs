//! SWOOLE_HOOK_FILE and SWOOLE_HOOK_STDIO, and the `async.file://` stream
//! wrapper: reads and writes of PHP's plain-file streams (`fopen`,
//! `file_get_contents`, `STDIN`, the pipe of `shell_exec`/`popen`) that
//! suspend only the calling coroutine.
//!
//! PHP gives every such stream the one ops table `php_stream_stdio_ops`
//! (writable data in the PHP binary, as Swoole also relies on); with either
//! flag on, its `read`, `write` and `close` entries point here. Per call,
//! in a coroutine:
//! - a regular file or block device (FILE): the `read(2)`/`write(2)` runs
//!   on tokio's blocking thread pool (Swoole's AIO pool) over a buffer of
//!   its own, copied from/into PHP's once it is back, so a canceled
//!   coroutine leaves no thread writing into freed memory;
//! - a pipe, socket or terminal (STDIO): the coroutine waits on the event
//!   loop until the fd is readable/writable, then PHP's own op runs (a
//!   non-blocking fd is left to PHP).
//!
//! Everywhere else (outside a coroutine, where fibers cannot switch, or
//! while `include`/`require` reads a file for the compiler, whose state is
//! not per fiber) PHP's own op runs unchanged. `async.file://PATH` opens
//! PATH with PHP's plain wrapper and gives the stream a copy of the table
//! that takes the FILE path whatever the flags.

use std::cell::RefCell;
use std::collections::HashSet;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};
use std::sync::OnceLock;

use ext_php_rs::ffi::{
    php_register_url_stream_wrapper, php_stream, php_stream_context, php_stream_ops,
    php_stream_statbuf, php_stream_stdio_ops, php_stream_wrapper, php_stream_wrapper_ops,
    zend_string,
};

use super::runtime::in_coroutine;
use crate::coro::fdwait::{self, Want};

extern "C" {
    // PHPAPI php_stream_wrapper php_plain_files_wrapper;
    static mut php_plain_files_wrapper: php_stream_wrapper;
}

/// The protocol of the wrapper (`async.file://`).
const PROTOCOL: &CStr = c"async.file";
/// `ZEND_USER_FUNCTION`.
const ZEND_USER_FUNCTION: u8 = 2;
/// `ZEND_INCLUDE_OR_EVAL`.
const ZEND_INCLUDE_OR_EVAL: u8 = 73;

/// PHP's own entries of `php_stream_stdio_ops`, taken before the first
/// change.
struct Orig(php_stream_ops);
// SAFETY: function pointers and a static label, only ever read.
unsafe impl Sync for Orig {}
// SAFETY: as above.
unsafe impl Send for Orig {}

static ORIG: OnceLock<Orig> = OnceLock::new();
/// PHP's plain-file wrapper ops (what `async.file://` hands on to).
static PLAIN_WOPS: AtomicPtr<php_stream_wrapper_ops> = AtomicPtr::new(std::ptr::null_mut());
/// The ops of `async.file://` streams.
static ASYNC_OPS: AtomicPtr<php_stream_ops> = AtomicPtr::new(std::ptr::null_mut());
static FILE_ON: AtomicBool = AtomicBool::new(false);
static STDIO_ON: AtomicBool = AtomicBool::new(false);

thread_local! {
    /// The fds a hooked op has waited on (registered with the loop): their
    /// registration goes before PHP closes them. Boxed: the dlopen()ed
    /// extension has little static TLS room (tools/tls-check.sh).
    static WAITED: Box<RefCell<HashSet<c_int>>> = Box::new(RefCell::new(HashSet::new()));
}

fn orig() -> Option<&'static php_stream_ops> {
    ORIG.get().map(|o| &o.0)
}

fn save_orig() -> &'static php_stream_ops {
    // SAFETY: PHP's table, read on the PHP thread before any change.
    &ORIG
        .get_or_init(|| Orig(unsafe { std::ptr::read(&raw const php_stream_stdio_ops) }))
        .0
}

/// Module startup: registers `async.file://` and builds its ops table.
pub fn startup() {
    let orig = *save_orig();
    let mut ops = orig;
    ops.read = Some(async_read);
    ops.write = Some(async_write);
    ops.close = Some(stdio_close);
    ASYNC_OPS.store(Box::into_raw(Box::new(ops)), Ordering::SeqCst);
    // SAFETY: the plain wrapper is PHP's static data; its ops table is
    // copied, not changed.
    let plain = unsafe { std::ptr::read(&raw const php_plain_files_wrapper) }.wops;
    if plain.is_null() {
        return;
    }
    PLAIN_WOPS.store(plain.cast_mut(), Ordering::SeqCst);
    // SAFETY: as above.
    let mut wops = unsafe { *plain };
    wops.stream_opener = Some(async_open);
    wops.dir_opener = Some(async_dir_open);
    wops.url_stat = Some(async_url_stat);
    wops.unlink = Some(async_unlink);
    wops.label = c"async.file".as_ptr();
    let wops: &'static php_stream_wrapper_ops = Box::leak(Box::new(wops));
    let wrapper = Box::leak(Box::new(php_stream_wrapper {
        wops,
        abstract_: std::ptr::null_mut(),
        is_url: 0,
    }));
    // SAFETY: MINIT, on the PHP thread; the wrapper lives forever.
    unsafe { php_register_url_stream_wrapper(PROTOCOL.as_ptr(), wrapper) };
}

/// Installs the hooks for the flags that are on and removes the others.
pub fn set(file: bool, stdio: bool) {
    let orig = *save_orig();
    FILE_ON.store(file, Ordering::SeqCst);
    STDIO_ON.store(stdio, Ordering::SeqCst);
    // SAFETY: PHP's ops table is writable data (see the module comment),
    // changed on the PHP thread between stream calls.
    unsafe {
        let t = &raw mut php_stream_stdio_ops;
        if file || stdio {
            (*t).read = Some(stdio_read);
            (*t).write = Some(stdio_write);
            (*t).close = Some(stdio_close);
        } else {
            (*t).read = orig.read;
            (*t).write = orig.write;
            (*t).close = orig.close;
        }
    }
}

/// The start of PHP's `php_stdio_stream_data` (main/streams/plain_wrapper.c).
#[repr(C)]
struct StdioData {
    file: *mut c_void,
    fd: c_int,
}

/// The fd of a stdio stream, if it has one.
///
/// # Safety
/// `stream` is a live stream with (a copy of) PHP's stdio ops.
unsafe fn fd_of(stream: *mut php_stream) -> Option<c_int> {
    // SAFETY: a stdio stream's abstract is its php_stdio_stream_data.
    let data = unsafe { (*stream).abstract_.cast::<StdioData>().as_ref() }?;
    (data.fd >= 0).then_some(data.fd)
}

/// True while `include`/`require` runs in the current frame (the compiler
/// is reading the file).
fn in_include() -> bool {
    // SAFETY: EG(current_execute_data), read on the PHP thread; a user
    // frame's saved opline points into its op array.
    unsafe {
        let ex = ext_php_rs::ffi::executor_globals.current_execute_data;
        if ex.is_null() {
            return false;
        }
        let f = (*ex).func;
        if f.is_null() || (*f).type_ != ZEND_USER_FUNCTION {
            return false;
        }
        let op = (*ex).opline;
        !op.is_null() && (*op).opcode == ZEND_INCLUDE_OR_EVAL
    }
}

/// What a hooked call does.
enum Route {
    /// PHP's own op.
    Php,
    /// Wait on the loop for the fd, then PHP's op.
    Wait(c_int),
    /// The system call on the blocking pool.
    Pool(c_int),
}

/// # Safety
/// `stream` is a live stdio stream.
unsafe fn route(stream: *mut php_stream, forced: bool) -> Route {
    if !in_coroutine() || in_include() {
        return Route::Php;
    }
    // SAFETY: the caller's stream.
    let Some(fd) = (unsafe { fd_of(stream) }) else {
        return Route::Php;
    };
    let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: `st` is a valid out-pointer.
    if unsafe { libc::fstat(fd, st.as_mut_ptr()) } != 0 {
        return Route::Php;
    }
    // SAFETY: fstat succeeded.
    let mode = unsafe { st.assume_init() }.st_mode & libc::S_IFMT;
    if mode == libc::S_IFREG || mode == libc::S_IFBLK {
        if forced || FILE_ON.load(Ordering::Relaxed) {
            return Route::Pool(fd);
        }
        return Route::Php;
    }
    if !STDIO_ON.load(Ordering::Relaxed) {
        return Route::Php;
    }
    // SAFETY: F_GETFL on an open fd.
    let fl = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if fl < 0 || fl & libc::O_NONBLOCK != 0 {
        return Route::Php;
    }
    Route::Wait(fd)
}

/// Waits for `fd` from the current coroutine, remembering it for `close`.
fn wait(fd: c_int, want: Want) {
    let _ = WAITED.try_with(|w| w.borrow_mut().insert(fd));
    let _ = fdwait::wait(fd, want, None);
}

/// Runs `read(2)` (`data` None, `len` bytes) or `write(2)` of `data` on the
/// blocking pool; the result and the bytes read, `None` when the coroutine
/// could not wait.
fn pool(fd: c_int, len: usize, data: Option<Vec<u8>>) -> Option<(isize, i32, Vec<u8>)> {
    let job = async move {
        tokio::task::spawn_blocking(move || {
            let (r, buf) = match data {
                // SAFETY: `buf` is this closure's own buffer of its length.
                Some(buf) => (
                    unsafe { libc::write(fd, buf.as_ptr().cast(), buf.len()) },
                    Vec::new(),
                ),
                None => {
                    let mut buf = vec![0u8; len];
                    // SAFETY: as above, `len` bytes.
                    let r = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), len) };
                    buf.truncate(r.max(0) as usize);
                    (r, buf)
                }
            };
            let e = if r < 0 {
                std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
            } else {
                0
            };
            (r, e, buf)
        })
        .await
        .ok()
    };
    crate::coro::io::run(job).ok().flatten()
}

/// # Safety
/// PHP's read op arguments.
unsafe fn do_read(stream: *mut php_stream, buf: *mut c_char, count: usize, forced: bool) -> isize {
    let Some(read) = orig().and_then(|o| o.read) else {
        return -1;
    };
    // SAFETY: the caller's stream.
    match unsafe { route(stream, forced) } {
        Route::Php => {}
        Route::Wait(fd) => wait(fd, Want::Read),
        Route::Pool(fd) => {
            if let Some((r, _, data)) = pool(fd, count, None) {
                if r >= 0 {
                    // SAFETY: `buf` holds `count` bytes; `data` is no longer.
                    unsafe {
                        std::ptr::copy_nonoverlapping(data.as_ptr(), buf.cast(), data.len());
                        if r == 0 {
                            (*stream).set_eof(1);
                        }
                    }
                    return r;
                }
                // An error: PHP's op repeats the call and reports it.
            }
        }
    }
    // SAFETY: PHP's op on its own arguments.
    unsafe { read(stream, buf, count) }
}

/// # Safety
/// PHP's write op arguments.
unsafe fn do_write(
    stream: *mut php_stream,
    buf: *const c_char,
    count: usize,
    forced: bool,
) -> isize {
    let Some(write) = orig().and_then(|o| o.write) else {
        return -1;
    };
    // SAFETY: the caller's stream.
    match unsafe { route(stream, forced) } {
        Route::Php => {}
        Route::Wait(fd) => wait(fd, Want::Write),
        Route::Pool(fd) if count > 0 => {
            // SAFETY: `buf` holds `count` bytes.
            let data = unsafe { std::slice::from_raw_parts(buf.cast::<u8>(), count) }.to_vec();
            if let Some((r, _, _)) = pool(fd, count, Some(data)) {
                if r >= 0 {
                    return r;
                }
            }
        }
        Route::Pool(_) => {}
    }
    // SAFETY: PHP's op on its own arguments.
    unsafe { write(stream, buf, count) }
}

// may_bail: yes, PHP's own plain-file op runs.
crate::php::ffi::php_fn!(throw unsafe fn stdio_read(stream: *mut php_stream, buf: *mut c_char, count: usize) -> isize => stdio_read_body ?= -1);
unsafe fn stdio_read_body(stream: *mut php_stream, buf: *mut c_char, count: usize) -> isize {
    // SAFETY: PHP's arguments for this op.
    unsafe { do_read(stream, buf, count, false) }
}

// may_bail: yes, PHP's own plain-file op runs.
crate::php::ffi::php_fn!(throw unsafe fn stdio_write(stream: *mut php_stream, buf: *const c_char, count: usize) -> isize => stdio_write_body ?= -1);
unsafe fn stdio_write_body(stream: *mut php_stream, buf: *const c_char, count: usize) -> isize {
    // SAFETY: PHP's arguments for this op.
    unsafe { do_write(stream, buf, count, false) }
}

// may_bail: yes, PHP's own plain-file op runs.
crate::php::ffi::php_fn!(throw unsafe fn async_read(stream: *mut php_stream, buf: *mut c_char, count: usize) -> isize => async_read_body ?= -1);
unsafe fn async_read_body(stream: *mut php_stream, buf: *mut c_char, count: usize) -> isize {
    // SAFETY: PHP's arguments for this op.
    unsafe { do_read(stream, buf, count, true) }
}

// may_bail: yes, PHP's own plain-file op runs.
crate::php::ffi::php_fn!(throw unsafe fn async_write(stream: *mut php_stream, buf: *const c_char, count: usize) -> isize => async_write_body ?= -1);
unsafe fn async_write_body(stream: *mut php_stream, buf: *const c_char, count: usize) -> isize {
    // SAFETY: PHP's arguments for this op.
    unsafe { do_write(stream, buf, count, true) }
}

// may_bail: yes, PHP's own plain-file op runs.
crate::php::ffi::php_fn!(throw unsafe fn stdio_close(stream: *mut php_stream, close_handle: c_int) -> c_int => stdio_close_body ?= -1);
unsafe fn stdio_close_body(stream: *mut php_stream, close_handle: c_int) -> c_int {
    // SAFETY: the stream being closed, still live.
    if let Some(fd) = unsafe { fd_of(stream) } {
        let waited = WAITED
            .try_with(|w| w.borrow_mut().remove(&fd))
            .unwrap_or(false);
        if waited {
            fdwait::forget(fd);
        }
    }
    let Some(close) = orig().and_then(|o| o.close) else {
        return -1;
    };
    // SAFETY: PHP's op on its own arguments.
    unsafe { close(stream, close_handle) }
}

/// `url` without its `async.file://` prefix.
///
/// # Safety
/// `url` is a NUL-terminated string.
unsafe fn strip(url: *const c_char) -> *const c_char {
    const PREFIX: &[u8] = b"async.file://";
    // SAFETY: the caller's string.
    let s = unsafe { CStr::from_ptr(url) }.to_bytes();
    if s.len() >= PREFIX.len() && s[..PREFIX.len()].eq_ignore_ascii_case(PREFIX) {
        // SAFETY: within the string.
        unsafe { url.add(PREFIX.len()) }
    } else {
        url
    }
}

fn plain() -> Option<(&'static php_stream_wrapper_ops, *mut php_stream_wrapper)> {
    let w = PLAIN_WOPS.load(Ordering::SeqCst);
    // SAFETY: PHP's static ops table (set once in `startup`).
    let w = unsafe { w.as_ref() }?;
    Some((w, &raw mut php_plain_files_wrapper))
}

// may_bail: yes, PHP's own plain-file op runs.
crate::php::ffi::php_fn!(throw unsafe fn async_open(_wrapper: *mut php_stream_wrapper, filename: *const c_char, mode: *const c_char, options: c_int, opened_path: *mut *mut zend_string, context: *mut php_stream_context) -> *mut php_stream => async_open_body ?= std::ptr::null_mut());
unsafe fn async_open_body(
    _wrapper: *mut php_stream_wrapper,
    filename: *const c_char,
    mode: *const c_char,
    options: c_int,
    opened_path: *mut *mut zend_string,
    context: *mut php_stream_context,
) -> *mut php_stream {
    let Some((wops, w)) = plain() else {
        return std::ptr::null_mut();
    };
    let Some(open) = wops.stream_opener else {
        return std::ptr::null_mut();
    };
    // SAFETY: PHP's opener with PHP's arguments (the path without prefix).
    let s = unsafe { open(w, strip(filename), mode, options, opened_path, context) };
    let ops = ASYNC_OPS.load(Ordering::SeqCst);
    // SAFETY: a stream the plain opener just made; a stdio one gets the
    // async copy of its table.
    unsafe {
        if !s.is_null() && !ops.is_null() && (*s).ops == (&raw const php_stream_stdio_ops) {
            (*s).ops = ops;
        }
    }
    s
}

// may_bail: yes, PHP's own plain-file op runs.
crate::php::ffi::php_fn!(throw unsafe fn async_dir_open(_wrapper: *mut php_stream_wrapper, filename: *const c_char, mode: *const c_char, options: c_int, opened_path: *mut *mut zend_string, context: *mut php_stream_context) -> *mut php_stream => async_dir_open_body ?= std::ptr::null_mut());
unsafe fn async_dir_open_body(
    _wrapper: *mut php_stream_wrapper,
    filename: *const c_char,
    mode: *const c_char,
    options: c_int,
    opened_path: *mut *mut zend_string,
    context: *mut php_stream_context,
) -> *mut php_stream {
    let Some(open) = plain().and_then(|(o, _)| o.dir_opener) else {
        return std::ptr::null_mut();
    };
    let w = &raw mut php_plain_files_wrapper;
    // SAFETY: PHP's opener with PHP's arguments (the path without prefix).
    unsafe { open(w, strip(filename), mode, options, opened_path, context) }
}

// may_bail: yes, PHP's own plain-file op runs.
crate::php::ffi::php_fn!(throw unsafe fn async_url_stat(_wrapper: *mut php_stream_wrapper, url: *const c_char, flags: c_int, ssb: *mut php_stream_statbuf, context: *mut php_stream_context) -> c_int => async_url_stat_body ?= -1);
unsafe fn async_url_stat_body(
    _wrapper: *mut php_stream_wrapper,
    url: *const c_char,
    flags: c_int,
    ssb: *mut php_stream_statbuf,
    context: *mut php_stream_context,
) -> c_int {
    let Some(stat) = plain().and_then(|(o, _)| o.url_stat) else {
        return -1;
    };
    let w = &raw mut php_plain_files_wrapper;
    // SAFETY: PHP's op with PHP's arguments (the path without prefix).
    unsafe { stat(w, strip(url), flags, ssb, context) }
}

// may_bail: yes, PHP's own plain-file op runs.
crate::php::ffi::php_fn!(throw unsafe fn async_unlink(_wrapper: *mut php_stream_wrapper, url: *const c_char, options: c_int, context: *mut php_stream_context) -> c_int => async_unlink_body ?= -1);
unsafe fn async_unlink_body(
    _wrapper: *mut php_stream_wrapper,
    url: *const c_char,
    options: c_int,
    context: *mut php_stream_context,
) -> c_int {
    let Some(unlink) = plain().and_then(|(o, _)| o.unlink) else {
        return 0;
    };
    let w = &raw mut php_plain_files_wrapper;
    // SAFETY: PHP's op with PHP's arguments (the path without prefix).
    unsafe { unlink(w, strip(url), options, context) }
}
