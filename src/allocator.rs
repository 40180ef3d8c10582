//! The process allocator's tuning: glibc's `mallopt`, the one place with
//! `unsafe` (a libc call with no safe wrapper). (`malloc_trim` after actor
//! evictions was measured too and changed nothing: what stays resident is
//! live.)

/// Allocations of at least this size get pages of their own from the kernel.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const MMAP_THRESHOLD_BYTES: libc::c_int = 64 * 1024;

/// Pins glibc's mmap threshold; call first thing in `main`. By default glibc
/// raises the threshold to the size of each large block freed, so after the
/// first few long messages every later one comes from the heap arenas,
/// which a long-lived server cannot give back: 150 abandoned turns of
/// 250 KiB questions and 1 MiB answers left RSS 118 MiB up with 34 MiB live;
/// with the threshold pinned, 37 MiB up (docs/performance.md).
#[allow(unsafe_code)]
pub fn tune() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets an allocator parameter; it runs before any
    // other thread exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES);
    }
}
