//! Agent memories (`knowledge.md` §5): short notes an agent keeps about one
//! user (`user` scope) or for every user (`agent` scope), written by the
//! `remember` tool, the API, or after a turn; recalled by the same index as
//! documents under the scope `mem:{agent}:{owner}`. This module holds the
//! records, the agent's memory configuration and the rules of who owns
//! what; the store's layout is `crate::store::knowledge::memories`.

use chrono::{DateTime, Utc};
use confer_actors::{AgentId, MemoryId, OrgId, ThreadId};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The longest memory, in characters.
pub const MAX_CONTENT_CHARS: usize = 2_000;

/// Whose a memory is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum MemoryScope {
    /// One user's: serves only that user's turns.
    User,
    /// Shared: serves every user's turns.
    Agent,
}

/// Who wrote a memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum MemorySource {
    Tool,
    Api,
    Auto,
}

/// A memory.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Memory {
    pub id: MemoryId,
    pub org_id: OrgId,
    pub agent_id: AgentId,
    pub scope: MemoryScope,
    /// The user of a `user` memory; `None` for shared ones.
    pub user_id: Option<String>,
    pub content: String,
    pub source: MemorySource,
    pub thread_id: Option<ThreadId>,
    pub created_at: DateTime<Utc>,
    pub last_recalled_at: Option<DateTime<Utc>>,
}

impl Memory {
    /// The memory's owner.
    pub fn owner(&self) -> Owner {
        match (&self.scope, &self.user_id) {
            (MemoryScope::User, Some(user)) => Owner::User(user.clone()),
            _ => Owner::Shared,
        }
    }

    /// Eviction order: never recalled first (oldest first), then the least
    /// recently recalled.
    pub fn eviction_key(&self) -> (bool, DateTime<Utc>) {
        match self.last_recalled_at {
            Some(at) => (true, at),
            None => (false, self.created_at),
        }
    }
}

/// Whose memories a set is: one user's, or the agent's shared set.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Owner {
    User(String),
    Shared,
}

impl Owner {
    /// The owner as the index's scope names it (`user:{id}` or `agent`).
    pub fn label(&self) -> String {
        match self {
            Self::User(user) => format!("user:{user}"),
            Self::Shared => "agent".to_owned(),
        }
    }

    /// The 16 bytes that key the owner in the store.
    pub fn key(&self) -> [u8; 16] {
        let digest = Sha256::digest(self.label().as_bytes());
        let mut key = [0u8; 16];
        key.copy_from_slice(&digest[..16]);
        key
    }

    /// The index's scope term of this owner's memories of `agent`.
    pub fn scope_term(&self, agent: AgentId) -> String {
        format!("mem:{agent}:{}", self.label())
    }
}

/// The content as duplicates compare it: lower case, whitespace folded.
pub fn normalized(content: &str) -> String {
    content
        .split_whitespace()
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The 16 bytes that key a content among its owner's.
pub fn content_key(content: &str) -> [u8; 16] {
    let digest = Sha256::digest(normalized(content).as_bytes());
    let mut key = [0u8; 16];
    key.copy_from_slice(&digest[..16]);
    key
}

/// Checks a memory's content.
pub fn check_content(content: &str) -> Result<(), String> {
    let chars = content.trim().chars().count();
    if chars == 0 {
        return Err("content: must not be empty".into());
    }
    if content.chars().count() > MAX_CONTENT_CHARS {
        return Err(format!("content: at most {MAX_CONTENT_CHARS} characters"));
    }
    Ok(())
}

/// Who writes a memory from a turn (a `remember` call, a collection).
pub struct Author<'a> {
    pub org: OrgId,
    pub agent: AgentId,
    pub thread: ThreadId,
    /// The turn's sender.
    pub user_id: &'a str,
    /// A public turn: its sender's own memories only.
    pub public: bool,
    /// A multiplayer thread's turn: shared memories only.
    pub multiplayer: bool,
}

impl Author<'_> {
    /// The memory this author writes with `config`'s tool scope, or why
    /// it may not (`knowledge.md` §5: no personal memory in a shared
    /// thread, no shared one from a public chat).
    pub fn memory(
        &self,
        config: &MemoryConfig,
        content: String,
        source: MemorySource,
    ) -> Result<Memory, String> {
        check_content(&content)?;
        let user_id = match config.tool_scope {
            MemoryScope::User if self.multiplayer => {
                return Err("personal memories are not kept in shared threads".into());
            }
            MemoryScope::Agent if self.public => {
                return Err("shared memories are not written from public chats".into());
            }
            MemoryScope::User => Some(self.user_id.to_owned()),
            MemoryScope::Agent => None,
        };
        Ok(Memory {
            id: MemoryId::new(),
            org_id: self.org,
            agent_id: self.agent,
            scope: config.tool_scope,
            user_id,
            content: content.trim().to_owned(),
            source,
            thread_id: Some(self.thread),
            created_at: Utc::now(),
            last_recalled_at: None,
        })
    }
}

/// An agent's memory configuration (`GET/PUT /api/agents/{id}/memory`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(default)]
pub struct MemoryConfig {
    pub enabled: bool,
    /// The sender's and shared memories go in the briefing.
    pub auto_inject: bool,
    /// 0–20.
    pub inject_count: u32,
    pub auto_collect: bool,
    /// 200–16,000.
    pub collect_budget_tokens: u32,
    /// Per owner (each user; the shared set): 1–100,000.
    pub max_memories: u32,
    /// Where `remember` writes.
    pub tool_scope: MemoryScope,
}

impl Default for MemoryConfig {
    fn default() -> Self {
        Self {
            enabled: false,
            auto_inject: true,
            inject_count: 5,
            auto_collect: false,
            collect_budget_tokens: 2_000,
            max_memories: 1_000,
            tool_scope: MemoryScope::User,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicates_compare_without_case_or_spacing() {
        assert_eq!(content_key("Likes  Tea"), content_key("likes tea"));
        assert_ne!(content_key("likes tea"), content_key("likes coffee"));
        assert!(check_content("  ").is_err());
        assert!(check_content(&"x".repeat(MAX_CONTENT_CHARS + 1)).is_err());
    }

    #[test]
    fn owners_are_told_apart_in_the_index_and_the_store() {
        let agent = AgentId::new();
        let alice = Owner::User("alice".into());
        assert_eq!(alice.scope_term(agent), format!("mem:{agent}:user:alice"));
        assert_eq!(
            Owner::Shared.scope_term(agent),
            format!("mem:{agent}:agent")
        );
        assert_ne!(alice.key(), Owner::Shared.key());
    }
}
