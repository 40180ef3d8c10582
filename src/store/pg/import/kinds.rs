//! The kinds `confer migrate` copies and `confer check` digests
//! (`scale.md` §6): each kind's table, its columns in `COPY` order, and the
//! order of sled's keys (uuid and `bytea` compare byte by byte, text as
//! bytes with `COLLATE "C"`), so the manifests of both stores are equal.

use tokio_postgres::types::Type;

use super::kinds_knowledge as knowledge;
use super::kinds_marketplace as marketplace;
pub use super::lines::Line;

/// One kind of record and its table.
#[derive(Debug)]
pub struct Kind {
    /// The table, also the kind's name in the manifest.
    pub table: &'static str,
    /// Its columns, in the order a row gives them.
    pub columns: &'static [(&'static str, Type)],
    /// `ORDER BY` of sled's key order.
    pub order: &'static str,
    pub line: Line,
}

impl Kind {
    /// The `COPY … FROM STDIN BINARY` statement of its rows.
    pub fn copy_statement(&self) -> String {
        let names: Vec<&str> = self.columns.iter().map(|(name, _)| *name).collect();
        format!(
            "COPY {} ({}) FROM STDIN (FORMAT binary)",
            self.table,
            names.join(", ")
        )
    }

    /// The column types, in order.
    pub fn types(&self) -> Vec<Type> {
        self.columns.iter().map(|(_, ty)| ty.clone()).collect()
    }
}

const V: (&str, Type) = ("v", Type::INT2);
const ORG: (&str, Type) = ("org_id", Type::UUID);
const ID: (&str, Type) = ("id", Type::UUID);
const AGENT: (&str, Type) = ("agent_id", Type::UUID);
const CREATED: (&str, Type) = ("created_at", Type::TIMESTAMPTZ);
const SLUG: (&str, Type) = ("slug", Type::TEXT);
const NAME: (&str, Type) = ("name", Type::TEXT);
const JSON: (&str, Type) = ("body", Type::JSON);
const JSONB: (&str, Type) = ("body", Type::JSONB);
const OWNER_KEY: (&str, Type) = ("owner_key", Type::BYTEA);
const CONTENT_KEY: (&str, Type) = ("content_key", Type::BYTEA);

