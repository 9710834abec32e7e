//! `Swoole\WebSocket\Frame` and `Swoole\WebSocket\CloseFrame` (what
//! `onMessage` gets), `pack()`/`unpack()` (also `WebSocket\Server`'s), and
//! the `WEBSOCKET_*` constants with Swoole 6.x's values.

use bytes::Bytes;
use ext_php_rs::convert::{FromZval, IntoZval};
use ext_php_rs::error::php_error;
use ext_php_rs::flags::DataType;
use ext_php_rs::flags::ErrorType;
use ext_php_rs::prelude::*;
use ext_php_rs::types::{ZendClassObject, ZendStr, Zval};

use crate::engine::ws;
use crate::engine::ws::close::{self, CloseFrame as Close};

/// Every `SWOOLE_WEBSOCKET_FLAG_*` bit.
const FLAGS_ALL: i64 = 0x3f;

/// The fields `pack()` reads from a frame object.
struct Fields {
    opcode: i64,
    flags: i64,
    finish: bool,
    data: Vec<u8>,
    code: i64,
}

/// A `Frame` or `CloseFrame` object's fields (read from the Rust side:
/// reading them as properties would warn about indirect modification).
fn frame_fields(obj: &ext_php_rs::types::ZendObject) -> Option<Fields> {
    frame_fields_inner(obj)
}

/// What `$server->push($fd, $frame)` sends for a frame object: its opcode,
/// its flags with FIN from `finish`, its payload (for a close frame the
/// code and reason), or `None` when `$data` is no frame object.
pub fn push_fields(data: &Zval) -> Option<(i64, i64, Vec<u8>, Option<u16>)> {
    let f = data.object().and_then(frame_fields)?;
    let flags = (f.flags & FLAGS_ALL & !1) | f.finish as i64;
    let is_close_frame = data
        .object()
        .and_then(ZendClassObject::<CloseFrame>::from_zend_obj)
        .is_some();
    let code = is_close_frame.then(|| f.code.clamp(0, 65535) as u16);
    Some((f.opcode, flags, f.data, code))
}

fn frame_fields_inner(obj: &ext_php_rs::types::ZendObject) -> Option<Fields> {
    if let Some(f) = ZendClassObject::<Frame>::from_zend_obj(obj) {
        return Some(Fields {
            opcode: f.opcode,
            flags: f.flags,
            finish: f.finish,
            data: f.data.0.clone(),
            // A plain `Frame` has no `code`: Swoole's FrameObject default.
            code: close::NORMAL as i64,
        });
    }
    let c = ZendClassObject::<CloseFrame>::from_zend_obj(obj)?;
    Some(Fields {
        opcode: c.opcode,
        flags: c.flags,
        finish: c.finish,
        data: c.reason.0.clone(),
        code: c.code,
    })
}

/// `pack($data, $opcode, $flags)` as Swoole's `FrameObject` reads it: a
/// string with the given opcode and flags, or a frame object's own
/// `opcode`, `flags`, `finish` and `data` (`code` and `reason` for a close
/// frame). Warns and returns an empty string for a bad opcode or payload.
pub fn pack_zval(data: &Zval, opcode: i64, flags: i64) -> Vec<u8> {
    let fields = match data.object().and_then(frame_fields) {
        Some(f) => {
            let flags = (f.flags & FLAGS_ALL & !1) | f.finish as i64;
            if f.opcode == ws::OP_CLOSE as i64 {
                Fields { flags, ..f }
            } else {
                Fields {
                    flags,
                    code: 0,
                    ..f
                }
            }
        }
        None => {
            let bytes = match data.zend_str() {
                Some(s) => s.as_bytes().to_vec(),
                None => data.string().map(String::into_bytes).unwrap_or_default(),
            };
            Fields {
                opcode,
                flags: flags & FLAGS_ALL,
                finish: flags & 1 != 0,
                data: bytes,
                code: 0,
            }
        }
    };
    if !(0..=15).contains(&fields.opcode) {
        php_error(&ErrorType::Warning, "opcode must be between 0 and 15");
        return Vec::new();
    }
    let code = fields.code.clamp(0, 65535) as u16;
    match ws::pack(fields.opcode as u8, fields.flags as u8, &fields.data, code) {
        Ok(frame) => frame.to_vec(),
        Err(msg) => {
            php_error(&ErrorType::Warning, msg);
            Vec::new()
        }
    }
}

/// `unpack($data)`: a `Frame` (a `CloseFrame` for a close frame) with `fd`
/// 0, or `false` when `$data` does not hold one whole frame.
pub fn unpack_zval(data: &[u8]) -> Zval {
    let Some((frame, flags)) = ws::unpack(data) else {
        return false.into_zval(false).unwrap_or_default();
    };
    let obj = if frame.opcode == ws::OP_CLOSE {
        ZendClassObject::new(CloseFrame::message(0, &frame.payload, flags)).into_zval(false)
    } else {
        ZendClassObject::new(Frame::message(0, &frame.payload, frame.opcode, flags))
            .into_zval(false)
    };
    obj.unwrap_or_default()
}

