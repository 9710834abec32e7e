//! The engine: processes, sockets, HTTP and timers in plain Rust, no PHP.
//!
//! Everything here builds and is tested with `cargo test --no-default-features`.
//! User code is reached only through [`hooks::Hooks`].

pub mod config;
pub mod conns;
pub mod ctx;
pub mod error;
pub mod event_loop;
pub mod framing;
pub mod halt;
pub mod hash;
pub mod held;
pub mod hooks;
pub mod http;
pub mod http2_client;
pub mod http_client;
pub mod http_coro;
pub mod inbox;
pub mod ipc;
pub mod listener;
#[macro_use]
pub mod log;
pub mod metrics;
pub mod net_socket;
pub mod notice;
pub mod outflow;
pub mod pool;
pub mod process;
pub mod reactor;
pub mod session;
pub mod shm_lock;
pub mod stats;
pub mod sys;
pub mod table;
pub mod tcp;
pub mod timer;
pub mod tls;
pub mod tls_client;
pub mod tls_v1;
pub mod user_process;
pub mod watchdog;
pub mod worker;
pub mod ws;
pub mod ws_close;
pub mod ws_deflate;
pub mod ws_frame;
pub mod ws_handshake;

pub use error::{Error, Result};
