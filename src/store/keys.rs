//! The store's key layout: every key is bytes that sort the way it is scanned.
//!
//! | tree               | key                                           | value            |
//! |--------------------|-----------------------------------------------|------------------|
//! | `orgs`             | org                                           | `Org`            |
//! | `org_clocks`       | org                                           | u64 BE, last µs  |
//! | `api_keys`         | key id                                        | `ApiKey`         |
//! | `api_key_hashes`   | SHA-256 of the secret                         | key id           |
//! | `agents`           | org ++ agent                                  | `Agent`          |
//! | `agent_configs`    | org ++ agent ++ kind byte                     | config record    |
//! | `threads`          | org ++ thread                                 | `Thread`         |
//! | `threads_by_agent` | org ++ agent ++ created µs BE ++ thread       | empty            |
//! | `threads_by_user`  | org ++ agent ++ user hash ++ created µs BE ++ thread | empty     |
//! | `threads_by_parent` | org ++ parent thread ++ created µs BE ++ thread | empty (a delegated thread) |
//! | `deleted_threads`  | thread                                        | `DeletedThread`  |
//! | `api_key_used`     | key id                                        | u64 BE, last µs  |
//! | `meta`             | name (UTF-8)                                  | migration marks, `store_format` |
//! | `thread_seqs`      | thread                                        | u64 BE, last seq |
//! | `turn_seqs`        | thread                                        | u64 BE, last turn |
//! | `idempotency`      | thread ++ key hash (32 B)                     | `IdempotencyRecord` |
//! | `messages`         | thread ++ seq BE                              | `Message` or stub |
//! | `context_seqs`     | thread                                        | u64 BE, last seq |
//! | `context`          | thread ++ seq BE                              | `ContextMessage` or stub |
//! | `participants`     | thread ++ user id (UTF-8)                     | `Participant`    |
//! | `usage`            | org ++ created µs BE ++ usage                 | `UsageRecord`    |
//! | `usage_by_thread`  | org ++ thread ++ created µs BE ++ usage       | empty            |
//! | `usage_by_agent`   | org ++ agent ++ created µs BE ++ usage        | empty            |
//! | `tools`            | org ++ tool                                   | `OrgTool` (secret sealed) |
//! | `tool_names`       | org ++ name (UTF-8)                           | tool id          |
//! | `mcps`             | org ++ server                                 | `McpServer` (secrets sealed) |
//! | `mcp_slugs`        | org ++ slug (UTF-8)                           | server id        |
//! | `agent_mcps`       | org ++ agent ++ server                        | `McpAttachment`  |
//! | `oauth_registrations` | org ++ server                              | `OAuthRegistration` (secret sealed) |
//! | `oauth_tokens`     | org ++ server ++ SHA-256 of the owner         | `StoredToken` (sealed) |
//! | `integrations`     | org ++ integration                            | `Integration` (connection sealed) |
//! | `integration_slugs`| org ++ slug (UTF-8)                           | integration id   |
//! | `agent_integrations` | org ++ agent ++ integration                 | `IntegrationAttachment` |
//! | `plans`            | org ++ plan                                   | `Plan` with its todos |
//! | `plans_by_thread`  | thread ++ created µs BE ++ plan               | org              |
//! | `publications`     | org ++ agent                                  | `Publication` (identity secret sealed) |
//! | `publication_slugs`| slug (UTF-8), unique in the instance          | org ++ agent     |
//! | `org_settings`     | org                                           | `OrgSettings`    |
//! | `publication_threads` | publication                               | u64 BE, its threads |
//! | `publication_threads` | publication ++ thread                     | last activity µs BE ++ org |
//! | `publication_days` | publication ++ day BE (u32, days since 1970)  | u64 BE, tokens of its visitors' calls |
//! | `trace_days`       | org ++ day BE (u32, days since 1970) ++ agent ++ model (UTF-8) | `DayAggregate` (binary, merged) |
//!
//! Traces and their indexes are not in sled: see `traces` (files under
//! `traces/`).
//!
//! A message or context entry over 32 KiB is a stub naming its file under
//! `values/{thread}/` (see `values`).
//!
//! `threads_by_user` holds, for each thread, its creator and every
//! participant (the user hash is the first 16 bytes of SHA-256 of the user
//! ID, so entries have a fixed shape). IDs are the 16 raw UUID bytes. Org-owned records are keyed under their org,
//! so a lookup made with the caller's org cannot reach another org's record.
//! Time-ordered indexes end in `created µs ++ id`: "newest first" is a reverse
//! range scan and a cursor is an exclusive upper bound. Messages are keyed by a
//! dense sequence number, so `offset`/`limit` is a direct range, never a skip.
//! `context` is what a model is sent: the listed messages plus the tool calls
//! and results the listing leaves out, in order, with its own sequence.

use chrono::{DateTime, Utc};
use confer_actors::{AgentId, OrgId, PublicationId, ThreadId};

