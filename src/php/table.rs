//! `Swoole\Table`: a fixed-size table of typed rows in shared memory, over
//! `engine::shared::table`. PHP values are converted to plain bytes before a row lock
//! is taken and rows are copied out before PHP values are built, so no PHP
//! code (a `__toString`, an error handler, a fatal error) ever runs while a
//! row lock is held.
//!
//! Swoole's exact parameter and return types (ext-php-rs declares `mixed`
//! for a `&Zval`) come from `arginfo.rs`, like every class's, so user
//! subclasses with Swoole's signatures (Octane's `SwooleTable`) load.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use super::zval::false_zval;
use ext_php_rs::class::RegisteredClass;
use ext_php_rs::error::php_error;
use ext_php_rs::flags::ErrorType;
use ext_php_rs::prelude::*;
use ext_php_rs::types::{ZendHashTable, Zval};
use ext_php_rs::zend::{ce, ClassEntry};

use crate::engine::shared::table::{
    self as et, clip_key, ColumnType, Cursor, IncrError, RowCopy, Schema, Value, KEY_MAX,
};

extern "C" {
    // ZEND_API zend_long ZEND_FASTCALL zval_get_long_func(zval *op, bool is_strict);
    fn zval_get_long_func(op: *mut ext_php_rs::ffi::zval, is_strict: bool) -> i64;
    // ZEND_API double ZEND_FASTCALL zval_get_double_func(zval *op);
    fn zval_get_double_func(op: *mut ext_php_rs::ffi::zval) -> f64;
    // ZEND_API zend_string* ZEND_FASTCALL zval_get_string_func(zval *op);
    fn zval_get_string_func(op: *mut ext_php_rs::ffi::zval) -> *mut ext_php_rs::ffi::zend_string;
}

/// PHP's `(int)` conversion of any value.
pub fn zval_to_long(z: &Zval) -> i64 {
    if let Some(l) = z.long() {
        return l;
    }
    // SAFETY: `z` is a live zval; the function only reads it (objects may
    // run their cast handler, which is fine outside any lock).
    unsafe { zval_get_long_func(std::ptr::from_ref(z).cast_mut().cast(), false) }
}

/// PHP's `(float)` conversion of any value.
pub fn zval_to_double(z: &Zval) -> f64 {
    if let Some(d) = z.double() {
        return d;
    }
    // SAFETY: as in `zval_to_long`.
    unsafe { zval_get_double_func(std::ptr::from_ref(z).cast_mut().cast()) }
}

/// PHP's `(string)` conversion of any value, as bytes.
pub fn zval_to_bytes(z: &Zval) -> Vec<u8> {
    if let Some(s) = z.zend_str() {
        return s.as_bytes().to_vec();
    }
    // SAFETY: `z` is live; the returned zend_string is owned by us (refcount
    // 1 or interned) and released through ZBox.
    unsafe {
        let s = zval_get_string_func(std::ptr::from_ref(z).cast_mut().cast());
        if s.is_null() {
            return Vec::new();
        }
        let owned = ext_php_rs::boxed::ZBox::from_raw(s.cast::<ext_php_rs::types::ZendStr>());
        owned.as_bytes().to_vec()
    }
}

fn warn(msg: &str) {
    php_error(&ErrorType::Warning, msg);
}

/// Swoole's fatal error for a table used before `create()` or after
/// `destroy()`. Does not return (PHP bails out).
fn not_created() {
    php_error(
        &ErrorType::Error,
        "table is not created or has been destroyed",
    );
}

/// The key argument as bytes: strings as they are (borrowed), ints and
/// other scalars converted (Swoole declares `string $key`).
fn key_bytes(key: &Zval) -> std::borrow::Cow<'_, [u8]> {
    match key.zend_str() {
        Some(s) => std::borrow::Cow::Borrowed(s.as_bytes()),
        None => std::borrow::Cow::Owned(zval_to_bytes(key)),
    }
}

