//! Messaging channels and their contacts (`marketplace-channels.md` §7;
//! rules in `crate::channels`); inbound deliveries and jobs in `jobs`.
//!
//! | tree                  | key                            | value        |
//! |-----------------------|--------------------------------|--------------|
//! | `channels`            | channel                        | `Channel`    |
//! | `channels_by_agent`   | org ++ agent ++ channel        | —            |
//! | `channel_identities`  | kind byte ++ vendor identity   | channel      |
//! | `channel_contacts`    | channel ++ contact             | `Contact`    |
//! | `channel_contact_ids` | channel ++ SHA-256(external)   | contact      |
//! | `channel_keys`        | channel ++ delivery key        | expiry ms    |
//! | `channel_jobs`        | channel ++ job                 | `ChannelJob` |
//! | `channel_days`        | channel ++ day                 | tokens (u64) |
//!
//! Keyed by channel alone: a vendor's webhook names the channel, not its
//! org. A caller's reads name the org and see nothing of another's. The
//! identity index makes a bot, team or number belong to one channel on the
//! instance; it moves in the transaction that changes the identity.

pub mod jobs;

use confer_actors::{Agent, AgentId, ChannelId, OrgId, StoreError};
use sled::Transactional;

use super::codec::{decode, encode};
use super::update::Updated;
use super::{SledStore, abort, engine, keys, tx_error};
use crate::channels::{Channel, Contact, MAX_PER_AGENT, MAX_PER_ORG};

/// The channel trees.
pub struct ChannelTrees {
    pub(super) channels: sled::Tree,
    by_agent: sled::Tree,
    identities: sled::Tree,
    pub(super) contacts: sled::Tree,
    pub(super) contact_ids: sled::Tree,
    pub(super) keys: sled::Tree,
    pub(super) jobs: sled::Tree,
    pub(super) days: sled::Tree,
}

impl ChannelTrees {
    pub fn open(db: &sled::Db) -> Result<Self, StoreError> {
        let tree = |name: &str| db.open_tree(name).map_err(engine);
        Ok(Self {
            channels: tree("channels")?,
            by_agent: tree("channels_by_agent")?,
            identities: tree("channel_identities")?,
            contacts: tree("channel_contacts")?,
            contact_ids: tree("channel_contact_ids")?,
            keys: tree("channel_keys")?,
            jobs: tree("channel_jobs")?,
            days: tree("channel_days")?,
        })
    }
}

fn identity_key(channel: &Channel) -> Vec<u8> {
    let mut key = vec![channel.kind.tag()];
    key.extend_from_slice(channel.identity.as_bytes());
    key
}

fn agent_key(channel: &Channel) -> Vec<u8> {
    let mut key = keys::pair(channel.org_id.as_bytes(), channel.agent_id.as_bytes()).to_vec();
    key.extend_from_slice(channel.id.as_bytes());
    key
}

/// Why a channel was not stored.
#[derive(Debug, PartialEq)]
pub enum ChannelWrite {
    /// Another channel has this bot, team or number.
    Taken,
    /// The agent has [`MAX_PER_AGENT`] channels, or the org [`MAX_PER_ORG`].
    Full(&'static str),
    /// The agent is absent or deleted.
    AgentGone,
}

fn channel_aad(org: OrgId, id: ChannelId, field: &str) -> String {
    crate::secrets::aad(&org.to_string(), "channel", &id.to_string(), field)
}

fn sealing(error: crate::secrets::SecretError) -> StoreError {
    StoreError::Engine(error.to_string())
}

impl SledStore {
    /// Seals `plain` as the channel's `field` (AAD `{org}/channel/{id}/{field}`).
    pub fn seal_channel_secret(
        &self,
        channel: &mut Channel,
        field: &str,
        plain: &str,
    ) -> Result<(), StoreError> {
        let sealed = self
            .secrets
            .seal(plain, &channel_aad(channel.org_id, channel.id, field))
            .map_err(sealing)?;
        channel.sealed.insert(field.to_owned(), sealed);
        Ok(())
    }

    /// Opens one sealed secret of channel `id` of `org` (`sealed` as
    /// stored under `field`, possibly kept elsewhere: a cleanup job's).
    pub fn open_channel_secret(
        &self,
        (org, id): (OrgId, ChannelId),
        field: &str,
        sealed: &str,
    ) -> Result<String, StoreError> {
        use secrecy::ExposeSecret;
        let plain = self
            .secrets
            .open(sealed, &channel_aad(org, id, field))
            .map_err(sealing)?;
        Ok(plain.expose_secret().to_owned())
    }

