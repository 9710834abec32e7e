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
    module.class::<Client>()
}