fn value_zval(v: Value<'_>) -> Zval {
    let mut z = Zval::new();
    match v {
        Value::Int(i) => z.set_long(i),
        Value::Float(f) => z.set_double(f),
        Value::Str(s) => z.set_zend_string(ext_php_rs::types::ZendStr::new(s, false)),
    }
    z
}

fn null_zval() -> Zval {
    let mut z = Zval::new();
    z.set_null();
    z
}

/// Column names as zend strings with their hash computed: the keys of the
/// arrays `get()` and `current()` build (added by reference, no hashing or
/// copying per row), and a hash-first column lookup for `set()`.
#[derive(Default)]
struct ColKeys {
    keys: Vec<ext_php_rs::boxed::ZBox<ext_php_rs::types::ZendStr>>,
    hashes: Vec<u64>,
}

extern "C" {
    // ZEND_API zend_ulong ZEND_FASTCALL zend_string_hash_func(zend_string *str);
    fn zend_string_hash_func(s: *mut ext_php_rs::ffi::zend_string) -> u64;
}

impl ColKeys {
    fn new(schema: &Schema) -> ColKeys {
        let mut k = ColKeys::default();
        for c in schema.columns() {
            let z = ext_php_rs::types::ZendStr::new(c.name.as_bytes(), false);
            // SAFETY: a live zend_string we own; the call stores its hash in it.
            let h = unsafe { zend_string_hash_func(std::ptr::from_ref(&*z).cast_mut().cast()) };
            k.keys.push(z);
            k.hashes.push(h);
        }
        k
    }

    /// The column named `name` whose zend hash is `h`.
    fn find(&self, schema: &Schema, name: &[u8], h: u64) -> Option<usize> {
        for (i, x) in self.hashes.iter().enumerate() {
            if *x == h && schema.columns()[i].name.as_bytes() == name {
                return Some(i);
            }
        }
        None
    }
}

fn row_zval(schema: &Schema, data: &[u8], keys: &ColKeys) -> Zval {
    let n = schema.columns().len();
    let mut ht = ZendHashTable::with_capacity(n as u32);
    if keys.keys.len() != n {
        for (i, c) in schema.columns().iter().enumerate() {
            let _ = ht.insert(c.name.as_str(), value_zval(schema.value(data, i)));
        }
    } else {
        let htp: *mut ext_php_rs::ffi::HashTable = std::ptr::from_mut(&mut *ht);
        for (i, key) in keys.keys.iter().enumerate() {
            let mut z = std::mem::ManuallyDrop::new(value_zval(schema.value(data, i)));
            // SAFETY: `htp` is the new array (distinct keys, so add_new is
            // right); the key is a live zend_string with its hash set, which
            // PHP addrefs; the value is moved into the array (not dropped here).
            unsafe {
                ext_php_rs::ffi::zend_hash_add_new(
                    htp,
                    std::ptr::from_ref(&**key).cast_mut().cast(),
                    std::ptr::from_mut(&mut *z).cast(),
                );
            }
        }
    }
    let mut z = Zval::new();
    z.set_hashtable(ht);
    z
}

/// An array key, borrowed.
enum Key<'a> {
    Int(i64),
    /// The key and its zend hash.
    Str(&'a [u8], u64),
}

