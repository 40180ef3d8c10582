//! Several Confer nodes on one PostgreSQL (`scale.md` §3–§4): which of the
//! 1,024 shards a thread is in, the nodes' registrations and heartbeats,
//! who owns each shard (leases with a fencing epoch), and the signature a
//! forwarded request carries between nodes.
//!
//! PostgreSQL is the only coordinator: every decision here is a statement
//! on the shared tables, using the database's clock for leases and the
//! node's monotonic clock only to stop admitting turns before its lease
//! can have run out.

use std::fmt;

use confer_actors::ThreadId;
use sha2::{Digest, Sha256};

pub mod caches;
pub mod doorbell;
pub mod forward;
pub mod jobs;
pub mod leases;
pub mod node;
pub mod nodes;
pub mod reattach;
pub mod relay;
pub mod serving;
pub mod signing;

/// How many shards there are, always.
pub const SHARDS: u16 = 1024;

/// One of the [`SHARDS`] shards.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Shard(u16);

impl Shard {
    /// `n` as a shard, if below [`SHARDS`].
    pub fn new(n: u16) -> Option<Self> {
        (n < SHARDS).then_some(Self(n))
    }

    /// Its number, `0..1024`.
    pub fn number(self) -> u16 {
        self.0
    }

    /// Every shard, in order.
    pub fn all() -> impl Iterator<Item = Self> {
        (0..SHARDS).map(Self)
    }

    /// As PostgreSQL's `smallint` (always fits: below 1,024).
    pub fn sql(self) -> i16 {
        self.0 as i16
    }

    /// From a `smallint` column.
    pub fn from_sql(n: i16) -> Option<Self> {
        u16::try_from(n).ok().and_then(Self::new)
    }

    /// The shard of `thread`: the first two bytes of SHA-256 of its id (as
    /// the API spells it), big-endian, mod 1,024. A delegate child takes
    /// its root's shard instead; the store records the shard it was given.
    pub fn of(thread: ThreadId) -> Self {
        Self::of_id(thread.0)
    }

    /// The shard of a job with no thread (`scale.md` §5: `hash(id) %
    /// 1024`), hashed as [`Shard::of`] hashes a thread's id.
    pub fn of_id(id: uuid::Uuid) -> Self {
        let digest = Sha256::digest(id.to_string().as_bytes());
        Self(u16::from_be_bytes([digest[0], digest[1]]) % SHARDS)
    }
}

/// A fresh thread id (UUIDv7) in `shard`: drawn until one hashes there
/// (1,024 draws on average, well under a millisecond). A delegate child
/// takes one in its root's shard, so every node routes it, fences its
/// writes and finds its actor where its root's are (`tools::delegate`).
pub fn thread_in(shard: Shard) -> ThreadId {
    loop {
        let id = ThreadId::new();
        if Shard::of(id) == shard {
            return id;
        }
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// A node's id: fresh at each start, so a restarted node is a new node
/// and nothing its earlier life held (leases, running turns) is mistaken
/// for its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeId(pub uuid::Uuid);

impl NodeId {
    /// A new id.
    pub fn fresh() -> Self {
        Self(uuid::Uuid::new_v4())
    }
}

impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// How much node `name` wants `shard`: SHA-256(name ‖ shard). The shard's
/// preferred node is the live, non-draining node with the highest
/// (rendezvous hashing: a node joining or leaving moves only its own
/// share of the shards).
pub fn preference(name: &str, shard: Shard) -> [u8; 32] {
    let mut hash = Sha256::new();
    hash.update(name.as_bytes());
    hash.update(shard.0.to_be_bytes());
    hash.finalize().into()
}

#[cfg(test)]
mod tests;
