//! The native half of `Swoole\Coroutine\Http2\Client`: internal functions
//! (`Swoole\Coroutine\Http2\__h2_*`, not for user code) over
//! `engine::client::http2`, called by the PHP classes in
//! `library_http2.php` (`Client`, `Http2\Request`, `Http2\Response`).
//!
//! Only an integer handle crosses: the connections live in a per-process
//! table by handle. A wait (connect, a free stream slot, the next response)
//! runs on the loop through `coro::io::run`; no table borrow is held across
//! it. Errors come back as `[code, message]` arrays that the PHP side puts
//! into `errCode`/`errMsg`.

use std::cell::RefCell;
use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr, ToSocketAddrs};
use std::time::Duration;

use ext_php_rs::boxed::ZBox;
use ext_php_rs::prelude::*;
use ext_php_rs::types::{ZendHashTable, Zval};

use super::http_request::bytes_zval;
use crate::coro;
use crate::engine::client::http::parse_set_cookie;
use crate::engine::client::http2::{self as h2c, Client, Fail, Piece, Request, Settings, Taken};
use crate::engine::tls::client::TlsOptions;

/// The connections by handle, and the last handle given out.
#[derive(Default)]
struct Table {
    map: HashMap<i64, Client>,
    next: i64,
}

thread_local! {
    // Boxed: one pointer of static TLS (see tools/tls-check.sh).
    static CLIENTS: Box<RefCell<Table>> = Box::new(RefCell::new(Table::default()));
}

fn with<R>(h: i64, f: impl FnOnce(&mut Client) -> R) -> Option<R> {
    CLIENTS.with(|c| c.borrow_mut().map.get_mut(&h).map(f))
}

fn fail_zval(f: &Fail) -> Zval {
    let mut a = ZendHashTable::new();
    let _ = a.push(f.code as i64);
    let _ = a.push(bytes_zval(f.msg.as_bytes()));
    let mut z = Zval::new();
    z.set_hashtable(a);
    z
}

fn no_connection() -> Fail {
    Fail {
        code: h2c::ERR_NO_CONNECTION,
        msg: "Client no connection".into(),
    }
}

fn f64_of(z: &Zval) -> f64 {
    z.double()
        .or_else(|| z.long().map(|l| l as f64))
        .or_else(|| z.str().and_then(|s| s.trim().parse().ok()))
        .unwrap_or(0.0)
}

fn secs(f: f64) -> Option<Duration> {
    (f > 0.0 && f.is_finite()).then(|| Duration::from_secs_f64(f))
}

fn u32_of(z: &Zval) -> Option<u32> {
    let v = f64_of(z);
    (v > 0.0).then_some(v.min(u32::MAX as f64) as u32)
}

fn resolve(host: &str, port: u16) -> Result<SocketAddr, Fail> {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    if let Ok(ip) = host.parse::<IpAddr>() {
        return Ok(SocketAddr::new(ip, port));
    }
    if host.eq_ignore_ascii_case("localhost") {
        return Ok(SocketAddr::from(([127, 0, 0, 1], port)));
    }
    // Blocking getaddrinfo, as the HTTP/1 client (see docs/compat.md).
    (host, port)
        .to_socket_addrs()
        .ok()
        .and_then(|mut a| a.next())
        .ok_or_else(|| Fail {
            code: 704,
            msg: format!("DNS Lookup resolve failed, host: {host}"),
        })
}

/// Internal: connects; a handle, or `[errCode, errMsg]`.
#[php_function]
#[php(name = "Swoole\\Coroutine\\Http2\\__h2_connect")]
pub fn h2_connect(host: String, port: i64, ssl: bool, settings: &ZendHashTable) -> Zval {
    let mut tls = TlsOptions::default();
    let mut s = Settings::default();
    let mut timeout = 60.0_f64;
    let mut connect_timeout: Option<f64> = None;
    for (k, v) in settings.iter() {
        let key = k.to_string();
        if key.starts_with("ssl_") {
            super::socket_coro::tls_setting(&mut tls, &key, v);
            continue;
        }
        match key.as_str() {
            "timeout" => timeout = f64_of(v),
            "connect_timeout" => connect_timeout = Some(f64_of(v)),
            "http2_header_table_size" => s.header_table_size = u32_of(v),
            "http2_initial_window_size" => s.initial_window_size = u32_of(v),
            "http2_max_concurrent_streams" => s.max_concurrent_streams = u32_of(v),
            "http2_max_frame_size" => s.max_frame_size = u32_of(v),
            "http2_max_header_list_size" => s.max_header_list_size = u32_of(v),
            _ => {}
        }
    }
    let target = match h2c::unix_path(&host) {
        Some(path) => h2c::Target::Unix(path),
        None => match resolve(&host, port.clamp(0, 65535) as u16) {
            Ok(a) => h2c::Target::Tcp(a),
            Err(f) => return fail_zval(&f),
        },
    };
    let t = secs(connect_timeout.unwrap_or(timeout));
    let tls = ssl.then(|| {
        let name = tls.host_name.clone().filter(|n| !n.is_empty());
        (tls, name.unwrap_or_else(|| host.clone()))
    });
    let res = match coro::io::run(h2c::connect(target, t, tls, s)) {
        Ok(r) => r,
        Err(_) => return fail_zval(&no_connection()),
    };
    match res {
        Ok(c) => {
            let h = CLIENTS.with(|cl| {
                let mut t = cl.borrow_mut();
                t.next += 1;
                let h = t.next;
                t.map.insert(h, c);
                h
            });
            let mut z = Zval::new();
            z.set_long(h);
            z
        }
        Err(f) => fail_zval(&f),
    }
}

