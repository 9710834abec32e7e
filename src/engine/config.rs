//! Server settings the engine honours, with Swoole's defaults.
//!
//! The PHP layer validates `$server->set([...])` and fills this struct; the
//! engine never sees a PHP value. Settings Swoole accepts but the engine does
//! not act on are kept by the PHP layer in `$server->setting` only.

use std::path::PathBuf;
use std::time::Duration;

use crate::engine::net::framing::Framing;

/// Per-port socket and framing options (`$port->set()`, or the server's
/// `set()` for the main port).
#[derive(Debug, Clone)]
pub struct PortOptions {
    pub framing: Framing,
    /// Largest frame (`package_max_length`); a larger one closes the connection.
    pub package_max_length: usize,
    pub open_tcp_nodelay: bool,
    /// `open_tcp_keepalive` with `tcp_keepidle`, `tcp_keepinterval`, `tcp_keepcount`.
    pub tcp_keepalive: Option<(u32, u32, u32)>,
    /// `socket_buffer_size`/`kernel_socket_*_buffer_size`: SO_SNDBUF/SO_RCVBUF.
    pub socket_buffer_size: Option<usize>,
    /// `SWOOLE_SSL`: the port's TLS acceptor.
    pub tls: Option<std::sync::Arc<crate::engine::tls::ServerTls>>,
    /// `open_http2_protocol` with its `http2_*` settings.
    pub http2: Option<Http2Settings>,
    /// `max_idle_time`: a raw TCP connection that sent nothing for this
    /// long is closed.
    pub max_idle_time: Option<Duration>,
    /// The port's own `heartbeat_idle_time` (the heartbeat's default is
    /// the server's).
    pub heartbeat_idle_time: Option<Duration>,
}

/// The `http2_*` settings (None: hyper's default).
#[derive(Debug, Clone, Copy, Default)]
pub struct Http2Settings {
    pub header_table_size: Option<u32>,
    pub initial_window_size: Option<u32>,
    pub max_concurrent_streams: Option<u32>,
    pub max_frame_size: Option<u32>,
    pub max_header_list_size: Option<u32>,
}

impl Default for PortOptions {
    fn default() -> Self {
        PortOptions {
            framing: Framing::Raw,
            package_max_length: 2 * 1024 * 1024,
            open_tcp_nodelay: true,
            tcp_keepalive: None,
            socket_buffer_size: None,
            tls: None,
            http2: None,
            max_idle_time: None,
            heartbeat_idle_time: None,
        }
    }
}

/// `open_websocket_ping_frame`/`_pong_frame`/`_close_frame`: hand these
/// control frames to `on_ws_message` (a ping is then not answered by us).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ControlFrames {
    pub ping: bool,
    pub pong: bool,
    pub close: bool,
}

/// How the HTTP port treats WebSocket upgrades: configuration, read once
/// at start (`php::settings` fills the settings, the server's start the
/// parts that depend on which callbacks are set).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WsOptions {
    /// The HTTP port accepts WebSocket upgrades (a WebSocket server).
    pub enabled: bool,
    /// Which control frames go to `on_ws_message`.
    pub control: ControlFrames,
    /// `websocket_subprotocol`: the `Sec-WebSocket-Protocol` of every
    /// handshake whose client offered it.
    pub subprotocol: Option<String>,
    /// `websocket_compression`: negotiate permessage-deflate when offered.
    pub compression: bool,
    /// A `handshake` callback answers upgrade requests itself
    /// (`Hooks::on_ws_handshake`).
    pub custom_handshake: bool,
    /// A `beforeHandshakeResponse` callback sees our 101 first
    /// (`Hooks::on_ws_before_handshake_response`).
    pub before_handshake_response: bool,
    /// Ports (bit = port index) of a server that is no WebSocket server
    /// whose `open_websocket_protocol` accepts upgrades all the same.
    pub ports: u64,
    /// Of those, the ports whose own `handshake` callback answers them.
    pub handshake_ports: u64,
}

