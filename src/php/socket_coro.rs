//! `Swoole\Coroutine\Socket` (alias `Co\Socket`) and
//! `Swoole\Coroutine\Socket\Exception`, over `engine::net::socket`.
//!
//! Every wait is a task on the event loop (`coro::io::run`): one attempt is
//! made at once, and only if the socket is not ready does the calling
//! coroutine suspend. One coroutine at a time may read (and one write) a
//! socket; a second one gets Swoole's "already bound" `Swoole\Error`.
//! The framing and timeout settings parsed here are shared with
//! `Coroutine\Client` and `Swoole\Client`.

use std::cell::RefCell;
use std::io;
use std::rc::Rc;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use ext_php_rs::boxed::ZBox;
use ext_php_rs::class::RegisteredClass;
use ext_php_rs::error::php_error;
use ext_php_rs::exception::{PhpException, PhpResult};
use ext_php_rs::flags::ErrorType;
use ext_php_rs::prelude::*;
use ext_php_rs::types::{PhpRef, ZendClassObject, ZendHashTable, ZendObject, Zval};

use super::errors::{
    os_error_text, out_of_coroutine, set_last_error, swoole_error_text,
    SWOOLE_ERROR_CO_HAS_BEEN_BOUND,
};
use super::exception::{error_ce, exception_ce};
pub use super::zval::bytes_zval;
pub use super::zval::false_zval;
use super::CeRef;
use crate::coro::{self, Cid};
use crate::engine::net::framing::{Framing, LengthType};
use crate::engine::net::socket::{
    self as ns, addr_parts, literal_addr, recv_from_op, recv_op, Dir, NetSocket, Protocol2,
};
use crate::engine::tls::client::{self as tls_client, Session, TlsOptions};

pub const SWOOLE_EVENT_READ: i64 = 512;
pub const SWOOLE_EVENT_WRITE: i64 = 1024;
/// `SW_ERROR_PACKAGE_LENGTH_TOO_LARGE`.
pub const ERR_PACKAGE_TOO_LARGE: i64 = 1203;
/// `SW_ERROR_PACKAGE_MALFORMED_DATA`.
pub const ERR_PACKAGE_MALFORMED: i64 = 1206;
const BUFFER_SIZE_BIG: usize = 65536;
/// `SWOOLE_IOV_MAX` (Linux's IOV_MAX).
const IOV_MAX: usize = 1024;

static EXCEPTION: OnceLock<CeRef> = OnceLock::new();

pub fn socket_exception(msg: impl Into<String>, code: i32) -> PhpException {
    let ce = EXCEPTION.get().map_or_else(exception_ce, |c| c.0);
    PhpException::new(msg.into(), code, ce)
}

/// Swoole's connect/read/write timeouts (seconds, negative = forever).
#[derive(Debug, Clone, Copy)]
pub struct Timeouts {
    pub connect: f64,
    pub read: f64,
    pub write: f64,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            connect: 10.0,
            read: 60.0,
            write: 60.0,
        }
    }
}

/// The deadline for an operation: `call` (a per-call timeout) when it is
/// not 0, else the socket's own.
pub fn deadline(call: f64, own: f64) -> Option<Instant> {
    let t = if call != 0.0 { call } else { own };
    (t > 0.0 && t.is_finite()).then(|| Instant::now() + Duration::from_secs_f64(t))
}

fn zval_f64(z: &Zval) -> f64 {
    z.double()
        .or_else(|| z.long().map(|l| l as f64))
        .or_else(|| z.bool().map(|b| if b { 1.0 } else { 0.0 }))
        .or_else(|| z.str().and_then(|s| s.trim().parse().ok()))
        .unwrap_or(0.0)
}

fn zval_i64(z: &Zval) -> i64 {
    z.long()
        .or_else(|| z.double().map(|d| d as i64))
        .or_else(|| z.bool().map(i64::from))
        .or_else(|| z.str().and_then(|s| s.trim().parse().ok()))
        .unwrap_or(0)
}

fn truthy(z: &Zval) -> bool {
    if let Some(b) = z.bool() {
        return b;
    }
    if let Some(s) = z.str() {
        return !s.is_empty() && s != "0";
    }
    zval_f64(z) != 0.0
}

fn bytes_of(z: &Zval) -> Vec<u8> {
    if let Some(s) = z.zend_str() {
        return s.as_bytes().to_vec();
    }
    if let Some(l) = z.long() {
        return l.to_string().into_bytes();
    }
    Vec::new()
}

/// Applies the timeout keys of a settings array (`timeout`,
/// `connect_timeout`, `read_timeout`, `write_timeout`).
pub fn apply_timeouts(set: &ZendHashTable, t: &mut Timeouts) {
    if let Some(v) = set.get("timeout") {
        let v = zval_f64(v);
        *t = Timeouts {
            connect: v,
            read: v,
            write: v,
        };
    }
    if let Some(v) = set.get("connect_timeout") {
        t.connect = zval_f64(v);
    }
    if let Some(v) = set.get("read_timeout") {
        t.read = zval_f64(v);
    }
    if let Some(v) = set.get("write_timeout") {
        t.write = zval_f64(v);
    }
}

/// The framing keys of a settings array (`open_eof_check`,
/// `open_length_check`, `package_*`) on top of `base`.
pub fn parse_protocol(set: &ZendHashTable, base: &Protocol2) -> Protocol2 {
    let mut p = base.clone();
    if let Some(v) = set.get("package_max_length") {
        p.max_len = zval_i64(v).max(0) as usize;
    }
    let eof = set.get("package_eof").map(bytes_of);
    let eof_check = set.get("open_eof_check").is_some_and(truthy);
    let eof_split = set.get("open_eof_split").is_some_and(truthy);
    if eof_check || eof_split {
        p.framing = Framing::Eof {
            eof: eof.unwrap_or_else(|| b"\r\n".to_vec()),
            split: eof_split,
        };
    } else if matches!(p.framing, Framing::Eof { .. })
        && (set.get("open_eof_check").is_some() || set.get("open_eof_split").is_some())
    {
        p.framing = Framing::Raw;
    }
    if matches!(p.framing, Framing::Length { .. })
        && set.get("open_length_check").is_some_and(|v| !truthy(v))
    {
        p.framing = Framing::Raw;
    }
    if matches!(p.framing, Framing::Raw) && set.get("open_mqtt_protocol").is_some_and(truthy) {
        p.framing = Framing::Mqtt;
    } else if matches!(p.framing, Framing::Mqtt)
        && set.get("open_mqtt_protocol").is_some_and(|v| !truthy(v))
    {
        p.framing = Framing::Raw;
    }
    if set.get("open_length_check").is_some_and(truthy) {
        let kind = set
            .get("package_length_type")
            .and_then(|v| v.str().and_then(LengthType::from_letter))
            .unwrap_or(LengthType::U32Be);
        let length_offset = set
            .get("package_length_offset")
            .map_or(0, |v| zval_i64(v).max(0) as usize);
        let body_offset = set
            .get("package_body_offset")
            .map_or(0, |v| zval_i64(v).max(0) as usize);
        p.framing = Framing::Length {
            kind,
            length_offset,
            body_offset,
        };
    }
    p
}

pub fn errno_of(e: &io::Error) -> i64 {
    i64::from(e.raw_os_error().unwrap_or(libc::EIO))
}

/// `['address' => ..., 'port' => ...]`.
pub fn addr_array(host: &str, port: u16) -> Zval {
    let mut ht = ZendHashTable::new();
    let _ = ht.insert("address", host);
    let _ = ht.insert("port", i64::from(port));
    let mut z = Zval::new();
    z.set_hashtable(ht);
    z
}

/// `strerror(errno)[errno]`, the way Swoole's system-error warnings end.
fn sys_error(e: &io::Error) -> String {
    let n = errno_of(e);
    format!("{}[{n}]", os_error_text(n))
}

