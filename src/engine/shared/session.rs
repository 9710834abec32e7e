//! Connection ids (Swoole's session ids, the `$fd` of `receive`/`send`),
//! unique across every process of a server, and who owns each connection.
//!
//! One anonymous `MAP_SHARED` table, mapped by the master before it forks:
//! a counter hands out ids 1, 2, 3, ...; slot `id % CAP` records the owning
//! worker, the peer and the times. Any process (a task worker too) can so
//! list connections (`$server->connections`), read their info, and route a
//! `send()` to the worker that owns the socket. At most `CAP` connections can
//! be open at once. Outside a server (engine tests) ids come from a local
//! counter and lookups find nothing.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::atomic::{AtomicI32, AtomicI64, AtomicPtr, AtomicU32, AtomicU64, Ordering};

/// Open connections a server can track at once.
pub const CAP: usize = 1 << 16;
/// Slots per group of the used-slot bitmap that one counter covers.
const GROUP: usize = 512;

#[repr(C)]
struct Slot {
    /// The id in this slot, 0 when free.
    fd: AtomicI64,
    worker: AtomicI32,
    port_index: AtomicI32,
    server_port: AtomicI32,
    remote_port: AtomicI32,
    /// 4 or 6.
    family: AtomicI32,
    /// `WEBSOCKET_STATUS_*` (0: not a WebSocket connection).
    ws_status: AtomicI32,
    /// 1: the WebSocket connection negotiated permessage-deflate (a
    /// pusher in any process compresses its frames).
    ws_compress: AtomicI32,
    addr_hi: AtomicU64,
    addr_lo: AtomicU64,
    connect_time: AtomicI64,
    last_time: AtomicI64,
    /// `$server->bind($fd, $uid)`: 0 until bound, then fixed.
    uid: AtomicI64,
    /// When data last arrived, in microseconds (`last_recv_time`,
    /// `last_dispatch_time`); 0 before any.
    last_us: AtomicI64,
}

#[repr(C)]
struct Table {
    next: AtomicI64,
    /// One bit per slot in use, so listing connections reads 8 KiB instead
    /// of every slot (a task worker broadcasting lists them per message).
    used: [AtomicU64; CAP / 64],
    /// Per group of `GROUP` slots, at least the number of its bits set in
    /// `used` (raised before a bit is set, lowered after it is cleared), so
    /// a listing skips the empty groups: the 1,024 words of `used` cost a
    /// broadcasting task worker ~15,000 instructions per message.
    groups: [AtomicU32; CAP / GROUP],
    slots: [Slot; CAP],
}

impl Table {
    fn mark(&self, slot: usize, on: bool) {
        let bit = 1u64 << (slot % 64);
        let group = &self.groups[slot / GROUP];
        if on {
            group.fetch_add(1, Ordering::AcqRel);
            if self.used[slot / 64].fetch_or(bit, Ordering::AcqRel) & bit != 0 {
                group.fetch_sub(1, Ordering::AcqRel);
            }
        } else if self.used[slot / 64].fetch_and(!bit, Ordering::AcqRel) & bit != 0 {
            group.fetch_sub(1, Ordering::AcqRel);
        }
    }

    /// `f` on every slot whose bit is set, in slot order. Plain loops: as
    /// an iterator (`filter` over the groups, two `flat_map`s) the 128
    /// group counters alone cost a broadcasting task worker ~1,600
    /// instructions per message.
    fn for_each_used(&self, mut f: impl FnMut(&Slot)) {
        const WORDS: usize = GROUP / 64;
        for (g, n) in self.groups.iter().enumerate() {
            if n.load(Ordering::Acquire) == 0 {
                continue;
            }
            for w in g * WORDS..(g + 1) * WORDS {
                let mut bits = self.used[w].load(Ordering::Acquire);
                while bits != 0 {
                    let b = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    f(&self.slots[w * 64 + b]);
                }
            }
        }
    }
}

