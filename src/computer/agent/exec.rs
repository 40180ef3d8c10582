//! One command in the sandbox: `bash -c` in its own process group under
//! the per-command rlimits, its two streams read with `poll` into their
//! head and tail (and, when asked, sent on as `Output` replies at most
//! every 200 ms), ended by its timeout with its whole group.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::{DRAIN, Replies, Running, WORKSPACE, io_reason, resolve, send};
use crate::computer::output::HeadTail;
use crate::computer::protocol::{Limits, Reply};

#[allow(unsafe_code)]
pub(super) fn kill_group(group: i32) {
    // SAFETY: `kill` takes plain integers; the group is a command's own
    // (`process_group(0)`), so nothing else is signalled.
    unsafe {
        libc::kill(-group, libc::SIGKILL);
    }
}

#[allow(unsafe_code)]
fn set_limits(command: &mut Command, limits: Limits, cpu_secs: u64) {
    let set = move |resource: libc::__rlimit_resource_t, value: u64| {
        let limit = libc::rlimit {
            rlim_cur: value,
            rlim_max: value,
        };
        // SAFETY: `setrlimit` reads the struct on our stack and nothing else.
        if unsafe { libc::setrlimit(resource, &limit) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(())
    };
    // SAFETY: the closure runs in the forked child before `exec` and only
    // calls `setrlimit`, which is async-signal-safe; it allocates nothing.
    unsafe {
        command.pre_exec(move || {
            set(libc::RLIMIT_AS, limits.memory_bytes)?;
            set(libc::RLIMIT_NPROC, limits.processes)?;
            set(libc::RLIMIT_FSIZE, limits.file_bytes)?;
            set(libc::RLIMIT_CPU, cpu_secs)?;
            set(libc::RLIMIT_NOFILE, 1024)?;
            set(libc::RLIMIT_CORE, 0)
        });
    }
}

/// How many processes of this sandbox are in process group `group` (its
/// own `/proc` lists the sandbox's processes only).
fn group_size(group: i32) -> u64 {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    let in_group = |name: &std::ffi::OsStr| {
        let pid = name.to_str()?.parse::<u32>().ok()?;
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // `pid (comm) state ppid pgrp …`: the command may hold spaces.
        let (_, rest) = stat.rsplit_once(") ")?;
        let pgrp = rest.split(' ').nth(2)?.parse::<i32>().ok()?;
        (pgrp == group).then_some(())
    };
    entries
        .flatten()
        .filter(|entry| in_group(&entry.file_name()).is_some())
        .count() as u64
}

/// Kills a process group until none of it is left (a member may fork
/// while the signal goes round), trying a bounded number of times.
fn end_group(group: i32) {
    for _ in 0..10 {
        kill_group(group);
        if group_size(group) == 0 {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// What an `Exec` asks for.
pub(super) struct ExecRequest {
    pub id: u64,
    pub command: String,
    pub cwd: Option<String>,
    pub timeout: Duration,
    pub env: Vec<(String, String)>,
    pub limits: Limits,
    pub keep: usize,
    pub stream: bool,
}

/// How often streamed output is sent on: with two streams, at most ten
/// `Output` replies a second.
const STREAM_EVERY: Duration = Duration::from_millis(200);

/// Output waiting to be streamed, per stream.
struct Streamer<'a> {
    replies: &'a Replies,
    id: u64,
    enabled: bool,
    pending: [Vec<u8>; 2],
    last: Instant,
}

impl Streamer<'_> {
    fn push(&mut self, stream: usize, bytes: &[u8]) {
        if self.enabled {
            self.pending[stream].extend_from_slice(bytes);
        }
    }

    /// Sends what waits, when its time has come or `now`; a character cut
    /// by a read waits for its other bytes.
    fn flush(&mut self, now: bool) {
        if !self.enabled || (!now && self.last.elapsed() < STREAM_EVERY) {
            return;
        }
        self.last = Instant::now();
        for (at, name) in ["stdout", "stderr"].into_iter().enumerate() {
            let pending = &mut self.pending[at];
            if pending.is_empty() {
                continue;
            }
            let ready = match std::str::from_utf8(pending) {
                Ok(_) => pending.len(),
                Err(e) if e.error_len().is_none() && !now => e.valid_up_to(),
                Err(_) => pending.len(),
            };
            let rest = pending.split_off(ready);
            let delta = String::from_utf8_lossy(pending).into_owned();
            *pending = rest;
            if !delta.is_empty() {
                send(
                    self.replies,
                    self.id,
                    Reply::Output {
                        stream: name.into(),
                        delta,
                    },
                );
            }
        }
    }
}

/// The command's two pipes, each `None` once it ended.
struct Pipes {
    out: Option<std::process::ChildStdout>,
    err: Option<std::process::ChildStderr>,
}

/// Reads what is ready on the pipes within `wait` into `take(stream,
/// bytes)`; a pipe that ended is dropped.
#[allow(unsafe_code)]
fn pump(pipes: &mut Pipes, wait: Duration, take: &mut dyn FnMut(usize, &[u8])) {
    use std::os::fd::AsRawFd;
    let mut fds = Vec::with_capacity(2);
    let out = pipes.out.as_ref().map(|p| p.as_raw_fd());
    let err = pipes.err.as_ref().map(|p| p.as_raw_fd());
    for fd in [out, err].into_iter().flatten() {
        fds.push(libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        });
    }
    if fds.is_empty() {
        std::thread::sleep(wait);
        return;
    }
    let millis = i32::try_from(wait.as_millis()).unwrap_or(i32::MAX);
    // SAFETY: `fds` is a live array of `fds.len()` pollfd entries that
    // `poll` only reads and fills in.
    let ready = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, millis) };
    if ready <= 0 {
        return;
    }
    let mut buffer = [0u8; 16 * 1024];
    for fd in fds.iter().filter(|fd| fd.revents != 0) {
        let is_out = Some(fd.fd) == out;
        let read = match is_out {
            true => pipes.out.as_mut().map(|p| p.read(&mut buffer)),
            false => pipes.err.as_mut().map(|p| p.read(&mut buffer)),
        };
        match read {
            Some(Ok(n)) if n > 0 => take(usize::from(!is_out), &buffer[..n]),
            _ if is_out => pipes.out = None,
            _ => pipes.err = None,
        }
    }
}

