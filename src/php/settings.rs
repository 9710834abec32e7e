//! `$server->set([...])`: Swoole's option names, type checks for the options
//! rswoole acts on, and the translation into `engine::config::ServerConfig`.

use std::path::PathBuf;
use std::time::Duration;

use ext_php_rs::error::php_error;
use ext_php_rs::exception::PhpException;
use ext_php_rs::flags::{DataType, ErrorType};
use ext_php_rs::types::{ArrayKey, ZendHashTable, Zval};

use super::exception::type_error;
use crate::engine::config::{ControlFrames, PortOptions, ServerConfig, WsOptions};
use crate::engine::net::framing::{Framing, LengthType};
use crate::engine::tls::{CertFiles, TlsSettings};

/// Every option name Swoole 6 accepts on a server or port (lower-case).
/// Anything else gets Swoole's "unsupported option" warning.
const KNOWN: &[&str] = &[
    // global
    "debug_mode",
    "trace_flags",
    "log_file",
    "log_level",
    "log_date_format",
    "log_date_with_microseconds",
    "log_rotation",
    "display_errors",
    "dns_server",
    "socket_dns_timeout",
    "socket_connect_timeout",
    "socket_write_timeout",
    "socket_send_timeout",
    "socket_read_timeout",
    "socket_recv_timeout",
    "socket_buffer_size",
    "socket_timeout",
    "http2_header_table_size",
    "http2_enable_push",
    "http2_max_concurrent_streams",
    "http2_init_window_size",
    "http2_max_frame_size",
    "http2_max_header_list_size",
    "http2_max_headers",
    // server
    "chroot",
    "user",
    "group",
    "daemonize",
    "pid_file",
    "reactor_num",
    "single_thread",
    "worker_num",
    "max_wait_time",
    "max_queued_bytes",
    "max_concurrency",
    "worker_max_concurrency",
    "enable_coroutine",
    "send_timeout",
    "dispatch_mode",
    "send_yield",
    "dispatch_func",
    "discard_timeout_request",
    "enable_unsafe_event",
    "enable_delay_receive",
    "enable_reuse_port",
    "task_use_object",
    "task_object",
    "event_object",
    "task_enable_coroutine",
    "task_worker_num",
    "task_ipc_mode",
    "task_tmpdir",
    "task_max_request",
    "task_max_request_grace",
    "max_connection",
    "max_conn",
    "start_session_id",
    "heartbeat_check_interval",
    "heartbeat_idle_time",
    "max_request",
    "max_request_grace",
    "reload_async",
    "open_cpu_affinity",
    "cpu_affinity_ignore",
    "http_parse_cookie",
    "http_parse_post",
    "http_parse_files",
    "http_compression",
    "http_compression_level",
    "compression_level",
    "http_gzip_level",
    "http_compression_min_length",
    "compression_min_length",
    "websocket_compression",
    "upload_tmp_dir",
    "upload_max_filesize",
    "enable_static_handler",
    "document_root",
    "http_autoindex",
    "http_index_files",
    "http_compression_types",
    "compression_types",
    "static_handler_locations",
    "input_buffer_size",
    "buffer_input_size",
    "output_buffer_size",
    "buffer_output_size",
    "message_queue_key",
    "bootstrap",
    "init_arguments",
    "url_rewrite_rules",
    // port
    "ssl_cert_file",
    "ssl_key_file",
    "backlog",
    "kernel_socket_recv_buffer_size",
    "kernel_socket_send_buffer_size",
    "buffer_high_watermark",
    "buffer_low_watermark",
    "open_tcp_nodelay",
    "tcp_defer_accept",
    "open_tcp_keepalive",
    "open_eof_check",
    "open_eof_split",
    "package_eof",
    "open_http_protocol",
    "open_websocket_protocol",
    "websocket_subprotocol",
    "open_websocket_close_frame",
    "open_websocket_ping_frame",
    "open_websocket_pong_frame",
    "open_http2_protocol",
    "open_mqtt_protocol",
    "open_redis_protocol",
    "max_idle_time",
    "tcp_keepidle",
    "tcp_keepinterval",
    "tcp_keepcount",
    "tcp_user_timeout",
    "tcp_fastopen",
    "open_length_check",
    "package_length_type",
    "package_length_offset",
    "package_body_offset",
    "package_body_start",
    "package_length_func",
    "package_max_length",
    "ssl_compress",
    "ssl_protocols",
    "ssl_verify_peer",
    "ssl_allow_self_signed",
    "ssl_client_cert_file",
    "ssl_cafile",
    "ssl_capath",
    "ssl_verify_depth",
    "ssl_prefer_server_ciphers",
    "ssl_ciphers",
    "ssl_ecdh_curve",
    "ssl_dhparam",
    "ssl_sni_certs",
    // aio
    "aio_core_worker_num",
    "aio_worker_num",
    "aio_max_wait_time",
    "aio_max_idle_time",
    "iouring_entries",
    "iouring_workers",
    "iouring_flag",
    "enable_signalfd",
    "wait_signal",
    "dns_cache_refresh_time",
    "thread_num",
    "min_thread_num",
    "max_thread_num",
    "socket_dontwait",
    "dns_lookup_random",
    "use_async_resolver",
    // coroutine
    "max_coro_num",
    "max_coroutine",
    "enable_deadlock_check",
    "hook_flags",
    "enable_preemptive_scheduler",
    "c_stack_size",
    "stack_size",
    "name_resolver",
    "dns_cache_expire",
    "dns_cache_capacity",
    // helper
    "stats_file",
    "stats_timer_interval",
    "admin_server",
    // rswoole's own
    "http_header_timeout",
    "http_max_header_size",
    "http_max_headers",
    "http_body_timeout",
    "http_body_buffer_size",
    "max_worker_memory",
    "metrics_port",
    "metrics",
    "metrics_buckets",
    "request_timeout",
];

