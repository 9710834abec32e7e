//! Process-shared memory and locks: anonymous `MAP_SHARED` mappings made
//! before fork, a futex mutex that records its owner's pid (so a process that
//! dies holding it is detected and the lock recovered), the futex wait/wake
//! behind `Swoole\Atomic`, and pthread read-write and spin locks for
//! `Swoole\Lock`.
//!
//! The futexes are *shared* futexes (no `FUTEX_PRIVATE_FLAG`): the kernel keys
//! them by the shared page, so a wake in one process reaches a waiter in
//! another.

use std::io;
use std::sync::atomic::{AtomicI32, AtomicU32, Ordering};
use std::sync::Once;
use std::time::{Duration, Instant};

/// Maps `len` bytes of anonymous `MAP_SHARED` memory, zero-filled and
/// page-aligned: the one place the engine makes memory that every process
/// forked afterwards shares (stats, sessions, pools, tables, locks). The
/// caller owns it; nothing unmaps it unless the caller does (`ShmMap`).
pub fn map_shared(len: usize) -> io::Result<*mut u8> {
    // SAFETY: an anonymous shared mapping; no file and no existing memory
    // is touched.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len.max(1),
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        return Err(io::Error::last_os_error());
    }
    Ok(p.cast())
}

/// An anonymous shared mapping, zero-filled. Every process that forks after
/// it is made sees the same bytes; dropping it unmaps only this process's view.
pub struct ShmMap {
    ptr: *mut u8,
    len: usize,
}

impl ShmMap {
    pub fn new(len: usize) -> io::Result<ShmMap> {
        let len = len.max(1);
        Ok(ShmMap {
            ptr: map_shared(len)?,
            len,
        })
    }

    /// Page-aligned start of the mapping.
    pub fn as_ptr(&self) -> *mut u8 {
        self.ptr
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl Drop for ShmMap {
    fn drop(&mut self) {
        // SAFETY: `ptr`/`len` are exactly what mmap returned; nothing borrows
        // the mapping past its owner.
        unsafe {
            libc::munmap(self.ptr.cast(), self.len);
        }
    }
}

// ---- this process's pid, cached (getpid is a syscall) and reset at fork ----

static PID: AtomicI32 = AtomicI32::new(0);
static ATFORK: Once = Once::new();
/// Test hook state (see `test_hold`): 0 = not read yet in this process.
static HOLD_STATE: AtomicI32 = AtomicI32::new(0);
static HOLD_COUNT: AtomicU32 = AtomicU32::new(0);

extern "C" fn after_fork_child() {
    // SAFETY: getpid is async-signal-safe and has no preconditions.
    PID.store(unsafe { libc::getpid() }, Ordering::Relaxed);
    HOLD_STATE.store(0, Ordering::Relaxed);
    HOLD_COUNT.store(0, Ordering::Relaxed);
}

/// The calling process's pid. Correct in a forked child: a `pthread_atfork`
/// child handler refreshes the cache (PHP's `pcntl_fork` and the engine's
/// fork both go through libc `fork`).
pub fn my_pid() -> i32 {
    let p = PID.load(Ordering::Relaxed);
    if p != 0 {
        return p;
    }
    ATFORK.call_once(|| {
        // SAFETY: registers a plain function with no captured state.
        unsafe {
            libc::pthread_atfork(None, None, Some(after_fork_child));
        }
    });
    // SAFETY: no preconditions.
    let p = unsafe { libc::getpid() };
    PID.store(p, Ordering::Relaxed);
    p
}

/// Whether `pid` is a live process. A zombie (killed, not reaped yet) is dead
/// for us: it will never release a lock.
pub fn process_alive(pid: i32) -> bool {
    if pid <= 0 {
        return false;
    }
    // SAFETY: signal 0 only checks existence and permission.
    let r = unsafe { libc::kill(pid, 0) };
    if r != 0 && io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH) {
        return false;
    }
    match std::fs::read(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            // "pid (comm) S ...": the state follows the last ')'.
            let state = stat
                .iter()
                .rposition(|b| *b == b')')
                .and_then(|i| stat.get(i + 2).copied());
            !matches!(state, Some(b'Z') | Some(b'X'))
        }
        Err(_) => r == 0,
    }
}

// ---- futex ----

