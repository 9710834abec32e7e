//! The per-process runtime: the event loop and timers.

pub mod event_loop;
pub mod timer;