/// The interface index ext-sockets accepts: a number, or a name.
fn if_index_of(z: &Zval) -> Option<u32> {
    if let Some(n) = z.long() {
        return match u32::try_from(n) {
            Ok(i) => Some(i),
            Err(_) => {
                php_error(
                    &ErrorType::Warning,
                    &format!(
                        "the interface index cannot be negative or larger than {}; given {n}",
                        u32::MAX
                    ),
                );
                None
            }
        };
    }
    let name = z.str().map(str::to_string).unwrap_or_default();
    match nix::net::if_::if_nametoindex(name.as_str()) {
        Ok(i) if i > 0 => Some(i),
        _ => {
            php_error(
                &ErrorType::Warning,
                &format!("no interface with name \"{name}\" could be found"),
            );
            None
        }
    }
}

/// An IP address for the socket's family (a literal or a host name).
fn inet46_addr(domain: i32, text: &str) -> Option<std::net::IpAddr> {
    use std::net::{IpAddr, ToSocketAddrs};
    if let Ok(ip) = text.parse::<IpAddr>() {
        if (domain == libc::AF_INET6) == ip.is_ipv6() {
            return Some(ip);
        }
    } else if let Ok(it) = (text, 0).to_socket_addrs() {
        for a in it {
            if (domain == libc::AF_INET6) == a.is_ipv6() {
                return Some(a.ip());
            }
        }
    }
    php_error(
        &ErrorType::Warning,
        &format!(
            "Host lookup failed: Non AF_INET{} domain \"{text}\" is not supported",
            if domain == libc::AF_INET6 { "6" } else { "" }
        ),
    );
    None
}

/// The `IPPROTO_IP`/`IPPROTO_IPV6` options ext-sockets converts itself
/// (multicast requests, `IP_MULTICAST_*`, `IPV6_MULTICAST_*`,
/// `IPV6_PKTINFO`); `None` for the others (a plain integer option).
fn set_ip_option(c: &Core, level: i32, name: i32, v: &Zval) -> Option<bool> {
    let fd = c.sock.fd();
    let fail = |e: io::Error| {
        let n = errno_of(&e);
        c.set_err(n);
        if n != i64::from(libc::EAGAIN) && n != i64::from(libc::EINPROGRESS) {
            php_error(
                &ErrorType::Warning,
                &format!("unable to set socket option [{n}]: {}", os_error_text(n)),
            );
        }
        false
    };
    let done = |r: io::Result<()>| r.map_or_else(fail, |()| true);
    if ns::mcast::is_mcast(name) {
        let Some(ht) = v.array() else {
            php_error(&ErrorType::Warning, "no key \"group\" passed in optval");
            return Some(false);
        };
        let addr = |key: &str| -> Option<std::net::IpAddr> {
            let Some(z) = ht.get(key) else {
                php_error(
                    &ErrorType::Warning,
                    &format!("no key \"{key}\" passed in optval"),
                );
                return None;
            };
            let text = z
                .str()
                .map(str::to_string)
                .unwrap_or_else(|| zval_i64(z).to_string());
            inet46_addr(c.sock.domain, &text)
        };
        let Some(group) = addr("group") else {
            return Some(false);
        };
        let source = if ns::mcast::needs_source(name) {
            let Some(s) = addr("source") else {
                return Some(false);
            };
            Some(s)
        } else {
            None
        };
        let ifindex = match ht.get("interface") {
            None => 0,
            Some(z) => match if_index_of(z) {
                Some(i) => i,
                None => return Some(false),
            },
        };
        return Some(done(ns::mcast::request(
            fd, level, name, group, source, ifindex,
        )));
    }
    if level == libc::IPPROTO_IP {
        let byte = match name {
            libc::IP_MULTICAST_IF => {
                let idx = if_index_of(v)?;
                let Some(a) = ns::mcast::if_index_to_addr4(idx) else {
                    php_error(
                        &ErrorType::Warning,
                        &format!(
                            "Failed obtaining address for interface {idx}: error {}",
                            libc::ENXIO
                        ),
                    );
                    return Some(false);
                };
                return Some(done(ns::setsockopt_raw(fd, level, name, &a.octets())));
            }
            libc::IP_MULTICAST_LOOP => u8::from(truthy(v)),
            libc::IP_MULTICAST_TTL => {
                let n = zval_i64(v);
                if !(0..=255).contains(&n) {
                    php_error(&ErrorType::Warning, "Expected a value between 0 and 255");
                    return Some(false);
                }
                n as u8
            }
            _ => return None,
        };
        return Some(done(ns::setsockopt_raw(fd, level, name, &[byte])));
    }
    let int = match name {
        libc::IPV6_MULTICAST_IF => match if_index_of(v) {
            Some(i) => i as i32,
            None => return Some(false),
        },
        libc::IPV6_MULTICAST_LOOP => i32::from(truthy(v)),
        libc::IPV6_MULTICAST_HOPS => {
            let n = zval_i64(v);
            if !(-1..=255).contains(&n) {
                php_error(&ErrorType::Warning, "Expected a value between -1 and 255");
                return Some(false);
            }
            n as i32
        }
        libc::IPV6_PKTINFO => {
            let conv = |msg: String| {
                php_error(
                    &ErrorType::Warning,
                    &format!("error converting user data (path: in6_pktinfo): {msg}"),
                );
                false
            };
            let Some(ht) = v.array() else {
                return Some(conv("expected an array here".into()));
            };
            let Some(a) = ht.get("addr") else {
                return Some(conv("The key 'addr' is required".into()));
            };
            let text = a.str().map(str::to_string).unwrap_or_default();
            let Ok(ip) = text.parse::<std::net::Ipv6Addr>() else {
                return Some(conv(format!(
                    "could not resolve address '{text}' to get an AF_INET6 address"
                )));
            };
            let Some(i) = ht.get("ifindex") else {
                return Some(conv("The key 'ifindex' is required".into()));
            };
            return Some(done(ns::mcast::set_pktinfo(fd, ip, zval_i64(i) as u32)));
        }
        _ => return None,
    };
    Some(done(ns::setsockopt_int(fd, level, name, int)))
}

/// Who holds a socket's read and write sides, for the misuse error.
#[derive(Default)]
pub struct Binding {
    pub bound: [Option<Cid>; 2],
}

fn slot(d: Dir) -> usize {
    match d {
        Dir::Read => 0,
        Dir::Write => 1,
    }
}

impl Binding {
    /// Binds `dir` to the running coroutine, or Swoole's error when another
    /// coroutine holds it.
    pub fn enter(&mut self, fd: i32, dir: Dir) -> PhpResult<Cid> {
        let cid = super::errors::need_coroutine()?;
        if let Some(other) = self.bound[slot(dir)].filter(|c| *c != cid && coro::exists(*c)) {
            set_last_error(SWOOLE_ERROR_CO_HAS_BEEN_BOUND);
            let what = match dir {
                Dir::Read => "reading",
                Dir::Write => "writing",
            };
            return Err(PhpException::new(
                format!("Socket#{fd} has already been bound to another coroutine#{other}, {what} of the same socket in coroutine#{cid} at the same time is not allowed"),
                SWOOLE_ERROR_CO_HAS_BEEN_BOUND as i32,
                error_ce(),
            ));
        }
        self.bound[slot(dir)] = Some(cid);
        Ok(cid)
    }

    pub fn leave(&mut self, dir: Dir) {
        self.bound[slot(dir)] = None;
    }
}