fn timespec_of(d: Duration) -> libc::timespec {
    libc::timespec {
        tv_sec: d.as_secs().min(i64::MAX as u64) as libc::time_t,
        tv_nsec: d.subsec_nanos() as libc::c_long,
    }
}

/// Sleeps while `*word == expected`, at most `timeout`. Returns 0 when woken,
/// else the errno (EAGAIN: the value differed, ETIMEDOUT, EINTR).
pub fn futex_wait(word: &AtomicU32, expected: u32, timeout: Option<Duration>) -> i32 {
    let ts = timeout.map(timespec_of);
    let tsp = ts
        .as_ref()
        .map_or(std::ptr::null(), |t| t as *const libc::timespec);
    // SAFETY: `word` is a valid, aligned u32 for the call; `tsp` is null or
    // points to a timespec that outlives the call.
    let r = unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_WAIT,
            expected,
            tsp,
            std::ptr::null::<u32>(),
            0,
        )
    };
    if r == 0 {
        0
    } else {
        io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EINVAL)
    }
}

/// Wakes up to `n` waiters on `word`; returns how many woke, or -1.
pub fn futex_wake(word: &AtomicU32, n: i32) -> i64 {
    // SAFETY: `word` is a valid, aligned u32; FUTEX_WAKE reads nothing else.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_WAKE,
            n,
            std::ptr::null::<libc::timespec>(),
            std::ptr::null::<u32>(),
            0,
        )
    }
}

// ---- the owner-pid mutex ----

const WAITERS: u32 = 1 << 31;
const PID_MASK: u32 = !WAITERS;

/// How a contended `lock` ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Acquired {
    /// Taken normally.
    Yes,
    /// Taken over from a holder that died (its pid).
    FromDead(i32),
    /// Taken over from a holder that kept it past `force_after` (its pid).
    Forced(i32),
    /// `deadline` passed first.
    TimedOut,
}

/// A mutex in shared memory: 0 when free, else the holder's pid, with the top
/// bit set once someone may be sleeping on it. All-zero memory is an unlocked
/// lock. Waiters sleep on the futex in short, growing slices and, between
/// slices, check whether the holder still exists: a holder killed with the
/// lock held is found dead and the lock taken over.
#[repr(transparent)]
pub struct PidLock(AtomicU32);

