//! `--pin`: the server gets CPU 0 alone and this generator (client and
//! mock vendor) the other CPUs, so the server's budget is exactly one core
//! and the two never compete for it (issue 18's set-up). Without it, runs
//! of the same binary moved 10–30% between batches.

/// The CPUs this process may run on.
pub(crate) fn cpus() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn set_affinity(pid: libc::pid_t, cpus: impl Iterator<Item = usize>) -> std::io::Result<()> {
    // SAFETY: a zeroed cpu_set_t is the empty set (what CPU_ZERO makes);
    // CPU_SET only writes bits inside it, and sched_setaffinity reads it.
    #[allow(unsafe_code)]
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for cpu in cpus {
            libc::CPU_SET(cpu, &mut set);
        }
        if libc::sched_setaffinity(pid, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Moves this process off CPU 0; call before any other thread starts (the
/// runtime's threads inherit it). Fails on one CPU.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub(crate) fn generator_off_cpu0() -> Result<(), String> {
    let n = cpus();
    if n < 2 {
        return Err("--pin needs at least two CPUs".into());
    }
    set_affinity(0, 1..n).map_err(|e| format!("pinning the generator: {e}"))
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub(crate) fn generator_off_cpu0() -> Result<(), String> {
    Err("--pin is implemented for Linux (glibc) only".into())
}

/// Makes `command`'s process run on CPU 0 only, from before it execs.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub(crate) fn server_on_cpu0(command: &mut std::process::Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: the closure runs in the forked child before exec and only
    // makes one system call (no allocation, no lock).
    #[allow(unsafe_code)]
    unsafe {
        command.pre_exec(|| set_affinity(0, std::iter::once(0)));
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub(crate) fn server_on_cpu0(_command: &mut std::process::Command) {}
