//! The records of knowledge: a document, its chunks and its ingestion job
//! (`knowledge.md` §1–2).

use chrono::{DateTime, Utc};
use confer_actors::{AgentId, DocumentId, OrgId, ThreadId};
use serde::{Deserialize, Serialize};

/// Where a document is reachable: the whole org, one agent, one thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", content = "id", rename_all = "lowercase")]
pub enum Scope {
    Org,
    Agent(AgentId),
    Thread(ThreadId),
}

impl Scope {
    /// `org`, `agent` or `thread`.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Org => "org",
            Self::Agent(_) => "agent",
            Self::Thread(_) => "thread",
        }
    }

    /// The scope's id as the API shows it (the org's for `org`).
    pub fn id(&self, org: OrgId) -> String {
        match self {
            Self::Org => org.to_string(),
            Self::Agent(agent) => agent.to_string(),
            Self::Thread(thread) => thread.to_string(),
        }
    }

    /// The 17 bytes that key the scope in the store's indexes.
    pub fn key(&self, org: OrgId) -> [u8; 17] {
        let (tag, id) = match self {
            Self::Org => (0u8, org.as_bytes()),
            Self::Agent(agent) => (1, agent.as_bytes()),
            Self::Thread(thread) => (2, thread.as_bytes()),
        };
        let mut key = [0u8; 17];
        key[0] = tag;
        key[1..].copy_from_slice(id);
        key
    }

    /// The scope [`Scope::key`] gave `key`.
    pub fn from_key(key: &[u8]) -> Option<Self> {
        let id = uuid::Uuid::from_slice(key.get(1..17)?).ok()?;
        match key.first()? {
            0 => Some(Self::Org),
            1 => Some(Self::Agent(confer_actors::AgentId(id))),
            2 => Some(Self::Thread(confer_actors::ThreadId(id))),
            _ => None,
        }
    }
}

/// Where a document is in its ingestion.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum DocumentStatus {
    Queued,
    Parsing,
    Indexing,
    Ready,
    Failed,
}

impl DocumentStatus {
    /// Whether a job still runs or waits for the document.
    pub fn in_progress(self) -> bool {
        matches!(self, Self::Queued | Self::Parsing | Self::Indexing)
    }
}

/// An uploaded document.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Document {
    pub id: DocumentId,
    pub org_id: OrgId,
    pub title: String,
    /// The uploaded file's name.
    pub source_ref: String,
    pub scope: Scope,
    /// `text/markdown`, `text/plain`, `text/html`, `application/pdf` or the
    /// DOCX type.
    pub content_type: String,
    pub size_bytes: u64,
    /// Hex SHA-256 of the file: its name under `knowledge/files/{org}/`.
    pub sha256: String,
    pub status: DocumentStatus,
    /// A fixed reason (never a parser's text).
    pub error: Option<String>,
    pub attempts: u32,
    /// The generation of chunks searches count (`None`: none yet).
    pub searchable_generation: Option<u64>,
    /// The last generation an attempt wrote or is writing.
    pub last_generation: u64,
    /// PDF only: its page count.
    pub pages: Option<u32>,
    pub chunk_count: u64,
    pub created_by: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub indexed_at: Option<DateTime<Utc>>,
}

impl Document {
    /// Claimed for attempt `attempt`: parsing.
    pub fn claimed(&mut self, attempt: u32, now: DateTime<Utc>) {
        self.status = DocumentStatus::Parsing;
        self.attempts = attempt;
        self.updated_at = now;
    }

    /// Parsed: indexing into a new generation, whose number it returns.
    pub fn indexing(&mut self, now: DateTime<Utc>) -> u64 {
        self.status = DocumentStatus::Indexing;
        self.last_generation += 1;
        self.updated_at = now;
        self.last_generation
    }

    /// `generation` searchable, with its counts.
    pub fn ready(
        &mut self,
        generation: u64,
        (chunks, pages): (u64, Option<u32>),
        now: DateTime<Utc>,
    ) {
        self.status = DocumentStatus::Ready;
        self.error = None;
        self.searchable_generation = Some(generation);
        self.chunk_count = chunks;
        self.pages = pages;
        self.indexed_at = Some(now);
        self.updated_at = now;
    }

    /// Queued for a new job, its attempts from 0.
    pub fn queued_again(&mut self, now: DateTime<Utc>) {
        self.status = DocumentStatus::Queued;
        self.error = None;
        self.attempts = 0;
        self.updated_at = now;
    }
}

/// One chunk of a document's text.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Chunk {
    /// `{doc}:{generation}:{n}`.
    pub id: String,
    pub doc_id: String,
    /// Its place in the document, from 0.
    pub n: u32,
    pub text: String,
    /// `Title › H1 › H2`: the headings above `start`.
    pub breadcrumb: String,
    /// Character offsets in the document's text (`end` exclusive).
    pub start: u64,
    pub end: u64,
    /// 1-based pages of `start` and of the last character (PDF only).
    pub page: Option<u32>,
    pub page_end: Option<u32>,
    /// Document offsets inside the chunk where a page begins (PDF only):
    /// the page of a quote's start. Kept, not shown by the API.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schema(ignore)]
    pub page_breaks: Vec<u64>,
}

impl Chunk {
    /// The page of document offset `at` inside the chunk (PDF only).
    pub fn page_at(&self, at: u64) -> Option<u32> {
        let breaks = self.page_breaks.iter().filter(|b| **b <= at).count();
        self.page
            .map(|page| page + u32::try_from(breaks).unwrap_or(u32::MAX))
    }
}

/// What a job does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum JobKind {
    Ingest,
    Reindex,
}

/// A document's ingestion job: at most one per document.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct IngestJob {
    pub doc_id: DocumentId,
    pub org_id: OrgId,
    pub kind: JobKind,
    /// The attempts begun (a claim counts one before any work).
    pub attempt: u32,
    /// Set while an attempt holds the job; past it, the holder is gone.
    pub lease_until: Option<DateTime<Utc>>,
    pub next_attempt_at: DateTime<Utc>,
    pub error: Option<String>,
}
