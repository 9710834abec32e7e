//! The two string hashes `swoole_hashcode()` offers, and the integer hasher
//! of the maps keyed by our own ids (connections, coroutines, fds).

/// PHP's string hash (`zend_hash_func`): DJBX33A from 5381, with the high
/// bit set as PHP sets it so a hash is never 0.
pub fn zend_hash(data: &[u8]) -> u64 {
    let h = data.iter().fold(5381u64, |h, &b| {
        h.wrapping_mul(33).wrapping_add(u64::from(b))
    });
    h | 0x8000_0000_0000_0000
}

/// Bob Jenkins' one-at-a-time hash over 32 bits.
pub fn one_at_a_time(data: &[u8]) -> u32 {
    let mut h = data.iter().fold(0u32, |mut h, &b| {
        h = h.wrapping_add(u32::from(b));
        h = h.wrapping_add(h << 10);
        h ^ (h >> 6)
    });
    h = h.wrapping_add(h << 3);
    h ^= h >> 11;
    h.wrapping_add(h << 15)
}

/// Fibonacci hashing of one integer, for a `HashMap` keyed by our own
/// sequential ids (connection ids, cids, fds): nothing to defend against,
/// and SipHash cost ~350 instructions per lookup on paths that look an id
/// up several times per request or message.
#[derive(Default, Clone, Copy)]
pub struct IntHasher(u64);

impl std::hash::Hasher for IntHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Not used for integer keys; kept correct for any other input.
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_i64(&mut self, n: i64) {
        self.0 = (n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }

    fn write_i32(&mut self, n: i32) {
        self.write_i64(i64::from(n));
    }
}

/// `BuildHasher` of [`IntHasher`].
pub type IntBuild = std::hash::BuildHasherDefault<IntHasher>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        // What PHP 8.2 with Swoole 6.2.2 returns for swoole_hashcode('abc', 0|1).
        assert_eq!(zend_hash(b"abc") as i64, -9223372036661289845);
        assert_eq!(one_at_a_time(b"abc"), 3977453403);
        assert_eq!(zend_hash(b""), 5381 | 0x8000_0000_0000_0000);
    }
}