/// The option types rswoole checks before it acts on a value.
#[derive(Clone, Copy)]
enum Kind {
    Int,
    Size,
    Float,
    Bool,
    Str,
}

fn kind_of(key: &str) -> Option<Kind> {
    Some(match key {
        "worker_num"
        | "max_connection"
        | "max_conn"
        | "log_level"
        | "http_compression_level"
        | "compression_level"
        | "http_gzip_level"
        | "backlog"
        | "max_request"
        | "max_request_grace"
        | "task_max_request"
        | "task_max_request_grace"
        | "task_worker_num"
        | "reactor_num"
        | "dispatch_mode"
        | "package_length_offset"
        | "package_body_offset"
        | "package_body_start"
        | "tcp_keepidle"
        | "tcp_keepinterval"
        | "tcp_keepcount"
        | "http_max_headers" => Kind::Int,
        "metrics_port" => Kind::Int,
        "package_max_length"
        | "http_compression_min_length"
        | "compression_min_length"
        | "buffer_output_size"
        | "output_buffer_size"
        | "socket_buffer_size"
        | "kernel_socket_recv_buffer_size"
        | "kernel_socket_send_buffer_size"
        | "http_max_header_size"
        | "buffer_high_watermark"
        | "buffer_low_watermark"
        | "http_body_buffer_size"
        | "max_worker_memory" => Kind::Size,
        "max_wait_time"
        | "http_header_timeout"
        | "send_timeout"
        | "http_body_timeout"
        | "heartbeat_check_interval"
        | "heartbeat_idle_time"
        | "max_idle_time"
        | "request_timeout" => Kind::Float,
        "http_parse_post"
        | "http_parse_cookie"
        | "http_parse_files"
        | "http_compression"
        | "enable_static_handler"
        | "enable_coroutine"
        | "reload_async"
        | "daemonize"
        | "open_tcp_nodelay"
        | "open_tcp_keepalive"
        | "open_eof_check"
        | "open_eof_split"
        | "open_length_check"
        | "task_enable_coroutine"
        | "task_object"
        | "task_use_object"
        | "event_object"
        | "send_yield" => Kind::Bool,
        "upload_tmp_dir"
        | "document_root"
        | "log_file"
        | "pid_file"
        | "package_eof"
        | "package_length_type"
        | "task_tmpdir" => Kind::Str,
        _ => return None,
    })
}

/// The PHP type name of a value, as PHP's messages write it.
pub(crate) fn type_name(z: &Zval) -> &'static str {
    match z.get_type() {
        DataType::Null => "null",
        DataType::False | DataType::True | DataType::Bool => "bool",
        DataType::Long => "int",
        DataType::Double => "float",
        DataType::String => "string",
        DataType::Array => "array",
        DataType::Object(_) => "object",
        _ => "unknown",
    }
}

fn wrong(class: &str, key: &str, want: &str, z: &Zval) -> PhpException {
    type_error(format!(
        "{class}::set(): option '{key}' must be of type {want}, {} given",
        type_name(z)
    ))
}

/// "2M", "512K", "1G" or a plain number, as Swoole's size options take.
fn parse_size(s: &str) -> Option<i64> {
    let s = s.trim();
    let (num, mul) = match s.chars().last()? {
        'k' | 'K' => (&s[..s.len() - 1], 1024),
        'm' | 'M' => (&s[..s.len() - 1], 1024 * 1024),
        'g' | 'G' => (&s[..s.len() - 1], 1024 * 1024 * 1024),
        _ => (s, 1),
    };
    num.trim().parse::<i64>().ok().map(|n| n * mul)
}

