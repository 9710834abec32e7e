//! Messages between a server's processes: tasks, their results, and
//! `send()`/`close()` routed to the worker that owns a connection. This
//! module moves datagrams and knows no protocol: `engine::worker::inbox` turns what
//! arrives into hook and `conns` calls.
//!
//! Every worker and task worker has an inbox: one `AF_UNIX` `SOCK_DGRAM`
//! socketpair created by the master before it forks (so every process holds
//! every write end). A datagram is delivered whole, so messages from many
//! processes never interleave; since all writers share the one write end
//! (the reader's peer), the kernel's `max_dgram_qlen` does not apply, only
//! the send buffer. A payload larger than [`INLINE_MAX`] travels through a
//! file in `task_tmpdir`, as Swoole's `SW_TASK_TMPFILE` does: the datagram
//! carries its path and the receiver reads and removes it.
//!
//! Sending is synchronous (PHP's `task()` is): with a full inbox the sender
//! polls for room for up to [`SEND_TIMEOUT`] (`socket_send_timeout`), reading its own inbox
//! meanwhile (into a queue the loop handles next), so two processes sending
//! to each other cannot deadlock.

pub mod notice;

use std::cell::RefCell;
use std::collections::VecDeque;
use std::os::fd::RawFd;
use std::path::PathBuf;
use std::rc::Rc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use tokio::io::unix::AsyncFd;

/// Payloads above this go through a temporary file.
pub const INLINE_MAX: usize = 60 * 1024;
/// How long a sender waits for room in a full inbox, by default.
pub const SEND_TIMEOUT: Duration = Duration::from_secs(10);
/// An inbox's send buffer, by default.
const DEFAULT_BUFFER: usize = 4 << 20;
/// The least send buffer [`configure`] sets: two of the largest datagrams.
const MIN_BUFFER: usize = 2 * (HEADER + INLINE_MAX + 1024);
const HEADER: usize = 32;
/// Set in `flags` by the engine when the payload is a file path.
const FLAG_TMPFILE: u32 = 1 << 31;
/// Set in a task's `flags` when a task worker took it from the System V
/// queue (`start_queue_reader`): `data` is the packet as it was queued.
pub const FLAG_QUEUED: u32 = 1 << 30;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub enum Kind {
    /// To a task worker: `id` = task id, `src` = sending worker.
    Task = 1,
    /// To the worker that sent a task: its result.
    Finish = 2,
    /// To the worker that owns connection `id`: write `data`, bytes the
    /// sender already encoded (raw data, a whole WebSocket frame).
    Send = 3,
    /// To the owner of connection `id`: write `data` (a WebSocket close
    /// frame, or nothing), then close it (`arg` 1 = reset).
    Close = 4,
    /// `sendMessage()`: `onPipeMessage` in the destination.
    Pipe = 5,
    /// `Server::command()`: `id` = request id, `arg` = command id << 16 |
    /// the inbox the result goes to, `data` = the JSON-encoded argument.
    Command = 7,
    /// The result of `Command` `id`: the handler's string.
    CommandReply = 8,
    /// To the owner of connection `id`: the response another process made
    /// for its detached HTTP request (`data`: the PHP layer's encoding).
    Respond = 9,
    /// SWOOLE_PROCESS, per-message dispatch: one message of connection `id`
    /// (read on port `arg`) for this worker's `onReceive`.
    Receive = 10,
    /// SWOOLE_PROCESS with a `dispatch_func`: one datagram of UDP port `id`
    /// for this worker's `onPacket` (`arg`: server socket | port << 32;
    /// `data`: the peer address, its length first, then the payload).
    Packet = 11,
}

impl Kind {
    fn from_u32(n: u32) -> Option<Kind> {
        Some(match n {
            1 => Kind::Task,
            2 => Kind::Finish,
            3 => Kind::Send,
            4 => Kind::Close,
            5 => Kind::Pipe,
            7 => Kind::Command,
            8 => Kind::CommandReply,
            9 => Kind::Respond,
            10 => Kind::Receive,
            11 => Kind::Packet,
            _ => return None,
        })
    }
}