/// The Rust side of a socket object: the engine socket, its timeouts,
/// binding and last error. Shared with the clients.
pub struct Core {
    pub sock: Rc<NetSocket>,
    pub timeouts: RefCell<Timeouts>,
    pub binding: RefCell<Binding>,
    pub err: RefCell<(i64, String)>,
    /// `Swoole\Client`: wait in `poll(2)` instead of suspending.
    pub blocking: std::cell::Cell<bool>,
    /// `open_ssl` / `SWOOLE_SSL`: the `ssl_*` settings; `connect()` then
    /// runs the handshake.
    pub tls: RefCell<Option<TlsOptions>>,
    /// The `ssl_*` settings seen so far, for a later `enableSSL()`.
    pub tls_set: RefCell<TlsOptions>,
    /// The host `connect()` was given (SNI and the verified name).
    pub tls_host: RefCell<String>,
    /// An accepted socket: `sslHandshake()` is the server side.
    pub tls_server: std::cell::Cell<bool>,
}

impl Core {
    pub fn new(sock: NetSocket) -> Self {
        Core {
            sock: Rc::new(sock),
            timeouts: RefCell::new(Timeouts::default()),
            binding: RefCell::new(Binding::default()),
            err: RefCell::new((0, String::new())),
            blocking: std::cell::Cell::new(false),
            tls: RefCell::new(None),
            tls_set: RefCell::new(TlsOptions::default()),
            tls_host: RefCell::new(String::new()),
            tls_server: std::cell::Cell::new(false),
        }
    }

    /// The TLS handshake on the connected socket (`sslHandshake()`, or
    /// `connect()` with `open_ssl`), within the read timeout.
    pub fn handshake(&self, dl: Option<Instant>) -> PhpResult<bool> {
        if !self.check_open() {
            return Ok(false);
        }
        if self.sock.tls_on() {
            // SW_ERROR_WRONG_OPERATION
            self.set_err(1005);
            return Ok(false);
        }
        let opts = self.tls.borrow().clone().unwrap_or_default();
        let host = self.tls_host.borrow().clone();
        let sess = if self.tls_server.get() {
            Session::new_server(&opts)
        } else {
            Session::new(&opts, &host)
        };
        match sess {
            Ok(sess) => self.sock.start_tls(sess),
            Err(msg) => {
                self.set_err_msg(i64::from(tls_client::ERR_CREATE_CONTEXT_FAILED), msg);
                return Ok(false);
            }
        }
        let s2 = Rc::clone(&self.sock);
        let r = self.op_dl(Dir::Read, dl, move |s| s2.handshake_op(s))?;
        Ok(r.is_some())
    }

    /// `verifyPeerCert()`: the peer's chain against the trusted roots now.
    pub fn verify_peer(&self, allow_self_signed: bool) -> bool {
        if !self.sock.tls_ready() {
            self.set_err(1011);
            return false;
        }
        let mut opts = self.tls.borrow().clone().unwrap_or_default();
        opts.allow_self_signed = allow_self_signed;
        let host = self.tls_host.borrow().clone();
        match tls_client::verify_chain(&opts, &host, &self.sock.tls_peer_certs()) {
            Ok(()) => true,
            Err(code) => {
                self.set_err(i64::from(code));
                false
            }
        }
    }

    /// `getPeerCert()`: the peer's certificate in PEM, or false with
    /// `SWOOLE_ERROR_SSL_EMPTY_PEER_CERTIFICATE`.
    pub fn peer_cert(&self) -> Zval {
        match self.sock.tls_peer_pem() {
            Some(p) => bytes_zval(p.as_bytes()),
            None => {
                self.set_err(i64::from(tls_client::ERR_EMPTY_PEER_CERT));
                false_zval()
            }
        }
    }

    pub fn set_err(&self, code: i64) {
        let msg = if code >= 500 {
            swoole_error_text(code)
        } else {
            os_error_text(code)
        };
        self.set_err_msg(code, msg);
    }

    pub fn set_err_msg(&self, code: i64, msg: String) {
        if code != 0 {
            set_last_error(code);
        }
        *self.err.borrow_mut() = (code, msg);
    }

    pub fn clear_err(&self) {
        *self.err.borrow_mut() = (0, String::new());
    }

    /// `EBADF` when closed (Swoole answers false without waiting).
    pub fn check_open(&self) -> bool {
        if self.sock.is_closed() {
            self.set_err(i64::from(libc::EBADF));
            return false;
        }
        true
    }

    fn own(&self, dir: Dir) -> f64 {
        let t = self.timeouts.borrow();
        match dir {
            Dir::Read => t.read,
            Dir::Write => t.write,
        }
    }

