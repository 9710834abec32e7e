//! `Swoole\Coroutine\Client` (alias `Co\Client`): a TCP/UDP/Unix client
//! whose socket is a `Coroutine\Socket` (`exportSocket()` hands it out).
//! `ClientBase` is shared with the blocking `Swoole\Client` (client.rs),
//! which runs the same operations in `poll(2)` instead of suspending.

use std::cell::{Cell, RefCell};

use ext_php_rs::class::RegisteredClass;
use ext_php_rs::convert::FromZval;
use ext_php_rs::error::php_error;
use ext_php_rs::exception::PhpResult;
use ext_php_rs::flags::ErrorType;
use ext_php_rs::prelude::*;
use ext_php_rs::types::{PhpRef, ZendHashTable, Zval};

use super::errors::{set_last_error, swoole_error_text};
use super::exception::type_error;
use super::http_client_coro::Mixed;
use super::socket_coro::{
    apply_timeouts, bytes_zval, errno_of, false_zval, parse_protocol, send_file_impl, Core, Socket,
};
use crate::engine::net::framing::Framing;
use crate::engine::net::socket::{addr_parts, recv_from_op, Dir, NetSocket};

/// An optional by-reference argument (`mixed &$port = 0`): `None` when the
/// caller left it out.
pub struct OptRef<'a>(Option<&'a mut Zval>);

impl<'a> ext_php_rs::convert::FromZvalMut<'a> for OptRef<'a> {
    const TYPE: ext_php_rs::flags::DataType = ext_php_rs::flags::DataType::Mixed;
    const NULLABLE: bool = true;
    const BY_REF: bool = true;

    fn from_zval_mut(zval: &'a mut Zval) -> Option<Self> {
        Some(OptRef(Some(zval)))
    }

    fn from_missing() -> Option<Self> {
        Some(OptRef(None))
    }
}

/// `SW_ERROR_CLIENT_NO_CONNECTION`.
pub const ERR_NO_CONNECTION: i64 = 5001;
/// `SWOOLE_SSL`.
pub const SOCK_SSL: i64 = 512;
const CLIENT_BUFFER: usize = 65535;

/// `(domain, type)` for a `SWOOLE_SOCK_*` type (flags masked off).
pub fn socket_kind(ty: i64) -> Option<(i32, i32)> {
    Some(match ty & 0xff {
        1 => (libc::AF_INET, libc::SOCK_STREAM),
        2 => (libc::AF_INET, libc::SOCK_DGRAM),
        3 => (libc::AF_INET6, libc::SOCK_STREAM),
        4 => (libc::AF_INET6, libc::SOCK_DGRAM),
        5 => (libc::AF_UNIX, libc::SOCK_STREAM),
        6 => (libc::AF_UNIX, libc::SOCK_DGRAM),
        _ => return None,
    })
}

fn warn(msg: &str) {
    php_error(&ErrorType::Warning, msg);
}

/// What both clients keep.
/// Where a blocking unix datagram client binds itself (Swoole's name).
const AUTO_BIND_PREFIX: &str = "/tmp/swoole-client.";

pub struct ClientBase {
    pub class: &'static str,
    pub ty: i64,
    pub blocking: bool,
    /// The `Coroutine\Socket` object while connected.
    pub socket: RefCell<Option<Zval>>,
    pub setting: RefCell<Zval>,
    pub err: RefCell<(i64, String)>,
    pub connected: Cell<bool>,
}

impl ClientBase {
    pub fn new(class: &'static str, ty: i64, blocking: bool) -> PhpResult<Self> {
        if socket_kind(ty).is_none() {
            return Err(type_error(format!(
                "{class}::__construct() expects parameter 1 to be client type, unknown type {ty} given"
            )));
        }
        Ok(ClientBase {
            class,
            ty,
            blocking,
            socket: RefCell::new(None),
            setting: RefCell::new(Zval::new()),
            err: RefCell::new((0, String::new())),
            connected: Cell::new(false),
        })
    }

    pub fn set_err(&self, code: i64) {
        set_last_error(code);
        let msg = if code >= 500 {
            swoole_error_text(code)
        } else {
            super::errors::os_error_text(code)
        };
        *self.err.borrow_mut() = (code, msg);
    }

