//! The shadow of the last writer of every address a nest stored to: per 4-byte granule,
//! the writing site and its full iteration vector (entry number first). A two-level
//! table (4 KiB pages of granules in a hash map, the last page cached) keeps a lookup
//! to a few loads on the hot path.
//!
//! Memory is bounded: all shadows of the process together take at most
//! [`shadow_budget`] bytes; past it, stores to new pages are not shadowed and the
//! shadow says so ([`Shadow::is_full`]), so dependences through those addresses are
//! missing from the profile rather than the program running out of memory.
//! Granules of 4 bytes mean that two different bytes of one granule share a writer: a
//! byte array written by neighbouring iterations can show dependences it does not
//! have.

use std::sync::atomic::{AtomicUsize, Ordering};

use super::hasher::WordMap;

const GRANULE_SHIFT: u32 = 2;
const PAGE_SHIFT: u32 = 12;
const GRANULES_PER_PAGE: usize = 1 << (PAGE_SHIFT - GRANULE_SHIFT);
/// A wide access shadows at most this many granules (64 bytes).
const MAX_GRANULES_PER_ACCESS: u64 = 16;
/// Entries of the page cache (a power of two).
const RECENT_PAGES: usize = 64;
/// A page number no address has (addresses are 64-bit, pages 4 KiB).
const NO_PAGE: u64 = u64::MAX;
/// No writer in this granule.
const EMPTY: i64 = -1;

/// Bytes of shadow all nests of the process may allocate:
/// `POLYRUST_SHADOW_MB` (MiB) if set, else 256 MiB.
pub fn shadow_budget() -> usize {
    std::env::var("POLYRUST_SHADOW_MB")
        .ok()
        .and_then(|mb| mb.trim().parse::<usize>().ok())
        .unwrap_or(256)
        .saturating_mul(1 << 20)
}

/// Shadow bytes allocated by every nest of the process.
pub static PROCESS_SHADOW_BYTES: AtomicUsize = AtomicUsize::new(0);

/// The last writer of each granule of one nest.
pub struct Shadow {
    /// Words per granule: the site, then the IV positions (padded with 0).
    words: usize,
    index: WordMap<u64, usize>,
    pages: Vec<Box<[i64]>>,
    /// Direct-mapped cache of (page number, index into `pages`): a nest touches a few
    /// arrays in turn, each in its own page.
    recent: [(u64, usize); RECENT_PAGES],
    budget: usize,
    /// The bytes allocated by every shadow that shares the budget.
    pool: &'static AtomicUsize,
    full: bool,
}

/// A granule's last writer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Writer<'a> {
    pub site: u32,
    /// The full IV of the write (`positions` words; only the writer's own are meaningful).
    pub iv: &'a [i64],
}

impl Shadow {
    /// A shadow for IVs of at most `positions` positions, drawing on `budget` bytes
    /// shared by every shadow counted in `pool` (the process's is
    /// [`PROCESS_SHADOW_BYTES`]).
    pub fn new(positions: usize, budget: usize, pool: &'static AtomicUsize) -> Shadow {
        Shadow {
            words: 1 + positions,
            index: WordMap::default(),
            pages: Vec::new(),
            recent: [(NO_PAGE, 0); RECENT_PAGES],
            budget,
            pool,
            full: false,
        }
    }

    pub fn is_full(&self) -> bool {
        self.full
    }

    fn granules(address: u64, size: u32) -> impl Iterator<Item = u64> {
        let first = address >> GRANULE_SHIFT;
        let last = address.saturating_add(u64::from(size.max(1)) - 1) >> GRANULE_SHIFT;
        first..=last.min(first + MAX_GRANULES_PER_ACCESS - 1)
    }

