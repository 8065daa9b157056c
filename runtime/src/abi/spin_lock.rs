//! The lock around the nest recorder, taken once per access of an instrumented program:
//! an uncontended `std::sync::Mutex` costs two atomic read-modify-writes (lock and
//! unlock), this one costs one (unlock is a release store). Waiters spin briefly, then
//! yield. A panic while the lock is held releases it (the guard's drop runs while
//! unwinding); the data is then as the panic left it, which the recorder tolerates
//! (a stream at worst one point short), so there is no poisoning.

use std::cell::UnsafeCell;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicBool, Ordering};

pub(crate) struct SpinLock<T> {
    locked: AtomicBool,
    value: UnsafeCell<T>,
}

// SAFETY: the value is only reached through a guard, and one guard exists at a time.
unsafe impl<T: Send> Sync for SpinLock<T> {}

pub(crate) struct SpinGuard<'a, T> {
    lock: &'a SpinLock<T>,
}

impl<T> SpinLock<T> {
    pub(crate) const fn new(value: T) -> SpinLock<T> {
        SpinLock {
            locked: AtomicBool::new(false),
            value: UnsafeCell::new(value),
        }
    }

    pub(crate) fn lock(&self) -> SpinGuard<'_, T> {
        let mut spins = 0u32;
        while self
            .locked
            .compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            spins = spins.saturating_add(1);
            if spins < 64 {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
        SpinGuard { lock: self }
    }
}

impl<T> Deref for SpinGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: this guard holds the lock.
        unsafe { &*self.lock.value.get() }
    }
}

impl<T> DerefMut for SpinGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: this guard holds the lock, and is borrowed mutably.
        unsafe { &mut *self.lock.value.get() }
    }
}

impl<T> Drop for SpinGuard<'_, T> {
    fn drop(&mut self) {
        self.lock.locked.store(false, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_take_turns() {
        static COUNTER: SpinLock<u64> = SpinLock::new(0);
        let threads: Vec<_> = (0..4)
            .map(|_| {
                std::thread::spawn(|| {
                    for _ in 0..100_000 {
                        *COUNTER.lock() += 1;
                    }
                })
            })
            .collect();
        for thread in threads {
            thread.join().unwrap();
        }
        assert_eq!(*COUNTER.lock(), 400_000);
    }

    #[test]
    fn a_panic_while_locked_releases_the_lock() {
        static VALUE: SpinLock<u32> = SpinLock::new(1);
        let result = std::panic::catch_unwind(|| {
            let _guard = VALUE.lock();
            panic!("inside");
        });
        assert!(result.is_err());
        assert_eq!(*VALUE.lock(), 1);
    }
}
