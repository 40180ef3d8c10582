//! Client connections at the socket level: the open-file limit they draw
//! on, the cap on how many are open, and how long one may leave our writes
//! unaccepted (`security.md` "Limits", `streams.md`), and binding the
//! listen address.

use std::any::Any;
use std::time::Duration;

use actix_web::dev::Extensions;
use actix_web::rt::net::TcpStream;

use crate::settings::Settings;

/// Raises the soft open-file limit to the hard limit; returns the limit now
/// in force (each connection, outbound call and store file takes one).
pub fn raise_open_file_limit() -> u64 {
    match rlimit::increase_nofile_limit(u64::MAX) {
        Ok(limit) => limit,
        Err(error) => {
            tracing::warn!(%error, "could not raise the open-file limit");
            rlimit::getrlimit(rlimit::Resource::NOFILE).map_or(1024, |(soft, _)| soft)
        }
    }
}

/// The connection cap of one HTTP worker: `max_connections` (default: the
/// open-file limit less 10%) shared by the workers.
pub fn per_worker(settings: &Settings, open_files: u64) -> usize {
    let total = match settings.max_connections {
        0 => usize::try_from(open_files - open_files / 10).unwrap_or(usize::MAX),
        n => n,
    };
    let workers = match settings.workers {
        0 => std::thread::available_parallelism().map_or(1, usize::from),
        n => n,
    };
    (total / workers).max(1)
}

/// The `on_connect` hook that closes a connection whose peer accepts no
/// bytes for `limit`: a client that stopped reading (its receive window
/// stays shut) or vanished. Linux's `TCP_USER_TIMEOUT` does it in the kernel
/// (it bounds zero-window probing too, since 5.11 to the millisecond), so no
/// timer runs per stream and a stream that actix-web stopped polling, its
/// socket full, is still closed. The turn is unaffected; the reader ends.
pub fn stall_limit(limit: Duration) -> impl Fn(&dyn Any, &mut Extensions) + Send + Sync + 'static {
    move |connection, _| {
        let Some(stream) = connection.downcast_ref::<TcpStream>() else {
            return;
        };
        if let Err(error) = set_user_timeout(stream, limit) {
            tracing::debug!(%error, "could not set TCP_USER_TIMEOUT on a connection");
        }
    }
}

#[cfg(any(target_os = "linux", target_os = "android"))]
fn set_user_timeout(stream: &TcpStream, limit: Duration) -> std::io::Result<()> {
    socket2::SockRef::from(stream).set_tcp_user_timeout(Some(limit))
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn set_user_timeout(_: &TcpStream, _: Duration) -> std::io::Result<()> {
    Ok(())
}

/// Binds the listen address. Done first, before anything is created, so a
/// taken port fails at once with one line (and exit code 2 from `main`).
pub fn bind(settings: &Settings) -> anyhow::Result<std::net::TcpListener> {
    std::net::TcpListener::bind(&settings.bind).map_err(|error| {
        let why = match error.kind() {
            std::io::ErrorKind::AddrInUse => "address in use".to_owned(),
            std::io::ErrorKind::PermissionDenied => "permission denied".to_owned(),
            _ => error.to_string(),
        };
        anyhow::anyhow!("cannot listen on {}: {why}", settings.bind)
    })
}

/// `bind` with its port replaced by `port` (`serve --port`).
pub fn with_port(bind: &str, port: u16) -> String {
    match bind.rsplit_once(':') {
        Some((host, _)) => format!("{host}:{port}"),
        None => format!("{bind}:{port}"),
    }
}
