//! `Swoole\WebSocket\Server`: an internal subclass of `Swoole\Http\Server`
//! (registered like it, see `http_server.rs`). Its methods (`push`,
//! `disconnect`, `isEstablished`) live on `Swoole\Server` and call the
//! helpers here, because an internal subclass cannot carry `#[php_impl]`
//! methods; its static `pack()`/`unpack()` are hand-written handlers
//! registered with the class (they touch no object).

use std::sync::OnceLock;

use bytes::Bytes;
use ext_php_rs::args::Arg;
use ext_php_rs::builders::FunctionBuilder;
use ext_php_rs::error::php_error;
use ext_php_rs::flags::{DataType, ErrorType, MethodFlags};
use ext_php_rs::types::{ZendStr, Zval};
use ext_php_rs::zend::{ClassEntry, ExecuteData};

use super::http_server::http_server_ce;
use super::CeRef;
use crate::engine::ws;

static WS_SERVER: OnceLock<CeRef> = OnceLock::new();

/// The class entry of `Swoole\WebSocket\Server`, once registered.
pub fn websocket_server_ce() -> Option<&'static ClassEntry> {
    WS_SERVER.get().map(|c| c.0)
}

/// Registers the class and its legacy alias; called once from module startup.
pub fn register_classes() -> ext_php_rs::error::Result<()> {
    let static_public = MethodFlags::Public | MethodFlags::Static;
    let pack = FunctionBuilder::new("pack", server_pack)
        .arg(Arg::new("data", DataType::Mixed))
        .not_required()
        .arg(Arg::new("opcode", DataType::Long).default("WEBSOCKET_OPCODE_TEXT"))
        .arg(Arg::new("flags", DataType::Long).default("SWOOLE_WEBSOCKET_FLAG_FIN"))
        .returns(DataType::String, false, false);
    let unpack =
        FunctionBuilder::new("unpack", server_unpack).arg(Arg::new("data", DataType::String));
    let ping = FunctionBuilder::new("ping", server_ping)
        .arg(Arg::new("fd", DataType::Long))
        .not_required()
        .arg(Arg::new("data", DataType::String).default("''"))
        .returns(DataType::Bool, false, false);
    let ce = super::internal_subclass_with(
        "Swoole\\WebSocket\\Server",
        (http_server_ce, "Swoole\\Http\\Server"),
        vec![
            (pack, static_public),
            (unpack, static_public),
            (ping, MethodFlags::Public),
        ],
    )?;
    let _ = WS_SERVER.set(CeRef(ce));
    super::allow_dynamic_properties(ce);
    super::class_alias("swoole_websocket_server", ce);
    Ok(())
}

// may_bail: no.
crate::php::ffi::php_fn!(throw fn server_pack(ex: &mut ExecuteData, retval: &mut Zval) => server_pack_body);
/// `Swoole\WebSocket\Server::pack($data, $opcode, $flags)`, static: the same
/// as `Frame::pack()`. A panic throws an `Error` (`php_fn!`).
fn server_pack_body(ex: &mut ExecuteData, retval: &mut Zval) {
    let mut data = Arg::new("data", DataType::Mixed);
    let mut opcode = Arg::new("opcode", DataType::Long);
    let mut flags = Arg::new("flags", DataType::Long);
    let parsed = ex
        .parser()
        .arg(&mut data)
        .not_required()
        .arg(&mut opcode)
        .arg(&mut flags)
        .parse();
    if parsed.is_err() {
        return;
    }
    let opcode = opcode.val::<i64>().unwrap_or(1);
    let flags = flags.val::<i64>().unwrap_or(1);
    let bytes = match data.zval() {
        Some(z) => super::websocket_frame::pack_zval(z, opcode, flags),
        None => Vec::new(),
    };
    retval.set_zend_string(ZendStr::new(&bytes, false));
}

// may_bail: no.
crate::php::ffi::php_fn!(throw fn server_unpack(ex: &mut ExecuteData, retval: &mut Zval) => server_unpack_body);
/// `Swoole\WebSocket\Server::unpack($data)`, static: a `Frame` or `false`.
fn server_unpack_body(ex: &mut ExecuteData, retval: &mut Zval) {
    let mut data = Arg::new("data", DataType::String);
    if ex.parser().arg(&mut data).parse().is_err() {
        return;
    }
    let bytes = data
        .zval()
        .and_then(|z| z.zend_str().map(|s| s.as_bytes().to_vec()))
        .unwrap_or_default();
    let out = super::websocket_frame::unpack_zval(&bytes);
    *retval = out;
}

// may_bail: no (a warning may run a user error handler, which throws at most).
crate::php::ffi::php_fn!(throw fn server_ping(ex: &mut ExecuteData, retval: &mut Zval) => server_ping_body);
/// `$server->ping($fd, $data = '')`: a ping frame to WebSocket connection
/// `$fd` (any worker's). It only needs the fd, so a plain handler does.
fn server_ping_body(ex: &mut ExecuteData, retval: &mut Zval) {
    let mut fd = Arg::new("fd", DataType::Long);
    let mut data = Arg::new("data", DataType::String);
    if ex
        .parser()
        .arg(&mut fd)
        .not_required()
        .arg(&mut data)
        .parse()
        .is_err()
    {
        return;
    }
    let fd = fd.val::<i64>().unwrap_or(0);
    let payload = data
        .zval()
        .and_then(|z| z.zend_str().map(|s| s.as_bytes().to_vec()))
        .unwrap_or_default();
    let ok = if payload.len() > 125 {
        php_error(
            &ErrorType::Warning,
            "websocket control frame payload must not exceed 125 bytes",
        );
        false
    } else {
        let ok = ws::push(fd, ws::OP_PING, ws::FLAG_FIN, Bytes::from(payload));
        if !ok {
            php_error(
                &ErrorType::Warning,
                &format!(
                    "the connected client of connection[{fd}] is not a websocket client or closed"
                ),
            );
        }
        ok
    };
    retval.set_bool(ok);
}