    /// Runs one operation `f` (see `op_dl`) with the per-call `timeout`.
    pub fn op<R: 'static>(
        &self,
        dir: Dir,
        timeout: f64,
        f: impl FnMut(&socket2::Socket) -> io::Result<R> + 'static,
    ) -> PhpResult<Option<R>> {
        self.op_dl(dir, deadline(timeout, self.own(dir)), f)
    }

    /// Runs one operation `f` until `dl`: from the running coroutine (the
    /// coroutine suspends while the socket is not ready), or blocking in
    /// `poll` for `Swoole\Client`. `Ok(None)` when it failed (the error is
    /// recorded).
    pub fn op_dl<R: 'static>(
        &self,
        dir: Dir,
        dl: Option<Instant>,
        mut f: impl FnMut(&socket2::Socket) -> io::Result<R> + 'static,
    ) -> PhpResult<Option<R>> {
        if !self.check_open() {
            return Ok(None);
        }
        if self.blocking.get() {
            let r = self.sock.io_sync(dir, dl, f);
            return Ok(self.record(r));
        }
        self.binding.borrow_mut().enter(self.sock.fd(), dir)?;
        // One attempt now: most sockets are ready and need no task.
        let r = match self.sock.with_sock(&mut f) {
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                let fut = Rc::clone(&self.sock).io(dir, dl, f);
                let hook_sock = Rc::clone(&self.sock);
                let cid = coro::current();
                coro::set_cancel_hook(cid, Some(Box::new(move || hook_sock.cancel(dir))));
                let r = coro::io::run(fut)
                    .unwrap_or_else(|_| Err(io::Error::from_raw_os_error(libc::ECANCELED)));
                coro::set_cancel_hook(cid, None);
                r
            }
            r => r,
        };
        self.binding.borrow_mut().leave(dir);
        Ok(self.record(r))
    }

    fn record<R>(&self, r: io::Result<R>) -> Option<R> {
        match r {
            Ok(v) => {
                self.clear_err();
                Some(v)
            }
            Err(e) => {
                self.set_err(errno_of(&e));
                None
            }
        }
    }

    /// The address `host`/`port` names in this socket's domain; a host
    /// name is looked up without holding the worker.
    pub fn resolve(&self, host: &str, port: u16) -> PhpResult<Option<socket2::SockAddr>> {
        let domain = self.sock.domain;
        if let Some(r) = literal_addr(domain, host, port) {
            return match r {
                Ok(a) => Ok(Some(a)),
                Err(e) => {
                    self.set_err(errno_of(&e));
                    Ok(None)
                }
            };
        }
        let fam = if domain == libc::AF_INET6 {
            libc::AF_INET6
        } else {
            libc::AF_INET
        };
        let t = self.timeouts.borrow().connect;
        let dl = (t > 0.0).then(|| Duration::from_secs_f64(t));
        let r = if self.blocking.get() {
            ns::lookup(host, fam)
        } else {
            super::errors::need_coroutine()?;
            coro::io::run(ns::lookup_async(host.to_string(), fam, dl))
                .unwrap_or_else(|_| Err(io::Error::from_raw_os_error(libc::ECANCELED)))
        };
        match r {
            Ok(ips) if !ips.is_empty() => Ok(Some(socket2::SockAddr::from(
                std::net::SocketAddr::new(ips[0], port),
            ))),
            _ => {
                // SW_ERROR_DNSLOOKUP_RESOLVE_FAILED
                self.set_err(711);
                Ok(None)
            }
        }
    }

    pub fn connect(&self, host: &str, port: i64, timeout: f64) -> PhpResult<bool> {
        if !self.check_open() {
            return Ok(false);
        }
        if !self.blocking.get() && coro::current() < 0 {
            return Err(out_of_coroutine());
        }
        let Some(addr) = self.resolve(host, port.clamp(0, 65535) as u16)? else {
            return Ok(false);
        };
        let own = self.timeouts.borrow().connect;
        let dl = deadline(timeout, own);
        *self.tls_host.borrow_mut() = host.to_string();
        if !self.connect_tcp(&addr, dl)? {
            return Ok(false);
        }
        if self.tls.borrow().is_some() {
            let dl = deadline(0.0, self.own(Dir::Read));
            return self.handshake(dl);
        }
        Ok(true)
    }

    fn connect_tcp(&self, addr: &socket2::SockAddr, dl: Option<Instant>) -> PhpResult<bool> {
        if self.blocking.get() {
            let r = self.sock.connect_sync(addr, dl);
            return Ok(self.record(r).is_some());
        }
        match self.sock.connect_start(addr) {
            Ok(true) => {
                self.clear_err();
                return Ok(true);
            }
            Ok(false) => {}
            Err(e) => {
                self.set_err(errno_of(&e));
                return Ok(false);
            }
        }
        let r = self.op_dl(Dir::Write, dl, ns::connect_done)?;
        Ok(r.is_some())
    }

    /// Reads up to `len` bytes into the read-ahead buffer (one recv).
    fn fill(&self, dl: Option<Instant>, len: usize) -> PhpResult<Option<usize>> {
        let s2 = Rc::clone(&self.sock);
        self.op_dl(Dir::Read, dl, move |s| ns::fill_op(&s2, s, len))
    }

    pub fn recv(&self, len: usize, timeout: f64) -> PhpResult<Option<Vec<u8>>> {
        if let Some(b) = self.sock.take_buffered(len) {
            return Ok(Some(b));
        }
        let s2 = Rc::clone(&self.sock);
        self.op(Dir::Read, timeout, move |s| s2.recv_any(s, len, 0))
    }

    pub fn recv_all(&self, len: usize, timeout: f64) -> PhpResult<Option<Vec<u8>>> {
        let dl = deadline(timeout, self.own(Dir::Read));
        let mut got = self.sock.take_buffered(len).unwrap_or_default();
        while got.len() < len {
            let want = len - got.len();
            let s2 = Rc::clone(&self.sock);
            match self.op_dl(Dir::Read, dl, move |s| s2.recv_any(s, want, 0))? {
                Some(v) if v.is_empty() => break,
                Some(v) => got.extend_from_slice(&v),
                None if got.is_empty() => return Ok(None),
                None => break,
            }
        }
        Ok(Some(got))
    }

    pub fn recv_with_buffer(&self, len: usize, timeout: f64) -> PhpResult<Option<Vec<u8>>> {
        if let Some(b) = self.sock.take_buffered(len) {
            return Ok(Some(b));
        }
        let dl = deadline(timeout, self.own(Dir::Read));
        match self.fill(dl, BUFFER_SIZE_BIG.max(len))? {
            None => Ok(None),
            Some(0) => Ok(Some(Vec::new())),
            Some(_) => Ok(Some(self.sock.take_buffered(len).unwrap_or_default())),
        }
    }

    pub fn recv_line(&self, len: usize, timeout: f64) -> PhpResult<Option<Vec<u8>>> {
        let dl = deadline(timeout, self.own(Dir::Read));
        loop {
            if let Some(l) = self.sock.take_line(len) {
                return Ok(Some(l));
            }
            match self.fill(dl, BUFFER_SIZE_BIG)? {
                None => return Ok(None),
                Some(0) => return Ok(Some(self.sock.take_buffered(len).unwrap_or_default())),
                Some(_) => {}
            }
        }
    }

    /// `recvPacket`: `Ok(Some(empty))` when the peer closed.
    pub fn recv_packet(&self, timeout: f64) -> PhpResult<Option<Vec<u8>>> {
        let dl = deadline(timeout, self.own(Dir::Read));
        loop {
            match self.sock.take_packet() {
                Ok(Some(p)) => {
                    self.clear_err();
                    return Ok(Some(p));
                }
                Ok(None) => {}
                Err(ns_err) => {
                    let code = match ns_err {
                        crate::engine::net::framing::FrameError::TooLarge(_) => {
                            ERR_PACKAGE_TOO_LARGE
                        }
                        crate::engine::net::framing::FrameError::BadLength => ERR_PACKAGE_MALFORMED,
                    };
                    self.sock.clear_buffer();
                    self.set_err(code);
                    return Ok(None);
                }
            }
            match self.fill(dl, BUFFER_SIZE_BIG)? {
                None => return Ok(None),
                Some(0) => {
                    self.sock.clear_buffer();
                    return Ok(Some(Vec::new()));
                }
                Some(_) => {}
            }
        }
    }

    pub fn send(&self, data: Vec<u8>, timeout: f64) -> PhpResult<Option<usize>> {
        let s2 = Rc::clone(&self.sock);
        self.op(Dir::Write, timeout, move |s| s2.send_any(s, &data))
    }

    pub fn send_all(&self, data: Vec<u8>, timeout: f64) -> PhpResult<Option<usize>> {
        let dl = deadline(timeout, self.own(Dir::Write));
        let data = Rc::new(data);
        let mut sent = 0usize;
        while sent < data.len() {
            let d = Rc::clone(&data);
            let from = sent;
            let s2 = Rc::clone(&self.sock);
            match self.op_dl(Dir::Write, dl, move |s| s2.send_any(s, &d[from..]))? {
                Some(n) => sent += n,
                None if sent == 0 => return Ok(None),
                None => break,
            }
        }
        Ok(Some(sent))
    }

    pub fn addr(&self, peer: bool) -> Zval {
        let r = self
            .sock
            .with_sock(|s| if peer { s.peer_addr() } else { s.local_addr() });
        match r {
            Ok(a) => {
                let (h, p) = addr_parts(&a);
                addr_array(&h, p)
            }
            Err(e) => {
                self.set_err(errno_of(&e));
                false_zval()
            }
        }
    }
}

#[php_class]
#[php(name = "Swoole\\Coroutine\\Socket")]
pub struct Socket {
    pub core: Core,
    /// Made by `import()`: the descriptor is a copy of a PHP stream's,
    /// so `close()` also shuts the connection down (Swoole closes the
    /// stream's own descriptor, and the peer sees the end).
    pub imported: std::cell::Cell<bool>,
    /// The halves `shutdown()` has shut (read, write).
    shut: std::cell::Cell<(bool, bool)>,
}

/// The socket descriptor of a stream resource, as `import()` takes it:
/// PHP's own TypeError for a non-stream, PHP's warning ("Cannot represent
/// a stream of type ... as a Socket Descriptor") for a stream without one.
///
/// # Safety
/// `z` is a live resource zval, on the PHP thread.
unsafe fn socket_fd_of_stream(z: &Zval) -> Option<i32> {
    let zp = std::ptr::from_ref(z)
        .cast_mut()
        .cast::<ext_php_rs::ffi::zval>();
    // SAFETY: the caller's resource zval; with a type name the engine
    // throws its TypeError itself when the resource is not a stream.
    let stream = unsafe {
        use super::hook_stream::{php_file_le_pstream, php_file_le_stream, stream_fetch};
        stream_fetch(
            zp,
            c"stream".as_ptr(),
            php_file_le_stream(),
            php_file_le_pstream(),
        )
    };
    if stream.is_null() {
        return None;
    }
    let mut fd: std::ffi::c_int = -1;
    // SAFETY: `stream` is a php_stream; PHP_STREAM_AS_SOCKETD (2) writes
    // one int through `ret`; show_err makes PHP warn on failure.
    let r = unsafe { super::hook_stream::stream_cast(stream, 2, (&raw mut fd).cast(), 1) };
    (r == 0 && fd >= 0).then_some(fd)
}

/// The socket of a `Coroutine\Socket` object (`Http\Response::create()`
/// answers on it).
pub fn net_of(z: &Zval) -> Option<Rc<NetSocket>> {
    <&Socket as ext_php_rs::convert::FromZval>::from_zval(z).map(|s| Rc::clone(&s.core.sock))
}

