//! The store's versioned migrations (`scale.md` §1): each
//! `migrations/V{n}__{name}.sql` applied once, in its own transaction, and
//! recorded in `schema_migrations` with its SHA-256. Nodes started together
//! migrate once: the run holds a session advisory lock. A recorded
//! migration whose text changed, or one this build does not know (a newer
//! schema), stops start-up. Migrations only add within a release line, so
//! nodes of two versions can run side by side during a rolling upgrade.

use sha2::{Digest, Sha256};
use tokio_postgres::Client;

use super::PgError;

/// One migration.
#[derive(Clone, Copy, Debug)]
pub struct Migration {
    pub version: i32,
    pub name: &'static str,
    pub sql: &'static str,
}

impl Migration {
    /// Hex SHA-256 of its text: what `schema_migrations` records.
    pub fn checksum(&self) -> String {
        hex::encode(Sha256::digest(self.sql.as_bytes()))
    }
}

/// Every migration of this build, in order.
pub const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        name: "cluster",
        sql: include_str!("migrations/V1__cluster.sql"),
    },
    Migration {
        version: 2,
        name: "thread_records",
        sql: include_str!("migrations/V2__thread_records.sql"),
    },
    Migration {
        version: 3,
        name: "orgs_and_keys",
        sql: include_str!("migrations/V3__orgs_and_keys.sql"),
    },
    Migration {
        version: 4,
        name: "participants",
        sql: include_str!("migrations/V4__participants.sql"),
    },
    Migration {
        version: 5,
        name: "org_tools",
        sql: include_str!("migrations/V5__org_tools.sql"),
    },
    Migration {
        version: 6,
        name: "plans",
        sql: include_str!("migrations/V6__plans.sql"),
    },
    Migration {
        version: 7,
        name: "projects",
        sql: include_str!("migrations/V7__projects.sql"),
    },
    Migration {
        version: 8,
        name: "jobs",
        sql: include_str!("migrations/V8__jobs.sql"),
    },
    Migration {
        version: 9,
        name: "send_limits",
        sql: include_str!("migrations/V9__send_limits.sql"),
    },
    Migration {
        version: 10,
        name: "org_turn_slots",
        sql: include_str!("migrations/V10__org_turn_slots.sql"),
    },
    Migration {
        version: 11,
        name: "text_json_bodies",
        sql: include_str!("migrations/V11__text_json_bodies.sql"),
    },
    Migration {
        version: 12,
        name: "sweeps",
        sql: include_str!("migrations/V12__sweeps.sql"),
    },
    Migration {
        version: 13,
        name: "keyed_thread_sweep",
        sql: include_str!("migrations/V13__keyed_thread_sweep.sql"),
    },
    Migration {
        version: 14,
        name: "schedules",
        sql: include_str!("migrations/V14__schedules.sql"),
    },
    Migration {
        version: 15,
        name: "trace_days",
        sql: include_str!("migrations/V15__trace_days.sql"),
    },
    Migration {
        version: 16,
        name: "publications",
        sql: include_str!("migrations/V16__publications.sql"),
    },
    Migration {
        version: 17,
        name: "skills",
        sql: include_str!("migrations/V17__skills.sql"),
    },
    Migration {
        version: 18,
        name: "mcp_servers",
        sql: include_str!("migrations/V18__mcp_servers.sql"),
    },
    Migration {
        version: 19,
        name: "oauth_flows",
        sql: include_str!("migrations/V19__oauth_flows.sql"),
    },
    Migration {
        version: 20,
        name: "integrations",
        sql: include_str!("migrations/V20__integrations.sql"),
    },
    Migration {
        version: 21,
        name: "public_turns",
        sql: include_str!("migrations/V21__public_turns.sql"),
    },
    Migration {
        version: 22,
        name: "memories",
        sql: include_str!("migrations/V22__memories.sql"),
    },
    Migration {
        version: 23,
        name: "org_turn_waiters",
        sql: include_str!("migrations/V23__org_turn_waiters.sql"),
    },
    Migration {
        version: 24,
        name: "documents",
        sql: include_str!("migrations/V24__documents.sql"),
    },
    Migration {
        version: 25,
        name: "embeddings",
        sql: include_str!("migrations/V25__embeddings.sql"),
    },
    Migration {
        version: 26,
        name: "marketplace",
        sql: include_str!("migrations/V26__marketplace.sql"),
    },
];

/// The advisory lock of schema changes and first-start work ("confer").
pub const LOCK: i64 = 0x636f_6e66_6572;

/// Holds [`LOCK`] on `client` (a dedicated connection) while `work` runs,
/// then lets it go, whatever `work` returned. A connection that dies
/// releases it too.
pub async fn locked<T>(
    client: &mut Client,
    work: impl AsyncFnOnce(&mut Client) -> Result<T, PgError>,
) -> Result<T, PgError> {
    client
        .execute("SELECT pg_advisory_lock($1)", &[&LOCK])
        .await?;
    let result = work(client).await;
    let unlocked = client
        .execute("SELECT pg_advisory_unlock($1)", &[&LOCK])
        .await;
    let value = result?;
    unlocked?;
    Ok(value)
}

/// Applies what `migrations` adds to the database's schema; the versions
/// applied now (none when another node already did). Call under
/// [`locked`].
pub async fn migrate(client: &mut Client, migrations: &[Migration]) -> Result<Vec<i32>, PgError> {
    client
        .batch_execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations (
                 version integer PRIMARY KEY,
                 name text NOT NULL,
                 sha256 text NOT NULL,
                 applied_at timestamptz NOT NULL DEFAULT now()
             )",
        )
        .await?;
    let recorded = client
        .query(
            "SELECT version, name, sha256 FROM schema_migrations ORDER BY version",
            &[],
        )
        .await?;
    for row in &recorded {
        let (version, name, sha): (i32, String, String) = (row.get(0), row.get(1), row.get(2));
        let Some(known) = migrations.iter().find(|m| m.version == version) else {
            return Err(PgError::Migration(format!(
                "the database has migration V{version}__{name}, which this build does not know \
                 (a newer Confer made it); run that version"
            )));
        };
        if known.checksum() != sha {
            return Err(PgError::Migration(format!(
                "migration V{version}__{name} changed since it was applied (SHA-256 differs); \
                 a migration is never edited once released"
            )));
        }
    }
    let mut applied = Vec::new();
    for migration in migrations {
        if recorded
            .iter()
            .any(|row| row.get::<_, i32>(0) == migration.version)
        {
            continue;
        }
        let transaction = client.transaction().await?;
        transaction
            .batch_execute(migration.sql)
            .await
            .map_err(|error| {
                PgError::Migration(format!(
                    "V{}__{} failed: {}",
                    migration.version,
                    migration.name,
                    PgError::from(error)
                ))
            })?;
        transaction
            .execute(
                "INSERT INTO schema_migrations (version, name, sha256) VALUES ($1, $2, $3)",
                &[&migration.version, &migration.name, &migration.checksum()],
            )
            .await?;
        transaction.commit().await?;
        tracing::info!(
            version = migration.version,
            name = migration.name,
            "applied a schema migration"
        );
        applied.push(migration.version);
    }
    Ok(applied)
}