/// Visits every entry of `ht` in order, keys borrowed (ext-php-rs's
/// iterator copies each string key into a `String`).
fn for_each_entry<'a>(ht: &'a ZendHashTable, mut f: impl FnMut(Key<'a>, &'a Zval)) {
    const HASH_FLAG_PACKED: u32 = 1 << 2;
    // SAFETY: `ht` is a live array for 'a and is not modified while we walk
    // it (no PHP code runs in `f`'s callers' conversions that could touch a
    // value array passed by value). Packed arrays hold `nNumUsed` zvals,
    // others `nNumUsed` Buckets; IS_UNDEF slots are holes.
    unsafe {
        let n = ht.nNumUsed as usize;
        if ht.u.flags & HASH_FLAG_PACKED != 0 {
            let p = ht.__bindgen_anon_1.arPacked;
            for i in 0..n {
                let z = &*p.add(i).cast::<Zval>();
                if z.u1.type_info & 0xff != ext_php_rs::ffi::IS_UNDEF {
                    f(Key::Int(i as i64), z.dereference());
                }
            }
        } else {
            let p = ht.__bindgen_anon_1.arData;
            for i in 0..n {
                let b = &*p.add(i);
                let z = &*std::ptr::from_ref(&b.val).cast::<Zval>();
                if z.u1.type_info & 0xff == ext_php_rs::ffi::IS_UNDEF {
                    continue;
                }
                let key = if b.key.is_null() {
                    Key::Int(b.h as i64)
                } else {
                    Key::Str(
                        (*b.key.cast::<ext_php_rs::types::ZendStr>()).as_bytes(),
                        b.h,
                    )
                };
                f(key, z.dereference());
            }
        }
    }
}

