//! Server counters in shared memory: one anonymous `MAP_SHARED` mapping made
//! by the master before it forks, so every worker and the master see the
//! same atomics. Backs `$server->stats()`.
//!
//! Each worker process owns one slot (assigned by the master at fork, freed
//! when it is reaped): a reloaded worker and its replacement have the same
//! worker id but different slots. Outside a server (engine tests) nothing is
//! mapped and every counter call is a no-op.

use std::sync::atomic::{
    AtomicI32, AtomicI64, AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, Ordering,
};

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
    /// [`ProcState`] as a number (written by the worker itself).
    pub state: AtomicU32,
    /// Live coroutines, sampled by the worker's loop ticker every second.
    pub coroutines: AtomicU64,
    /// When the worker's event loop last ran its ticker ([`now_ms`]).
    pub loop_tick_ms: AtomicU64,
    /// The ticker's last measured lateness, in microseconds.
    pub loop_lag_us: AtomicU64,
    /// Times the watchdog saw the loop blocked past `swoole.blocking_threshold`.
    pub blocked_count: AtomicU64,
    /// Requests answered 504 by `request_timeout`.
    pub timeout_count: AtomicU64,
    /// Why this process is leaving ([`ExitReason`]), set before it exits.
    pub exit_reason: AtomicU32,
}

/// What the master remembers per worker id across restarts.
#[repr(C)]
pub struct IdInfo {
    pub restarts: AtomicU64,
    /// [`ExitReason`] of the last process with this id that was replaced.
    pub last_reason: AtomicU32,
    /// Its pid: what `getWorkerPid()` answers until the replacement has
    /// one (Swoole's worker keeps its old pid until it is forked again).
    pub last_pid: AtomicI32,
}

/// Largest number of `metrics_buckets`.
pub const MAX_BUCKETS: usize = 32;

/// The request-duration histogram (`metrics_buckets`), server-wide.
#[repr(C)]
pub struct Histogram {
    /// Number of finite buckets in use (0: histogram off).
    pub len: AtomicU32,
    /// Upper bounds in microseconds, ascending.
    pub bounds_us: [AtomicU64; MAX_BUCKETS],
    /// Per bucket (not cumulative); the last one is `+Inf`.
    pub counts: [AtomicU64; MAX_BUCKETS + 1],
    pub sum_us: AtomicU64,
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
    /// Tasks sent to a task worker, and tasks a task worker took.
    pub task_queued: AtomicU64,
    pub task_taken: AtomicU64,
    pub timeouts_total: AtomicU64,
    pub blocked_total: AtomicU64,
    pub ids: [IdInfo; MAX_SLOTS],
    pub histogram: Histogram,
    /// Requests being handled by every worker (queued ones included): the
    /// sum of the slots' `concurrency`, kept apart so `max_concurrency`
    /// checks one atomic per request. A reaped worker's share is taken off
    /// in [`free_slot`], as Swoole's master does for a worker that exited.
    pub concurrency: AtomicI64,
    /// SWOOLE_PROCESS, per-message dispatch (`engine::worker::dispatch`):
    /// the round-robin counter of `dispatch_mode` 1, and per worker id the
    /// messages sent to it and not yet handled (mode 3's idle test).
    pub dispatch_rr: AtomicU64,
    pub dispatch_pending: [AtomicI64; MAX_SLOTS],
    /// Per worker id, its coroutines as it last published them (mode 9;
    /// `engine::worker::dispatch::publish_coroutines`).
    pub dispatch_coroutines: [AtomicU64; MAX_SLOTS],
    /// 1 once the master began stopping the whole server (not a reload).
    pub server_stopping: AtomicU32,
    /// One past the highest slot [`alloc_slot`] ever handed out: the slots
    /// after it were never used, so scans stop there.
    pub slots_used: AtomicUsize,
}

/// A worker's state as the metrics show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProcState {
    Starting = 0,
    Ready = 1,
    Draining = 2,
}

/// Why a worker process was replaced (the `reason` label of
/// `rswoole_worker_last_restart`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitReason {
    None = 0,
    MaxRequest = 1,
    MaxMemory = 2,
    Reload = 3,
    RequestTimeout = 4,
    Fatal = 5,
    Crash = 6,
    Stopped = 7,
}

impl ExitReason {
    pub fn from_u32(n: u32) -> ExitReason {
        match n {
            1 => ExitReason::MaxRequest,
            2 => ExitReason::MaxMemory,
            3 => ExitReason::Reload,
            4 => ExitReason::RequestTimeout,
            5 => ExitReason::Fatal,
            6 => ExitReason::Crash,
            7 => ExitReason::Stopped,
            _ => ExitReason::None,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            ExitReason::None => "none",
            ExitReason::MaxRequest => "max_request",
            ExitReason::MaxMemory => "max_worker_memory",
            ExitReason::Reload => "reload",
            ExitReason::RequestTimeout => "request_timeout",
            ExitReason::Fatal => "fatal_error",
            ExitReason::Crash => "crash",
            ExitReason::Stopped => "stopped",
        }
    }
}

