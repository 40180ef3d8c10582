//! Threads and their participants: creation, listing (per agent for admins
//! and members, per user from the `threads_by_user` index for end users),
//! and deletion as a tombstone: one small transaction removes the record and
//! its index entries and writes a marker into `deleted_threads`; the history
//! is removed afterwards by the purge (`super::purge`).

use chrono::{DateTime, Utc};
use confer_actors::{AgentId, OrgId, Participant, StoreError, Thread, ThreadId};
use serde::{Deserialize, Serialize};
use sled::Transactional;

pub use super::participants::ParticipantPut;

use super::codec::{decode, encode};
use super::delegation::parent_entry;
use super::projects::thread_entry as project_entry;
use super::{Page, SledStore, abort, engine, keys, next_org_instant, retention, tx_error};

/// The marker of a deleted thread whose keys are still being removed.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DeletedThread {
    pub org_id: OrgId,
    pub agent_id: AgentId,
    pub created_at: DateTime<Utc>,
    pub deleted_at: DateTime<Utc>,
}

/// The `threads_by_user` entry of `user` on `thread`.
pub(super) fn user_entry(thread: &Thread, user: &str) -> Vec<u8> {
    let prefix = keys::user_threads(thread.org_id, thread.agent_id, user);
    keys::timeline(
        &prefix,
        keys::micros(thread.created_at),
        thread.id.as_bytes(),
    )
}

/// The `threads_by_agent` entry of `thread`.
fn agent_entry(thread: &Thread) -> Vec<u8> {
    let prefix = keys::pair(thread.org_id.as_bytes(), thread.agent_id.as_bytes());
    keys::timeline(
        &prefix,
        keys::micros(thread.created_at),
        thread.id.as_bytes(),
    )
}

/// The record of a thread creation with an `Idempotency-Key`
/// (`idempotency` tree, key `org ++ key hash`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct KeyedCreation {
    /// Hex of the request's hash.
    pub request: String,
    pub thread_id: ThreadId,
    pub created_at: DateTime<Utc>,
}

/// What a keyed thread creation did.
#[derive(Debug)]
pub enum Created {
    /// A new thread, as stored.
    New(Box<Thread>),
    /// The key was seen with this request: the thread it created then.
    Repeat(ThreadId),
    /// The key was seen with another request.
    KeyReused,
    /// The thread's publication holds as many threads as it may.
    PublicationFull,
    /// The thread's creator holds as many threads of its publication as
    /// a visitor may.
    VisitorFull,
    /// The thread's project was deleted meanwhile.
    ProjectGone,
}

impl Created {
    /// The new thread of an unkeyed creation; an error for every other
    /// outcome.
    pub fn into_new(self) -> Result<Thread, StoreError> {
        match self {
            Created::New(thread) => Ok(*thread),
            Created::Repeat(_) | Created::KeyReused => {
                Err(StoreError::Codec("an unkeyed creation met a key".into()))
            }
            Created::PublicationFull | Created::VisitorFull => Err(StoreError::Codec(
                "the thread's publication holds as many threads as it may".into(),
            )),
            Created::ProjectGone => Err(StoreError::Codec("the thread's project is gone".into())),
        }
    }
}

impl SledStore {
    /// Stores a new thread (and its first participant, if any) with a
    /// `created_at` unique within its org; returns the thread as stored.
    pub fn create_thread(
        &self,
        thread: &Thread,
        owner: Option<&Participant>,
    ) -> Result<Thread, StoreError> {
        self.create_thread_keyed(thread, owner, None)?.into_new()
    }

    /// [`SledStore::create_thread`] under an `Idempotency-Key` (`key`: the
    /// hash of org, caller and key; `request`: the request's hash, hex),
    /// checked in the same transaction, so two racing repeats make one
    /// thread. A key older than 24 hours counts as unseen.
    /// The keyed creation recorded under `key` in `org`, while it is kept
    /// (`KEEP_FOR_HOURS`).
    pub fn keyed_creation(
        &self,
        org: OrgId,
        key: &[u8; 32],
    ) -> Result<Option<KeyedCreation>, StoreError> {
        let seen: Option<KeyedCreation> =
            Self::get(&self.idempotency, &keys::keyed_send(org.as_bytes(), key))?;
        Ok(seen.filter(|seen| {
            Utc::now() - seen.created_at
                < chrono::Duration::hours(confer_actors::idempotency::KEEP_FOR_HOURS)
        }))
    }

