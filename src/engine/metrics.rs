//! The OpenMetrics endpoint (`metrics_port` / `metrics`): Prometheus text
//! built from the shared counters of `engine::shared::stats`, served by a small
//! process of its own forked from the master.
//!
//! Why a process and not a thread of the master: the BASE-mode master forks
//! workers for the server's whole life (respawns, reloads), and it may only
//! do so while it is single-threaded (a thread holding the allocator's or the
//! log's lock at fork time leaves the child deadlocked). The metrics process
//! is forked before any worker, runs no PHP, reads only `MAP_SHARED` memory
//! and `/proc`, and answers even when every worker is stuck.

use std::fmt::Write as _;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::Ordering;
use std::time::Duration;

use crate::engine::config::{MetricsListen, ServerConfig};
use crate::engine::shared::stats::{self, ExitReason, ProcState};

/// A worker whose loop ticker has not run for longer than this counts the
/// whole silence as lag (the ticker runs every second at most).
const TICK: u64 = 1000;

/// Binds the endpoint and forks the process that serves it. Returns its pid
/// (the master stops it at shutdown), or `None` when metrics are off or the
/// listener could not be set up (logged).
pub fn spawn(cfg: &ServerConfig) -> Option<i32> {
    let m = cfg.metrics.as_ref()?;
    stats::set_buckets(&cfg.metrics_buckets);
    let listener = match TcpListener::bind((m.host.as_str(), m.port)) {
        Ok(l) => l,
        Err(e) => {
            crate::rlog!(
                Warning,
                "metrics: cannot listen on {}:{}: {e}",
                m.host,
                m.port
            );
            return None;
        }
    };
    // SAFETY: called by the master before it forks anything else and
    // before any thread exists (the same rule as every fork here); the
    // child only serves sockets and leaves with _exit.
    let pid = unsafe { libc::fork() };
    match pid {
        0 => {
            // SAFETY: prctl/signal with integer arguments only: die with the
            // master, and take SIGTERM/SIGINT with the default action (the
            // master's handlers were inherited).
            unsafe {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                for sig in [
                    libc::SIGTERM,
                    libc::SIGINT,
                    libc::SIGHUP,
                    libc::SIGUSR1,
                    libc::SIGUSR2,
                ] {
                    libc::signal(sig, libc::SIG_DFL);
                }
                libc::signal(libc::SIGCHLD, libc::SIG_DFL);
            }
            crate::engine::log::set_role(crate::engine::log::Role::Manager, -1);
            serve(listener, m)
        }
        p if p > 0 => {
            crate::rlog!(
                Info,
                "metrics: serving http://{}:{}{} (pid {p})",
                m.host,
                listener.local_addr().map(|a| a.port()).unwrap_or(m.port),
                m.path
            );
            Some(p)
        }
        _ => {
            crate::rlog!(Warning, "metrics: fork() failed");
            None
        }
    }
}

/// In the master at shutdown: stops the metrics process.
pub fn stop(pid: Option<i32>) {
    let Some(pid) = pid else { return };
    // SAFETY: signals and reaps the child we forked; no memory involved.
    unsafe {
        libc::kill(pid, libc::SIGKILL);
        let mut st = 0;
        libc::waitpid(pid, &mut st, 0);
    }
}

fn serve(listener: TcpListener, m: &MetricsListen) -> ! {
    loop {
        match listener.accept() {
            Ok((s, _)) => answer(s, &m.path),
            Err(_) => std::thread::sleep(Duration::from_millis(10)),
        }
    }
}

/// One scrape: `GET <path>` gets the text, anything else 404. One request
/// per connection (`Connection: close`).
fn answer(mut s: TcpStream, path: &str) {
    let _ = s.set_read_timeout(Some(Duration::from_secs(2)));
    let _ = s.set_write_timeout(Some(Duration::from_secs(2)));
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 1024];
    while !buf.windows(4).any(|w| w == b"\r\n\r\n") && buf.len() < 16 * 1024 {
        match s.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
    let line = buf.split(|b| *b == b'\n').next().unwrap_or_default();
    let line = String::from_utf8_lossy(line);
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or("");
    let target = parts.next().unwrap_or("");
    let target = target.split('?').next().unwrap_or("");
    let (status, body) = if (method == "GET" || method == "HEAD") && target == path {
        ("200 OK", render())
    } else {
        ("404 Not Found", "not found\n".to_string())
    };
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = s.write_all(head.as_bytes());
    if method != "HEAD" {
        let _ = s.write_all(body.as_bytes());
    }
}

