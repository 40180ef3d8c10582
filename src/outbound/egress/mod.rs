//! The loopback egress proxy (security.md "Outbound calls", computer.md
//! §4 rule 5 and §6 rule 1): for a program Confer runs that makes its own
//! connections (the host `git` today), a listener on 127.0.0.1 that
//! accepts `CONNECT host:port` and absolute-form HTTP/1.1, and connects
//! only to the destinations it was started for, at an address the
//! outbound policy accepts (non-global addresses only for allow-listed
//! hosts), through the operator's proxy when one is set. Anything else is
//! 403. What comes back from upstream is counted, and a connection past
//! the cap is cut. The proxy lives as long as its [`EgressProxy`]. A
//! local sandbox's proxy listens on a Unix socket instead, bound into the
//! sandbox, and admits its configuration's allow-list entries.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream, UnixListener};
use tokio::sync::Semaphore;

pub use self::rules::EgressRules;
use super::{CONNECT_TIMEOUT, OutboundPolicy, canonical, is_global};

/// The longest request head read.
const MAX_HEAD: usize = 16 * 1024;
/// The time a client has to send its request head.
const HEAD_TIMEOUT: Duration = Duration::from_secs(10);
/// Connections served at once.
const MAX_CONNECTIONS: usize = 64;

/// Where a proxy listens.
#[derive(Debug)]
enum Listening {
    Tcp(SocketAddr),
    Unix(PathBuf),
}

/// What happened on the proxy, for the caller's error.
#[derive(Default, Debug)]
struct Events {
    refused: AtomicBool,
    over_cap: AtomicBool,
    downloaded: AtomicU64,
}

/// A running proxy; dropping it stops the listener.
pub struct EgressProxy {
    listening: Listening,
    events: Arc<Events>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for EgressProxy {
    fn drop(&mut self) {
        self.task.abort();
        if let Listening::Unix(path) = &self.listening {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// A listener the proxy serves: loopback TCP (the host git's) or a Unix
/// socket (a sandbox's).
trait Accepting: Send + 'static {
    type Stream: AsyncRead + AsyncWrite + Unpin + Send + 'static;
    /// The next client; `None` when the listener failed.
    fn next(&self) -> impl Future<Output = Option<Self::Stream>> + Send;
}

impl Accepting for TcpListener {
    type Stream = TcpStream;
    async fn next(&self) -> Option<TcpStream> {
        self.accept().await.ok().map(|(client, _)| client)
    }
}

impl Accepting for UnixListener {
    type Stream = tokio::net::UnixStream;
    async fn next(&self) -> Option<tokio::net::UnixStream> {
        self.accept().await.ok().map(|(client, _)| client)
    }
}

impl EgressProxy {
    /// Serves `listener`'s connections with `rules`, at most
    /// [`MAX_CONNECTIONS`] at once (one more is closed at once).
    fn serving(
        listening: Listening,
        listener: impl Accepting,
        policy: Arc<OutboundPolicy>,
        rules: EgressRules,
    ) -> Self {
        let events = Arc::new(Events::default());
        let serving = Arc::clone(&events);
        let rules = Arc::new(rules);
        let slots = Arc::new(Semaphore::new(MAX_CONNECTIONS));
        let task = tokio::spawn(async move {
            while let Some(client) = listener.next().await {
                let Ok(slot) = Arc::clone(&slots).try_acquire_owned() else {
                    drop(client);
                    continue;
                };
                let (policy, rules, events) = (
                    Arc::clone(&policy),
                    Arc::clone(&rules),
                    Arc::clone(&serving),
                );
                tokio::spawn(async move {
                    let _slot = slot;
                    if let Err(error) = serve(client, &policy, &rules, &events).await {
                        tracing::debug!(%error, "an egress proxy connection ended");
                    }
                });
            }
        });
        Self {
            listening,
            events,
            task,
        }
    }

    /// Listens on an ephemeral loopback port.
    pub async fn start(policy: Arc<OutboundPolicy>, rules: EgressRules) -> std::io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let address = listener.local_addr()?;
        Ok(Self::serving(
            Listening::Tcp(address),
            listener,
            policy,
            rules,
        ))
    }

    /// Listens on a Unix socket at `path` (replaced if present), which
    /// `owner` (when given) may connect to and no one else but root.
    pub fn start_unix(
        policy: Arc<OutboundPolicy>,
        rules: EgressRules,
        path: PathBuf,
        owner: Option<u32>,
    ) -> std::io::Result<Self> {
        use std::os::unix::fs::PermissionsExt;
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        let listener = UnixListener::bind(&path)?;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))?;
        if let Some(uid) = owner {
            std::os::unix::fs::chown(&path, Some(uid), Some(uid))?;
        }
        Ok(Self::serving(
            Listening::Unix(path),
            listener,
            policy,
            rules,
        ))
    }