    pub fn create_thread_keyed(
        &self,
        thread: &Thread,
        owner: Option<&Participant>,
        keyed: Option<([u8; 32], String)>,
    ) -> Result<Created, StoreError> {
        let _writing = self.gate.writing();
        let _visitor = match thread.publication_id {
            Some(publication) => match self.visitor_room(thread, publication)? {
                (true, guard) => Some(guard),
                (false, _) => return Ok(Created::VisitorFull),
            },
            None => None,
        };
        let org = thread.org_id;
        let keyed = keyed.map(|(key, request)| (keys::keyed_send(org.as_bytes(), &key), request));
        let max_public = self
            .public_max_threads
            .load(std::sync::atomic::Ordering::Relaxed);
        (
            &self.threads,
            &self.threads_by_agent,
            &self.threads_by_user,
            &self.org_clocks,
            &self.participants,
            &self.idempotency,
            &self.publication_threads,
            &self.threads_by_parent,
            &self.projects.threads,
            self.projects.records(),
        )
            .transaction(
                |(
                    threads,
                    by_agent,
                    by_user,
                    clocks,
                    participants,
                    keyed_tree,
                    public,
                    by_parent,
                    by_project,
                    projects,
                )| {
                    // Checked here so that a project's delete and this
                    // creation cannot both succeed.
                    if let Some(project) = thread.project_id
                        && projects
                            .get(keys::pair(org.as_bytes(), project.as_bytes()))?
                            .is_none()
                    {
                        return Ok(Created::ProjectGone);
                    }
                    if let Some((key, request)) = &keyed {
                        if let Some(bytes) = keyed_tree.get(key.as_slice())? {
                            let seen: KeyedCreation = decode(&bytes).map_err(abort)?;
                            let fresh = Utc::now() - seen.created_at
                                < chrono::Duration::hours(
                                    confer_actors::idempotency::KEEP_FOR_HOURS,
                                );
                            if fresh {
                                return Ok(if &seen.request == request {
                                    Created::Repeat(seen.thread_id)
                                } else {
                                    Created::KeyReused
                                });
                            }
                        }
                        let record = KeyedCreation {
                            request: request.clone(),
                            thread_id: thread.id,
                            created_at: Utc::now(),
                        };
                        keyed_tree.insert(key.as_slice(), encode(&record).map_err(abort)?)?;
                    }
                    let at = next_org_instant(clocks, org, thread.created_at)?;
                    if let Some(publication) = thread.publication_id
                        && !retention::count_in(
                            public,
                            publication,
                            thread.id,
                            at,
                            org,
                            max_public,
                        )?
                    {
                        return Ok(Created::PublicationFull);
                    }
                    let mut stored = thread.clone();
                    stored.created_at = keys::from_micros(at);
                    stored.updated_at = stored.created_at;
                    threads.insert(
                        &keys::pair(org.as_bytes(), stored.id.as_bytes())[..],
                        encode(&stored).map_err(abort)?,
                    )?;
                    // A run's thread is unlisted: no index finds it.
                    if stored.origin.is_none() {
                        by_agent.insert(agent_entry(&stored), &[])?;
                        by_user.insert(user_entry(&stored, &stored.created_by), &[])?;
                    }
                    // A delegated thread is listed under its parent only.
                    if let Some(entry) = parent_entry(&stored) {
                        by_parent.insert(entry, &[])?;
                    }
                    if let Some(entry) = project_entry(&stored) {
                        by_project.insert(entry, &[])?;
                    }
                    if let Some(owner) = owner {
                        participants.insert(
                            keys::participant(stored.id, &owner.user_id),
                            encode(owner).map_err(abort)?,
                        )?;
                        by_user.insert(user_entry(&stored, &owner.user_id), &[])?;
                    }
                    Ok(Created::New(Box::new(stored)))
                },
            )
            .map_err(tx_error)
    }

