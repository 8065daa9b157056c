//! The C ABI the instrumented program calls (`runtime/include/polyrust_rt.h`).
//! `polyrust_rt_enter` is called at each entry of an instrumented loop nest: it takes a
//! lock, updates the region's counters and returns; no I/O. Under
//! `-polyrust-instrument=accesses`, `polyrust_rt_nest_enter` counts an entry and
//! `polyrust_rt_access` folds one access (into its thread's own recorder; no I/O
//! either); a nest with a plain copy calls `polyrust_rt_nest_begin` instead, which says
//! which copy runs,
//! `polyrust_rt_nest_next` between outermost iterations of the instrumented copy
//! (whether to go on in the plain one) and `polyrust_rt_nest_plain` at each
//! outermost iteration of the plain copy (a thread-local count). The first
//! recorded entry registers an exit handler that writes the profile.
//! With `POLYRUST_TRACE=DIR`, the exit handler also writes the compressed trace of each
//! nest and thread into DIR (`trace::file`).
//! Nothing here may take the program down: bad descriptors are ignored, a panic stops
//! at the boundary (`catch_unwind`), and a profile that cannot be written costs one
//! line on stderr.

mod descriptor;
mod nest_descriptor;
mod nest_recorder;
mod output;
mod recorder;
mod spin_lock;

use std::cell::Cell;
use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Mutex, MutexGuard, Once};

pub use descriptor::{RegionDescriptor, ABI_VERSION};
pub use nest_descriptor::{NestDescriptor, SiteDescriptor, NEST_ABI_VERSION};
pub use output::{DEFAULT_PROFILE_FILE, PROFILE_FILE_VARIABLE};

use crate::profile::PROFILE_FORMAT_VERSION;
use nest_recorder::NestRecorder;
use recorder::Recorder;
use spin_lock::{SpinGuard, SpinLock};

static RECORDER: Mutex<Option<Recorder>> = Mutex::new(None);
/// Every thread's nest recorder, in the order threads first recorded: each thread folds
/// into its own (each thread's executions of a nest are folded apart anyway), so no
/// lock is shared on the hot path. A recorder lives until the process ends (leaked:
/// its thread may end before the profile is written). Locked after `RECORDER`, and
/// before any thread's recorder, when writing the profile.
static THREAD_NESTS: Mutex<Vec<&'static SpinLock<Option<NestRecorder>>>> = Mutex::new(Vec::new());
/// The recorder of calls made while their thread's own is out of reach (the thread is
/// being torn down).
static ORPHAN_NESTS: SpinLock<Option<NestRecorder>> = SpinLock::new(None);
static EXIT_HANDLER: Once = Once::new();

/// Loads and stores counted without the lock before they are added to their record.
const UNFOLDED_FLUSH: u64 = 1 << 16;

thread_local! {
    /// This thread's nest recorder, once it has recorded.
    static MY_NESTS: Cell<Option<&'static SpinLock<Option<NestRecorder>>>> =
        const { Cell::new(None) };
    /// The nest whose current entry this thread only counts (its descriptor, NULL for
    /// none) and the loads and stores counted since they were last added to its
    /// record. An entry past the folded ones then costs a thread-local increment per
    /// access instead of the lock; the count is added to the record at the next entry
    /// of any nest, every [`UNFOLDED_FLUSH`] accesses, and when this thread writes the
    /// profile (another thread's last few are lost if it is still running then).
    static UNFOLDED: Cell<(*const NestDescriptor, u64)> =
        const { Cell::new((std::ptr::null(), 0)) };
    /// The same for the nest whose plain copy this thread runs, with the iterations of
    /// its outermost loop counted since they were last added to its record.
    static PLAIN: Cell<(*const NestDescriptor, u64)> =
        const { Cell::new((std::ptr::null(), 0)) };
}

/// Adds this thread's pending counts to their records; the caller holds the nest lock.
fn flush_unfolded(recorder: &mut NestRecorder) {
    let _ = UNFOLDED.try_with(|unfolded| {
        let (nest, accesses) = unfolded.get();
        if !nest.is_null() && accesses > 0 {
            // SAFETY: only descriptors the program passed (constants) are kept.
            unsafe { recorder.count_unfolded(&*nest, accesses) };
            unfolded.set((nest, 0));
        }
    });
    let _ = PLAIN.try_with(|plain| {
        let (nest, iterations) = plain.get();
        if !nest.is_null() && iterations > 0 {
            // SAFETY: as above.
            unsafe { recorder.count_plain(&*nest, iterations) };
            plain.set((nest, 0));
        }
    });
}

