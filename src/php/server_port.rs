//! `Swoole\Server\Port`: a port added with `$server->listen()` /
//! `addListener()` (and `$server->ports[0]`, the main one), with its own
//! `set()` (framing, socket options) and `on()` (connect, receive, close,
//! packet, request). The server turns every port into an engine
//! `listener::Port` at `start()`.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use ext_php_rs::error::php_error;
use ext_php_rs::exception::PhpResult;
use ext_php_rs::flags::ErrorType;
use ext_php_rs::prelude::*;
use ext_php_rs::types::{ZendHashTable, Zval};

use super::settings;
use crate::engine::net::listener::PortSocket;

/// Events a port takes (lower-case).
pub const PORT_EVENTS: &[&str] = &[
    "connect",
    "receive",
    "close",
    "packet",
    "bufferfull",
    "bufferempty",
    "request",
    "handshake",
    "beforehandshakeresponse",
    "open",
    "message",
    "disconnect",
];

/// What a port is, shared between its PHP object and the server.
pub struct PortState {
    pub host: String,
    pub port: i64,
    pub sock_type: i64,
    /// Bound by `listen()`; taken by `start()`. None for the main port (the
    /// server holds that socket).
    pub socket: Option<PortSocket>,
    pub setting: Option<Zval>,
    pub callbacks: HashMap<&'static str, Zval>,
    pub started: bool,
    /// Position in the server's port list (0: the main port), which is the
    /// port index the session table records for each connection.
    pub index: usize,
}

impl PortState {
    pub fn new(host: String, port: i64, sock_type: i64, socket: Option<PortSocket>) -> Self {
        PortState {
            host,
            port,
            sock_type,
            socket,
            setting: None,
            callbacks: HashMap::new(),
            started: false,
            index: 0,
        }
    }
}

#[php_class]
#[php(name = "Swoole\\Server\\Port")]
pub struct Port {
    state: Rc<RefCell<PortState>>,
}

impl Port {
    pub fn new(state: Rc<RefCell<PortState>>) -> Self {
        Port { state }
    }
}

/// Merges `arr` into `target` (an array zval, created when absent).
pub fn merge_settings(target: &mut Option<Zval>, arr: &ZendHashTable) {
    let merged = target.get_or_insert_with(|| {
        let mut z = Zval::new();
        z.set_hashtable(ZendHashTable::new());
        z
    });
    if let Some(a) = merged.array_mut() {
        for (k, v) in arr.iter() {
            let _ = a.insert(k, v.shallow_clone());
        }
    }
}

#[php_impl]
impl Port {
    /// Sets this port's options (framing, socket options).
    pub fn set(&self, settings: &ZendHashTable) -> PhpResult<()> {
        settings::validate("Swoole\\Server\\Port", settings)?;
        // Fail early on a bad framing option, as Swoole does in set().
        settings::port_options("Swoole\\Server\\Port", Some(settings))?;
        let mut st = self.state.borrow_mut();
        merge_settings(&mut st.setting, settings);
        Ok(())
    }

    /// Registers a port event callback.
    pub fn on(&self, event_name: String, callback: &Zval) -> bool {
        let lower = event_name.to_ascii_lowercase();
        let Some(name) = PORT_EVENTS.iter().find(|e| **e == lower) else {
            php_error(
                &ErrorType::Warning,
                &format!("unknown event types[{event_name}]"),
            );
            return false;
        };
        if !callback.is_callable() {
            php_error(
                &ErrorType::Warning,
                &format!(
                    "function '{}' is not callable",
                    super::errors::callable_name(callback)
                ),
            );
            return false;
        }
        let mut st = self.state.borrow_mut();
        if st.started {
            php_error(
                &ErrorType::Warning,
                "server is running, unable to register event callback function",
            );
            return false;
        }
        st.callbacks.insert(name, callback.shallow_clone());
        true
    }

    pub fn get_callback(&self, event_name: String) -> Option<Zval> {
        let lower = event_name.to_ascii_lowercase();
        self.state
            .borrow()
            .callbacks
            .get(lower.as_str())
            .map(Zval::shallow_clone)
    }

    #[php(getter, name = "host")]
    pub fn prop_host(&self) -> String {
        self.state.borrow().host.clone()
    }

    #[php(getter, name = "port")]
    pub fn prop_port(&self) -> i64 {
        self.state.borrow().port
    }

    #[php(getter, name = "type")]
    pub fn prop_type(&self) -> i64 {
        self.state.borrow().sock_type
    }

    /// True when the port was created with `SWOOLE_SSL`.
    #[php(getter, name = "ssl")]
    pub fn prop_ssl(&self) -> bool {
        self.state.borrow().sock_type & super::constants::SWOOLE_SSL != 0
    }

    /// `$port->connections`: the open connection ids accepted on this port
    /// (an array, like `$server->connections`; Swoole gives an iterator).
    #[php(getter, name = "connections")]
    pub fn prop_connections(&self) -> ext_php_rs::boxed::ZBox<ext_php_rs::types::ZendHashTable> {
        super::server::connection_list(crate::engine::shared::session::list_port(
            self.state.borrow().index,
        ))
    }

    #[php(getter, name = "setting")]
    pub fn prop_setting(&self) -> Zval {
        match self.state.borrow().setting.as_ref() {
            Some(z) => z.shallow_clone(),
            None => Zval::new(),
        }
    }
}

pub fn register(module: ModuleBuilder) -> ModuleBuilder {
    module.class::<Port>()
}
