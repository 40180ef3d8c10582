//! Rate limits (GCRA, with the governor crate), checked before a request has
//! any effect:
//! - each end user (org + `sub`): `CONFER_USER_RATE_LIMIT_RPS` requests per
//!   second (burst twice that) and `CONFER_USER_SEND_LIMIT_PER_MIN` sends;
//! - each API key with a `rate_limit_rps` (keys are unlimited by default: a
//!   backend carries all its users' traffic on one key).
//!
//! On a cluster each node enforces its share of the requests-per-second
//! limits (`limit / live nodes`, `scale.md` §5): a round trip per request
//! would cost more than most requests. Per-minute send limits are exact
//! there, counted in PostgreSQL.
//!
//! Limiter state is per caller, so the maps are pruned every minute of
//! activity: an entry idle that long has refilled its burst, and dropping it
//! changes nothing.

use std::num::NonZeroU32;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError, RwLock};
use std::time::{Duration, Instant};

use dashmap::DashMap;
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultDirectRateLimiter, DefaultKeyedRateLimiter, Quota, RateLimiter};

use confer_actors::{ApiKeyId, OrgId, TriggerId};

use crate::error::ApiError;
use crate::store::pg::PgStore;

/// How often limiter state is pruned.
const PRUNE_EVERY: Duration = Duration::from_secs(60);

/// A quota of `per_second` requests a second with a burst of twice that
/// (at least 1); `None` when `per_second` is not positive (no limit).
pub fn per_second(per_second: f64) -> Option<(Quota, u32)> {
    if !per_second.is_finite() || per_second <= 0.0 {
        return None;
    }
    let burst = (per_second * 2.0).ceil().clamp(1.0, f64::from(u32::MAX)) as u32;
    let quota = Quota::with_period(Duration::from_secs_f64(1.0 / per_second))?
        .allow_burst(NonZeroU32::new(burst)?);
    Some((quota, burst))
}

/// A keyed limiter of `quota`, if there is one.
fn keyed(quota: Option<(Quota, u32)>) -> Option<(DefaultKeyedRateLimiter<UserKey>, u32)> {
    quota.map(|(quota, n)| (RateLimiter::keyed(quota), n))
}

/// `per_minute` a minute, all of them at once at most.
fn per_minute(per_minute: u32) -> Option<(Quota, u32)> {
    let burst = NonZeroU32::new(per_minute)?;
    Some((Quota::per_minute(burst), per_minute))
}

/// When limiter state was last pruned: due once a minute, to one caller.
pub struct PruneClock(Mutex<Instant>);

impl Default for PruneClock {
    fn default() -> Self {
        Self(Mutex::new(Instant::now()))
    }
}

impl PruneClock {
    /// Whether this caller should prune now (a minute has passed and no
    /// other caller is pruning); the clock restarts when it says yes.
    pub fn due(&self) -> bool {
        let Ok(mut pruned) = self.0.try_lock() else {
            return false; // another request is pruning
        };
        let due = pruned.elapsed() >= PRUNE_EVERY;
        if due {
            *pruned = Instant::now();
        }
        due
    }
}

/// Who a user limit counts.
type UserKey = (OrgId, String);

struct KeyLimiter {
    limiter: DefaultDirectRateLimiter,
    burst: u32,
    rps: f64,
    used: Instant,
}

/// The service's rate limiters.
pub struct RateLimits {
    /// `CONFER_USER_RATE_LIMIT_RPS`, for the whole service.
    user_rps: f64,
    /// How many nodes share the requests-per-second limits.
    nodes: AtomicUsize,
    /// This node's share of the users' limit (made again when the number
    /// of nodes changes).
    users: RwLock<Option<(DefaultKeyedRateLimiter<UserKey>, u32)>>,
    user_sends: Option<(DefaultKeyedRateLimiter<UserKey>, u32)>,
    keys: DashMap<ApiKeyId, KeyLimiter>,
    /// Webhook triggers' `rate_limit_per_min` (one entry per trigger
    /// whose token was presented: bounded by the stored triggers).
    triggers: DashMap<TriggerId, KeyLimiter>,
    pruned: PruneClock,
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

impl RateLimits {
    /// Limits from the settings (0 turns one off).
    pub fn new(user_rps: f64, user_sends_per_minute: u32) -> Self {
        Self {
            user_rps,
            nodes: AtomicUsize::new(1),
            users: RwLock::new(keyed(per_second(user_rps))),
            user_sends: keyed(per_minute(user_sends_per_minute)),
            keys: DashMap::new(),
            triggers: DashMap::new(),
            pruned: PruneClock::default(),
        }
    }

