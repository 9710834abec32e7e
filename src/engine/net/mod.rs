//! Sockets below the protocols: listeners, framing, raw TCP/UDP connections, the connection registry, output accounting, coroutine sockets.

pub mod conns;
pub mod framing;
pub mod listener;
pub mod outflow;
pub mod socket;
pub mod tcp;
