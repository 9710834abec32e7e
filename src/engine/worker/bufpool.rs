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
    heads: RefCell<Vec<Vec<u8>>>,
    /// Line lists of the script's response headers (`http::body::HeadLines`,
    /// whose lines go in a head buffer).
    lines: RefCell<Vec<Vec<HeadLine>>>,
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

    /// An empty buffer for an answer's head.
    pub fn take_head(&self) -> Vec<u8> {
        self.heads
            .borrow_mut()
            .pop()
            .unwrap_or_else(|| Vec::with_capacity(256))
    }

    /// An empty line list (room for a few lines once it served before).
    pub fn take_lines(&self) -> Vec<HeadLine> {
        self.lines.borrow_mut().pop().unwrap_or_default()
    }

    /// Gives a line list back (emptied here).
    pub fn give_lines(&self, mut l: Vec<HeadLine>) {
        if l.capacity() == 0 || l.capacity() > KEEP_LINES {
            return;
        }
        l.clear();
        let mut lines = self.lines.borrow_mut();
        if lines.len() < KEEP {
            lines.push(l);
        }
    }

    /// Takes `b` back (emptied) if it is of ordinary size.
    pub fn give_head(&self, mut b: Vec<u8>) {
        if b.capacity() > KEEP_CAPACITY {
            return;
        }
        b.clear();
        let mut heads = self.heads.borrow_mut();
        if heads.len() < KEEP {
            heads.push(b);
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

        let mut h = p.take_head();
        h.extend_from_slice(b"HTTP/1.1 200 OK\r\n");
        p.give_head(h);
        assert!(p.take_head().is_empty());
    }
}
