//! The kinds of the marketplace (`marketplace-channels.md` §2–§5), as
//! [`super::kinds::KINDS`] lists them: sled keys profiles and avatars by
//! agent, and keyed adoptions by org and key.

use tokio_postgres::types::Type;

use super::kinds::{Kind, Line};

const AGENT: (&str, Type) = ("agent_id", Type::UUID);
const ORG: (&str, Type) = ("org_id", Type::UUID);

pub const MARKETPLACE_PROFILES: Kind = Kind {
    table: "marketplace_profiles",
    columns: &[
        AGENT,
        ORG,
        ("listed_key", Type::BYTEA),
        ("v", Type::INT2),
        ("body", Type::JSON),
    ],
    order: "agent_id",
    line: Line::Body,
};

pub const MARKETPLACE_AVATARS: Kind = Kind {
    table: "marketplace_avatars",
    columns: &[AGENT, ("png", Type::BYTEA)],
    order: "agent_id",
    line: Line::Avatar,
};

pub const KEYED_ADOPTIONS: Kind = Kind {
    table: "keyed_adoptions",
    columns: &[
        ORG,
        ("key_hash", Type::BYTEA),
        ("request", Type::TEXT),
        ("answer", Type::TEXT),
        ("created_at", Type::TIMESTAMPTZ),
    ],
    order: "org_id, key_hash",
    line: Line::KeyedAdoption,
};