    /// Deletes a thread: the record and its index entries go and a purge
    /// marker is written, in one small transaction; `false` when it was
    /// already gone. The history is removed afterwards by the purge.
    pub fn delete_thread(&self, org: OrgId, id: ThreadId) -> Result<bool, StoreError> {
        let _writing = self.gate.writing();
        let deleted = (
            &self.threads,
            &self.threads_by_agent,
            &self.threads_by_user,
            &self.thread_seqs,
            &self.context_seqs,
            &self.turn_seqs,
            &self.deleted_threads,
            &self.publication_threads,
            &self.threads_by_parent,
            &self.projects.threads,
        )
            .transaction(
                |(
                    threads,
                    by_agent,
                    by_user,
                    seqs,
                    context_seqs,
                    turn_seqs,
                    markers,
                    public,
                    by_parent,
                    by_project,
                )| {
                    let key = keys::pair(org.as_bytes(), id.as_bytes());
                    let Some(bytes) = threads.remove(&key[..])? else {
                        return Ok(false);
                    };
                    let thread: Thread = decode(&bytes).map_err(abort)?;
                    by_agent.remove(agent_entry(&thread))?;
                    by_user.remove(user_entry(&thread, &thread.created_by))?;
                    if let Some(entry) = parent_entry(&thread) {
                        by_parent.remove(entry)?;
                    }
                    if let Some(entry) = project_entry(&thread) {
                        by_project.remove(entry)?;
                    }
                    seqs.remove(id.as_bytes())?;
                    context_seqs.remove(id.as_bytes())?;
                    turn_seqs.remove(id.as_bytes())?;
                    if let Some(publication) = thread.publication_id {
                        retention::uncount_in(public, publication, id)?;
                    }
                    let marker = DeletedThread {
                        org_id: org,
                        agent_id: thread.agent_id,
                        created_at: thread.created_at,
                        deleted_at: Utc::now(),
                    };
                    markers.insert(id.as_bytes(), encode(&marker).map_err(abort)?)?;
                    Ok(true)
                },
            )
            .map_err(tx_error)?;
        if deleted {
            self.purger.wake();
        }
        Ok(deleted)
    }

    /// Threads of one agent, newest first, strictly older than `before`,
    /// keeping those `visible` accepts. With `user`, only the threads that
    /// user created or joined are scanned (the `threads_by_user` index).
    pub fn list_threads(
        &self,
        org: OrgId,
        agent: AgentId,
        user: Option<&str>,
        before: Option<DateTime<Utc>>,
        limit: usize,
        visible: impl Fn(&Thread) -> Result<bool, StoreError>,
    ) -> Result<Page<Thread>, StoreError> {
        let (index, prefix) = match user {
            Some(user) => (&self.threads_by_user, keys::user_threads(org, agent, user)),
            None => (
                &self.threads_by_agent,
                keys::pair(org.as_bytes(), agent.as_bytes()).to_vec(),
            ),
        };
        self.thread_timeline(index, &prefix, org, before, limit, visible)
    }

    /// The threads `index` lists under `prefix` (`… ++ created µs ++
    /// thread`), newest first, strictly older than `before`, keeping those
    /// `visible` accepts.
    pub(super) fn thread_timeline(
        &self,
        index: &sled::Tree,
        prefix: &[u8],
        org: OrgId,
        before: Option<DateTime<Utc>>,
        limit: usize,
        visible: impl Fn(&Thread) -> Result<bool, StoreError>,
    ) -> Result<Page<Thread>, StoreError> {
        self.timeline_page(
            index,
            prefix,
            before,
            limit,
            |key, _| {
                let Some(id) = keys::timeline_id(key) else {
                    return Ok(None);
                };
                let thread: Option<Thread> =
                    Self::get(&self.threads, &keys::pair(org.as_bytes(), &id))?;
                let thread = thread.map(|t| self.live_project_of(t)).transpose()?;
                Ok(match thread {
                    Some(thread) if visible(&thread)? => Some(thread),
                    _ => None,
                })
            },
            |thread| thread.created_at,
        )
    }

    /// One-time layout migrations, each marked done in the `meta` tree.
    pub(super) fn migrate(&self) -> Result<(), StoreError> {
        let _writing = self.gate.writing();
        const USER_INDEX: &[u8] = b"threads_by_user.v1";
        if self.meta.get(USER_INDEX).map_err(engine)?.is_some() {
            return Ok(());
        }
        // Stores made before the per-user index: build it once from the
        // threads and participants (idempotent if interrupted).
        for value in self.threads.iter().values() {
            let thread: Thread = decode(&value.map_err(engine)?)?;
            let mut users = vec![thread.created_by.clone()];
            users.extend(self.participants(thread.id)?.into_iter().map(|p| p.user_id));
            for user in users {
                self.threads_by_user
                    .insert(user_entry(&thread, &user), &[])
                    .map_err(engine)?;
            }
        }
        self.meta.insert(USER_INDEX, &[1]).map_err(engine)?;
        Ok(())
    }
}