fn as_int(class: &str, key: &str, z: &Zval, size: bool) -> Result<i64, PhpException> {
    if let Some(n) = z.long() {
        return Ok(n);
    }
    if let Some(f) = z.double() {
        if f.fract() == 0.0 {
            return Ok(f as i64);
        }
    }
    if let Some(s) = z.str() {
        let parsed = if size {
            parse_size(s)
        } else {
            s.trim().parse::<i64>().ok()
        };
        if let Some(n) = parsed {
            return Ok(n);
        }
    }
    if let Some(b) = z.bool() {
        return Ok(b as i64);
    }
    Err(wrong(class, key, "int", z))
}

fn as_float(class: &str, key: &str, z: &Zval) -> Result<f64, PhpException> {
    if let Some(n) = z.long() {
        return Ok(n as f64);
    }
    if let Some(f) = z.double() {
        return Ok(f);
    }
    if let Some(f) = z.str().and_then(|s| s.trim().parse::<f64>().ok()) {
        return Ok(f);
    }
    Err(wrong(class, key, "float", z))
}

fn as_bool(class: &str, key: &str, z: &Zval) -> Result<bool, PhpException> {
    if let Some(b) = z.bool() {
        return Ok(b);
    }
    if let Some(n) = z.long() {
        return Ok(n != 0);
    }
    match z.str() {
        Some("1") | Some("true") | Some("on") | Some("yes") => Ok(true),
        Some("0") | Some("") | Some("false") | Some("off") | Some("no") => Ok(false),
        _ => Err(wrong(class, key, "bool", z)),
    }
}

fn as_str(class: &str, key: &str, z: &Zval) -> Result<String, PhpException> {
    z.str()
        .map(str::to_string)
        .ok_or_else(|| wrong(class, key, "string", z))
}

/// Checks every option of one `set()` call: warns on unknown names, throws a
/// `TypeError` on a wrong type for an option rswoole acts on.
pub fn validate(class: &str, arr: &ZendHashTable) -> Result<(), PhpException> {
    for (key, val) in arr.iter() {
        let key = match key {
            ArrayKey::Long(n) => n.to_string(),
            ArrayKey::String(s) => s,
            ArrayKey::Str(s) => s.to_string(),
            ArrayKey::ZendString(s) => String::from_utf8_lossy(s.as_bytes()).into_owned(),
        };
        if val.is_null() {
            continue;
        }
        let lower = key.to_ascii_lowercase();
        if !KNOWN.contains(&lower.as_str()) {
            php_error(&ErrorType::Warning, &format!("unsupported option [{key}]"));
            continue;
        }
        match kind_of(&key) {
            Some(Kind::Int) => {
                as_int(class, &key, val, false)?;
            }
            Some(Kind::Size) => {
                as_int(class, &key, val, true)?;
            }
            Some(Kind::Float) => {
                as_float(class, &key, val)?;
            }
            Some(Kind::Bool) => {
                as_bool(class, &key, val)?;
            }
            Some(Kind::Str) => {
                as_str(class, &key, val)?;
            }
            None => {}
        }
    }
    Ok(())
}

/// Builds the engine configuration from the merged `$server->setting`.
/// The WebSocket settings of a server's `set()`: `open_websocket_*_frame`,
/// `websocket_compression` (true or a non-zero int, as before) and a
/// non-empty `websocket_subprotocol`. Whether the server is a WebSocket one
/// and which callbacks are set is filled in by its `start()`.
pub fn ws_options(arr: &ZendHashTable) -> WsOptions {
    let flag = |k: &str| {
        arr.get(k)
            .is_some_and(|v| v.bool().unwrap_or(false) || v.long().is_some_and(|n| n != 0))
    };
    WsOptions {
        control: ControlFrames {
            ping: flag("open_websocket_ping_frame"),
            pong: flag("open_websocket_pong_frame"),
            close: flag("open_websocket_close_frame"),
        },
        subprotocol: arr
            .get("websocket_subprotocol")
            .and_then(Zval::string)
            .filter(|p| !p.is_empty()),
        compression: flag("websocket_compression"),
        ..WsOptions::default()
    }
}

