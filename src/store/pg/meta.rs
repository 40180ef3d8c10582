//! What every node must agree on before it serves (`scale.md` §1): the
//! schema is current, no `confer migrate` is copying into the database,
//! and the node's secret key is the one the database was set up with.
//!
//! The database keeps a key check, an HMAC of the key (it tells two keys
//! apart and reveals neither). A node whose current key matches it, or
//! whose `CONFER_SECRET_KEY_OLD` does (a rotation under way: the check
//! moves to the new key), may start; any other refuses, since it could
//! open none of the others' sealed values.

use tokio_postgres::Client;

use super::migrate::{self, MIGRATIONS};
use super::{Database, PgError};
use crate::secrets::SecretBox;

/// `meta` key of the secret key's check.
pub const KEY_CHECK: &str = "key_check";
/// `meta` key `confer migrate` sets while it copies (`in_progress`).
pub const MIGRATION: &str = "migration";

/// What start-up found.
#[derive(Debug, PartialEq, Eq)]
pub struct Prepared {
    /// Schema versions this start applied (empty when already current).
    pub migrated: Vec<i32>,
    /// This start recorded the key check (the database was new).
    pub first_start: bool,
    /// The check moved from the old key to the current one.
    pub rotated: bool,
}

/// Migrates the schema and checks the key, under the advisory lock, so
/// nodes started together do each once.
pub async fn prepare(database: &Database, secrets: &SecretBox) -> Result<Prepared, PgError> {
    let mut connection = database.dedicated().await?;
    let (current, old) = secrets.key_checks();
    migrate::locked(&mut connection.client, async |client| {
        let migrated = migrate::migrate(client, MIGRATIONS).await?;
        refuse_during_migration(client).await?;
        let (first_start, rotated) = check_key(client, &current, old.as_deref()).await?;
        Ok(Prepared {
            migrated,
            first_start,
            rotated,
        })
    })
    .await
}

async fn refuse_during_migration(client: &Client) -> Result<(), PgError> {
    let row = client
        .query_opt("SELECT value FROM meta WHERE key = $1", &[&MIGRATION])
        .await?;
    match row {
        Some(row) if row.get::<_, String>(0) == "in_progress" => Err(PgError::Refused(
            "`confer migrate` is copying into this database; start the nodes once it has finished"
                .into(),
        )),
        _ => Ok(()),
    }
}

/// `(first start, rotated)`; an error when neither key matches.
async fn check_key(
    client: &Client,
    current: &str,
    old: Option<&str>,
) -> Result<(bool, bool), PgError> {
    let stored = client
        .query_opt("SELECT value FROM meta WHERE key = $1", &[&KEY_CHECK])
        .await?
        .map(|row| row.get::<_, String>(0));
    match stored.as_deref() {
        None => {
            client
                .execute(
                    "INSERT INTO meta (key, value) VALUES ($1, $2)",
                    &[&KEY_CHECK, &current],
                )
                .await?;
            Ok((true, false))
        }
        Some(stored) if stored == current => Ok((false, false)),
        Some(stored) if Some(stored) == old => {
            client
                .execute(
                    "UPDATE meta SET value = $2, updated_at = now() WHERE key = $1",
                    &[&KEY_CHECK, &current],
                )
                .await?;
            tracing::warn!(
                "the database's key check moved to the new CONFER_SECRET_KEY; \
                 nodes still on the old key alone will now refuse to start"
            );
            Ok((false, true))
        }
        Some(_) => Err(PgError::Refused(
            "CONFER_SECRET_KEY is not the key this database was set up with (nor is \
             CONFER_SECRET_KEY_OLD); every node needs the same key"
                .into(),
        )),
    }
}
