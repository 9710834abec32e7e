//! `CidTable`: the scheduler's coroutines by cid, without hashing on the
//! common path.
//!
//! Cids are handed out in order and most coroutines are short-lived, so the
//! live ones are nearly all among the most recent `SLOTS` cids. Each cid has
//! a slot of its own there (`cid % SLOTS`, direct-mapped); a coroutine that
//! finds its slot still held by one `SLOTS` cids older (a long-lived one)
//! goes to an overflow hash map instead. A lookup, insert or remove is then
//! an index and a compare; the map is consulted only when not empty.

use super::{Cid, CidMap};

/// Direct-mapped slots (a power of two).
const SLOTS: usize = 1024;

#[derive(Clone, Copy)]
struct Slot<V> {
    /// The cid held, 0 for none (cids start at 1).
    cid: Cid,
    v: Option<V>,
}

pub struct CidTable<V: Copy> {
    /// Empty until the first insert.
    slots: Vec<Slot<V>>,
    /// Entries whose slot was taken (or whose cid is not positive).
    overflow: CidMap<V>,
    len: usize,
}

impl<V: Copy> Default for CidTable<V> {
    fn default() -> Self {
        CidTable {
            slots: Vec::new(),
            overflow: CidMap::default(),
            len: 0,
        }
    }
}

impl<V: Copy> CidTable<V> {
    #[inline]
    fn index(cid: Cid) -> usize {
        (cid as usize) & (SLOTS - 1)
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    pub fn get(&self, cid: &Cid) -> Option<V> {
        if let Some(s) = self.slots.get(Self::index(*cid)) {
            if s.cid == *cid && *cid > 0 {
                return s.v;
            }
        }
        if self.overflow.is_empty() {
            return None;
        }
        self.overflow.get(cid).copied()
    }

    #[inline]
    pub fn contains_key(&self, cid: &Cid) -> bool {
        self.get(cid).is_some()
    }

    /// Adds (or replaces) `cid`'s entry; the previous one is returned.
    #[inline(always)]
    pub fn insert(&mut self, cid: Cid, v: V) -> Option<V> {
        if self.slots.is_empty() {
            self.slots = vec![Slot { cid: 0, v: None }; SLOTS];
        }
        let i = Self::index(cid);
        let s = &mut self.slots[i];
        if cid > 0 && s.cid == cid {
            return s.v.replace(v);
        }
        if cid > 0 && s.cid == 0 && (self.overflow.is_empty() || !self.overflow.contains_key(&cid))
        {
            *s = Slot { cid, v: Some(v) };
            self.len += 1;
            return None;
        }
        let old = self.overflow.insert(cid, v);
        if old.is_none() {
            self.len += 1;
        }
        old
    }

    #[inline(always)]
    pub fn remove(&mut self, cid: &Cid) -> Option<V> {
        let i = Self::index(*cid);
        let v = match self.slots.get_mut(i) {
            Some(s) if s.cid == *cid && *cid > 0 => {
                s.cid = 0;
                s.v.take()
            }
            _ if self.overflow.is_empty() => None,
            _ => self.overflow.remove(cid),
        };
        if v.is_some() {
            self.len -= 1;
        }
        v
    }

    /// Every entry, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (Cid, V)> + '_ {
        self.slots
            .iter()
            .filter_map(|s| s.v.map(|v| (s.cid, v)))
            .chain(self.overflow.iter().map(|(k, v)| (*k, *v)))
    }

    /// Every cid, in no particular order.
    pub fn keys(&self) -> impl Iterator<Item = Cid> + '_ {
        self.iter().map(|(k, _)| k)
    }

    /// Every entry, taken out, in no particular order.
    pub fn into_values(self) -> impl Iterator<Item = V> {
        self.slots
            .into_iter()
            .filter_map(|s| s.v)
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
            if cid == 1025 {
                // Slot 1 is cid 1's (long-lived): this one overflows.
                assert!(t.overflow.contains_key(&1025));
            }
            if cid > 10 {
                assert_eq!(t.remove(&(cid - 5)), Some(cid - 5));
            }
        }
        assert_eq!(t.get(&1), Some(1));
        assert_eq!(t.get(&4999), Some(4999));
        assert_eq!(t.get(&100), None);
        assert!(t.contains_key(&4995));
        assert!(!t.contains_key(&7));
        let mut keys: Vec<Cid> = t.keys().collect();
        keys.sort_unstable();
        assert_eq!(keys.len(), t.len());
        assert_eq!(keys, [1, 2, 3, 4, 5, 4995, 4996, 4997, 4998, 4999]);
        assert_eq!(t.remove(&1), Some(1));
        assert_eq!(t.get(&1), None);
        assert_eq!(t.insert(4999, 7), Some(4999));
        assert_eq!(t.get(&4999), Some(7));
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
        assert_eq!(t.get(&5), Some('b'));
        assert_eq!(t.get(&3000), Some('c'));
        assert_eq!(t.insert(5, 'e'), Some('b'));
        assert_eq!(t.remove(&10), Some('a'));
        assert_eq!(t.remove(&10), None);
        assert_eq!(t.remove(&5), Some('e'));
        assert_eq!(t.remove(&3000), Some('c'));
        assert_eq!(t.remove(&11), Some('d'));
        assert!(t.is_empty());
        t.insert(20, 'x');
        assert_eq!(t.get(&20), Some('x'));
    }
}
