//! A thread's participants (multiplayer threads, `publishing.md`): each
//! also has a `threads_by_user` entry, so the threads it joined are listed
//! for it.

use confer_actors::{OrgId, Participant, StoreError, Thread, ThreadId};
use sled::Transactional;

use super::codec::{decode, encode};
use super::threads::user_entry;
use super::{SledStore, abort, engine, keys, tx_error};

impl SledStore {
    /// Adds or updates a participant of a live thread, keeping the first
    /// join time. With `cap`, a new participant is refused when the thread
    /// already has that many (an update always goes through; a thread over
    /// the cap keeps whom it has).
    pub fn put_participant(
        &self,
        org: OrgId,
        thread: ThreadId,
        participant: &Participant,
        cap: Option<usize>,
    ) -> Result<ParticipantPut, StoreError> {
        let _writing = self.gate.writing();
        // A transaction cannot count a prefix: adds are serialized so that
        // two cannot both take the last place.
        let _adding = self
            .participant_adds
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let key = keys::participant(thread, &participant.user_id);
        if let Some(cap) = cap {
            let known = self.participants.get(&key).map_err(engine)?.is_some();
            if !known && self.participants.scan_prefix(thread.as_bytes()).count() >= cap {
                return Ok(ParticipantPut::Full);
            }
        }
        (&self.threads, &self.participants, &self.threads_by_user)
            .transaction(|(threads, participants, by_user)| {
                let Some(bytes) = threads.get(keys::pair(org.as_bytes(), thread.as_bytes()))?
                else {
                    return Ok(ParticipantPut::ThreadGone);
                };
                let record: Thread = decode(&bytes).map_err(abort)?;
                let previous: Option<Participant> = participants
                    .get(&key)?
                    .map(|v| decode(&v))
                    .transpose()
                    .map_err(abort)?;
                let mut stored = participant.clone();
                if let Some(previous) = &previous {
                    stored.joined_at = previous.joined_at;
                }
                participants.insert(key.clone(), encode(&stored).map_err(abort)?)?;
                by_user.insert(user_entry(&record, &stored.user_id), &[])?;
                Ok(ParticipantPut::Stored {
                    participant: stored,
                    replaced: previous.is_some(),
                })
            })
            .map_err(tx_error)
    }

    /// One participant of a thread.
    pub fn participant(
        &self,
        thread: ThreadId,
        user_id: &str,
    ) -> Result<Option<Participant>, StoreError> {
        Self::get(&self.participants, &keys::participant(thread, user_id))
    }

    /// Every participant of a thread, ordered by user ID.
    pub fn participants(&self, thread: ThreadId) -> Result<Vec<Participant>, StoreError> {
        self.participants
            .scan_prefix(thread.as_bytes())
            .values()
            .map(|v| decode(&v.map_err(engine)?))
            .collect()
    }

    /// Removes a participant; false when that user was not one.
    pub fn remove_participant(
        &self,
        org: OrgId,
        thread: ThreadId,
        user_id: &str,
    ) -> Result<bool, StoreError> {
        let _writing = self.gate.writing();
        (&self.threads, &self.participants, &self.threads_by_user)
            .transaction(|(threads, participants, by_user)| {
                if participants
                    .remove(keys::participant(thread, user_id))?
                    .is_none()
                {
                    return Ok(false);
                }
                if let Some(bytes) = threads.get(keys::pair(org.as_bytes(), thread.as_bytes()))? {
                    let record: Thread = decode(&bytes).map_err(abort)?;
                    // The creator keeps the thread in its listing.
                    if record.created_by != user_id {
                        by_user.remove(user_entry(&record, user_id))?;
                    }
                }
                Ok(true)
            })
            .map_err(tx_error)
    }
}

/// The outcome of [`SledStore::put_participant`].
#[derive(Debug)]
pub enum ParticipantPut {
    /// The participant as stored, and whether it replaced one.
    Stored {
        participant: Participant,
        replaced: bool,
    },
    /// The thread is gone.
    ThreadGone,
    /// The thread has as many participants as its cap allows.
    Full,
}
