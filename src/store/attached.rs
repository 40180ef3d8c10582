//! What MCP servers and integrations share in the store: a slug unique in
//! the org (allocated in the creating transaction, `_2`, `_3`… on a
//! collision) and attachments to agents, keyed `org ++ agent ++ target`,
//! each with the target's names the agent may use (`None`: all). Every
//! write is one transaction that checks the target still exists, so a
//! write racing a delete never leaves an attachment to nothing.

use chrono::{DateTime, Utc};
use confer_actors::{AgentId, OrgId, StoreError};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use sled::Transactional;
use sled::transaction::{ConflictableTransactionError, TransactionalTree};
use sled::{IVec, Tree};

use super::codec::{decode, encode};
use super::{abort, engine, keys, tx_error};

/// Something attached to an agent: an MCP server, an integration.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Attachment<Id> {
    pub target: Id,
    /// The target's tools (MCP) or tables (integrations) the agent uses;
    /// `None`: every one the target allows.
    pub allowed: Option<Vec<String>>,
    pub attached_at: DateTime<Utc>,
}

/// The targets attached to `agent`, in attachment order, each with its
/// attachment (an attachment whose target is gone is skipped).
pub fn attached_to<'a, T, Id: PartialEq>(
    targets: &'a [T],
    attachments: &'a [(AgentId, Attachment<Id>)],
    agent: AgentId,
    id_of: impl Fn(&T) -> &Id + 'a,
) -> impl Iterator<Item = (&'a T, &'a Attachment<Id>)> + 'a {
    attachments
        .iter()
        .filter(move |(a, _)| *a == agent)
        .filter_map(move |(_, attachment)| {
            let target = targets.iter().find(|t| id_of(t) == &attachment.target)?;
            Some((target, attachment))
        })
}

/// What an attach did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttachOutcome {
    Attached,
    /// It was attached already; its `allowed` list was replaced.
    Replaced,
    /// No such target in the org.
    Missing,
}

/// The longest slug, before a `_2`-style suffix.
const SLUG_CHARS: usize = 32;

/// The slug of `name` (`tools.md` §6): lowercased, each run of characters
/// outside `[a-z0-9]` one `_`, trimmed of `_`, at most 32 characters;
/// `fallback` when nothing is left.
pub fn slug_of(name: &str, fallback: &str) -> String {
    let mut slug = String::with_capacity(name.len());
    for c in name.to_lowercase().chars() {
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            slug.push(c);
        } else if !slug.ends_with('_') {
            slug.push('_');
        }
    }
    let trimmed: String = slug.trim_matches('_').chars().take(SLUG_CHARS).collect();
    let trimmed = trimmed.trim_end_matches('_');
    if trimmed.is_empty() {
        fallback.into()
    } else {
        trimmed.into()
    }
}

/// The `slugs` key of `slug` in `org`.
pub fn slug_key(org: OrgId, slug: &str) -> Vec<u8> {
    let mut key = org.as_bytes().to_vec();
    key.extend_from_slice(slug.as_bytes());
    key
}

type Tx<T> = Result<T, ConflictableTransactionError<StoreError>>;

/// Slugs no new server or integration gets: their tools would be named
/// as the built-in delegate and computer tools (`agent-extras.md` §3).
pub const RESERVED_SLUGS: [&str; 2] = ["delegate", "computer"];

/// The slugs `base` may take, in order: `base`, `base_2`, `base_3`…,
/// none of them reserved (either store takes the first free one).
pub fn slug_candidates(base: &str) -> impl Iterator<Item = String> + '_ {
    std::iter::once(base.to_owned())
        .chain((2u32..).map(move |n| format!("{base}_{n}")))
        .filter(|slug| !RESERVED_SLUGS.contains(&slug.as_str()))
}

/// Takes `base`, or the first free `base_2`, `base_3`… of `org` for
/// `target`, inside the creating transaction; a reserved slug is never
/// free.
pub fn take_slug(slugs: &TransactionalTree, org: OrgId, base: &str, target: &[u8]) -> Tx<String> {
    for slug in slug_candidates(base) {
        if slugs.get(slug_key(org, &slug))?.is_none() {
            slugs.insert(slug_key(org, &slug), target)?;
            return Ok(slug);
        }
    }
    unreachable!("the candidates never end")
}

/// The attachments of one kind: the targets' records (keyed `org ++
/// target`) and the attachments.
pub struct Attachments<'a> {
    pub targets: &'a Tree,
    pub attachments: &'a Tree,
}

pub(super) fn attachment_key(org: OrgId, agent: AgentId, target: &[u8; 16]) -> Vec<u8> {
    let mut key = keys::pair(org.as_bytes(), agent.as_bytes()).to_vec();
    key.extend_from_slice(target);
    key
}