    /// Shares the requests-per-second limits among `nodes` live nodes:
    /// each enforces `limit / nodes` (a burst likewise, at least 1). A
    /// change starts the users' limiter afresh.
    pub fn share_among(&self, nodes: usize) {
        let nodes = nodes.max(1);
        if self.nodes.swap(nodes, Ordering::Relaxed) != nodes {
            let share = keyed(per_second(self.user_rps / nodes as f64));
            *self.users.write().unwrap_or_else(PoisonError::into_inner) = share;
        }
    }

    /// This node's share of a requests-per-second limit.
    fn share(&self, rps: f64) -> f64 {
        rps / self.nodes.load(Ordering::Relaxed) as f64
    }

    /// Counts one request of end user `sub` of `org`.
    pub fn user_request(&self, org: OrgId, sub: &str) -> Result<(), ApiError> {
        self.prune_if_due();
        let users = self.users.read().unwrap_or_else(PoisonError::into_inner);
        Self::check_keyed(users.as_ref(), &(org, sub.to_owned()), "requests")
    }

    /// Counts one send of end user `sub` of `org`: in `shared`, the store
    /// of several nodes, when there is one (exact across nodes, `scale.md`
    /// §5), else in this node's limiter.
    pub async fn user_send(
        &self,
        shared: Option<&PgStore>,
        org: OrgId,
        sub: &str,
    ) -> Result<(), ApiError> {
        let Some(pg) = shared else {
            return Self::check_keyed(self.user_sends.as_ref(), &(org, sub.to_owned()), "sends");
        };
        let Some((_, limit)) = &self.user_sends else {
            return Ok(());
        };
        match pg.take_send(org, sub, *limit).await? {
            None => Ok(()),
            Some(wait) => Err(refusal("sends", *limit, wait)),
        }
    }

    fn check_keyed(
        limiter: Option<&(DefaultKeyedRateLimiter<UserKey>, u32)>,
        key: &UserKey,
        what: &str,
    ) -> Result<(), ApiError> {
        let Some((limiter, limit)) = limiter else {
            return Ok(());
        };
        limiter.check_key(key).map_err(|not_until| {
            refusal(
                what,
                *limit,
                not_until.wait_time_from(DefaultClock::default().now()),
            )
        })
    }

    /// Counts one request of API key `id` limited to `rps` (none: unlimited).
    pub fn key_request(&self, id: ApiKeyId, rps: Option<f64>) -> Result<(), ApiError> {
        self.prune_if_due();
        let Some(rps) = rps.map(|rps| self.share(rps)) else {
            return Ok(());
        };
        let Some((quota, burst)) = per_second(rps) else {
            return Ok(());
        };
        Self::check_entry(&self.keys, id, quota, burst, rps, "requests")
    }

    /// Counts one request to webhook trigger `id`, `per_minute` a minute
    /// (GCRA, all at once at most).
    pub fn trigger_request(&self, id: TriggerId, per_minute: u32) -> Result<(), ApiError> {
        self.prune_if_due();
        let Some((quota, burst)) = self::per_minute(per_minute) else {
            return Ok(());
        };
        let rate = f64::from(per_minute) / 60.0;
        Self::check_entry(&self.triggers, id, quota, burst, rate, "webhook requests")
    }

    /// Checks `id`'s limiter in `map`, made afresh when its rate changed.
    fn check_entry<K: std::hash::Hash + Eq>(
        map: &DashMap<K, KeyLimiter>,
        id: K,
        quota: Quota,
        burst: u32,
        rps: f64,
        what: &str,
    ) -> Result<(), ApiError> {
        let fresh = || KeyLimiter {
            limiter: RateLimiter::direct(quota),
            burst,
            rps,
            used: Instant::now(),
        };
        let mut entry = map.entry(id).or_insert_with(fresh);
        // The limit changed (a new record): start it afresh.
        if (entry.rps - rps).abs() > f64::EPSILON {
            *entry = fresh();
        }
        entry.used = Instant::now();
        let burst = entry.burst;
        entry.limiter.check().map_err(|not_until| {
            refusal(
                what,
                burst,
                not_until.wait_time_from(DefaultClock::default().now()),
            )
        })
    }

