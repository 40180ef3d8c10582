//! Scheduling hints for Confer's own background threads (a libc call with
//! no safe wrapper; `allocator` and `tools::mcp::stdio` are the other places
//! with `unsafe`).

/// How far below the default priority a batch thread runs (`nice` 10: about
/// a tenth of a default thread's share of a busy core under Linux's fair
/// scheduler, and all of an idle one).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const BATCH_NICE: libc::c_int = 10;

/// Lowers the calling thread's priority, for a thread whose work is
/// throughput (the store's flusher), not latency (the workers relaying
/// tokens). On a busy core such a thread then runs when the latency work
/// waits, instead of preempting it; on an idle core nothing changes. Raising
/// `nice` needs no privilege; a failure leaves the thread as it was.
#[allow(unsafe_code)]
pub fn yield_to_latency_work() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: gettid and setpriority take and return plain integers; with
    // PRIO_PROCESS and a thread id, Linux changes that one thread's nice.
    unsafe {
        let thread = libc::syscall(libc::SYS_gettid);
        if let Ok(thread) = libc::id_t::try_from(thread) {
            let _ = libc::setpriority(libc::PRIO_PROCESS, thread, BATCH_NICE);
        }
    }
}

#[cfg(all(test, target_os = "linux", target_env = "gnu"))]
mod tests {
    /// The thread's own nice, as `/proc` shows it (field 19 of its `stat`).
    #[allow(clippy::unwrap_used)]
    fn own_nice() -> i64 {
        // SAFETY: as above, a plain integer.
        #[allow(unsafe_code)]
        let thread = unsafe { libc::syscall(libc::SYS_gettid) };
        let stat = std::fs::read_to_string(format!("/proc/self/task/{thread}/stat")).unwrap();
        let after_name = stat.rsplit_once(')').unwrap().1;
        after_name
            .split_whitespace()
            .nth(16)
            .unwrap()
            .parse()
            .unwrap()
    }

    #[test]
    fn only_the_calling_thread_is_lowered() {
        let before = own_nice();
        let lowered = std::thread::spawn(|| {
            super::yield_to_latency_work();
            own_nice()
        })
        .join()
        .unwrap();
        assert_eq!(lowered, (before + 10).min(19));
        assert_eq!(own_nice(), before, "the other threads keep theirs");
    }
}