/// Milliseconds of `CLOCK_MONOTONIC`: one clock for every process of the
/// server (the metrics process compares a worker's loop tick with it).
pub fn now_ms() -> u64 {
    now_us() / 1000
}

/// Microseconds of `CLOCK_MONOTONIC`.
pub fn now_us() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes into the live local timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000 + ts.tv_nsec as u64 / 1000
}

static SHARED: AtomicPtr<Shared> = AtomicPtr::new(std::ptr::null_mut());
/// This worker's (draining, requests or callbacks in flight), for
/// `getWorkerStatus()`.
pub fn my_load() -> Option<(bool, i64)> {
    let slot = my_slot()?;
    let draining = slot.state.load(Ordering::Relaxed) == ProcState::Draining as u32;
    Some((draining, slot.concurrency.load(Ordering::Relaxed).max(0)))
}

/// This process's slot index, or -1.
static MY_SLOT: AtomicI32 = AtomicI32::new(-1);

/// Maps the shared counters (once per server start, in the master).
pub fn init() -> std::io::Result<()> {
    if !SHARED.load(Ordering::Acquire).is_null() {
        reset();
        return Ok(());
    }
    let size = std::mem::size_of::<Shared>();
    let p = crate::engine::shared::shm_lock::map_shared(size)?;
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
    for c in [
        &s.task_queued,
        &s.task_taken,
        &s.timeouts_total,
        &s.blocked_total,
        &s.histogram.sum_us,
    ] {
        c.store(0, Ordering::Relaxed);
    }
    for c in &s.histogram.counts {
        c.store(0, Ordering::Relaxed);
    }
    for slot in &s.slots {
        slot.pid.store(0, Ordering::Relaxed);
    }
    s.slots_used.store(0, Ordering::Relaxed);
    s.dispatch_rr.store(0, Ordering::Relaxed);
    for p in &s.dispatch_pending {
        p.store(0, Ordering::Relaxed);
    }
    for c in &s.dispatch_coroutines {
        c.store(0, Ordering::Relaxed);
    }
    s.server_stopping.store(0, Ordering::Relaxed);
    for id in &s.ids {
        id.restarts.store(0, Ordering::Relaxed);
        id.last_reason.store(0, Ordering::Relaxed);
    }
}

/// In the master, before the first fork: the histogram's bucket bounds
/// (seconds, ascending; at most [`MAX_BUCKETS`]); empty turns it off.
pub fn set_buckets(bounds: &[f64]) {
    let Some(s) = shared() else { return };
    let h = &s.histogram;
    let n = bounds.len().min(MAX_BUCKETS);
    for (i, b) in bounds.iter().take(n).enumerate() {
        h.bounds_us[i].store((b * 1e6) as u64, Ordering::Relaxed);
    }
    h.len.store(n as u32, Ordering::Release);
}

/// One request took `us` microseconds (from its head to its response head).
pub fn observe_duration(us: u64) {
    let Some(s) = shared() else { return };
    let h = &s.histogram;
    let n = h.len.load(Ordering::Relaxed) as usize;
    if n == 0 {
        return;
    }
    let i = h.bounds_us[..n]
        .iter()
        .position(|b| us <= b.load(Ordering::Relaxed))
        .unwrap_or(n);
    h.counts[i].fetch_add(1, Ordering::Relaxed);
    h.sum_us.fetch_add(us, Ordering::Relaxed);
}

/// True when the histogram is on (a `metrics` listener was set).
pub fn histogram_on() -> bool {
    shared().is_some_and(|s| s.histogram.len.load(Ordering::Relaxed) > 0)
}

/// In the worker: its state for the metrics.
pub fn set_state(st: ProcState) {
    if let Some(slot) = my_slot() {
        slot.state.store(st as u32, Ordering::Relaxed);
    }
}

/// In the worker: why it is about to leave (the first reason sticks).
pub fn set_exit_reason(r: ExitReason) {
    if let Some(slot) = my_slot() {
        let _ =
            slot.exit_reason
                .compare_exchange(0, r as u32, Ordering::Relaxed, Ordering::Relaxed);
    }
}