/// Internal: opens a stream; its id, or `[errCode, errMsg]`. `headers` is
/// a list of `[name, value]`.
#[php_function]
#[php(name = "Swoole\\Coroutine\\Http2\\__h2_send")]
#[allow(clippy::too_many_arguments)]
pub fn h2_send(
    h: i64,
    method: String,
    path: String,
    authority: String,
    headers: &ZendHashTable,
    body: &Zval,
    pipeline: bool,
    use_pipeline_read: bool,
    timeout: f64,
) -> Zval {
    let mut list = Vec::new();
    for (_, pair) in headers.iter() {
        let Some(p) = pair.array() else { continue };
        let (Some(k), Some(v)) = (p.get_index(0), p.get_index(1)) else {
            continue;
        };
        let k = k.str().unwrap_or_default().to_string();
        let v = v
            .zend_str()
            .map(|s| s.as_bytes().to_vec())
            .unwrap_or_default();
        list.push((k, v));
    }
    let req = Request {
        method,
        path,
        authority,
        headers: list,
        body: body
            .zend_str()
            .map(|s| s.as_bytes().to_vec())
            .unwrap_or_default(),
        pipeline,
        use_pipeline_read,
    };
    let fut = match with(h, |c| c.send(req, secs(timeout))) {
        None => return fail_zval(&no_connection()),
        Some(Err(f)) => return fail_zval(&f),
        Some(Ok(f)) => f,
    };
    let res = match coro::io::run(fut) {
        Ok(r) => r,
        Err(_) => return fail_zval(&no_connection()),
    };
    match res {
        Ok((sid, stream)) => {
            if with(h, |c| c.opened(sid, stream, use_pipeline_read)).is_none() {
                return fail_zval(&no_connection());
            }
            let mut z = Zval::new();
            z.set_long(sid as i64);
            z
        }
        Err(f) => fail_zval(&f),
    }
}

/// Internal: more body on a pipeline stream; true, or `[errCode, errMsg]`.
#[php_function]
#[php(name = "Swoole\\Coroutine\\Http2\\__h2_write")]
pub fn h2_write(h: i64, sid: i64, data: &Zval, end: bool) -> Zval {
    let data = data
        .zend_str()
        .map(|s| s.as_bytes().to_vec())
        .unwrap_or_default();
    let r = with(h, |c| {
        c.write(sid.clamp(0, u32::MAX as i64) as u32, data, end)
    })
    .unwrap_or_else(|| Err(no_connection()));
    match r {
        Ok(()) => {
            let mut z = Zval::new();
            z.set_bool(true);
            z
        }
        Err(f) => fail_zval(&f),
    }
}

fn piece_zval(p: Piece) -> Zval {
    let mut a = ZendHashTable::new();
    let _ = a.insert("streamId", p.stream_id as i64);
    let _ = a.insert("statusCode", p.status as i64);
    let _ = a.insert("pipeline", p.pipeline);
    if let Some(hs) = p.headers {
        let mut headers = ZendHashTable::new();
        let mut raw = ZendHashTable::new();
        let mut cookies = ZendHashTable::new();
        for (k, v) in hs {
            if k == "set-cookie" {
                let (name, value) = parse_set_cookie(&v);
                let _ = cookies.insert(name.as_str(), bytes_zval(&value));
                let _ = raw.push(bytes_zval(&v));
            }
            let _ = headers.insert(k.as_str(), bytes_zval(&v));
        }
        let _ = a.insert("headers", headers);
        let _ = a.insert("set_cookie_headers", raw);
        let _ = a.insert("cookies", cookies);
    }
    if let Some(d) = p.data {
        let _ = a.insert("data", bytes_zval(&d));
    }
    let mut z = Zval::new();
    z.set_hashtable(a);
    z
}