/// Every kind, in the order they are copied (a kind's references first).
pub const KINDS: &[Kind] = &[
    Kind {
        table: "orgs",
        columns: &[ID, NAME, CREATED, V, JSON],
        order: "id",
        line: Line::Body,
    },
    Kind {
        table: "api_keys",
        columns: &[
            ID,
            ORG,
            ("secret_sha256", Type::BYTEA),
            CREATED,
            ("last_used_at", Type::TIMESTAMPTZ),
            V,
            JSON,
        ],
        order: "id",
        line: Line::Body,
    },
    Kind {
        table: "projects",
        columns: &[ORG, ID, SLUG, CREATED, V, JSON],
        order: "org_id, id",
        line: Line::Body,
    },
    Kind {
        table: "project_members",
        columns: &[
            ORG,
            ("project_id", Type::UUID),
            ("user_id", Type::TEXT),
            V,
            JSON,
        ],
        order: "project_id, user_id COLLATE \"C\"",
        line: Line::Body,
    },
    Kind {
        table: "agents",
        columns: &[ORG, ID, CREATED, ("project_id", Type::UUID), V, JSONB],
        order: "org_id, id",
        line: Line::Body,
    },
    Kind {
        table: "agent_configs",
        columns: &[ORG, AGENT, ("kind", Type::INT2), V, JSON],
        order: "org_id, agent_id, kind",
        line: Line::Body,
    },
    Kind {
        table: "org_settings",
        columns: &[ORG, V, JSON],
        order: "org_id",
        line: Line::Body,
    },
    Kind {
        table: "publications",
        columns: &[ORG, AGENT, ID, SLUG, V, JSON],
        order: "org_id, agent_id",
        line: Line::Body,
    },
    Kind {
        table: "skills",
        columns: &[ORG, ID, NAME, V, JSON],
        order: "org_id, id",
        line: Line::Body,
    },
    Kind {
        table: "skill_files",
        columns: &[
            ("skill_id", Type::UUID),
            ("path", Type::TEXT),
            ("bytes", Type::BYTEA),
        ],
        order: "skill_id, path COLLATE \"C\"",
        line: Line::SkillFile,
    },
    Kind {
        table: "skill_attachments",
        columns: &[("owner_id", Type::UUID), ("skill_id", Type::UUID), V, JSON],
        order: "owner_id, skill_id",
        line: Line::Body,
    },
    Kind {
        table: "mcp_servers",
        columns: &[ORG, ID, SLUG, ("epoch", Type::INT8), V, JSON],
        order: "org_id, id",
        line: Line::Body,
    },
    Kind {
        table: "mcp_attachments",
        columns: &[
            ORG,
            AGENT,
            ("server_id", Type::UUID),
            ("attached_at", Type::TIMESTAMPTZ),
            V,
            JSON,
        ],
        order: "org_id, agent_id, server_id",
        line: Line::Body,
    },
    Kind {
        table: "oauth_registrations",
        columns: &[ORG, ("server_id", Type::UUID), V, JSON],
        order: "org_id, server_id",
        line: Line::Body,
    },
    Kind {
        table: "oauth_tokens",
        columns: &[
            ORG,
            ("server_id", Type::UUID),
            ("owner", Type::BYTEA),
            ("updated_at", Type::TIMESTAMPTZ),
            V,
            JSON,
        ],
        order: "org_id, server_id, owner",
        line: Line::Body,
    },
    Kind {
        table: "integrations",
        columns: &[ORG, ID, SLUG, V, JSON],
        order: "org_id, id",
        line: Line::Body,
    },
    Kind {
        table: "integration_attachments",
        columns: &[
            ORG,
            AGENT,
            ("integration_id", Type::UUID),
            ("attached_at", Type::TIMESTAMPTZ),
            V,
            JSON,
        ],
        order: "org_id, agent_id, integration_id",
        line: Line::Body,
    },
    Kind {
        table: "memories",
        columns: &[ORG, AGENT, ID, OWNER_KEY, CONTENT_KEY, CREATED, V, JSON],
        order: "org_id, agent_id, id",
        line: Line::Body,
    },
    Kind {
        table: "memory_forgets",
        columns: &[ORG, AGENT, OWNER_KEY, ("before", Type::UUID), V, JSON],
        order: "org_id, agent_id, owner_key",
        line: Line::Body,
    },
    knowledge::DOCUMENTS,
    knowledge::CHUNKS,
    knowledge::CHUNK_VECTORS,
    knowledge::EMBEDDING_CONFIGS,
    knowledge::KNOWLEDGE_PURGES,
    knowledge::BLOB_REFS,
    knowledge::BLOBS,
    marketplace::MARKETPLACE_PROFILES,
    marketplace::MARKETPLACE_AVATARS,
    marketplace::KEYED_ADOPTIONS,
    Kind {
        table: "tools",
        columns: &[ORG, ID, NAME, CREATED, V, JSON],
        order: "org_id, id",
        line: Line::Body,
    },
    Kind {
        table: "threads",
        columns: &[
            ORG,
            ID,
            AGENT,
            CREATED,
            ("created_by", Type::TEXT),
            ("listed", Type::BOOL),
            ("shard", Type::INT2),
            ("last_seq", Type::INT8),
            ("last_context_seq", Type::INT8),
            ("last_turn", Type::INT8),
            ("project_id", Type::UUID),
            ("publication_id", Type::UUID),
            V,
            JSONB,
        ],
        order: "org_id, id",
        line: Line::Body,
    },
    Kind {
        table: "messages",
        columns: &[("thread_id", Type::UUID), ("seq", Type::INT8), V, JSON],
        order: "thread_id, seq",
        line: Line::Body,
    },
    Kind {
        table: "context_entries",
        columns: &[
            ("thread_id", Type::UUID),
            ("seq", Type::INT8),
            ("role", Type::TEXT),
            V,
            JSON,
        ],
        order: "thread_id, seq",
        line: Line::Body,
    },
    Kind {
        table: "keyed_sends",
        columns: &[
            ("thread_id", Type::UUID),
            ("key_hash", Type::BYTEA),
            CREATED,
            V,
            JSONB,
        ],
        order: "thread_id, key_hash",
        line: Line::Body,
    },
    Kind {
        table: "keyed_threads",
        columns: &[
            ORG,
            ("key_hash", Type::BYTEA),
            ("request", Type::TEXT),
            ("thread_id", Type::UUID),
            CREATED,
        ],
        order: "org_id, key_hash",
        line: Line::KeyedThread,
    },
    Kind {
        table: "participants",
        columns: &[("thread_id", Type::UUID), ("user_id", Type::TEXT), V, JSON],
        order: "thread_id, user_id COLLATE \"C\"",
        line: Line::Body,
    },
    Kind {
        table: "plans",
        columns: &[
            ORG,
            ID,
            ("thread_id", Type::UUID),
            CREATED,
            ("version", Type::INT8),
            V,
            JSON,
        ],
        order: "org_id, id",
        line: Line::Body,
    },
    Kind {
        table: "scheduled_tasks",
        columns: &[
            ORG,
            AGENT,
            ID,
            ("shard", Type::INT2),
            ("next_fire_at", Type::TIMESTAMPTZ),
            V,
            JSON,
        ],
        order: "org_id, agent_id, id",
        line: Line::Body,
    },
    Kind {
        table: "schedule_outbox",
        columns: &[
            ("schedule_id", Type::UUID),
            ("slot", Type::TIMESTAMPTZ),
            ("shard", Type::INT2),
            V,
            JSON,
        ],
        order: "schedule_id, slot",
        line: Line::Body,
    },
    Kind {
        table: "usage_records",
        columns: &[
            ORG,
            ID,
            CREATED,
            AGENT,
            ("thread_id", Type::UUID),
            ("message_id", Type::UUID),
            ("publication_id", Type::UUID),
            V,
            JSON,
        ],
        order: "org_id, created_at, id",
        line: Line::Body,
    },
    Kind {
        table: "publication_days",
        columns: &[
            ("publication_id", Type::UUID),
            ("day", Type::INT4),
            ("tokens", Type::INT8),
        ],
        order: "publication_id, day",
        line: Line::PublicationDay,
    },
    Kind {
        table: "deleted_threads",
        columns: &[
            ("thread_id", Type::UUID),
            ORG,
            AGENT,
            CREATED,
            ("deleted_at", Type::TIMESTAMPTZ),
        ],
        order: "thread_id",
        line: Line::DeletedThread,
    },
    Kind {
        table: "traces",
        columns: &[
            ID,
            ("started_at", Type::TIMESTAMPTZ),
            ORG,
            AGENT,
            ("thread_id", Type::UUID),
            ("folded", Type::BOOL),
            V,
            JSON,
        ],
        order: "started_at, id",
        line: Line::Body,
    },
    Kind {
        table: "trace_days",
        columns: &[("key", Type::BYTEA), ("body", Type::BYTEA)],
        order: "key",
        line: Line::TraceDay,
    },
];

/// The kind of `table`.
pub fn kind(table: &str) -> Option<&'static Kind> {
    KINDS.iter().find(|k| k.table == table)
}