impl PidLock {
    pub fn try_lock(&self) -> bool {
        self.0
            .compare_exchange(0, my_pid() as u32, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
    }

    /// Takes the lock. `seq`, when given, is a counter every holder bumps:
    /// with `force_after`, a lock whose word and `seq` did not change for that
    /// long is taken over even though its holder lives (for locks that are
    /// only ever held for microseconds, a stopped or pid-reused holder).
    pub fn lock(
        &self,
        seq: Option<&AtomicU32>,
        force_after: Option<Duration>,
        deadline: Option<Instant>,
    ) -> Acquired {
        let me = my_pid() as u32;
        if self
            .0
            .compare_exchange(0, me, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
        {
            return Acquired::Yes;
        }
        for _ in 0..64 {
            std::hint::spin_loop();
            if self.0.load(Ordering::Relaxed) == 0
                && self
                    .0
                    .compare_exchange(0, me, Ordering::Acquire, Ordering::Relaxed)
                    .is_ok()
            {
                return Acquired::Yes;
            }
        }
        self.lock_slow(me, seq, force_after, deadline)
    }

    fn lock_slow(
        &self,
        me: u32,
        seq: Option<&AtomicU32>,
        force_after: Option<Duration>,
        deadline: Option<Instant>,
    ) -> Acquired {
        let mut slice = Duration::from_micros(500);
        let seq_now = || seq.map_or(0, |s| s.load(Ordering::Relaxed));
        let mut watched = (u32::MAX, seq_now());
        let mut since = Instant::now();
        loop {
            let mut v = self.0.load(Ordering::Relaxed);
            if v == 0 {
                if self
                    .0
                    .compare_exchange(0, me | WAITERS, Ordering::Acquire, Ordering::Relaxed)
                    .is_ok()
                {
                    return Acquired::Yes;
                }
                continue;
            }
            if v & WAITERS == 0 {
                if self
                    .0
                    .compare_exchange(v, v | WAITERS, Ordering::Relaxed, Ordering::Relaxed)
                    .is_err()
                {
                    continue;
                }
                v |= WAITERS;
            }
            let mut wait = slice;
            if let Some(d) = deadline {
                let now = Instant::now();
                if now >= d {
                    return Acquired::TimedOut;
                }
                wait = wait.min(d - now);
            }
            futex_wait(&self.0, v, Some(wait));
            slice = (slice * 2).min(Duration::from_millis(50));
            if self.0.load(Ordering::Relaxed) != v {
                continue;
            }
            let owner = (v & PID_MASK) as i32;
            if owner as u32 != me && !process_alive(owner) {
                if self
                    .0
                    .compare_exchange(v, me | WAITERS, Ordering::Acquire, Ordering::Relaxed)
                    .is_ok()
                {
                    return Acquired::FromDead(owner);
                }
                continue;
            }
            if let Some(limit) = force_after {
                let now_seen = (v, seq_now());
                if now_seen != watched {
                    watched = now_seen;
                    since = Instant::now();
                } else if since.elapsed() >= limit
                    && self
                        .0
                        .compare_exchange(v, me | WAITERS, Ordering::Acquire, Ordering::Relaxed)
                        .is_ok()
                {
                    return Acquired::Forced(owner);
                }
            }
        }
    }

    pub fn unlock(&self) {
        if self.0.swap(0, Ordering::Release) & WAITERS != 0 {
            futex_wake(&self.0, 1);
        }
    }

    /// The holder's pid, 0 when free.
    pub fn owner(&self) -> i32 {
        (self.0.load(Ordering::Relaxed) & PID_MASK) as i32
    }
}

/// Test-only hook: with `RSWOOLE_TEST_LOCK_HOLD=N:MS` in a process's
/// environment, that process, on its (N+1)-th row-lock acquisition, sleeps MS
/// milliseconds while holding the lock. It lets a test kill a process that
/// certainly holds a row lock. Read once per process (re-read after fork).
pub fn test_hold() {
    let state = HOLD_STATE.load(Ordering::Relaxed);
    if state == -1 {
        return;
    }
    if state == 0 {
        let parsed = std::env::var("RSWOOLE_TEST_LOCK_HOLD").ok().and_then(|v| {
            let (n, ms) = v.split_once(':')?;
            Some((n.parse::<u32>().ok()?, ms.parse::<u32>().ok()?))
        });
        match parsed {
            Some((n, ms)) => {
                HOLD_COUNT.store(n, Ordering::Relaxed);
                HOLD_STATE.store(ms.max(1) as i32, Ordering::Relaxed);
            }
            None => {
                HOLD_STATE.store(-1, Ordering::Relaxed);
                return;
            }
        }
    }
    let left = HOLD_COUNT.load(Ordering::Relaxed);
    if left > 0 {
        HOLD_COUNT.store(left - 1, Ordering::Relaxed);
        return;
    }
    let ms = HOLD_STATE.swap(-1, Ordering::Relaxed);
    if ms > 0 {
        std::thread::sleep(Duration::from_millis(ms as u64));
    }
}

// ---- Swoole\Atomic's wait/wakeup ----

/// `Atomic::wait()`: consumes a pending wake-up (value 1 -> 0) or sleeps while
/// the value is 0, at most `timeout` (None: forever). True when a wake-up was
/// consumed.
pub fn atomic_wait(word: &AtomicU32, timeout: Option<Duration>) -> bool {
    if word
        .compare_exchange(1, 0, Ordering::AcqRel, Ordering::Relaxed)
        .is_ok()
    {
        return true;
    }
    // One sleep, as Swoole: woken by a wakeup() another waiter consumed, a
    // timeout, a signal (EINTR: a worker being stopped returns), or a value
    // other than 0: false.
    futex_wait(word, 0, timeout);
    word.compare_exchange(1, 0, Ordering::AcqRel, Ordering::Relaxed)
        .is_ok()
}

/// `Atomic::wakeup($n)`: when the value is 0, sets it to 1 and wakes up to
/// `n` waiters. False only when the futex call itself fails.
pub fn atomic_wakeup(word: &AtomicU32, n: i32) -> bool {
    if word
        .compare_exchange(0, 1, Ordering::AcqRel, Ordering::Relaxed)
        .is_ok()
    {
        return futex_wake(word, n.max(1)) >= 0;
    }
    true
}

// ---- Swoole\Lock ----

/// `Swoole\Lock` kinds, with Swoole's numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockKind {
    RwLock = 1,
    Mutex = 3,
    Spin = 5,
}

impl LockKind {
    pub fn from_i64(v: i64) -> Option<LockKind> {
        match v {
            1 => Some(LockKind::RwLock),
            3 => Some(LockKind::Mutex),
            5 => Some(LockKind::Spin),
            _ => None,
        }
    }
}

/// One lock in its own shared page, usable from every process forked after
/// it was made.
pub struct ShmLock {
    kind: LockKind,
    map: ShmMap,
}

// pthread objects live at the start of the page, which is page-aligned.
const _: () = assert!(std::mem::size_of::<libc::pthread_rwlock_t>() <= 4096);

impl ShmLock {
    pub fn new(kind: LockKind) -> io::Result<ShmLock> {
        let map = ShmMap::new(4096)?;
        let lock = ShmLock { kind, map };
        match kind {
            LockKind::Mutex => {}
            LockKind::RwLock => {
                // SAFETY: the page is ours, zeroed and aligned; the attr lives
                // on the stack for the duration of init.
                let r = unsafe {
                    let mut attr: libc::pthread_rwlockattr_t = std::mem::zeroed();
                    libc::pthread_rwlockattr_init(&mut attr);
                    libc::pthread_rwlockattr_setpshared(&mut attr, libc::PTHREAD_PROCESS_SHARED);
                    let r = libc::pthread_rwlock_init(lock.rw(), &attr);
                    libc::pthread_rwlockattr_destroy(&mut attr);
                    r
                };
                if r != 0 {
                    return Err(io::Error::from_raw_os_error(r));
                }
            }
            LockKind::Spin => {
                // SAFETY: as above.
                let r =
                    unsafe { libc::pthread_spin_init(lock.spin(), libc::PTHREAD_PROCESS_SHARED) };
                if r != 0 {
                    return Err(io::Error::from_raw_os_error(r));
                }
            }
        }
        Ok(lock)
    }

