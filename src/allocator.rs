//! The process allocator's tuning: glibc's `mallopt` and `malloc_trim`, the
//! one place with `unsafe` (libc calls with no safe wrapper).

/// Allocations of at least this size get pages of their own from the kernel.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const MMAP_THRESHOLD_BYTES: libc::c_int = 64 * 1024;

/// Pins glibc's mmap threshold; call first thing in `main`. By default glibc
/// raises the threshold to the size of each large block freed, so after the
/// first few long messages every later one comes from the heap arenas,
/// which a long-lived server cannot give back: 150 abandoned turns of
/// 250 KiB questions and 1 MiB answers left RSS 118 MiB up with 34 MiB live;
/// with the threshold pinned, 37 MiB up (docs/performance-history.md).
#[allow(unsafe_code)]
pub fn tune() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets an allocator parameter; it runs before any
    // other thread exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES);
    }
}

/// Gives the pages of freed memory back to the system. glibc returns only
/// the top of each heap arena on its own; memory freed inside an arena (the
/// small frames of a burst of long answers) stays resident until this runs.
/// 150 abandoned long sends left 22 MiB resident that one call released
/// (`tests/api/limits.rs`). It walks every arena, so it runs on a blocking
/// thread, a moment after a burst of evictions (the registry calls it).
#[allow(unsafe_code)]
pub fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free pages to the kernel; it takes
    // each arena's own lock, so it is safe beside other threads' allocations.
    unsafe {
        libc::malloc_trim(0);
    }
}
