//! `confer sandbox-agent`: the helper that runs inside a local sandbox
//! (`computer.md` §1). It reads [`Request`]s on standard input and
//! answers on standard output, so every path it is given resolves inside
//! the sandbox. Each command runs in a thread of its own (a `Signal` may
//! arrive meanwhile); reads and writes are done at once. It ends when its
//! input does.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::output::HeadTail;
use super::protocol::{Envelope, Limits, Reply, Request, read_message, write_message};

/// The sandbox's workspace, where relative paths start.
pub const WORKSPACE: &str = "/workspace";
/// The largest file `Read` and `Write` handle (`computer.md` §3).
pub const MAX_FILE: usize = 1 << 20;
/// How many entries a directory's listing holds at most.
const MAX_ENTRIES: usize = 1000;
/// How long a command's output is still read after its shell exited.
const DRAIN: Duration = Duration::from_millis(100);

type Replies = Arc<Mutex<std::io::Stdout>>;
/// The process groups of the running commands, by request id.
type Running = Arc<Mutex<HashMap<u64, i32>>>;

fn send(replies: &Replies, id: u64, reply: Reply) {
    // A poisoned lock only means another reply's write panicked; the
    // stream itself is still whole between messages.
    let mut out = replies.lock().unwrap_or_else(|p| p.into_inner());
    // Confer gone: nothing left to tell.
    let _ = write_message(&mut *out, &Envelope { id, reply });
}

/// Runs the helper until its input ends; the process's exit code.
pub fn run() -> i32 {
    // Before anything is read: every command inherits the filter. A
    // helper that cannot set it does not serve (the start fails with
    // this line as its reason).
    if let Err(reason) = super::seccomp::apply() {
        eprintln!("seccomp: {reason}");
        return 2;
    }
    let replies: Replies = Arc::new(Mutex::new(std::io::stdout()));
    let running: Running = Arc::default();
    send(&replies, 0, Reply::Ready);
    let mut input = std::io::stdin().lock();
    loop {
        let request: Request = match read_message(&mut input) {
            Ok(Some(request)) => request,
            Ok(None) => return 0,
            Err(_) => return 2,
        };
        let id = request.id();
        match request {
            Request::Exec {
                command,
                cwd,
                timeout_ms,
                env,
                limits,
                keep,
                ..
            } => {
                let (replies, running) = (replies.clone(), running.clone());
                std::thread::spawn(move || {
                    let reply = exec(
                        id,
                        &running,
                        &command,
                        cwd.as_deref(),
                        Duration::from_millis(timeout_ms),
                        &env,
                        limits,
                        keep,
                    );
                    send(&replies, id, reply);
                });
            }
            Request::Signal { target, .. } => {
                let group = running
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .get(&target)
                    .copied();
                if let Some(group) = group {
                    kill_group(group);
                }
                send(&replies, id, Reply::Done);
            }
            Request::Read { path, .. } => send(&replies, id, read(&path)),
            Request::Write { path, content, .. } => send(&replies, id, write(&path, &content)),
        }
    }
}

/// `path` inside the sandbox: relative ones under the workspace.
pub fn resolve(path: &str) -> PathBuf {
    let path = Path::new(path);
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        Path::new(WORKSPACE).join(path)
    }
}

/// The reason a file operation on `path` failed, as the model reads it.
fn io_reason(error: &std::io::Error, path: &Path) -> String {
    let path = path.display();
    match error.raw_os_error() {
        Some(libc::EROFS) => format!("read-only file system: {path}"),
        Some(libc::EDQUOT) | Some(libc::ENOSPC) | Some(libc::EFBIG) => {
            format!("disk limit reached: {path}")
        }
        _ => match error.kind() {
            std::io::ErrorKind::NotFound => format!("no such file or directory: {path}"),
            std::io::ErrorKind::PermissionDenied => format!("permission denied: {path}"),
            _ => format!("{path}: {error}"),
        },
    }
}

fn read(path: &str) -> Reply {
    let path = resolve(path);
    let error = |e: std::io::Error| Reply::Error {
        message: io_reason(&e, &path),
    };
    let metadata = match std::fs::metadata(&path) {
        Ok(metadata) => metadata,
        Err(e) => return error(e),
    };
    if metadata.is_dir() {
        let mut entries = Vec::new();
        let truncated = list(&path, "", 2, &mut entries);
        return Reply::Dir { entries, truncated };
    }
    if metadata.len() > MAX_FILE as u64 {
        return Reply::Error {
            message: format!("file over 1 MiB: {}", path.display()),
        };
    }
    match std::fs::read(&path) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(content) => Reply::File { content },
            Err(_) => Reply::Error {
                message: format!("not a UTF-8 text file: {}", path.display()),
            },
        },
        Err(e) => error(e),
    }
}

