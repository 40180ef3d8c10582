//! Inbound deliveries and the jobs they make (`marketplace-channels.md`
//! §8–§9): a delivery's messages are taken in one transaction (a key seen
//! is skipped, else the key, the contact and a job are stored), flushed
//! before the vendor's 200; a job's reply chunks and how many were sent are
//! stored before and after each send, so a restart repeats at most one.

use chrono::{DateTime, Duration, Utc};
use confer_actors::{ChannelId, ChannelJobId, ContactId, OrgId, StoreError, ThreadId};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use sled::Transactional;

use super::super::codec::{decode, encode};
use super::super::{SledStore, abort, engine, tx_error};
use crate::channels::vendors::{Inbound, ReplyTarget};
use crate::channels::{Channel, Contact, KEY_DAYS, MAX_CONTACTS, MAX_PENDING_PER_CONTACT};

/// What a job does.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum JobWork {
    /// Answer a contact's message.
    Message {
        contact_id: ContactId,
        text: String,
        target: ReplyTarget,
    },
    /// Telegram's `deleteWebhook` after the channel's delete (its bot
    /// token kept sealed under the deleted channel's name).
    DeleteWebhook { sealed_bot_token: String },
}

/// Where a message job is.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Reply {
    /// The reply's chunks, stored before the first send.
    pub chunks: Vec<String>,
    /// How many were sent.
    pub sent: usize,
}

/// A durable job of a channel.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ChannelJob {
    pub id: ChannelJobId,
    pub org_id: OrgId,
    pub channel_id: ChannelId,
    pub work: JobWork,
    /// Set once the turn ended (or was skipped): what to send.
    pub reply: Option<Reply>,
    pub attempts: u32,
    pub not_before: DateTime<Utc>,
    pub created_at: DateTime<Utc>,
}

impl ChannelJob {
    /// Its key: channel ++ job (jobs of a channel in arrival order).
    pub fn key(&self) -> Vec<u8> {
        [self.channel_id.as_bytes().as_slice(), self.id.as_bytes()].concat()
    }

    /// The contact it answers, for a message.
    pub fn contact(&self) -> Option<ContactId> {
        match &self.work {
            JobWork::Message { contact_id, .. } => Some(*contact_id),
            JobWork::DeleteWebhook { .. } => None,
        }
    }
}

/// What taking a delivery did.
#[derive(Debug, Default, PartialEq)]
pub struct Taken {
    pub jobs: usize,
    pub repeats: usize,
    /// Messages of a contact with 20 jobs waiting.
    pub dropped: usize,
}

fn delivery_key(channel: ChannelId, key: &str) -> Vec<u8> {
    [channel.as_bytes().as_slice(), key.as_bytes()].concat()
}

fn contact_id_key(channel: ChannelId, external: &str) -> Vec<u8> {
    let digest = Sha256::digest(external.as_bytes());
    [channel.as_bytes().as_slice(), &digest[..16]].concat()
}

fn contact_key(channel: ChannelId, contact: ContactId) -> [u8; 32] {
    super::super::keys::pair(channel.as_bytes(), contact.as_bytes())
}

impl SledStore {
    /// Jobs waiting on a channel.
    pub fn channel_pending(&self, channel: ChannelId) -> usize {
        self.channels.jobs.scan_prefix(channel.as_bytes()).count()
    }

