//! `Swoole\Client`: the blocking TCP/UDP/Unix client. The operations are
//! `client_coro::ClientBase`'s, waiting in `poll(2)` with the timeout given
//! to `connect()` (0.5 s by default) instead of suspending a coroutine.

use ext_php_rs::exception::{PhpException, PhpResult};
use ext_php_rs::prelude::*;
use ext_php_rs::types::{ZendHashTable, Zval};

use super::client_coro::{ClientBase, ERR_NO_CONNECTION};
use super::exception::error_ce;
use super::http_client_coro::Mixed;
use super::socket_coro::false_zval;

const MSG_WAITALL: i64 = 256;

#[php_class]
#[php(name = "Swoole\\Client")]
pub struct Client {
    base: ClientBase,
    id: String,
}

impl Client {
    fn need_connection(&self, method: &str) -> bool {
        let _ = method;
        if self.base.socket.borrow().is_none() {
            self.base.set_err(ERR_NO_CONNECTION);
            ext_php_rs::error::php_error(
                &ext_php_rs::flags::ErrorType::Warning,
                "client is not connected to server",
            );
            return false;
        }
        true
    }
}

#[php_impl]
impl Client {
    const MSG_OOB: i64 = 1;
    const MSG_PEEK: i64 = 2;
    const MSG_DONTWAIT: i64 = 64;
    const MSG_WAITALL: i64 = 256;
    const SHUT_RDWR: i64 = 2;
    const SHUT_RD: i64 = 0;
    const SHUT_WR: i64 = 1;

    #[php(defaults(r#async = false, id = String::new()))]
    pub fn __construct(r#type: i64, r#async: bool, id: String) -> PhpResult<Self> {
        if r#async {
            return Err(PhpException::new(
                "The $async parameter is not supported".into(),
                0,
                error_ce(),
            ));
        }
        Ok(Client {
            base: ClientBase::new("Swoole\\Client", r#type, true)?,
            id,
        })
    }

    pub fn __destruct(&self) {}

    pub fn set(&self, settings: &ZendHashTable) -> bool {
        self.base.set(settings)
    }

    #[php(defaults(port = 0, timeout = 0.5, sock_flag = 0))]
    pub fn connect(&self, host: &str, port: i64, timeout: f64, sock_flag: i64) -> PhpResult<bool> {
        let _ = sock_flag;
        self.base.connect(host, port, timeout)
    }

    #[php(defaults(size = 65536, flag = 0))]
    pub fn recv(&self, size: i64, flag: i64) -> PhpResult<Zval> {
        if !self.need_connection("recv") {
            return Ok(false_zval());
        }
        let n = if size <= 0 { 65536 } else { size as usize };
        let n = if flag & MSG_WAITALL == 0 {
            n.min(65536)
        } else {
            n
        };
        self.base.recv(n, 0.0, flag & MSG_WAITALL != 0)
    }

    #[php(defaults(flag = 0))]
    pub fn send(&self, data: &Zval, flag: i64) -> PhpResult<Zval> {
        let _ = flag;
        let d = data
            .zend_str()
            .map(|s| s.as_bytes().to_vec())
            .unwrap_or_default();
        if !d.is_empty() && !self.need_connection("send") {
            return Ok(false_zval());
        }
        self.base.send(&d, 0.0)
    }

    #[php(defaults(offset = 0, length = 0))]
    pub fn sendfile(&self, filename: &str, offset: i64, length: i64) -> PhpResult<bool> {
        if !self.need_connection("sendfile") {
            return Ok(false);
        }
        self.base.sendfile(filename, offset, length)
    }

    pub fn sendto(&self, ip: &str, port: i64, data: &Zval) -> PhpResult<bool> {
        let d = data
            .zend_str()
            .map(|s| s.as_bytes().to_vec())
            .unwrap_or_default();
        self.base.sendto(ip, port, &d)
    }

    pub fn shutdown(&self, how: i64) -> bool {
        let h = match how {
            0 => std::net::Shutdown::Read,
            1 => std::net::Shutdown::Write,
            _ => std::net::Shutdown::Both,
        };
        self.base
            .with_core(|c| c.sock.with_sock(|s| s.shutdown(h)).is_ok())
            .unwrap_or(false)
    }

    #[php(name = "enableSSL", optional = on_ssl_ready)]
    pub fn enable_ssl(&self, on_ssl_ready: Option<&Zval>) -> PhpResult<bool> {
        let _ = on_ssl_ready;
        self.base.enable_ssl()
    }

    #[php(name = "getPeerCert")]
    pub fn get_peer_cert(&self) -> Zval {
        self.base.peer_cert()
    }

    #[php(name = "verifyPeerCert")]
    pub fn verify_peer_cert(&self) -> bool {
        self.base.verify_peer_cert_setting()
    }

    #[php(name = "isConnected")]
    pub fn is_connected(&self) -> bool {
        self.base.is_connected()
    }

    pub fn getsockname(&self) -> Zval {
        if !self.need_connection("getsockname") {
            return false_zval();
        }
        self.base.name(false)
    }

