//! The shared-memory hash table behind `Swoole\Table`: one anonymous
//! `MAP_SHARED` mapping made at `create()` (so before any fork that should
//! share it), holding a header, a bucket array and exactly `capacity` rows.
//!
//! Layout (see docs/internals.md, "Swoole\Table"):
//!
//! ```text
//! Header | Bucket[nbuckets] (lock, seq, head) | Row[capacity] (next, key_len, key[63], data)
//! ```
//!
//! A key hashes to a bucket; the bucket's lock guards its chain of rows. Rows
//! come from one pool (a free list, then a bump index), so any bucket can
//! chain any row and a table of `capacity` rows holds `capacity` keys however
//! they hash. Every change to a chain is a single store (link a fully written
//! row at the head, unlink by one pointer), so a process killed mid-operation
//! leaves a consistent chain; the lock it held is taken over by the next
//! process that needs it (`shm_lock::PidLock`).

use std::collections::HashMap;
use std::io;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::Duration;

use crate::engine::shared::shm_lock::{test_hold, Acquired, PidLock, ShmMap};

/// Longest key, in bytes; longer keys are cut to this.
pub const KEY_MAX: usize = 63;
/// Smallest and largest table sizes (rows), as Swoole.
pub const MIN_ROWS: u32 = 64;
pub const MAX_ROWS: u32 = 1 << 31;
/// A row lock unchanged this long is taken over even if its holder lives: row
/// locks are held for microseconds, and never while PHP code runs.
const FORCE_UNLOCK_AFTER: Duration = Duration::from_secs(2);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnType {
    Int = 1,
    Float = 2,
    Str = 3,
}