static TABLE: AtomicPtr<Table> = AtomicPtr::new(std::ptr::null_mut());
static LOCAL_NEXT: AtomicI64 = AtomicI64::new(1);
/// `start_session_id`: the first connection gets the id after it.
static START: AtomicI64 = AtomicI64::new(0);

/// Sets `start_session_id` for the next `init` (as Swoole, the first id
/// is `start + 1`).
pub fn set_start(start: i64) {
    START.store(start.max(0), Ordering::Relaxed);
}

/// Maps (or clears) the table; in the master, before any fork.
pub fn init() -> std::io::Result<()> {
    let first = START.load(Ordering::Relaxed).saturating_add(1);
    if let Some(t) = table() {
        t.next.store(first, Ordering::Relaxed);
        for s in &t.slots {
            s.fd.store(0, Ordering::Relaxed);
        }
        for w in &t.used {
            w.store(0, Ordering::Relaxed);
        }
        for g in &t.groups {
            g.store(0, Ordering::Relaxed);
        }
        return Ok(());
    }
    // All-zero is a valid `Table` (atomics only), and it is never unmapped.
    let p = crate::engine::shared::shm_lock::map_shared(std::mem::size_of::<Table>())?;
    let t: *mut Table = p.cast();
    // SAFETY: just mapped, zeroed, page-aligned, sized for `Table`.
    unsafe { (*t).next.store(first, Ordering::Relaxed) };
    TABLE.store(t, Ordering::Release);
    Ok(())
}

/// Maps the table once for this test process and never clears it (tests
/// running in parallel share it; `init` would clear their slots).
#[cfg(test)]
pub(crate) fn init_once() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        if table().is_none() {
            init().expect("mmap the session table");
        }
    });
}

fn table() -> Option<&'static Table> {
    // SAFETY: see `init`: never unmapped, atomics only.
    unsafe { TABLE.load(Ordering::Acquire).as_ref() }
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// A connection as any process sees it.
#[derive(Debug, Clone)]
pub struct Session {
    pub fd: i64,
    pub worker: i32,
    pub port_index: usize,
    pub server_port: u16,
    pub peer: SocketAddr,
    pub connect_time: i64,
    pub last_time: i64,
    /// When data last arrived, in microseconds (0: never).
    pub last_us: i64,
    /// `WEBSOCKET_STATUS_*`, 0 for a plain connection.
    pub ws_status: i32,
    /// permessage-deflate is on (WebSocket).
    pub ws_compress: bool,
}

/// A new id for a connection `worker` accepted.
pub fn open(worker: i32, port_index: usize, server_port: u16, peer: SocketAddr) -> i64 {
    let Some(t) = table() else {
        return LOCAL_NEXT.fetch_add(1, Ordering::Relaxed);
    };
    for _ in 0..CAP {
        let fd = t.next.fetch_add(1, Ordering::Relaxed);
        let s = &t.slots[fd as usize % CAP];
        if s.fd
            .compare_exchange(0, -1, Ordering::AcqRel, Ordering::Relaxed)
            .is_err()
        {
            continue;
        }
        s.worker.store(worker, Ordering::Relaxed);
        s.ws_status.store(0, Ordering::Relaxed);
        s.ws_compress.store(0, Ordering::Relaxed);
        s.uid.store(0, Ordering::Relaxed);
        s.port_index.store(port_index as i32, Ordering::Relaxed);
        s.server_port.store(server_port as i32, Ordering::Relaxed);
        s.remote_port.store(peer.port() as i32, Ordering::Relaxed);
        let (family, bits) = match peer.ip() {
            IpAddr::V4(a) => (4, u32::from(a) as u128),
            IpAddr::V6(a) => (6, u128::from(a)),
        };
        s.family.store(family, Ordering::Relaxed);
        s.addr_hi.store((bits >> 64) as u64, Ordering::Relaxed);
        s.addr_lo.store(bits as u64, Ordering::Relaxed);
        let t0 = now();
        s.connect_time.store(t0, Ordering::Relaxed);
        s.last_time.store(t0, Ordering::Relaxed);
        s.last_us.store(0, Ordering::Relaxed);
        s.fd.store(fd, Ordering::Release);
        t.mark(fd as usize % CAP, true);
        return fd;
    }
    // The table is full: an id nobody can look up, still unique.
    t.next.fetch_add(1, Ordering::Relaxed)
}