/// The bytes of `$data`: a string, a scalar as PHP casts it, or a frame
/// object's own opcode, flags and payload (a close frame's code apart).
#[allow(clippy::type_complexity)]
fn data_bytes(data: &Zval) -> Option<(Bytes, Option<(i64, i64, Option<u16>)>)> {
    if let Some(s) = data.zend_str() {
        return Some((Bytes::copy_from_slice(s.as_bytes()), None));
    }
    if let Some((opcode, flags, payload, code)) = super::websocket_frame::push_fields(data) {
        return Some((Bytes::from(payload), Some((opcode, flags, code))));
    }
    if let Some(n) = data.long() {
        return Some((Bytes::from(n.to_string()), None));
    }
    if let Some(d) = data.double() {
        return Some((Bytes::from(php_double_string(d)), None));
    }
    if let Some(b) = data.bool() {
        return Some((Bytes::from(if b { "1" } else { "" }), None));
    }
    if data.is_null() {
        return Some((Bytes::new(), None));
    }
    None
}

/// A float as PHP's `(string)` writes it (precision 17, shortest form).
fn php_double_string(d: f64) -> String {
    if d.is_finite() && d == d.trunc() && d.abs() < 1e15 {
        format!("{d:.0}")
    } else if d.is_nan() {
        "NAN".to_string()
    } else if d.is_infinite() {
        if d > 0.0 { "INF" } else { "-INF" }.to_string()
    } else {
        d.to_string()
    }
}

/// `$server->push($fd, $data, $opcode, $flags)`.
pub fn push(fd: i64, data: &Zval, opcode: i64, flags: i64) -> bool {
    // A string's frame is encoded from the string itself (no copy first):
    // a broadcast pushes once per connection.
    if let (Some(s), 0..=15) = (data.zend_str(), opcode) {
        if opcode as u8 != ws::OP_CLOSE {
            return push_frame(fd, s.as_bytes(), opcode as u8, (flags & 0xff) as u8);
        }
    }
    let Some((bytes, frame)) = data_bytes(data) else {
        php_error(&ErrorType::Warning, "the data must be a string");
        return false;
    };
    let (opcode, flags, close_code) = frame.unwrap_or((opcode, flags, None));
    if !(0..=15).contains(&opcode) {
        php_error(
            &ErrorType::Warning,
            &format!("the maximum value of opcode is 15, {opcode} given"),
        );
        return false;
    }
    let opcode = opcode as u8;
    let flags = (flags & 0xff) as u8;
    let ok = if let (true, Some(code)) = (opcode == ws::OP_CLOSE, close_code) {
        ws::disconnect(fd, code, bytes)
    } else if opcode == ws::OP_CLOSE {
        // A close payload as a string: its code and reason (no code:
        // WEBSOCKET_CLOSE_NORMAL), then the connection closes.
        let f = ws::close::CloseFrame::read(&bytes);
        ws::disconnect(fd, f.code, f.reason)
    } else {
        return push_frame(fd, &bytes, opcode, flags);
    };
    if !ok {
        not_websocket(fd);
    }
    ok
}

/// A data frame (not a close) with `payload` on `fd`: waits for room in a
/// full output buffer as `send_yield` says.
fn push_frame(fd: i64, payload: &[u8], opcode: u8, flags: u8) -> bool {
    let ok = loop {
        match ws::push_bounded(fd, opcode, flags, payload) {
            Ok(ok) => break ok,
            // Full: wait for room (send_yield) and push again, or fail
            // with Swoole's overflow warning and error.
            Err(flow) => {
                if !super::http_response::overflow(fd, Some(flow)) {
                    return false;
                }
            }
        }
    };
    if !ok {
        not_websocket(fd);
    }
    ok
}

/// `push()`'s warning for a connection that is not an open WebSocket one.
fn not_websocket(fd: i64) {
    php_error(
        &ErrorType::Warning,
        &format!("the connected client of connection[{fd}] is not a websocket client or closed"),
    );
}

/// `$server->disconnect($fd, $code, $reason)`.
pub fn disconnect(fd: i64, code: i64, reason: &str) -> bool {
    let code = code.clamp(0, 4999) as u16;
    ws::disconnect(fd, code, Bytes::copy_from_slice(reason.as_bytes()))
}

/// `$server->isEstablished($fd)`.
pub fn is_established(fd: i64) -> bool {
    ws::is_established(fd)
}

/// `$server->close($fd)` on a WebSocket connection (of any worker): a
/// normal close frame, then the close. False when `$fd` is not one.
pub fn close(fd: i64) -> bool {
    ws::close(fd)
}
