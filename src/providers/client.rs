//! The vendors' HTTP client, with one connection pool per worker thread.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// The vendors' HTTP client: pooled, `TCP_NODELAY`, timeouts for connecting
/// and between chunks, extra trusted CAs from a PEM file, certificate
/// verification always on; **one connection pool per worker thread**.
///
/// hyper runs each pooled connection as a task on the runtime that opened
/// it, and every actix worker is a runtime of its own. With one shared pool,
/// a turn on worker B that took a connection opened on worker A had each
/// chunk read on A and handed to B: a cross-thread wake per token. A pool per
/// thread keeps a turn's vendor connection on the thread of its stream.
#[derive(Clone)]
pub struct VendorClient {
    shared: Arc<ClientSettings>,
}

/// What every thread's client is built from.
struct ClientSettings {
    /// Tells this client's thread-local copies from another's (tests build
    /// several in one process).
    id: usize,
    connect_timeout: Duration,
    read_timeout: Duration,
    extra_ca_pem: Option<Vec<u8>>,
    /// The client `new` built; a thread whose own build failed shares it.
    first: reqwest::Client,
}

impl VendorClient {
    /// Checks the settings (the extra CAs parse) by building a first client.
    pub fn new(
        connect_timeout: Duration,
        read_timeout: Duration,
        extra_ca_pem: Option<&[u8]>,
    ) -> anyhow::Result<Self> {
        static NEXT_ID: AtomicUsize = AtomicUsize::new(0);
        let extra_ca_pem = extra_ca_pem.map(<[u8]>::to_vec);
        let first = build(connect_timeout, read_timeout, extra_ca_pem.as_deref())?;
        Ok(Self {
            shared: Arc::new(ClientSettings {
                id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
                connect_timeout,
                read_timeout,
                extra_ca_pem,
                first,
            }),
        })
    }

    /// This thread's client (built on its first use here). Each thread keeps
    /// one: a server has one `VendorClient`, so the cache never grows.
    pub fn get(&self) -> reqwest::Client {
        thread_local! {
            static LOCAL: std::cell::RefCell<Option<(usize, reqwest::Client)>> =
                const { std::cell::RefCell::new(None) };
        }
        LOCAL.with_borrow_mut(|local| match local {
            Some((id, client)) if *id == self.shared.id => client.clone(),
            _ => {
                let s = &self.shared;
                let client = build(s.connect_timeout, s.read_timeout, s.extra_ca_pem.as_deref())
                    .unwrap_or_else(|error| {
                        // The same settings built `first`; if they fail now
                        // (the TLS backend's state), share its pool.
                        tracing::error!(%error, "building this thread's vendor client failed");
                        s.first.clone()
                    });
                *local = Some((s.id, client.clone()));
                client
            }
        })
    }
}

/// One client of the vendors' settings.
fn build(
    connect_timeout: Duration,
    read_timeout: Duration,
    extra_ca_pem: Option<&[u8]>,
) -> anyhow::Result<reqwest::Client> {
    let builder = reqwest::Client::builder()
        .connect_timeout(connect_timeout)
        .read_timeout(read_timeout)
        .tcp_nodelay(true)
        .pool_idle_timeout(Duration::from_secs(90));
    Ok(crate::outbound::with_extra_cas(builder, extra_ca_pem)?.build()?)
}

#[cfg(test)]
mod tests {
    use std::io::{BufRead, BufReader, Write};
    use std::net::TcpListener;
    use std::sync::mpsc;

    use super::*;

    /// A keep-alive HTTP/1.1 peer that counts the connections it accepted.
    fn counting_peer() -> (String, Arc<AtomicUsize>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/", listener.local_addr().unwrap());
        let accepted = Arc::new(AtomicUsize::new(0));
        let count = Arc::clone(&accepted);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { return };
                count.fetch_add(1, Ordering::SeqCst);
                std::thread::spawn(move || {
                    let mut reader = BufReader::new(stream.try_clone().unwrap());
                    let mut line = String::new();
                    loop {
                        line.clear();
                        match reader.read_line(&mut line) {
                            Ok(0) | Err(_) => return,
                            Ok(_) if line == "\r\n" => {
                                let answer = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok";
                                if stream.write_all(answer).is_err() {
                                    return;
                                }
                            }
                            Ok(_) => {}
                        }
                    }
                });
            }
        });
        (url, accepted)
    }

    /// A thread running a runtime of its own all along (as an actix worker
    /// does) that makes one request through `client` each time it is told to.
    fn worker(
        client: VendorClient,
        url: String,
    ) -> (tokio::sync::mpsc::UnboundedSender<()>, mpsc::Receiver<()>) {
        let (go_tx, mut go_rx) = tokio::sync::mpsc::unbounded_channel::<()>();
        let (done_tx, done_rx) = mpsc::channel();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async {
                while go_rx.recv().await.is_some() {
                    let answer = client.get().get(&url).send().await.unwrap();
                    assert_eq!(answer.text().await.unwrap(), "ok");
                    done_tx.send(()).unwrap();
                }
            });
        });
        (go_tx, done_rx)
    }

    /// Two workers taking turns: each reuses the connection it opened and
    /// never the other's, which would hand every chunk across threads.
    #[test]
    fn each_thread_keeps_its_own_connections() {
        let (url, accepted) = counting_peer();
        let client =
            VendorClient::new(Duration::from_secs(5), Duration::from_secs(5), None).unwrap();
        let a = worker(client.clone(), url.clone());
        let b = worker(client, url);
        for (go, done) in [&a, &b, &a, &b, &a] {
            go.send(()).unwrap();
            done.recv_timeout(Duration::from_secs(10)).unwrap();
        }
        assert_eq!(accepted.load(Ordering::SeqCst), 2);
    }
}