/// Tree names, one per entity or index.
pub mod trees {
    pub const ORGS: &str = "orgs";
    pub const ORG_CLOCKS: &str = "org_clocks";
    pub const API_KEYS: &str = "api_keys";
    pub const API_KEY_HASHES: &str = "api_key_hashes";
    pub const AGENTS: &str = "agents";
    pub const AGENT_CONFIGS: &str = "agent_configs";
    pub const THREADS: &str = "threads";
    pub const THREADS_BY_AGENT: &str = "threads_by_agent";
    pub const THREADS_BY_USER: &str = "threads_by_user";
    pub const THREADS_BY_PARENT: &str = "threads_by_parent";
    pub const DELETED_THREADS: &str = "deleted_threads";
    pub const API_KEY_USED: &str = "api_key_used";
    pub const META: &str = "meta";
    pub const THREAD_SEQS: &str = "thread_seqs";
    pub const TURN_SEQS: &str = "turn_seqs";
    pub const IDEMPOTENCY: &str = "idempotency";
    pub const MESSAGES: &str = "messages";
    pub const CONTEXT_SEQS: &str = "context_seqs";
    pub const CONTEXT: &str = "context";
    pub const PARTICIPANTS: &str = "participants";
    pub const USAGE: &str = "usage";
    pub const USAGE_BY_THREAD: &str = "usage_by_thread";
    pub const USAGE_BY_AGENT: &str = "usage_by_agent";
    pub const TOOLS: &str = "tools";
    pub const TOOL_NAMES: &str = "tool_names";
    pub const MCPS: &str = "mcps";
    pub const MCP_SLUGS: &str = "mcp_slugs";
    pub const AGENT_MCPS: &str = "agent_mcps";
    pub const OAUTH_REGISTRATIONS: &str = "oauth_registrations";
    pub const OAUTH_TOKENS: &str = "oauth_tokens";
    pub const INTEGRATIONS: &str = "integrations";
    pub const INTEGRATION_SLUGS: &str = "integration_slugs";
    pub const AGENT_INTEGRATIONS: &str = "agent_integrations";
    pub const PLANS: &str = "plans";
    pub const PLANS_BY_THREAD: &str = "plans_by_thread";
    pub const TRACE_DAYS: &str = "trace_days";
    pub const PUBLICATIONS: &str = "publications";
    pub const PUBLICATION_SLUGS: &str = "publication_slugs";
    pub const ORG_SETTINGS: &str = "org_settings";
    pub const PUBLICATION_DAYS: &str = "publication_days";
    pub const PUBLICATION_THREADS: &str = "publication_threads";
}

/// Days since 1970-01-01 of an instant (UTC).
pub fn day_number(at: DateTime<Utc>) -> u32 {
    u32::try_from(at.timestamp().div_euclid(86_400)).unwrap_or(0)
}

/// `org ++ day ++ agent ++ model`: one day aggregate.
/// The `publication_days` key of `publication`'s `day`.
pub fn publication_day(publication: PublicationId, day: u32) -> [u8; 20] {
    let mut key = [0u8; 20];
    key[..16].copy_from_slice(publication.as_bytes());
    key[16..].copy_from_slice(&day.to_be_bytes());
    key
}

pub fn trace_day_key(org: OrgId, day: u32, agent: AgentId, model: &str) -> Vec<u8> {
    let mut key = trace_day(org, day);
    key.extend_from_slice(agent.as_bytes());
    key.extend_from_slice(model.as_bytes());
    key
}

/// `org ++ day`: the prefix of an org's aggregates of one day.
pub fn trace_day(org: OrgId, day: u32) -> Vec<u8> {
    let mut key = org.as_bytes().to_vec();
    key.extend_from_slice(&day.to_be_bytes());
    key
}

/// Where an org's per-user day aggregates start in `trace_days`: after
/// every day number (no day range of the org's own reaches them).
const USER_DAYS: [u8; 4] = [0xff; 4];

/// `org ++ ff ff ff ff`: the prefix of all of an org's per-user
/// aggregates.
pub fn user_trace_days(org: OrgId) -> Vec<u8> {
    let mut key = org.as_bytes().to_vec();
    key.extend_from_slice(&USER_DAYS);
    key
}

/// `org ++ ff ff ff ff ++ sha256(user)[..16] ++ day`: the prefix of one
/// user's aggregates of one day (the user's analytics read these, never
/// the traces themselves).
pub fn user_trace_day(org: OrgId, user: &str, day: u32) -> Vec<u8> {
    use sha2::{Digest, Sha256};
    let mut key = user_trace_days(org);
    key.extend_from_slice(&Sha256::digest(user.as_bytes())[..16]);
    key.extend_from_slice(&day.to_be_bytes());
    key
}

/// [`user_trace_day`] `++ agent ++ model`: one user's day aggregate.
pub fn user_trace_day_key(
    org: OrgId,
    user: &str,
    day: u32,
    agent: AgentId,
    model: &str,
) -> Vec<u8> {
    let mut key = user_trace_day(org, user, day);
    key.extend_from_slice(agent.as_bytes());
    key.extend_from_slice(model.as_bytes());
    key
}