    /// Runs `f` on the socket; `None` (and `SW_ERROR_CLIENT_NO_CONNECTION`)
    /// when not connected. Copies the socket's error when `f` fails.
    pub fn with_core<R>(&self, f: impl FnOnce(&Core) -> R) -> Option<R> {
        let z = self.socket.borrow().as_ref().map(Zval::shallow_clone);
        let Some(z) = z else {
            self.set_err(ERR_NO_CONNECTION);
            return None;
        };
        let s = <&Socket>::from_zval(&z)?;
        s.core.clear_err();
        let r = f(&s.core);
        let e = s.core.err.borrow().clone();
        if e.0 != 0 {
            *self.err.borrow_mut() = e;
        }
        Some(r)
    }

    pub fn fd(&self) -> i64 {
        self.with_socket(|s| i64::from(s.core.sock.fd()))
            .unwrap_or(-1)
    }

    fn with_socket<R>(&self, f: impl FnOnce(&Socket) -> R) -> Option<R> {
        let z = self.socket.borrow().as_ref().map(Zval::shallow_clone)?;
        let s = <&Socket>::from_zval(&z)?;
        Some(f(s))
    }

    /// Applies the settings to a new socket; the errno when `bind_address`
    /// cannot be bound (Swoole's connect then fails with it).
    fn apply_settings(&self, core: &Core, set: &ZendHashTable) -> Result<(), i64> {
        apply_timeouts(set, &mut core.timeouts.borrow_mut());
        let _ = super::socket_coro::apply_tls_settings(core, set);
        if self.ty & SOCK_SSL != 0 {
            // SWOOLE_SSL: connect() handshakes with the ssl_* settings.
            let t = core.tls_set.borrow().clone();
            *core.tls.borrow_mut() = Some(t);
        }
        let p = parse_protocol(set, &core.sock.proto.borrow());
        *core.sock.proto.borrow_mut() = p;
        let fd = core.sock.fd();
        if let Some(v) = set.get("open_tcp_nodelay") {
            if core.sock.domain != libc::AF_UNIX && core.sock.ty == libc::SOCK_STREAM {
                let on = v.bool().unwrap_or(v.long().is_some_and(|l| l != 0));
                let _ = crate::engine::net::socket::setsockopt_int(
                    fd,
                    libc::IPPROTO_TCP,
                    libc::TCP_NODELAY,
                    i32::from(on),
                );
            }
        }
        if let Some(v) = set.get("socket_buffer_size") {
            let n = v.long().unwrap_or(0) as i32;
            if n > 0 {
                let _ = crate::engine::net::socket::setsockopt_int(
                    fd,
                    libc::SOL_SOCKET,
                    libc::SO_RCVBUF,
                    n,
                );
                let _ = crate::engine::net::socket::setsockopt_int(
                    fd,
                    libc::SOL_SOCKET,
                    libc::SO_SNDBUF,
                    n,
                );
            }
        }
        if let Some(v) = set.get("bind_address") {
            if let Some(host) = v.str() {
                let port = set.get("bind_port").and_then(Zval::long).unwrap_or(0);
                if let Some(Ok(a)) = crate::engine::net::socket::literal_addr(
                    core.sock.domain,
                    host,
                    port.clamp(0, 65535) as u16,
                ) {
                    core.sock
                        .with_sock(|s| s.bind(&a))
                        .map_err(|e| errno_of(&e))?;
                }
            }
        }
        Ok(())
    }