    /// A channel's secrets, opened for a call.
    pub fn open_channel(&self, channel: &Channel) -> Result<crate::channels::Opened, StoreError> {
        let open = |field: &str| match channel.sealed.get(field) {
            Some(sealed) => self.open_channel_secret((channel.org_id, channel.id), field, sealed),
            None => Ok(String::new()),
        };
        Ok(crate::channels::Opened {
            bot_token: open("bot_token")?,
            signing_secret: open("signing_secret")?,
            access_token: open("access_token")?,
            app_secret: open("app_secret")?,
            secret_token: open("secret_token")?,
        })
    }

    /// The channel that has `identity` on `kind`'s vendor, if any.
    pub fn channel_with_identity(
        &self,
        kind: crate::channels::ChannelKind,
        identity: &str,
    ) -> Result<Option<ChannelId>, StoreError> {
        let key = [&[kind.tag()][..], identity.as_bytes()].concat();
        Ok(self
            .channels
            .identities
            .get(key)
            .map_err(engine)?
            .and_then(|id| id.as_ref().try_into().ok().map(ChannelId::from_bytes)))
    }

    /// A channel by id alone (a vendor's webhook).
    pub fn channel(&self, id: ChannelId) -> Result<Option<Channel>, StoreError> {
        Self::get(&self.channels.channels, id.as_bytes())
    }

    /// A channel of `org`.
    pub fn org_channel(&self, org: OrgId, id: ChannelId) -> Result<Option<Channel>, StoreError> {
        Ok(self.channel(id)?.filter(|c| c.org_id == org))
    }

    /// An agent's channels, oldest first.
    pub fn agent_channels(&self, org: OrgId, agent: AgentId) -> Result<Vec<Channel>, StoreError> {
        let prefix = keys::pair(org.as_bytes(), agent.as_bytes());
        let mut found = Vec::new();
        for entry in self.channels.by_agent.scan_prefix(prefix) {
            let (key, _) = entry.map_err(engine)?;
            if let Some(channel) = Self::get::<Channel>(&self.channels.channels, &key[32..])? {
                found.push(channel);
            }
        }
        found.sort_by_key(|c| (c.created_at, c.id));
        Ok(found)
    }

    /// Stores a new channel: its agent live, its identity free, the
    /// agent's and org's caps kept; all in one transaction.
    pub fn create_channel(
        &self,
        channel: &Channel,
    ) -> Result<Result<(), ChannelWrite>, StoreError> {
        let _writing = self.gate.writing();
        let org = channel.org_id;
        let on_agent = self
            .channels
            .by_agent
            .scan_prefix(keys::pair(org.as_bytes(), channel.agent_id.as_bytes()))
            .count();
        let on_org = self.channels.by_agent.scan_prefix(org.as_bytes()).count();
        if on_agent >= MAX_PER_AGENT {
            return Ok(Err(ChannelWrite::Full("the agent has 10 channels")));
        }
        if on_org >= MAX_PER_ORG {
            return Ok(Err(ChannelWrite::Full("the org has 100 channels")));
        }
        let record = encode(channel)?;
        let agent = keys::pair(org.as_bytes(), channel.agent_id.as_bytes());
        let trees = &self.channels;
        (
            &self.agents,
            &trees.channels,
            &trees.by_agent,
            &trees.identities,
        )
            .transaction(|(agents, channels, by_agent, identities)| {
                let live = match agents.get(agent)? {
                    Some(bytes) => !decode::<Agent>(&bytes).map_err(abort)?.is_deleted(),
                    None => false,
                };
                if !live {
                    return Ok(Err(ChannelWrite::AgentGone));
                }
                if identities.get(identity_key(channel))?.is_some() {
                    return Ok(Err(ChannelWrite::Taken));
                }
                identities.insert(identity_key(channel), channel.id.as_bytes().as_slice())?;
                by_agent.insert(agent_key(channel), &[])?;
                channels.insert(channel.id.as_bytes().as_slice(), record.as_slice())?;
                Ok(Ok(()))
            })
            .map_err(tx_error)
    }