pub fn to_config(
    class: &str,
    arr: Option<&ZendHashTable>,
    mode_process: bool,
) -> Result<ServerConfig, PhpException> {
    let mut c = ServerConfig::default();
    if mode_process {
        c.mode = crate::engine::config::Mode::Process;
    } else {
        // Swoole's constructor: a SWOOLE_BASE server has one worker (and
        // one reactor) unless `worker_num` says otherwise.
        c.worker_num = 1;
        c.reactor_num = 1;
    }
    // From php.ini: blocking detection, and max_execution_time as the
    // request deadline unless `request_timeout` says otherwise.
    c.blocking_threshold = super::watchdog::blocking_threshold();
    c.request_timeout = super::watchdog::max_execution_time();
    super::watchdog::configure(c.request_timeout, true);
    let Some(arr) = arr else {
        return Ok(c);
    };
    let get = |k: &str| arr.get(k).filter(|z| !z.is_null());
    if let Some(z) = get("worker_num") {
        let n = as_int(class, "worker_num", z, false)?;
        c.worker_num = if n <= 0 {
            crate::engine::config::cpu_count()
        } else {
            n as usize
        };
    }
    for key in ["max_connection", "max_conn"] {
        if let Some(z) = get(key) {
            let n = as_int(class, key, z, false)?;
            if n > 0 {
                c.max_connection = n as usize;
            }
        }
    }
    if let Some(z) = get("package_max_length") {
        let n = as_int(class, "package_max_length", z, true)?;
        if n > 0 {
            c.package_max_length = n as usize;
        }
    }
    if let Some(z) = get("upload_max_filesize") {
        let n = as_int(class, "upload_max_filesize", z, true)?;
        c.upload_max_filesize = n.max(0) as usize;
    }
    if let Some(z) = get("http_parse_post") {
        c.http_parse_post = as_bool(class, "http_parse_post", z)?;
    }
    if let Some(z) = get("http_parse_cookie") {
        c.http_parse_cookie = as_bool(class, "http_parse_cookie", z)?;
    }
    if let Some(z) = get("http_parse_files") {
        c.http_parse_files = as_bool(class, "http_parse_files", z)?;
    }
    if let Some(z) = get("upload_tmp_dir") {
        let dir = PathBuf::from(as_str(class, "upload_tmp_dir", z)?);
        // Swoole creates the directory.
        let _ = std::fs::create_dir_all(&dir);
        c.upload_tmp_dir = dir;
    }
    if let Some(z) = get("http_compression") {
        c.http_compression = as_bool(class, "http_compression", z)?;
    }
    for key in [
        "http_compression_level",
        "compression_level",
        "http_gzip_level",
    ] {
        if let Some(z) = get(key) {
            // 1..9 for gzip/deflate, up to 11 for brotli (clamped per coding).
            c.http_compression_level = as_int(class, key, z, false)?.clamp(1, 11) as u32;
        }
    }
    for key in ["http_compression_types", "compression_types"] {
        if let Some(z) = get(key) {
            let Some(a) = z.array() else {
                return Err(wrong(class, key, "array", z));
            };
            let types: Vec<String> = a
                .values()
                .filter_map(|v| v.string())
                .map(|t| t.trim().to_ascii_lowercase())
                .collect();
            c.http_compression_types = Some(std::sync::Arc::from(types));
        }
    }
    for key in ["http_compression_min_length", "compression_min_length"] {
        if let Some(z) = get(key) {
            c.http_compression_min_length = as_int(class, key, z, true)?.max(0) as usize;
        }
    }
    if let Some(z) = get("document_root") {
        // Swoole keeps the realpath: the static handler's containment check
        // compares resolved paths with it.
        let root = PathBuf::from(as_str(class, "document_root", z)?);
        c.document_root = Some(std::fs::canonicalize(&root).unwrap_or(root));
    }
    if let Some(z) = get("enable_static_handler") {
        c.enable_static_handler = as_bool(class, "enable_static_handler", z)?;
    }
    for key in ["buffer_output_size", "output_buffer_size"] {
        if let Some(z) = get(key) {
            let n = as_int(class, key, z, true)?;
            c.output_buffer_size = Some(n.clamp(0, u32::MAX as i64) as usize);
        }
    }
    if let Some(z) = get("http_autoindex") {
        c.http_autoindex = z.bool().unwrap_or_else(|| z.long().is_some_and(|n| n != 0));
    }
    c.ws = ws_options(arr);
    if let Some(list) = get("http_index_files").and_then(Zval::array) {
        c.http_index_files = list.values().filter_map(Zval::string).collect();
    }
    if let Some(list) = get("static_handler_locations").and_then(Zval::array) {
        // Swoole keeps only entries starting with '/'.
        c.static_handler_locations = list
            .values()
            .filter_map(Zval::string)
            .filter(|l| l.starts_with('/'))
            .collect();
    }
    if let Some(rules) = get("url_rewrite_rules").and_then(Zval::array) {
        c.url_rewrite_rules = rules
            .iter()
            .filter_map(|(k, v)| {
                let key = match k {
                    ArrayKey::String(s) => s,
                    ArrayKey::Str(s) => s.to_string(),
                    ArrayKey::ZendString(s) => String::from_utf8_lossy(s.as_bytes()).into_owned(),
                    ArrayKey::Long(_) => return None,
                };
                crate::engine::config::RewriteRule::new(&key, &v.string()?)
            })
            .collect();
    }
    if let Some(z) = get("http_header_timeout") {
        let f = as_float(class, "http_header_timeout", z)?;
        if f > 0.0 {
            c.http_header_timeout = Duration::from_secs_f64(f);
        }
    }
    if let Some(z) = get("socket_buffer_size") {
        let n = as_int(class, "socket_buffer_size", z, true)?;
        // Swoole: 0 or less means no limit (INT_MAX).
        c.output_buffer_limit = if n > 0 { n as usize } else { i32::MAX as usize };
        c.ipc_buffer_size = (n > 0).then_some(n as usize);
    }
    if let Some(z) = get("buffer_high_watermark") {
        let n = as_int(class, "buffer_high_watermark", z, true)?;
        c.buffer_high_watermark = (n > 0).then_some(n as usize);
    }
    if let Some(z) = get("buffer_low_watermark") {
        c.buffer_low_watermark = as_int(class, "buffer_low_watermark", z, true)?.max(0) as usize;
    }
    if let Some(z) = get("send_yield") {
        c.send_yield = Some(as_bool(class, "send_yield", z)?);
    }
    if let Some(z) = get("send_timeout") {
        let f = as_float(class, "send_timeout", z)?;
        c.send_timeout = (f > 0.0).then(|| Duration::from_secs_f64(f));
    }
    if let Some(z) = get("http_body_timeout") {
        let f = as_float(class, "http_body_timeout", z)?;
        if f > 0.0 {
            c.http_body_timeout = Duration::from_secs_f64(f);
        }
    }
    // Swoole: each is clamped to [1, u32::MAX]; max_concurrency alone also
    // sets worker_max_concurrency.
    if let Some(z) = get("max_concurrency") {
        let n = as_int(class, "max_concurrency", z, false)?;
        c.max_concurrency = n.clamp(1, u32::MAX as i64) as u32;
        if get("worker_max_concurrency").is_none() && c.worker_max_concurrency == 0 {
            c.worker_max_concurrency = c.max_concurrency;
        }
    }
    if let Some(z) = get("worker_max_concurrency") {
        let n = as_int(class, "worker_max_concurrency", z, false)?;
        c.worker_max_concurrency = n.clamp(1, u32::MAX as i64) as u32;
    }
    if let Some(z) = get("http_body_buffer_size") {
        let n = as_int(class, "http_body_buffer_size", z, true)?;
        c.http_body_buffer_size = n.max(0) as usize;
    }
    if let Some(z) = get("http_max_header_size") {
        let n = as_int(class, "http_max_header_size", z, true)?;
        if n > 0 {
            // hyper needs room for at least one 8 KiB read.
            c.http_max_header_size = (n as usize).clamp(1024, 16 << 20);
        }
    }
    if let Some(z) = get("http_max_headers") {
        let n = as_int(class, "http_max_headers", z, false)?;
        if n > 0 {
            c.http_max_headers = (n as usize).min(1 << 16);
        }
    }
    if let Some(z) = get("log_file") {
        c.log_file = Some(as_str(class, "log_file", z)?);
    }
    for (key, slot) in [
        ("user", &mut c.user),
        ("group", &mut c.group),
        ("chroot", &mut c.chroot),
    ] {
        if let Some(z) = get(key) {
            let v = as_str(class, key, z)?;
            *slot = (!v.is_empty()).then_some(v);
        }
    }
    if let Some(z) = get("log_level") {
        c.log_level = as_int(class, "log_level", z, false)? as i32;
    }
    if let Some(z) = get("enable_coroutine") {
        c.enable_coroutine = as_bool(class, "enable_coroutine", z)?;
    }
    if let Some(z) = get("max_wait_time") {
        let f = as_float(class, "max_wait_time", z)?;
        if f > 0.0 {
            c.max_wait_time = Duration::from_secs_f64(f);
        }
    }
    if let Some(z) = get("enable_reuse_port") {
        c.enable_reuse_port = as_bool(class, "enable_reuse_port", z)?;
    }
    if let Some(z) = get("enable_delay_receive") {
        c.enable_delay_receive = as_bool(class, "enable_delay_receive", z)?;
    }
    if let Some(z) = get("reload_async") {
        c.reload_async = as_bool(class, "reload_async", z)?;
    }
    if let Some(z) = get("pid_file") {
        c.pid_file = Some(PathBuf::from(as_str(class, "pid_file", z)?));
    }
    if let Some(z) = get("reactor_num") {
        let n = as_int(class, "reactor_num", z, false)?;
        c.reactor_num = n.clamp(1, 4 * crate::engine::config::cpu_count() as i64) as usize;
    }
    if let Some(z) = get("dispatch_mode") {
        let n = as_int(class, "dispatch_mode", z, false)?;
        c.dispatch_mode = match n {
            1..=4 => n as u8,
            // Coroutine-count balancing per connection: the least busy
            // worker gets the connection, which stays there (a hash mode
            // in Swoole: connect/close events fire).
            8 => 8,
            // Coroutine-count balancing per message (the worker with the
            // fewest coroutines gets each message: engine::worker::dispatch).
            9 => 9,
            // The load-balancing modes (stream, concurrency): the
            // idle-worker mode is the nearest rswoole has.
            7 | 10 => {
                crate::rlog!(
                    Debug,
                    "dispatch_mode {n} is not supported by rswoole, using 3 (an idle worker)"
                );
                3
            }
            _ => {
                php_error(
                    &ErrorType::Warning,
                    &format!("dispatch_mode {n} is not supported by rswoole, using 2 (by fd)"),
                );
                2
            }
        };
    }
    if let Some(z) = get("max_request") {
        c.max_request = as_int(class, "max_request", z, false)?.max(0) as u64;
    }
    if let Some(z) = get("max_request_grace") {
        c.max_request_grace = Some(as_int(class, "max_request_grace", z, false)?.max(0) as u64);
    }
    if let Some(z) = get("task_max_request") {
        c.task_max_request = as_int(class, "task_max_request", z, false)?.max(0) as u64;
    }
    if let Some(z) = get("task_max_request_grace") {
        c.task_max_request_grace =
            Some(as_int(class, "task_max_request_grace", z, false)?.max(0) as u64);
    }
    if let Some(z) = get("max_worker_memory") {
        c.max_worker_memory = as_int(class, "max_worker_memory", z, true)?.max(0) as u64;
    }
    if let Some(z) = get("daemonize") {
        c.daemonize = as_bool(class, "daemonize", z)?;
    }
    if let Some(z) = get("task_worker_num") {
        c.task_worker_num = as_int(class, "task_worker_num", z, false)?.max(0) as usize;
    }
    if let Some(z) = get("task_enable_coroutine") {
        c.task_enable_coroutine = as_bool(class, "task_enable_coroutine", z)?;
    }
    for key in ["task_use_object", "task_object"] {
        if let Some(z) = get(key) {
            c.task_object = as_bool(class, key, z)?;
        }
    }
    if let Some(z) = get("event_object") {
        c.event_object = as_bool(class, "event_object", z)?;
        // As Swoole: event objects include the task's.
        c.task_object |= c.event_object;
    }
    if let Some(z) = get("task_ipc_mode") {
        c.task_ipc_mode = as_int(class, "task_ipc_mode", z, false)?;
    }
    if let Some(z) = get("message_queue_key") {
        c.message_queue_key = Some(as_int(class, "message_queue_key", z, false)?);
    }
    for key in ["socket_send_timeout", "socket_write_timeout"] {
        if let Some(z) = get(key) {
            let f = as_float(class, key, z)?;
            c.ipc_send_timeout = (f > 0.0).then(|| Duration::from_secs_f64(f));
        }
    }
    if let Some(z) = get("task_tmpdir") {
        let dir = PathBuf::from(as_str(class, "task_tmpdir", z)?);
        let _ = std::fs::create_dir_all(&dir);
        c.task_tmpdir = dir;
    }
    let secs = |key: &str| -> Result<Option<Duration>, PhpException> {
        match get(key) {
            Some(z) => {
                let f = as_float(class, key, z)?;
                Ok((f > 0.0).then(|| Duration::from_secs_f64(f)))
            }
            None => Ok(None),
        }
    };
    c.heartbeat_check_interval = secs("heartbeat_check_interval")?;
    c.heartbeat_idle_time = secs("heartbeat_idle_time")?;
    if get("request_timeout").is_some() {
        c.request_timeout = secs("request_timeout")?;
        super::watchdog::configure(c.request_timeout, false);
    }
    metrics_options(class, &get, &mut c)?;
    Ok(c)
}

