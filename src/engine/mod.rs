//! The engine: processes, sockets, HTTP and timers in plain Rust, no PHP.
//!
//! Everything here builds and is tested with `cargo test --no-default-features`.
//! User code is reached only through [`hooks::Hooks`].

pub mod config;
pub mod error;
pub mod hash;
pub mod hooks;
pub mod http;
#[macro_use]
pub mod log;
pub mod metrics;
pub mod sys;
pub mod watchdog;

pub mod client;
pub mod ipc;
pub mod net;
pub mod proc;
pub mod rt;
pub mod shared;
pub mod tls;
pub mod worker;
pub mod ws;
pub use error::{Error, Result};
