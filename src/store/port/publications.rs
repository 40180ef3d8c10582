//! The port of publishing's records (`publishing.md`), on either store: an
//! org's settings, publications with their instance-unique slug (taken in
//! the record's own transaction), the day's spent tokens a public send is
//! checked against, and the input tokens of a thread's last model call.
//! Identity secrets arrive sealed (`crate::publishing::identity_secret`).

use confer_actors::{AgentId, OrgId, PublicationId, StoreFuture, ThreadId};

use super::SledRecords;
use crate::error::ApiError;
use crate::publishing::{OrgSettings, Publication};
use crate::store::publications::PublicationCreated;
use crate::store::update::Updated;

/// A change to a stored publication; it may be called again when a
/// concurrent change wins first.
pub type PublicationSwap = Box<dyn FnMut(Publication) -> Result<Publication, ApiError> + Send>;

/// A change to an org's settings, as [`PublicationSwap`].
pub type OrgSettingsSwap = Box<dyn FnMut(OrgSettings) -> Result<OrgSettings, ApiError> + Send>;

/// Publications and the org's publishing settings.
pub trait PublicationRecords: Send + Sync + 'static {
    /// The org's settings (the defaults when never set).
    fn org_settings(&self, org: OrgId) -> StoreFuture<OrgSettings>;

    /// Changes the org's settings atomically (from the defaults when never
    /// set).
    fn update_org_settings(
        &self,
        org: OrgId,
        change: OrgSettingsSwap,
    ) -> StoreFuture<Updated<OrgSettings, ApiError>>;

    /// The agent's publication.
    fn publication(&self, org: OrgId, agent: AgentId) -> StoreFuture<Option<Publication>>;

    /// The publications of `agents` of `org`, in their order.
    fn publications_of(
        &self,
        org: OrgId,
        agents: Vec<AgentId>,
    ) -> StoreFuture<Vec<Option<Publication>>>;

    /// The publication holding `slug`, in any org; with `live`, only if its
    /// agent is not deleted (a deleted agent's publication goes with it,
    /// and this covers the moment between the two writes).
    fn publication_by_slug(&self, slug: String, live: bool) -> StoreFuture<Option<Publication>>;

    /// Stores a new publication, its slug taken in the same transaction.
    fn create_publication(&self, publication: Publication) -> StoreFuture<PublicationCreated>;

    /// Changes the agent's publication atomically; `Gone` when it was
    /// deleted meanwhile. The slug never changes.
    fn update_publication(
        &self,
        org: OrgId,
        agent: AgentId,
        change: PublicationSwap,
    ) -> StoreFuture<Updated<Publication, ApiError>>;

    /// Deletes the agent's publication and frees its slug at once; the
    /// deleted record, if there was one.
    fn delete_publication(&self, org: OrgId, agent: AgentId) -> StoreFuture<Option<Publication>>;

    /// The tokens `publication`'s visitors' calls spent on `day` (days
    /// since 1970, UTC), as committed with their usage records.
    fn publication_tokens(&self, publication: PublicationId, day: u32) -> StoreFuture<u64>;

    /// The input tokens of `thread`'s latest model call (0 before the
    /// first): what its next call will send at least.
    fn last_input_tokens(&self, org: OrgId, thread: ThreadId) -> StoreFuture<u64>;

    /// A deleted publication's threads stop counting against it and leave
    /// its retention (they stay as org threads).
    fn forget_publication_threads(&self, publication: PublicationId) -> StoreFuture<()>;
}

impl PublicationRecords for SledRecords {
    fn org_settings(&self, org: OrgId) -> StoreFuture<OrgSettings> {
        self.read(move |s| s.org_settings(org))
    }

    fn update_org_settings(
        &self,
        org: OrgId,
        change: OrgSettingsSwap,
    ) -> StoreFuture<Updated<OrgSettings, ApiError>> {
        self.write(move |s| s.update_org_settings(org, change))
    }

    fn publication(&self, org: OrgId, agent: AgentId) -> StoreFuture<Option<Publication>> {
        self.read(move |s| s.publication(org, agent))
    }

    fn publications_of(
        &self,
        org: OrgId,
        agents: Vec<AgentId>,
    ) -> StoreFuture<Vec<Option<Publication>>> {
        self.read(move |s| {
            agents
                .into_iter()
                .map(|agent| s.publication(org, agent))
                .collect()
        })
    }

    fn publication_by_slug(&self, slug: String, live: bool) -> StoreFuture<Option<Publication>> {
        self.read(move |s| match live {
            true => s.live_publication_by_slug(&slug),
            false => s.publication_by_slug(&slug),
        })
    }

    fn create_publication(&self, publication: Publication) -> StoreFuture<PublicationCreated> {
        self.write(move |s| s.create_publication(&publication))
    }

    fn update_publication(
        &self,
        org: OrgId,
        agent: AgentId,
        change: PublicationSwap,
    ) -> StoreFuture<Updated<Publication, ApiError>> {
        self.write(move |s| s.update_publication(org, agent, change))
    }

    fn delete_publication(&self, org: OrgId, agent: AgentId) -> StoreFuture<Option<Publication>> {
        self.write(move |s| s.delete_publication(org, agent))
    }

    fn publication_tokens(&self, publication: PublicationId, day: u32) -> StoreFuture<u64> {
        self.read(move |s| s.publication_tokens(publication, day))
    }

    fn last_input_tokens(&self, org: OrgId, thread: ThreadId) -> StoreFuture<u64> {
        self.read(move |s| s.last_input_tokens(org, thread))
    }

    fn forget_publication_threads(&self, publication: PublicationId) -> StoreFuture<()> {
        self.write(move |s| s.forget_publication_threads(publication))
    }
}
