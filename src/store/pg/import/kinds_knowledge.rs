//! The kinds of knowledge documents, their embeddings and stored files
//! (`knowledge.md` §1–3, `scale.md` §5), as [`super::kinds::KINDS`] lists them.

use tokio_postgres::types::Type;

use super::kinds::{Kind, Line};

const V: (&str, Type) = ("v", Type::INT2);
const JSON: (&str, Type) = ("body", Type::JSON);
const ORG: (&str, Type) = ("org_id", Type::UUID);
const DOC: (&str, Type) = ("doc_id", Type::UUID);
const GENERATION: (&str, Type) = ("generation", Type::INT8);
const SHA256: (&str, Type) = ("sha256", Type::TEXT);
const NAME: (&str, Type) = ("name", Type::TEXT);

pub const DOCUMENTS: Kind = Kind {
    table: "documents",
    columns: &[
        ORG,
        ("id", Type::UUID),
        ("scope_key", Type::BYTEA),
        SHA256,
        V,
        JSON,
    ],
    order: "org_id, id",
    line: Line::Body,
};

pub const CHUNKS: Kind = Kind {
    table: "chunks",
    columns: &[DOC, GENERATION, ("n", Type::INT4), V, JSON],
    order: "doc_id, generation, n",
    line: Line::Body,
};

/// sled keys a whole document's marker by generation `u64::MAX`: last.
pub const KNOWLEDGE_PURGES: Kind = Kind {
    table: "knowledge_purges",
    columns: &[DOC, GENERATION, ORG, SHA256],
    order: "doc_id, generation = -1, generation",
    line: Line::KnowledgePurge,
};

/// sled keys a file by its org and its digest: the name's hex in order.
pub const BLOB_REFS: Kind = Kind {
    table: "blob_refs",
    columns: &[ORG, NAME, ("size", Type::INT8), ("refs", Type::INT8)],
    order: "org_id, name COLLATE \"C\"",
    line: Line::BlobRef,
};

pub const BLOBS: Kind = Kind {
    table: "blobs",
    columns: &[ORG, NAME, ("n", Type::INT4), ("data", Type::BYTEA)],
    order: "org_id, name COLLATE \"C\", n",
    line: Line::BlobPart,
};

pub const EMBEDDING_CONFIGS: Kind = Kind {
    table: "embedding_configs",
    columns: &[ORG, V, JSON],
    order: "org_id",
    line: Line::Body,
};

/// sled keys a vector by its chunk's key: document, generation, place.
pub const CHUNK_VECTORS: Kind = Kind {
    table: "chunk_vectors",
    columns: &[
        DOC,
        GENERATION,
        ("n", Type::INT4),
        ("model", Type::TEXT),
        ("components", Type::BYTEA),
    ],
    order: "doc_id, generation, n",
    line: Line::ChunkVector,
};
