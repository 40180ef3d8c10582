//! The public chats' abuse limits (`publishing.md` rules 6 and 11), all
//! checked before a request has any effect: GCRA quotas per (publication,
//! visitor) for requests and sends, per (publication, IP) for sends, per IP
//! for session mints, and the count of turns each publication has running.
//!
//! Every map is bounded: idle entries (their burst refilled, so dropping
//! them changes nothing) are pruned each minute of activity, and a map at
//! its cap even after pruning refuses new keys (429) rather than grow.

use std::hash::Hash;
use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::{Duration, Instant};

use confer_actors::{PublicationId, RunnerId, ThreadId};
use dashmap::DashMap;
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultDirectRateLimiter, Quota, RateLimiter};

use super::client_ip::IpKey;
use crate::error::ApiError;
use crate::limits::PruneClock;

/// How often idle limiter entries are dropped.
const PRUNE_EVERY: Duration = Duration::from_secs(60);
/// The most keys one limiter map holds.
pub const DEFAULT_CAP: usize = 100_000;

/// `n` a minute, all at once at most.
fn per_minute(n: u32) -> Option<Quota> {
    NonZeroU32::new(n).map(Quota::per_minute)
}

/// One key's limiter and the quota it was made with.
struct Slot {
    limiter: DefaultDirectRateLimiter,
    quota: Quota,
    used: Instant,
}

/// GCRA limiters by key, each key with the quota it is checked against (a
/// publication's limits may change between two checks).
struct QuotaMap<K> {
    slots: DashMap<K, Slot>,
    cap: usize,
}

fn refusal(what: &str, limit: u32, wait: Duration) -> ApiError {
    let retry_after = wait.as_secs_f64().ceil().max(1.0) as u64;
    metrics::counter!(crate::observability::metrics::RATE_LIMITED).increment(1);
    ApiError::RateLimited {
        detail: format!("{what}: rate limit reached; retry in {retry_after} s"),
        limit,
        retry_after,
    }
}

impl<K: Hash + Eq + Clone> QuotaMap<K> {
    fn new(cap: usize) -> Self {
        Self {
            slots: DashMap::new(),
            cap,
        }
    }

    fn check(&self, key: &K, quota: Quota, what: &str) -> Result<(), ApiError> {
        let limit = quota.burst_size().get();
        if !self.slots.contains_key(key) && self.slots.len() >= self.cap {
            return Err(refusal(
                &format!("{what} (too many callers at once)"),
                limit,
                PRUNE_EVERY,
            ));
        }
        let mut slot = self.slots.entry(key.clone()).or_insert_with(|| Slot {
            limiter: RateLimiter::direct(quota),
            quota,
            used: Instant::now(),
        });
        if slot.quota != quota {
            slot.limiter = RateLimiter::direct(quota);
            slot.quota = quota;
        }
        slot.used = Instant::now();
        slot.limiter.check().map_err(|not_until| {
            refusal(
                what,
                limit,
                not_until.wait_time_from(DefaultClock::default().now()),
            )
        })
    }

    fn prune(&self, idle: Duration) {
        self.slots.retain(|_, slot| slot.used.elapsed() < idle);
        self.slots.shrink_to_fit();
    }
}

/// The public chats' limiters.
pub struct PublicLimits {
    visitor_rps: Option<Quota>,
    mints_per_minute: Option<Quota>,
    requests: QuotaMap<(PublicationId, String)>,
    sends: QuotaMap<(PublicationId, String)>,
    ip_sends: QuotaMap<(PublicationId, IpKey)>,
    mints: QuotaMap<IpKey>,
    /// Runner buttons' `rate_limit_per_min`, per (runner, client address).
    buttons: QuotaMap<(RunnerId, IpKey)>,
    running: Arc<DashMap<PublicationId, Running>>,
    pruned: PruneClock,
}

/// A publication's turns admitted and not done, by thread.
#[derive(Debug, Default)]
struct Running {
    count: u32,
    threads: std::collections::HashMap<ThreadId, u32>,
}

/// 429 `RATE_LIMITED`: `max` turns of the publication run already.
pub fn too_many_turns(max: u32) -> ApiError {
    ApiError::Refused {
        code: confer_actors::codes::RATE_LIMITED,
        detail: format!(
            "limits.maxConcurrentTurns: this chat answers {max} messages at once; retry shortly"
        ),
        retry_after: Some(2),
    }
}