impl ColumnType {
    pub fn from_i64(v: i64) -> Option<ColumnType> {
        match v {
            1 => Some(ColumnType::Int),
            2 => Some(ColumnType::Float),
            3 => Some(ColumnType::Str),
            _ => None,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Column {
    pub name: String,
    pub ty: ColumnType,
    /// Longest string a string column holds, in bytes (0 otherwise).
    pub size: usize,
    offset: usize,
}

impl Column {
    fn width(&self) -> usize {
        match self.ty {
            ColumnType::Int | ColumnType::Float => 8,
            ColumnType::Str => 4 + self.size,
        }
    }
}

/// The columns, in declaration order. Lives in each process (inherited by
/// fork), not in the mapping.
#[derive(Debug, Clone, Default)]
pub struct Schema {
    cols: Vec<Column>,
    by_name: HashMap<String, usize>,
    data_size: usize,
}

impl Schema {
    pub fn new() -> Schema {
        Schema::default()
    }

    /// Adds (or, for a name already there, replaces) a column.
    pub fn add(&mut self, name: &str, ty: ColumnType, size: usize) {
        let size = if ty == ColumnType::Str { size } else { 0 };
        let col = Column {
            name: name.to_string(),
            ty,
            size,
            offset: 0,
        };
        match self.by_name.get(name) {
            Some(&i) => self.cols[i] = col,
            None => {
                self.by_name.insert(name.to_string(), self.cols.len());
                self.cols.push(col);
            }
        }
        let mut off = 0;
        for c in &mut self.cols {
            c.offset = off;
            off += c.width();
        }
        self.data_size = off;
    }

    pub fn columns(&self) -> &[Column] {
        &self.cols
    }

    pub fn find(&self, name: &[u8]) -> Option<usize> {
        // A handful of columns: comparing names beats hashing one.
        if self.cols.len() <= 16 {
            return self.cols.iter().position(|c| c.name.as_bytes() == name);
        }
        std::str::from_utf8(name)
            .ok()
            .and_then(|n| self.by_name.get(n).copied())
    }

    pub fn data_size(&self) -> usize {
        self.data_size
    }

    /// Decodes column `i` from a row's data bytes (as copied by `get`).
    pub fn value<'a>(&self, data: &'a [u8], i: usize) -> Value<'a> {
        let c = &self.cols[i];
        let at = |n: usize| &data[c.offset..c.offset + n];
        match c.ty {
            ColumnType::Int => Value::Int(i64::from_ne_bytes(at(8).try_into().unwrap_or([0; 8]))),
            ColumnType::Float => {
                Value::Float(f64::from_ne_bytes(at(8).try_into().unwrap_or([0; 8])))
            }
            ColumnType::Str => {
                let len = u32::from_ne_bytes(at(4).try_into().unwrap_or([0; 4])) as usize;
                let len = len.min(c.size);
                Value::Str(&data[c.offset + 4..c.offset + 4 + len])
            }
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value<'a> {
    Int(i64),
    Float(f64),
    Str(&'a [u8]),
}

/// `set()` on a full table: every row is in use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Full;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IncrError {
    Full,
    NoColumn,
    StringColumn,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    pub num: u64,
    pub conflict_count: u64,
    pub conflict_max_level: u64,
    pub insert_count: u64,
    pub update_count: u64,
    pub delete_count: u64,
    pub available: u64,
    pub total: u64,
}

#[repr(C)]
struct Header {
    count: AtomicU32,
    /// Rows never used yet start at this index.
    bump: AtomicU32,
    /// Free list: low 32 bits row index + 1 (0: empty), high 32 bits a tag
    /// bumped by every pop, so a stale compare-and-swap fails (ABA).
    free: AtomicU64,
    conflict_max: AtomicU64,
    /// Row locks taken over from dead (or stuck) holders.
    recovered: AtomicU64,
    /// Set by `destroy()` in any process: the table is gone for every process.
    destroyed: AtomicU32,
}

#[repr(C)]
struct Bucket {
    lock: PidLock,
    /// Bumped by every holder: lets a waiter tell a stuck lock from a busy one.
    seq: AtomicU32,
    /// First row of the chain, index + 1 (0: empty).
    head: AtomicU32,
    _pad: u32,
}

#[repr(C)]
struct RowHead {
    /// Next row in the chain (or in the free list), index + 1.
    next: AtomicU32,
    key_len: u8,
    key: [u8; KEY_MAX],
}

/// Statistics counters, striped by pid over `STRIPES` cache lines so that
/// processes updating rows do not all write one line; `stats()` sums them.
#[repr(C, align(64))]
struct Stripe {
    insert: AtomicU64,
    update: AtomicU64,
    delete: AtomicU64,
    conflicts: AtomicU64,
}

const STRIPES: usize = 32;
const STRIPES_AT: usize = 128;
const HEADER: usize = STRIPES_AT + STRIPES * 64;
const _: () = assert!(std::mem::size_of::<Stripe>() == 64);
const ROW_HEAD: usize = 72;
const _: () = assert!(std::mem::size_of::<Header>() <= STRIPES_AT);
const _: () = assert!(std::mem::size_of::<RowHead>() <= ROW_HEAD);
const _: () = assert!(std::mem::size_of::<Bucket>() == 16);

/// Rounds a requested size the way Swoole does: to a power of two, at least
/// 64, at most 2^31 (the argument is taken as an unsigned 32-bit number).
pub fn rounded_size(requested: i64) -> u32 {
    let r = requested as u32;
    if r >= MAX_ROWS {
        MAX_ROWS
    } else {
        r.max(MIN_ROWS).next_power_of_two()
    }
}

/// A created table. Every process that inherited it (by fork) sees the same
/// rows; dropping it unmaps this process's view only.
pub struct Table {
    map: ShmMap,
    schema: Schema,
    capacity: u32,
    nbuckets: usize,
    row_size: usize,
    buckets_at: usize,
    rows_at: usize,
}

/// Where an iteration stands: a bucket and a position in its chain.
#[derive(Debug, Clone, Copy, Default)]
pub struct Cursor {
    bucket: usize,
    pos: u32,
}

/// A row's copy, taken under its lock.
#[derive(Debug, Clone, Default)]
pub struct RowCopy {
    pub key: Vec<u8>,
    pub data: Vec<u8>,
}

fn hash(key: &[u8]) -> u64 {
    // FNV-1a, then a 64-bit finalizer so the low bits (the bucket) mix well.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in key {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h
}

/// Cuts a key to `KEY_MAX` bytes.
pub fn clip_key(key: &[u8]) -> &[u8] {
    &key[..key.len().min(KEY_MAX)]
}

/// A held bucket lock; released on drop.
struct Guard<'a> {
    bucket: &'a Bucket,
}

impl Drop for Guard<'_> {
    fn drop(&mut self) {
        self.bucket.lock.unlock();
    }
}

impl Drop for Table {
    fn drop(&mut self) {
        registry::remove(self.map.as_ptr() as usize);
    }
}

/// Every table this process has mapped, in creation order, for the metrics
/// endpoint (`rswoole_table_rows`): the process serving metrics is forked
/// from the master and reads the headers of the tables it inherited.
pub mod registry {
    use std::sync::atomic::Ordering;
    use std::sync::Mutex;