impl Socket {
    pub fn from_net(sock: NetSocket) -> Self {
        Socket {
            core: Core::new(sock),
            imported: std::cell::Cell::new(false),
            shut: std::cell::Cell::new((false, false)),
        }
    }

    pub fn into_zval(self) -> Zval {
        let obj: ZBox<ZendObject> = ZendClassObject::new(self).into();
        let mut z = Zval::new();
        // Moves the box's one reference into the zval.
        let _ = ext_php_rs::convert::IntoZval::set_zval(obj, &mut z, false);
        z
    }

    fn string_or_false(&self, r: Option<Vec<u8>>) -> Zval {
        match r {
            Some(v) => bytes_zval(&v),
            None => false_zval(),
        }
    }
}

fn int_or_false(r: Option<usize>) -> Zval {
    match r {
        Some(n) => {
            let mut z = Zval::new();
            z.set_long(n as i64);
            z
        }
        None => false_zval(),
    }
}

fn len_arg(n: i64) -> usize {
    if n <= 0 {
        BUFFER_SIZE_BIG
    } else {
        n as usize
    }
}

fn timeval_array(t: f64) -> Zval {
    let t = t.max(0.0);
    let sec = t.trunc() as i64;
    let mut ht = ZendHashTable::new();
    let _ = ht.insert("sec", sec);
    let _ = ht.insert("usec", ((t - sec as f64) * 1e6) as i64);
    let mut z = Zval::new();
    z.set_hashtable(ht);
    z
}

/// The descriptor of a PHP stream resource or an ext-sockets `Socket`.
#[php_impl]
impl Socket {
    #[php(defaults(protocol = 0))]
    pub fn __construct(domain: i64, r#type: i64, protocol: i64) -> PhpResult<Self> {
        match NetSocket::new(domain as i32, r#type as i32, protocol as i32) {
            Ok(s) => Ok(Socket::from_net(s)),
            Err(e) => {
                let n = errno_of(&e);
                Err(socket_exception(
                    format!("new Socket() failed. Error: {} [{n}]", os_error_text(n)),
                    n as i32,
                ))
            }
        }
    }

    #[php(defaults(port = 0))]
    pub fn bind(&self, address: &str, port: i64) -> bool {
        let c = &self.core;
        if !c.check_open() {
            return false;
        }
        let addr = match literal_addr(c.sock.domain, address, port.clamp(0, 65535) as u16) {
            Some(Ok(a)) => a,
            Some(Err(e)) => {
                c.set_err(errno_of(&e));
                return false;
            }
            None => {
                c.set_err(i64::from(libc::EINVAL));
                return false;
            }
        };
        // Swoole sets SO_REUSEADDR before every bind.
        let _ = ns::setsockopt_int(c.sock.fd(), libc::SOL_SOCKET, libc::SO_REUSEADDR, 1);
        match c.sock.with_sock(|s| s.bind(&addr)) {
            Ok(()) => true,
            Err(e) => {
                c.set_err(errno_of(&e));
                false
            }
        }
    }

    #[php(defaults(backlog = 512))]
    pub fn listen(&self, backlog: i64) -> bool {
        let c = &self.core;
        if !c.check_open() {
            return false;
        }
        match c.sock.with_sock(|s| s.listen(backlog as i32)) {
            Ok(()) => true,
            Err(e) => {
                c.set_err(errno_of(&e));
                false
            }
        }
    }

    #[php(defaults(timeout = 0.0))]
    pub fn accept(&self, timeout: f64) -> PhpResult<Zval> {
        let r = self.core.op(Dir::Read, timeout, |s| s.accept())?;
        let Some((conn, _)) = r else {
            return Ok(false_zval());
        };
        match NetSocket::from_owned(conn.into()) {
            Ok(n) => {
                let child = Socket::from_net(n);
                *child.core.sock.proto.borrow_mut() = self.core.sock.proto.borrow().clone();
                *child.core.timeouts.borrow_mut() = *self.core.timeouts.borrow();
                // Swoole's accepted socket shares the listener's SSL context.
                *child.core.tls.borrow_mut() = self.core.tls.borrow().clone();
                *child.core.tls_set.borrow_mut() = self.core.tls_set.borrow().clone();
                child.core.tls_server.set(true);
                Ok(child.into_zval())
            }
            Err(e) => {
                self.core.set_err(errno_of(&e));
                Ok(false_zval())
            }
        }
    }

    #[php(defaults(port = 0, timeout = 0.0))]
    pub fn connect(&self, host: &str, port: i64, timeout: f64) -> PhpResult<bool> {
        let d = self.core.sock.domain;
        if (d == libc::AF_INET || d == libc::AF_INET6) && !(1..65536).contains(&port) {
            php_error(
                &ErrorType::Warning,
                &format!("Invalid port argument[{port}]"),
            );
            return Ok(false);
        }
        self.core.connect(host, port, timeout)
    }

    #[php(name = "checkLiveness")]
    pub fn check_liveness(&self) -> bool {
        let c = &self.core;
        if !c.check_open() {
            return false;
        }
        match c
            .sock
            .with_sock(|s| recv_op(s, 1, libc::MSG_PEEK | libc::MSG_DONTWAIT))
        {
            Ok(v) if v.is_empty() => {
                c.set_err(i64::from(libc::ECONNRESET));
                false
            }
            Ok(_) => {
                c.clear_err();
                true
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                c.clear_err();
                true
            }
            Err(e) => {
                c.set_err(errno_of(&e));
                false
            }
        }
    }

    #[php(name = "getBoundCid")]
    pub fn get_bound_cid(&self, event: i64) -> i64 {
        let b = self.core.binding.borrow();
        let i = if event == SWOOLE_EVENT_WRITE { 1 } else { 0 };
        b.bound[i].unwrap_or(0)
    }

    #[php(defaults(length = 65536))]
    pub fn peek(&self, length: i64) -> Zval {
        let c = &self.core;
        if !c.check_open() {
            return false_zval();
        }
        let n = len_arg(length);
        if let Some(b) = c.sock.peek_buffered(n) {
            c.clear_err();
            return bytes_zval(&b);
        }
        match c
            .sock
            .with_sock(|s| c.sock.recv_any(s, n, libc::MSG_PEEK | libc::MSG_DONTWAIT))
        {
            Ok(v) => {
                c.clear_err();
                bytes_zval(&v)
            }
            Err(e) => {
                c.set_err(errno_of(&e));
                false_zval()
            }
        }
    }

    #[php(defaults(length = 65536, timeout = 0.0))]
    pub fn recv(&self, length: i64, timeout: f64) -> PhpResult<Zval> {
        let r = self.core.recv(len_arg(length), timeout)?;
        Ok(self.string_or_false(r))
    }

    #[php(name = "recvAll", defaults(length = 65536, timeout = 0.0))]
    pub fn recv_all(&self, length: i64, timeout: f64) -> PhpResult<Zval> {
        let r = self.core.recv_all(len_arg(length), timeout)?;
        Ok(self.string_or_false(r))
    }

    #[php(name = "recvLine", defaults(length = 65536, timeout = 0.0))]
    pub fn recv_line(&self, length: i64, timeout: f64) -> PhpResult<Zval> {
        let r = self.core.recv_line(len_arg(length), timeout)?;
        Ok(self.string_or_false(r))
    }

    #[php(name = "recvWithBuffer", defaults(length = 65536, timeout = 0.0))]
    pub fn recv_with_buffer(&self, length: i64, timeout: f64) -> PhpResult<Zval> {
        let r = self.core.recv_with_buffer(len_arg(length), timeout)?;
        Ok(self.string_or_false(r))
    }

