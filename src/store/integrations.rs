//! Database integrations (`tools.md` §7): the org's PostgreSQL databases,
//! their slugs (as MCP servers', see `attached`), their attachments to
//! agents, the connection string sealed at rest, and the schema last read
//! (the columns the query tools offer).

use chrono::{DateTime, Utc};
use confer_actors::{AgentId, IntegrationId, OrgId, StoreError};
use secrecy::SecretString;
use serde::{Deserialize, Serialize};
use sled::Transactional;
use sled::transaction::{ConflictableTransactionError, TransactionalTree};

pub use super::attached::AttachOutcome;
use super::attached::{self, Attachment, Attachments, slug_key, take_slug};
use super::codec::{decode, encode};
use super::{SledStore, abort, engine, keys, tx_error};
use crate::secrets::{SecretBox, aad};

/// A column of a table, as the database describes it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Column {
    pub name: String,
    /// `information_schema.columns.data_type` (`integer`, `text`, `jsonb`…).
    pub data_type: String,
    /// The type's schema and name (`udt_schema`, `udt_name`), which a
    /// bound value is cast to.
    pub udt_schema: String,
    pub udt_name: String,
}

/// A table or view of schema `public`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Table {
    pub name: String,
    pub columns: Vec<Column>,
}

/// An integration as stored.
#[derive(Clone, Serialize, Deserialize)]
pub struct Integration {
    pub id: IntegrationId,
    pub org_id: OrgId,
    pub name: String,
    pub slug: String,
    /// Sealed; opened by [`connection_of`] only.
    pub connection: String,
    /// The tables exposed (`None`: every table and view of `public`).
    pub tables: Option<Vec<String>>,
    /// The exposed tables as last read.
    pub schema: Vec<Table>,
    pub schema_read_at: DateTime<Utc>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl std::fmt::Debug for Integration {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Integration")
            .field("id", &self.id)
            .field("org_id", &self.org_id)
            .field("name", &self.name)
            .field("slug", &self.slug)
            // Plain text until the store seals it.
            .field("connection", &"<redacted>")
            .field("tables", &self.tables)
            .field("schema", &self.schema)
            .finish_non_exhaustive()
    }
}

/// An integration attached to an agent; `allowed` are the tables the agent
/// is offered (`None`: every exposed one).
pub type IntegrationAttachment = Attachment<IntegrationId>;

/// An org's integrations and who uses them, as turns read them.
#[derive(Clone, Debug, Default)]
pub struct OrgIntegrations {
    pub integrations: Vec<Integration>,
    /// Each agent's attachments, oldest first.
    pub attachments: Vec<(AgentId, IntegrationAttachment)>,
}

impl OrgIntegrations {
    /// The integrations attached to `agent`, in attachment order.
    pub fn of_agent(
        &self,
        agent: AgentId,
    ) -> impl Iterator<Item = (&Integration, &IntegrationAttachment)> + '_ {
        attached::attached_to(&self.integrations, &self.attachments, agent, |i| &i.id)
    }
}

/// The slug of an integration's name.
pub fn slug_of(name: &str) -> String {
    attached::slug_of(name, "database")
}

fn connection_aad(org: OrgId, id: IntegrationId) -> String {
    aad(
        &org.to_string(),
        "integration",
        &id.to_string(),
        "connection_string",
    )
}

/// `integration` with its connection string (given in plain text)
/// sealed, as either store keeps it.
pub(crate) fn sealed(
    key: &SecretBox,
    mut integration: Integration,
) -> Result<Integration, StoreError> {
    integration.connection = key
        .seal(
            &integration.connection,
            &connection_aad(integration.org_id, integration.id),
        )
        .map_err(|e| StoreError::Engine(e.to_string()))?;
    Ok(integration)
}

/// An integration's connection string, opened.
pub fn connection_of(
    key: &SecretBox,
    integration: &Integration,
) -> Result<SecretString, StoreError> {
    key.open(
        &integration.connection,
        &connection_aad(integration.org_id, integration.id),
    )
    .map_err(|e| StoreError::Engine(e.to_string()))
}

type Tx<T> = Result<T, ConflictableTransactionError<StoreError>>;

fn read(tree: &TransactionalTree, key: &[u8]) -> Tx<Option<Integration>> {
    tree.get(key)?
        .map(|bytes| decode(&bytes).map_err(abort))
        .transpose()
}