/// One message. `flags` belongs to the PHP layer (serialised or not, ...).
#[derive(Debug, Clone)]
pub struct Msg {
    pub kind: Kind,
    pub flags: u32,
    /// The sending process's worker id.
    pub src: i32,
    pub id: i64,
    pub arg: i64,
    pub data: Bytes,
}

/// This process's IPC state. One boxed thread-local: the extension is
/// dlopen()ed, and glibc's static TLS room for it is small.
struct State {
    /// (read end, write end) of every process's inbox, by worker id.
    ends: Vec<(RawFd, RawFd)>,
    me: i32,
    tmpdir: PathBuf,
    /// Messages read while waiting for something else.
    pending: VecDeque<Msg>,
    /// The inbox loop's task while it waits (woken when `pending` fills).
    pending_wake: Option<std::task::Waker>,
    next_task: i64,
    rr: usize,
    tmp_seq: u64,
    worker_num: usize,
    task_num: usize,
    rbuf: Vec<u8>,
    /// `recv_some`'s buffers after the first (allocated on first use).
    rbufs: Vec<Vec<u8>>,
    /// How long [`send`] waits for room ([`configure`]).
    send_timeout: Duration,
    /// The inboxes' send buffer ([`configure`]).
    buffer: usize,
}

thread_local! {
    static ST: Box<RefCell<Option<Box<State>>>> = Box::new(RefCell::new(None));
}

fn with<R>(f: impl FnOnce(&mut State) -> R) -> R {
    ST.with(|s| {
        let mut s = s.borrow_mut();
        let st = s.get_or_insert_with(|| {
            Box::new(State {
                ends: Vec::new(),
                me: -1,
                tmpdir: PathBuf::from("/tmp"),
                pending: VecDeque::new(),
                pending_wake: None,
                next_task: 0,
                rr: 0,
                tmp_seq: 0,
                worker_num: 0,
                task_num: 0,
                rbuf: vec![0u8; HEADER + INLINE_MAX + 4096],
                rbufs: Vec::new(),
                send_timeout: SEND_TIMEOUT,
                buffer: DEFAULT_BUFFER,
            })
        });
        f(st)
    })
}

fn notify_pending() {
    // Taken out first: the wake-up runs no code of ours, but the borrow
    // of the state ends before it all the same.
    if let Some(w) = with(|s| s.pending_wake.take()) {
        w.wake();
    }
}

/// In the master, before [`setup`]: the inboxes' send buffer
/// (`socket_buffer_size`; at least two of the largest datagrams) and how
/// long [`send`] waits for room (`socket_send_timeout`); `None` keeps the
/// defaults.
pub fn configure(buffer: Option<usize>, send_timeout: Option<Duration>) {
    with(|s| {
        s.buffer = buffer.map_or(DEFAULT_BUFFER, |b| b.max(MIN_BUFFER));
        s.send_timeout = send_timeout.unwrap_or(SEND_TIMEOUT);
    });
}

