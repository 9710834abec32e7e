//! Processes: the supervisor (BASE master / PROCESS manager), the PROCESS-mode reactor and its held copies, user processes and `Process\Pool`.

pub mod held;
pub mod pool;
pub mod reactor;
pub mod supervisor;
pub mod user;