/// One turn counted against its publication's `maxConcurrentTurns` until
/// dropped (the turn holds it to its end).
#[derive(Debug)]
pub struct RunningSlot {
    running: Arc<DashMap<PublicationId, Running>>,
    publication: PublicationId,
    thread: ThreadId,
}

impl Drop for RunningSlot {
    fn drop(&mut self) {
        // Removed at zero, so the map holds only publications with turns.
        let thread = self.thread;
        self.running.remove_if_mut(&self.publication, |_, running| {
            running.count = running.count.saturating_sub(1);
            if let Some(n) = running.threads.get_mut(&thread) {
                *n -= 1;
                if *n == 0 {
                    running.threads.remove(&thread);
                }
            }
            running.count == 0
        });
    }
}

impl PublicLimits {
    /// Limits with `visitor_rps` requests a second (burst twice that) per
    /// visitor and `mints_per_minute` sessions per IP; 0 turns one off.
    pub fn new(visitor_rps: f64, mints_per_minute: u32, cap: usize) -> Self {
        Self {
            visitor_rps: crate::limits::per_second(visitor_rps).map(|(quota, _)| quota),
            mints_per_minute: per_minute(mints_per_minute),
            requests: QuotaMap::new(cap),
            sends: QuotaMap::new(cap),
            ip_sends: QuotaMap::new(cap),
            mints: QuotaMap::new(cap),
            buttons: QuotaMap::new(cap),
            running: Arc::new(DashMap::new()),
            pruned: PruneClock::default(),
        }
    }

    /// Counts one request of `user` on `publication`.
    pub fn request(&self, publication: PublicationId, user: &str) -> Result<(), ApiError> {
        self.prune_if_due();
        let Some(quota) = self.visitor_rps else {
            return Ok(());
        };
        self.requests
            .check(&(publication, user.to_owned()), quota, "visitor requests")
    }

    /// Counts one session mint from `ip`.
    pub fn mint(&self, ip: IpKey) -> Result<(), ApiError> {
        self.prune_if_due();
        let Some(quota) = self.mints_per_minute else {
            return Ok(());
        };
        self.mints
            .check(&ip, quota, "visitor sessions from this address")
    }

    /// Counts one run started from `ip` by `runner`'s button, `per_minute`
    /// a minute.
    pub fn button(&self, runner: RunnerId, ip: IpKey, per_minute: u32) -> Result<(), ApiError> {
        self.prune_if_due();
        let Some(quota) = self::per_minute(per_minute) else {
            return Ok(());
        };
        self.buttons
            .check(&(runner, ip), quota, "button runs from this address")
    }

    /// Counts one send (or thread creation) of `user` from `ip`, against the
    /// publication's per-visitor and per-IP quotas a minute.
    pub fn send(
        &self,
        publication: PublicationId,
        user: &str,
        ip: IpKey,
        per_visitor: u32,
        per_ip: u32,
    ) -> Result<(), ApiError> {
        if let Some(quota) = per_minute(per_visitor) {
            self.sends
                .check(&(publication, user.to_owned()), quota, "visitor messages")?;
        }
        if let Some(quota) = per_minute(per_ip) {
            self.ip_sends
                .check(&(publication, ip), quota, "messages from this address")?;
        }
        Ok(())
    }

    /// A slot for one more turn of `publication` on `thread`, if fewer
    /// than `max` run.
    pub fn admit_turn(
        &self,
        publication: PublicationId,
        thread: ThreadId,
        max: u32,
    ) -> Result<RunningSlot, ApiError> {
        let mut running = self.running.entry(publication).or_default();
        if running.count >= max {
            drop(running);
            // Not counted: the entry may have been made just now.
            self.running.remove_if(&publication, |_, r| r.count == 0);
            return Err(too_many_turns(max));
        }
        running.count += 1;
        *running.threads.entry(thread).or_insert(0) += 1;
        Ok(RunningSlot {
            running: Arc::clone(&self.running),
            publication,
            thread,
        })
    }

    /// Turns of `publication` admitted and not done.
    pub fn running(&self, publication: PublicationId) -> u32 {
        self.running.get(&publication).map_or(0, |r| r.count)
    }

