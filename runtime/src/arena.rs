//! The runtime's own memory: once an instrumented program first calls the runtime
//! ([`activate`], at the top of every C entry point), every allocation of the
//! runtime's Rust code comes from one anonymous mapping the runtime reserved for
//! itself, never from the program's heap. Without this, the runtime's records land
//! between the program's own `malloc`s (a matrix allocated one row at a time gets rows
//! 25 KB apart instead of 80 bytes), and the run measures a layout the plain program
//! never has (issue 35, item 5).
//!
//! The allocator is the global allocator of any binary that links the runtime with the
//! `abi` feature (the staticlib, `polyrust-prof`, and the compiler plugin, whose build
//! unifies features); until [`activate`] is called it forwards every call to the system
//! allocator, so only an instrumented program ever uses the arena. Blocks freed are
//! routed by address: inside the reserved range they go back to the arena, outside it
//! to the system allocator (a block allocated before activation).
//!
//! The arena is a bump pointer over a reservation of virtual memory (`MAP_NORESERVE`:
//! pages cost memory only once touched) with one free list per power-of-two size
//! class; a block is never returned to the system, so memory stays within twice the
//! peak the runtime used per class. One spin lock guards it: the runtime allocates
//! only when a piece, a dependence, a nest or a shadow page first appears. If the
//! reservation cannot be made, the runtime keeps using the system allocator.
//!
//! The reservation is placed at a fixed address ([`PLACES`]), far from both the
//! program's heap (just after its executable) and the area where the kernel maps from
//! the top down (libraries, and the program's large blocks, which malloc maps one
//! below the other). Where the kernel chooses, the reservation lands just below the
//! program's last large block, and the next one goes below the reservation: 64 GiB
//! apart instead of next to each other (pathfinder's `src` and `dst`). Only if every
//! place is taken (or the address space is too small) does the kernel choose.

use std::alloc::{GlobalAlloc, Layout, System};
use std::ptr::null_mut;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Virtual sizes tried for the reservation, largest first.
const RESERVATIONS: [usize; 4] = [1 << 36, 1 << 34, 1 << 32, 1 << 30];
/// Addresses tried for the reservation, in order: 32, 24 and 48 TiB. On x86-64 (47-bit
/// user addresses) executables and their heaps start near 4 MiB or near 85 TiB, and
/// the kernel maps downwards from just below 128 TiB; 48-bit AArch64 is alike.
const PLACES: [usize; 3] = [0x2000_0000_0000, 0x1800_0000_0000, 0x3000_0000_0000];
/// The smallest block (and its alignment): 16 bytes.
const MIN_CLASS: u32 = 4;
/// Blocks up to this size are aligned to their size; larger ones to a page.
const PAGE: usize = 4096;
/// Size classes: 2^4 .. 2^63.
const CLASSES: usize = 64;

/// The global allocator of the runtime (see the module documentation).
pub struct Arena;

/// Start and end of the reservation (0 while there is none).
static START: AtomicUsize = AtomicUsize::new(0);
static END: AtomicUsize = AtomicUsize::new(0);
/// Set once the runtime is in use: new blocks come from the arena.
static ACTIVE: AtomicBool = AtomicBool::new(false);
/// Set once a reservation was attempted (whether or not it succeeded).
static TRIED: AtomicBool = AtomicBool::new(false);
static LOCK: AtomicBool = AtomicBool::new(false);

/// The bump pointer and the free lists; only touched under [`LOCK`].
struct Heap {
    next: usize,
    free: [usize; CLASSES],
}

static mut HEAP: Heap = Heap {
    next: 0,
    free: [0; CLASSES],
};

/// Makes every later allocation of the runtime come from its own mapping. Cheap after
/// the first call (one relaxed load).
pub fn activate() {
    if TRIED.load(Ordering::Relaxed) {
        return;
    }
    let _guard = lock();
    if TRIED.swap(true, Ordering::Relaxed) {
        return;
    }
    let places = PLACES.iter().map(|&place| Some(place)).chain([None]);
    let Some((start, size)) = places
        .flat_map(|place| RESERVATIONS.iter().map(move |&size| (place, size)))
        .find_map(|(place, size)| reserve(place, size).map(|start| (start, size)))
    else {
        return;
    };
    // SAFETY: under the lock.
    unsafe { (*std::ptr::addr_of_mut!(HEAP)).next = start };
    START.store(start, Ordering::Relaxed);
    END.store(start + size, Ordering::Relaxed);
    ACTIVE.store(true, Ordering::Release);
}

/// Maps `size` bytes of address space at exactly `place` (never over another
/// mapping), or where the kernel chooses for `None`; the start, or `None` if refused.
fn reserve(place: Option<usize>, size: usize) -> Option<usize> {
    let flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE;
    let (address, flags) = match place {
        Some(place) => (
            place as *mut libc::c_void,
            flags | libc::MAP_FIXED_NOREPLACE,
        ),
        None => (null_mut(), flags),
    };
    let protection = libc::PROT_READ | libc::PROT_WRITE;
    // SAFETY: an anonymous private mapping; MAP_FIXED_NOREPLACE never replaces one.
    let start = unsafe { libc::mmap(address, size, protection, flags, -1, 0) };
    if start == libc::MAP_FAILED {
        return None;
    }
    if place.is_some_and(|place| start as usize != place) {
        // A kernel before 4.17 takes the address as a hint only, and chose another.
        // SAFETY: the mapping just made, used by no one.
        unsafe { libc::munmap(start, size) };
        return None;
    }
    Some(start as usize)
}