/// A binary-safe PHP string property (`$frame->data`).
#[derive(Clone, Default)]
pub struct Bin(pub Vec<u8>);

impl FromZval<'_> for Bin {
    const TYPE: DataType = DataType::String;

    fn from_zval(zval: &Zval) -> Option<Self> {
        if let Some(s) = zval.zend_str() {
            return Some(Bin(s.as_bytes().to_vec()));
        }
        zval.string().map(|s| Bin(s.into_bytes()))
    }
}

impl IntoZval for Bin {
    const TYPE: DataType = DataType::String;
    const NULLABLE: bool = false;

    fn set_zval(self, zv: &mut Zval, persistent: bool) -> ext_php_rs::error::Result<()> {
        zv.set_zend_string(ZendStr::new(&self.0, persistent));
        Ok(())
    }
}

/// `Swoole\WebSocket\Frame`: one message.
#[php_class]
#[php(name = "Swoole\\WebSocket\\Frame")]
pub struct Frame {
    #[php(prop)]
    pub fd: i64,
    #[php(prop)]
    pub data: Bin,
    #[php(prop)]
    pub opcode: i64,
    #[php(prop)]
    pub flags: i64,
    #[php(prop)]
    pub finish: bool,
}

impl Frame {
    pub fn message(fd: i64, data: &[u8], opcode: u8, flags: u8) -> Self {
        Frame {
            fd,
            data: Bin(data.to_vec()),
            opcode: opcode as i64,
            flags: flags as i64,
            finish: flags & 1 != 0,
        }
    }
}

#[php_impl]
impl Frame {
    pub fn __construct() -> Self {
        Frame {
            fd: 0,
            data: Bin::default(),
            opcode: 1,
            flags: 1,
            finish: true,
        }
    }

    /// The frame packed (Swoole's `__toString`), e.g. for `$server->send()`.
    pub fn __to_string(&self) -> Bin {
        let flags = (self.flags & FLAGS_ALL & !1) | self.finish as i64;
        let opcode = self.opcode.clamp(0, 15) as u8;
        Bin(ws::pack(opcode, flags as u8, &self.data.0, 0)
            .map(|f| f.to_vec())
            .unwrap_or_default())
    }

    /// `Frame::pack($data, $opcode, $flags)`: one frame's bytes.
    #[php(defaults(opcode = 1, flags = 1))]
    pub fn pack(data: &Zval, opcode: i64, flags: i64) -> Bin {
        Bin(pack_zval(data, opcode, flags))
    }

    /// `Frame::unpack($data)`: a `Frame`, or `false`.
    pub fn unpack(data: Bin) -> Zval {
        unpack_zval(&data.0)
    }
}

/// `Swoole\WebSocket\CloseFrame`: a close frame with its code and reason.
/// A subclass of `Frame` as in Swoole (`Frame $frame` parameters take it);
/// it has its own Rust object and overrides every instance method.
#[php_class]
#[php(name = "Swoole\\WebSocket\\CloseFrame")]
#[php(extends(Frame))]
pub struct CloseFrame {
    #[php(prop)]
    pub fd: i64,
    #[php(prop)]
    pub data: Bin,
    #[php(prop)]
    pub opcode: i64,
    #[php(prop)]
    pub flags: i64,
    #[php(prop)]
    pub finish: bool,
    #[php(prop)]
    pub code: i64,
    /// Binary-safe, as Swoole keeps the bytes of a peer's reason.
    #[php(prop)]
    pub reason: Bin,
}

impl CloseFrame {
    /// A peer's close frame: `code` and `reason` read from its payload as
    /// Swoole 6.2.2 reads them (`close::CloseFrame::read`: a payload without
    /// a code reads as `WEBSOCKET_CLOSE_NORMAL`), `data` empty.
    pub fn message(fd: i64, payload: &[u8], flags: u8) -> Self {
        let Close { code, reason } = Close::read(&Bytes::copy_from_slice(payload));
        CloseFrame {
            fd,
            data: Bin::default(),
            opcode: 8,
            flags: flags as i64,
            finish: flags & 1 != 0,
            code: code as i64,
            reason: Bin(reason.to_vec()),
        }
    }
}

#[php_impl]
impl CloseFrame {
    pub fn __construct() -> Self {
        CloseFrame {
            fd: 0,
            data: Bin::default(),
            opcode: 8,
            flags: 1,
            finish: true,
            code: close::NORMAL as i64,
            reason: Bin::default(),
        }
    }

    /// The close frame packed, with `code` and `reason`.
    pub fn __to_string(&self) -> Bin {
        let code = self.code.clamp(0, 65535) as u16;
        Bin(ws::pack(ws::OP_CLOSE, ws::FLAG_FIN, &self.reason.0, code)
            .map(|f| f.to_vec())
            .unwrap_or_default())
    }
}