    /// (creation number, mapping address, capacity).
    static TABLES: Mutex<Vec<(u64, usize, u32)>> = Mutex::new(Vec::new());
    static SERIAL: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

    pub(super) fn add(addr: usize, capacity: u32) {
        let n = SERIAL.fetch_add(1, Ordering::Relaxed);
        if let Ok(mut t) = TABLES.lock() {
            t.push((n, addr, capacity));
        }
    }

    pub(super) fn remove(addr: usize) {
        if let Ok(mut t) = TABLES.lock() {
            t.retain(|e| e.1 != addr);
        }
    }

    /// (creation number, rows used, rows in total) of every live table.
    pub fn usage() -> Vec<(u64, u64, u64)> {
        let Ok(t) = TABLES.lock() else {
            return Vec::new();
        };
        t.iter()
            .map(|&(n, addr, cap)| {
                // SAFETY: the entry is removed when its table (and mapping)
                // is dropped, so `addr` is a live mapping starting with a
                // Header of atomics.
                let h = unsafe { &*(addr as *const super::Header) };
                (
                    n,
                    u64::from(h.count.load(Ordering::Relaxed)),
                    u64::from(cap),
                )
            })
            .collect()
    }
}

impl Table {
    /// Maps and initializes a table of `rounded_size(requested)` rows.
    pub fn create(schema: Schema, requested: i64) -> io::Result<Table> {
        let capacity = rounded_size(requested);
        let nbuckets = (capacity as usize) * 2;
        let row_size = (ROW_HEAD + schema.data_size).div_ceil(8) * 8;
        let buckets_at = HEADER;
        let rows_at = buckets_at + nbuckets * std::mem::size_of::<Bucket>();
        let len = rows_at
            .checked_add(
                row_size
                    .checked_mul(capacity as usize)
                    .ok_or_else(|| io::Error::from_raw_os_error(libc::ENOMEM))?,
            )
            .ok_or_else(|| io::Error::from_raw_os_error(libc::ENOMEM))?;
        // Zero-filled: an all-zero header, bucket and row are valid (empty
        // table, free locks, empty chains, everything still to bump-allocate).
        let map = ShmMap::new(len)?;
        registry::add(map.as_ptr() as usize, capacity);
        Ok(Table {
            map,
            schema,
            capacity,
            nbuckets,
            row_size,
            buckets_at,
            rows_at,
        })
    }

    pub fn schema(&self) -> &Schema {
        &self.schema
    }

    pub fn capacity(&self) -> u32 {
        self.capacity
    }

    /// Bytes mapped for the table.
    pub fn memory_size(&self) -> usize {
        self.map.len()
    }

    fn header(&self) -> &Header {
        // SAFETY: the mapping starts with a Header (all atomics, zero-valid),
        // page-aligned, and lives as long as `self`.
        unsafe { &*self.map.as_ptr().cast::<Header>() }
    }

    /// This process's statistics stripe.
    fn stripe(&self) -> &Stripe {
        let i = (crate::engine::shared::shm_lock::my_pid() as usize) % STRIPES;
        // SAFETY: stripe `i < STRIPES` lies in the header area, 64-aligned,
        // all atomics (zero-valid), for the mapping's lifetime.
        unsafe { &*self.map.as_ptr().add(STRIPES_AT + i * 64).cast::<Stripe>() }
    }

    fn stripes(&self) -> impl Iterator<Item = &Stripe> {
        // SAFETY: as in `stripe`, for every index below STRIPES.
        (0..STRIPES)
            .map(move |i| unsafe { &*self.map.as_ptr().add(STRIPES_AT + i * 64).cast::<Stripe>() })
    }