    /// Creates the socket (with the settings applied) for connect/sendto.
    fn make_socket(&self) -> Option<()> {
        let (domain, ty) = socket_kind(self.ty)?;
        let sock = match NetSocket::new(domain, ty, 0) {
            Ok(s) => s,
            Err(e) => {
                self.set_err(errno_of(&e));
                return None;
            }
        };
        let s = Socket::from_net(sock);
        s.core.blocking.set(self.blocking);
        let set = self.setting.borrow().shallow_clone();
        let applied = match set.array() {
            Some(ht) => self.apply_settings(&s.core, ht),
            None => self.apply_settings(&s.core, &ZendHashTable::new()),
        };
        if let Err(n) = applied {
            s.core.sock.close();
            self.set_err(n);
            return None;
        }
        // Swoole\Client on a unix datagram socket binds to a path of its own
        // (so the server can answer), and removes it when it closes.
        let bound = set.array().is_some_and(|a| a.get("bind_address").is_some());
        if self.blocking && domain == libc::AF_UNIX && ty == libc::SOCK_DGRAM && !bound {
            let path = format!(
                "{AUTO_BIND_PREFIX}{}.{}.sock",
                std::process::id(),
                s.core.sock.fd()
            );
            let _ = std::fs::remove_file(&path);
            if let Ok(a) = socket2::SockAddr::unix(&path) {
                if let Err(e) = s.core.sock.with_sock(|x| x.bind(&a)) {
                    warn(&format!("bind({path}) failed, Error: {e}"));
                }
            }
        }
        *self.socket.borrow_mut() = Some(s.into_zval());
        Some(())
    }

    fn drop_socket(&self) {
        let old = self.socket.borrow_mut().take();
        if let Some(z) = &old {
            if let Some(s) = <&Socket>::from_zval(z) {
                let auto = s
                    .core
                    .sock
                    .with_sock(|x| x.local_addr())
                    .ok()
                    .and_then(|a| a.as_pathname().map(|p| p.to_path_buf()))
                    .filter(|p| p.to_string_lossy().starts_with(AUTO_BIND_PREFIX));
                s.core.sock.close();
                if let Some(p) = auto {
                    let _ = std::fs::remove_file(p);
                }
            }
        }
        drop(old);
        self.connected.set(false);
    }

    fn is_stream(&self) -> bool {
        socket_kind(self.ty).is_some_and(|(d, t)| d != libc::AF_UNIX && t == libc::SOCK_STREAM)
    }

    pub fn connect(&self, host: &str, port: i64, timeout: f64) -> PhpResult<bool> {
        if host.is_empty() {
            warn("The host is empty");
            return Ok(false);
        }
        if self.socket.borrow().is_some() {
            if self.blocking {
                warn("connection to the server has already been established");
            }
            self.set_err(i64::from(libc::EISCONN));
            return Ok(false);
        }
        if self.is_stream() && !(1..65536).contains(&port) {
            warn("The port is invalid");
            return Ok(false);
        }
        if !self.blocking && crate::coro::current() < 0 {
            return Err(super::errors::out_of_coroutine());
        }
        if self.make_socket().is_none() {
            return Ok(false);
        }
        if timeout != 0.0 {
            self.with_core(|c| c.timeouts.borrow_mut().connect = timeout);
        }
        let ok = self.with_core(|c| c.connect(host, port, 0.0));
        let ok = match ok {
            Some(r) => r?,
            None => false,
        };
        if !ok {
            if self.blocking {
                let (code, msg) = self.err.borrow().clone();
                warn(&format!(
                    "connect to server[{host}:{port}] failed. Error: {msg}[{code}]"
                ));
            }
            self.drop_socket();
            return Ok(false);
        }
        if timeout != 0.0 {
            self.with_core(|c| {
                let mut t = c.timeouts.borrow_mut();
                t.read = timeout;
                t.write = timeout;
            });
        }
        self.connected.set(true);
        Ok(true)
    }

    fn framed(&self) -> bool {
        self.with_socket(|s| !matches!(s.core.sock.proto.borrow().framing, Framing::Raw))
            .unwrap_or(false)
    }

    pub fn send(&self, data: &[u8], timeout: f64) -> PhpResult<Zval> {
        if data.is_empty() {
            warn("data to send is empty");
            return Ok(false_zval());
        }
        let d = data.to_vec();
        match self.with_core(|c| c.send_all(d, timeout)) {
            Some(Ok(Some(n))) => {
                let mut z = Zval::new();
                z.set_long(n as i64);
                Ok(z)
            }
            Some(Err(e)) => Err(e),
            _ => {
                if self.blocking {
                    self.sys_warn("send", "failed to send");
                }
                Ok(false_zval())
            }
        }
    }