/// The connection is gone.
/// Frees the slot only: what else a connection holds (the PROCESS-mode
/// duplicate, the client certificate) its owner ends first (`conns`'s
/// guard, `held::answer`).
pub fn close(fd: i64) {
    if let Some(t) = table() {
        let slot = fd as usize % CAP;
        let s = &t.slots[slot];
        if s.fd.load(Ordering::Acquire) != fd {
            return;
        }
        // Unmark before freeing: a process that takes the slot right after
        // marks it again, so no live connection is ever left unlisted.
        t.mark(slot, false);
        if s.fd
            .compare_exchange(fd, 0, Ordering::AcqRel, Ordering::Relaxed)
            .is_err()
            && s.fd.load(Ordering::Acquire) > 0
        {
            t.mark(slot, true);
        }
    }
}

/// Data arrived on `fd` now.
pub fn touch(fd: i64) {
    if let Some(t) = table() {
        let s = &t.slots[fd as usize % CAP];
        if s.fd.load(Ordering::Relaxed) == fd {
            let us = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_micros() as i64)
                .unwrap_or(0);
            s.last_time.store(us / 1_000_000, Ordering::Relaxed);
            s.last_us.store(us, Ordering::Relaxed);
        }
    }
}

/// Binds `fd` to `uid` once (`Server::bind`): false when `fd` is not open
/// or already bound.
pub fn bind_uid(fd: i64, uid: i64) -> bool {
    let Some(t) = table() else {
        return false;
    };
    let s = &t.slots[fd as usize % CAP];
    s.fd.load(Ordering::Acquire) == fd
        && s.uid
            .compare_exchange(0, uid, Ordering::AcqRel, Ordering::Relaxed)
            .is_ok()
}

/// The uid `fd` was bound to (0: none).
pub fn uid(fd: i64) -> i64 {
    table().map_or(0, |t| {
        let s = &t.slots[fd as usize % CAP];
        if s.fd.load(Ordering::Acquire) == fd {
            s.uid.load(Ordering::Relaxed)
        } else {
            0
        }
    })
}

/// Records the WebSocket state of `fd` (`WEBSOCKET_STATUS_*`).
pub fn set_ws_status(fd: i64, status: i32) {
    if let Some(t) = table() {
        let s = &t.slots[fd as usize % CAP];
        if s.fd.load(Ordering::Relaxed) == fd {
            s.ws_status.store(status, Ordering::Relaxed);
        }
    }
}

/// Records whether WebSocket connection `fd` compresses its messages.
pub fn set_ws_compress(fd: i64, on: bool) {
    if let Some(t) = table() {
        let s = &t.slots[fd as usize % CAP];
        if s.fd.load(Ordering::Relaxed) == fd {
            s.ws_compress.store(on as i32, Ordering::Relaxed);
        }
    }
}