    fn bucket(&self, i: usize) -> &Bucket {
        debug_assert!(i < self.nbuckets);
        // SAFETY: `i < nbuckets`; buckets are 16-byte, zero-valid atomics at
        // a 16-aligned offset inside the mapping.
        unsafe {
            &*self
                .map
                .as_ptr()
                .add(self.buckets_at + i * std::mem::size_of::<Bucket>())
                .cast::<Bucket>()
        }
    }

    /// Row `idx` (0-based): its header and its data bytes.
    fn row_ptr(&self, idx: u32) -> *mut u8 {
        debug_assert!(idx < self.capacity);
        // SAFETY: `idx < capacity`, so the row lies inside the mapping.
        unsafe {
            self.map
                .as_ptr()
                .add(self.rows_at + idx as usize * self.row_size)
        }
    }

    fn row(&self, idx: u32) -> &RowHead {
        // SAFETY: rows are 8-aligned, zero-valid; `key_len`/`key` are only
        // written under the bucket lock that guards the row, and `next` is
        // atomic because the free list reads it without that lock.
        unsafe { &*self.row_ptr(idx).cast::<RowHead>() }
    }

    fn data_ptr(&self, idx: u32) -> *mut u8 {
        // SAFETY: the data area follows the row header inside the row.
        unsafe { self.row_ptr(idx).add(ROW_HEAD) }
    }

    fn lock(&self, b: usize) -> Guard<'_> {
        let bucket = self.bucket(b);
        match bucket
            .lock
            .lock(Some(&bucket.seq), Some(FORCE_UNLOCK_AFTER), None)
        {
            Acquired::Yes => {}
            Acquired::FromDead(pid) => {
                self.header().recovered.fetch_add(1, Ordering::Relaxed);
                crate::rlog!(
                    Warning,
                    "TableRow::lock(): lock process[{pid}] not exists, force unlock"
                );
            }
            Acquired::Forced(pid) => {
                self.header().recovered.fetch_add(1, Ordering::Relaxed);
                crate::rlog!(
                    Warning,
                    "TableRow::lock(): lock process[{pid}] held it too long, force unlock"
                );
            }
            Acquired::TimedOut => {}
        }
        // Only the holder writes `seq`: a plain increment, no locked RMW.
        bucket.seq.store(
            bucket.seq.load(Ordering::Relaxed).wrapping_add(1),
            Ordering::Relaxed,
        );
        test_hold();
        Guard { bucket }
    }

    fn bucket_of(&self, key: &[u8]) -> usize {
        (hash(key) as usize) & (self.nbuckets - 1)
    }

    fn key_of(&self, idx: u32) -> &[u8] {
        let r = self.row(idx);
        &r.key[..(r.key_len as usize).min(KEY_MAX)]
    }

    /// Finds `key` in bucket `b` (lock held): (row, previous row, chain length walked).
    fn find(&self, b: usize, key: &[u8]) -> (Option<u32>, Option<u32>, u64) {
        let mut prev = None;
        let mut cur = self.bucket(b).head.load(Ordering::Relaxed);
        let mut n = 0;
        while cur != 0 && n <= u64::from(self.capacity) {
            let idx = cur - 1;
            if self.key_of(idx) == key {
                return (Some(idx), prev, n);
            }
            prev = Some(idx);
            cur = self.row(idx).next.load(Ordering::Relaxed);
            n += 1;
        }
        (None, prev, n)
    }

    fn alloc(&self) -> Option<u32> {
        let h = self.header();
        let mut head = h.free.load(Ordering::Acquire);
        loop {
            let top = (head & 0xffff_ffff) as u32;
            if top == 0 {
                break;
            }
            let next = self.row(top - 1).next.load(Ordering::Relaxed);
            let tag = (head >> 32).wrapping_add(1);
            match h.free.compare_exchange_weak(
                head,
                (tag << 32) | u64::from(next),
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => return Some(top - 1),
                Err(x) => head = x,
            }
        }
        let mut b = h.bump.load(Ordering::Relaxed);
        while b < self.capacity {
            match h
                .bump
                .compare_exchange_weak(b, b + 1, Ordering::AcqRel, Ordering::Relaxed)
            {
                Ok(_) => return Some(b),
                Err(x) => b = x,
            }
        }
        None
    }