/// In the master, when it reaps slot `i`'s process (worker `id`): records
/// why it was replaced: what the worker said, else `fallback` (what the
/// master saw: a reload, a crash).
pub fn note_exit(i: usize, id: usize, fallback: ExitReason) {
    let Some(s) = shared() else { return };
    let (Some(slot), Some(info)) = (s.slots.get(i), s.ids.get(id)) else {
        return;
    };
    let mut r = ExitReason::from_u32(slot.exit_reason.load(Ordering::Relaxed));
    if r == ExitReason::None {
        r = fallback;
    }
    info.restarts.fetch_add(1, Ordering::Relaxed);
    info.last_reason.store(r as u32, Ordering::Relaxed);
    info.last_pid
        .store(slot.pid.load(Ordering::Acquire), Ordering::Relaxed);
}

/// The pid of the last process with worker id `id` that exited (0: none).
pub fn last_pid(id: usize) -> i32 {
    shared()
        .and_then(|s| s.ids.get(id))
        .map_or(0, |i| i.last_pid.load(Ordering::Relaxed))
}

/// A request was answered 504 by `request_timeout`.
pub fn on_request_timeout() {
    add(|s| &s.timeouts_total, 1);
    if let Some(slot) = my_slot() {
        slot.timeout_count.fetch_add(1, Ordering::Relaxed);
    }
}

/// The watchdog saw the event loop blocked past the threshold.
pub fn on_blocked() {
    add(|s| &s.blocked_total, 1);
    if let Some(slot) = my_slot() {
        slot.blocked_count.fetch_add(1, Ordering::Relaxed);
    }
}

/// In the master: the whole server is stopping (SIGTERM, `shutdown()`),
/// before the workers are told to drain.
pub fn set_server_stopping() {
    if let Some(s) = shared() {
        s.server_stopping.store(1, Ordering::Release);
    }
}

/// Whether the whole server is stopping (rather than a worker being
/// replaced).
pub fn server_stopping() -> bool {
    shared().is_some_and(|s| s.server_stopping.load(Ordering::Acquire) != 0)
}

/// The loop ticker ran: its lateness and the coroutine count.
pub fn on_tick(lag_us: Option<u64>, coroutines: u64) {
    if let Some(slot) = my_slot() {
        slot.loop_tick_ms.store(now_ms(), Ordering::Relaxed);
        if let Some(l) = lag_us {
            slot.loop_lag_us.store(l, Ordering::Relaxed);
        }
        slot.coroutines.store(coroutines, Ordering::Relaxed);
    }
}

/// A task was sent to a task worker's inbox.
pub fn on_task_queued() {
    add(|s| &s.task_queued, 1);
}

/// A task worker took a task from its inbox.
pub fn on_task_taken() {
    add(|s| &s.task_taken, 1);
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
            for c in [
                &slot.coroutines,
                &slot.loop_lag_us,
                &slot.blocked_count,
                &slot.timeout_count,
            ] {
                c.store(0, Ordering::Relaxed);
            }
            slot.state
                .store(ProcState::Starting as u32, Ordering::Relaxed);
            slot.exit_reason.store(0, Ordering::Relaxed);
            slot.loop_tick_ms.store(now_ms(), Ordering::Relaxed);
            slot.concurrency.store(0, Ordering::Relaxed);
            s.slots_used.fetch_max(i + 1, Ordering::AcqRel);
            return Some(i);
        }
    }
    None
}

/// The slots ever handed out (a slot reserved after the load is still
/// starting, pid -1, which every scan skips anyway).
fn used_slots(s: &Shared) -> &[Slot] {
    let n = s.slots_used.load(Ordering::Acquire).min(MAX_SLOTS);
    &s.slots[..n]
}