    #[php(name = "recvPacket", defaults(timeout = 0.0))]
    pub fn recv_packet(&self, timeout: f64) -> PhpResult<Zval> {
        let r = self.core.recv_packet(timeout)?;
        Ok(self.string_or_false(r))
    }

    #[php(defaults(timeout = 0.0))]
    pub fn send(&self, data: &Zval, timeout: f64) -> PhpResult<Zval> {
        let r = self.core.send(bytes_of(data), timeout)?;
        Ok(int_or_false(r))
    }

    #[php(name = "sendAll", defaults(timeout = 0.0))]
    pub fn send_all(&self, data: &Zval, timeout: f64) -> PhpResult<Zval> {
        let r = self.core.send_all(bytes_of(data), timeout)?;
        Ok(int_or_false(r))
    }

    #[php(name = "writeVector", defaults(timeout = 0.0))]
    pub fn write_vector(&self, io_vector: &ZendHashTable, timeout: f64) -> PhpResult<Zval> {
        if self.too_many(io_vector) {
            return Ok(false_zval());
        }
        let data = self.vector_bytes(io_vector)?;
        let r = self.core.send(data, timeout)?;
        Ok(int_or_false(r))
    }

    #[php(name = "writeVectorAll", defaults(timeout = 0.0))]
    pub fn write_vector_all(&self, io_vector: &ZendHashTable, timeout: f64) -> PhpResult<Zval> {
        if self.too_many(io_vector) {
            return Ok(false_zval());
        }
        let data = self.vector_bytes(io_vector)?;
        let r = self.core.send_all(data, timeout)?;
        Ok(int_or_false(r))
    }

    #[php(name = "readVector", defaults(timeout = 0.0))]
    pub fn read_vector(&self, io_vector: &ZendHashTable, timeout: f64) -> PhpResult<Zval> {
        if self.too_many(io_vector) {
            return Ok(false_zval());
        }
        let lens = self.vector_lens(io_vector)?;
        let total: usize = lens.iter().sum();
        let r = self.core.recv(total.max(1), timeout)?;
        Ok(split_vector(r, &lens))
    }

    #[php(name = "readVectorAll", defaults(timeout = 0.0))]
    pub fn read_vector_all(&self, io_vector: &ZendHashTable, timeout: f64) -> PhpResult<Zval> {
        if self.too_many(io_vector) {
            return Ok(false_zval());
        }
        let lens = self.vector_lens(io_vector)?;
        let total: usize = lens.iter().sum();
        let r = self.core.recv_all(total.max(1), timeout)?;
        Ok(split_vector(r, &lens))
    }

    #[php(name = "sendFile", defaults(offset = 0, length = 0))]
    pub fn send_file(&self, file: &str, offset: i64, length: i64) -> PhpResult<bool> {
        send_file_impl(&self.core, file, offset, length)
    }

    #[php(defaults(timeout = 0.0))]
    pub fn recvfrom(&self, mut peername: PhpRef, timeout: f64) -> PhpResult<Zval> {
        let r = self
            .core
            .op(Dir::Read, timeout, |s| recv_from_op(s, BUFFER_SIZE_BIG))?;
        let Some((data, from)) = r else {
            return Ok(false_zval());
        };
        let (h, p) = addr_parts(&from);
        let old = std::mem::replace(&mut *peername, addr_array(&h, p));
        drop(old);
        Ok(bytes_zval(&data))
    }

    pub fn sendto(&self, addr: &str, port: i64, data: &Zval) -> PhpResult<Zval> {
        let c = &self.core;
        if !c.check_open() {
            return Ok(false_zval());
        }
        let Some(to) = c.resolve(addr, port.clamp(0, 65535) as u16)? else {
            return Ok(false_zval());
        };
        let data = bytes_of(data);
        let r = c.op(Dir::Write, 0.0, move |s| {
            s.send_to_with_flags(&data, &to, libc::MSG_NOSIGNAL)
        })?;
        Ok(int_or_false(r))
    }

    #[php(defaults(how = 2))]
    pub fn shutdown(&self, how: i64) -> bool {
        let c = &self.core;
        if !c.check_open() {
            return false;
        }
        let h = match how {
            0 => std::net::Shutdown::Read,
            1 => std::net::Shutdown::Write,
            _ => std::net::Shutdown::Both,
        };
        // Swoole keeps which halves are shut: shutting one twice is
        // ENOTCONN, and once one half is shut an ENOTCONN from the kernel
        // (the peer has gone) counts as both halves shut.
        let (rd, wr) = self.shut.get();
        let again = match h {
            std::net::Shutdown::Read => rd,
            std::net::Shutdown::Write => wr,
            std::net::Shutdown::Both => rd && wr,
        };
        if again {
            c.set_err(i64::from(libc::ENOTCONN));
            return false;
        }
        match c.sock.with_sock(|s| s.shutdown(h)) {
            Ok(()) => {
                self.shut.set(match h {
                    std::net::Shutdown::Read => (true, wr),
                    std::net::Shutdown::Write => (rd, true),
                    std::net::Shutdown::Both => (true, true),
                });
                true
            }
            Err(e) if (rd || wr) && e.raw_os_error() == Some(libc::ENOTCONN) => {
                self.shut.set((true, true));
                true
            }
            Err(e) => {
                c.set_err(errno_of(&e));
                false
            }
        }
    }

    #[php(defaults(event = 512))]
    pub fn cancel(&self, event: i64) -> bool {
        let dir = if event == SWOOLE_EVENT_WRITE {
            Dir::Write
        } else {
            Dir::Read
        };
        let bound = self.core.binding.borrow().bound[slot(dir)];
        if bound.is_none() {
            return false;
        }
        self.core.sock.cancel(dir);
        true
    }

    pub fn close(&self) -> bool {
        if !self.core.check_open() {
            return false;
        }
        if self.imported.get() {
            // SAFETY: shutdown(2) on our own open descriptor.
            unsafe { libc::shutdown(self.core.sock.fd(), libc::SHUT_RDWR) };
        }
        self.core.sock.close()
    }

    pub fn getsockname(&self) -> Zval {
        if !self.core.check_open() {
            return false_zval();
        }
        self.core.addr(false)
    }

    pub fn getpeername(&self) -> Zval {
        if !self.core.check_open() {
            return false_zval();
        }
        self.core.addr(true)
    }

    #[php(name = "isClosed")]
    pub fn is_closed(&self) -> bool {
        self.core.sock.is_closed()
    }

    #[php(name = "getOption")]
    pub fn get_option(&self, level: i64, opt_name: i64) -> Zval {
        let c = &self.core;
        if !c.check_open() {
            return false_zval();
        }
        let (level, name) = (level as i32, opt_name as i32);
        if level == libc::SOL_SOCKET && (name == libc::SO_RCVTIMEO || name == libc::SO_SNDTIMEO) {
            let t = *c.timeouts.borrow();
            return timeval_array(if name == libc::SO_RCVTIMEO {
                t.read
            } else {
                t.write
            });
        }
        let fd = c.sock.fd();
        if level == libc::IPPROTO_IP && name == libc::IP_MULTICAST_IF {
            return match ns::getsockopt_raw(fd, level, name, 4) {
                Ok(b) if b.len() >= 4 => {
                    let a = std::net::Ipv4Addr::new(b[0], b[1], b[2], b[3]);
                    match ns::mcast::addr4_to_if_index(a) {
                        Some(i) => {
                            let mut z = Zval::new();
                            z.set_long(i64::from(i));
                            z
                        }
                        None => {
                            php_error(
                                &ErrorType::Warning,
                                &format!("The interface with IP address {a} was not found"),
                            );
                            false_zval()
                        }
                    }
                }
                Ok(_) => false_zval(),
                Err(e) => {
                    c.set_err(errno_of(&e));
                    php_error(
                        &ErrorType::Warning,
                        &format!(
                            "getsockopt({fd}, {level}, {name}), Error: {}",
                            sys_error(&e)
                        ),
                    );
                    false_zval()
                }
            };
        }
        if level == libc::SOL_SOCKET && name == libc::SO_LINGER {
            return match ns::getsockopt_raw(fd, level, name, 8) {
                Ok(b) if b.len() >= 8 => {
                    let mut ht = ZendHashTable::new();
                    let on = i32::from_ne_bytes([b[0], b[1], b[2], b[3]]);
                    let lin = i32::from_ne_bytes([b[4], b[5], b[6], b[7]]);
                    let _ = ht.insert("l_onoff", i64::from(on));
                    let _ = ht.insert("l_linger", i64::from(lin));
                    let mut z = Zval::new();
                    z.set_hashtable(ht);
                    z
                }
                _ => false_zval(),
            };
        }
        match ns::getsockopt_raw(fd, level, name, 4) {
            Ok(b) => {
                let v = match b.len() {
                    1 => i64::from(b[0] as i8),
                    n if n >= 4 => i64::from(i32::from_ne_bytes([b[0], b[1], b[2], b[3]])),
                    _ => 0,
                };
                let mut z = Zval::new();
                z.set_long(v);
                z
            }
            Err(e) => {
                c.set_err(errno_of(&e));
                php_error(
                    &ErrorType::Warning,
                    &format!(
                        "getsockopt({fd}, {level}, {name}), Error: {}",
                        sys_error(&e)
                    ),
                );
                false_zval()
            }
        }
    }