/// Lists `dir` `depth` levels deep, hidden entries left out; whether the
/// listing reached its bound.
fn list(dir: &Path, prefix: &str, depth: usize, entries: &mut Vec<String>) -> bool {
    let Ok(read) = std::fs::read_dir(dir) else {
        return false;
    };
    let mut names: Vec<(String, bool)> = read
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
            (!name.starts_with('.')).then_some((name, is_dir))
        })
        .collect();
    names.sort();
    for (name, is_dir) in names {
        if entries.len() >= MAX_ENTRIES {
            return true;
        }
        let relative = format!("{prefix}{name}");
        if is_dir {
            entries.push(format!("{relative}/"));
            if depth > 1
                && list(
                    &dir.join(&name),
                    &format!("{relative}/"),
                    depth - 1,
                    entries,
                )
            {
                return true;
            }
        } else {
            entries.push(relative);
        }
    }
    false
}

fn write(path: &str, content: &str) -> Reply {
    let path = resolve(path);
    if content.len() > MAX_FILE {
        return Reply::Error {
            message: format!("file over 1 MiB: {}", path.display()),
        };
    }
    match write_atomically(&path, content.as_bytes()) {
        Ok(()) => Reply::Done,
        Err(e) => Reply::Error {
            message: io_reason(&e, &path),
        },
    }
}

/// Writes beside `path`, then renames over it, so a reader sees the old
/// file or the new one, never half of one.
fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return Err(std::io::Error::from(std::io::ErrorKind::InvalidInput));
    };
    std::fs::create_dir_all(dir)?;
    let temporary = dir.join(format!(".{}.confer-edit", name.to_string_lossy()));
    let result = (|| {
        let mut file = std::fs::File::create(&temporary)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&temporary, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    result
}

#[allow(unsafe_code)]
fn kill_group(group: i32) {
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

/// Reads what is ready on `fds` within `wait`; a closed stream's slot is
/// set to `None`.
#[allow(unsafe_code)]
fn pump(
    streams: &mut [Option<std::process::ChildStdout>; 1],
    errors: &mut [Option<std::process::ChildStderr>; 1],
    kept: &mut [HeadTail; 2],
    wait: Duration,
) {
    use std::os::fd::AsRawFd;
    let mut fds = Vec::with_capacity(2);
    if let Some(out) = &streams[0] {
        fds.push(libc::pollfd {
            fd: out.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        });
    }
    if let Some(err) = &errors[0] {
        fds.push(libc::pollfd {
            fd: err.as_raw_fd(),
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
        let is_out = streams[0].as_ref().is_some_and(|s| s.as_raw_fd() == fd.fd);
        let read = if is_out {
            streams[0].as_mut().map(|s| s.read(&mut buffer))
        } else {
            errors[0].as_mut().map(|s| s.read(&mut buffer))
        };
        match read {
            Some(Ok(n)) if n > 0 => kept[usize::from(!is_out)].push(&buffer[..n]),
            _ if is_out => streams[0] = None,
            _ => errors[0] = None,
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn exec(
    id: u64,
    running: &Running,
    command: &str,
    cwd: Option<&str>,
    timeout: Duration,
    env: &[(String, String)],
    limits: Limits,
    keep: usize,
) -> Reply {
    let started = Instant::now();
    let cwd = resolve(cwd.unwrap_or(WORKSPACE));
    let mut child = Command::new("/bin/bash");
    child
        .arg("-c")
        .arg(command)
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k, v)))
        .current_dir(&cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    set_limits(&mut child, limits, timeout.as_secs() + 5);
    let mut child = match child.spawn() {
        Ok(child) => child,
        Err(e) => {
            return Reply::Error {
                message: io_reason(&e, &cwd),
            };
        }
    };
    let group = i32::try_from(child.id()).unwrap_or(i32::MAX);
    running
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(id, group);
    let mut out = [child.stdout.take()];
    let mut err = [child.stderr.take()];
    let mut kept = [HeadTail::new(keep), HeadTail::new(keep)];
    let deadline = started + timeout;
    let mut timed_out = false;
    let mut exited: Option<(std::process::ExitStatus, Instant)> = None;
    loop {
        pump(&mut out, &mut err, &mut kept, Duration::from_millis(20));
        if exited.is_none() {
            match child.try_wait() {
                Ok(Some(status)) => exited = Some((status, Instant::now())),
                Ok(None) if Instant::now() >= deadline => {
                    timed_out = true;
                    kill_group(group);
                    let status = child.wait();
                    if let Ok(status) = status {
                        exited = Some((status, Instant::now()));
                    }
                }
                _ => {}
            }
        }
        let drained = out[0].is_none() && err[0].is_none();
        match exited {
            Some((_, at)) if drained || at.elapsed() >= DRAIN => break,
            None if child.try_wait().is_err() => break,
            _ => {}
        }
    }
    running
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .remove(&id);
    if timed_out {
        // Whatever the group started meanwhile goes with it.
        kill_group(group);
    }
    let status = exited.map(|(status, _)| status);
    let [stdout, stderr] = kept;
    Reply::Exec {
        exit_code: status.and_then(|s| s.code()),
        signal: status.and_then(|s| std::os::unix::process::ExitStatusExt::signal(&s)),
        timed_out,
        stdout: stdout.finish(),
        stderr: stderr.finish(),
        duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
    }
}