    /// The page holding `granule`, allocated if `allocate` and the budget allows.
    fn page(&mut self, granule: u64, allocate: bool) -> Option<usize> {
        let number = granule >> (PAGE_SHIFT - GRANULE_SHIFT);
        let slot = number as usize % RECENT_PAGES;
        if self.recent[slot].0 == number {
            return Some(self.recent[slot].1);
        }
        let index = match self.index.get(&number) {
            Some(&index) => index,
            None if allocate => {
                let bytes = GRANULES_PER_PAGE * self.words * 8;
                let before = self.pool.fetch_add(bytes, Ordering::Relaxed);
                if before.saturating_add(bytes) > self.budget {
                    self.pool.fetch_sub(bytes, Ordering::Relaxed);
                    self.full = true;
                    return None;
                }
                self.pages
                    .push(vec![EMPTY; GRANULES_PER_PAGE * self.words].into_boxed_slice());
                self.index.insert(number, self.pages.len() - 1);
                self.pages.len() - 1
            }
            None => return None,
        };
        self.recent[slot] = (number, index);
        Some(index)
    }

    /// Records `site` at `iv` as the last writer of `[address, address + size)`.
    pub fn store(&mut self, address: u64, size: u32, site: u32, iv: &[i64]) {
        for granule in Shadow::granules(address, size) {
            let Some(page) = self.page(granule, true) else {
                continue;
            };
            let at = (granule as usize % GRANULES_PER_PAGE) * self.words;
            let slot = &mut self.pages[page][at..at + self.words];
            slot[0] = i64::from(site);
            let n = iv.len().min(self.words - 1);
            slot[1..1 + n].copy_from_slice(&iv[..n]);
        }
    }

    /// Calls `found` once per distinct last writer of `[address, address + size)`
    /// (neighbouring granules written by the same store at the same IV count once).
    pub fn load(&mut self, address: u64, size: u32, mut found: impl FnMut(Writer<'_>)) {
        let mut previous: Option<(usize, usize)> = None;
        for granule in Shadow::granules(address, size) {
            let Some(page) = self.page(granule, false) else {
                continue;
            };
            let at = (granule as usize % GRANULES_PER_PAGE) * self.words;
            if self.pages[page][at] == EMPTY {
                continue;
            }
            if let Some((p, a)) = previous {
                if self.pages[p][a..a + self.words] == self.pages[page][at..at + self.words] {
                    continue;
                }
            }
            previous = Some((page, at));
            let slot = &self.pages[page][at..at + self.words];
            found(Writer {
                site: slot[0] as u32,
                iv: &slot[1..],
            });
        }
    }
}

impl Drop for Shadow {
    fn drop(&mut self) {
        let bytes = self.pages.len() * GRANULES_PER_PAGE * self.words * 8;
        self.pool.fetch_sub(bytes, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn writers(shadow: &mut Shadow, address: u64, size: u32) -> Vec<(u32, Vec<i64>)> {
        let mut seen = Vec::new();
        shadow.load(address, size, |writer| {
            seen.push((writer.site, writer.iv.to_vec()))
        });
        seen
    }

    #[test]
    fn a_load_sees_the_last_store_of_its_bytes() {
        static POOL: AtomicUsize = AtomicUsize::new(0);
        let mut shadow = Shadow::new(2, usize::MAX, &POOL);
        assert!(writers(&mut shadow, 4096, 8).is_empty());
        shadow.store(4096, 8, 3, &[0, 1]);
        shadow.store(4096, 8, 3, &[0, 2]);
        assert_eq!(writers(&mut shadow, 4096, 8), vec![(3, vec![0, 2])]);
        // Half of the double written by another site: two writers.
        shadow.store(4100, 4, 5, &[0, 3]);
        assert_eq!(
            writers(&mut shadow, 4096, 8),
            vec![(3, vec![0, 2]), (5, vec![0, 3])]
        );
        assert!(writers(&mut shadow, 4104, 4).is_empty());
    }

    #[test]
    fn past_the_budget_stores_are_dropped_and_the_shadow_says_so() {
        let page_bytes = GRANULES_PER_PAGE * 3 * 8;
        static POOL: AtomicUsize = AtomicUsize::new(0);
        let mut shadow = Shadow::new(2, page_bytes, &POOL);
        shadow.store(0, 4, 1, &[0, 0]);
        assert!(!shadow.is_full());
        shadow.store(1 << 20, 4, 1, &[0, 1]);
        assert!(shadow.is_full());
        assert!(writers(&mut shadow, 1 << 20, 4).is_empty());
        assert_eq!(writers(&mut shadow, 0, 4).len(), 1);
    }
}
