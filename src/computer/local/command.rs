//! bwrap's command line for a local sandbox (`computer.md` §4) and the
//! descriptors it inherits: the workspace, Confer's binary and the
//! synthesized `/etc` files, handed over by number so the command line
//! (the sandbox's `/proc/1/cmdline`) names no host path.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::path::Path;

use tokio::process::Command;

use crate::computer::config::SizeClass;

/// The uid and gid commands have inside.
const INSIDE_UID: &str = "1000";
/// The system directories bound read-only (each bound, or linked when the
/// host links it into `/usr`).
const SYSTEM_DIRS: [&str; 4] = ["bin", "lib", "lib64", "sbin"];
/// Host files of `/etc` a command may need, bound read-only when present.
const ETC_SHARED: [&str; 5] = [
    "/etc/ssl",
    "/etc/ca-certificates",
    "/etc/alternatives",
    "/etc/ld.so.cache",
    "/etc/localtime",
];

/// The descriptors a sandbox is started with: its workspace, Confer's
/// binary, and the synthesized `/etc` files.
pub(super) struct Descriptors {
    workspace: std::fs::File,
    binary: std::fs::File,
    etc: Vec<(&'static str, OwnedFd)>,
    /// The egress proxy's socket (`O_PATH`), bound at [`EGRESS_SOCKET`].
    egress: Option<std::fs::File>,
}

/// Where the egress proxy's socket is inside (the helper relays
/// `127.0.0.1:3128` to it).
pub const EGRESS_SOCKET: &str = "/.confer/egress.sock";

/// The `/etc` Confer writes for a sandbox.
fn synthesized_etc() -> [(&'static str, &'static str); 4] {
    [
        (
            "/etc/passwd",
            "root:x:0:0:root:/root:/usr/sbin/nologin\nuser:x:1000:1000:user:/workspace:/bin/bash\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n",
        ),
        ("/etc/group", "root:x:0:\nuser:x:1000:\nnogroup:x:65534:\n"),
        ("/etc/hosts", "127.0.0.1 localhost\n::1 localhost\n"),
        (
            "/etc/nsswitch.conf",
            "passwd: files\ngroup: files\nhosts: files\n",
        ),
    ]
}

#[allow(unsafe_code)]
fn memory_file(content: &str) -> std::io::Result<OwnedFd> {
    // SAFETY: the name is a NUL-terminated literal; `memfd_create` returns
    // a new descriptor (owned below) or -1.
    let fd = unsafe { libc::memfd_create(c"confer-etc".as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `fd` was just opened and is owned by nothing else.
    let owned = unsafe { OwnedFd::from_raw_fd(fd) };
    let mut file = std::fs::File::from(owned);
    std::io::Write::write_all(&mut file, content.as_bytes())?;
    std::io::Seek::rewind(&mut file)?;
    Ok(file.into())
}

impl Descriptors {
    pub(super) fn open(
        workspace: &Path,
        binary: &Path,
        egress: Option<&Path>,
    ) -> std::io::Result<Self> {
        use std::os::unix::fs::OpenOptionsExt;
        let etc = synthesized_etc()
            .into_iter()
            .map(|(path, content)| Ok((path, memory_file(content)?)))
            .collect::<std::io::Result<_>>()?;
        let egress = egress
            .map(|socket| {
                std::fs::OpenOptions::new()
                    .read(true)
                    .custom_flags(libc::O_PATH)
                    .open(socket)
            })
            .transpose()?;
        Ok(Self {
            workspace: std::fs::File::open(workspace)?,
            binary: std::fs::File::open(binary)?,
            etc,
            egress,
        })
    }

    fn raw(&self) -> Vec<RawFd> {
        let mut fds = vec![self.workspace.as_raw_fd(), self.binary.as_raw_fd()];
        fds.extend(self.etc.iter().map(|(_, fd)| fd.as_raw_fd()));
        fds.extend(self.egress.iter().map(AsRawFd::as_raw_fd));
        fds
    }

    /// Lets bwrap inherit these descriptors, and only these: std opens
    /// every descriptor close-on-exec, and the child clears the flag on
    /// these alone.
    #[allow(unsafe_code)]
    pub(super) fn inherit(&self, command: &mut Command) {
        let fds = self.raw();
        // SAFETY: the closure runs in the forked child before `exec` and
        // only calls `fcntl` (async-signal-safe) on descriptors this
        // process holds open; it allocates nothing.
        unsafe {
            command.pre_exec(move || {
                for &fd in &fds {
                    if libc::fcntl(fd, libc::F_SETFD, 0) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                }
                Ok(())
            });
        }
    }
}

/// bwrap's command line (`computer.md` §4): descriptors by number only.
pub(super) fn arguments(opened: &Descriptors, size: SizeClass) -> Vec<String> {
    let mut args: Vec<String> = [
        "--unshare-all",
        "--unshare-user",
        "--disable-userns",
        "--new-session",
        "--die-with-parent",
        "--cap-drop",
        "ALL",
        "--clearenv",
        "--uid",
        INSIDE_UID,
        "--gid",
        INSIDE_UID,
        "--ro-bind",
        "/usr",
        "/usr",
    ]
    .map(String::from)
    .to_vec();
    for dir in SYSTEM_DIRS {
        let host = Path::new("/").join(dir);
        match std::fs::read_link(&host) {
            Ok(target) => args.extend([
                "--symlink".into(),
                target.to_string_lossy().into_owned(),
                format!("/{dir}"),
            ]),
            Err(_) if host.is_dir() => {
                args.extend(["--ro-bind".into(), format!("/{dir}"), format!("/{dir}")])
            }
            Err(_) => {}
        }
    }
    args.extend(
        ["--proc", "/proc", "--dev", "/dev", "--size"]
            .map(String::from)
            .into_iter()
            .chain([
                size.limits().tmpfs_bytes.to_string(),
                "--tmpfs".into(),
                "/tmp".into(),
            ]),
    );
    args.extend(["--dir".into(), "/etc".into()]);
    for path in ETC_SHARED {
        if Path::new(path).exists() {
            args.extend(["--ro-bind".into(), path.into(), path.into()]);
        }
    }
    for (path, fd) in &opened.etc {
        args.extend([
            "--ro-bind-data".into(),
            fd.as_raw_fd().to_string(),
            (*path).into(),
        ]);
    }
    args.extend([
        "--bind-fd".into(),
        opened.workspace.as_raw_fd().to_string(),
        crate::computer::agent::WORKSPACE.into(),
        "--ro-bind-fd".into(),
        opened.binary.as_raw_fd().to_string(),
        "/.confer/agent".into(),
    ]);
    if let Some(socket) = &opened.egress {
        args.extend([
            "--bind-fd".into(),
            socket.as_raw_fd().to_string(),
            EGRESS_SOCKET.into(),
        ]);
    }
    args.extend([
        "--remount-ro".into(),
        "/".into(),
        "--chdir".into(),
        crate::computer::agent::WORKSPACE.into(),
        "/.confer/agent".into(),
        "sandbox-agent".into(),
    ]);
    args
}
