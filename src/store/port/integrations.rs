//! The port of database integrations (`tools.md` §7), on either store: an
//! integration, its slug (unique in the org, taken in the creating
//! transaction), its attachments to agents, and the schema last read. The
//! connection string is sealed by the store and opened by
//! `crate::store::integrations::connection_of`.

use confer_actors::{AgentId, IntegrationId, OrgId, StoreFuture};

use super::SledRecords;
use crate::store::integrations::{AttachOutcome, Integration, OrgIntegrations, Table};

/// Database integrations and their attachments.
pub trait IntegrationRecords: Send + Sync + 'static {
    /// Stores a new integration (its connection string in plain text,
    /// sealed by the store), its slug made unique in the org.
    fn create_integration(&self, integration: Integration) -> StoreFuture<Integration>;

    /// The org's integrations, oldest first.
    fn integrations(&self, org: OrgId) -> StoreFuture<Vec<Integration>>;

    /// One integration of the org.
    fn integration(&self, org: OrgId, id: IntegrationId) -> StoreFuture<Option<Integration>>;

    /// Records a schema read again; a deleted integration stays deleted.
    fn record_integration_schema(
        &self,
        org: OrgId,
        id: IntegrationId,
        schema: Vec<Table>,
    ) -> StoreFuture<Option<Integration>>;

    /// Deletes an integration, its slug and its attachments; whether
    /// there was one.
    fn delete_integration(&self, org: OrgId, id: IntegrationId) -> StoreFuture<bool>;

    /// Attaches an integration of the org to an agent, or replaces its
    /// tables.
    fn attach_integration(
        &self,
        org: OrgId,
        agent: AgentId,
        id: IntegrationId,
        tables: Option<Vec<String>>,
    ) -> StoreFuture<AttachOutcome>;

    /// Detaches; whether it was attached.
    fn detach_integration(
        &self,
        org: OrgId,
        agent: AgentId,
        id: IntegrationId,
    ) -> StoreFuture<bool>;

    /// The org's integrations and attachments, as turns read them.
    fn org_integrations(&self, org: OrgId) -> StoreFuture<OrgIntegrations>;
}

impl IntegrationRecords for SledRecords {
    fn create_integration(&self, integration: Integration) -> StoreFuture<Integration> {
        self.write(move |s| s.create_integration(integration))
    }

    fn integrations(&self, org: OrgId) -> StoreFuture<Vec<Integration>> {
        self.read(move |s| s.list_integrations(org))
    }

    fn integration(&self, org: OrgId, id: IntegrationId) -> StoreFuture<Option<Integration>> {
        self.read(move |s| s.integration(org, id))
    }

    fn record_integration_schema(
        &self,
        org: OrgId,
        id: IntegrationId,
        schema: Vec<Table>,
    ) -> StoreFuture<Option<Integration>> {
        self.write(move |s| s.record_integration_schema(org, id, schema))
    }

    fn delete_integration(&self, org: OrgId, id: IntegrationId) -> StoreFuture<bool> {
        self.write(move |s| s.delete_integration(org, id))
    }

    fn attach_integration(
        &self,
        org: OrgId,
        agent: AgentId,
        id: IntegrationId,
        tables: Option<Vec<String>>,
    ) -> StoreFuture<AttachOutcome> {
        self.write(move |s| s.attach_integration(org, agent, id, tables))
    }

    fn detach_integration(
        &self,
        org: OrgId,
        agent: AgentId,
        id: IntegrationId,
    ) -> StoreFuture<bool> {
        self.write(move |s| s.detach_integration(org, agent, id))
    }

    fn org_integrations(&self, org: OrgId) -> StoreFuture<OrgIntegrations> {
        self.read(move |s| s.org_integrations(org))
    }
}