    /// Changes a channel of `org` (compare-and-swap); a new identity must
    /// be free (`Refused(Taken)` otherwise, through `taken`).
    pub fn update_channel<E>(
        &self,
        org: OrgId,
        id: ChannelId,
        taken: impl Fn() -> E,
        mut change: impl FnMut(Channel) -> Result<Channel, E>,
    ) -> Result<Updated<Channel, E>, StoreError> {
        let _writing = self.gate.writing();
        let trees = &self.channels;
        loop {
            let Some(old) = trees.channels.get(id.as_bytes()).map_err(engine)? else {
                return Ok(Updated::Gone);
            };
            let before: Channel = decode(&old)?;
            if before.org_id != org {
                return Ok(Updated::Gone);
            }
            let after = match change(before.clone()) {
                Ok(after) => after,
                Err(refusal) => return Ok(Updated::Refused(refusal)),
            };
            let bytes = encode(&after)?;
            let outcome = (&trees.channels, &trees.identities)
                .transaction(|(channels, identities)| {
                    if channels.get(id.as_bytes())?.as_ref() != Some(&old) {
                        return Ok(None);
                    }
                    let (from, to) = (identity_key(&before), identity_key(&after));
                    if from != to {
                        if identities.get(&to)?.is_some() {
                            return Ok(Some(false));
                        }
                        identities.remove(from)?;
                        identities.insert(to, id.as_bytes().as_slice())?;
                    }
                    channels.insert(id.as_bytes().as_slice(), bytes.as_slice())?;
                    Ok(Some(true))
                })
                .map_err(tx_error)?;
            match outcome {
                Some(true) => return Ok(Updated::Stored(after)),
                Some(false) => return Ok(Updated::Refused(taken())),
                None => continue,
            }
        }
    }

    /// Deletes a channel of `org` with its contacts, keys and jobs, and
    /// stores `cleanup` (Telegram's `deleteWebhook`) in the same
    /// transaction; the threads stay. Whether there was one.
    pub fn delete_channel(
        &self,
        org: OrgId,
        id: ChannelId,
        cleanup: Option<&jobs::ChannelJob>,
    ) -> Result<bool, StoreError> {
        let _writing = self.gate.writing();
        let trees = &self.channels;
        let Some(channel) = self.org_channel(org, id)? else {
            return Ok(false);
        };
        let owned = |tree: &sled::Tree| -> Result<Vec<sled::IVec>, StoreError> {
            tree.scan_prefix(id.as_bytes())
                .keys()
                .collect::<Result<_, _>>()
                .map_err(engine)
        };
        let prefixed = [
            (&trees.contacts, owned(&trees.contacts)?),
            (&trees.contact_ids, owned(&trees.contact_ids)?),
            (&trees.keys, owned(&trees.keys)?),
            (&trees.jobs, owned(&trees.jobs)?),
            (&trees.days, owned(&trees.days)?),
        ];
        let cleanup = cleanup.map(|job| Ok::<_, StoreError>((job.key(), encode(job)?)));
        let cleanup = cleanup.transpose()?;
        let removed = (
            &trees.channels,
            &trees.by_agent,
            &trees.identities,
            &trees.jobs,
        )
            .transaction(|(channels, by_agent, identities, jobs)| {
                if channels.remove(id.as_bytes().as_slice())?.is_none() {
                    return Ok(false);
                }
                by_agent.remove(agent_key(&channel))?;
                identities.remove(identity_key(&channel))?;
                if let Some((key, bytes)) = &cleanup {
                    jobs.insert(key.as_slice(), bytes.as_slice())?;
                }
                Ok(true)
            })
            .map_err(tx_error)?;
        // The channel is gone, so nothing more arrives under its prefix:
        // what it owned goes now (a delivery that committed just before is
        // in a second scan).
        for (tree, listed) in prefixed {
            for key in listed {
                tree.remove(key).map_err(engine)?;
            }
            for key in owned(tree)? {
                if cleanup
                    .as_ref()
                    .is_some_and(|(k, _)| k.as_slice() == key.as_ref())
                {
                    continue;
                }
                tree.remove(key).map_err(engine)?;
            }
        }
        Ok(removed)
    }

    /// Deletes an agent's channels (the agent's delete); cleanups stored.
    pub fn delete_agent_channels(
        &self,
        org: OrgId,
        agent: AgentId,
        cleanup: impl Fn(&Channel) -> Option<jobs::ChannelJob>,
    ) -> Result<usize, StoreError> {
        let mut deleted = 0;
        for channel in self.agent_channels(org, agent)? {
            if self.delete_channel(org, channel.id, cleanup(&channel).as_ref())? {
                deleted += 1;
            }
        }
        Ok(deleted)
    }

    /// A channel's contacts, most recent message first, after `cursor`
    /// (`(last_message_at, id)` of the previous page's last).
    pub fn channel_contacts(
        &self,
        channel: ChannelId,
        cursor: Option<(chrono::DateTime<chrono::Utc>, confer_actors::ContactId)>,
        limit: usize,
    ) -> Result<Vec<Contact>, StoreError> {
        // Up to MAX_CONTACTS, in id order: the page is chosen as they are
        // read, never all of them held and sorted.
        let contacts = self
            .channels
            .contacts
            .scan_prefix(channel.as_bytes())
            .values()
            .map(|v| decode::<Contact>(&v.map_err(engine)?));
        super::newest::greatest_below(
            contacts,
            |c| (c.last_message_at, c.id),
            cursor.as_ref(),
            limit,
        )
    }
}
