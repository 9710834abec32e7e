//! Memory shared by every process of a server (MAP_SHARED mappings made before the first fork): stats, the session table, locks, `Swoole\Table`.

pub mod session;
pub mod shm_lock;
pub mod stats;
pub mod table;
