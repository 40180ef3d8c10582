//! Code agents and their sessions in the store (`computer.md` §5–6; see
//! `crate::code`).
//!
//! | tree                   | key                 | value                      |
//! |------------------------|---------------------|----------------------------|
//! | `code_agents`          | org ++ code agent   | `CodeAgent` (token sealed) |
//! | `code_sessions`        | org ++ session      | `CodeSession`              |
//! | `code_session_threads` | thread              | org ++ session             |
//!
//! Session IDs are time-ordered, so "newest first" is a reverse scan of
//! the org's prefix.
//!
//! A create counts the org's code agents under one lock (a sled
//! transaction cannot count a prefix); a change is a compare-and-swap on
//! the record read, so a late write never resurrects a deleted one.

use chrono::{DateTime, Utc};
use confer_actors::{CodeAgentId, CodeSessionId, OrgId, StoreError, ThreadId};
use sled::Transactional;

use super::codec::{decode, encode};
use super::update::{Updated, existing, swap};
use super::{SledStore, engine};
use crate::code::agents::{CodeAgent, MAX_CODE_AGENTS_PER_ORG};
use crate::code::sessions::{CodeSession, SessionStatus};
use crate::secrets::aad;

/// The code agent trees.
pub struct CodeTrees {
    agents: sled::Tree,
    sessions: sled::Tree,
    session_threads: sled::Tree,
    /// Held by writes that count.
    counting: std::sync::Mutex<()>,
}

impl CodeTrees {
    pub fn open(db: &sled::Db) -> Result<Self, StoreError> {
        Ok(Self {
            agents: db.open_tree("code_agents").map_err(engine)?,
            sessions: db.open_tree("code_sessions").map_err(engine)?,
            session_threads: db.open_tree("code_session_threads").map_err(engine)?,
            counting: std::sync::Mutex::new(()),
        })
    }
}

fn key(org: OrgId, id: CodeAgentId) -> Vec<u8> {
    [org.as_bytes().as_slice(), id.as_bytes()].concat()
}

fn session_key(org: OrgId, id: CodeSessionId) -> Vec<u8> {
    [org.as_bytes().as_slice(), id.as_bytes()].concat()
}

fn token_aad(org: OrgId, id: CodeAgentId) -> String {
    aad(&org.to_string(), "code_agents", &id.to_string(), "token")
}

/// What a create did.
#[derive(Debug)]
pub enum CodeAgentCreated {
    Stored(Box<CodeAgent>),
    /// The org has [`MAX_CODE_AGENTS_PER_ORG`].
    Full,
}

impl SledStore {
    /// `agent` with a plain token sealed (a sealed one stays as it is).
    fn seal_code_token(&self, mut agent: CodeAgent) -> Result<CodeAgent, StoreError> {
        if let Some(token) = &agent.repository.token
            && !crate::secrets::SecretBox::is_sealed(token)
        {
            let sealed = self
                .secrets
                .seal(token, &token_aad(agent.org_id, agent.id))
                .map_err(|e| StoreError::Engine(e.to_string()))?;
            agent.repository.token = Some(sealed);
        }
        Ok(agent)
    }

    /// Stores a new code agent (its token in plain text, sealed here).
    pub fn create_code_agent(&self, agent: CodeAgent) -> Result<CodeAgentCreated, StoreError> {
        let _writing = self.gate.writing();
        let trees = &self.code;
        let _counting = trees.counting.lock().unwrap_or_else(|p| p.into_inner());
        if trees.agents.scan_prefix(agent.org_id.as_bytes()).count() >= MAX_CODE_AGENTS_PER_ORG {
            return Ok(CodeAgentCreated::Full);
        }
        let agent = self.seal_code_token(agent)?;
        trees
            .agents
            .insert(key(agent.org_id, agent.id), encode(&agent)?)
            .map_err(engine)?;
        Ok(CodeAgentCreated::Stored(Box::new(agent)))
    }

    /// One code agent of the org (its token sealed).
    pub fn code_agent(&self, org: OrgId, id: CodeAgentId) -> Result<Option<CodeAgent>, StoreError> {
        Self::get(&self.code.agents, &key(org, id))
    }

    /// The org's code agents, oldest first (IDs are time-ordered).
    pub fn code_agents(&self, org: OrgId) -> Result<Vec<CodeAgent>, StoreError> {
        self.code
            .agents
            .scan_prefix(org.as_bytes())
            .values()
            .map(|value| decode(&value.map_err(engine)?))
            .collect()
    }

    /// Changes a code agent (compare-and-swap); a new plain token is
    /// sealed. `Gone` once it was deleted.
    pub fn update_code_agent<E>(
        &self,
        org: OrgId,
        id: CodeAgentId,
        mut change: impl FnMut(CodeAgent) -> Result<CodeAgent, E>,
    ) -> Result<Updated<CodeAgent, E>, StoreError> {
        let _writing = self.gate.writing();
        /// A refusal of the change, or a token that could not be sealed.
        enum Failed<E> {
            Change(E),
            Sealing(StoreError),
        }
        let updated = swap(&self.code.agents, &key(org, id), existing, |agent| {
            let changed = change(agent).map_err(Failed::Change)?;
            self.seal_code_token(changed).map_err(Failed::Sealing)
        })?;
        Ok(match updated {
            Updated::Stored(agent) => Updated::Stored(agent),
            Updated::Gone => Updated::Gone,
            Updated::Refused(Failed::Change(error)) => Updated::Refused(error),
            Updated::Refused(Failed::Sealing(error)) => return Err(error),
        })
    }

