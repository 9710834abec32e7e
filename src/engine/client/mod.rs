//! Coroutine clients: HTTP/1.1 + WebSocket and HTTP/2.

pub mod http;
pub mod http2;