/// `unset($frame->data)` and its siblings: Swoole's frames are plain
/// objects whose properties may be unset, and an absent one packs as its
/// empty value. Here the property stays (its value lives in Rust) and
/// takes that value: `data`/`reason` empty, `opcode`/`flags`/`fd` 0,
/// `code` 1000, `finish` the FIN bit of `flags`.
///
/// # Safety
/// The arguments PHP passes to an `unset_property` handler.
unsafe fn frame_unset_body(
    object: *mut ext_php_rs::ffi::zend_object,
    member: *mut ext_php_rs::ffi::zend_string,
    cache_slot: *mut *mut std::ffi::c_void,
) {
    // SAFETY: PHP passes a live object and member name.
    let (obj, name) = unsafe { (&mut *object, crate::php::zstr_bytes(member)) };
    // The fields `Frame` and `CloseFrame` share take their empty value;
    // false for a name neither backs.
    macro_rules! reset_shared {
        ($f:expr) => {
            match name {
                b"fd" => $f.fd = 0,
                b"data" => $f.data = Bin::default(),
                b"opcode" => $f.opcode = 0,
                b"flags" => $f.flags = 0,
                b"finish" => $f.finish = $f.flags & 1 != 0,
                _ => return false,
            }
        };
    }
    let mut reset = || -> bool {
        if let Some(f) = ZendClassObject::<Frame>::from_zend_obj_mut(obj) {
            reset_shared!(f);
        } else if let Some(c) = ZendClassObject::<CloseFrame>::from_zend_obj_mut(obj) {
            match name {
                b"code" => c.code = close::NORMAL as i64,
                b"reason" => c.reason = Bin::default(),
                _ => reset_shared!(c),
            }
        } else {
            return false;
        }
        true
    };
    let done = reset();
    if !done {
        // No cache slot: for an object without a Rust frame behind it (none
        // is made so, but ext-php-rs allows it) the name may be a Rust
        // property's, whose place the engine must not cache.
        let _ = cache_slot;
        // SAFETY: the object and name PHP gave this handler; a null cache
        // slot is allowed.
        unsafe { ext_php_rs::ffi::zend_std_unset_property(object, member, std::ptr::null_mut()) };
    }
}

// may_bail: no.
crate::php::ffi::php_fn!(throw unsafe fn frame_unset(
    object: *mut ext_php_rs::ffi::zend_object,
    member: *mut ext_php_rs::ffi::zend_string,
    cache_slot: *mut *mut std::ffi::c_void,
) => frame_unset_body);

/// After the classes exist: frames' properties may be unset.
pub fn after_classes() {
    crate::php::set_unset_handler::<Frame>(frame_unset);
    crate::php::set_unset_handler::<CloseFrame>(frame_unset);
}

pub fn register(module: ModuleBuilder) -> ModuleBuilder {
    let both: &[(&str, i64)] = &[
        ("WEBSOCKET_OPCODE_CONTINUATION", 0),
        ("WEBSOCKET_OPCODE_TEXT", 1),
        ("WEBSOCKET_OPCODE_BINARY", 2),
        ("WEBSOCKET_OPCODE_CLOSE", 8),
        ("WEBSOCKET_OPCODE_PING", 9),
        ("WEBSOCKET_OPCODE_PONG", 10),
        ("WEBSOCKET_STATUS_CONNECTION", 1),
        ("WEBSOCKET_STATUS_HANDSHAKE", 2),
        ("WEBSOCKET_STATUS_ACTIVE", 3),
        ("WEBSOCKET_STATUS_CLOSING", 4),
    ];
    let plain: &[(&str, i64)] = &[
        ("WEBSOCKET_STATUS_FRAME", 3),
        ("WEBSOCKET_STATUS_HANDSHAKE_FAILED", 5),
        ("SWOOLE_WEBSOCKET_FLAG_FIN", 1),
        ("SWOOLE_WEBSOCKET_FLAG_COMPRESS", 2),
        ("SWOOLE_WEBSOCKET_FLAG_RSV1", 4),
        ("SWOOLE_WEBSOCKET_FLAG_RSV2", 8),
        ("SWOOLE_WEBSOCKET_FLAG_RSV3", 16),
        ("SWOOLE_WEBSOCKET_FLAG_MASK", 32),
    ];
    let mut m = module.class::<Frame>().class::<CloseFrame>();
    for (name, value) in both {
        m = m.constant((*name, *value, &[]));
        m = m.constant((format!("SWOOLE_{name}").as_str(), *value, &[]));
    }
    // `WEBSOCKET_CLOSE_*` and `SWOOLE_WEBSOCKET_CLOSE_*`: the engine's codes.
    for (name, code) in close::SWOOLE_NAMES {
        let value = code as i64;
        m = m.constant((format!("WEBSOCKET_CLOSE_{name}").as_str(), value, &[]));
        m = m.constant((
            format!("SWOOLE_WEBSOCKET_CLOSE_{name}").as_str(),
            value,
            &[],
        ));
    }
    for (name, value) in plain {
        m = m.constant((*name, *value, &[]));
    }
    m
}
