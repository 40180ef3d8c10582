//! A publication's daily token budget (`publishing.md` rule 7). Admission
//! reserves what the send may cost at most: the thread's last input tokens,
//! ⌈chars / 3⌉ for the new message and `maxOutputTokens`; it is refused when
//! the day's spent tokens, the running turns' reservations and this one
//! would pass the budget. Spent tokens are the store's (`publication_days`,
//! written with each usage record); reservations live here, in memory, and
//! end with their turn (which may overrun: the next send is then refused).
//! A messaging channel's budget is kept the same way, keyed by channel
//! (`marketplace-channels.md` §9).

use std::hash::Hash;
use std::sync::Arc;

use chrono::{DateTime, Days, Utc};
use confer_actors::PublicationId;
use dashmap::DashMap;

use crate::error::ApiError;

/// The reservations of the running public turns, by publication or
/// channel (an entry is removed at zero, so the map holds only budgets with
/// running turns: at most one entry per running turn).
pub struct Reservations<K: Hash + Eq = PublicationId> {
    reserved: Arc<DashMap<K, u64>>,
}

impl<K: Hash + Eq> Default for Reservations<K> {
    fn default() -> Self {
        Self {
            reserved: Arc::default(),
        }
    }
}

/// One turn's reservation, released when dropped (the turn holds it).
#[derive(Debug)]
pub struct Reservation<K: Hash + Eq = PublicationId> {
    reserved: Arc<DashMap<K, u64>>,
    key: K,
    amount: u64,
}

impl<K: Hash + Eq> Drop for Reservation<K> {
    fn drop(&mut self) {
        let amount = self.amount;
        self.reserved.remove_if_mut(&self.key, |_, held| {
            *held = held.saturating_sub(amount);
            *held == 0
        });
    }
}

/// A reservation that does not fit what is left of the day's budget.
#[derive(Debug, PartialEq, Eq)]
pub struct Exhausted;

/// The most a send may cost: the thread's last input, its new message at
/// three characters a token, and the output cap.
pub fn send_cost(last_input_tokens: u64, chars: usize, max_output_tokens: u32) -> u64 {
    last_input_tokens + (chars as u64).div_ceil(3) + u64::from(max_output_tokens)
}

/// The next UTC midnight after `now`: when the day's budget resets.
pub fn resets_at(now: DateTime<Utc>) -> DateTime<Utc> {
    now.date_naive()
        .checked_add_days(Days::new(1))
        .and_then(|day| day.and_hms_opt(0, 0, 0))
        .map_or(now, |midnight| midnight.and_utc())
}

impl<K: Hash + Eq + Clone> Reservations<K> {
    /// Reserves `amount` of `key`'s `budget` (none: unlimited, not
    /// counted), of which `spent` is gone today.
    pub fn hold(
        &self,
        key: K,
        amount: u64,
        spent: u64,
        budget: Option<u64>,
    ) -> Result<Option<Reservation<K>>, Exhausted> {
        let Some(budget) = budget else {
            return Ok(None);
        };
        let mut held = self.reserved.entry(key.clone()).or_insert(0);
        if spent.saturating_add(*held).saturating_add(amount) > budget {
            drop(held);
            self.reserved.remove_if(&key, |_, h| *h == 0);
            return Err(Exhausted);
        }
        *held += amount;
        drop(held);
        Ok(Some(Reservation {
            reserved: Arc::clone(&self.reserved),
            key,
            amount,
        }))
    }

    /// Tokens reserved now by `key`'s running turns.
    pub fn reserved(&self, key: &K) -> u64 {
        self.reserved.get(key).map_or(0, |r| *r)
    }

    /// Budgets with reservations (for tests).
    pub fn tracked(&self) -> usize {
        self.reserved.len()
    }
}

impl Reservations<PublicationId> {
    /// [`Reservations::hold`] for a publication's send: 429
    /// `BUDGET_EXHAUSTED` with `Retry-After` to midnight when it does not
    /// fit.
    pub fn reserve(
        &self,
        publication: PublicationId,
        amount: u64,
        spent: u64,
        budget: Option<u64>,
        now: DateTime<Utc>,
    ) -> Result<Option<Reservation>, ApiError> {
        self.hold(publication, amount, spent, budget)
            .map_err(|Exhausted| exhausted(budget.unwrap_or_default(), now))
    }
}

/// 429 `BUDGET_EXHAUSTED` with `Retry-After` to midnight: a publication's
/// send does not fit its day's `budget`.
pub fn exhausted(budget: u64, now: DateTime<Utc>) -> ApiError {
    let wait = (resets_at(now) - now).num_seconds().max(1) as u64;
    ApiError::Refused {
        code: confer_actors::codes::BUDGET_EXHAUSTED,
        detail: format!(
            "limits.dailyTokenBudget: this chat has spent its {budget} tokens for today; it resets at midnight UTC"
        ),
        retry_after: Some(wait),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    #[test]
    fn reservations_fit_the_budget_and_end_with_their_turn() {
        let reservations = Reservations::default();
        let publication = PublicationId::new();
        let now = Utc::now();
        let a = reservations
            .reserve(publication, 400, 500, Some(1000), now)
            .unwrap();
        assert_eq!(reservations.reserved(&publication), 400);
        let ApiError::Refused {
            code, retry_after, ..
        } = reservations
            .reserve(publication, 200, 500, Some(1000), now)
            .unwrap_err()
        else {
            panic!("not refused")
        };
        assert_eq!(code.code, "BUDGET_EXHAUSTED");
        assert!(retry_after.unwrap() <= 86_400);
        drop(a);
        assert_eq!(reservations.tracked(), 0);
        assert!(
            reservations
                .reserve(publication, 200, 500, Some(1000), now)
                .unwrap()
                .is_some()
        );
        assert!(
            reservations
                .reserve(publication, u64::MAX, 0, None, now)
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn costs_and_midnight() {
        assert_eq!(send_cost(100, 7, 64), 100 + 3 + 64);
        let noon = DateTime::parse_from_rfc3339("2026-11-26T12:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        assert_eq!(resets_at(noon).to_rfc3339(), "2026-11-27T00:00:00+00:00");
    }
}