    fn release(&self, idx: u32) {
        let h = self.header();
        let mut head = h.free.load(Ordering::Acquire);
        loop {
            self.row(idx)
                .next
                .store((head & 0xffff_ffff) as u32, Ordering::Relaxed);
            let new = (head & !0xffff_ffff) | u64::from(idx + 1);
            match h
                .free
                .compare_exchange_weak(head, new, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => return,
                Err(x) => head = x,
            }
        }
    }

    /// Writes one column of row `idx` (lock held). True when a string was cut.
    fn write(&self, idx: u32, col: usize, v: Value<'_>) -> bool {
        let c = &self.schema.cols[col];
        // SAFETY: the column lies inside the row's data area, which only the
        // holder of the bucket lock writes; unaligned writes are used.
        unsafe {
            let p = self.data_ptr(idx).add(c.offset);
            match (c.ty, v) {
                (ColumnType::Int, v) => p.cast::<i64>().write_unaligned(as_int(v)),
                (ColumnType::Float, v) => p.cast::<f64>().write_unaligned(as_float(v)),
                (ColumnType::Str, Value::Str(s)) => {
                    let n = s.len().min(c.size);
                    p.cast::<u32>().write_unaligned(n as u32);
                    std::ptr::copy_nonoverlapping(s.as_ptr(), p.add(4), n);
                    return n < s.len();
                }
                (ColumnType::Str, _) => p.cast::<u32>().write_unaligned(0),
            }
        }
        false
    }

    fn clear_data(&self, idx: u32) {
        // SAFETY: the data area of row `idx`, written under its bucket lock.
        unsafe { std::ptr::write_bytes(self.data_ptr(idx), 0, self.schema.data_size) }
    }

    /// Inserts a new row for `key` in bucket `b` (lock held), data zeroed.
    fn insert(&self, b: usize, key: &[u8], chain_len: u64) -> Result<u32, Full> {
        let idx = self.alloc().ok_or(Full)?;
        // SAFETY: the row was just taken from the pool: no chain reaches it,
        // so nobody else reads or writes its key.
        unsafe {
            let r = self.row_ptr(idx).cast::<RowHead>();
            (*r).key_len = key.len() as u8;
            std::ptr::copy_nonoverlapping(
                key.as_ptr(),
                std::ptr::addr_of_mut!((*r).key).cast::<u8>(),
                key.len(),
            );
        }
        self.clear_data(idx);
        let bucket = self.bucket(b);
        self.row(idx)
            .next
            .store(bucket.head.load(Ordering::Relaxed), Ordering::Relaxed);
        // The row is complete before it becomes reachable (one store).
        bucket.head.store(idx + 1, Ordering::Release);
        let h = self.header();
        h.count.fetch_add(1, Ordering::Relaxed);
        self.stripe().insert.fetch_add(1, Ordering::Relaxed);
        if chain_len > 0 {
            self.stripe().conflicts.fetch_add(1, Ordering::Relaxed);
            h.conflict_max.fetch_max(chain_len, Ordering::Relaxed);
        }
        Ok(idx)
    }

    /// The row of `key` in bucket `b` (whose lock the caller holds), counted
    /// as an update, or a new zeroed row.
    fn find_or_insert(&self, b: usize, key: &[u8]) -> Result<u32, Full> {
        match self.find(b, key) {
            (Some(idx), _, _) => {
                self.stripe().update.fetch_add(1, Ordering::Relaxed);
                Ok(idx)
            }
            (None, _, n) => self.insert(b, key, n),
        }
    }