    #[php(name = "setOption")]
    pub fn set_option(&self, level: i64, opt_name: i64, opt_value: &Zval) -> PhpResult<bool> {
        let c = &self.core;
        if !c.check_open() {
            return Ok(false);
        }
        let (level, name) = (level as i32, opt_name as i32);
        let fd = c.sock.fd();
        if level == libc::IPPROTO_IP || level == libc::IPPROTO_IPV6 {
            if let Some(done) = set_ip_option(c, level, name, opt_value) {
                return Ok(done);
            }
        }
        let r = if level == libc::SOL_SOCKET
            && (name == libc::SO_RCVTIMEO || name == libc::SO_SNDTIMEO)
        {
            let Some(ht) = opt_value.array() else {
                return Err(super::exception::type_error(format!(
                    "Swoole\\Coroutine\\Socket::setOption(): Argument #3 ($opt_value) must be of type array when argument $option is {}, {} given",
                    if name == libc::SO_RCVTIMEO { "SO_RCVTIMEO" } else { "SO_SNDTIMEO" },
                    super::settings::type_name(opt_value)
                )));
            };
            let Some(sec) = ht.get("sec").map(zval_f64) else {
                php_error(&ErrorType::Warning, "no key \"sec\" passed in optval");
                return Ok(false);
            };
            let Some(usec) = ht.get("usec").map(zval_f64) else {
                php_error(&ErrorType::Warning, "no key \"usec\" passed in optval");
                return Ok(false);
            };
            let t = sec + usec / 1e6;
            let mut tt = c.timeouts.borrow_mut();
            if name == libc::SO_RCVTIMEO {
                tt.read = t;
            } else {
                tt.write = t;
                tt.connect = t;
            }
            return Ok(true);
        } else if level == libc::SOL_SOCKET && name == libc::SO_LINGER {
            let Some(ht) = opt_value.array() else {
                return Err(super::exception::type_error(format!(
                    "Swoole\\Coroutine\\Socket::setOption(): Argument #3 ($opt_value) must be of type array when argument $option is SO_LINGER, {} given",
                    super::settings::type_name(opt_value)
                )));
            };
            let Some(on) = ht.get("l_onoff").map(zval_i64) else {
                php_error(&ErrorType::Warning, "no key \"l_onoff\" passed in optval");
                return Ok(false);
            };
            let Some(lin) = ht.get("l_linger").map(zval_i64) else {
                php_error(&ErrorType::Warning, "no key \"l_linger\" passed in optval");
                return Ok(false);
            };
            for (key, v) in [("l_onoff", on), ("l_linger", lin)] {
                if !(0..=65535).contains(&v) {
                    return Err(PhpException::new(format!(
                        "Swoole\\Coroutine\\Socket::setOption(): Argument #3 ($opt_value) \"{key}\" must be between 0 and 65535"
                    ), 0, ext_php_rs::zend::ce::value_error()));
                }
            }
            let (on, lin) = (on as i32, lin as i32);
            let mut b = on.to_ne_bytes().to_vec();
            b.extend_from_slice(&lin.to_ne_bytes());
            ns::setsockopt_raw(fd, level, name, &b)
        } else if level == libc::SOL_SOCKET && name == libc::SO_BINDTODEVICE {
            let dev = opt_value.str().unwrap_or("");
            ns::setsockopt_raw(fd, level, name, dev.as_bytes())
        } else {
            ns::setsockopt_int(fd, level, name, zval_i64(opt_value) as i32)
        };
        match r {
            Ok(()) => Ok(true),
            Err(e) => {
                c.set_err(errno_of(&e));
                php_error(
                    &ErrorType::Warning,
                    &format!("setsockopt({fd}) failed, Error: {}", sys_error(&e)),
                );
                Ok(false)
            }
        }
    }

    #[php(name = "setProtocol")]
    pub fn set_protocol(&self, settings: &ZendHashTable) -> PhpResult<bool> {
        if !apply_tls_settings(&self.core, settings) {
            return Ok(false);
        }
        let p = parse_protocol(settings, &self.core.sock.proto.borrow());
        *self.core.sock.proto.borrow_mut() = p;
        apply_timeouts(settings, &mut self.core.timeouts.borrow_mut());
        Ok(true)
    }

    #[php(name = "sslHandshake")]
    pub fn ssl_handshake(&self) -> PhpResult<bool> {
        if self.core.tls.borrow().is_none() {
            let t = self.core.tls_set.borrow().clone();
            *self.core.tls.borrow_mut() = Some(t);
        }
        let dl = deadline(0.0, self.core.own(Dir::Read));
        self.core.handshake(dl)
    }

    pub fn import(stream: &Zval) -> PhpResult<Zval> {
        let stream = stream.dereference();
        if !stream.is_resource() {
            let given = match stream.object().and_then(|o| o.get_class_name().ok()) {
                Some(class) => class,
                None => super::settings::type_name(stream).to_string(),
            };
            return Err(super::exception::type_error(format!(
                "Swoole\\Coroutine\\Socket::import(): Argument #1 ($stream) must be of type resource, {given} given"
            )));
        }
        // SAFETY: a live resource zval; the lookup throws PHP's own
        // TypeError for a resource that is not (or no longer) a stream.
        let Some(fd) = (unsafe { socket_fd_of_stream(stream) }) else {
            return Ok(false_zval());
        };
        match NetSocket::import_fd(fd) {
            Ok(n) => {
                let s = Socket::from_net(n);
                s.imported.set(true);
                Ok(s.into_zval())
            }
            Err(e) => {
                php_error(&ErrorType::Warning, &format!("{e}"));
                Ok(false_zval())
            }
        }
    }

    #[php(getter, name = "fd")]
    pub fn prop_fd(&self) -> i64 {
        i64::from(self.core.sock.fd())
    }

    #[php(getter, name = "domain")]
    pub fn prop_domain(&self) -> i64 {
        i64::from(self.core.sock.domain)
    }

    #[php(getter, name = "type")]
    pub fn prop_type(&self) -> i64 {
        i64::from(self.core.sock.ty)
    }

    #[php(getter, name = "protocol")]
    pub fn prop_protocol(&self) -> i64 {
        i64::from(self.core.sock.protocol)
    }

    #[php(getter, name = "errCode")]
    pub fn prop_err_code(&self) -> i64 {
        self.core.err.borrow().0
    }

    #[php(setter, name = "errCode")]
    pub fn set_prop_err_code(&self, v: i64) {
        self.core.err.borrow_mut().0 = v;
    }