/// The column values of one `set()`, on the stack for up to 16 columns.
struct Values<'a> {
    inline: [(usize, Value<'a>); 16],
    n: usize,
    more: Vec<(usize, Value<'a>)>,
}

impl Default for Values<'_> {
    fn default() -> Self {
        Values {
            inline: [(0, Value::Int(0)); 16],
            n: 0,
            more: Vec::new(),
        }
    }
}

impl<'a> Values<'a> {
    fn push(&mut self, v: (usize, Value<'a>)) {
        if self.n < self.inline.len() && self.more.is_empty() {
            self.inline[self.n] = v;
            self.n += 1;
        } else {
            if self.more.is_empty() {
                self.more.extend_from_slice(&self.inline[..self.n]);
            }
            self.more.push(v);
        }
    }

    fn as_slice(&self) -> &[(usize, Value<'a>)] {
        if self.more.is_empty() {
            &self.inline[..self.n]
        } else {
            &self.more
        }
    }
}

#[derive(Default)]
struct IterState {
    cursor: Cursor,
    current: Option<RowCopy>,
}

#[php_class]
#[php(name = "Swoole\\Table")]
#[php(implements(ce = ce::iterator, stub = "\\Iterator"))]
#[php(implements(ce = ce::countable, stub = "\\Countable"))]
pub struct Table {
    requested: i64,
    schema: RefCell<Schema>,
    table: RefCell<Option<Rc<et::Table>>>,
    destroyed: Cell<bool>,
    size: Cell<Option<i64>>,
    memory_size: Cell<Option<i64>>,
    iter: RefCell<IterState>,
    /// Reused for the row copies `get()` takes.
    buf: RefCell<Vec<u8>>,
    keys: RefCell<ColKeys>,
}

impl Table {
    /// The table, if created and not destroyed (here or in any process
    /// sharing it); otherwise Swoole's fatal error.
    fn created(&self) -> Option<Rc<et::Table>> {
        let t = self.live();
        if t.is_none() {
            not_created();
        }
        t
    }

    fn live(&self) -> Option<Rc<et::Table>> {
        self.table.borrow().clone().filter(|t| !t.is_destroyed())
    }

    fn incr_by(&self, key: &[u8], column: &str, by: Option<&Zval>, sign: f64, op: &str) -> Zval {
        let Some(t) = self.created() else {
            return false_zval();
        };
        let Some(col) = t.schema().find(column.as_bytes()) else {
            warn(&format!("column[{column}] does not exist"));
            return false_zval();
        };
        let delta = match t.schema().columns()[col].ty {
            ColumnType::Int => Value::Int(by.map_or(1, zval_to_long).wrapping_mul(sign as i64)),
            ColumnType::Float => Value::Float(by.map_or(1.0, zval_to_double) * sign),
            ColumnType::Str => {
                warn(&format!("can't execute '{op}' on a string type column"));
                return false_zval();
            }
        };
        match t.incr(key, col, delta) {
            Ok(v) => value_zval(v),
            Err(IncrError::Full) => {
                warn(&format!(
                    "unable to allocate memory: the table is full (size={})",
                    t.capacity()
                ));
                false_zval()
            }
            Err(IncrError::NoColumn) => {
                warn(&format!("column[{column}] does not exist"));
                false_zval()
            }
            Err(IncrError::StringColumn) => {
                warn(&format!("can't execute '{op}' on a string type column"));
                false_zval()
            }
        }
    }

    fn set_impl(&self, key: &[u8], value: &ZendHashTable) -> bool {
        let Some(t) = self.created() else {
            return false;
        };
        if key.len() > KEY_MAX {
            warn(&format!(
                "key[{}] is too long",
                String::from_utf8_lossy(key)
            ));
        }
        // Convert every value first: no PHP code runs under the row lock.
        // Strings are borrowed from the array; other values converted to a
        // string are kept in `owned`.
        let schema = t.schema();
        let mut owned: Vec<(usize, Vec<u8>)> = Vec::new();
        let mut values = Values::default();
        for_each_entry(value, |k, v| {
            let col = match k {
                Key::Int(i) => schema.find(i.to_string().as_bytes()),
                Key::Str(s, h) => {
                    let keys = self.keys.borrow();
                    keys.find(schema, s, h).or_else(|| schema.find(s))
                }
            };
            let Some(col) = col else { return };
            match schema.columns()[col].ty {
                ColumnType::Int => values.push((col, Value::Int(zval_to_long(v)))),
                ColumnType::Float => values.push((col, Value::Float(zval_to_double(v)))),
                ColumnType::Str => match v.zend_str() {
                    Some(s) => values.push((col, Value::Str(s.as_bytes()))),
                    None => owned.push((col, zval_to_bytes(v))),
                },
            }
        });
        for (c, s) in &owned {
            values.push((*c, Value::Str(s)));
        }
        match t.set(key, values.as_slice()) {
            Ok(cut) => {
                if !cut.is_empty() {
                    let shown = String::from_utf8_lossy(clip_key(key)).into_owned();
                    for c in cut {
                        warn(&format!(
                            "[key={shown},field={}]string value is too long",
                            schema.columns()[c].name
                        ));
                    }
                }
                true
            }
            Err(et::Full) => {
                warn(&format!(
                    "failed to set('{}'), unable to allocate memory: the table is full (size={})",
                    String::from_utf8_lossy(clip_key(key)),
                    t.capacity()
                ));
                false
            }
        }
    }

    fn get_impl(&self, key: &[u8], field: Option<&[u8]>) -> Zval {
        let Some(t) = self.created() else {
            return false_zval();
        };
        let mut data = self.buf.borrow_mut();
        if !t.get(key, &mut data) {
            return false_zval();
        }
        match field {
            Some(f) => match t.schema().find(f) {
                Some(i) => value_zval(t.schema().value(&data, i)),
                None => false_zval(),
            },
            None => row_zval(t.schema(), &data, &self.keys.borrow()),
        }
    }

    fn advance(&self) {
        let Some(t) = self.created() else {
            return;
        };
        let mut it = self.iter.borrow_mut();
        let mut row = it.current.take().unwrap_or_default();
        let mut cursor = it.cursor;
        it.current = t.next_row(&mut cursor, &mut row).then_some(row);
        it.cursor = cursor;
    }
}

#[php_impl]
impl Table {
    pub const TYPE_INT: i64 = 1;
    pub const TYPE_FLOAT: i64 = 2;
    pub const TYPE_STRING: i64 = 3;

    #[php(defaults(conflict_proportion = 0.2))]
    pub fn __construct(table_size: i64, conflict_proportion: f64) -> Self {
        // Swoole sizes conflict chains with the proportion; every row here
        // can hold any key, so it has nothing left to size.
        let _ = conflict_proportion;
        Table {
            requested: table_size,
            schema: RefCell::new(Schema::new()),
            table: RefCell::new(None),
            destroyed: Cell::new(false),
            size: Cell::new(None),
            memory_size: Cell::new(None),
            iter: RefCell::new(IterState::default()),
            buf: RefCell::new(Vec::new()),
            keys: RefCell::new(ColKeys::default()),
        }
    }

    #[php(getter, name = "size")]
    pub fn prop_size(&self) -> Option<i64> {
        self.size.get()
    }

    #[php(getter, name = "memorySize")]
    pub fn prop_memory_size(&self) -> Option<i64> {
        self.memory_size.get()
    }

    #[php(defaults(size = 0))]
    pub fn column(&self, name: String, r#type: i64, size: i64) -> bool {
        let Some(ty) = ColumnType::from_i64(r#type) else {
            warn("unknown column type");
            return false;
        };
        let mut size = size;
        if ty == ColumnType::Str {
            if size < 1 {
                warn("the length of string type values has to be more than zero");
                return false;
            }
            // Swoole rounds string columns up to a multiple of 8 bytes.
            size = (size + 7) / 8 * 8;
        }
        if self.table.borrow().is_some() || self.destroyed.get() {
            warn("unable to add column after table has been created");
            return false;
        }
        self.schema
            .borrow_mut()
            .add(&name, ty, usize::try_from(size).unwrap_or(0));
        true
    }

    pub fn create(&self) -> bool {
        if self.table.borrow().is_some() || self.destroyed.get() {
            php_error(&ErrorType::Error, "unable to allocate memory");
            return false;
        }
        let schema = self.schema.borrow().clone();
        match et::Table::create(schema, self.requested) {
            Ok(t) => {
                self.size.set(Some(i64::from(t.capacity())));
                self.memory_size.set(Some(t.memory_size() as i64));
                *self.keys.borrow_mut() = ColKeys::new(t.schema());
                *self.table.borrow_mut() = Some(Rc::new(t));
                true
            }
            Err(_) => {
                php_error(&ErrorType::Error, "unable to allocate memory");
                false
            }
        }
    }

    pub fn destroy(&self) -> bool {
        if self.created().is_none() {
            return false;
        }
        *self.iter.borrow_mut() = IterState::default();
        if let Some(t) = self.table.borrow_mut().take() {
            t.mark_destroyed();
        }
        self.destroyed.set(true);
        true
    }

    pub fn set(&self, key: &Zval, value: &ZendHashTable) -> bool {
        self.set_impl(&key_bytes(key), value)
    }

    pub fn get(&self, key: &Zval, field: Option<String>) -> Zval {
        self.get_impl(&key_bytes(key), field.as_deref().map(str::as_bytes))
    }

    pub fn del(&self, key: &Zval) -> bool {
        let Some(t) = self.created() else {
            return false;
        };
        t.del(&key_bytes(key))
    }

    /// Alias of `del`.
    pub fn delete(&self, key: &Zval) -> bool {
        self.del(key)
    }

    pub fn exists(&self, key: &Zval) -> bool {
        let Some(t) = self.created() else {
            return false;
        };
        t.exists(&key_bytes(key))
    }

    /// Alias of `exists`.
    pub fn exist(&self, key: &Zval) -> bool {
        self.exists(key)
    }

    pub fn incr(&self, key: &Zval, column: String, incrby: Option<&Zval>) -> Zval {
        self.incr_by(&key_bytes(key), &column, incrby, 1.0, "incr")
    }

    pub fn decr(&self, key: &Zval, column: String, incrby: Option<&Zval>) -> Zval {
        self.incr_by(&key_bytes(key), &column, incrby, -1.0, "decr")
    }

    pub fn count(&self) -> i64 {
        self.live().map_or(0, |t| t.count() as i64)
    }

    #[php(name = "getSize")]
    pub fn get_size(&self) -> i64 {
        let elsewhere = self
            .table
            .borrow()
            .as_ref()
            .is_some_and(|t| t.is_destroyed());
        if self.destroyed.get() || elsewhere {
            return 0;
        }
        i64::from(et::rounded_size(self.requested))
    }

    #[php(name = "getMemorySize")]
    pub fn get_memory_size(&self) -> i64 {
        self.live().map_or(0, |t| t.memory_size() as i64)
    }

    pub fn stats(&self) -> Zval {
        let Some(t) = self.live() else {
            return false_zval();
        };
        let s = t.stats();
        let mut ht = ZendHashTable::new();
        let _ = ht.insert("num", s.num as i64);
        let _ = ht.insert("conflict_count", s.conflict_count as i64);
        let _ = ht.insert("conflict_max_level", s.conflict_max_level as i64);
        let _ = ht.insert("insert_count", s.insert_count as i64);
        let _ = ht.insert("update_count", s.update_count as i64);
        let _ = ht.insert("delete_count", s.delete_count as i64);
        let _ = ht.insert("available_slice_num", s.available as i64);
        let _ = ht.insert("total_slice_num", s.total as i64);
        let mut z = Zval::new();
        z.set_hashtable(ht);
        z
    }

    pub fn rewind(&self) {
        if self.created().is_none() {
            return;
        }
        *self.iter.borrow_mut() = IterState::default();
        self.advance();
    }

    pub fn next(&self) {
        self.advance();
    }

    pub fn current(&self) -> Zval {
        let Some(t) = self.created() else {
            return null_zval();
        };
        match &self.iter.borrow().current {
            Some(row) => row_zval(t.schema(), &row.data, &self.keys.borrow()),
            None => null_zval(),
        }
    }

    pub fn key(&self) -> Zval {
        if self.created().is_none() {
            return null_zval();
        }
        let mut z = null_zval();
        if let Some(row) = &self.iter.borrow().current {
            z.set_binary(row.key.clone());
        }
        z
    }

    pub fn valid(&self) -> bool {
        if self.created().is_none() {
            return false;
        }
        self.iter.borrow().current.is_some()
    }
}

/// The fast handlers of the hot methods.
pub fn after_classes() {
    let ce = <Table as RegisteredClass>::get_metadata().ce();
    install_fast(ce, "set", table_set_handler, &TABLE_SET);
    install_fast(ce, "get", table_get_handler, &TABLE_GET);
    install_fast(ce, "incr", table_incr_handler, &TABLE_INCR);
    install_fast(ce, "decr", table_decr_handler, &TABLE_DECR);
    install_fast(ce, "exists", table_exists_handler, &TABLE_EXISTS);
    install_fast(ce, "del", table_del_handler, &TABLE_DEL);
}

// ---- fast paths ----
//
// ext-php-rs's generated handlers parse arguments generically (a Vec per
// call, a conversion per argument); for the hot methods a handler reads the
// raw arguments first and, when they are the plain types, calls the same
// implementation. Anything else falls through to the generated handler,
// which reports errors exactly as before. Name, arginfo and reflection stay
// the generated ones (as `http_response::install_fast_paths`).

pub type ZifHandler = unsafe extern "C" fn(*mut ext_php_rs::ffi::zend_execute_data, *mut Zval);
/// Handles the call and returns true, or returns false having done nothing.
pub type FastFn = fn(&mut ext_php_rs::zend::ExecuteData, &mut Zval) -> bool;

/// Puts `handler` in front of `ce::name`'s generated handler, saved in `slot`.
pub fn install_fast(
    ce: &'static ClassEntry,
    name: &str,
    handler: ZifHandler,
    slot: &'static std::sync::OnceLock<ZifHandler>,
) {
    // SAFETY: MINIT, single-threaded; the function table holds pointers to
    // this class's internal functions, which live as long as the class. Only
    // the handler pointer changes, once the original is saved.
    unsafe {
        let f = ext_php_rs::ffi::zend_hash_str_find_ptr_lc(
            &raw const ce.function_table,
            name.as_ptr().cast(),
            name.len(),
        )
        .cast::<ext_php_rs::ffi::zend_function>();
        if f.is_null() || (*f).type_ != ext_php_rs::ffi::ZEND_INTERNAL_FUNCTION as u8 {
            return;
        }
        let Some(orig) = (*f).internal_function.handler else {
            return;
        };
        if slot.set(orig).is_ok() {
            (*f).internal_function.handler = Some(handler);
        }
    }
}

/// Runs `fast`, or the generated handler saved in `slot`.
///
/// # Safety
/// `ex` and `retval` are the frame and return slot PHP passed to a method
/// handler whose generated handler is in `slot`.
pub unsafe fn dispatch(
    ex: *mut ext_php_rs::ffi::zend_execute_data,
    retval: *mut Zval,
    fast: FastFn,
    slot: &std::sync::OnceLock<ZifHandler>,
) {
    // SAFETY: see the function's contract.
    let (Some(frame), Some(ret)) = (unsafe { ex.as_mut() }, unsafe { retval.as_mut() }) else {
        return;
    };
    let done = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| fast(frame, ret)));
    if matches!(done, Ok(true)) {
        return;
    }
    if let Some(h) = slot.get() {
        // SAFETY: the generated handler of this very method, same frame.
        unsafe { h(ex, retval) };
    }
}

/// Declares `static $slot` and an `extern "C" fn $name` dispatching to `$fast`.
#[macro_export]
macro_rules! rsw_fast_handler {
    ($name:ident, $slot:ident, $fast:path) => {
        static $slot: std::sync::OnceLock<$crate::php::table::ZifHandler> =
            std::sync::OnceLock::new();
        // may_bail: yes, the generated handler it falls back to may.
        $crate::php::ffi::php_fn!(throw unsafe fn $name(
            ex: *mut ext_php_rs::ffi::zend_execute_data,
            rv: *mut ext_php_rs::types::Zval,
        ) {
            // SAFETY: PHP calls this as the method's handler.
            unsafe { $crate::php::table::dispatch(ex, rv, $fast, &$slot) }
        });
    };
}

/// `$this` of a method frame as our `T` (subclass objects too: they share
/// `T`'s object handlers). Cheaper than `ExecuteData::get_object`.
pub fn this_of<'a, T: RegisteredClass>(ex: &ext_php_rs::zend::ExecuteData) -> Option<&'a T> {
    // SAFETY: a method frame's `This` is a live zval; an object whose
    // handlers are `T`'s was allocated by `T`'s create_object as a
    // `ZendClassObject<T>`, with `std` at `offset_of!`; it outlives the call.
    unsafe {
        let this = &ex.This;
        if this.u1.type_info & 0xff != ext_php_rs::ffi::IS_OBJECT {
            return None;
        }
        let obj = this.value.obj;
        if obj.is_null() || !std::ptr::eq((*obj).handlers, T::get_metadata().handlers()) {
            return None;
        }
        let base = obj
            .cast::<u8>()
            .sub(std::mem::offset_of!(
                ext_php_rs::types::ZendClassObject<T>,
                std
            ))
            .cast::<ext_php_rs::types::ZendClassObject<T>>();
        (*base).obj.as_ref()
    }
}

/// Sets a return slot (already null, as PHP passes it) to an int.
pub fn ret_long(ret: &mut Zval, v: i64) {
    ret.value.lval = v;
    ret.u1.type_info = ext_php_rs::ffi::IS_LONG;
}

/// Sets a return slot (already null) to a bool.
pub fn ret_bool(ret: &mut Zval, v: bool) {
    ret.u1.type_info = if v {
        ext_php_rs::ffi::IS_TRUE
    } else {
        ext_php_rs::ffi::IS_FALSE
    };
}

/// Number of arguments passed.
pub fn argc(ex: &ext_php_rs::zend::ExecuteData) -> u32 {
    // SAFETY: `This` of a call frame holds the argument count in u2.
    unsafe { ex.This.u2.num_args }
}

/// Argument `n` (dereferenced), if passed.
pub fn arg<'a>(ex: &ext_php_rs::zend::ExecuteData, n: u32) -> Option<&'a Zval> {
    if n >= argc(ex) {
        return None;
    }
    // SAFETY: `n` is below the argument count; the argument lives for the call.
    unsafe { ex.zend_call_arg(n as usize) }.map(|z| z.dereference())
}

fn table_set_fast(ex: &mut ext_php_rs::zend::ExecuteData, ret: &mut Zval) -> bool {
    let (Some(key), Some(row)) = (arg(ex, 0), arg(ex, 1)) else {
        return false;
    };
    let (Some(key), Some(row)) = (key.zend_str(), row.array()) else {
        return false;
    };
    if argc(ex) != 2 {
        return false;
    }
    let Some(this) = this_of::<Table>(ex) else {
        return false;
    };
    ret_bool(ret, this.set_impl(key.as_bytes(), row));
    true
}

fn table_get_fast(ex: &mut ext_php_rs::zend::ExecuteData, ret: &mut Zval) -> bool {
    let n = argc(ex);
    let Some(key) = arg(ex, 0).and_then(Zval::zend_str) else {
        return false;
    };
    let field = match arg(ex, 1) {
        None => None,
        Some(z) if z.is_null() => None,
        Some(z) => match z.zend_str() {
            Some(f) => Some(f.as_bytes()),
            None => return false,
        },
    };
    if n > 2 {
        return false;
    }
    let Some(this) = this_of::<Table>(ex) else {
        return false;
    };
    *ret = this.get_impl(key.as_bytes(), field);
    true
}

fn table_incr_common(
    ex: &mut ext_php_rs::zend::ExecuteData,
    ret: &mut Zval,
    sign: f64,
    op: &str,
) -> bool {
    let n = argc(ex);
    if !(2..=3).contains(&n) {
        return false;
    }
    let (Some(key), Some(col)) = (
        arg(ex, 0).and_then(Zval::zend_str),
        arg(ex, 1).and_then(Zval::zend_str),
    ) else {
        return false;
    };
    let Ok(col) = col.as_str() else {
        return false;
    };
    let by = arg(ex, 2);
    if by.is_some_and(|b| !b.is_long() && !b.is_double()) {
        return false;
    }
    let Some(this) = this_of::<Table>(ex) else {
        return false;
    };
    *ret = this.incr_by(key.as_bytes(), col, by, sign, op);
    true
}

fn table_incr_fast(ex: &mut ext_php_rs::zend::ExecuteData, ret: &mut Zval) -> bool {
    table_incr_common(ex, ret, 1.0, "incr")
}

fn table_decr_fast(ex: &mut ext_php_rs::zend::ExecuteData, ret: &mut Zval) -> bool {
    table_incr_common(ex, ret, -1.0, "decr")
}

fn table_key_fast(
    ex: &mut ext_php_rs::zend::ExecuteData,
    ret: &mut Zval,
    f: fn(&et::Table, &[u8]) -> bool,
) -> bool {
    let Some(key) = arg(ex, 0).and_then(Zval::zend_str) else {
        return false;
    };
    if argc(ex) != 1 {
        return false;
    }
    let Some(this) = this_of::<Table>(ex) else {
        return false;
    };
    let r = this.created().is_some_and(|t| f(&t, key.as_bytes()));
    ret_bool(ret, r);
    true
}

fn table_exists_fast(ex: &mut ext_php_rs::zend::ExecuteData, ret: &mut Zval) -> bool {
    table_key_fast(ex, ret, et::Table::exists)
}

fn table_del_fast(ex: &mut ext_php_rs::zend::ExecuteData, ret: &mut Zval) -> bool {
    table_key_fast(ex, ret, et::Table::del)
}

rsw_fast_handler!(table_set_handler, TABLE_SET, table_set_fast);
rsw_fast_handler!(table_get_handler, TABLE_GET, table_get_fast);
rsw_fast_handler!(table_incr_handler, TABLE_INCR, table_incr_fast);
rsw_fast_handler!(table_decr_handler, TABLE_DECR, table_decr_fast);
rsw_fast_handler!(table_exists_handler, TABLE_EXISTS, table_exists_fast);
rsw_fast_handler!(table_del_handler, TABLE_DEL, table_del_fast);

pub fn register(module: ModuleBuilder) -> ModuleBuilder {
    module.class::<Table>()
}