    /// The proxy's URL, for `http.proxy` and the like (a Unix socket's
    /// proxy has none: it is reached through the sandbox's relay).
    pub fn url(&self) -> String {
        match &self.listening {
            Listening::Tcp(address) => format!("http://{address}"),
            Listening::Unix(_) => String::new(),
        }
    }

    /// The Unix socket it listens on, if it does.
    pub fn socket(&self) -> Option<&std::path::Path> {
        match &self.listening {
            Listening::Unix(path) => Some(path),
            Listening::Tcp(_) => None,
        }
    }

    /// Whether a destination was refused.
    pub fn refused(&self) -> bool {
        self.events.refused.load(Ordering::Relaxed)
    }

    /// Whether the download cap cut a connection.
    pub fn over_cap(&self) -> bool {
        self.events.over_cap.load(Ordering::Relaxed)
    }
}

/// The request head, and what the client sent after it.
async fn read_head(client: &mut (impl AsyncRead + Unpin)) -> std::io::Result<(String, Vec<u8>)> {
    let mut buffer = Vec::with_capacity(1024);
    let mut chunk = [0u8; 1024];
    loop {
        if let Some(end) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            let rest = buffer.split_off(end + 4);
            let head = String::from_utf8(buffer)
                .map_err(|_| std::io::Error::other("the request head is not UTF-8"))?;
            return Ok((head, rest));
        }
        if buffer.len() > MAX_HEAD {
            return Err(std::io::Error::other("the request head is too long"));
        }
        let read = client.read(&mut chunk).await?;
        if read == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        buffer.extend_from_slice(&chunk[..read]);
    }
}

/// A request's destination and, for absolute-form HTTP, its head rewritten
/// to origin form.
fn destination(head: &str) -> Option<(String, u16, Option<String>)> {
    let (line, rest) = head.split_once("\r\n")?;
    let mut words = line.split(' ');
    let (method, target, version) = (words.next()?, words.next()?, words.next()?);
    if method == "CONNECT" {
        let (host, port) = target.rsplit_once(':')?;
        let host = host.trim_start_matches('[').trim_end_matches(']');
        return Some((host.to_ascii_lowercase(), port.parse().ok()?, None));
    }
    let url = url::Url::parse(target).ok()?;
    if url.scheme() != "http" {
        return None;
    }
    let host = url
        .host_str()?
        .trim_start_matches('[')
        .trim_end_matches(']');
    let port = url.port_or_known_default()?;
    let path = match url.query() {
        Some(query) => format!("{}?{query}", url.path()),
        None => url.path().to_owned(),
    };
    let origin_form = format!("{method} {path} {version}\r\n{rest}");
    Some((host.to_ascii_lowercase(), port, Some(origin_form)))
}