/// `metrics_port`, `metrics` => ['host' =>, 'port' =>, 'path' =>] and
/// `metrics_buckets` (rswoole's own; docs/metrics.md).
fn metrics_options<'a>(
    class: &str,
    get: &dyn Fn(&str) -> Option<&'a Zval>,
    c: &mut ServerConfig,
) -> Result<(), PhpException> {
    use crate::engine::config::MetricsListen;
    let mut m = MetricsListen {
        host: "127.0.0.1".into(),
        port: 0,
        path: "/metrics".into(),
    };
    let mut on = false;
    if let Some(z) = get("metrics_port") {
        let p = as_int(class, "metrics_port", z, false)?;
        if p > 0 {
            m.port = p.clamp(0, 65535) as u16;
            on = true;
        }
    }
    if let Some(z) = get("metrics") {
        let Some(a) = z.array() else {
            return Err(wrong(class, "metrics", "array", z));
        };
        if let Some(h) = a.get("host").filter(|z| !z.is_null()) {
            m.host = as_str(class, "metrics.host", h)?;
        }
        if let Some(p) = a.get("port").filter(|z| !z.is_null()) {
            m.port = as_int(class, "metrics.port", p, false)?.clamp(0, 65535) as u16;
        }
        if let Some(p) = a.get("path").filter(|z| !z.is_null()) {
            let p = as_str(class, "metrics.path", p)?;
            m.path = if p.starts_with('/') {
                p
            } else {
                format!("/{p}")
            };
        }
        on = true;
    }
    if let Some(z) = get("metrics_buckets") {
        let Some(a) = z.array() else {
            return Err(wrong(class, "metrics_buckets", "array", z));
        };
        let mut b: Vec<f64> = a
            .values()
            .filter_map(|v| v.double().or_else(|| v.long().map(|n| n as f64)))
            .filter(|f| f.is_finite() && *f > 0.0)
            .collect();
        b.sort_by(f64::total_cmp);
        b.dedup();
        b.truncate(crate::engine::shared::stats::MAX_BUCKETS);
        c.metrics_buckets = b;
    }
    if on {
        c.metrics = Some(m);
    }
    Ok(())
}