impl WsOptions {
    /// Port `index` accepts WebSocket upgrades.
    pub fn on_port(&self, index: usize) -> bool {
        self.enabled || (index < 64 && self.ports & (1 << index) != 0)
    }

    /// A `handshake` callback answers the upgrades of port `index`.
    pub fn custom_on_port(&self, index: usize) -> bool {
        self.custom_handshake || (index < 64 && self.handshake_ports & (1 << index) != 0)
    }
}

/// `SWOOLE_BASE` / `SWOOLE_PROCESS`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Base,
    Process,
}

/// One `url_rewrite_rules` entry.
#[derive(Debug, Clone)]
pub struct RewriteRule {
    pub pattern: RewritePattern,
    /// The new URL (a prefix's replacement, or a regex replacement where
    /// `$1` names a group, `$&` the match and `$$` a `$`).
    pub replacement: String,
}

#[derive(Debug, Clone)]
pub enum RewritePattern {
    /// A plain key: URLs starting with it.
    Prefix(String),
    /// A key written `~regex~`.
    Regex(regex_automata::meta::Regex),
}

impl RewriteRule {
    /// The rule for a `url_rewrite_rules` key and value; None for a
    /// `~regex~` that does not compile (Swoole skips such a rule).
    pub fn new(key: &str, replacement: &str) -> Option<Self> {
        let pattern = match key
            .strip_prefix('~')
            .and_then(|k| k.strip_suffix('~'))
            .filter(|_| key.len() >= 2)
        {
            Some(re) => RewritePattern::Regex(regex_automata::meta::Regex::new(re).ok()?),
            None => RewritePattern::Prefix(key.to_string()),
        };
        Some(RewriteRule {
            pattern,
            replacement: replacement.to_string(),
        })
    }
}