/// Makes `nest` (NULL for none) the one whose plain copy this thread runs.
fn set_plain(nest: *const NestDescriptor) {
    let _ = PLAIN.try_with(|plain| plain.set((nest, 0)));
}

/// Counts the access if this thread is in an entry of `nest` that is only counted;
/// returns whether it did (then nothing else is to be done).
///
/// # Safety
/// `nest` is a valid descriptor.
unsafe fn count_without_lock(nest: *const NestDescriptor, site: u32) -> bool {
    UNFOLDED
        .try_with(|unfolded| {
            let (current, accesses) = unfolded.get();
            if current != nest || nest.is_null() {
                return false;
            }
            // SAFETY: as promised by the caller.
            if unsafe { (*nest).is_memory_site(site) } {
                if accesses + 1 >= UNFOLDED_FLUSH {
                    unfolded.set((nest, accesses + 1));
                    if let Some(recorder) = lock_nests().as_mut() {
                        flush_unfolded(recorder);
                    }
                } else {
                    unfolded.set((nest, accesses + 1));
                }
            }
            true
        })
        .unwrap_or(false)
}

/// The recorder, even if a panic elsewhere poisoned the lock: counters are updated one
/// field at a time, so the worst a poisoned recorder holds is one half-counted entry.
fn lock_recorder() -> MutexGuard<'static, Option<Recorder>> {
    RECORDER
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// This thread's nest recorder, locked: only the profile's writer takes it from
/// another thread (a panic while it was held left at worst a stream one point short).
fn lock_nests() -> SpinGuard<'static, Option<NestRecorder>> {
    MY_NESTS
        .try_with(|mine| match mine.get() {
            Some(nests) => nests,
            None => {
                let nests: &'static SpinLock<Option<NestRecorder>> =
                    Box::leak(Box::new(SpinLock::new(None)));
                lock_thread_nests().push(nests);
                mine.set(Some(nests));
                nests
            }
        })
        .unwrap_or(&ORPHAN_NESTS)
        .lock()
}

/// The list of every thread's recorder (poisoning ignored: a push is all it sees).
fn lock_thread_nests() -> MutexGuard<'static, Vec<&'static SpinLock<Option<NestRecorder>>>> {
    THREAD_NESTS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Counts one entry of the loop nest `nest` (accesses ABI).
///
/// # Safety
/// `nest` is NULL or points to a descriptor whose pointers are NULL or valid as
/// documented in `polyrust_rt.h`.
#[no_mangle]
pub unsafe extern "C" fn polyrust_rt_nest_enter(nest: *const NestDescriptor) {
    // SAFETY: as promised by the caller.
    unsafe { enter_nest(nest) };
}

/// Counts one entry of the loop nest `nest`, which has a plain copy; returns 1 if the
/// instrumented nest is to run (its accesses are folded), 0 if the plain copy is.
///
/// # Safety
/// As [`polyrust_rt_nest_enter`].
#[no_mangle]
pub unsafe extern "C" fn polyrust_rt_nest_begin(nest: *const NestDescriptor) -> u32 {
    // SAFETY: as promised by the caller.
    let recorded = unsafe { enter_nest(nest) } == Some(true);
    set_plain(if recorded { std::ptr::null() } else { nest });
    u32::from(recorded)
}

/// Called by the instrumented copy of `nest` before each iteration of its outermost
/// loop but the first: returns 1 if the rest of the entry is to run in the plain copy.
///
/// # Safety
/// As [`polyrust_rt_nest_enter`].
#[no_mangle]
pub unsafe extern "C" fn polyrust_rt_nest_next(nest: *const NestDescriptor) -> u32 {
    crate::arena::activate();
    catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: as promised by the caller; NULL is checked here.
        let Some(nest) = (unsafe { nest.as_ref() }) else {
            return 0;
        };
        let leaves = {
            let mut nests = lock_nests();
            let recorder = nests.get_or_insert_with(NestRecorder::default);
            flush_unfolded(recorder);
            unsafe { recorder.leaves_for_plain(nest) }
        };
        if leaves {
            set_plain(nest);
        }
        u32::from(leaves)
    }))
    .unwrap_or(0)
}

