//! `CidTable`: the scheduler's coroutines by cid, without hashing on the
//! common path.
//!
//! Cids are handed out in order and most coroutines are short-lived, so the
//! live ones are nearly all among the most recent cids: those sit in a
//! window (a ring buffer indexed by `cid - base`), and a lookup, insert or
//! remove there is an index operation. The window's front advances past
//! ended coroutines; a coroutine that lives long enough to hold the front
//! back while the window is full moves to an overflow hash map, so the
//! window never grows beyond `WINDOW` slots however long a coroutine lives.

use std::collections::VecDeque;

use super::{Cid, CidMap};

/// Slots in the window before the oldest live entry moves to the overflow.
const WINDOW: usize = 1024;

pub struct CidTable<V> {
    /// The cid of `window[0]`.
    base: Cid,
    window: VecDeque<Option<V>>,
    /// Entries that held the window's front back too long, or that could
    /// not be placed in it.
    overflow: CidMap<V>,
    len: usize,
}

impl<V> Default for CidTable<V> {
    fn default() -> Self {
        CidTable {
            base: 0,
            window: VecDeque::new(),
            overflow: CidMap::default(),
            len: 0,
        }
    }
}

impl<V> CidTable<V> {
    /// The window index of `cid`, if it falls inside the window.
    #[inline]
    fn slot(&self, cid: Cid) -> Option<usize> {
        let i = cid.wrapping_sub(self.base);
        (i >= 0 && (i as u64) < self.window.len() as u64).then_some(i as usize)
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    pub fn get(&self, cid: &Cid) -> Option<&V> {
        if let Some(v) = self.slot(*cid).and_then(|i| self.window[i].as_ref()) {
            return Some(v);
        }
        if self.overflow.is_empty() {
            return None;
        }
        self.overflow.get(cid)
    }

    #[inline]
    pub fn get_mut(&mut self, cid: &Cid) -> Option<&mut V> {
        match self.slot(*cid) {
            Some(i) if self.window[i].is_some() => self.window[i].as_mut(),
            _ if self.overflow.is_empty() => None,
            _ => self.overflow.get_mut(cid),
        }
    }

    #[inline]
    pub fn contains_key(&self, cid: &Cid) -> bool {
        self.get(cid).is_some()
    }

    /// Adds (or replaces) `cid`'s entry; the previous one is returned.
    pub fn insert(&mut self, cid: Cid, v: V) -> Option<V> {
        if let Some(i) = self.slot(cid) {
            if self.window[i].is_some() {
                return self.window[i].replace(v);
            }
            if let Some(old) = self.overflow.remove(&cid) {
                self.window[i] = Some(v);
                return Some(old);
            }
            self.window[i] = Some(v);
            self.len += 1;
            return None;
        }
        if self.window.is_empty() {
            self.base = cid;
        }
        let end = self.base.wrapping_add(self.window.len() as Cid);
        let gap = cid.wrapping_sub(end);
        if !(0..WINDOW as Cid).contains(&gap)
            || (!self.overflow.is_empty() && self.overflow.contains_key(&cid))
        {
            // Below the window, or far beyond it (not a fresh cid).
            let old = self.overflow.insert(cid, v);
            if old.is_none() {
                self.len += 1;
            }
            return old;
        }
        for _ in 0..gap {
            self.window.push_back(None);
        }
        self.window.push_back(Some(v));
        self.len += 1;
        while self.window.len() > WINDOW {
            if let Some(Some(old)) = self.window.pop_front() {
                self.overflow.insert(self.base, old);
            }
            self.base += 1;
        }
        self.trim();
        None
    }

    pub fn remove(&mut self, cid: &Cid) -> Option<V> {
        let v = match self.slot(*cid) {
            Some(i) if self.window[i].is_some() => {
                let v = self.window[i].take();
                if i == 0 {
                    self.trim();
                }
                v
            }
            _ if self.overflow.is_empty() => None,
            _ => self.overflow.remove(cid),
        };
        if v.is_some() {
            self.len -= 1;
        }
        v
    }

    /// Drops the ended entries at the window's front.
    fn trim(&mut self) {
        while matches!(self.window.front(), Some(None)) {
            self.window.pop_front();
            self.base += 1;
        }
    }

    /// Every entry, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (Cid, &V)> {
        let base = self.base;
        self.window
            .iter()
            .enumerate()
            .filter_map(move |(i, v)| v.as_ref().map(|v| (base + i as Cid, v)))
            .chain(self.overflow.iter().map(|(k, v)| (*k, v)))
    }

    /// Every cid, in no particular order.
    pub fn keys(&self) -> impl Iterator<Item = Cid> + '_ {
        self.iter().map(|(k, _)| k)
    }

    /// Every entry, taken out, in no particular order.
    pub fn into_values(self) -> impl Iterator<Item = V> {
        self.window
            .into_iter()
            .flatten()
            .chain(self.overflow.into_values())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequential_and_long_lived() {
        let mut t = CidTable::default();
        t.insert(1, 1);
        for cid in 2..5000 {
            t.insert(cid, cid);
            if cid > 10 {
                assert_eq!(t.remove(&(cid - 5)), Some(cid - 5));
            }
        }
        // cid 1 (long-lived) went to the overflow; the window stayed small.
        assert!(t.window.len() <= WINDOW);
        assert_eq!(t.get(&1), Some(&1));
        assert_eq!(t.get(&4999), Some(&4999));
        assert_eq!(t.get(&100), None);
        assert!(t.contains_key(&7));
        let mut keys: Vec<Cid> = t.keys().collect();
        keys.sort_unstable();
        assert_eq!(keys.len(), t.len());
        assert_eq!(keys[..6], [1, 2, 3, 4, 5, 6]);
        assert_eq!(t.remove(&1), Some(1));
        assert_eq!(t.get(&1), None);
        *t.get_mut(&4999).unwrap_or(&mut 0) = 7;
        assert_eq!(t.get(&4999), Some(&7));
        let n = t.len();
        assert_eq!(t.into_values().count(), n);
    }

    #[test]
    fn out_of_order() {
        let mut t = CidTable::default();
        t.insert(10, 'a');
        t.insert(5, 'b');
        t.insert(3000, 'c');
        t.insert(11, 'd');
        assert_eq!(t.len(), 4);
        assert_eq!(t.get(&5), Some(&'b'));
        assert_eq!(t.get(&3000), Some(&'c'));
        assert_eq!(t.insert(5, 'e'), Some('b'));
        assert_eq!(t.remove(&10), Some('a'));
        assert_eq!(t.remove(&10), None);
        assert_eq!(t.remove(&5), Some('e'));
        assert_eq!(t.remove(&3000), Some('c'));
        assert_eq!(t.remove(&11), Some('d'));
        assert!(t.is_empty());
        t.insert(20, 'x');
        assert_eq!(t.get(&20), Some(&'x'));
    }
}