    /// `set($key, $row)`: writes the given columns; a new row starts zeroed.
    /// Returns the columns whose string value was cut to the column size.
    pub fn set(&self, key: &[u8], values: &[(usize, Value<'_>)]) -> Result<Vec<usize>, Full> {
        let key = clip_key(key);
        let b = self.bucket_of(key);
        let _g = self.lock(b);
        let idx = self.find_or_insert(b, key)?;
        let mut cut = Vec::new();
        for (col, v) in values {
            if self.write(idx, *col, *v) {
                cut.push(*col);
            }
        }
        Ok(cut)
    }

    /// `incr`/`decr`: adds `delta` to a numeric column, creating the row.
    pub fn incr(
        &self,
        key: &[u8],
        col: usize,
        delta: Value<'_>,
    ) -> Result<Value<'static>, IncrError> {
        let c = self.schema.cols.get(col).ok_or(IncrError::NoColumn)?;
        if c.ty == ColumnType::Str {
            return Err(IncrError::StringColumn);
        }
        let key = clip_key(key);
        let b = self.bucket_of(key);
        let _g = self.lock(b);
        let idx = self.find_or_insert(b, key).map_err(|_| IncrError::Full)?;
        // SAFETY: inside row `idx`'s data area, under its bucket lock.
        let p = unsafe { self.data_ptr(idx).add(c.offset) };
        // SAFETY: as above; unaligned access.
        unsafe {
            if c.ty == ColumnType::Int {
                let v = p.cast::<i64>().read_unaligned().wrapping_add(as_int(delta));
                p.cast::<i64>().write_unaligned(v);
                Ok(Value::Int(v))
            } else {
                let v = p.cast::<f64>().read_unaligned() + as_float(delta);
                p.cast::<f64>().write_unaligned(v);
                Ok(Value::Float(v))
            }
        }
    }

    /// `get($key)`: copies the row's data into `out`. False if absent.
    pub fn get(&self, key: &[u8], out: &mut Vec<u8>) -> bool {
        let key = clip_key(key);
        let b = self.bucket_of(key);
        let _g = self.lock(b);
        match self.find(b, key) {
            (Some(idx), _, _) => {
                out.clear();
                // SAFETY: the data area of a chained row, read under its lock.
                out.extend_from_slice(unsafe {
                    std::slice::from_raw_parts(self.data_ptr(idx), self.schema.data_size)
                });
                true
            }
            _ => false,
        }
    }

    pub fn exists(&self, key: &[u8]) -> bool {
        let key = clip_key(key);
        let b = self.bucket_of(key);
        if self.bucket(b).head.load(Ordering::Acquire) == 0 {
            return false;
        }
        let _g = self.lock(b);
        self.find(b, key).0.is_some()
    }

    pub fn del(&self, key: &[u8]) -> bool {
        let key = clip_key(key);
        let b = self.bucket_of(key);
        if self.bucket(b).head.load(Ordering::Acquire) == 0 {
            return false;
        }
        let g = self.lock(b);
        let (Some(idx), prev, _) = self.find(b, key) else {
            return false;
        };
        let next = self.row(idx).next.load(Ordering::Relaxed);
        match prev {
            None => self.bucket(b).head.store(next, Ordering::Release),
            Some(p) => self.row(p).next.store(next, Ordering::Release),
        }
        drop(g);
        // Unreachable now; back to the pool.
        self.release(idx);
        let h = self.header();
        h.count.fetch_sub(1, Ordering::Relaxed);
        self.stripe().delete.fetch_add(1, Ordering::Relaxed);
        true
    }

    /// Marks the table destroyed for every process sharing it (`destroy()`).
    pub fn mark_destroyed(&self) {
        self.header().destroyed.store(1, Ordering::Release);
    }

    /// Whether some process destroyed the table.
    pub fn is_destroyed(&self) -> bool {
        self.header().destroyed.load(Ordering::Acquire) != 0
    }

    pub fn count(&self) -> u64 {
        u64::from(self.header().count.load(Ordering::Relaxed))
    }

    /// Row locks taken over from dead or stuck holders since `create()`.
    pub fn recovered_locks(&self) -> u64 {
        self.header().recovered.load(Ordering::Relaxed)
    }

    pub fn stats(&self) -> Stats {
        let h = self.header();
        let num = self.count();
        let sum = |f: fn(&Stripe) -> &AtomicU64| {
            self.stripes()
                .map(|s| f(s).load(Ordering::Relaxed))
                .sum::<u64>()
        };
        Stats {
            num,
            conflict_count: sum(|s| &s.conflicts),
            conflict_max_level: h.conflict_max.load(Ordering::Relaxed),
            insert_count: sum(|s| &s.insert),
            update_count: sum(|s| &s.update),
            delete_count: sum(|s| &s.delete),
            available: u64::from(self.capacity).saturating_sub(num),
            total: u64::from(self.capacity),
        }
    }

    /// Copies the row at `cur` into `out` and advances; false at the end.
    pub fn next_row(&self, cur: &mut Cursor, out: &mut RowCopy) -> bool {
        while cur.bucket < self.nbuckets {
            let b = cur.bucket;
            if self.bucket(b).head.load(Ordering::Acquire) != 0 {
                let _g = self.lock(b);
                let mut at = self.bucket(b).head.load(Ordering::Relaxed);
                let mut i = 0;
                while at != 0 && i < cur.pos && i <= self.capacity {
                    at = self.row(at - 1).next.load(Ordering::Relaxed);
                    i += 1;
                }
                if at != 0 {
                    let idx = at - 1;
                    out.key.clear();
                    out.key.extend_from_slice(self.key_of(idx));
                    out.data.clear();
                    // SAFETY: a chained row's data, read under its lock.
                    out.data.extend_from_slice(unsafe {
                        std::slice::from_raw_parts(self.data_ptr(idx), self.schema.data_size)
                    });
                    cur.pos += 1;
                    return true;
                }
            }
            cur.bucket += 1;
            cur.pos = 0;
        }
        false
    }
}

fn as_int(v: Value<'_>) -> i64 {
    match v {
        Value::Int(i) => i,
        Value::Float(f) => f as i64,
        Value::Str(s) => std::str::from_utf8(s)
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(0),
    }
}

fn as_float(v: Value<'_>) -> f64 {
    match v {
        Value::Int(i) => i as f64,
        Value::Float(f) => f,
        Value::Str(s) => std::str::from_utf8(s)
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(0.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(n: i64) -> Table {
        let mut s = Schema::new();
        s.add("i", ColumnType::Int, 0);
        s.add("f", ColumnType::Float, 0);
        s.add("s", ColumnType::Str, 8);
        Table::create(s, n).expect("create")
    }

    #[test]
    fn sizes_round_like_swoole() {
        assert_eq!(rounded_size(1), 64);
        assert_eq!(rounded_size(1000), 1024);
        assert_eq!(rounded_size(1024), 1024);
        assert_eq!(rounded_size(-1), MAX_ROWS);
    }

    #[test]
    fn holds_exactly_capacity_rows() {
        let t = table(64);
        for i in 0..64 {
            assert!(t
                .set(format!("k{i}").as_bytes(), &[(0, Value::Int(i))])
                .is_ok());
        }
        assert_eq!(t.set(b"one more", &[]), Err(Full));
        assert_eq!(t.count(), 64);
        let mut out = Vec::new();
        for i in 0..64 {
            assert!(t.get(format!("k{i}").as_bytes(), &mut out));
            assert_eq!(t.schema().value(&out, 0), Value::Int(i));
        }
        assert!(t.del(b"k3"));
        assert!(!t.del(b"k3"));
        assert!(t.set(b"one more", &[]).is_ok());
        assert_eq!(t.stats().available, 0);
    }

    #[test]
    fn strings_cut_and_incr() {
        let t = table(64);
        let cut = t.set(b"a", &[(2, Value::Str(b"0123456789"))]).expect("set");
        assert_eq!(cut, vec![2]);
        let mut out = Vec::new();
        assert!(t.get(b"a", &mut out));
        assert_eq!(t.schema().value(&out, 2), Value::Str(b"01234567"));
        assert_eq!(t.incr(b"a", 0, Value::Int(5)), Ok(Value::Int(5)));
        assert_eq!(t.incr(b"a", 1, Value::Float(1.5)), Ok(Value::Float(1.5)));
        assert_eq!(t.incr(b"a", 2, Value::Int(1)), Err(IncrError::StringColumn));
        assert_eq!(t.incr(b"new", 0, Value::Int(-2)), Ok(Value::Int(-2)));
    }

    #[test]
    fn iterates_every_row_once() {
        let t = table(100);
        for i in 0..100 {
            t.set(format!("{i}").as_bytes(), &[(0, Value::Int(i))])
                .expect("set");
        }
        let mut cur = Cursor::default();
        let mut row = RowCopy::default();
        let mut seen = std::collections::HashSet::new();
        while t.next_row(&mut cur, &mut row) {
            assert!(seen.insert(row.key.clone()));
        }
        assert_eq!(seen.len(), 100);
    }

    #[test]
    fn long_keys_are_clipped() {
        let t = table(64);
        let long = [b'x'; 100];
        t.set(&long, &[(0, Value::Int(1))]).expect("set");
        assert!(t.exists(&long[..63]));
        assert!(t.exists(&long[..80]));
        assert!(!t.exists(&long[..62]));
    }
}