/// In the master, before any fork: one inbox per worker, task worker and
/// user process (`extra`, `Server::addProcess()`).
pub fn setup(
    worker_num: usize,
    task_worker_num: usize,
    extra: usize,
    tmpdir: PathBuf,
) -> std::io::Result<()> {
    teardown();
    let mut ends = Vec::new();
    // The last inbox is the master's, for the results of its `command()`s.
    for _ in 0..worker_num + task_worker_num + extra + 1 {
        let mut fds = [0 as libc::c_int; 2];
        // SAFETY: socketpair fills the two-element array it is given.
        let rc = unsafe {
            libc::socketpair(
                libc::AF_UNIX,
                libc::SOCK_DGRAM | libc::SOCK_CLOEXEC,
                0,
                fds.as_mut_ptr(),
            )
        };
        if rc != 0 {
            let e = std::io::Error::last_os_error();
            for (r, w) in ends {
                close(r);
                close(w);
            }
            return Err(e);
        }
        let big = with(|s| s.buffer).min(i32::MAX as usize) as libc::c_int;
        // SAFETY: setsockopt/fcntl on descriptors just created, with a live local value.
        unsafe {
            libc::setsockopt(
                fds[1],
                libc::SOL_SOCKET,
                libc::SO_SNDBUF,
                (&raw const big).cast(),
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            );
            libc::setsockopt(
                fds[0],
                libc::SOL_SOCKET,
                libc::SO_RCVBUF,
                (&raw const big).cast(),
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            );
            let fl = libc::fcntl(fds[0], libc::F_GETFL);
            libc::fcntl(fds[0], libc::F_SETFL, fl | libc::O_NONBLOCK);
        }
        ends.push((fds[0], fds[1]));
    }
    with(|s| {
        s.ends = ends;
        s.tmpdir = tmpdir;
        s.worker_num = worker_num;
        s.task_num = task_worker_num;
    });
    Ok(())
}

/// In the master after the server stopped: closes every inbox.
pub fn teardown() {
    let ends = with(|s| std::mem::take(&mut s.ends));
    for (r, w) in ends {
        close(r);
        close(w);
    }
}

/// In a new process: it reads inbox `id`.
pub fn enter(id: i32) {
    with(|s| {
        s.me = id;
        s.pending.clear();
        s.next_task = 0;
        s.rr = id.max(0) as usize;
    });
}

/// Where large task payloads go (`task_tmpdir`, default `/tmp`).
pub fn tmpdir() -> PathBuf {
    with(|s| s.tmpdir.clone())
}

pub fn is_set_up() -> bool {
    with(|s| !s.ends.is_empty())
}

pub fn worker_num() -> usize {
    with(|s| s.worker_num)
}

pub fn task_worker_num() -> usize {
    with(|s| s.task_num)
}

fn close(fd: RawFd) {
    if fd >= 0 {
        // SAFETY: closes a descriptor this module created.
        unsafe { libc::close(fd) };
    }
}

fn my_rd() -> Option<RawFd> {
    with(|s| {
        if s.me < 0 {
            return None;
        }
        s.ends.get(s.me as usize).map(|p| p.0)
    })
}

/// A new task id, unique within this worker (Swoole's are too).
pub fn next_task_id() -> i64 {
    with(|s| {
        let v = s.next_task;
        s.next_task += 1;
        v
    })
}

/// The inbox index of task worker `dst`; -1: the next idle one, round-robin
/// as Swoole's scheduler picks (`true` with it when every task worker was
/// busy and the next one in turn was taken anyway).
pub fn task_worker_index(dst: i64) -> Option<(usize, bool)> {
    let (w, t) = (worker_num(), task_worker_num());
    if t == 0 {
        return None;
    }
    if dst >= 0 {
        return ((dst as usize) < t).then_some((w + dst as usize, false));
    }
    let idle = crate::engine::shared::stats::idle(w as i32, t);
    let mut last = 0;
    for _ in 0..=t {
        last = with(|s| {
            let v = s.rr;
            s.rr = v.wrapping_add(1);
            v
        }) % t;
        if idle.as_ref().is_none_or(|i| i.has(last)) {
            return Some((w + last, false));
        }
    }
    Some((w + last, true))
}

fn encode(m: &Msg, data: &[u8], flags: u32) -> Vec<u8> {
    let mut b = Vec::with_capacity(HEADER + data.len());
    b.extend_from_slice(&header(m, flags));
    b.extend_from_slice(data);
    b
}

/// A datagram's header: kind, flags, source, id, argument.
fn header(m: &Msg, flags: u32) -> [u8; HEADER] {
    let mut h = [0u8; HEADER];
    h[0..4].copy_from_slice(&(m.kind as u32).to_ne_bytes());
    h[4..8].copy_from_slice(&flags.to_ne_bytes());
    h[8..12].copy_from_slice(&m.src.to_ne_bytes());
    h[16..24].copy_from_slice(&m.id.to_ne_bytes());
    h[24..32].copy_from_slice(&m.arg.to_ne_bytes());
    h
}