/// Counts one iteration of the outermost loop of the plain copy of `nest`: without
/// the lock when this thread's last `begin` or `next` sent it there.
///
/// # Safety
/// As [`polyrust_rt_nest_enter`].
#[no_mangle]
pub unsafe extern "C" fn polyrust_rt_nest_plain(nest: *const NestDescriptor) {
    let counted = PLAIN
        .try_with(|plain| {
            let (current, iterations) = plain.get();
            let mine = current == nest && !nest.is_null();
            if mine {
                plain.set((nest, iterations + 1));
            }
            mine
        })
        .unwrap_or(false);
    if counted {
        return;
    }
    crate::arena::activate();
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: as promised by the caller; NULL is checked here.
        let Some(nest) = (unsafe { nest.as_ref() }) else {
            return;
        };
        let mut nests = lock_nests();
        let recorder = nests.get_or_insert_with(NestRecorder::default);
        unsafe { recorder.count_plain(nest, 1) };
    }));
}

/// Counts one entry of `nest`: `None` if it is not recorded, else whether this entry's
/// accesses are folded; sets this thread's counting without the lock to match.
///
/// # Safety
/// As [`polyrust_rt_nest_enter`].
unsafe fn enter_nest(nest: *const NestDescriptor) -> Option<bool> {
    crate::arena::activate();
    catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: as promised by the caller; NULL is checked here.
        let nest = unsafe { nest.as_ref() }?;
        let entered = {
            let mut nests = lock_nests();
            let recorder = nests.get_or_insert_with(NestRecorder::default);
            flush_unfolded(recorder);
            unsafe { recorder.enter(nest) }
        };
        let counted_only = entered == Some(false);
        let _ = UNFOLDED.try_with(|unfolded| {
            let current = if counted_only {
                nest as *const NestDescriptor
            } else {
                std::ptr::null()
            };
            unfolded.set((current, 0));
        });
        if entered.is_some() {
            EXIT_HANDLER.call_once(register_exit_handler);
        }
        entered
    }))
    .unwrap_or(None)
}

/// Records one execution of site `site` of `nest` at loop counters `iv` (as many as
/// the site's depth, outermost first) touching `address`.
///
/// # Safety
/// `nest` is NULL or a valid descriptor; `iv` is NULL or points to the site's depth of
/// counters.
#[no_mangle]
pub unsafe extern "C" fn polyrust_rt_access(
    nest: *const NestDescriptor,
    site: u32,
    iv: *const i64,
    address: u64,
) {
    // SAFETY: as promised by the caller (NULL never matches).
    if unsafe { count_without_lock(nest, site) } {
        return;
    }
    crate::arena::activate();
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: as promised by the caller; NULL is checked here.
        let Some(nest) = (unsafe { nest.as_ref() }) else {
            return;
        };
        let mut nests = lock_nests();
        let recorder = nests.get_or_insert_with(NestRecorder::default);
        unsafe { recorder.access(nest, site, iv, address) };
    }));
}

/// Records one entry of the loop nest `region` with its `values` and address `ranges`.
///
/// # Safety
/// `region` is NULL or points to a descriptor whose pointers are NULL or valid as
/// documented; `values` is NULL or points to `num_values` values; `ranges` is NULL or
/// points to `2 * num_ranges` addresses (`[low, high)` pairs).
#[no_mangle]
pub unsafe extern "C" fn polyrust_rt_enter(
    region: *const RegionDescriptor,
    values: *const i64,
    ranges: *const u64,
) {
    crate::arena::activate();
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: as promised by the caller; NULL is checked here.
        let Some(region) = (unsafe { region.as_ref() }) else {
            return;
        };
        let recorded = unsafe {
            lock_recorder()
                .get_or_insert_with(Recorder::default)
                .enter(region, values, ranges)
        };
        if recorded {
            EXIT_HANDLER.call_once(register_exit_handler);
        }
    }));
}