/// Whether `ptr` was allocated from the arena.
pub fn owns(ptr: *const u8) -> bool {
    let address = ptr as usize;
    address >= START.load(Ordering::Relaxed) && address < END.load(Ordering::Relaxed)
}

struct Guard;

fn lock() -> Guard {
    while LOCK
        .compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed)
        .is_err()
    {
        std::hint::spin_loop();
    }
    Guard
}

impl Drop for Guard {
    fn drop(&mut self) {
        LOCK.store(false, Ordering::Release);
    }
}

/// The size class of `layout`: blocks of `1 << class` bytes.
fn class_of(layout: Layout) -> usize {
    let size = layout.size().max(layout.align()).max(1 << MIN_CLASS);
    size.next_power_of_two().trailing_zeros() as usize
}

/// A block of class `class` aligned to `align`, or null when the reservation is used up.
fn take(class: usize, align: usize) -> *mut u8 {
    if class >= CLASSES {
        return null_mut();
    }
    let size = 1usize << class;
    let natural = size.min(PAGE);
    let _guard = lock();
    // SAFETY: the heap is only touched under the lock.
    let heap = unsafe { &mut *std::ptr::addr_of_mut!(HEAP) };
    let head = heap.free[class];
    if head != 0 && align <= natural {
        // SAFETY: a free block of this class holds the address of the next one.
        heap.free[class] = unsafe { *(head as *const usize) };
        return head as *mut u8;
    }
    let align = align.max(natural);
    let start = (heap.next + align - 1) & !(align - 1);
    match start.checked_add(size) {
        Some(end) if end <= END.load(Ordering::Relaxed) => {
            heap.next = end;
            start as *mut u8
        }
        _ => null_mut(),
    }
}

/// Returns `ptr`, a block of class `class`, to its free list.
fn give_back(ptr: *mut u8, class: usize) {
    let _guard = lock();
    // SAFETY: the heap is only touched under the lock; the block is at least 16 bytes
    // and aligned, and no longer used by anyone.
    unsafe {
        let heap = &mut *std::ptr::addr_of_mut!(HEAP);
        *(ptr as *mut usize) = heap.free[class];
        heap.free[class] = ptr as usize;
    }
}

// SAFETY: blocks are handed out once (bump pointer or free list, under the lock), of
// at least the size and alignment asked; system blocks go back to the system.
unsafe impl GlobalAlloc for Arena {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if ACTIVE.load(Ordering::Acquire) {
            let block = take(class_of(layout), layout.align());
            if !block.is_null() {
                return block;
            }
        }
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if owns(ptr) {
            give_back(ptr, class_of(layout));
        } else {
            unsafe { System.dealloc(ptr, layout) }
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if !owns(ptr) {
            return unsafe { System.realloc(ptr, layout, new_size) };
        }
        // SAFETY: the caller promises a valid layout for the new size.
        let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        if class_of(new_layout) == class_of(layout) {
            return ptr;
        }
        let block = unsafe { self.alloc(new_layout) };
        if !block.is_null() {
            // SAFETY: both blocks hold at least the smaller size; they do not overlap.
            unsafe { std::ptr::copy_nonoverlapping(ptr, block, layout.size().min(new_size)) };
            unsafe { self.dealloc(ptr, layout) };
        }
        block
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_come_from_the_reservation_once_active_and_are_reused() {
        activate();
        // The test binary's global allocator is the arena (lib.rs), now active.
        let first: Vec<u64> = vec![7; 100];
        assert!(owns(first.as_ptr() as *const u8));
        let address = first.as_ptr() as usize;
        drop(first);
        let second: Vec<u64> = vec![9; 100];
        // The same class (1 KiB) comes back from its free list; another test running
        // at the same time may have taken it, so only the ownership is certain.
        assert!(owns(second.as_ptr() as *const u8));
        assert!(address.is_multiple_of(1024));
        let mut growing: Vec<u8> = Vec::with_capacity(3);
        for i in 0..100_000u32 {
            growing.push(i as u8);
        }
        assert!(owns(growing.as_ptr()));
        assert!(growing.iter().enumerate().all(|(i, b)| *b == i as u8));
        let big = vec![1u8; 3 << 20];
        assert!(owns(big.as_ptr()) && (big.as_ptr() as usize).is_multiple_of(PAGE));
    }

    #[test]
    fn the_reservation_is_far_from_the_heap_and_the_kernels_mappings() {
        activate();
        let start = START.load(Ordering::Relaxed);
        assert!(PLACES.contains(&start), "reserved at {start:#x}");
        // The program's heap and a block malloc maps on its own are terabytes away.
        let heap = Box::into_raw(Box::new(0u64));
        let small = unsafe { libc::malloc(64) } as usize;
        let large = unsafe { libc::malloc(1 << 20) } as usize;
        for address in [small, large] {
            assert!(
                address.abs_diff(start) > 1 << 40,
                "{address:#x} near {start:#x}"
            );
        }
        assert!(owns(heap as *const u8));
        unsafe {
            drop(Box::from_raw(heap));
            libc::free(small as *mut libc::c_void);
            libc::free(large as *mut libc::c_void);
        }
    }

    #[test]
    fn classes_cover_size_and_alignment() {
        let class = |size, align| class_of(Layout::from_size_align(size, align).unwrap());
        assert_eq!(class(1, 1), 4);
        assert_eq!(class(16, 8), 4);
        assert_eq!(class(17, 8), 5);
        assert_eq!(class(8, 64), 6);
        assert_eq!(class(4097, 8), 13);
    }
}
