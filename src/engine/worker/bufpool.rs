//! A worker's spare HTTP buffers: read buffers and answer-head buffers the
//! fast path lends to a connection for one request, so that an idle
//! keep-alive connection holds no buffer (memory per idle connection) and a
//! busy one allocates none per request.

use std::cell::RefCell;

use bytes::BytesMut;

/// Most buffers of each kind kept: a burst of connections going idle at
/// once frees the rest.
const KEEP: usize = 256;

/// Largest buffer taken back (a larger one is dropped: the next request
/// of the common kind needs no more than a few KiB).
const KEEP_CAPACITY: usize = 8 * 1024;

#[derive(Default)]
pub struct BufPool {
    reads: RefCell<Vec<BytesMut>>,
    kits: RefCell<Vec<Kit>>,
}

/// The buffers one answer of the fast path uses, taken and given back
/// together: the script's header lines (`http::body::HeadLines`: their
/// text and their list) and the head written out.
#[derive(Default)]
pub struct Kit {
    pub text: Vec<u8>,
    pub lines: Vec<HeadLine>,
    pub out: Vec<u8>,
}

/// A response header line (`http::body::HeadLines`): its name's and its
/// value's ranges in a buffer, and which name it is (`body::name_id`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeadLine {
    pub name: (u32, u32),
    pub value: (u32, u32),
    /// A digest of the name, compared before its bytes.
    pub key: u32,
    pub id: u8,
}

/// Most lines a kept list may have room for.
const KEEP_LINES: usize = 64;

impl BufPool {
    /// An empty read buffer with room for at least `min` bytes.
    pub fn take_read(&self, min: usize) -> BytesMut {
        let mut b = self.reads.borrow_mut().pop().unwrap_or_default();
        b.reserve(min);
        b
    }

    /// Takes `b` back if it is empty and of ordinary size.
    pub fn give_read(&self, mut b: BytesMut) {
        if !b.is_empty() || b.capacity() > KEEP_CAPACITY {
            return;
        }
        // An advanced buffer gets its whole allocation back.
        b.clear();
        let mut reads = self.reads.borrow_mut();
        if reads.len() < KEEP {
            reads.push(b);
        }
    }

    /// Empty buffers for an answer (a part may have no capacity yet: it
    /// grows as it is written).
    #[inline]
    pub fn take_kit(&self) -> Kit {
        self.kits.borrow_mut().pop().unwrap_or_else(|| Kit {
            text: Vec::new(),
            lines: Vec::new(),
            out: Vec::with_capacity(256),
        })
    }

    /// Takes `kit` back, emptied; a part grown past the ordinary size is
    /// dropped (a part may be empty: its buffer went elsewhere).
    #[inline]
    pub fn give_kit(&self, mut kit: Kit) {
        if kit.text.capacity() > KEEP_CAPACITY {
            kit.text = Vec::new();
        }
        if kit.out.capacity() > KEEP_CAPACITY {
            kit.out = Vec::new();
        }
        if kit.lines.capacity() > KEEP_LINES {
            kit.lines = Vec::new();
        }
        kit.text.clear();
        kit.lines.clear();
        kit.out.clear();
        let mut kits = self.kits.borrow_mut();
        if kits.len() < KEEP {
            kits.push(kit);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_come_back_empty_and_large_ones_are_dropped() {
        let p = BufPool::default();
        let mut b = p.take_read(1024);
        assert!(b.capacity() >= 1024);
        b.extend_from_slice(b"GET / HTTP/1.1\r\n\r\n");
        let cap = b.capacity();
        // Not empty: not taken back.
        p.give_read(b.clone());
        assert_eq!(p.reads.borrow().len(), 0);
        bytes::Buf::advance(&mut b, 18);
        p.give_read(b);
        let again = p.take_read(16);
        assert!(again.is_empty() && again.capacity() >= 16 && again.capacity() <= cap);
        p.give_read(BytesMut::with_capacity(KEEP_CAPACITY + 1));
        assert_eq!(p.reads.borrow().len(), 0);

        let mut k = p.take_kit();
        k.out.extend_from_slice(b"HTTP/1.1 200 OK\r\n");
        k.text.extend_from_slice(b"Server: x\r\n");
        k.lines.push(HeadLine {
            name: (0, 6),
            value: (8, 9),
            key: 0,
            id: 0,
        });
        p.give_kit(k);
        let k = p.take_kit();
        assert!(k.out.is_empty() && k.text.is_empty() && k.lines.is_empty());
        assert!(k.out.capacity() > 0 && k.text.capacity() > 0);
        p.give_kit(Kit {
            text: Vec::with_capacity(KEEP_CAPACITY + 1),
            ..Kit::default()
        });
        assert_eq!(p.take_kit().text.capacity(), 0);
    }
}