    /// Deletes a code agent; the record it was, if any.
    pub fn delete_code_agent(
        &self,
        org: OrgId,
        id: CodeAgentId,
    ) -> Result<Option<CodeAgent>, StoreError> {
        let _writing = self.gate.writing();
        let removed = self.code.agents.remove(key(org, id)).map_err(engine)?;
        removed.map(|bytes| decode(&bytes)).transpose()
    }

    /// A code agent's repository token, opened.
    pub fn code_agent_token(&self, agent: &CodeAgent) -> Result<Option<String>, StoreError> {
        agent
            .repository
            .token
            .as_deref()
            .map(|sealed| {
                self.secrets
                    .open(sealed, &token_aad(agent.org_id, agent.id))
                    .map(|s| secrecy::ExposeSecret::expose_secret(&s).to_owned())
                    .map_err(|e| StoreError::Engine(e.to_string()))
            })
            .transpose()
    }

    /// Stores a new session with its thread's entry.
    pub fn create_code_session(&self, session: &CodeSession) -> Result<(), StoreError> {
        let _writing = self.gate.writing();
        let key = session_key(session.org_id, session.id);
        let record = encode(session)?;
        let trees = &self.code;
        (&trees.sessions, &trees.session_threads)
            .transaction(|(sessions, threads)| {
                sessions.insert(key.as_slice(), record.as_slice())?;
                threads.insert(session.thread_id.as_bytes().as_slice(), key.as_slice())?;
                Ok(())
            })
            .map_err(super::tx_error)
    }

    /// One session of the org.
    pub fn code_session(
        &self,
        org: OrgId,
        id: CodeSessionId,
    ) -> Result<Option<CodeSession>, StoreError> {
        Self::get(&self.code.sessions, &session_key(org, id))
    }

    /// The session that owns `thread`, if one does.
    pub fn code_session_of_thread(
        &self,
        thread: ThreadId,
    ) -> Result<Option<CodeSession>, StoreError> {
        let Some(key) = self
            .code
            .session_threads
            .get(thread.as_bytes())
            .map_err(engine)?
        else {
            return Ok(None);
        };
        Self::get(&self.code.sessions, &key)
    }

    /// The org's sessions, newest first, older than `before` (a cursor),
    /// those `keep` accepts, at most `limit`.
    pub fn code_sessions(
        &self,
        org: OrgId,
        before: Option<CodeSessionId>,
        limit: usize,
        keep: impl Fn(&CodeSession) -> bool,
    ) -> Result<Vec<CodeSession>, StoreError> {
        let prefix = org.as_bytes().to_vec();
        let end = match before {
            Some(id) => session_key(org, id),
            None => [prefix.as_slice(), &[0xff; 17]].concat(),
        };
        let mut page = Vec::new();
        for entry in self.code.sessions.range(prefix.clone()..end).rev() {
            let (_, value) = entry.map_err(engine)?;
            let session: CodeSession = decode(&value)?;
            if keep(&session) {
                page.push(session);
                if page.len() >= limit {
                    break;
                }
            }
        }
        Ok(page)
    }

    /// Every session with `status` (restart recovery, sweeps).
    pub fn code_sessions_in(&self, status: SessionStatus) -> Result<Vec<CodeSession>, StoreError> {
        let mut found = Vec::new();
        for value in self.code.sessions.iter().values() {
            let session: CodeSession = decode(&value.map_err(engine)?)?;
            if session.status == status {
                found.push(session);
            }
        }
        Ok(found)
    }

    /// Removes sessions archived before `cutoff` (`computer.md` §6 rule
    /// 6), at most `batch`, each with its thread (purged in the
    /// background like any deleted thread); how many went.
    pub fn sweep_code_sessions(
        &self,
        cutoff: DateTime<Utc>,
        batch: usize,
    ) -> Result<usize, StoreError> {
        let expired: Vec<CodeSession> = self
            .code_sessions_in(SessionStatus::Archived)?
            .into_iter()
            .filter(|s| s.archived_at.is_some_and(|at| at < cutoff))
            .take(batch)
            .collect();
        for session in &expired {
            // The thread first: a crash between the two leaves a session
            // whose thread is gone, which the next sweep removes.
            self.delete_thread(session.org_id, session.thread_id)?;
            self.remove_code_session(session)?;
        }
        Ok(expired.len())
    }

    /// Removes a session's record and its thread's entry (not the thread).
    pub fn remove_code_session(&self, session: &CodeSession) -> Result<(), StoreError> {
        let _writing = self.gate.writing();
        let key = session_key(session.org_id, session.id);
        (&self.code.sessions, &self.code.session_threads)
            .transaction(|(sessions, threads)| {
                sessions.remove(key.as_slice())?;
                threads.remove(session.thread_id.as_bytes().as_slice())?;
                Ok(())
            })
            .map_err(super::tx_error)
    }

    /// Changes a session (compare-and-swap); `Gone` once it was deleted.
    pub fn update_code_session<E>(
        &self,
        org: OrgId,
        id: CodeSessionId,
        change: impl FnMut(CodeSession) -> Result<CodeSession, E>,
    ) -> Result<Updated<CodeSession, E>, StoreError> {
        let _writing = self.gate.writing();
        swap(&self.code.sessions, &session_key(org, id), existing, change)
    }
}

#[cfg(test)]
#[path = "code_tests.rs"]
mod tests;