fn decode(b: &[u8]) -> Option<Msg> {
    if b.len() < HEADER {
        return None;
    }
    let u32_at = |i: usize| u32::from_ne_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    let i64_at = |i: usize| {
        let mut a = [0u8; 8];
        a.copy_from_slice(&b[i..i + 8]);
        i64::from_ne_bytes(a)
    };
    let kind = Kind::from_u32(u32_at(0))?;
    let flags = u32_at(4);
    let mut data = Bytes::copy_from_slice(&b[HEADER..]);
    if flags & FLAG_TMPFILE != 0 {
        let path = String::from_utf8_lossy(&data).into_owned();
        data = match std::fs::read(&path) {
            Ok(v) => Bytes::from(v),
            Err(e) => {
                crate::rlog!(Warning, "task payload file {path}: {e}");
                Bytes::new()
            }
        };
        let _ = std::fs::remove_file(&path);
    }
    Some(Msg {
        kind,
        flags: flags & !FLAG_TMPFILE,
        src: u32_at(8) as i32,
        id: i64_at(16),
        arg: i64_at(24),
        data,
    })
}

/// Sends `m` to inbox `dst`; `Err` when there is no such inbox, the payload
/// file cannot be written, or the inbox stayed full for [`SEND_TIMEOUT`]
/// (or what [`configure`] set): then an error of kind `TimedOut`.
pub fn send(dst: usize, mut m: Msg) -> std::io::Result<()> {
    // One look at the state (each is a `__tls_get_addr` call).
    let Some((wr, me, timeout)) = with(|s| s.ends.get(dst).map(|p| (p.1, s.me, s.send_timeout)))
    else {
        return Err(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            format!("no process #{dst} to send to"),
        ));
    };
    m.src = me;
    let mut flags = m.flags & !FLAG_TMPFILE;
    let path_bytes;
    let payload: &[u8] = if m.data.len() > INLINE_MAX {
        let path = with(|s| {
            s.tmp_seq += 1;
            s.tmpdir
                .join(format!("swoole.task.{}.{}", std::process::id(), s.tmp_seq))
        });
        std::fs::write(&path, &m.data)?;
        flags |= FLAG_TMPFILE;
        path_bytes = path.to_string_lossy().into_owned().into_bytes();
        &path_bytes
    } else {
        &m.data
    };
    // The header and the payload as two pieces of one datagram: no buffer
    // to allocate and copy the payload into.
    let head = header(&m, flags);
    let mut iov = [
        libc::iovec {
            iov_base: head.as_ptr() as *mut libc::c_void,
            iov_len: HEADER,
        },
        libc::iovec {
            iov_base: payload.as_ptr() as *mut libc::c_void,
            iov_len: payload.len(),
        },
    ];
    // SAFETY: all-zero is a valid msghdr (no address, no control data).
    let mut hdr: libc::msghdr = unsafe { std::mem::zeroed() };
    hdr.msg_iov = iov.as_mut_ptr();
    hdr.msg_iovlen = 2;
    // Read from the clock only once the inbox is found full.
    let mut deadline: Option<Instant> = None;
    loop {
        // SAFETY: `hdr` points at two live buffers of their stated lengths
        // (`sendmsg` only reads them); the descriptor is one this module owns.
        let n = unsafe { libc::sendmsg(wr, &hdr, libc::MSG_DONTWAIT) };
        if n >= 0 {
            if m.kind == Kind::Task {
                crate::engine::shared::stats::on_task_queued();
            }
            return Ok(());
        }
        let e = std::io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::EINTR) => continue,
            Some(libc::EAGAIN) | Some(libc::ENOBUFS) => {}
            _ => return Err(e),
        }
        let deadline = *deadline.get_or_insert_with(|| Instant::now() + timeout);
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                format!("process #{dst}'s inbox stayed full"),
            ));
        }
        let rd = my_rd().unwrap_or(-1);
        let mut fds = [
            libc::pollfd {
                fd: wr,
                events: libc::POLLOUT,
                revents: 0,
            },
            libc::pollfd {
                fd: rd,
                events: libc::POLLIN,
                revents: 0,
            },
        ];
        let nfds = if rd >= 0 { 2 } else { 1 };
        // SAFETY: polls descriptors we own through a live local array.
        unsafe { libc::poll(fds.as_mut_ptr(), nfds, left.as_millis().min(100) as i32 + 1) };
        if rd >= 0 && fds[1].revents & libc::POLLIN != 0 {
            stash_incoming(rd);
        }
    }
}

