//! `confer check` (`operations.md`): a read-only integrity check. Every
//! record must decode (large values: their file present, of the stub's
//! length), every index entry must point at its record and every record
//! have its index entries, sequence counters must cover their entries, and
//! every sealed secret must open with the configured key; knowledge's
//! chunks, files and their references agree (`knowledge`). Memory is one set
//! of thread ids (16 bytes each) and of usage keys; records are read one at
//! a time.

use std::collections::{BTreeMap, HashSet};

use confer_actors::{ContextMessage, Message, StoreError, Thread, ThreadId, UsageRecord};

mod helpers;
mod knowledge;

use self::helpers::{check_index, count_decoded};
use super::codec::decode;
use super::integrations::Integration;
use super::keys::{self, ConfigKind};
use super::mcps::McpServer;
use super::records::{ApiKey, Org};
use super::tools::OrgTool;
use super::{SledStore, engine};
use crate::plans::Plan;

/// What [`SledStore::check`] found.
#[derive(Debug, Default)]
pub struct CheckReport {
    /// Records per kind.
    pub counts: BTreeMap<&'static str, u64>,
    /// Each problem, in words (empty: the store is sound).
    pub problems: Vec<String>,
}

impl CheckReport {
    pub(crate) fn problem(&mut self, text: String) {
        // A broken store can have millions of the same problem.
        if self.problems.len() < 100 {
            self.problems.push(text);
        } else if self.problems.len() == 100 {
            self.problems.push("… more problems not listed".into());
        }
    }
}

fn id16(bytes: &[u8]) -> Option<[u8; 16]> {
    bytes.get(..16)?.try_into().ok()
}

impl SledStore {
    /// Checks the whole store; see the module documentation.
    pub fn check(&self) -> Result<CheckReport, StoreError> {
        let mut report = CheckReport::default();
        self.check_plain(&mut report)?;
        let threads = self.check_threads(&mut report)?;
        self.check_thread_entries(&threads, &mut report)?;
        self.check_usage(&threads, &mut report)?;
        self.check_tools(&mut report)?;
        self.check_slugged(&mut report)?;
        self.check_plans(&mut report)?;
        self.check_knowledge(&mut report)?;
        for problem in self.unopenable_secrets()? {
            report.problem(problem);
        }
        Ok(report)
    }

    /// Records that only need to decode, and the key index.
    fn check_plain(&self, report: &mut CheckReport) -> Result<(), StoreError> {
        let orgs = count_decoded::<Org>(&self.orgs, "org", report)?;
        report.counts.insert("orgs", orgs);
        let agents = count_decoded::<confer_actors::Agent>(&self.agents, "agent", report)?;
        report.counts.insert("agents", agents);
        let keys = count_decoded::<ApiKey>(&self.api_keys, "api key", report)?;
        report.counts.insert("api_keys", keys);
        // hash → key id, the key's own key.
        let names = |_: &[u8], id: &[u8]| id.to_vec();
        check_index(
            &self.api_key_hashes,
            &self.api_keys,
            keys,
            names,
            "api key hash",
            report,
        )
    }

    /// Threads and their listings; returns the ids of threads that exist
    /// or await their purge (whose entries may still be there).
    fn check_threads(&self, report: &mut CheckReport) -> Result<HashSet<[u8; 16]>, StoreError> {
        let mut known = HashSet::new();
        let mut live = 0;
        for entry in self.threads.iter() {
            let (key, value) = entry.map_err(engine)?;
            match decode::<Thread>(&value) {
                Ok(thread) => {
                    live += 1;
                    known.insert(*thread.id.as_bytes());
                    let listed = keys::timeline(
                        &keys::pair(thread.org_id.as_bytes(), thread.agent_id.as_bytes()),
                        keys::micros(thread.created_at),
                        thread.id.as_bytes(),
                    );
                    // A run's or a delegate's thread is unlisted.
                    let unlisted = thread.origin.is_some();
                    if !unlisted && !self.threads_by_agent.contains_key(listed).map_err(engine)? {
                        report.problem(format!(
                            "thread {} is missing from its agent's listing",
                            thread.id
                        ));
                    }
                }
                Err(e) => report.problem(format!("thread key {}: {e}", hex::encode(&key))),
            }
        }
        report.counts.insert("threads", live);
        let mut deleted = 0;
        for key in self.deleted_threads.iter().keys() {
            if let Some(id) = id16(&key.map_err(engine)?) {
                known.insert(id);
                deleted += 1;
            }
        }
        report.counts.insert("threads_awaiting_purge", deleted);
        for (tree, what) in [
            (&self.threads_by_agent, "an agent's thread listing"),
            (&self.threads_by_user, "a user's thread listing"),
        ] {
            for key in tree.iter().keys() {
                let key = key.map_err(engine)?;
                if keys::timeline_id(&key).is_none_or(|id| !known.contains(&id)) {
                    report.problem(format!("{what} names a thread that does not exist"));
                }
            }
        }
        Ok(known)
    }

