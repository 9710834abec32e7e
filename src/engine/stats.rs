//! Server counters in shared memory: one anonymous `MAP_SHARED` mapping made
//! by the master before it forks, so every worker and the master see the
//! same atomics. Backs `$server->stats()`.
//!
//! Each worker process owns one slot (assigned by the master at fork, freed
//! when it is reaped): a reloaded worker and its replacement have the same
//! worker id but different slots. Outside a server (engine tests) nothing is
//! mapped and every counter call is a no-op.

use std::sync::atomic::{AtomicI32, AtomicI64, AtomicPtr, AtomicU64, Ordering};

/// Worker processes that can exist at once (old ones draining included).
pub const MAX_SLOTS: usize = 1024;

#[repr(C)]
pub struct Slot {
    /// 0 when free.
    pub pid: AtomicI32,
    pub worker_id: AtomicI32,
    /// Requests being handled right now.
    pub concurrency: AtomicI64,
    pub request_count: AtomicU64,
    pub response_count: AtomicU64,
    pub accept_count: AtomicU64,
    pub close_count: AtomicU64,
}

#[repr(C)]
pub struct Shared {
    pub start_time: AtomicI64,
    pub accept_count: AtomicU64,
    pub close_count: AtomicU64,
    pub abort_count: AtomicU64,
    pub request_count: AtomicU64,
    pub response_count: AtomicU64,
    pub total_recv_bytes: AtomicU64,
    pub total_send_bytes: AtomicU64,
    pub slots: [Slot; MAX_SLOTS],
}

static SHARED: AtomicPtr<Shared> = AtomicPtr::new(std::ptr::null_mut());
/// This process's slot index, or -1.
static MY_SLOT: AtomicI32 = AtomicI32::new(-1);

/// Maps the shared counters (once per server start, in the master).
pub fn init() -> std::io::Result<()> {
    if !SHARED.load(Ordering::Acquire).is_null() {
        reset();
        return Ok(());
    }
    let size = std::mem::size_of::<Shared>();
    let p = super::shm_lock::map_shared(size)?;
    // Anonymous mappings are zero-filled, and all-zero is a valid `Shared`
    // (every field is an atomic integer).
    SHARED.store(p.cast(), Ordering::Release);
    reset();
    Ok(())
}

/// The mapping, if a server created one in this process or an ancestor.
pub fn shared() -> Option<&'static Shared> {
    let p = SHARED.load(Ordering::Acquire);
    // SAFETY: once set, the mapping is never unmapped, is sized and aligned
    // for `Shared` (mmap returns page-aligned memory) and only holds atomics,
    // so shared references across processes are sound.
    unsafe { p.as_ref() }
}

fn reset() {
    let Some(s) = shared() else { return };
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    s.start_time.store(now, Ordering::Relaxed);
    for c in [
        &s.accept_count,
        &s.close_count,
        &s.abort_count,
        &s.request_count,
        &s.response_count,
        &s.total_recv_bytes,
        &s.total_send_bytes,
    ] {
        c.store(0, Ordering::Relaxed);
    }
    for slot in &s.slots {
        slot.pid.store(0, Ordering::Relaxed);
    }
}

/// In the master: a free slot for a worker about to be forked.
pub fn alloc_slot(worker_id: usize) -> Option<usize> {
    let s = shared()?;
    for (i, slot) in s.slots.iter().enumerate() {
        if slot.pid.load(Ordering::Acquire) == 0 {
            // Reserved with -1 until the child writes its pid.
            slot.pid.store(-1, Ordering::Release);
            slot.worker_id.store(worker_id as i32, Ordering::Relaxed);
            for c in [
                &slot.request_count,
                &slot.response_count,
                &slot.accept_count,
                &slot.close_count,
            ] {
                c.store(0, Ordering::Relaxed);
            }
            slot.concurrency.store(0, Ordering::Relaxed);
            return Some(i);
        }
    }
    None
}

/// In the master: the slot's process is gone.
pub fn free_slot(i: usize) {
    if let Some(s) = shared() {
        if let Some(slot) = s.slots.get(i) {
            slot.pid.store(0, Ordering::Release);
        }
    }
}

/// In the master, right after fork: records the child's pid in its slot
/// (the child does the same; whichever runs first wins, same value).
pub fn set_slot_pid(i: usize, pid: i32) {
    if let Some(slot) = shared().and_then(|s| s.slots.get(i)) {
        slot.pid.store(pid, Ordering::Release);
    }
}

/// In a new worker: this process uses slot `i`.
pub fn enter_slot(i: Option<usize>) {
    MY_SLOT.store(i.map_or(-1, |i| i as i32), Ordering::Relaxed);
    if let Some(i) = i {
        set_slot_pid(i, std::process::id() as i32);
    }
}

/// This process's slot.
pub fn my_slot() -> Option<&'static Slot> {
    let i = MY_SLOT.load(Ordering::Relaxed);
    if i < 0 {
        return None;
    }
    shared()?.slots.get(i as usize)
}

/// This process's slot index (what a worker tells the PROCESS-mode master).
pub fn my_slot_index() -> Option<usize> {
    usize::try_from(MY_SLOT.load(Ordering::Relaxed)).ok()
}