    pub fn kind(&self) -> LockKind {
        self.kind
    }

    fn mutex(&self) -> &PidLock {
        // SAFETY: the page is aligned, lives as long as `self`, and for a
        // mutex holds only this atomic word (zero = unlocked).
        unsafe { &*self.map.as_ptr().cast::<PidLock>() }
    }

    fn rw(&self) -> *mut libc::pthread_rwlock_t {
        self.map.as_ptr().cast()
    }

    fn spin(&self) -> *mut libc::pthread_spinlock_t {
        self.map.as_ptr().cast()
    }

    /// `lock($operation, $timeout)`: `shared` is LOCK_SH (read-write locks
    /// only), `nonblock` is LOCK_NB. Err is an errno (EBUSY, ETIMEDOUT, ...).
    pub fn lock(&self, shared: bool, nonblock: bool, timeout: Option<Duration>) -> Result<(), i32> {
        let deadline = timeout.map(|t| Instant::now() + t);
        let r = match self.kind {
            LockKind::Mutex => {
                let m = self.mutex();
                if nonblock {
                    if m.try_lock() {
                        0
                    } else {
                        libc::EBUSY
                    }
                } else {
                    match m.lock(None, None, deadline) {
                        Acquired::TimedOut => libc::ETIMEDOUT,
                        _ => 0,
                    }
                }
            }
            LockKind::RwLock => {
                let p = self.rw();
                // SAFETY: `p` is the rwlock initialized in `new`, in memory
                // that outlives the call.
                unsafe {
                    match (shared, nonblock, deadline) {
                        (true, true, _) => libc::pthread_rwlock_tryrdlock(p),
                        (false, true, _) => libc::pthread_rwlock_trywrlock(p),
                        (true, false, None) => libc::pthread_rwlock_rdlock(p),
                        (false, false, None) => libc::pthread_rwlock_wrlock(p),
                        (sh, false, Some(_)) => {
                            let ts = realtime_after(timeout.unwrap_or_default());
                            if sh {
                                pthread_rwlock_timedrdlock(p, &ts)
                            } else {
                                pthread_rwlock_timedwrlock(p, &ts)
                            }
                        }
                    }
                }
            }
            LockKind::Spin => {
                let p = self.spin();
                // SAFETY: `p` is the spinlock initialized in `new`.
                unsafe {
                    if nonblock {
                        libc::pthread_spin_trylock(p)
                    } else if let Some(d) = deadline {
                        loop {
                            if libc::pthread_spin_trylock(p) == 0 {
                                break 0;
                            }
                            if Instant::now() >= d {
                                break libc::ETIMEDOUT;
                            }
                            std::thread::sleep(Duration::from_millis(1));
                        }
                    } else {
                        libc::pthread_spin_lock(p)
                    }
                }
            }
        };
        if r == 0 {
            Ok(())
        } else {
            Err(r)
        }
    }