/// A port's socket and framing options from its settings array (the
/// server's for the main port).
pub fn port_options(class: &str, arr: Option<&ZendHashTable>) -> Result<PortOptions, PhpException> {
    let mut o = PortOptions::default();
    let Some(arr) = arr else {
        return Ok(o);
    };
    let get = |k: &str| arr.get(k).filter(|z| !z.is_null());
    let flag = |k: &str| -> Result<bool, PhpException> {
        match get(k) {
            Some(z) => as_bool(class, k, z),
            None => Ok(false),
        }
    };
    let int = |k: &str| -> Result<Option<i64>, PhpException> {
        match get(k) {
            Some(z) => as_int(class, k, z, false).map(Some),
            None => Ok(None),
        }
    };
    let secs = |k: &str| -> Result<Option<Duration>, PhpException> {
        match get(k) {
            Some(z) => {
                let f = as_float(class, k, z)?;
                Ok((f > 0.0).then(|| Duration::from_secs_f64(f.max(0.001))))
            }
            None => Ok(None),
        }
    };
    o.max_idle_time = secs("max_idle_time")?;
    o.heartbeat_idle_time = secs("heartbeat_idle_time")?;
    if let Some(z) = get("package_max_length") {
        let n = as_int(class, "package_max_length", z, true)?;
        if n > 0 {
            o.package_max_length = n as usize;
        }
    }
    if let Some(z) = get("open_tcp_nodelay") {
        o.open_tcp_nodelay = as_bool(class, "open_tcp_nodelay", z)?;
    }
    if flag("open_tcp_keepalive")? {
        // Swoole's defaults: SW_TCP_KEEPIDLE, SW_TCP_KEEPINTERVAL, SW_TCP_KEEPCOUNT.
        let idle = int("tcp_keepidle")?.unwrap_or(3600).max(1) as u32;
        let interval = int("tcp_keepinterval")?.unwrap_or(60).max(1) as u32;
        let count = int("tcp_keepcount")?.unwrap_or(5).max(1) as u32;
        o.tcp_keepalive = Some((idle, interval, count));
    }
    for key in [
        "socket_buffer_size",
        "kernel_socket_recv_buffer_size",
        "kernel_socket_send_buffer_size",
    ] {
        if let Some(z) = get(key) {
            let n = as_int(class, key, z, true)?;
            if n > 0 {
                o.socket_buffer_size = Some(n as usize);
            }
        }
    }
    if flag("open_http2_protocol")? {
        let mut h = crate::engine::config::Http2Settings::default();
        let size = |k: &str| -> Result<Option<u32>, PhpException> {
            match get(k) {
                Some(z) => Ok(Some(
                    as_int(class, k, z, true)?.clamp(0, u32::MAX as i64) as u32
                )),
                None => Ok(None),
            }
        };
        h.header_table_size = size("http2_header_table_size")?;
        h.initial_window_size = match size("http2_init_window_size")? {
            Some(n) => Some(n),
            None => size("http2_initial_window_size")?,
        };
        h.max_concurrent_streams = size("http2_max_concurrent_streams")?;
        h.max_frame_size = size("http2_max_frame_size")?;
        h.max_header_list_size = size("http2_max_header_list_size")?;
        o.http2 = Some(h);
    }
    let eof_split = flag("open_eof_split")?;
    if flag("open_length_check")? {
        let letter = match get("package_length_type") {
            Some(z) => as_str(class, "package_length_type", z)?,
            None => "N".to_string(),
        };
        let kind = LengthType::from_letter(&letter).ok_or_else(|| {
            super::exception::swoole_exception(
                format!("unknown package_length_type name '{letter}', see pack(). Link: http://php.net/pack"),
                0,
            )
        })?;
        let length_offset = int("package_length_offset")?.unwrap_or(0).max(0) as usize;
        let body_offset = match int("package_body_offset")? {
            Some(n) => n,
            None => int("package_body_start")?.unwrap_or(0),
        }
        .max(0) as usize;
        o.framing = Framing::Length {
            kind,
            length_offset,
            body_offset,
        };
    } else if eof_split || flag("open_eof_check")? {
        let eof = match get("package_eof") {
            Some(z) => z
                .zend_str()
                .map(|s| s.as_bytes().to_vec())
                .ok_or_else(|| wrong(class, "package_eof", "string", z))?,
            None => b"\r\n".to_vec(),
        };
        if eof.is_empty() || eof.len() > 8 {
            return Err(super::exception::swoole_exception(
                "pacakge_eof max length is 8 and must not be empty",
                0,
            ));
        }
        o.framing = Framing::Eof {
            eof,
            split: eof_split,
        };
    } else if flag("open_mqtt_protocol")? {
        o.framing = Framing::Mqtt;
    }
    Ok(o)
}