pub fn get(fd: i64) -> Option<Session> {
    if fd <= 0 {
        return None;
    }
    let t = table()?;
    let s = &t.slots[fd as usize % CAP];
    if s.fd.load(Ordering::Acquire) != fd {
        return None;
    }
    let bits = ((s.addr_hi.load(Ordering::Relaxed) as u128) << 64)
        | s.addr_lo.load(Ordering::Relaxed) as u128;
    let ip = if s.family.load(Ordering::Relaxed) == 6 {
        IpAddr::V6(Ipv6Addr::from(bits))
    } else {
        IpAddr::V4(Ipv4Addr::from(bits as u32))
    };
    Some(Session {
        fd,
        worker: s.worker.load(Ordering::Relaxed),
        port_index: s.port_index.load(Ordering::Relaxed).max(0) as usize,
        server_port: s.server_port.load(Ordering::Relaxed) as u16,
        peer: SocketAddr::new(ip, s.remote_port.load(Ordering::Relaxed) as u16),
        connect_time: s.connect_time.load(Ordering::Relaxed),
        last_time: s.last_time.load(Ordering::Relaxed),
        last_us: s.last_us.load(Ordering::Relaxed),
        ws_status: s.ws_status.load(Ordering::Relaxed),
        ws_compress: s.ws_compress.load(Ordering::Relaxed) != 0,
    })
}

/// Every open connection id, ascending.
pub fn list() -> Vec<i64> {
    open_fds(|_| true)
}

/// Every open connection id accepted on port `port_index` (the server's
/// ports in `listen()` order, 0 the main one), ascending.
pub fn list_port(port_index: usize) -> Vec<i64> {
    open_fds(|s| s.port_index.load(Ordering::Relaxed) == port_index as i32)
}

/// The ids of the open connections whose slot `keep` accepts, ascending.
fn open_fds(keep: impl Fn(&Slot) -> bool) -> Vec<i64> {
    let Some(t) = table() else {
        return Vec::new();
    };
    let mut v: Vec<i64> = Vec::new();
    t.for_each_used(|s| {
        let fd = s.fd.load(Ordering::Acquire);
        if fd > 0 && keep(s) {
            v.push(fd);
        }
    });
    v.sort_unstable();
    v
}

/// Open connections owned by `worker`.
pub fn count_of(worker: i32) -> usize {
    let Some(t) = table() else {
        return 0;
    };
    let mut n = 0;
    t.for_each_used(|s| {
        if s.fd.load(Ordering::Acquire) > 0 && s.worker.load(Ordering::Relaxed) == worker {
            n += 1;
        }
    });
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_unique_across_processes() {
        init_once();
        let peer: SocketAddr = "127.0.0.1:5555".parse().expect("addr");
        let a = open(0, 0, 80, peer);
        // SAFETY: the child only touches the shared atomics and leaves with _exit.
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            let b = open(1, 0, 80, peer);
            // SAFETY: leaving the forked child.
            unsafe { libc::_exit(if b != a { (b % 200) as i32 + 1 } else { 0 }) }
        }
        let mut st = 0;
        // SAFETY: waits for the child just forked.
        unsafe { libc::waitpid(pid, &mut st, 0) };
        let code = libc::WEXITSTATUS(st) as i64;
        assert_ne!(code, 0, "the child got the same id");
        let b = code - 1;
        let s = get(a).expect("a is open");
        assert_eq!(s.worker, 0);
        assert_eq!(s.peer, peer);
        let sb = list()
            .into_iter()
            .find(|fd| fd % 200 == b)
            .expect("b listed");
        assert_eq!(get(sb).map(|s| s.worker), Some(1));
        close(a);
        assert!(get(a).is_none());
        close(sb);
    }

    #[test]
    fn listing_skips_empty_groups_only() {
        init_once();
        let peer: SocketAddr = "127.0.0.1:5556".parse().expect("addr");
        // Ids in more than one group, one closed twice (its group's count
        // must not drop below its set bits).
        let ids: Vec<i64> = (0..GROUP + 3).map(|_| open(2, 0, 80, peer)).collect();
        let all = list();
        assert!(ids.iter().all(|fd| all.binary_search(fd).is_ok()));
        close(ids[0]);
        close(ids[0]);
        let all = list();
        assert!(all.binary_search(&ids[0]).is_err());
        assert!(ids[1..].iter().all(|fd| all.binary_search(fd).is_ok()));
        for fd in &ids[1..] {
            close(*fd);
        }
        let all = list();
        assert!(ids.iter().all(|fd| all.binary_search(fd).is_err()));
    }
}
