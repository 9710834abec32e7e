//! Small Zval constructors and conversions shared by the class files (one
//! copy each, instead of one per file).

use bytes::Bytes;
use ext_php_rs::types::{ZendStr, Zval};

/// `false`.
pub fn false_zval() -> Zval {
    let mut z = Zval::new();
    z.set_bool(false);
    z
}

/// A PHP string holding exactly `b` (binary-safe).
pub fn bytes_zval(b: &[u8]) -> Zval {
    let mut z = Zval::new();
    z.set_zend_string(ZendStr::new(b, false));
    z
}

/// A string, int or float as bytes (PHP's string conversion of those);
/// None for anything else (bool, null, arrays, objects).
pub fn scalar_bytes(z: &Zval) -> Option<Bytes> {
    if let Some(s) = z.zend_str() {
        return Some(Bytes::copy_from_slice(s.as_bytes()));
    }
    if let Some(n) = z.long() {
        return Some(Bytes::from(n.to_string()));
    }
    if let Some(f) = z.double() {
        return Some(Bytes::from(f.to_string()));
    }
    None
}

/// Any scalar as bytes, as PHP converts it to a string (`true` is "1",
/// `false` and null are ""); None for arrays and objects.
pub fn string_bytes(z: &Zval) -> Option<Vec<u8>> {
    if let Some(b) = z.bool() {
        return Some(if b { b"1".to_vec() } else { Vec::new() });
    }
    if z.is_null() {
        return Some(Vec::new());
    }
    scalar_bytes(z).map(|b| b.to_vec())
}
