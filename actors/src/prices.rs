//! The price table (`observability.md`, "Cost"): USD per million input,
//! output, cache-read and cache-write tokens per model pattern, and the cost
//! of a model call by `vendor-options.md`'s formula. The adapters load it
//! (compiled-in defaults, operator overrides first); the turn prices each
//! usage record of its trace with it.

use serde::Deserialize;

use crate::domain::UsageRecord;
use crate::gating::glob;

/// The price of one model pattern, in USD per million tokens.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ModelPrice {
    /// A model name (`claude-sonnet-4-5`) or `provider/model`, where `*`
    /// stands for any run of characters (`claude-sonnet-4*`).
    pub pattern: String,
    pub input: f64,
    pub output: f64,
    #[serde(default)]
    pub cache_read: f64,
    #[serde(default)]
    pub cache_write: f64,
}

/// Prices by model pattern; the first pattern that matches wins.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PriceTable {
    #[serde(default, rename = "model")]
    pub models: Vec<ModelPrice>,
}

/// Nano-USD in one USD: costs are summed as integers so that totals equal
/// the sums of their parts exactly.
pub const NANOS_PER_USD: f64 = 1e9;

impl PriceTable {
    /// The price of `model` (as routed: `provider` and the vendor's name).
    pub fn price(&self, provider: &str, model: &str) -> Option<&ModelPrice> {
        self.models.iter().find(|p| {
            glob(&p.pattern, model)
                || p.pattern
                    .strip_prefix(provider)
                    .and_then(|rest| rest.strip_prefix('/'))
                    .is_some_and(|rest| glob(rest, model))
        })
    }

    /// The cost of one usage record in nano-USD; `None` for a model the
    /// table does not price.
    pub fn cost_nanos(&self, record: &UsageRecord) -> Option<u64> {
        let price = self.price(&record.provider, &record.model)?;
        let cached = record.cache_read_tokens + record.cache_write_tokens;
        let fresh = record.input_tokens.saturating_sub(cached) as f64;
        let usd_per_million = fresh * price.input
            + record.cache_read_tokens as f64 * price.cache_read
            + record.cache_write_tokens as f64 * price.cache_write
            + record.output_tokens as f64 * price.output;
        // Per million tokens to nano-USD: × 1e9 / 1e6.
        Some((usd_per_million * 1e3).round() as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_match_with_stars() {
        assert!(glob("claude-sonnet-4*", "claude-sonnet-4-5"));
        assert!(glob("gpt-4o", "gpt-4o"));
        assert!(!glob("gpt-4o", "gpt-4o-mini"));
        assert!(glob("*mini*", "gpt-4o-mini-2024"));
        assert!(glob("a*b*c", "aXbYc"));
        assert!(!glob("a*b*c", "aXcYb"));
        assert!(glob("*", ""));
        assert!(!glob("ab*ba", "aba"));
    }

    fn record() -> UsageRecord {
        UsageRecord {
            id: crate::ids::UsageId::new(),
            org_id: crate::ids::OrgId::new(),
            agent_id: crate::ids::AgentId::new(),
            thread_id: Some(crate::ids::ThreadId::new()),
            message_id: None,
            model: String::new(),
            provider: String::new(),
            key_source: "platform".into(),
            input_tokens: 0,
            output_tokens: 0,
            cache_read_tokens: 0,
            cache_write_tokens: 0,
            metadata: Default::default(),
            publication_id: None,
            delegation: None,
            stopped: false,
            estimated: false,
            step: None,
            purpose: Default::default(),
            compacted: false,
            iterations: None,
            created_at: chrono::Utc::now(),
        }
    }

    #[test]
    fn a_call_is_priced_by_the_formula_and_unknown_models_are_not() {
        let table = PriceTable {
            models: vec![ModelPrice {
                pattern: "anthropic/claude-*".into(),
                input: 3.0,
                output: 15.0,
                cache_read: 0.3,
                cache_write: 3.75,
            }],
        };
        let record = UsageRecord {
            provider: "anthropic".into(),
            model: "claude-sonnet-4-5".into(),
            input_tokens: 1_000_000,
            cache_read_tokens: 400_000,
            cache_write_tokens: 100_000,
            output_tokens: 10_000,
            ..record()
        };
        // 500k fresh × 3 + 400k × 0.3 + 100k × 3.75 + 10k × 15, per million.
        let usd = 1.5 + 0.12 + 0.375 + 0.15;
        assert_eq!(
            table.cost_nanos(&record),
            Some((usd * NANOS_PER_USD) as u64)
        );
        let other = UsageRecord {
            model: "gpt-4o".into(),
            provider: "openai".into(),
            ..record
        };
        assert_eq!(table.cost_nanos(&other), None);
    }
}