    pub fn getpeername(&self) -> Zval {
        if !self.need_connection("getpeername") {
            return false_zval();
        }
        self.base.name(true)
    }

    #[php(defaults(force = false))]
    pub fn close(&self, force: bool) -> bool {
        let _ = force;
        self.base.close()
    }

    #[php(getter, name = "errCode")]
    pub fn prop_err_code(&self) -> i64 {
        self.base.err.borrow().0
    }

    #[php(setter, name = "errCode")]
    pub fn set_prop_err_code(&self, v: i64) {
        self.base.err.borrow_mut().0 = v;
    }

    #[php(getter, name = "sock")]
    pub fn prop_sock(&self) -> i64 {
        self.base.fd()
    }

    #[php(getter, name = "type")]
    pub fn prop_type(&self) -> i64 {
        self.base.ty
    }

    #[php(getter, name = "id")]
    pub fn prop_id(&self) -> String {
        self.id.clone()
    }

    #[php(setter, name = "id")]
    pub fn set_prop_id(&mut self, v: String) {
        self.id = v;
    }

    #[php(getter, name = "reuse")]
    pub fn prop_reuse(&self) -> bool {
        false
    }

    #[php(getter, name = "reuseCount")]
    pub fn prop_reuse_count(&self) -> i64 {
        0
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
}

pub fn register(module: ModuleBuilder) -> ModuleBuilder {
    module
        .class::<Client>()
        .function(wrap_function!(swoole_client_select))
        .function(wrap_function!(swoole_select))
}

/// A key of a select() array.
enum Key {
    Index(i64),
    Name(String),
}

/// The descriptors of the `Swoole\Client` objects in `list` (by key); an
/// entry that is not a connected client is left out.
fn select_fds(list: &Zval) -> Vec<(Key, Zval, i32)> {
    let mut out = Vec::new();
    let Some(ht) = list.dereference().array() else {
        return out;
    };
    for (k, v) in ht.iter() {
        let fd =
            <&Client as ext_php_rs::convert::FromZval>::from_zval(v).map_or(-1, |c| c.base.fd());
        if fd >= 0 {
            let key = match k {
                ext_php_rs::types::ArrayKey::Long(n) => Key::Index(n),
                other => Key::Name(other.to_string()),
            };
            out.push((key, v.shallow_clone(), fd as i32));
        }
    }
    out
}

/// `swoole_client_select(&$read, &$write, &$error, $timeout = 0.5)`: waits
/// in `poll(2)` until one of the clients is ready; each array keeps only
/// its ready clients. The number of ready clients, 0 on timeout, false on
/// error.
#[php_function]
#[php(defaults(timeout = 0.5))]
pub fn swoole_client_select(
    read: ext_php_rs::types::PhpRef,
    write: ext_php_rs::types::PhpRef,
    error: ext_php_rs::types::PhpRef,
    timeout: f64,
) -> Zval {
    select_impl([read, write, error], timeout)
}

/// `swoole_select()`: the same as `swoole_client_select()`.
#[php_function]
#[php(defaults(timeout = 0.5))]
pub fn swoole_select(
    read: ext_php_rs::types::PhpRef,
    write: ext_php_rs::types::PhpRef,
    error: ext_php_rs::types::PhpRef,
    timeout: f64,
) -> Zval {
    select_impl([read, write, error], timeout)
}

fn select_impl(mut lists: [ext_php_rs::types::PhpRef; 3], timeout: f64) -> Zval {
    let sets: Vec<_> = lists.iter().map(|l| select_fds(l)).collect();
    let events = [libc::POLLIN, libc::POLLOUT, libc::POLLPRI];
    let mut pfds: Vec<libc::pollfd> = Vec::new();
    for (set, ev) in sets.iter().zip(events) {
        for (_, _, fd) in set {
            pfds.push(libc::pollfd {
                fd: *fd,
                events: ev,
                revents: 0,
            });
        }
    }
    let ms = if timeout < 0.0 {
        -1
    } else {
        (timeout * 1000.0).ceil().min(i32::MAX as f64) as i32
    };
    // SAFETY: `pfds` is a valid array of `pfds.len()` pollfd entries.
    let n = unsafe { libc::poll(pfds.as_mut_ptr(), pfds.len() as libc::nfds_t, ms) };
    if n < 0 {
        return false_zval();
    }
    let mut i = 0;
    let mut ready_total = 0i64;
    for (set, target) in sets.into_iter().zip(lists.iter_mut()) {
        let mut ht = ZendHashTable::new();
        for (key, obj, _) in set {
            let hit = pfds[i].revents != 0;
            i += 1;
            if hit {
                ready_total += 1;
                let _ = match key {
                    Key::Index(n) => ht.insert_at_index(n, obj),
                    Key::Name(k) => ht.insert(k.as_str(), obj).map(|_| ()),
                };
            }
        }
        let mut z = Zval::new();
        z.set_hashtable(ht);
        let old = std::mem::replace(&mut **target, z);
        drop(old);
    }
    let mut z = Zval::new();
    z.set_long(ready_total);
    z
}
