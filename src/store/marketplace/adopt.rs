//! `use`'s one transaction (`marketplace-channels.md` §5): the new agent,
//! its plan and compaction settings, its attachments to servers and
//! integrations of its org, and the `Idempotency-Key`'s answer, all or
//! nothing.

use chrono::{DateTime, Utc};
use confer_actors::StoreError;
use serde::{Deserialize, Serialize};
use sled::Transactional;

use super::super::attached::{Attachment, attachment_key};
use super::super::codec::{decode, encode};
use super::super::keys::{self, ConfigKind};
use super::super::{SledStore, abort, tx_error};
use crate::marketplace::adopt::Adoption;

/// A keyed `use`'s record: its request's hash and the answer it gave.
#[derive(Serialize, Deserialize)]
pub struct KeyedAdoption {
    pub request: String,
    pub answer: String,
    pub created_at: DateTime<Utc>,
}

/// What storing an adoption did.
#[derive(Debug, PartialEq)]
pub enum Adopted {
    Stored,
    /// The key's first answer (JSON).
    Repeat(String),
    /// The key came with another request.
    KeyReused,
    /// A server or integration to attach was deleted meanwhile.
    TargetGone,
}

/// An attachment to `target`, encoded, beside the target's key bytes.
fn link<Id: Serialize>(
    bytes: [u8; 16],
    target: Id,
    allowed: &Option<Vec<String>>,
    now: DateTime<Utc>,
) -> Result<([u8; 16], Vec<u8>), StoreError> {
    let attachment = Attachment {
        target,
        allowed: allowed.clone(),
        attached_at: now,
    };
    Ok((bytes, encode(&attachment)?))
}

impl SledStore {
    /// Stores `adoption` and, under `keyed` (the key's hash and the
    /// request's hash, hex), `answer` for a repeat to return.
    pub fn adopt_agent(
        &self,
        adoption: &Adoption,
        keyed: Option<([u8; 32], String)>,
        answer: &str,
    ) -> Result<Adopted, StoreError> {
        let _writing = self.gate.writing();
        let agent = &adoption.agent;
        let org = agent.org_id;
        let agent_key = keys::pair(org.as_bytes(), agent.id.as_bytes());
        let agent_bytes = encode(agent)?;
        let plan_bytes = encode(&adoption.plan)?;
        let compaction_bytes = adoption.compaction.as_ref().map(encode).transpose()?;
        let keyed = keyed.map(|(key, request)| (keys::keyed_send(org.as_bytes(), &key), request));
        let now = Utc::now();
        let mcp_links = adoption
            .mcp_attachments
            .iter()
            .map(|(id, allowed)| link(*id.as_bytes(), *id, allowed, now))
            .collect::<Result<Vec<_>, _>>()?;
        let new_servers = adoption
            .new_mcps
            .iter()
            .map(|server| Ok::<_, StoreError>((server.clone(), encode(server)?)))
            .collect::<Result<Vec<_>, _>>()?;
        let integration_links = adoption
            .integration_attachments
            .iter()
            .map(|(id, allowed)| link(*id.as_bytes(), *id, allowed, now))
            .collect::<Result<Vec<_>, _>>()?;
        (
            &self.agents,
            &self.agent_configs,
            &self.mcps,
            &self.agent_mcps,
            &self.integrations,
            &self.agent_integrations,
            &self.idempotency,
            &self.mcp_slugs,
        )
            .transaction(
                |(
                    agents,
                    configs,
                    mcps,
                    agent_mcps,
                    integrations,
                    agent_integrations,
                    keyed_tree,
                    slugs,
                )| {
                    // Every check before any write: a refusal commits nothing.
                    if let Some((key, request)) = &keyed
                        && let Some(bytes) = keyed_tree.get(key.as_slice())?
                    {
                        let seen: KeyedAdoption = decode(&bytes).map_err(abort)?;
                        let fresh = now - seen.created_at
                            < chrono::Duration::hours(confer_actors::idempotency::KEEP_FOR_HOURS);
                        if fresh {
                            return Ok(if &seen.request == request {
                                Adopted::Repeat(seen.answer)
                            } else {
                                Adopted::KeyReused
                            });
                        }
                    }
                    let pairs = [
                        (&mcp_links, mcps, agent_mcps),
                        (&integration_links, integrations, agent_integrations),
                    ];
                    let made = |target: &[u8; 16]| {
                        new_servers.iter().any(|(s, _)| s.id.as_bytes() == target)
                    };
                    for (links, targets, _) in &pairs {
                        for (target, _) in links.iter() {
                            let there = targets.get(keys::pair(org.as_bytes(), target))?;
                            if there.is_none() && !made(target) {
                                return Ok(Adopted::TargetGone);
                            }
                        }
                    }
                    // The servers made for it, then every attachment.
                    for (server, _) in &new_servers {
                        let mut stored = server.clone();
                        stored.slug = super::super::attached::take_slug(
                            slugs,
                            org,
                            &server.slug,
                            server.id.as_bytes(),
                        )?;
                        mcps.insert(
                            keys::pair(org.as_bytes(), server.id.as_bytes()).as_slice(),
                            encode(&stored).map_err(abort)?,
                        )?;
                    }
                    for (links, _, attachments) in &pairs {
                        for (target, attachment) in links.iter() {
                            attachments.insert(
                                attachment_key(org, agent.id, target),
                                attachment.as_slice(),
                            )?;
                        }
                    }
                    if let Some((key, request)) = &keyed {
                        let record = KeyedAdoption {
                            request: request.clone(),
                            answer: answer.to_owned(),
                            created_at: now,
                        };
                        keyed_tree.insert(key.as_slice(), encode(&record).map_err(abort)?)?;
                    }
                    agents.insert(&agent_key[..], agent_bytes.as_slice())?;
                    configs.insert(
                        keys::agent_config(org, agent.id, ConfigKind::Plans),
                        plan_bytes.as_slice(),
                    )?;
                    if let Some(bytes) = &compaction_bytes {
                        configs.insert(
                            keys::agent_config(org, agent.id, ConfigKind::Compaction),
                            bytes.as_slice(),
                        )?;
                    }
                    Ok(Adopted::Stored)
                },
            )
            .map_err(tx_error)
    }
}