    fn sys_warn(&self, method: &str, what: &str) {
        let (code, msg) = self.err.borrow().clone();
        if code != 0 && code != ERR_NO_CONNECTION {
            let _ = method;
            warn(&format!("{what}, Error: {msg}[{code}]"));
        }
    }

    /// `recv`: a packet with framing, else one read of up to `size`
    /// (`all`: all `size` bytes).
    pub fn recv(&self, size: usize, timeout: f64, all: bool) -> PhpResult<Zval> {
        let framed = self.framed();
        let r = self.with_core(|c| {
            if framed {
                c.recv_packet(timeout)
            } else if all {
                c.recv_all(size, timeout)
            } else {
                c.recv(size, timeout)
            }
        });
        match r {
            Some(Ok(Some(v))) => Ok(bytes_zval(&v)),
            Some(Err(e)) => Err(e),
            _ => {
                if self.blocking {
                    // A blocking read that timed out is EAGAIN in Swoole.
                    let code = self.err.borrow().0;
                    if code == i64::from(libc::ETIMEDOUT) {
                        self.set_err(i64::from(libc::EAGAIN));
                    }
                    self.sys_warn("recv", "recv() failed");
                }
                Ok(false_zval())
            }
        }
    }

    pub fn peek(&self, len: i64) -> Zval {
        let n = if len <= 0 {
            CLIENT_BUFFER
        } else {
            len as usize
        };
        let r = self.with_core(|c| {
            if let Some(b) = c.sock.peek_buffered(n) {
                return Some(b);
            }
            let r = c
                .sock
                .with_sock(|s| c.sock.recv_any(s, n, libc::MSG_PEEK | libc::MSG_DONTWAIT));
            if let Err(e) = &r {
                c.set_err(errno_of(e));
            }
            r.ok()
        });
        match r.flatten() {
            Some(v) => bytes_zval(&v),
            None => false_zval(),
        }
    }

    pub fn close(&self) -> bool {
        if self.socket.borrow().is_none() {
            self.set_err(ERR_NO_CONNECTION);
            return false;
        }
        self.drop_socket();
        true
    }

    pub fn is_connected(&self) -> bool {
        self.connected.get()
            && self
                .with_socket(|s| !s.core.sock.is_closed())
                .unwrap_or(false)
    }

    pub fn name(&self, peer: bool) -> Zval {
        let r = self.with_core(|c| c.addr(peer));
        match r {
            Some(z) => {
                if let Some(ht) = z.array() {
                    let addr = ht
                        .get("address")
                        .and_then(Zval::str)
                        .unwrap_or("")
                        .to_string();
                    let port = ht.get("port").and_then(Zval::long).unwrap_or(0);
                    let mut out = ZendHashTable::new();
                    let _ = out.insert("host", addr.as_str());
                    let _ = out.insert("address", addr.as_str());
                    let _ = out.insert("port", port);
                    let mut z = Zval::new();
                    z.set_hashtable(out);
                    return z;
                }
                false_zval()
            }
            None => false_zval(),
        }
    }

    pub fn set(&self, settings: &ZendHashTable) -> bool {
        if settings.is_empty() {
            return false;
        }
        {
            let mut cur = self.setting.borrow_mut();
            let mut merged = cur.array().map(|h| h.to_owned()).unwrap_or_default();
            for (k, v) in settings.iter() {
                let _ = merged.insert(k.to_string().as_str(), v.shallow_clone());
            }
            let mut z = Zval::new();
            z.set_hashtable(merged);
            *cur = z;
        }
        if self.socket.borrow().is_some() {
            let z = self.socket.borrow().as_ref().map(Zval::shallow_clone);
            if let Some(z) = z {
                if let Some(s) = <&Socket>::from_zval(&z) {
                    let _ = self.apply_settings(&s.core, settings);
                }
            }
        }
        true
    }

    pub fn sendto(&self, host: &str, port: i64, data: &[u8]) -> PhpResult<bool> {
        if data.is_empty() {
            warn("data to send is empty");
            return Ok(false);
        }
        if self.socket.borrow().is_none() && self.make_socket().is_none() {
            return Ok(false);
        }
        let d = data.to_vec();
        let r = self.with_core(|c| -> PhpResult<bool> {
            let Some(to) = c.resolve(host, port.clamp(0, 65535) as u16)? else {
                return Ok(false);
            };
            Ok(c.op(Dir::Write, 0.0, move |s| {
                s.send_to_with_flags(&d, &to, libc::MSG_NOSIGNAL)
            })?
            .is_some())
        });
        r.unwrap_or(Ok(false))
    }