/// `task_ipc_mode` 2 or 3 with `message_queue_key`: a thread of this task
/// worker takes task packets from System V queue `key` (messages of type
/// `mtype`, 0: any) and puts each into this process's own inbox as a task
/// flagged [`FLAG_QUEUED`], so the loop handles them like any task.
pub fn start_queue_reader(key: i64, mtype: i64) -> std::io::Result<()> {
    let me = with(|s| s.me);
    let Some(wr) = with(|s| s.ends.get(me as usize).map(|p| p.1)) else {
        return Err(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            "no inbox for this process",
        ));
    };
    // SAFETY: msgget(2) with a key and flags; it returns an id or -1.
    let qid = unsafe { libc::msgget(key as libc::key_t, libc::IPC_CREAT | 0o666) };
    if qid < 0 {
        return Err(std::io::Error::last_os_error());
    }
    std::thread::Builder::new()
        .name("task-msgqueue".into())
        .spawn(move || queue_reader(qid, mtype, me, wr))?;
    Ok(())
}

/// The queue thread: touches no PHP and no thread-local state, only the
/// queue and the inbox's write end (a blocking datagram send).
fn queue_reader(qid: libc::c_int, mtype: i64, me: i32, wr: RawFd) {
    const TEXT: usize = INLINE_MAX;
    #[repr(C)]
    struct QueueMsg {
        mtype: libc::c_long,
        text: [u8; TEXT],
    }
    let mut buf = Box::new(QueueMsg {
        mtype: 0,
        text: [0; TEXT],
    });
    loop {
        // SAFETY: msgrcv(2) writes the type and at most TEXT bytes of text
        // into the live boxed buffer laid out as `struct msgbuf`; longer
        // messages are cut (MSG_NOERROR) and then refused as bad packets.
        let n = unsafe {
            libc::msgrcv(
                qid,
                (&raw mut *buf).cast(),
                TEXT,
                mtype as libc::c_long,
                libc::MSG_NOERROR,
            )
        };
        if n < 0 {
            if std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
                continue;
            }
            return; // the queue was removed
        }
        let m = Msg {
            kind: Kind::Task,
            flags: FLAG_QUEUED,
            src: me,
            id: 0,
            arg: 0,
            data: Bytes::new(),
        };
        let out = encode(&m, &buf.text[..n as usize], FLAG_QUEUED);
        crate::engine::shared::stats::on_task_queued();
        loop {
            // SAFETY: sends from a live buffer on the inbox's write end,
            // which lives as long as the process.
            let r = unsafe { libc::send(wr, out.as_ptr().cast(), out.len(), 0) };
            if r < 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
                continue;
            }
            break;
        }
    }
}

/// One message from `rd`, if one is queued.
fn recv_one(rd: RawFd) -> Option<Msg> {
    with(|s| {
        let b = &mut s.rbuf;
        loop {
            // SAFETY: receives into a live buffer of the given length.
            let n = unsafe { libc::recv(rd, b.as_mut_ptr().cast(), b.len(), libc::MSG_DONTWAIT) };
            if n < 0 {
                if std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
                    continue;
                }
                return None;
            }
            return decode(&b[..n as usize]);
        }
    })
}

/// Datagrams one `recvmmsg` reads at most: a task worker's broadcast sends
/// one per connection, which the owner then reads with an eighth of the
/// calls. (The buffers past the first are allocated on first use; only the
/// pages a datagram was written to become resident.)
const RECV_BATCH: usize = 8;