    /// Messages, context entries and participants: their thread exists and
    /// the thread's counter covers them; each decodes.
    fn check_thread_entries(
        &self,
        threads: &HashSet<[u8; 16]>,
        report: &mut CheckReport,
    ) -> Result<(), StoreError> {
        for (tree, seqs, what) in [
            (&self.messages, &self.thread_seqs, "messages"),
            (&self.context, &self.context_seqs, "context_entries"),
        ] {
            let mut count = 0;
            for entry in tree.iter() {
                let (key, value) = entry.map_err(engine)?;
                count += 1;
                let Some(thread) = id16(&key) else {
                    report.problem(format!("a {what} key is malformed"));
                    continue;
                };
                let id = ThreadId::from_bytes(thread);
                if !threads.contains(&thread) {
                    report.problem(format!("{what} of thread {id}, which does not exist"));
                    continue;
                }
                let seq = keys::read_u64(key.get(16..).unwrap_or_default());
                let last = seqs
                    .get(thread)
                    .map_err(engine)?
                    .map_or(0, |v| keys::read_u64(&v));
                if seq > last {
                    report.problem(format!(
                        "thread {id}: {what} entry {seq} is past its counter {last}"
                    ));
                }
                let decoded = self.values.read(id, &value).and_then(|bytes| {
                    if what == "messages" {
                        decode::<Message>(&bytes).map(drop)
                    } else {
                        decode::<ContextMessage>(&bytes).map(drop)
                    }
                });
                if let Err(e) = decoded {
                    report.problem(format!("thread {id}: {what} entry {seq}: {e}"));
                }
            }
            report.counts.insert(what, count);
        }
        let mut participants = 0;
        for key in self.participants.iter().keys() {
            participants += 1;
            if id16(&key.map_err(engine)?).is_none_or(|t| !threads.contains(&t)) {
                report.problem("a participant of a thread that does not exist".into());
            }
        }
        report.counts.insert("participants", participants);
        Ok(())
    }

    /// Usage records and their two indexes agree.
    fn check_usage(
        &self,
        threads: &HashSet<[u8; 16]>,
        report: &mut CheckReport,
    ) -> Result<(), StoreError> {
        let mut records = 0;
        for entry in self.usage.iter() {
            let (key, value) = entry.map_err(engine)?;
            records += 1;
            let record = match decode::<UsageRecord>(&value) {
                Ok(record) => record,
                Err(e) => {
                    report.problem(format!("usage key {}: {e}", hex::encode(&key)));
                    continue;
                }
            };
            let at = keys::micros(record.created_at);
            // A call outside any thread has no thread index entry.
            let by_thread = record.thread_id.map(|thread| {
                keys::timeline(
                    &keys::pair(record.org_id.as_bytes(), thread.as_bytes()),
                    at,
                    record.id.as_bytes(),
                )
            });
            let by_agent = keys::timeline(
                &keys::pair(record.org_id.as_bytes(), record.agent_id.as_bytes()),
                at,
                record.id.as_bytes(),
            );
            let thread_indexed = match by_thread {
                Some(key) => self.usage_by_thread.contains_key(key).map_err(engine)?,
                None => true,
            };
            if !thread_indexed || !self.usage_by_agent.contains_key(by_agent).map_err(engine)? {
                report.problem(format!(
                    "usage record {} is missing from an index",
                    record.id
                ));
            }
            // Usage outlives a deleted thread (it is the org's bill).
            let _ = threads;
        }
        report.counts.insert("usage_records", records);
        for (index, what) in [
            (&self.usage_by_thread, "thread"),
            (&self.usage_by_agent, "agent"),
        ] {
            if index.len() as u64 != records {
                report.problem(format!(
                    "{records} usage records but {} entries in the by-{what} index",
                    index.len()
                ));
            }
            for key in index.iter().keys() {
                let key = key.map_err(engine)?;
                // org ++ (thread | agent) ++ created ++ id → org ++ created ++ id
                let target = [
                    key.get(..16).unwrap_or_default(),
                    key.get(32..).unwrap_or_default(),
                ]
                .concat();
                if target.len() != 40 || !self.usage.contains_key(&target).map_err(engine)? {
                    report.problem(format!("the by-{what} usage index names a missing record"));
                }
            }
        }
        Ok(())
    }