/// Runs one command to its end (or its timeout); its `Exec` reply.
pub(super) fn exec(request: ExecRequest, running: &Running, replies: &Replies) -> Reply {
    let started = Instant::now();
    let cwd = resolve(request.cwd.as_deref().unwrap_or(WORKSPACE));
    let mut child = Command::new("/bin/bash");
    child
        .arg("-c")
        .arg(&request.command)
        .env_clear()
        .envs(request.env.iter().map(|(k, v)| (k, v)))
        .current_dir(&cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    set_limits(&mut child, request.limits, request.timeout.as_secs() + 5);
    let mut child = match child.spawn() {
        Ok(child) => child,
        Err(e) => {
            return Reply::Error {
                message: io_reason(&e, &cwd),
            };
        }
    };
    let id = request.id;
    let group = i32::try_from(child.id()).unwrap_or(i32::MAX);
    running
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(id, group);
    let mut pipes = Pipes {
        out: child.stdout.take(),
        err: child.stderr.take(),
    };
    let mut kept = [HeadTail::new(request.keep), HeadTail::new(request.keep)];
    let mut streamer = Streamer {
        replies,
        id,
        enabled: request.stream,
        pending: [Vec::new(), Vec::new()],
        last: Instant::now(),
    };
    let deadline = started + request.timeout;
    let mut timed_out = false;
    let mut exited: Option<(std::process::ExitStatus, Instant)> = None;
    // Once both pipes closed, the shell's exit is waited for from 1 ms
    // up (a command's own pace), not at the pipes' 20 ms.
    let mut backoff = Duration::from_millis(1);
    loop {
        let wait = match pipes.out.is_none() && pipes.err.is_none() {
            true => {
                backoff = (backoff * 2).min(Duration::from_millis(20));
                backoff / 2
            }
            false => Duration::from_millis(20),
        };
        pump(&mut pipes, wait, &mut |stream, bytes| {
            kept[stream].push(bytes);
            streamer.push(stream, bytes);
        });
        streamer.flush(false);
        if exited.is_none() {
            match child.try_wait() {
                Ok(Some(status)) => exited = Some((status, Instant::now())),
                Ok(None) if Instant::now() >= deadline => {
                    timed_out = true;
                    kill_group(group);
                    if let Ok(status) = child.wait() {
                        exited = Some((status, Instant::now()));
                    }
                }
                _ => {}
            }
        }
        let drained = pipes.out.is_none() && pipes.err.is_none();
        match exited {
            Some((_, at)) if drained || at.elapsed() >= DRAIN => break,
            None if child.try_wait().is_err() => break,
            _ => {}
        }
    }
    streamer.flush(true);
    running
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .remove(&id);
    // A group left holding a quarter of the process limit after its shell
    // ended is a fork bomb, not background work: it goes, and the result
    // says which limit it met. (A bomb that collapsed by itself before
    // the shell ended is only its exit status.)
    let process_limit = !timed_out && group_size(group) * 4 >= request.limits.processes;
    if timed_out || process_limit {
        // Whatever the group started meanwhile goes with it.
        end_group(group);
    }
    let status = exited.map(|(status, _)| status);
    let [stdout, stderr] = kept;
    Reply::Exec {
        process_limit,
        exit_code: status.and_then(|s| s.code()),
        signal: status.and_then(|s| std::os::unix::process::ExitStatusExt::signal(&s)),
        timed_out,
        stdout: stdout.finish(),
        stderr: stderr.finish(),
        duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
    }
}
