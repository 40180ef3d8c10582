//! `web_fetch`'s robots.txt rule (`respect_robots`, `agent-extras.md` §4):
//! the origin's `/robots.txt` (64 KiB, 5 s) read by texting_robots for
//! the agent `Confer`; a 4xx allows everything, a 5xx or no answer
//! disallows everything (RFC 9309 §2.3.1). Kept an hour per origin, at
//! most 1,024 origins (least recently used out first).

use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use texting_robots::Robot;

use super::fetch::{Hop, USER_AGENT};
use crate::outbound::Outbound;

/// Origins kept.
pub const MAX_ORIGINS: usize = 1024;
/// How long a robots.txt is kept.
const KEPT: Duration = Duration::from_secs(3600);
const MAX_BYTES: usize = 64 * 1024;
const TIMEOUT: Duration = Duration::from_secs(5);

/// What an origin's robots.txt says.
#[derive(Clone)]
enum Rules {
    AllowAll,
    DisallowAll,
    Parsed(Arc<Robot>),
}

/// The robots.txt of recently fetched origins.
pub struct RobotsCache {
    kept: Mutex<lru::LruCache<String, (Instant, Rules)>>,
}

impl Default for RobotsCache {
    fn default() -> Self {
        Self {
            kept: Mutex::new(lru::LruCache::new(
                NonZeroUsize::new(MAX_ORIGINS).unwrap_or(NonZeroUsize::MIN),
            )),
        }
    }
}

impl RobotsCache {
    /// Whether the origin's robots.txt lets `Confer` fetch `hop`.
    pub(super) async fn allows(&self, outbound: &Outbound, hop: &Hop) -> bool {
        let origin = hop.url.origin().ascii_serialization();
        let cached = {
            let mut kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
            kept.get(&origin)
                .filter(|(at, _)| at.elapsed() < KEPT)
                .map(|(_, rules)| rules.clone())
        };
        let rules = match cached {
            Some(rules) => rules,
            None => {
                let rules = read(outbound, hop).await;
                self.kept
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .put(origin, (Instant::now(), rules.clone()));
                rules
            }
        };
        match rules {
            Rules::AllowAll => true,
            Rules::DisallowAll => false,
            Rules::Parsed(robot) => robot.allowed(hop.url.as_str()),
        }
    }

    /// How many origins are kept.
    pub fn len(&self) -> usize {
        self.kept.lock().unwrap_or_else(|p| p.into_inner()).len()
    }

    /// Whether no origin is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

async fn read(outbound: &Outbound, hop: &Hop) -> Rules {
    let Ok(url) = hop.url.join("/robots.txt") else {
        return Rules::DisallowAll;
    };
    let sent = outbound
        .client(hop.trusted)
        .get(url)
        .header(reqwest::header::USER_AGENT, USER_AGENT)
        .timeout(TIMEOUT)
        .send()
        .await;
    let Ok(response) = sent else {
        return Rules::DisallowAll;
    };
    let status = response.status();
    if status.is_client_error() {
        return Rules::AllowAll;
    }
    if !status.is_success() {
        return Rules::DisallowAll;
    }
    match crate::outbound::read_capped(response, MAX_BYTES).await {
        Ok(body) => match Robot::new("Confer", &body) {
            Ok(robot) => Rules::Parsed(Arc::new(robot)),
            Err(_) => Rules::AllowAll,
        },
        Err(_) => Rules::DisallowAll,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_keeps_at_most_its_bound() {
        let cache = RobotsCache::default();
        let mut kept = cache.kept.lock().unwrap();
        for i in 0..MAX_ORIGINS + 10 {
            kept.put(format!("http://o{i}"), (Instant::now(), Rules::AllowAll));
        }
        assert_eq!(kept.len(), MAX_ORIGINS);
        assert!(kept.get("http://o0").is_none(), "the oldest went first");
    }

    #[test]
    fn confer_is_matched_by_its_own_group() {
        let robot = Robot::new("Confer", b"User-agent: Confer\nDisallow: /private\n").unwrap();
        assert!(!robot.allowed("http://x/private/a"));
        assert!(robot.allowed("http://x/public"));
    }
}