    /// The threads with turns of `publication` admitted and not done.
    pub fn running_threads(&self, publication: PublicationId) -> Vec<ThreadId> {
        self.running
            .get(&publication)
            .map(|r| r.threads.keys().copied().collect())
            .unwrap_or_default()
    }

    /// Keys held by every map (for tests and metrics).
    pub fn tracked(&self) -> usize {
        self.requests.slots.len()
            + self.sends.slots.len()
            + self.ip_sends.slots.len()
            + self.mints.slots.len()
            + self.buttons.slots.len()
            + self.running.len()
    }

    fn prune_if_due(&self) {
        if self.pruned.due() {
            self.prune(PRUNE_EVERY);
        }
    }

    /// Drops the entries idle for `idle`.
    pub fn prune(&self, idle: Duration) {
        self.requests.prune(idle);
        self.sends.prune(idle);
        self.ip_sends.prune(idle);
        self.mints.prune(idle);
        self.buttons.prune(idle);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    fn ip(n: u8) -> IpKey {
        IpKey::of(std::net::IpAddr::from([10, 0, 0, n]))
    }

    #[test]
    fn sends_are_limited_per_visitor_and_per_ip() {
        let limits = PublicLimits::new(5.0, 20, DEFAULT_CAP);
        let publication = PublicationId::new();
        for _ in 0..2 {
            limits.send(publication, "v1", ip(1), 2, 3).unwrap();
        }
        let ApiError::RateLimited { retry_after, .. } =
            limits.send(publication, "v1", ip(1), 2, 3).unwrap_err()
        else {
            panic!("not a rate limit")
        };
        assert!(retry_after >= 1);
        // Another visitor on the same IP has one left under the IP's 3.
        limits.send(publication, "v2", ip(1), 2, 3).unwrap();
        assert!(limits.send(publication, "v3", ip(1), 2, 3).is_err());
        // Another publication counts apart.
        limits
            .send(PublicationId::new(), "v1", ip(1), 2, 3)
            .unwrap();
        // A changed quota starts afresh.
        limits.send(publication, "v1", ip(2), 5, 30).unwrap();
    }

    #[test]
    fn mints_and_requests_have_their_quotas() {
        let limits = PublicLimits::new(1.0, 2, DEFAULT_CAP);
        limits.mint(ip(1)).unwrap();
        limits.mint(ip(1)).unwrap();
        assert!(limits.mint(ip(1)).is_err());
        limits.mint(ip(2)).unwrap();
        let publication = PublicationId::new();
        limits.request(publication, "v").unwrap();
        limits.request(publication, "v").unwrap();
        assert!(limits.request(publication, "v").is_err());
    }

    #[test]
    fn a_full_map_refuses_new_keys_until_pruned() {
        let limits = PublicLimits::new(5.0, 100, 3);
        for n in 0..3 {
            limits.mint(ip(n)).unwrap();
        }
        assert!(limits.mint(ip(9)).is_err(), "the cap is reached");
        limits.mint(ip(0)).unwrap();
        limits.prune(Duration::ZERO);
        assert_eq!(limits.tracked(), 0);
        limits.mint(ip(9)).unwrap();
    }

    #[test]
    fn running_turns_are_counted_and_forgotten_at_zero() {
        let limits = PublicLimits::new(5.0, 20, DEFAULT_CAP);
        let publication = PublicationId::new();
        let (t1, t2) = (ThreadId::new(), ThreadId::new());
        let a = limits.admit_turn(publication, t1, 2).unwrap();
        let b = limits.admit_turn(publication, t2, 2).unwrap();
        assert_eq!(limits.running_threads(publication).len(), 2);
        let ApiError::Refused { retry_after, .. } =
            limits.admit_turn(publication, t1, 2).unwrap_err()
        else {
            panic!("not refused")
        };
        assert_eq!(retry_after, Some(2));
        assert_eq!(limits.running(publication), 2);
        drop(a);
        assert_eq!(limits.running_threads(publication), vec![t2]);
        let c = limits.admit_turn(publication, t2, 2).unwrap();
        drop(b);
        assert_eq!(limits.running_threads(publication), vec![t2]);
        drop(c);
        assert_eq!(limits.running(publication), 0);
        assert_eq!(limits.tracked(), 0);
    }
}
