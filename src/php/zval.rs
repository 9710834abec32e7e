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

extern "C" {
    // ZEND_API zend_ulong ZEND_FASTCALL zend_string_hash_func(zend_string *str);
    fn zend_string_hash_func(s: *mut ext_php_rs::ffi::zend_string) -> u64;
}

/// The string keys of an array built on every call (`connection_info()`
/// once per connection of a broadcast): made once per process, persistent,
/// their hash computed, and added by reference (`zend_hash_add_new` takes a
/// reference; ours is never released, so they are never freed). A key
/// added by name costs ~350 instructions (hashing, a new string), one of
/// these ~40.
pub struct Keys(Vec<*mut ext_php_rs::ffi::zend_string>);

// SAFETY: the strings are written once, before the `Keys` is shared, and
// only read (hash set) afterwards; the only other writes are reference-count
// changes by the PHP thread that adds them to its arrays (rswoole runs
// PHP on one thread per process).
unsafe impl Send for Keys {}
// SAFETY: as for Send.
unsafe impl Sync for Keys {}

impl Keys {
    pub fn new(names: &[&str]) -> Keys {
        Keys(
            names
                .iter()
                .map(|n| {
                    let p: *mut ext_php_rs::ffi::zend_string =
                        ext_php_rs::boxed::ZBox::into_raw(ZendStr::new(n.as_bytes(), true)).cast();
                    // SAFETY: a live zend_string we own; the call stores its hash in it.
                    unsafe { zend_string_hash_func(p) };
                    p
                })
                .collect(),
        )
    }

    /// Adds `v` under key `i` to `ht`, which must not have that key yet.
    pub fn add(&self, ht: &mut ext_php_rs::types::ZendHashTable, i: usize, v: Zval) {
        let Some(&key) = self.0.get(i) else {
            return;
        };
        let mut v = std::mem::ManuallyDrop::new(v);
        // SAFETY: `ht` is a live array without this key (add_new is right);
        // the key is a live zend_string with its hash set, which PHP
        // addrefs; the value is moved into the array (not dropped here).
        unsafe {
            ext_php_rs::ffi::zend_hash_add_new(
                std::ptr::from_mut(ht),
                key,
                std::ptr::from_mut(&mut *v).cast(),
            );
        }
    }
}

/// An int.
pub fn long_zval(n: i64) -> Zval {
    let mut z = Zval::new();
    z.set_long(n);
    z
}

/// A float.
pub fn double_zval(d: f64) -> Zval {
    let mut z = Zval::new();
    z.set_double(d);
    z
}