    pub fn unlock(&self) -> Result<(), i32> {
        let r = match self.kind {
            LockKind::Mutex => {
                self.mutex().unlock();
                0
            }
            // SAFETY: initialized in `new`.
            LockKind::RwLock => unsafe { libc::pthread_rwlock_unlock(self.rw()) },
            // SAFETY: initialized in `new`.
            LockKind::Spin => unsafe { libc::pthread_spin_unlock(self.spin()) },
        };
        if r == 0 {
            Ok(())
        } else {
            Err(r)
        }
    }
}

extern "C" {
    // glibc: int pthread_rwlock_timed{rd,wr}lock(pthread_rwlock_t *,
    //     const struct timespec *abstime); not in the libc crate.
    fn pthread_rwlock_timedrdlock(
        lock: *mut libc::pthread_rwlock_t,
        abstime: *const libc::timespec,
    ) -> libc::c_int;
    fn pthread_rwlock_timedwrlock(
        lock: *mut libc::pthread_rwlock_t,
        abstime: *const libc::timespec,
    ) -> libc::c_int;
}

fn realtime_after(d: Duration) -> libc::timespec {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
        + d;
    timespec_of(now)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pid_lock_basic() {
        let m = ShmMap::new(4096).expect("mmap");
        // SAFETY: fresh zeroed aligned page.
        let l = unsafe { &*m.as_ptr().cast::<PidLock>() };
        assert!(l.try_lock());
        assert!(!l.try_lock());
        assert_eq!(l.owner(), my_pid());
        let t = l.lock(None, None, Some(Instant::now() + Duration::from_millis(20)));
        assert_eq!(t, Acquired::TimedOut);
        l.unlock();
        assert_eq!(l.lock(None, None, None), Acquired::Yes);
        l.unlock();
    }

    #[test]
    fn pid_lock_dead_owner_is_recovered() {
        let m = ShmMap::new(4096).expect("mmap");
        // SAFETY: fresh zeroed aligned page.
        let l = unsafe { &*m.as_ptr().cast::<PidLock>() };
        // A pid that does not exist: pid_max is far below this.
        l.0.store(0x3fff_fff0, Ordering::Relaxed);
        assert_eq!(
            l.lock(None, None, Some(Instant::now() + Duration::from_secs(5))),
            Acquired::FromDead(0x3fff_fff0)
        );
        l.unlock();
    }

    #[test]
    fn forced_after_limit() {
        let m = ShmMap::new(4096).expect("mmap");
        // SAFETY: fresh zeroed aligned page.
        let l = unsafe { &*m.as_ptr().cast::<PidLock>() };
        // Held by a live process (pid 1) that never lets go.
        l.0.store(1, Ordering::Relaxed);
        let r = l.lock(None, Some(Duration::from_millis(50)), None);
        assert_eq!(r, Acquired::Forced(1));
    }

    #[test]
    fn atomic_wait_consumes_wakeup() {
        let w = AtomicU32::new(0);
        assert!(!atomic_wait(&w, Some(Duration::from_millis(10))));
        assert!(atomic_wakeup(&w, 1));
        assert!(atomic_wait(&w, Some(Duration::from_millis(10))));
        assert_eq!(w.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn locks_timeout() {
        for kind in [LockKind::Mutex, LockKind::RwLock, LockKind::Spin] {
            let l = ShmLock::new(kind).expect("lock");
            assert_eq!(l.lock(false, false, None), Ok(()));
            let t0 = Instant::now();
            let r = l.lock(false, false, Some(Duration::from_millis(30)));
            assert!(r.is_err(), "{kind:?}");
            // glibc reports EDEADLK at once for a rwlock its own thread holds.
            if kind != LockKind::RwLock {
                assert!(t0.elapsed() >= Duration::from_millis(25));
            }
            assert!(l.lock(false, true, None).is_err());
            assert_eq!(l.unlock(), Ok(()));
        }
    }
}