fn family(out: &mut String, name: &str, kind: &str, help: &str) {
    let _ = writeln!(out, "# HELP {name} {help}");
    let _ = writeln!(out, "# TYPE {name} {kind}");
}

fn state_name(state: u32, inflight: i64) -> &'static str {
    match state {
        s if s == ProcState::Starting as u32 => "starting",
        s if s == ProcState::Draining as u32 => "draining",
        _ if inflight > 0 => "busy",
        _ => "idle",
    }
}

/// The whole exposition, Prometheus text format 0.0.4.
pub fn render() -> String {
    match stats::shared() {
        Some(s) => render_from(s),
        None => String::new(),
    }
}

fn render_from(s: &stats::Shared) -> String {
    let mut o = String::with_capacity(8192);
    let now = stats::now_ms();
    struct W {
        id: i32,
        pid: i32,
        state: &'static str,
        req: u64,
        inflight: i64,
        rss: u64,
        coros: u64,
        lag: f64,
        blocked: u64,
        timeouts: u64,
    }
    let mut ws = Vec::new();
    for slot in &s.slots {
        let pid = slot.pid.load(Ordering::Acquire);
        if pid <= 0 {
            continue;
        }
        let inflight = slot.concurrency.load(Ordering::Relaxed).max(0);
        let st = slot.state.load(Ordering::Relaxed);
        // The ticker's last measurement, or the silence since its last run
        // when the loop is stuck (it then cannot measure anything itself).
        let tick = slot.loop_tick_ms.load(Ordering::Relaxed);
        let silent = now.saturating_sub(tick).saturating_sub(TICK);
        let measured = slot.loop_lag_us.load(Ordering::Relaxed) / 1000;
        let lag_ms = if st == ProcState::Starting as u32 {
            measured
        } else {
            measured.max(silent)
        };
        ws.push(W {
            id: slot.worker_id.load(Ordering::Relaxed),
            pid,
            state: state_name(st, inflight),
            req: slot.request_count.load(Ordering::Relaxed),
            inflight,
            rss: stats::rss_of(pid).unwrap_or(0),
            coros: slot.coroutines.load(Ordering::Relaxed),
            lag: lag_ms as f64 / 1000.0,
            blocked: slot.blocked_count.load(Ordering::Relaxed),
            timeouts: slot.timeout_count.load(Ordering::Relaxed),
        });
    }
    ws.sort_by_key(|w| (w.id, w.pid));

    family(
        &mut o,
        "rswoole_worker_state",
        "gauge",
        "1 for the state each worker process is in (starting, idle, busy, draining).",
    );
    for w in &ws {
        for st in ["starting", "idle", "busy", "draining"] {
            let v = u8::from(w.state == st);
            let _ = writeln!(
                o,
                "rswoole_worker_state{{worker=\"{}\",pid=\"{}\",state=\"{st}\"}} {v}",
                w.id, w.pid
            );
        }
    }
    let per = |o: &mut String, name: &str, kind: &str, help: &str, f: &dyn Fn(&W) -> String| {
        family(o, name, kind, help);
        for w in &ws {
            let _ = writeln!(
                o,
                "{name}{{worker=\"{}\",pid=\"{}\"}} {}",
                w.id,
                w.pid,
                f(w)
            );
        }
    };
    per(
        &mut o,
        "rswoole_worker_requests_total",
        "counter",
        "Requests this worker process has started.",
        &|w| w.req.to_string(),
    );
    per(
        &mut o,
        "rswoole_worker_inflight_requests",
        "gauge",
        "Requests this worker process is handling now.",
        &|w| w.inflight.to_string(),
    );
    per(
        &mut o,
        "rswoole_worker_rss_bytes",
        "gauge",
        "Resident set size of the worker process.",
        &|w| w.rss.to_string(),
    );
    per(
        &mut o,
        "rswoole_worker_coroutines",
        "gauge",
        "Live coroutines in the worker (sampled every second).",
        &|w| w.coros.to_string(),
    );
    per(
        &mut o,
        "rswoole_worker_loop_lag_seconds",
        "gauge",
        "How late the worker's event loop ran its 1 s ticker; grows while the loop is blocked.",
        &|w| format!("{:.3}", w.lag),
    );
    per(
        &mut o,
        "rswoole_worker_blocked_total",
        "counter",
        "Times the event loop was blocked past swoole.blocking_threshold.",
        &|w| w.blocked.to_string(),
    );
    per(
        &mut o,
        "rswoole_worker_request_timeouts_total",
        "counter",
        "Requests this worker process answered 504 after request_timeout.",
        &|w| w.timeouts.to_string(),
    );

    family(
        &mut o,
        "rswoole_worker_restarts_total",
        "counter",
        "Worker processes with this worker id that were replaced.",
    );
    let mut ids: Vec<i32> = ws.iter().map(|w| w.id).collect();
    ids.dedup();
    for id in &ids {
        if let Some(info) = s.ids.get(*id as usize) {
            let _ = writeln!(
                o,
                "rswoole_worker_restarts_total{{worker=\"{id}\"}} {}",
                info.restarts.load(Ordering::Relaxed)
            );
        }
    }
    family(
        &mut o,
        "rswoole_worker_last_restart",
        "gauge",
        "1, labelled with why the last process with this worker id was replaced.",
    );
    for id in &ids {
        if let Some(info) = s.ids.get(*id as usize) {
            let r = ExitReason::from_u32(info.last_reason.load(Ordering::Relaxed));
            let _ = writeln!(
                o,
                "rswoole_worker_last_restart{{worker=\"{id}\",reason=\"{}\"}} 1",
                r.label()
            );
        }
    }

    let g = |a: &std::sync::atomic::AtomicU64| a.load(Ordering::Relaxed);
    let accepts = g(&s.accept_count);
    let closes = g(&s.close_count);
    let mut one = |name: &str, kind: &str, help: &str, v: u64| {
        family(&mut o, name, kind, help);
        let _ = writeln!(o, "{name} {v}");
    };
    one(
        "rswoole_connections",
        "gauge",
        "Open client connections.",
        accepts.saturating_sub(closes),
    );
    one(
        "rswoole_accepts_total",
        "counter",
        "Connections accepted.",
        accepts,
    );
    one(
        "rswoole_aborts_total",
        "counter",
        "Connections that ended with an error (reset, bad input, timeout).",
        g(&s.abort_count),
    );
    one(
        "rswoole_requests_total",
        "counter",
        "Requests started.",
        g(&s.request_count),
    );
    one(
        "rswoole_responses_total",
        "counter",
        "Responses produced.",
        g(&s.response_count),
    );
    one(
        "rswoole_received_bytes_total",
        "counter",
        "Bytes read from clients.",
        g(&s.total_recv_bytes),
    );
    one(
        "rswoole_sent_bytes_total",
        "counter",
        "Bytes written to clients.",
        g(&s.total_send_bytes),
    );
    one(
        "rswoole_task_queue_depth",
        "gauge",
        "Tasks sent to task workers and not taken yet.",
        g(&s.task_queued).saturating_sub(g(&s.task_taken)),
    );
    one(
        "rswoole_request_timeouts_total",
        "counter",
        "Requests answered 504 after request_timeout, all workers.",
        g(&s.timeouts_total),
    );
    one(
        "rswoole_blocked_total",
        "counter",
        "Event-loop blocks past swoole.blocking_threshold, all workers.",
        g(&s.blocked_total),
    );

    let h = &s.histogram;
    let n = h.len.load(Ordering::Relaxed) as usize;
    if n > 0 {
        family(
            &mut o,
            "rswoole_request_duration_seconds",
            "histogram",
            "Time from a request's head to its response head (metrics_buckets).",
        );
        let mut cum = 0u64;
        for i in 0..n {
            cum += h.counts[i].load(Ordering::Relaxed);
            let le = h.bounds_us[i].load(Ordering::Relaxed) as f64 / 1e6;
            // OpenMetrics writes a whole bound as "1.0".
            let le = if le.fract() == 0.0 {
                format!("{le:.1}")
            } else {
                format!("{le}")
            };
            let _ = writeln!(
                o,
                "rswoole_request_duration_seconds_bucket{{le=\"{le}\"}} {cum}"
            );
        }
        cum += h.counts[n].load(Ordering::Relaxed);
        let _ = writeln!(
            o,
            "rswoole_request_duration_seconds_bucket{{le=\"+Inf\"}} {cum}"
        );
        let _ = writeln!(
            o,
            "rswoole_request_duration_seconds_sum {:.6}",
            h.sum_us.load(Ordering::Relaxed) as f64 / 1e6
        );
        let _ = writeln!(o, "rswoole_request_duration_seconds_count {cum}");
    }

    let tables = crate::engine::shared::table::registry::usage();
    if !tables.is_empty() {
        family(
            &mut o,
            "rswoole_table_rows",
            "gauge",
            "Rows in use in each Swoole\\Table (numbered in creation order).",
        );
        for (i, used, _) in &tables {
            let _ = writeln!(o, "rswoole_table_rows{{table=\"{i}\"}} {used}");
        }
        family(
            &mut o,
            "rswoole_table_size",
            "gauge",
            "Rows each Swoole\\Table can hold.",
        );
        for (i, _, cap) in &tables {
            let _ = writeln!(o, "rswoole_table_size{{table=\"{i}\"}} {cap}");
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_counters_and_histogram() {
        // A mapping of our own: the process-wide one is shared with other tests.
        let p = crate::engine::shared::shm_lock::map_shared(std::mem::size_of::<stats::Shared>())
            .expect("mmap");
        // SAFETY: a fresh zero-filled mapping sized for `Shared` (all atomics,
        // zero-valid), never unmapped during the test.
        let s: &stats::Shared = unsafe { &*p.cast::<stats::Shared>() };
        let h = &s.histogram;
        h.bounds_us[0].store(10_000, Ordering::Relaxed);
        h.bounds_us[1].store(1_000_000, Ordering::Relaxed);
        h.len.store(2, Ordering::Relaxed);
        h.counts[0].store(1, Ordering::Relaxed);
        h.counts[1].store(1, Ordering::Relaxed);
        h.counts[2].store(1, Ordering::Relaxed);
        h.sum_us.store(5_055_000, Ordering::Relaxed);
        s.accept_count.store(5, Ordering::Relaxed);
        s.close_count.store(3, Ordering::Relaxed);
        s.slots[0]
            .pid
            .store(std::process::id() as i32, Ordering::Relaxed);
        s.slots[0]
            .state
            .store(ProcState::Ready as u32, Ordering::Relaxed);
        s.slots[0].concurrency.store(1, Ordering::Relaxed);
        s.slots[0]
            .loop_tick_ms
            .store(stats::now_ms().saturating_sub(3500), Ordering::Relaxed);
        let text = render_from(s);
        assert!(text.contains("rswoole_request_duration_seconds_bucket{le=\"0.01\"} 1"));
        assert!(text.contains("rswoole_request_duration_seconds_bucket{le=\"1.0\"} 2"));
        assert!(text.contains("rswoole_request_duration_seconds_bucket{le=\"+Inf\"} 3"));
        assert!(text.contains("rswoole_request_duration_seconds_count 3"));
        assert!(text.contains("rswoole_request_duration_seconds_sum 5.055000"));
        assert!(text.contains("rswoole_connections 2\n"));
        assert!(text.contains("# TYPE rswoole_accepts_total counter"));
        let me = std::process::id();
        assert!(text.contains(&format!(
            "rswoole_worker_state{{worker=\"0\",pid=\"{me}\",state=\"busy\"}} 1"
        )));
        // The loop has not ticked for 3.5 s: 2.5 s of lag (1 s is the ticker's period).
        let lag = text
            .lines()
            .find(|l| l.starts_with("rswoole_worker_loop_lag_seconds{"))
            .and_then(|l| l.rsplit(' ').next())
            .and_then(|v| v.parse::<f64>().ok())
            .expect("lag line");
        assert!((2.4..3.0).contains(&lag), "{lag}");
    }
}