/// Connects to `host:port` at an address the policy accepts, through the
/// operator's proxy when one is set.
async fn connect(policy: &OutboundPolicy, host: &str, port: u16) -> std::io::Result<TcpStream> {
    if let Some(proxy) = policy.proxy() {
        let proxy_host = proxy.host_str().unwrap_or_default().to_owned();
        let proxy_port = proxy.port_or_known_default().unwrap_or(3128);
        let mut stream = tokio::time::timeout(
            CONNECT_TIMEOUT,
            TcpStream::connect((proxy_host.as_str(), proxy_port)),
        )
        .await
        .map_err(|_| std::io::Error::from(std::io::ErrorKind::TimedOut))??;
        let request = format!("CONNECT {host}:{port} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n");
        stream.write_all(request.as_bytes()).await?;
        let (answer, _) = read_head(&mut stream).await?;
        if !answer.starts_with("HTTP/1.1 200") && !answer.starts_with("HTTP/1.0 200") {
            return Err(std::io::Error::other("the operator's proxy refused"));
        }
        return Ok(stream);
    }
    let allow_listed = policy.allows(host, port);
    let found = tokio::net::lookup_host((host, port)).await?;
    let address = found
        .map(|a| SocketAddr::new(canonical(a.ip()), a.port()))
        .find(|a| allow_listed || is_global(a.ip()))
        .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::PermissionDenied))?;
    tokio::time::timeout(CONNECT_TIMEOUT, TcpStream::connect(address))
        .await
        .map_err(|_| std::io::Error::from(std::io::ErrorKind::TimedOut))?
}

async fn refuse(mut client: impl AsyncWrite + Unpin, events: &Events) -> std::io::Result<()> {
    events.refused.store(true, Ordering::Relaxed);
    client
        .write_all(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        .await
}

async fn serve(
    mut client: impl AsyncRead + AsyncWrite + Unpin,
    policy: &OutboundPolicy,
    rules: &EgressRules,
    events: &Events,
) -> std::io::Result<()> {
    let (head, early) = tokio::time::timeout(HEAD_TIMEOUT, read_head(&mut client))
        .await
        .map_err(|_| std::io::Error::from(std::io::ErrorKind::TimedOut))??;
    let Some((host, port, rewritten)) = destination(&head) else {
        return refuse(client, events).await;
    };
    if !rules.admits(&host, port) {
        return refuse(client, events).await;
    }
    let mut upstream = match connect(policy, &host, port).await {
        Ok(upstream) => upstream,
        Err(error) if error.kind() == std::io::ErrorKind::PermissionDenied => {
            return refuse(client, events).await;
        }
        Err(error) => {
            client
                .write_all(
                    b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                )
                .await?;
            return Err(error);
        }
    };
    match rewritten {
        None => {
            client
                .write_all(b"HTTP/1.1 200 Connection Established\r\n\r\n")
                .await?
        }
        Some(head) => upstream.write_all(head.as_bytes()).await?,
    }
    upstream.write_all(&early).await?;
    let (client_read, client_write) = tokio::io::split(client);
    let (upstream_read, upstream_write) = upstream.into_split();
    let up = copy(client_read, upstream_write, None);
    let down = copy(
        upstream_read,
        client_write,
        Some((rules.download_cap, events)),
    );
    // Either side ending ends the connection.
    tokio::select! {
        result = up => result,
        result = down => result,
    }
}

/// Copies `from` to `to`; with `counted`, adds to the download and stops
/// past its cap.
async fn copy(
    mut from: impl AsyncRead + Unpin,
    mut to: impl AsyncWrite + Unpin,
    counted: Option<(Option<u64>, &Events)>,
) -> std::io::Result<()> {
    let mut buffer = vec![0u8; 16 * 1024];
    loop {
        let read = from.read(&mut buffer).await?;
        if read == 0 {
            return to.shutdown().await;
        }
        if let Some((cap, events)) = counted {
            let total = events.downloaded.fetch_add(read as u64, Ordering::Relaxed) + read as u64;
            if cap.is_some_and(|cap| total > cap) {
                events.over_cap.store(true, Ordering::Relaxed);
                return Err(std::io::Error::other("the download cap was passed"));
            }
        }
        to.write_all(&buffer[..read]).await?;
    }
}

mod rules;
#[cfg(test)]
mod tests;
