//! The shadow of the last writer of every address a nest stored to: per 4-byte granule,
//! the writing site and its full iteration vector (entry number first). A two-level
//! table (4 KiB pages of granules in a hash map, the last page cached) keeps a lookup
//! to a few loads on the hot path.
//!
//! Memory is bounded: all shadows of the process together take at most
//! [`shadow_budget`] bytes; past it, stores to new pages are not shadowed and the
//! shadow says so ([`Shadow::is_full`]), so dependences through those addresses are
//! missing from the profile rather than the program running out of memory.
//! A page starts with granules of 4 bytes; the first store to it of fewer bytes than a
//! granule, or not aligned to one, makes its granules single bytes (four times the
//! shadow of that page), so that neighbouring elements of a byte array (`bool
//! mask[]`) written by neighbouring iterations keep writers of their own instead of
//! sharing one: a false dependence `(0, 1)` between them would call a parallel loop
//! serial. A load needs no refinement: on a page of 4-byte granules every store so far
//! wrote whole granules. Past the budget a page stays coarse.

use std::sync::atomic::{AtomicUsize, Ordering};

use super::hasher::WordMap;

const GRANULE_SHIFT: u32 = 2;
const GRANULE_MASK: u64 = (1 << GRANULE_SHIFT) - 1;
const PAGE_SHIFT: u32 = 12;
const PAGE_MASK: u64 = (1 << PAGE_SHIFT) - 1;
const GRANULES_PER_PAGE: usize = 1 << (PAGE_SHIFT - GRANULE_SHIFT);
/// A wide access shadows at most this many bytes.
const MAX_BYTES_PER_ACCESS: u64 = 64;
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
    /// Per page: whether its granules are single bytes.
    fine: Vec<bool>,
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
            fine: Vec::new(),
            recent: [(NO_PAGE, 0); RECENT_PAGES],
            budget,
            pool,
            full: false,
        }
    }

    pub fn is_full(&self) -> bool {
        self.full
    }

    /// The pieces of `[address, address + size)` (at most [`MAX_BYTES_PER_ACCESS`]
    /// bytes) in each page: (page number, first byte, end byte) within the page.
    fn pieces(address: u64, size: u32) -> impl Iterator<Item = (u64, u64, u64)> {
        let end = address.saturating_add(u64::from(size.max(1)).min(MAX_BYTES_PER_ACCESS));
        let first_page = address >> PAGE_SHIFT;
        let last_page = (end - 1) >> PAGE_SHIFT;
        (first_page..=last_page).map(move |page| {
            let from = address.max(page << PAGE_SHIFT);
            let to = end.min((page + 1) << PAGE_SHIFT);
            (page, from & PAGE_MASK, to - (page << PAGE_SHIFT))
        })
    }

    /// Bytes of shadow of a page of granules of `1 << shift` bytes.
    fn page_bytes(&self, shift: u32) -> usize {
        (1usize << (PAGE_SHIFT - shift)) * self.words * 8
    }

    /// Takes `bytes` from the budget, or says the shadow is full.
    fn charge(&mut self, bytes: usize) -> bool {
        let before = self.pool.fetch_add(bytes, Ordering::Relaxed);
        if before.saturating_add(bytes) > self.budget {
            self.pool.fetch_sub(bytes, Ordering::Relaxed);
            self.full = true;
            return false;
        }
        true
    }

    /// The page of data page `number`, allocated if `allocate` and the budget allows.
    fn page(&mut self, number: u64, allocate: bool) -> Option<usize> {
        let slot = number as usize % RECENT_PAGES;
        if self.recent[slot].0 == number {
            return Some(self.recent[slot].1);
        }
        let index = match self.index.get(&number) {
            Some(&index) => index,
            None if allocate => {
                if !self.charge(self.page_bytes(GRANULE_SHIFT)) {
                    return None;
                }
                self.pages
                    .push(vec![EMPTY; GRANULES_PER_PAGE * self.words].into_boxed_slice());
                self.fine.push(false);
                self.index.insert(number, self.pages.len() - 1);
                self.pages.len() - 1
            }
            None => return None,
        };
        self.recent[slot] = (number, index);
        Some(index)
    }

    /// Makes page `page`'s granules single bytes, each with its 4-byte granule's
    /// writer; false (the page stays coarse) past the budget.
    fn refine(&mut self, page: usize) -> bool {
        let extra = self.page_bytes(0) - self.page_bytes(GRANULE_SHIFT);
        if !self.charge(extra) {
            return false;
        }
        let words = self.words;
        let coarse = &self.pages[page];
        let mut fine = Vec::with_capacity(coarse.len() << GRANULE_SHIFT);
        for granule in coarse.chunks_exact(words) {
            for _ in 0..1 << GRANULE_SHIFT {
                fine.extend_from_slice(granule);
            }
        }
        self.pages[page] = fine.into_boxed_slice();
        self.fine[page] = true;
        true
    }

    /// The granule shift of page `page`.
    fn shift(&self, page: usize) -> u32 {
        if self.fine[page] {
            0
        } else {
            GRANULE_SHIFT
        }
    }

    /// Records `site` at `iv` as the last writer of `[address, address + size)`.
    pub fn store(&mut self, address: u64, size: u32, site: u32, iv: &[i64]) {
        for (number, from, to) in Shadow::pieces(address, size) {
            let Some(page) = self.page(number, true) else {
                continue;
            };
            if !self.fine[page] && (from | to) & GRANULE_MASK != 0 {
                self.refine(page);
            }
            let shift = self.shift(page);
            let words = self.words;
            let n = iv.len().min(words - 1);
            let first = (from >> shift) as usize;
            let last = ((to - 1) >> shift) as usize;
            let slots = &mut self.pages[page][first * words..(last + 1) * words];
            for slot in slots.chunks_exact_mut(words) {
                slot[0] = i64::from(site);
                slot[1..1 + n].copy_from_slice(&iv[..n]);
            }
        }
    }

    /// Calls `found` once per distinct last writer of `[address, address + size)`
    /// (neighbouring granules written by the same store at the same IV count once).
    pub fn load(&mut self, address: u64, size: u32, mut found: impl FnMut(Writer<'_>)) {
        let mut previous: Option<(usize, usize)> = None;
        for (number, from, to) in Shadow::pieces(address, size) {
            let Some(page) = self.page(number, false) else {
                continue;
            };
            let shift = self.shift(page);
            let words = self.words;
            for granule in (from >> shift) as usize..=((to - 1) >> shift) as usize {
                let at = granule * words;
                if self.pages[page][at] == EMPTY {
                    continue;
                }
                if let Some((p, a)) = previous {
                    if self.pages[p][a..a + words] == self.pages[page][at..at + words] {
                        continue;
                    }
                }
                previous = Some((page, at));
                let slot = &self.pages[page][at..at + words];
                found(Writer {
                    site: slot[0] as u32,
                    iv: &slot[1..],
                });
            }
        }
    }
}