    pub fn recvfrom(
        &self,
        len: i64,
        address: &mut Zval,
        port: Option<&mut Zval>,
    ) -> PhpResult<Zval> {
        if self.socket.borrow().is_none() && self.make_socket().is_none() {
            return Ok(false_zval());
        }
        let n = if len <= 0 {
            CLIENT_BUFFER
        } else {
            len as usize
        };
        let r = self.with_core(|c| c.op(Dir::Read, 0.0, move |s| recv_from_op(s, n)));
        match r {
            Some(Ok(Some((data, from)))) => {
                let (h, p) = addr_parts(&from);
                let mut hz = Zval::new();
                let _ = hz.set_string(&h, false);
                drop(std::mem::replace(address, hz));
                if let Some(pz) = port {
                    let mut z = Zval::new();
                    z.set_long(i64::from(p));
                    drop(std::mem::replace(pz, z));
                }
                Ok(bytes_zval(&data))
            }
            Some(Err(e)) => Err(e),
            _ => Ok(false_zval()),
        }
    }

    pub fn sendfile(&self, file: &str, offset: i64, length: i64) -> PhpResult<bool> {
        self.with_core(|c| send_file_impl(c, file, offset, length))
            .unwrap_or(Ok(false))
    }

    /// `enableSSL()`: the TLS handshake on the connected socket.
    pub fn enable_ssl(&self) -> PhpResult<bool> {
        if !self.is_connected() {
            self.set_err(ERR_NO_CONNECTION);
            return Ok(false);
        }
        let r = self.with_core(|c| {
            let t = c.tls_set.borrow().clone();
            *c.tls.borrow_mut() = Some(t);
            let dl = super::socket_coro::deadline(0.0, c.timeouts.borrow().read);
            c.handshake(dl)
        });
        r.unwrap_or(Ok(false))
    }

    pub fn peer_cert(&self) -> Zval {
        self.with_core(|c| c.peer_cert()).unwrap_or_else(false_zval)
    }

    pub fn verify_peer_cert(&self, allow_self_signed: bool) -> bool {
        self.with_core(|c| c.verify_peer(allow_self_signed))
            .unwrap_or(false)
    }

    /// `verifyPeerCert()` with the `ssl_allow_self_signed` setting.
    pub fn verify_peer_cert_setting(&self) -> bool {
        self.with_core(|c| {
            let a = c.tls_set.borrow().allow_self_signed;
            c.verify_peer(a)
        })
        .unwrap_or(false)
    }
}

#[php_class]
#[php(name = "Swoole\\Coroutine\\Client")]
pub struct Client {
    base: ClientBase,
}

#[php_impl]
impl Client {
    const MSG_OOB: i64 = 1;
    const MSG_PEEK: i64 = 2;
    const MSG_DONTWAIT: i64 = 64;
    const MSG_WAITALL: i64 = 256;

