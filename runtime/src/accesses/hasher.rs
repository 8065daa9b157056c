//! A fast hasher for the runtime's hot-path maps (shadow pages, dependence streams,
//! nests), whose keys are addresses and site numbers of the program itself: no
//! adversary chooses them, so SipHash's flood resistance buys nothing there and costs
//! a fifth of the time of an access.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Multiply-rotate hashing of machine words (in the manner of rustc's FxHasher).
#[derive(Default, Clone, Copy)]
pub struct WordHasher(u64);

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl Hasher for WordHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    fn write_u64(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(SEED);
    }

    fn write_u32(&mut self, word: u32) {
        self.write_u64(u64::from(word));
    }

    fn write_u8(&mut self, word: u8) {
        self.write_u64(u64::from(word));
    }

    fn write_usize(&mut self, word: usize) {
        self.write_u64(word as u64);
    }
}

/// A hash map with [`WordHasher`].
pub type WordMap<K, V> = HashMap<K, V, BuildHasherDefault<WordHasher>>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neighbouring_pages_hash_apart() {
        let hash = |x: u64| {
            let mut hasher = WordHasher::default();
            hasher.write_u64(x);
            hasher.finish()
        };
        assert_ne!(hash(1), hash(2));
        assert_ne!(hash(1) & 0xff, hash(2) & 0xff);
    }
}