/// True when `arr` carries a certificate of its own (`ssl_cert_file` or
/// `ssl_sni_certs`): a `listen()` port with one does not inherit the server's.
pub fn has_tls_cert(arr: Option<&ZendHashTable>) -> bool {
    arr.is_some_and(|a| a.get("ssl_cert_file").is_some() || a.get("ssl_sni_certs").is_some())
}

/// The `ssl_*` settings of a `SWOOLE_SSL` port.
pub fn tls_settings(class: &str, arr: Option<&ZendHashTable>) -> Result<TlsSettings, PhpException> {
    let mut t = TlsSettings::default();
    let Some(arr) = arr else {
        return Ok(t);
    };
    let get = |k: &str| arr.get(k).filter(|z| !z.is_null());
    let string = |k: &str| -> Result<Option<String>, PhpException> {
        get(k).map(|z| as_str(class, k, z)).transpose()
    };
    let files = |a: &ZendHashTable| -> Result<CertFiles, PhpException> {
        let f = |k: &str| -> Result<String, PhpException> {
            Ok(match a.get(k).filter(|z| !z.is_null()) {
                Some(z) => as_str(class, k, z)?,
                None => String::new(),
            })
        };
        Ok(CertFiles {
            cert_file: f("ssl_cert_file")?,
            key_file: f("ssl_key_file")?,
        })
    };
    t.cert = files(arr)?;
    if let Some(z) = get("ssl_protocols") {
        t.protocols = as_int(class, "ssl_protocols", z, false)?.max(0) as u32;
    }
    t.ciphers = string("ssl_ciphers")?;
    if let Some(z) = get("ssl_verify_peer") {
        t.verify_peer = as_bool(class, "ssl_verify_peer", z)?;
    }
    if let Some(z) = get("ssl_allow_self_signed") {
        t.allow_self_signed = as_bool(class, "ssl_allow_self_signed", z)?;
    }
    if let Some(z) = get("ssl_prefer_server_ciphers") {
        t.prefer_server_ciphers = as_bool(class, "ssl_prefer_server_ciphers", z)?;
    }
    t.client_cert_file = string("ssl_client_cert_file")?;
    if t.client_cert_file.is_none() {
        // Swoole verifies clients against ssl_cafile too.
        t.client_cert_file = string("ssl_cafile")?;
    }
    if let Some(z) = get("ssl_verify_depth") {
        t.verify_depth = Some(as_int(class, "ssl_verify_depth", z, false)?);
    }
    if let Some(z) = get("ssl_sni_certs") {
        let Some(map) = z.array() else {
            return Err(super::exception::swoole_exception(
                "ssl_sni_certs requires an array mapping host names to cert paths",
                0,
            ));
        };
        for (key, v) in map.iter() {
            let host = match key {
                ext_php_rs::types::ArrayKey::String(h) => h,
                ext_php_rs::types::ArrayKey::Str(h) => h.to_string(),
                _ => {
                    return Err(super::exception::swoole_exception(
                        "ssl_sni_certs array requires string host name keys",
                        0,
                    ))
                }
            };
            let Some(a) = v.array() else {
                return Err(super::exception::swoole_exception(
                    "invalid SNI_cert setting",
                    0,
                ));
            };
            t.sni.push((host, files(a)?));
        }
    }
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("2M"), Some(2 * 1024 * 1024));
        assert_eq!(parse_size("512k"), Some(512 * 1024));
        assert_eq!(parse_size("100"), Some(100));
        assert_eq!(parse_size("abc"), None);
    }
}