    /// Tools and their name index agree.
    fn check_tools(&self, report: &mut CheckReport) -> Result<(), StoreError> {
        let tools = count_decoded::<OrgTool>(&self.tools, "tool", report)?;
        report.counts.insert("tools", tools);
        // org ++ name → tool id; the tool's key is org ++ id.
        let names = |key: &[u8], id: &[u8]| [key.get(..16).unwrap_or_default(), id].concat();
        check_index(
            &self.tool_names,
            &self.tools,
            tools,
            names,
            "tool name",
            report,
        )
    }

    /// MCP servers and integrations agree with their slug indexes.
    fn check_slugged(&self, report: &mut CheckReport) -> Result<(), StoreError> {
        let servers = count_decoded::<McpServer>(&self.mcps, "MCP server", report)?;
        report.counts.insert("mcp_servers", servers);
        let integrations = count_decoded::<Integration>(&self.integrations, "integration", report)?;
        report.counts.insert("integrations", integrations);
        // org ++ slug → id; the record's key is org ++ id.
        let slugs = |key: &[u8], id: &[u8]| [key.get(..16).unwrap_or_default(), id].concat();
        check_index(
            &self.mcp_slugs,
            &self.mcps,
            servers,
            slugs,
            "MCP server slug",
            report,
        )?;
        check_index(
            &self.integration_slugs,
            &self.integrations,
            integrations,
            slugs,
            "integration slug",
            report,
        )
    }

    /// Plans and their per-thread index agree.
    fn check_plans(&self, report: &mut CheckReport) -> Result<(), StoreError> {
        let plans = count_decoded::<Plan>(&self.plans, "plan", report)?;
        report.counts.insert("plans", plans);
        // thread ++ created ++ plan → org; the plan's key is org ++ plan.
        let plan_key = |key: &[u8], org: &[u8]| {
            let plan = key.get(key.len().saturating_sub(16)..).unwrap_or_default();
            [org, plan].concat()
        };
        check_index(
            &self.plans_by_thread,
            &self.plans,
            plans,
            plan_key,
            "thread's plan",
            report,
        )
    }

    /// Each sealed secret that does not open with the configured key, named
    /// by its record (never its value).
    pub fn unopenable_secrets(&self) -> Result<Vec<String>, StoreError> {
        let mut problems = Vec::new();
        for entry in self.agent_configs.iter() {
            let (key, value) = entry.map_err(engine)?;
            if key.len() != 33 || key[32] != ConfigKind::Credentials as u8 {
                continue;
            }
            let (Some(org), Some(agent)) = (id16(&key), key.get(16..32).and_then(id16)) else {
                continue;
            };
            let (org, agent) = (
                confer_actors::OrgId::from_bytes(org),
                confer_actors::AgentId::from_bytes(agent),
            );
            let config = decode(&value)?;
            if self.open_credentials(org, agent, config).is_err() {
                problems.push(format!(
                    "the signing secret of agent {agent}'s resolver does not open with the secret key"
                ));
            }
        }
        for value in self.tools.iter().values() {
            let tool: OrgTool = decode(&value.map_err(engine)?)?;
            if self.tool_secret(&tool).is_err() {
                problems.push(format!(
                    "the signing secret of tool {} does not open with the secret key",
                    tool.id
                ));
            }
        }
        for value in self.mcps.iter().values() {
            let server: crate::store::mcps::McpServer = decode(&value.map_err(engine)?)?;
            if crate::store::mcps::credentials_of(&self.secrets, &server).is_err()
                || crate::store::mcps::oauth_client_secret_of(&self.secrets, &server).is_err()
            {
                problems.push(format!(
                    "the credentials of MCP server {} do not open with the secret key",
                    server.id
                ));
            }
        }
        for value in self.integrations.iter().values() {
            let integration: crate::store::integrations::Integration =
                decode(&value.map_err(engine)?)?;
            if crate::store::integrations::connection_of(&self.secrets, &integration).is_err() {
                problems.push(format!(
                    "the connection string of integration {} does not open with the secret key",
                    integration.id
                ));
            }
        }
        for (org, config) in self.embedding_configs()? {
            if config.open_key(&self.secrets, org).is_err() {
                problems.push(embedding_key_problem(org));
            }
        }
        Ok(problems)
    }
}

/// The problem of an org's embedding key that does not open (named by
/// its org, never its value).
pub fn embedding_key_problem(org: confer_actors::OrgId) -> String {
    format!("the embedding server's API key of org {org} does not open with the secret key")
}
