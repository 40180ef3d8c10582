//! The write gate. sled's iterators are not snapshots, so a backup that
//! read the trees while writes went on could catch half of a change that
//! spans trees (a thread without its index entry, say). Every write to the
//! store holds the gate shared for as long as it writes; a backup holds it
//! exclusively while it reads the trees, and so sees the store between
//! writes. Reads never take it.

use parking_lot::{RwLock, RwLockReadGuard, RwLockWriteGuard};

/// See the module documentation.
#[derive(Default)]
pub struct WriteGate(RwLock<()>);

impl WriteGate {
    /// Held by a write for its duration. Recursive, so a write that calls
    /// another (`default_org` → `put_org`) never waits on a backup queued
    /// between the two.
    pub fn writing(&self) -> RwLockReadGuard<'_, ()> {
        self.0.read_recursive()
    }

    /// Held by a backup while it reads: no write runs meanwhile.
    pub fn quiesce(&self) -> RwLockWriteGuard<'_, ()> {
        self.0.write()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quiesced_gate_holds_writes_back_until_released() {
        let gate = std::sync::Arc::new(WriteGate::default());
        let held = gate.quiesce();
        let (done_tx, done_rx) = std::sync::mpsc::channel();
        let writer = {
            let gate = std::sync::Arc::clone(&gate);
            std::thread::spawn(move || {
                let _writing = gate.writing();
                done_tx.send(()).ok();
            })
        };
        assert!(
            done_rx
                .recv_timeout(std::time::Duration::from_millis(200))
                .is_err(),
            "a write ran during a backup"
        );
        drop(held);
        assert!(
            done_rx
                .recv_timeout(std::time::Duration::from_secs(10))
                .is_ok()
        );
        writer.join().ok();
    }
}