/// Load of slot `i`: (requests in flight, open connections), for
/// `dispatch_mode` 3.
pub fn slot_load(i: usize) -> Option<(i64, u64)> {
    let slot = shared()?.slots.get(i)?;
    let open = slot
        .accept_count
        .load(Ordering::Relaxed)
        .saturating_sub(slot.close_count.load(Ordering::Relaxed));
    Some((slot.concurrency.load(Ordering::Relaxed).max(0), open))
}

fn add(f: impl Fn(&Shared) -> &AtomicU64, n: u64) {
    if let Some(s) = shared() {
        f(s).fetch_add(n, Ordering::Relaxed);
    }
}

pub fn on_accept() {
    add(|s| &s.accept_count, 1);
    if let Some(slot) = my_slot() {
        slot.accept_count.fetch_add(1, Ordering::Relaxed);
    }
}

/// A connection ended; `aborted` when it ended with an error (reset, bad
/// input, timeout) rather than a clean close.
pub fn on_close(aborted: bool) {
    add(|s| &s.close_count, 1);
    if aborted {
        add(|s| &s.abort_count, 1);
    }
    if let Some(slot) = my_slot() {
        slot.close_count.fetch_add(1, Ordering::Relaxed);
    }
}

pub fn on_request_start() {
    add(|s| &s.request_count, 1);
    if let Some(slot) = my_slot() {
        slot.request_count.fetch_add(1, Ordering::Relaxed);
        slot.concurrency.fetch_add(1, Ordering::Relaxed);
    }
}

pub fn on_request_end() {
    add(|s| &s.response_count, 1);
    if let Some(slot) = my_slot() {
        slot.response_count.fetch_add(1, Ordering::Relaxed);
        slot.concurrency.fetch_sub(1, Ordering::Relaxed);
    }
}

pub fn on_recv(n: usize) {
    add(|s| &s.total_recv_bytes, n as u64);
}

pub fn on_send(n: usize) {
    add(|s| &s.total_send_bytes, n as u64);
}

/// Resident set size of `pid` in bytes, from `/proc/<pid>/statm`.
pub fn rss_of(pid: i32) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/statm")).ok()?;
    let pages: u64 = text.split_whitespace().nth(1)?.parse().ok()?;
    // SAFETY: sysconf only reads a system constant.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    Some(pages * if page > 0 { page as u64 } else { 4096 })
}

/// Resident set size of this process in bytes.
pub fn my_rss() -> Option<u64> {
    rss_of(std::process::id() as i32)
}

/// One live worker process, for `stats()`.
#[derive(Debug, Clone)]
pub struct WorkerStat {
    pub worker_id: i32,
    pub pid: i32,
    pub concurrency: i64,
    pub request_count: u64,
    pub response_count: u64,
    pub connection_num: u64,
    pub rss: u64,
}

/// Every slot in use.
pub fn workers() -> Vec<WorkerStat> {
    let Some(s) = shared() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for slot in &s.slots {
        let pid = slot.pid.load(Ordering::Acquire);
        if pid <= 0 {
            continue;
        }
        let accepted = slot.accept_count.load(Ordering::Relaxed);
        let closed = slot.close_count.load(Ordering::Relaxed);
        out.push(WorkerStat {
            worker_id: slot.worker_id.load(Ordering::Relaxed),
            pid,
            concurrency: slot.concurrency.load(Ordering::Relaxed).max(0),
            request_count: slot.request_count.load(Ordering::Relaxed),
            response_count: slot.response_count.load(Ordering::Relaxed),
            connection_num: accepted.saturating_sub(closed),
            rss: rss_of(pid).unwrap_or(0),
        });
    }
    out.sort_by_key(|w| (w.worker_id, w.pid));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_shared_with_a_child() {
        init().expect("mmap");
        let slot = alloc_slot(3).expect("slot");
        // SAFETY: the test process is single-threaded at this point of the
        // child; the child only touches atomics and leaves with _exit.
        match unsafe { libc::fork() } {
            0 => {
                enter_slot(Some(slot));
                on_accept();
                on_request_start();
                on_recv(10);
                on_send(20);
                on_request_end();
                // SAFETY: leaving the forked child without running Rust's test harness teardown.
                unsafe { libc::_exit(0) }
            }
            pid if pid > 0 => {
                let mut st = 0;
                // SAFETY: waits for the child just forked.
                unsafe { libc::waitpid(pid, &mut st, 0) };
                let s = shared().expect("mapped");
                assert!(s.request_count.load(Ordering::Relaxed) >= 1);
                assert!(s.total_recv_bytes.load(Ordering::Relaxed) >= 10);
                assert!(s.total_send_bytes.load(Ordering::Relaxed) >= 20);
                let sl = &s.slots[slot];
                assert_eq!(sl.pid.load(Ordering::Relaxed), pid);
                assert_eq!(sl.request_count.load(Ordering::Relaxed), 1);
                assert_eq!(sl.worker_id.load(Ordering::Relaxed), 3);
                free_slot(slot);
            }
            _ => panic!("fork failed"),
        }
    }
}