impl Drop for Shadow {
    fn drop(&mut self) {
        let bytes: usize = self.pages.iter().map(|page| page.len() * 8).sum();
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
    fn bytes_of_one_granule_keep_their_own_writers() {
        static POOL: AtomicUsize = AtomicUsize::new(0);
        let mut shadow = Shadow::new(2, usize::MAX, &POOL);
        // An int written whole, then a bool array's neighbouring elements written by
        // neighbouring iterations, on another page.
        shadow.store(8192, 4, 1, &[0, 0]);
        for i in 0..8 {
            shadow.store(4096 + i, 1, 2, &[0, i as i64]);
        }
        for i in 0..8 {
            assert_eq!(
                writers(&mut shadow, 4096 + i, 1),
                vec![(2, vec![0, i as i64])]
            );
        }
        // A wider load sees each byte's writer.
        assert_eq!(writers(&mut shadow, 4096, 2).len(), 2);
        // A byte store into the int's page keeps the other bytes' writer.
        shadow.store(8193, 1, 3, &[0, 9]);
        assert_eq!(writers(&mut shadow, 8192, 1), vec![(1, vec![0, 0])]);
        assert_eq!(writers(&mut shadow, 8193, 1), vec![(3, vec![0, 9])]);
        assert_eq!(
            writers(&mut shadow, 8192, 4),
            vec![(1, vec![0, 0]), (3, vec![0, 9]), (1, vec![0, 0])]
        );
        // An access across two pages.
        shadow.store(4096 * 3 - 2, 4, 4, &[1, 1]);
        assert_eq!(writers(&mut shadow, 4096 * 3, 2), vec![(4, vec![1, 1])]);
        assert_eq!(writers(&mut shadow, 4096 * 3 - 2, 2), vec![(4, vec![1, 1])]);
        drop(shadow);
        assert_eq!(POOL.load(Ordering::Relaxed), 0);
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