/// Writes the profile now (the exit handler writes it again at exit).
#[no_mangle]
pub extern "C" fn polyrust_rt_write_profile() {
    crate::arena::activate();
    let _ = catch_unwind(write_profile);
}

/// For programs and build scripts that want to check which runtime they linked.
#[no_mangle]
pub extern "C" fn polyrust_rt_profile_format_version() -> u32 {
    PROFILE_FORMAT_VERSION
}

fn register_exit_handler() {
    extern "C" fn write_at_exit() {
        crate::arena::activate();
        let _ = catch_unwind(write_profile);
    }
    // SAFETY: atexit only stores the function pointer.
    if unsafe { libc::atexit(write_at_exit) } != 0 {
        report("cannot register the exit handler; call polyrust_rt_write_profile() to write the profile");
    }
}

/// Writes everything recorded to the profile path, holding the lock so that two
/// writers (a thread calling `polyrust_rt_write_profile` and the exit handler) take turns.
fn write_profile() {
    let recorder = lock_recorder();
    // This thread's pending counts (another thread's last few are lost if it is still
    // running). Before the list is locked: a first recorder is added to it.
    if let Some(nests) = lock_nests().as_mut() {
        flush_unfolded(nests);
    }
    let threads = lock_thread_nests();
    let mut all: Vec<SpinGuard<'static, Option<NestRecorder>>> = threads
        .iter()
        .copied()
        .chain([&ORPHAN_NESTS])
        .map(SpinLock::lock)
        .collect();
    let (mut profile, mut compiled_path) = match recorder.as_ref() {
        Some(recorder) => (recorder.profile(), recorder.default_path()),
        None => (crate::profile::Profile::empty(), None),
    };
    let mut refusals: Vec<&str> = Vec::new();
    for nests in all.iter().filter_map(|guard| guard.as_ref()) {
        profile.nests.extend(nests.profiles());
        profile.static_nests.extend(nests.static_nests());
        compiled_path = compiled_path.or(nests.default_path());
        for refusal in nests.refused() {
            if !refusals.contains(&refusal.as_str()) {
                refusals.push(refusal);
            }
        }
    }
    profile.canonicalize();
    for refusal in refusals {
        report(refusal);
    }

    let path = output::profile_path(
        std::env::var_os(PROFILE_FILE_VARIABLE),
        compiled_path,
        std::process::id(),
    );
    if let Some(parent) = path
        .parent()
        .filter(|parent| !parent.as_os_str().is_empty())
    {
        // A missing folder is created, as clang's profile runtime does; if that fails,
        // the write below says why.
        let _ = std::fs::create_dir_all(parent);
    }
    if let Err(error) = profile.write(&path) {
        report(&error.to_string());
    }
    let mut sequence = 0;
    for nests in all.iter_mut().filter_map(|guard| guard.as_mut()) {
        for problem in nests.write_traces(sequence) {
            report(&problem);
        }
        sequence += nests.len();
    }
}

/// One line on stderr; never panics, even with stderr closed.
fn report(message: &str) {
    let _ = writeln!(std::io::stderr(), "polyrust_rt: {message}");
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each thread folds into its own recorder, which the profile's writer finds in
    /// the list of all of them: no lock is shared on the hot path.
    #[test]
    fn each_thread_records_into_its_own_recorder_and_all_are_listed() {
        let recorder_of_this_thread = || {
            let mut nests = lock_nests();
            nests.get_or_insert_with(NestRecorder::default);
            &*nests as *const Option<NestRecorder> as usize
        };
        let here = recorder_of_this_thread();
        assert_eq!(recorder_of_this_thread(), here);
        let others: Vec<usize> = (0..3)
            .map(|_| std::thread::spawn(recorder_of_this_thread))
            .collect::<Vec<_>>()
            .into_iter()
            .map(|thread| thread.join().unwrap())
            .collect();
        let mut all = others.clone();
        all.push(here);
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), 4);
        // Locking every thread's recorder at once, as the writer does, waits for none.
        let listed: Vec<usize> = lock_thread_nests()
            .iter()
            .map(|lock| &*lock.lock() as *const Option<NestRecorder> as usize)
            .collect();
        for recorder in all {
            assert!(listed.contains(&recorder));
        }
    }
}
