//! The allow-list's relay inside a local sandbox (`computer.md` §4 rule
//! 5): commands reach `127.0.0.1:3128` (their `HTTPS_PROXY`), and each
//! connection is copied both ways to Confer's egress proxy, whose socket
//! is bound in at [`EGRESS_SOCKET`]. The proxy decides what is reached;
//! the relay only moves bytes. Without the socket (no allow-list) nothing
//! listens.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::os::unix::net::UnixStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::computer::local::EGRESS_SOCKET;

/// Where commands find the relay.
const LISTEN: &str = "127.0.0.1:3128";
/// Connections relayed at once (the proxy serves as many).
const MAX_RELAYED: usize = 64;

/// Starts the relay when the sandbox has an egress socket.
pub(super) fn start() {
    if !std::path::Path::new(EGRESS_SOCKET).exists() {
        return;
    }
    let listener = match TcpListener::bind(LISTEN) {
        Ok(listener) => listener,
        Err(error) => {
            eprintln!("egress relay: {error}");
            return;
        }
    };
    let open = Arc::new(AtomicUsize::new(0));
    std::thread::spawn(move || {
        for client in listener.incoming().flatten() {
            if open.fetch_add(1, Ordering::AcqRel) >= MAX_RELAYED {
                open.fetch_sub(1, Ordering::AcqRel);
                continue;
            }
            let open = Arc::clone(&open);
            std::thread::spawn(move || {
                relay(client);
                open.fetch_sub(1, Ordering::AcqRel);
            });
        }
    });
}

/// Copies one connection both ways until each side has ended.
fn relay(client: TcpStream) {
    let Ok(proxy) = UnixStream::connect(EGRESS_SOCKET) else {
        return;
    };
    let (Ok(client_back), Ok(proxy_back)) = (client.try_clone(), proxy.try_clone()) else {
        return;
    };
    let up = std::thread::spawn(move || {
        pump(client, &proxy);
        let _ = proxy.shutdown(Shutdown::Write);
    });
    pump(proxy_back, &client_back);
    let _ = client_back.shutdown(Shutdown::Write);
    let _ = up.join();
}

fn pump(mut from: impl Read, mut to: impl Write) {
    let mut buffer = [0u8; 16 * 1024];
    loop {
        match from.read(&mut buffer) {
            Ok(0) | Err(_) => return,
            Ok(read) => {
                if to.write_all(&buffer[..read]).is_err() {
                    return;
                }
            }
        }
    }
}