/// Reads up to [`RECV_BATCH`] queued messages into `pending` with one
/// `recvmmsg`; true when fewer were queued (the inbox is empty now: the
/// caller need not read again before its next readiness event, which saves
/// reading once more only to get `EAGAIN`, a syscall per wake-up of every
/// worker and task worker).
fn recv_some(s: &mut State, rd: RawFd) -> bool {
    if s.rbufs.len() != RECV_BATCH - 1 {
        s.rbufs = (1..RECV_BATCH).map(|_| vec![0u8; s.rbuf.len()]).collect();
    }
    let mut iov: [libc::iovec; RECV_BATCH] = std::array::from_fn(|i| {
        let b = if i == 0 {
            &mut s.rbuf
        } else {
            &mut s.rbufs[i - 1]
        };
        libc::iovec {
            iov_base: b.as_mut_ptr().cast(),
            iov_len: b.len(),
        }
    });
    // SAFETY: all-zero is a valid mmsghdr (null pointers, zero lengths).
    let mut hdrs: [libc::mmsghdr; RECV_BATCH] = unsafe { std::mem::zeroed() };
    for (h, v) in hdrs.iter_mut().zip(iov.iter_mut()) {
        h.msg_hdr.msg_iov = v;
        h.msg_hdr.msg_iovlen = 1;
    }
    let n = loop {
        // SAFETY: RECV_BATCH headers, each pointing at one live buffer of
        // its stated length; no timeout.
        let n = unsafe {
            libc::recvmmsg(
                rd,
                hdrs.as_mut_ptr(),
                RECV_BATCH as libc::c_uint,
                libc::MSG_DONTWAIT,
                std::ptr::null_mut(),
            )
        };
        if n < 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
            continue;
        }
        break n;
    };
    if n <= 0 {
        return true;
    }
    for (i, h) in hdrs.iter().enumerate().take(n as usize) {
        let buf = if i == 0 { &s.rbuf } else { &s.rbufs[i - 1] };
        if let Some(m) = decode(&buf[..(h.msg_len as usize).min(buf.len())]) {
            s.pending.push_back(m);
        }
    }
    (n as usize) < RECV_BATCH
}

/// Reads whatever is queued into `PENDING` (the loop handles it next).
fn stash_incoming(rd: RawFd) {
    let mut any = false;
    while let Some(m) = recv_one(rd) {
        with(|s| s.pending.push_back(m));
        any = true;
    }
    if any {
        notify_pending();
    }
}

/// Blocks (outside any event loop turn) until a message matching `want`
/// arrives or `timeout` passes; other messages are kept for the loop.
/// `taskwait()` outside a coroutine uses it.
pub fn wait_blocking(want: impl Fn(&Msg) -> bool, timeout: Duration) -> Option<Msg> {
    let take = || {
        with(|s| {
            let i = s.pending.iter().position(&want)?;
            s.pending.remove(i)
        })
    };
    if let Some(m) = take() {
        return Some(m);
    }
    let rd = my_rd()?;
    let deadline = Instant::now() + timeout;
    loop {
        while let Some(m) = recv_one(rd) {
            if want(&m) {
                notify_pending();
                return Some(m);
            }
            with(|s| s.pending.push_back(m));
        }
        if !wait_readable(rd, deadline) {
            notify_pending();
            return None;
        }
    }
}

/// Sleeps until `rd` is readable or `deadline` (false: the deadline has
/// passed), at most a second at a time.
fn wait_readable(rd: RawFd, deadline: Instant) -> bool {
    use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return false;
    }
    // SAFETY: `rd` is an inbox of this process, open for its whole life
    // (only the master's `teardown` closes inboxes, after every child left).
    let fd = unsafe { std::os::fd::BorrowedFd::borrow_raw(rd) };
    let ms = (left.as_millis().min(1000) as u16).saturating_add(1);
    let _ = poll(
        &mut [PollFd::new(fd, PollFlags::POLLIN)],
        PollTimeout::from(ms),
    );
    true
}