    /// Takes a delivery's messages in one transaction: a key seen in the
    /// last 8 days is a repeat; otherwise its keys, its contact (made on
    /// first sight, up to the channel's cap) and a job are stored.
    pub fn take_delivery(
        &self,
        channel: &Channel,
        messages: &[Inbound],
        now: DateTime<Utc>,
    ) -> Result<Taken, StoreError> {
        let _writing = self.gate.writing();
        let id = channel.id;
        let expires = (now + Duration::days(KEY_DAYS))
            .timestamp_millis()
            .to_be_bytes();
        let trees = &self.channels;
        (
            &trees.channels,
            &trees.keys,
            &trees.contacts,
            &trees.contact_ids,
            &trees.jobs,
        )
            .transaction(|(channels, seen, contacts, contact_ids, jobs)| {
                let Some(record) = channels.get(id.as_bytes())? else {
                    return Ok(Taken::default());
                };
                let mut stored: Channel = decode(&record).map_err(abort)?;
                let mut taken = Taken::default();
                for message in messages {
                    let mut repeat = false;
                    for key in &message.keys {
                        if let Some(until) = seen.get(delivery_key(id, key))? {
                            let until =
                                i64::from_be_bytes(until.as_ref().try_into().unwrap_or([0; 8]));
                            repeat |= until > now.timestamp_millis();
                        }
                    }
                    if repeat {
                        taken.repeats += 1;
                        continue;
                    }
                    for key in &message.keys {
                        seen.insert(delivery_key(id, key), expires.as_slice())?;
                    }
                    let id_key = contact_id_key(id, &message.external_id);
                    let mut contact = match contact_ids.get(&id_key)? {
                        Some(bytes) => {
                            let contact =
                                ContactId::from_bytes(bytes.as_ref().try_into().unwrap_or([0; 16]));
                            contacts
                                .get(contact_key(id, contact))?
                                .map(|b| decode::<Contact>(&b).map_err(abort))
                                .transpose()?
                        }
                        None => None,
                    };
                    if contact.is_none() {
                        if stored.contact_count >= MAX_CONTACTS {
                            taken.dropped += 1;
                            continue;
                        }
                        let made = Contact {
                            id: ContactId::new(),
                            channel_id: id,
                            external_id: message.external_id.clone(),
                            display_name: None,
                            username: None,
                            thread_id: None,
                            message_count: 0,
                            pending: 0,
                            first_seen_at: now,
                            last_message_at: now,
                        };
                        contact_ids.insert(id_key, made.id.as_bytes().as_slice())?;
                        stored.contact_count += 1;
                        contact = Some(made);
                    }
                    let Some(mut contact) = contact else { continue };
                    if contact.pending as usize >= MAX_PENDING_PER_CONTACT {
                        taken.dropped += 1;
                        continue;
                    }
                    contact.message_count += 1;
                    contact.pending += 1;
                    contact.last_message_at = now;
                    contact.display_name = message.display_name.clone().or(contact.display_name);
                    contact.username = message.username.clone().or(contact.username);
                    let job = ChannelJob {
                        id: ChannelJobId::new(),
                        org_id: stored.org_id,
                        channel_id: id,
                        work: JobWork::Message {
                            contact_id: contact.id,
                            text: message.text.clone(),
                            target: message.target.clone(),
                        },
                        reply: None,
                        attempts: 0,
                        not_before: now,
                        created_at: now,
                    };
                    jobs.insert(job.key(), encode(&job).map_err(abort)?)?;
                    contacts.insert(
                        contact_key(id, contact.id).as_slice(),
                        encode(&contact).map_err(abort)?,
                    )?;
                    taken.jobs += 1;
                }
                if taken.jobs > 0 {
                    stored.last_message_at = Some(now);
                    channels.insert(id.as_bytes().as_slice(), encode(&stored).map_err(abort)?)?;
                }
                Ok(taken)
            })
            .map_err(tx_error)
    }