impl SledStore {
    /// The integrations' attachments to agents.
    pub fn integration_attachments(&self) -> Attachments<'_> {
        Attachments {
            targets: &self.integrations,
            attachments: &self.agent_integrations,
        }
    }

    /// Stores a new integration, its connection string (given in plain
    /// text in `connection`) sealed, its slug made unique in the org.
    pub fn create_integration(&self, integration: Integration) -> Result<Integration, StoreError> {
        let _writing = self.gate.writing();
        let integration = sealed(&self.secrets, integration)?;
        let base = integration.slug.clone();
        let key = keys::pair(integration.org_id.as_bytes(), integration.id.as_bytes());
        (&self.integrations, &self.integration_slugs)
            .transaction(|(records, slugs)| {
                let mut stored = integration.clone();
                stored.slug = take_slug(slugs, stored.org_id, &base, stored.id.as_bytes())?;
                records.insert(key.as_slice(), encode(&stored).map_err(abort)?)?;
                Ok(stored)
            })
            .map_err(tx_error)
    }

    /// The org's integrations, oldest first.
    pub fn list_integrations(&self, org: OrgId) -> Result<Vec<Integration>, StoreError> {
        let mut all = self
            .integrations
            .scan_prefix(org.as_bytes())
            .map(|entry| decode::<Integration>(&entry.map_err(engine)?.1))
            .collect::<Result<Vec<_>, _>>()?;
        all.sort_by_key(|i| (i.created_at, i.id.as_bytes().to_owned()));
        Ok(all)
    }

    /// One integration of the org.
    pub fn integration(
        &self,
        org: OrgId,
        id: IntegrationId,
    ) -> Result<Option<Integration>, StoreError> {
        Self::get(
            &self.integrations,
            &keys::pair(org.as_bytes(), id.as_bytes()),
        )
    }

    /// Records a schema read again; a deleted integration stays deleted.
    pub fn record_integration_schema(
        &self,
        org: OrgId,
        id: IntegrationId,
        schema: Vec<Table>,
    ) -> Result<Option<Integration>, StoreError> {
        let _writing = self.gate.writing();
        let key = keys::pair(org.as_bytes(), id.as_bytes());
        self.integrations
            .transaction(|records| {
                let Some(mut stored) = read(records, &key)? else {
                    return Ok(None);
                };
                stored.schema.clone_from(&schema);
                stored.schema_read_at = Utc::now();
                records.insert(key.as_slice(), encode(&stored).map_err(abort)?)?;
                Ok(Some(stored))
            })
            .map_err(tx_error)
    }

    /// Deletes an integration, its slug and its attachments; `false` when
    /// there was none.
    pub fn delete_integration(&self, org: OrgId, id: IntegrationId) -> Result<bool, StoreError> {
        let _writing = self.gate.writing();
        let key = keys::pair(org.as_bytes(), id.as_bytes());
        let attached = self.integration_attachments().keys_of(org, id.as_bytes())?;
        (
            &self.integrations,
            &self.integration_slugs,
            &self.agent_integrations,
        )
            .transaction(|(records, slugs, attachments)| {
                let Some(before) = read(records, &key)? else {
                    return Ok(false);
                };
                slugs.remove(slug_key(org, &before.slug))?;
                records.remove(key.as_slice())?;
                for attachment in &attached {
                    attachments.remove(attachment)?;
                }
                Ok(true)
            })
            .map_err(tx_error)
    }

    /// Attaches an integration to an agent, or replaces its tables.
    pub fn attach_integration(
        &self,
        org: OrgId,
        agent: AgentId,
        id: IntegrationId,
        tables: Option<Vec<String>>,
    ) -> Result<AttachOutcome, StoreError> {
        let _writing = self.gate.writing();
        self.integration_attachments()
            .attach(org, agent, id, id.as_bytes(), tables)
    }

    /// Detaches; `false` when it was not attached.
    pub fn detach_integration(
        &self,
        org: OrgId,
        agent: AgentId,
        id: IntegrationId,
    ) -> Result<bool, StoreError> {
        let _writing = self.gate.writing();
        self.integration_attachments()
            .detach(org, agent, id.as_bytes())
    }

    /// The org's integrations and attachments, as turns read them.
    pub fn org_integrations(&self, org: OrgId) -> Result<OrgIntegrations, StoreError> {
        Ok(OrgIntegrations {
            integrations: self.list_integrations(org)?,
            attachments: self.integration_attachments().of_org(org)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::test_secrets;
    use secrecy::ExposeSecret;

    fn integration(org: OrgId, name: &str) -> Integration {
        let now = Utc::now();
        Integration {
            id: IntegrationId::new(),
            org_id: org,
            name: name.into(),
            slug: slug_of(name),
            connection: "postgres://u:pw-123@db.example/app?sslmode=require".into(),
            tables: None,
            schema: Vec::new(),
            schema_read_at: now,
            created_at: now,
            updated_at: now,
        }
    }

    #[test]
    fn the_connection_string_is_sealed_and_the_delete_detaches() {
        let dir = tempfile::tempdir().unwrap();
        let store = SledStore::open(dir.path(), test_secrets(dir.path())).unwrap();
        let org = OrgId::new();
        let made = store
            .create_integration(integration(org, "Sales DB"))
            .unwrap();
        assert_eq!(made.slug, "sales_db");
        assert!(!made.connection.contains("pw-123"));
        let open = connection_of(&store.secrets, &made).unwrap();
        assert!(open.expose_secret().contains("pw-123"));
        let twin = store
            .create_integration(integration(org, "sales db"))
            .unwrap();
        assert_eq!(twin.slug, "sales_db_2");
        let agent = AgentId::new();
        assert_eq!(
            store.attach_integration(org, agent, made.id, None).unwrap(),
            AttachOutcome::Attached
        );
        assert_eq!(store.org_integrations(org).unwrap().attachments.len(), 1);
        assert!(store.delete_integration(org, made.id).unwrap());
        assert!(store.org_integrations(org).unwrap().attachments.is_empty());
        assert!(
            store
                .record_integration_schema(org, made.id, Vec::new())
                .unwrap()
                .is_none(),
            "a late schema read does not resurrect it"
        );
        assert!(!store.detach_integration(org, agent, made.id).unwrap());
    }
}