struct Fd(RawFd);

impl std::os::fd::AsRawFd for Fd {
    fn as_raw_fd(&self) -> RawFd {
        self.0
    }
}

/// What runs a `Server::command()` here: (command id, its JSON argument)
/// -> the result string (the PHP layer's table of `addCommand()` handlers).
pub type CommandHandler = Rc<dyn Fn(i64, Bytes) -> Bytes>;

thread_local! {
    static COMMANDS: Box<RefCell<Option<CommandHandler>>> = Box::new(RefCell::new(None));
}

/// Installs this process's command handler (inherited by fork with the
/// rest of the PHP state).
pub fn set_command_handler(h: Option<CommandHandler>) {
    COMMANDS.with(|c| *c.borrow_mut() = h);
}

/// Runs command `cmd` with argument `data` in this process.
pub fn run_command(cmd: i64, data: Bytes) -> Option<Bytes> {
    let h = COMMANDS.with(|c| c.borrow().clone())?;
    Some(h(cmd, data))
}

/// The master's inbox: only results of its commands arrive there.
fn master_inbox() -> Option<usize> {
    with(|s| s.ends.len().checked_sub(1))
}

/// Sends command `cmd` to process `dst` (a worker or task worker inbox) and
/// waits up to `timeout` for its result. Blocking, as `taskwait()` outside a
/// coroutine; from the master as well as from a worker.
pub fn command(dst: usize, cmd: i64, data: Bytes, timeout: Duration) -> Option<Bytes> {
    let (me, req) = with(|s| {
        s.next_task += 1;
        (s.me, s.next_task | (1 << 40))
    });
    let reply_to = if me >= 0 {
        me as usize
    } else {
        master_inbox()?
    };
    let m = Msg {
        kind: Kind::Command,
        flags: 0,
        src: 0,
        id: req,
        arg: (cmd << 16) | reply_to as i64,
        data,
    };
    if let Err(e) = send(dst, m) {
        crate::rlog!(Warning, "command to process #{dst}: {e}");
        return None;
    }
    let want = |m: &Msg| m.kind == Kind::CommandReply && m.id == req;
    if me >= 0 {
        return wait_blocking(want, timeout).map(|m| m.data);
    }
    let rd = with(|s| s.ends.get(reply_to).map(|p| p.0))?;
    let deadline = Instant::now() + timeout;
    loop {
        while let Some(m) = recv_one(rd) {
            if want(&m) {
                return Some(m.data);
            }
        }
        if !wait_readable(rd, deadline) {
            return None;
        }
    }
}

/// What a process does with a message: the worker loop passes its own.
pub type Dispatch = Rc<dyn Fn(Msg)>;