    /// Callers with limiter state (for tests and metrics).
    pub fn tracked(&self) -> usize {
        self.keys.len()
            + self.triggers.len()
            + self
                .users
                .read()
                .unwrap_or_else(PoisonError::into_inner)
                .as_ref()
                .map_or(0, |(l, _)| l.len())
            + self.user_sends.as_ref().map_or(0, |(l, _)| l.len())
    }

    fn prune_if_due(&self) {
        if self.pruned.due() {
            self.prune(PRUNE_EVERY);
        }
    }

    /// Drops the state of callers idle for `idle` (their bursts are full).
    pub fn prune(&self, idle: Duration) {
        let users = self.users.read().unwrap_or_else(PoisonError::into_inner);
        for (limiter, _) in [&*users, &self.user_sends].into_iter().flatten() {
            limiter.retain_recent();
            limiter.shrink_to_fit();
        }
        self.keys.retain(|_, entry| entry.used.elapsed() < idle);
        self.keys.shrink_to_fit();
        self.triggers.retain(|_, entry| entry.used.elapsed() < idle);
        self.triggers.shrink_to_fit();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn users_get_a_burst_then_a_refusal_with_retry_after() {
        let limits = RateLimits::new(1.0, 3);
        let org = OrgId::new();
        assert!(limits.user_request(org, "alice").is_ok());
        assert!(limits.user_request(org, "alice").is_ok());
        let refused = limits.user_request(org, "alice").unwrap_err();
        let ApiError::RateLimited {
            retry_after, limit, ..
        } = refused
        else {
            panic!("not a rate limit: {refused:?}")
        };
        assert_eq!(limit, 2);
        assert!(retry_after >= 1);
        // Another user is not affected.
        assert!(limits.user_request(org, "bob").is_ok());
    }

    #[test]
    fn each_of_several_nodes_enforces_its_share() {
        let limits = RateLimits::new(2.0, 0);
        let (org, key) = (OrgId::new(), ApiKeyId::new());
        limits.share_among(2);
        // 2 rps over two nodes: 1 rps here, a burst of 2 (not 4).
        assert!(limits.user_request(org, "alice").is_ok());
        assert!(limits.user_request(org, "alice").is_ok());
        assert!(limits.user_request(org, "alice").is_err());
        limits.key_request(key, Some(1.0)).unwrap();
        assert!(
            limits.key_request(key, Some(1.0)).is_err(),
            "0.5 rps, a burst of 1"
        );
        // Alone again: the whole limit.
        limits.share_among(1);
        for _ in 0..4 {
            limits.user_request(org, "alice").unwrap();
        }
    }

    #[tokio::test]
    async fn sends_are_counted_per_user_per_minute() {
        let limits = RateLimits::new(1.0, 3);
        let org = OrgId::new();
        for _ in 0..3 {
            limits.user_send(None, org, "alice").await.unwrap();
        }
        assert!(limits.user_send(None, org, "alice").await.is_err());
        assert!(limits.user_send(None, org, "bob").await.is_ok());
    }

    #[test]
    fn keys_are_unlimited_unless_configured_and_state_is_pruned() {
        let limits = RateLimits::new(0.0, 0);
        let free = ApiKeyId::new();
        for _ in 0..1000 {
            limits.key_request(free, None).unwrap();
        }
        let limited = ApiKeyId::new();
        limits.key_request(limited, Some(0.5)).unwrap();
        assert!(limits.key_request(limited, Some(0.5)).is_err());
        for _ in 0..100 {
            limits.key_request(ApiKeyId::new(), Some(5.0)).unwrap();
        }
        assert_eq!(limits.tracked(), 101);
        limits.prune(Duration::ZERO);
        assert_eq!(limits.tracked(), 0, "idle state is dropped");
    }
}
