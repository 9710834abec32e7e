//! The process-level plumbing of the supervisors: signals (and, later, daemonize).

pub mod signal;