/// Reads this process's inbox and hands every message to `dispatch`, until
/// the process ends (the task is dropped with the runtime).
pub async fn inbox_loop(dispatch: Dispatch) {
    let Some(rd) = my_rd() else { return };
    // SAFETY: the inbox descriptor stays open for the life of the process
    // (only the master's `teardown` closes inboxes, after every child left).
    let afd = match unsafe { AsyncFd::register(Fd(rd)) } {
        Ok(a) => a,
        Err(e) => {
            crate::rlog!(Error, "cannot watch the IPC inbox: {e}");
            return;
        }
    };
    // The state's cell, reached through the thread-local once: every
    // `with` is a `__tls_get_addr` call (the extension is dlopen()ed).
    let cell: *const RefCell<Option<Box<State>>> = ST.with(|s| &**s as *const _);
    // SAFETY: the thread-local's box lives until this thread ends, and this
    // task (not `Send`: `dispatch` is an `Rc`) runs only on this thread,
    // before that; the cell's own borrow flag still guards every use.
    let st = move || unsafe { &*cell };
    // Starts the state (as `with` does), so `st().borrow_mut()` finds it.
    with(|_| ());
    loop {
        loop {
            let m = match st().borrow_mut().as_mut() {
                Some(s) => s.pending.pop_front(),
                None => return,
            };
            match m {
                Some(m) => dispatch(m),
                None => break,
            }
        }
        // Wait until the inbox is readable or a message was put in
        // `pending` (by `send` waiting for room, `wait_blocking`, ...).
        let readable = std::future::poll_fn(|cx| {
            if let Some(s) = st().borrow_mut().as_mut() {
                if !s.pending.is_empty() {
                    return std::task::Poll::Ready(Ok(false));
                }
                if !s
                    .pending_wake
                    .as_ref()
                    .is_some_and(|w| w.will_wake(cx.waker()))
                {
                    s.pending_wake = Some(cx.waker().clone());
                }
            }
            match afd.poll_read_ready(cx) {
                std::task::Poll::Ready(Ok(mut guard)) => {
                    // Cleared before reading: a datagram that arrives
                    // after this raises a new readiness event, so reading
                    // until the inbox is found empty once is enough.
                    guard.clear_ready();
                    std::task::Poll::Ready(Ok(true))
                }
                std::task::Poll::Ready(Err(e)) => std::task::Poll::Ready(Err(e)),
                std::task::Poll::Pending => std::task::Poll::Pending,
            }
        })
        .await;
        match readable {
            Ok(true) => loop {
                let empty = match st().borrow_mut().as_mut() {
                    Some(s) => recv_some(s, rd),
                    None => return,
                };
                if empty {
                    break;
                }
            },
            Ok(false) => {}
            Err(_) => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roundtrip_inline_and_file() {
        setup(2, 1, 0, std::env::temp_dir()).expect("setup");
        enter(0);
        let small = Msg {
            kind: Kind::Task,
            flags: 2,
            src: 0,
            id: 7,
            arg: 0,
            data: Bytes::from_static(b"hello"),
        };
        send(0, small).expect("send small");
        let big: Vec<u8> = (0..3 * 1024 * 1024).map(|i| (i % 251) as u8).collect();
        let m = Msg {
            kind: Kind::Finish,
            flags: 0,
            src: 0,
            id: 8,
            arg: 0,
            data: Bytes::from(big.clone()),
        };
        send(0, m).expect("send big");
        // Waiting for the second keeps the first for the loop.
        let got = wait_blocking(|m| m.id == 8, Duration::from_secs(2)).expect("big");
        assert_eq!(got.kind, Kind::Finish);
        assert_eq!(got.data.len(), big.len());
        assert!(got.data[..] == big[..]);
        let first = wait_blocking(|m| m.id == 7, Duration::from_millis(10)).expect("kept");
        assert_eq!(&first.data[..], b"hello");
        assert_eq!(first.flags, 2);
        assert!(wait_blocking(|_| true, Duration::from_millis(20)).is_none());
        // recv_some: RECV_BATCH at a time, "empty" once fewer were queued.
        let last = 20 + RECV_BATCH as i64 + 1;
        for id in 20..=last {
            let m = Msg {
                kind: Kind::Pipe,
                flags: 0,
                src: 0,
                id,
                arg: 0,
                data: Bytes::from(vec![id as u8; 100 * (id as usize - 19)]),
            };
            send(0, m).expect("send");
        }
        let rd = my_rd().expect("inbox");
        assert!(!with(|s| recv_some(s, rd)));
        assert_eq!(with(|s| s.pending.len()), RECV_BATCH);
        assert!(with(|s| recv_some(s, rd)));
        assert!(with(|s| recv_some(s, rd)));
        let got: Vec<Msg> = with(|s| s.pending.drain(..).collect());
        let ids: Vec<i64> = got.iter().map(|m| m.id).collect();
        assert_eq!(ids, (20..=last).collect::<Vec<i64>>());
        assert_eq!(got[2].data.len(), 300);
        assert_eq!(task_worker_index(0), Some((2, false)));
        assert_eq!(task_worker_index(5), None);
        teardown();
    }
}