    #[php(getter, name = "errMsg")]
    pub fn prop_err_msg(&self) -> String {
        self.core.err.borrow().1.clone()
    }

    #[php(setter, name = "errMsg")]
    pub fn set_prop_err_msg(&self, v: String) {
        self.core.err.borrow_mut().1 = v;
    }
}

impl Socket {
    /// More than `SWOOLE_IOV_MAX` items: Swoole's EINVAL, before any I/O.
    fn too_many(&self, v: &ZendHashTable) -> bool {
        if v.len() <= IOV_MAX {
            return false;
        }
        self.core.set_err_msg(
            libc::EINVAL as i64,
            format!("The maximum of iov count is {IOV_MAX}"),
        );
        true
    }

    fn vector_bytes(&self, v: &ZendHashTable) -> PhpResult<Vec<u8>> {
        let mut out = Vec::new();
        for (i, (_, z)) in v.iter().enumerate() {
            let Some(s) = z.zend_str() else {
                return Err(socket_exception(
                    format!(
                        "Item #[{i}] must be of type string, {} given",
                        super::settings::type_name(z)
                    ),
                    libc::EINVAL,
                ));
            };
            if s.is_empty() {
                return Err(socket_exception(
                    format!("Item #[{i}] cannot be empty string"),
                    libc::EINVAL,
                ));
            }
            out.extend_from_slice(s.as_bytes());
        }
        Ok(out)
    }

    fn vector_lens(&self, v: &ZendHashTable) -> PhpResult<Vec<usize>> {
        let mut out = Vec::new();
        for (i, (_, z)) in v.iter().enumerate() {
            let Some(n) = z.long() else {
                return Err(socket_exception(
                    format!(
                        "Item #[{i}] must be of type int, {} given",
                        super::settings::type_name(z)
                    ),
                    libc::EINVAL,
                ));
            };
            if n < 0 {
                return Err(socket_exception(
                    format!("Item #[{i}] must be greater than 0"),
                    libc::EINVAL,
                ));
            }
            out.push(n as usize);
        }
        Ok(out)
    }
}

fn split_vector(r: Option<Vec<u8>>, lens: &[usize]) -> Zval {
    let Some(data) = r else {
        return false_zval();
    };
    let mut ht = ZendHashTable::new();
    let mut at = 0;
    for &l in lens {
        if at >= data.len() {
            break;
        }
        let end = (at + l).min(data.len());
        let _ = ht.push(bytes_zval(&data[at..end]));
        at = end;
    }
    let mut z = Zval::new();
    z.set_hashtable(ht);
    z
}

/// `sendFile()` for the socket and the clients.
pub fn send_file_impl(c: &Core, file: &str, offset: i64, length: i64) -> PhpResult<bool> {
    if file.is_empty() {
        php_error(&ErrorType::Warning, "file to send is empty");
        return Ok(false);
    }
    if !c.check_open() {
        return Ok(false);
    }
    let f = match std::fs::File::open(file) {
        Ok(f) => f,
        Err(e) => {
            c.set_err(errno_of(&e));
            return Ok(false);
        }
    };
    let size = f.metadata().map(|m| m.len() as i64).unwrap_or(0);
    let off = offset.max(0);
    let end = if length > 0 {
        (off + length).min(size)
    } else {
        size
    };
    if off >= end {
        c.set_err(i64::from(libc::EINVAL));
        return Ok(false);
    }
    if c.sock.tls_on() {
        // No sendfile(2) through TLS: the file's bytes are sent as records.
        use std::io::{Read, Seek, SeekFrom};
        let mut f = f;
        let mut buf = Vec::with_capacity((end - off) as usize);
        let r = f
            .seek(SeekFrom::Start(off as u64))
            .and_then(|_| f.take((end - off) as u64).read_to_end(&mut buf));
        if let Err(e) = r {
            c.set_err(errno_of(&e));
            return Ok(false);
        }
        let n = buf.len();
        return Ok(c.send_all(buf, 0.0)?.is_some_and(|sent| sent == n));
    }
    let f = Rc::new(f);
    let mut at = off;
    while at < end {
        let ff = Rc::clone(&f);
        let mut pos = at;
        let want = (end - at) as usize;
        let r = c.op(Dir::Write, 0.0, move |s| {
            use std::os::fd::AsRawFd;
            ns::sendfile_op(s, ff.as_raw_fd(), &mut pos, want).map(|n| (n, pos))
        })?;
        match r {
            Some((0, _)) | None => return Ok(false),
            Some((_, p)) => at = p,
        }
    }
    Ok(true)
}

/// `Swoole\Coroutine\CanceledException` (`Coroutine::cancel($cid, true)`).
pub static CANCELED: std::sync::OnceLock<CeRef> = std::sync::OnceLock::new();

pub fn register_classes(short: bool) -> ext_php_rs::error::Result<()> {
    let e = super::internal_subclass(
        "Swoole\\Coroutine\\Socket\\Exception",
        (exception_ce, "Swoole\\Exception"),
    )?;
    let _ = EXCEPTION.set(CeRef(e));
    let canceled = super::internal_subclass(
        "Swoole\\Coroutine\\CanceledException",
        (ext_php_rs::zend::ce::exception, "Exception"),
    )?;
    super::make_final(canceled);
    let _ = CANCELED.set(CeRef(canceled));
    if short {
        let ce = <Socket as RegisteredClass>::get_metadata().ce();
        super::class_alias("Co\\Socket", ce);
        super::class_alias("Co\\Socket\\Exception", e);
    }
    Ok(())
}

pub fn register(module: ModuleBuilder) -> ModuleBuilder {
    module.class::<Socket>()
}

/// `open_ssl` and the `ssl_*` settings onto `core` (Swoole's
/// `php_swoole_socket_set_ssl`); false after the warning for a missing
/// certificate or key file.
pub fn apply_tls_settings(core: &Core, set: &ZendHashTable) -> bool {
    let mut t = core.tls_set.borrow().clone();
    for (k, v) in set.iter() {
        let key = k.to_string();
        if key.starts_with("ssl_") && !tls_setting(&mut t, &key, v) {
            return false;
        }
    }
    let on = match set.get("open_ssl") {
        Some(v) => truthy(v),
        None => core.tls.borrow().is_some(),
    };
    *core.tls.borrow_mut() = on.then(|| t.clone());
    *core.tls_set.borrow_mut() = t;
    true
}

/// One `ssl_*` setting into `t`; false (after PHP's warning, as Swoole
/// words it) for a certificate or key file that does not exist.
pub fn tls_setting(t: &mut TlsOptions, key: &str, v: &Zval) -> bool {
    let text = || {
        v.str()
            .map(str::to_string)
            .or_else(|| v.long().map(|l| l.to_string()))
            .unwrap_or_default()
    };
    match key {
        "ssl_verify_peer" => t.verify_peer = truthy(v),
        "ssl_allow_self_signed" => t.allow_self_signed = truthy(v),
        "ssl_host_name" => t.host_name = Some(text()),
        "ssl_cafile" => t.cafile = Some(text()).filter(|s| !s.is_empty()),
        "ssl_capath" => t.capath = Some(text()).filter(|s| !s.is_empty()),
        "ssl_client_cert_file" => t.client_cert_file = Some(text()).filter(|s| !s.is_empty()),
        "ssl_protocols" => t.protocols = zval_i64(v),
        "ssl_verify_depth" => t.verify_depth = Some(zval_i64(v)),
        "ssl_cert_file" | "ssl_key_file" => {
            let f = text();
            if !std::path::Path::new(&f).exists() {
                let what = if key == "ssl_cert_file" {
                    "cert"
                } else {
                    "key"
                };
                php_error(
                    &ErrorType::Warning,
                    &format!("ssl {what} file[{f}] not found"),
                );
                return false;
            }
            if key == "ssl_cert_file" {
                t.cert_file = Some(f);
            } else {
                t.key_file = Some(f);
            }
        }
        _ => {}
    }
    true
}