    pub fn __construct(r#type: i64) -> PhpResult<Self> {
        Ok(Client {
            base: ClientBase::new("Swoole\\Coroutine\\Client", r#type, false)?,
        })
    }

    pub fn __destruct(&self) {}

    pub fn set(&self, settings: &ZendHashTable) -> bool {
        self.base.set(settings)
    }

    #[php(defaults(port = 0, timeout = 0.0, sock_flag = 0))]
    pub fn connect(&self, host: &str, port: i64, timeout: f64, sock_flag: i64) -> PhpResult<bool> {
        let _ = sock_flag;
        self.base.connect(host, port, timeout)
    }

    #[php(defaults(timeout = 0.0))]
    pub fn recv(&self, timeout: f64) -> PhpResult<Zval> {
        self.base.recv(CLIENT_BUFFER, timeout, false)
    }

    #[php(defaults(length = 65535))]
    pub fn peek(&self, length: i64) -> Zval {
        self.base.peek(length)
    }

    #[php(defaults(timeout = 0.0))]
    pub fn send(&self, data: &Zval, timeout: f64) -> PhpResult<Zval> {
        let d = data
            .zend_str()
            .map(|s| s.as_bytes().to_vec())
            .unwrap_or_default();
        self.base.send(&d, timeout)
    }

    #[php(defaults(offset = 0, length = 0))]
    pub fn sendfile(&self, filename: &str, offset: i64, length: i64) -> PhpResult<bool> {
        self.base.sendfile(filename, offset, length)
    }

    pub fn sendto(&self, address: &str, port: i64, data: &Zval) -> PhpResult<bool> {
        let d = data
            .zend_str()
            .map(|s| s.as_bytes().to_vec())
            .unwrap_or_default();
        self.base.sendto(address, port, &d)
    }

    pub fn recvfrom(&self, length: i64, mut address: PhpRef, port: OptRef) -> PhpResult<Zval> {
        self.base.recvfrom(length, &mut address, port.0)
    }

    #[php(name = "enableSSL")]
    pub fn enable_ssl(&self) -> PhpResult<bool> {
        self.base.enable_ssl()
    }

    #[php(name = "getPeerCert")]
    pub fn get_peer_cert(&self) -> Zval {
        self.base.peer_cert()
    }

    #[php(name = "verifyPeerCert", defaults(allow_self_signed = false))]
    pub fn verify_peer_cert(&self, allow_self_signed: bool) -> bool {
        self.base.verify_peer_cert(allow_self_signed)
    }

    #[php(name = "isConnected")]
    pub fn is_connected(&self) -> bool {
        self.base.is_connected()
    }

    pub fn getsockname(&self) -> Zval {
        self.base.name(false)
    }

    pub fn getpeername(&self) -> Zval {
        self.base.name(true)
    }

    pub fn close(&self) -> bool {
        self.base.close()
    }

    #[php(name = "exportSocket")]
    pub fn export_socket(&self) -> Zval {
        match self.base.socket.borrow().as_ref() {
            Some(z) => z.shallow_clone(),
            None => {
                self.base.set_err(ERR_NO_CONNECTION);
                false_zval()
            }
        }
    }

    #[php(getter, name = "errCode")]
    pub fn prop_err_code(&self) -> i64 {
        self.base.err.borrow().0
    }

    #[php(setter, name = "errCode")]
    pub fn set_prop_err_code(&self, v: i64) {
        self.base.err.borrow_mut().0 = v;
    }

    #[php(getter, name = "errMsg")]
    pub fn prop_err_msg(&self) -> String {
        self.base.err.borrow().1.clone()
    }

    #[php(setter, name = "errMsg")]
    pub fn set_prop_err_msg(&self, v: String) {
        self.base.err.borrow_mut().1 = v;
    }

    #[php(getter, name = "fd")]
    pub fn prop_fd(&self) -> i64 {
        self.base.fd()
    }

    #[php(getter, name = "socket")]
    pub fn prop_socket(&self) -> Mixed {
        Mixed(
            self.base
                .socket
                .borrow()
                .as_ref()
                .map_or_else(Zval::new, Zval::shallow_clone),
        )
    }

    #[php(getter, name = "type")]
    pub fn prop_type(&self) -> i64 {
        self.base.ty
    }

    #[php(getter, name = "setting")]
    pub fn prop_setting(&self) -> Mixed {
        Mixed(self.base.setting.borrow().shallow_clone())
    }

    #[php(setter, name = "setting")]
    pub fn set_prop_setting(&self, v: Mixed) {
        let old = std::mem::replace(&mut *self.base.setting.borrow_mut(), v.0);
        drop(old);
    }

    #[php(getter, name = "connected")]
    pub fn prop_connected(&self) -> bool {
        self.base.is_connected()
    }
}

pub fn register_classes(short: bool) -> ext_php_rs::error::Result<()> {
    if short {
        super::class_alias(
            "Co\\Client",
            <Client as RegisteredClass>::get_metadata().ce(),
        );
    }
    Ok(())
}

pub fn register(module: ModuleBuilder) -> ModuleBuilder {
    module.class::<Client>()
}