impl Attachments<'_> {
    /// Attaches `target` of `org` to `agent`, or replaces its `allowed`.
    pub fn attach<Id>(
        &self,
        org: OrgId,
        agent: AgentId,
        target: Id,
        target_bytes: &[u8; 16],
        allowed: Option<Vec<String>>,
    ) -> Result<AttachOutcome, StoreError>
    where
        Id: Serialize + DeserializeOwned + Clone,
    {
        let target_key = keys::pair(org.as_bytes(), target_bytes);
        let key = attachment_key(org, agent, target_bytes);
        (self.targets, self.attachments)
            .transaction(|(targets, attachments)| {
                if targets.get(target_key)?.is_none() {
                    return Ok(AttachOutcome::Missing);
                }
                let before: Option<Attachment<Id>> = attachments
                    .get(&key)?
                    .map(|bytes| decode(&bytes).map_err(abort))
                    .transpose()?;
                let attachment = Attachment {
                    target: target.clone(),
                    allowed: allowed.clone(),
                    attached_at: before.as_ref().map_or_else(Utc::now, |b| b.attached_at),
                };
                attachments.insert(key.as_slice(), encode(&attachment).map_err(abort)?)?;
                Ok(if before.is_some() {
                    AttachOutcome::Replaced
                } else {
                    AttachOutcome::Attached
                })
            })
            .map_err(tx_error)
    }

    /// Replaces an existing attachment's `allowed`; `None` when it is not
    /// attached (a detach that landed first stays).
    pub fn set_allowed<Id: Serialize + DeserializeOwned>(
        &self,
        org: OrgId,
        agent: AgentId,
        target: &[u8; 16],
        allowed: Option<Vec<String>>,
    ) -> Result<Option<Attachment<Id>>, StoreError> {
        let key = attachment_key(org, agent, target);
        self.attachments
            .transaction(|attachments| {
                let Some(bytes) = attachments.get(&key)? else {
                    return Ok(None);
                };
                let mut attachment: Attachment<Id> = decode(&bytes).map_err(abort)?;
                attachment.allowed.clone_from(&allowed);
                attachments.insert(key.as_slice(), encode(&attachment).map_err(abort)?)?;
                Ok(Some(attachment))
            })
            .map_err(tx_error)
    }

    /// Detaches; `false` when it was not attached.
    pub fn detach(
        &self,
        org: OrgId,
        agent: AgentId,
        target: &[u8; 16],
    ) -> Result<bool, StoreError> {
        Ok(self
            .attachments
            .remove(attachment_key(org, agent, target))
            .map_err(engine)?
            .is_some())
    }

    /// One attachment, if any.
    pub fn get<Id: DeserializeOwned>(
        &self,
        org: OrgId,
        agent: AgentId,
        target: &[u8; 16],
    ) -> Result<Option<Attachment<Id>>, StoreError> {
        self.attachments
            .get(attachment_key(org, agent, target))
            .map_err(engine)?
            .map(|bytes| decode(&bytes))
            .transpose()
    }

    /// Every attachment in the org, with its agent, oldest first.
    pub fn of_org<Id: DeserializeOwned>(
        &self,
        org: OrgId,
    ) -> Result<Vec<(AgentId, Attachment<Id>)>, StoreError> {
        let mut attachments = self
            .attachments
            .scan_prefix(org.as_bytes())
            .map(|entry| {
                let (key, value) = entry.map_err(engine)?;
                let agent: [u8; 16] = key
                    .get(16..32)
                    .and_then(|b| b.try_into().ok())
                    .ok_or_else(|| StoreError::Codec("attachment key".into()))?;
                Ok((
                    AgentId::from_bytes(agent),
                    decode::<Attachment<Id>>(&value)?,
                ))
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        attachments.sort_by_key(|(_, a)| a.attached_at);
        Ok(attachments)
    }

    /// The keys of every attachment of `target` in the org (read before
    /// the deleting transaction, which removes them).
    pub fn keys_of(&self, org: OrgId, target: &[u8; 16]) -> Result<Vec<IVec>, StoreError> {
        self.attachments
            .scan_prefix(org.as_bytes())
            .keys()
            .filter(|k| {
                k.as_ref()
                    .is_ok_and(|k| k.get(32..) == Some(target.as_slice()))
            })
            .collect::<Result<_, _>>()
            .map_err(engine)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_follow_the_contract() {
        assert_eq!(slug_of("GitHub", "server"), "github");
        assert_eq!(slug_of("  My  Server!! v2 ", "server"), "my_server_v2");
        assert_eq!(slug_of("--", "server"), "server");
        assert_eq!(slug_of(&"a".repeat(40), "x").len(), 32);
        assert_eq!(slug_of("Ünïcode name", "x"), "n_code_name");
    }
}
