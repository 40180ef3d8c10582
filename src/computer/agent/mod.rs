//! `confer sandbox-agent`: the helper that runs inside a local sandbox
//! (`computer.md` §1). It reads [`Request`]s on standard input and
//! answers on standard output, so every path it is given resolves inside
//! the sandbox. Each command runs in a thread of its own (a `Signal` may
//! arrive meanwhile); reads and writes are done at once. It ends when its
//! input does.

mod exec;
mod relay;

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use self::exec::{ExecRequest, exec, kill_group};
use super::protocol::{Envelope, Reply, Request, read_message, write_message};

/// The sandbox's workspace, where relative paths start.
pub const WORKSPACE: &str = "/workspace";
/// The largest file `Read` and `Write` handle (`computer.md` §3).
pub const MAX_FILE: usize = 1 << 20;
/// How many entries a directory's listing holds at most.
const MAX_ENTRIES: usize = 1000;
/// How long a command's output is still read after its shell exited.
pub(super) const DRAIN: Duration = Duration::from_millis(100);

pub(super) type Replies = Arc<Mutex<std::io::Stdout>>;
/// The process groups of the running commands, by request id.
pub(super) type Running = Arc<Mutex<HashMap<u64, i32>>>;

pub(super) fn send(replies: &Replies, id: u64, reply: Reply) {
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
    relay::start();
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
                stream,
                ..
            } => {
                let request = ExecRequest {
                    id,
                    command,
                    cwd,
                    timeout: Duration::from_millis(timeout_ms),
                    env,
                    limits,
                    keep,
                    stream,
                };
                let (replies, running) = (replies.clone(), running.clone());
                std::thread::spawn(move || {
                    let reply = exec(request, &running, &replies);
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
            Request::Append {
                path,
                data,
                truncate,
                ..
            } => send(&replies, id, append(&path, &data, truncate)),
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
pub(super) fn io_reason(error: &std::io::Error, path: &Path) -> String {
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

fn append(path: &str, data: &str, truncate: bool) -> Reply {
    use base64::Engine as _;
    let path = resolve(path);
    let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(data) else {
        return Reply::Error {
            message: "append: the data is not base64".into(),
        };
    };
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(!truncate)
        .write(true)
        .truncate(truncate)
        .open(&path)
        .and_then(|mut file| file.write_all(&bytes));
    match written {
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