#[derive(Debug, Clone)]
pub struct ServerConfig {
    pub mode: Mode,
    /// Worker processes; Swoole's default is the number of CPUs.
    pub worker_num: usize,
    /// Connections a worker keeps open at once; more are closed on accept.
    pub max_connection: usize,
    /// Largest request body (and, later, frame) in bytes: 2 MiB by default.
    pub package_max_length: usize,
    /// `upload_max_filesize`: a multipart body may exceed
    /// `package_max_length` by this much (0: it may not).
    pub upload_max_filesize: usize,
    pub http_parse_post: bool,
    pub http_parse_cookie: bool,
    pub http_parse_files: bool,
    pub upload_tmp_dir: PathBuf,
    pub http_compression: bool,
    pub http_compression_level: u32,
    pub http_compression_min_length: usize,
    /// `http_compression_types`: only these content types are compressed
    /// (None: every type).
    pub http_compression_types: Option<std::sync::Arc<[String]>>,
    pub document_root: Option<PathBuf>,
    pub enable_static_handler: bool,
    /// `http_index_files`: tried in order when a request names a directory.
    pub http_index_files: Vec<String>,
    /// `http_autoindex`: a directory without an index file is listed.
    pub http_autoindex: bool,
    /// `static_handler_locations`: URL prefixes the static handler owns (a
    /// missing file under one is a 404); empty: every URL is tried.
    pub static_handler_locations: Vec<String>,
    /// `url_rewrite_rules`, in order: the first that applies rewrites the
    /// URL the static handler looks up.
    pub url_rewrite_rules: Vec<RewriteRule>,
    /// The WebSocket settings (`websocket_*`, `open_websocket_*_frame`)
    /// and which WebSocket callbacks are set.
    pub ws: WsOptions,
    /// `buffer_output_size`: the largest response or `send()` a worker may
    /// hand over in PROCESS mode (`None`: Swoole's default, no limit).
    pub output_buffer_size: Option<usize>,
    /// Time a client has to send a whole request head (an rswoole setting).
    pub http_header_timeout: Duration,
    /// Time a client has to send a whole request body once its head is in
    /// (`http_body_timeout`, an rswoole setting): 408 and close after it.
    pub http_body_timeout: Duration,
    /// `max_concurrency`: requests the whole server handles at once; past
    /// it a new request is answered 503 and closed (0: no limit).
    pub max_concurrency: u32,
    /// `worker_max_concurrency`: requests one worker hands to PHP at once;
    /// the rest wait in arrival order (0: no limit; `max_concurrency` when
    /// only that one is set, as in Swoole).
    pub worker_max_concurrency: u32,
    /// Body bytes kept in memory while a request body arrives; past it the
    /// body is spooled to `upload_tmp_dir` (`http_body_buffer_size`).
    pub http_body_buffer_size: usize,
    /// `socket_buffer_size`: most unsent bytes one connection may queue
    /// (Swoole 6.2.2's SW_SOCKET_BUFFER_SIZE, 8 MiB).
    pub output_buffer_limit: usize,
    /// `buffer_high_watermark` (None: 80 % of the limit) and
    /// `buffer_low_watermark`: `onBufferFull` / `onBufferEmpty`.
    pub buffer_high_watermark: Option<usize>,
    pub buffer_low_watermark: usize,
    /// `send_yield` (default: `enable_coroutine`): a send to a full
    /// connection suspends its coroutine until the buffer drains, instead
    /// of failing with SWOOLE_ERROR_OUTPUT_BUFFER_OVERFLOW.
    pub send_yield: Option<bool>,
    /// `send_timeout`: the longest such a wait (None: until the buffer
    /// drains or the connection closes).
    pub send_timeout: Option<Duration>,
    /// Largest request head, request line included (`http_max_header_size`,
    /// an rswoole setting; Swoole's fixed SW_HTTP_HEADER_MAX_SIZE, 64 KiB):
    /// a larger one gets 431.
    pub http_max_header_size: usize,
    /// Most header lines in one request head (`http_max_headers`, an
    /// rswoole setting): more get 431.
    pub http_max_headers: usize,
    pub log_file: Option<String>,
    pub log_level: i32,
    pub enable_coroutine: bool,
    /// Seconds a stopping worker may take to finish in-flight work.
    pub max_wait_time: Duration,
    pub reload_async: bool,
    pub pid_file: Option<PathBuf>,
    /// Requests after which a worker is replaced (0: never).
    pub max_request: u64,
    /// Random extra requests (0..=grace) so workers do not all recycle at
    /// once; `None` means Swoole's default, `max_request / 2` above 10.
    pub max_request_grace: Option<u64>,
    /// Tasks after which a task worker is replaced (0: never), and its
    /// grace, by the same rules as `max_request`.
    pub task_max_request: u64,
    pub task_max_request_grace: Option<u64>,
    /// RSS in bytes above which a worker is replaced after its current
    /// request (an rswoole setting; 0: never).
    pub max_worker_memory: u64,
    /// Detach from the terminal at start (fork, setsid, stdio to `log_file`
    /// or /dev/null, cwd `/`).
    pub daemonize: bool,
    /// Task worker processes (`task_worker_num`); their ids follow the workers'.
    pub task_worker_num: usize,
    /// `task_enable_coroutine`: `onTask` runs in a coroutine with a `Task` object.
    pub task_enable_coroutine: bool,
    /// `task_object`/`task_use_object`: `onTask($server, Task)` (no coroutine).
    pub task_object: bool,
    /// `event_object`: callbacks get one `Swoole\Server\Event`-like object.
    pub event_object: bool,
    /// Where task payloads too large for one IPC datagram are written.
    pub task_tmpdir: PathBuf,
    /// `socket_buffer_size`, when set: the send buffer of every process's
    /// inbox (`engine::ipc`), as Swoole sizes its pipes with it.
    pub ipc_buffer_size: Option<usize>,
    /// `socket_send_timeout`/`socket_write_timeout`: how long a message
    /// (a task's result, ...) waits for room in a full inbox.
    pub ipc_send_timeout: Option<Duration>,
    /// `task_ipc_mode` (1: the workers' inboxes; 2, 3: also a System V queue).
    pub task_ipc_mode: i64,
    /// `message_queue_key`: with `task_ipc_mode` 2 or 3, task workers also
    /// take task packets (`Server\Task::pack()`) from this System V queue.
    pub message_queue_key: Option<i64>,
    /// `heartbeat_check_interval`: how often idle connections are looked for.
    pub heartbeat_check_interval: Option<Duration>,
    /// `heartbeat_idle_time`: a connection silent this long is closed.
    pub heartbeat_idle_time: Option<Duration>,
    /// SWOOLE_PROCESS: threads of the master that accept and dispatch
    /// (`reactor_num`, default the number of CPUs).
    pub reactor_num: usize,
    /// SWOOLE_PROCESS: how the master picks a worker for a new connection
    /// (`dispatch_mode`: 1 round robin, 2 by fd, 3 first idle, 4 by client IP,
    /// 8 the least busy for the connection's life).
    pub dispatch_mode: u8,
    /// SWOOLE_PROCESS: a `dispatch_func` was set (`Hooks::dispatch` picks
    /// the worker of each message of a TCP port).
    pub dispatch_func: bool,
    /// `enable_delay_receive`: a raw TCP connection is read only after
    /// `confirm($fd)` (`resume()`).
    pub enable_delay_receive: bool,
    /// `enable_reuse_port` (BASE mode): each worker also accepts on a
    /// `SO_REUSEPORT` socket of its own.
    pub enable_reuse_port: bool,
    /// `user` / `group`: what workers and task workers run as, when the
    /// server starts as root. `chroot`: their root directory.
    pub user: Option<String>,
    pub group: Option<String>,
    pub chroot: Option<String>,
    /// `metrics_port` / `metrics`: where the OpenMetrics endpoint listens
    /// (an rswoole setting; `None`: no endpoint).
    pub metrics: Option<MetricsListen>,
    /// `metrics_buckets`: upper bounds (seconds) of the request-duration
    /// histogram.
    pub metrics_buckets: Vec<f64>,
    /// `request_timeout` (an rswoole setting), else PHP's
    /// `max_execution_time`: a request still running past it is answered 504.
    pub request_timeout: Option<Duration>,
    /// `swoole.blocking_detection` with `swoole.blocking_threshold`: the
    /// event loop blocked this long is reported with the PHP stack.
    pub blocking_threshold: Option<Duration>,
}