    /// Every job waiting, channel by channel in arrival order, read as the
    /// caller goes (a dispatcher with no free worker reads none).
    pub fn channel_jobs(&self) -> impl Iterator<Item = Result<ChannelJob, StoreError>> + '_ {
        self.channels
            .jobs
            .iter()
            .values()
            .map(|v| decode(&v.map_err(engine)?))
    }

    /// Stores a job's progress, unless it is gone (its channel deleted).
    pub fn save_channel_job(&self, job: &ChannelJob) -> Result<bool, StoreError> {
        let _writing = self.gate.writing();
        let key = job.key();
        let bytes = encode(job)?;
        self.channels
            .jobs
            .transaction(|jobs| {
                if jobs.get(&key)?.is_none() {
                    return Ok(false);
                }
                jobs.insert(key.as_slice(), bytes.as_slice())?;
                Ok(true)
            })
            .map_err(tx_error)
    }

    /// Removes a finished job; its contact has one job fewer waiting.
    pub fn finish_channel_job(&self, job: &ChannelJob) -> Result<(), StoreError> {
        let _writing = self.gate.writing();
        let key = job.key();
        let contact = job.contact().map(|c| contact_key(job.channel_id, c));
        (&self.channels.jobs, &self.channels.contacts)
            .transaction(|(jobs, contacts)| {
                if jobs.remove(key.as_slice())?.is_none() {
                    return Ok(());
                }
                if let Some(key) = contact
                    && let Some(bytes) = contacts.get(key)?
                {
                    let mut contact: Contact = decode(&bytes).map_err(abort)?;
                    contact.pending = contact.pending.saturating_sub(1);
                    contacts.insert(key.as_slice(), encode(&contact).map_err(abort)?)?;
                }
                Ok(())
            })
            .map_err(tx_error)
    }

    /// A contact of a channel.
    pub fn channel_contact(
        &self,
        channel: ChannelId,
        contact: ContactId,
    ) -> Result<Option<Contact>, StoreError> {
        Self::get(&self.channels.contacts, &contact_key(channel, contact))
    }

    /// Sets a contact's thread (made on its first message, again if
    /// deleted).
    pub fn set_contact_thread(
        &self,
        channel: ChannelId,
        contact: ContactId,
        thread: ThreadId,
    ) -> Result<(), StoreError> {
        let _writing = self.gate.writing();
        let key = contact_key(channel, contact);
        self.channels
            .contacts
            .transaction(|contacts| {
                if let Some(bytes) = contacts.get(key)? {
                    let mut contact: Contact = decode(&bytes).map_err(abort)?;
                    contact.thread_id = Some(thread);
                    contacts.insert(key.as_slice(), encode(&contact).map_err(abort)?)?;
                }
                Ok(())
            })
            .map_err(tx_error)
    }

    /// Tokens a channel's turns used on `day`.
    pub fn channel_day_tokens(&self, channel: ChannelId, day: u32) -> Result<u64, StoreError> {
        let key = [channel.as_bytes().as_slice(), &day.to_be_bytes()].concat();
        Ok(self
            .channels
            .days
            .get(key)
            .map_err(engine)?
            .and_then(|v| v.as_ref().try_into().ok().map(u64::from_be_bytes))
            .unwrap_or(0))
    }

    /// Adds `tokens` to a channel's `day`.
    pub fn add_channel_day_tokens(
        &self,
        channel: ChannelId,
        day: u32,
        tokens: u64,
    ) -> Result<(), StoreError> {
        let _writing = self.gate.writing();
        let key = [channel.as_bytes().as_slice(), &day.to_be_bytes()].concat();
        self.channels
            .days
            .update_and_fetch(key, |old| {
                let before = old
                    .and_then(|v| v.try_into().ok().map(u64::from_be_bytes))
                    .unwrap_or(0);
                Some((before + tokens).to_be_bytes().to_vec())
            })
            .map_err(engine)?;
        Ok(())
    }

    /// Drops delivery keys past their 8 days; how many.
    pub fn sweep_channel_keys(&self, now: DateTime<Utc>) -> Result<usize, StoreError> {
        let _writing = self.gate.writing();
        let mut removed = 0;
        for entry in self.channels.keys.iter() {
            let (key, until) = entry.map_err(engine)?;
            let until = i64::from_be_bytes(until.as_ref().try_into().unwrap_or([0; 8]));
            if until <= now.timestamp_millis() {
                self.channels.keys.remove(key).map_err(engine)?;
                removed += 1;
            }
        }
        Ok(removed)
    }
}