/// In the master: the slot's process is gone.
pub fn free_slot(i: usize) {
    if let Some(s) = shared() {
        if let Some(slot) = s.slots.get(i) {
            let left = slot.concurrency.swap(0, Ordering::Relaxed);
            if left > 0 {
                s.concurrency.fetch_sub(left, Ordering::Relaxed);
            }
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

/// The live processes among the `n` worker ids from `first` on: (the id's
/// index from `first`, whether it runs no task now).
fn live_ids(s: &Shared, first: i32, n: usize) -> impl Iterator<Item = (usize, bool)> + '_ {
    used_slots(s).iter().filter_map(move |slot| {
        if slot.pid.load(Ordering::Acquire) <= 0 {
            return None;
        }
        let id = slot.worker_id.load(Ordering::Relaxed) - first;
        let i = usize::try_from(id).ok().filter(|i| *i < n)?;
        Some((i, slot.concurrency.load(Ordering::Relaxed) <= 0))
    })
}

/// Which task workers run no task now ([`idle`]).
pub enum Idle {
    /// Bit `i`: id `first + i` (up to 64 ids: no allocation, and `task()`
    /// asks on every call).
    Mask(u64),
    /// Entry `i`: id `first + i` (more than 64 ids).
    List(Vec<bool>),
}

impl Idle {
    /// Whether the id `i` places after `first` is idle.
    pub fn has(&self, i: usize) -> bool {
        match self {
            Idle::Mask(m) => i < 64 && m & (1 << i) != 0,
            Idle::List(v) => v.get(i).copied().unwrap_or(false),
        }
    }
}

/// Which of the `n` worker ids from `first` on run no task now (task
/// workers: `TaskBusy`); an id with no live process yet counts as idle (it
/// takes its inbox's tasks later). None without the shared statistics.
pub fn idle(first: i32, n: usize) -> Option<Idle> {
    if n <= 64 {
        idle_mask(first, n).map(Idle::Mask)
    } else {
        idle_ids(first, n).map(Idle::List)
    }
}

/// [`idle`] as a list, for any `n`.
fn idle_ids(first: i32, n: usize) -> Option<Vec<bool>> {
    let s = shared()?;
    let mut seen = vec![false; n];
    let mut idle = vec![false; n];
    for (i, free) in live_ids(s, first, n) {
        seen[i] = true;
        idle[i] |= free;
    }
    // An id with no live process yet (starting) takes its inbox's tasks later.
    Some(idle.iter().zip(seen).map(|(i, s)| *i || !s).collect())
}

/// [`idle`] as a bit mask (bit `i`: id `first + i`), for `n` <= 64.
fn idle_mask(first: i32, n: usize) -> Option<u64> {
    let s = shared()?;
    let n = n.min(64);
    let (mut seen, mut idle) = (0u64, 0u64);
    for (i, free) in live_ids(s, first, n) {
        seen |= 1 << i;
        if free {
            idle |= 1 << i;
        }
    }
    let all = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
    // An id with no live process yet (starting) takes its inbox's tasks later.
    Some((idle | !seen) & all)
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
    }
}

pub fn on_request_end() {
    add(|s| &s.response_count, 1);
    if let Some(slot) = my_slot() {
        slot.response_count.fetch_add(1, Ordering::Relaxed);
    }
}

/// One request in flight, in this worker's slot and server-wide, until it
/// is dropped: also when hyper drops the request's future because the
/// client left, so the count (which `max_concurrency` and dispatch mode 3
/// read) cannot leak.
pub struct InFlight(());

impl InFlight {
    pub fn enter() -> Self {
        if let Some(s) = shared() {
            s.concurrency.fetch_add(1, Ordering::Relaxed);
        }
        if let Some(slot) = my_slot() {
            slot.concurrency.fetch_add(1, Ordering::Relaxed);
        }
        InFlight(())
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        if let Some(s) = shared() {
            s.concurrency.fetch_sub(1, Ordering::Relaxed);
        }
        if let Some(slot) = my_slot() {
            slot.concurrency.fetch_sub(1, Ordering::Relaxed);
        }
    }
}

/// A task worker running a task (Swoole's busy task worker, counted by
/// `task_idle_worker_num`): this process's slot only, until dropped.
pub struct TaskBusy(());

impl TaskBusy {
    pub fn enter() -> Self {
        if let Some(slot) = my_slot() {
            slot.concurrency.fetch_add(1, Ordering::Relaxed);
        }
        TaskBusy(())
    }
}

impl Drop for TaskBusy {
    fn drop(&mut self) {
        if let Some(slot) = my_slot() {
            slot.concurrency.fetch_sub(1, Ordering::Relaxed);
        }
    }
}

/// Requests in flight in the whole server (`max_concurrency`); 0 outside one.
pub fn concurrency() -> i64 {
    shared().map_or(0, |s| s.concurrency.load(Ordering::Relaxed).max(0))
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
    for slot in used_slots(s) {
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
                // Idle task workers: 200 idle, 201 busy, 202 not started
                // (taken as idle), as a mask and as a list.
                let a = alloc_slot(200).expect("slot");
                let b = alloc_slot(201).expect("slot");
                set_slot_pid(a, 1);
                set_slot_pid(b, 1);
                s.slots[b].concurrency.store(1, Ordering::Relaxed);
                assert_eq!(idle_mask(200, 3), Some(0b101));
                assert_eq!(idle_ids(200, 3), Some(vec![true, false, true]));
                let i = idle(200, 3).expect("mapped");
                assert!(i.has(0) && !i.has(1) && i.has(2) && !i.has(64));
                s.slots[b].concurrency.store(0, Ordering::Relaxed);
                free_slot(a);
                free_slot(b);
            }
            _ => panic!("fork failed"),
        }
    }
}