/// The OpenMetrics listener (`metrics` => ['host' =>, 'port' =>, 'path' =>]).
#[derive(Debug, Clone, PartialEq)]
pub struct MetricsListen {
    pub host: String,
    pub port: u16,
    pub path: String,
}

/// Prometheus' default histogram buckets, in seconds.
pub const DEFAULT_BUCKETS: [f64; 11] = [
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

impl ServerConfig {
    /// Every process that serves: workers then task workers.
    pub fn total_workers(&self) -> usize {
        self.worker_num.max(1) + self.task_worker_num
    }

    /// Swoole's effective heartbeat: (check interval, idle time). An idle
    /// time alone checks every idle/2 (at least 1 s); an interval alone
    /// closes after twice the interval.
    pub fn heartbeat(&self) -> Option<(Duration, Duration)> {
        match (self.heartbeat_check_interval, self.heartbeat_idle_time) {
            (None, None) => None,
            (Some(i), Some(t)) => Some((i, t)),
            (Some(i), None) => Some((i, i * 2)),
            (None, Some(t)) => Some(((t / 2).max(Duration::from_secs(1)), t)),
        }
    }

    /// Swoole's effective `send_yield`.
    pub fn send_yield(&self) -> bool {
        self.send_yield.unwrap_or(self.enable_coroutine)
    }

    /// Swoole's effective `max_request_grace`.
    pub fn request_grace(&self) -> u64 {
        match self.max_request_grace {
            Some(g) => g,
            None if self.max_request > 10 => self.max_request / 2,
            None => 0,
        }
    }

    /// Swoole's effective `task_max_request_grace`.
    pub fn task_request_grace(&self) -> u64 {
        match self.task_max_request_grace {
            Some(g) => g,
            None if self.task_max_request > 10 => self.task_max_request / 2,
            None => 0,
        }
    }
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            mode: Mode::Base,
            worker_num: cpu_count(),
            max_connection: 100_000,
            package_max_length: 2 * 1024 * 1024,
            upload_max_filesize: 0,
            http_parse_post: true,
            http_parse_cookie: true,
            http_parse_files: false,
            upload_tmp_dir: PathBuf::from("/tmp"),
            http_compression: true,
            http_compression_level: 1,
            http_compression_min_length: 20,
            http_compression_types: None,
            document_root: None,
            enable_static_handler: false,
            http_index_files: Vec::new(),
            http_autoindex: false,
            static_handler_locations: Vec::new(),
            url_rewrite_rules: Vec::new(),
            ws: WsOptions::default(),
            output_buffer_size: None,
            http_header_timeout: Duration::from_secs(30),
            http_body_timeout: Duration::from_secs(60),
            max_concurrency: 0,
            worker_max_concurrency: 0,
            http_body_buffer_size: 64 * 1024,
            output_buffer_limit: 8 * 1024 * 1024,
            buffer_high_watermark: None,
            buffer_low_watermark: 0,
            send_yield: None,
            send_timeout: None,
            http_max_header_size: 64 * 1024,
            http_max_headers: 1024,
            log_file: None,
            log_level: 2,
            enable_coroutine: true,
            max_wait_time: Duration::from_secs(3),
            reload_async: true,
            pid_file: None,
            max_request: 0,
            max_request_grace: None,
            task_max_request: 0,
            task_max_request_grace: None,
            max_worker_memory: 0,
            daemonize: false,
            task_worker_num: 0,
            task_enable_coroutine: false,
            task_object: false,
            event_object: false,
            task_tmpdir: PathBuf::from("/tmp"),
            ipc_buffer_size: None,
            ipc_send_timeout: None,
            task_ipc_mode: 1,
            message_queue_key: None,
            heartbeat_check_interval: None,
            heartbeat_idle_time: None,
            reactor_num: cpu_count(),
            dispatch_mode: 2,
            dispatch_func: false,
            enable_delay_receive: false,
            enable_reuse_port: false,
            user: None,
            group: None,
            chroot: None,
            metrics: None,
            metrics_buckets: DEFAULT_BUCKETS.to_vec(),
            request_timeout: None,
            blocking_threshold: None,
        }
    }
}

/// Online CPUs (`sysconf(_SC_NPROCESSORS_ONLN)`), as Swoole's
/// `SW_CPU_NUM` and `swoole_cpu_num()`: not the CPUs this process may run
/// on, which `available_parallelism` gives (a server started under
/// `taskset -c 0` got one PROCESS-mode worker by default, Swoole two).
pub fn cpu_count() -> usize {
    // SAFETY: sysconf takes an integer.
    let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    if n > 0 {
        n as usize
    } else {
        1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_match_swoole() {
        let c = ServerConfig::default();
        assert_eq!(c.package_max_length, 2 * 1024 * 1024);
        assert_eq!(c.worker_num, cpu_count());
        assert!(c.enable_coroutine);
        assert!(c.reload_async);
        assert_eq!(c.max_wait_time, Duration::from_secs(3));
        assert_eq!(c.request_grace(), 0);
        let c = ServerConfig {
            max_request: 100,
            ..ServerConfig::default()
        };
        assert_eq!(c.request_grace(), 50);
    }
}