/// Internal: the next response (or piece, with `$pipeline_read`) as an
/// array with string keys; `[errCode, errMsg, closed]` on a timeout, a
/// closed connection or GOAWAY.
#[php_function]
#[php(name = "Swoole\\Coroutine\\Http2\\__h2_recv")]
pub fn h2_recv(h: i64, timeout: f64, pipeline_read: bool) -> Zval {
    let t = if timeout < 0.0 { None } else { secs(timeout) };
    loop {
        let Some((taken, wait)) = with(h, |c| {
            let taken = c.take(pipeline_read);
            (taken, h2c::wait(c, t))
        }) else {
            return fail_zval(&no_connection());
        };
        match taken {
            Some(Taken::Piece(p)) => return piece_zval(p),
            Some(Taken::GoAway(g)) => {
                CLIENTS.with(|c| c.borrow_mut().map.remove(&h));
                let mut z = fail_zval(&Fail {
                    code: g.code as i32,
                    msg: String::from_utf8_lossy(&g.debug).into_owned(),
                });
                if let Some(a) = z.array_mut() {
                    let _ = a.push(true);
                    let _ = a.push(g.last_stream_id as i64);
                }
                return z;
            }
            Some(Taken::Closed(f)) => {
                CLIENTS.with(|c| c.borrow_mut().map.remove(&h));
                let mut z = fail_zval(&f);
                if let Some(a) = z.array_mut() {
                    let _ = a.push(true);
                }
                return z;
            }
            None => {}
        }
        match coro::io::run(wait) {
            Ok(true) => continue,
            Ok(false) => {
                return fail_zval(&Fail {
                    code: h2c::ETIMEDOUT,
                    msg: crate::engine::client::http::strerror(h2c::ETIMEDOUT),
                })
            }
            Err(_) => return fail_zval(&no_connection()),
        }
    }
}

/// Internal: sends a PING.
#[php_function]
#[php(name = "Swoole\\Coroutine\\Http2\\__h2_ping")]
pub fn h2_ping(h: i64) -> bool {
    with(h, |c| c.ping()).unwrap_or(false)
}

/// Internal: no more requests (GOAWAY once the open streams end).
#[php_function]
#[php(name = "Swoole\\Coroutine\\Http2\\__h2_goaway")]
pub fn h2_goaway(h: i64) -> bool {
    with(h, |c| c.goaway()).unwrap_or(false)
}

/// Internal: closes and forgets the connection.
#[php_function]
#[php(name = "Swoole\\Coroutine\\Http2\\__h2_close")]
pub fn h2_close(h: i64) -> bool {
    let c = CLIENTS.with(|c| c.borrow_mut().map.remove(&h));
    match c {
        Some(mut c) => {
            c.close();
            true
        }
        None => false,
    }
}

/// Internal: whether stream `sid` (0: the connection) exists.
#[php_function]
#[php(name = "Swoole\\Coroutine\\Http2\\__h2_exists")]
pub fn h2_exists(h: i64, sid: i64) -> bool {
    with(h, |c| {
        c.alive() && (sid == 0 || c.stream_exists(sid.clamp(0, u32::MAX as i64) as u32))
    })
    .unwrap_or(false)
}

fn settings_table(s: &Settings) -> ZBox<ZendHashTable> {
    let mut a = ZendHashTable::new();
    for (k, v) in s.effective() {
        let _ = a.insert(k, v as i64);
    }
    a
}

/// Internal: `stats()`'s array; null when the handle is gone.
#[php_function]
#[php(name = "Swoole\\Coroutine\\Http2\\__h2_stats")]
pub fn h2_stats(h: i64) -> Zval {
    let mut z = Zval::new();
    let _ = with(h, |c| {
        let mut a = ZendHashTable::new();
        let _ = a.insert("current_stream_id", c.current_stream_id as i64);
        let _ = a.insert("last_stream_id", c.last_stream_id as i64);
        let _ = a.insert("local_settings", settings_table(&c.local_settings));
        let _ = a.insert("remote_settings", settings_table(&Settings::default()));
        let _ = a.insert("active_stream_num", c.active_streams() as i64);
        z.set_hashtable(a);
    });
    z
}

pub fn register(m: ModuleBuilder) -> ModuleBuilder {
    m.function(wrap_function!(h2_connect))
        .function(wrap_function!(h2_send))
        .function(wrap_function!(h2_write))
        .function(wrap_function!(h2_recv))
        .function(wrap_function!(h2_ping))
        .function(wrap_function!(h2_goaway))
        .function(wrap_function!(h2_close))
        .function(wrap_function!(h2_exists))
        .function(wrap_function!(h2_stats))
}