/// Which per-agent configuration a config key holds.
#[derive(Clone, Copy, Debug)]
#[repr(u8)]
pub enum ConfigKind {
    Credentials = 1,
    Compaction = 2,
    Plans = 3,
    Multiplayer = 4,
    Knowledge = 5,
    Memory = 6,
    /// `agent-extras.md` §2.
    Suggestions = 7,
    /// `agent-extras.md` §4 (the search key sealed).
    Web = 8,
    /// `agent-extras.md` §3.
    Delegation = 9,
    /// `computer.md` §2.
    Computer = 10,
}

/// `a ++ b`, the key of an org-owned record or an index prefix.
pub fn pair(a: &[u8; 16], b: &[u8; 16]) -> [u8; 32] {
    let mut key = [0u8; 32];
    key[..16].copy_from_slice(a);
    key[16..].copy_from_slice(b);
    key
}

/// `thread ++ key hash`: a keyed send's record.
pub fn keyed_send(thread: &[u8; 16], key: &[u8; 32]) -> [u8; 48] {
    let mut out = [0u8; 48];
    out[..16].copy_from_slice(thread);
    out[16..].copy_from_slice(key);
    out
}

/// `org ++ agent ++ hash(user)`: the prefix of a user's threads of an agent.
pub fn user_threads(org: OrgId, agent: AgentId, user: &str) -> Vec<u8> {
    use sha2::{Digest, Sha256};
    let mut key = pair(org.as_bytes(), agent.as_bytes()).to_vec();
    key.extend_from_slice(&Sha256::digest(user.as_bytes())[..16]);
    key
}

/// The key of an agent's configuration record.
pub fn agent_config(org: OrgId, agent: AgentId, kind: ConfigKind) -> Vec<u8> {
    let mut key = pair(org.as_bytes(), agent.as_bytes()).to_vec();
    key.push(kind as u8);
    key
}

/// Microseconds since the epoch as an order-preserving u64 (earlier clamps to 0).
pub fn micros(at: DateTime<Utc>) -> u64 {
    u64::try_from(at.timestamp_micros()).unwrap_or(0)
}

/// The instant of a `micros` value.
pub fn from_micros(micros: u64) -> DateTime<Utc> {
    let signed = i64::try_from(micros).unwrap_or(i64::MAX);
    DateTime::from_timestamp_micros(signed).unwrap_or(DateTime::<Utc>::MAX_UTC)
}

/// `prefix ++ created µs ++ id`: an entry of a time-ordered index.
pub fn timeline(prefix: &[u8], created_micros: u64, id: &[u8; 16]) -> Vec<u8> {
    let mut key = Vec::with_capacity(prefix.len() + 24);
    key.extend_from_slice(prefix);
    key.extend_from_slice(&created_micros.to_be_bytes());
    key.extend_from_slice(id);
    key
}

/// The upper bound of a reverse timeline scan: entries strictly older than
/// `before` (µs), or every entry of the prefix when `before` is `None`.
pub fn timeline_end(prefix: &[u8], before: Option<u64>) -> Vec<u8> {
    let mut key = prefix.to_vec();
    match before {
        Some(before) => key.extend_from_slice(&before.to_be_bytes()),
        // Larger than any `created ++ id` suffix of this prefix.
        None => key.extend_from_slice(&[0xff; 25]),
    }
    key
}

/// The trailing 16-byte ID of a timeline key.
pub fn timeline_id(key: &[u8]) -> Option<[u8; 16]> {
    let start = key.len().checked_sub(16)?;
    key[start..].try_into().ok()
}

/// The key of a thread's message (or context entry) at `seq`.
pub fn message(thread: ThreadId, seq: u64) -> [u8; 24] {
    let mut key = [0u8; 24];
    key[..16].copy_from_slice(thread.as_bytes());
    key[16..].copy_from_slice(&seq.to_be_bytes());
    key
}

/// The key of a thread's participant.
pub fn participant(thread: ThreadId, user_id: &str) -> Vec<u8> {
    let mut key = thread.as_bytes().to_vec();
    key.extend_from_slice(user_id.as_bytes());
    key
}

/// Reads a big-endian u64 value (a clock or a sequence counter).
pub fn read_u64(bytes: &[u8]) -> u64 {
    bytes.try_into().map(u64::from_be_bytes).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeline_keys_sort_by_time_then_id() {
        let prefix = [7u8; 32];
        let older = timeline(&prefix, 1_000, &[0xff; 16]);
        let newer = timeline(&prefix, 1_001, &[0x00; 16]);
        assert!(older < newer);
        // An entry at exactly the cursor is excluded; one just before is included.
        let end = timeline_end(&prefix, Some(1_001));
        assert!(older < end && newer >= end);
        assert!(newer < timeline_end(&prefix, None));
    }

    #[test]
    fn message_keys_sort_by_sequence() {
        let thread = ThreadId::new();
        assert!(message(thread, 9) < message(thread, 10));
        assert!(message(thread, 255) < message(thread, 256));
    }

    #[test]
    fn micros_round_trip() {
        let now = Utc::now();
        let back = from_micros(micros(now));
        assert_eq!(back.timestamp_micros(), now.timestamp_micros());
    }
}
