//! The port of the marketplace (`marketplace-channels.md` §2–§5) on
//! either store: agents' profiles and avatars, the catalogue's index of
//! listed profiles (newest first), and `use`'s one write of an adopted
//! agent with its settings, servers, attachments and keyed answer.

use confer_actors::{Agent, AgentId, OrgId, StoreFuture};

use super::SledRecords;
use crate::error::ApiError;
use crate::marketplace::adopt::Adoption;
use crate::marketplace::profile::Profile;
use crate::store::marketplace::{Adopted, AvatarChange, ListedPage};
use crate::store::update::Updated;

/// A change to a profile (its refusal is the API's answer).
pub type ProfileSwap = Box<dyn FnMut(Profile) -> Result<Profile, ApiError> + Send>;

/// Which listings a catalogue page keeps.
pub type ListingFilter = Box<dyn Fn(&Profile, &Agent) -> bool + Send + Sync>;

/// A catalogue index key: newest-first milliseconds, then the agent.
pub type ListedKey = [u8; 24];

/// Profiles, avatars, the catalogue and adoptions.
pub trait MarketplaceRecords: Send + Sync + 'static {
    /// An agent's stored profile, if its org has one.
    fn marketplace_profile(&self, org: OrgId, agent: AgentId) -> StoreFuture<Option<Profile>>;

    /// A profile and its agent by agent id alone (the caller decides who
    /// may see it).
    fn marketplace_listing(&self, agent: AgentId) -> StoreFuture<Option<(Profile, Agent)>>;

    /// Changes an agent's profile (from [`Profile::unsaved`]) and its
    /// avatar at once; `Gone` when the agent is absent or deleted.
    fn update_marketplace_profile(
        &self,
        org: OrgId,
        agent: AgentId,
        avatar: AvatarChange,
        change: ProfileSwap,
    ) -> StoreFuture<Updated<Profile, ApiError>>;

    /// Deletes an agent's profile, its listing and its avatar; whether
    /// there was one.
    fn delete_marketplace_profile(&self, org: OrgId, agent: AgentId) -> StoreFuture<bool>;

    /// An agent's avatar (public: no org).
    fn marketplace_avatar(&self, agent: AgentId) -> StoreFuture<Option<Vec<u8>>>;

    /// Listed profiles and their agents newest first, after the index key
    /// `after`, that `keep` admits: at most `limit`, looking at most at
    /// `scan` index entries.
    fn marketplace_listed(
        &self,
        after: Option<ListedKey>,
        limit: usize,
        scan: usize,
        keep: ListingFilter,
    ) -> StoreFuture<ListedPage>;

    /// Stores `adoption` and, under `keyed` (the key's hash and the
    /// request's hash, hex), `answer` for a repeat to return.
    fn adopt_agent(
        &self,
        adoption: Adoption,
        keyed: Option<([u8; 32], String)>,
        answer: String,
    ) -> StoreFuture<Adopted>;
}

impl MarketplaceRecords for SledRecords {
    fn marketplace_profile(&self, org: OrgId, agent: AgentId) -> StoreFuture<Option<Profile>> {
        self.read(move |s| s.marketplace_profile(org, agent))
    }

    fn marketplace_listing(&self, agent: AgentId) -> StoreFuture<Option<(Profile, Agent)>> {
        self.read(move |s| s.marketplace_listing(agent))
    }

    fn update_marketplace_profile(
        &self,
        org: OrgId,
        agent: AgentId,
        avatar: AvatarChange,
        change: ProfileSwap,
    ) -> StoreFuture<Updated<Profile, ApiError>> {
        self.write(move |s| s.update_marketplace_profile(org, agent, avatar, change))
    }

    fn delete_marketplace_profile(&self, org: OrgId, agent: AgentId) -> StoreFuture<bool> {
        self.write(move |s| s.delete_marketplace_profile(org, agent))
    }

    fn marketplace_avatar(&self, agent: AgentId) -> StoreFuture<Option<Vec<u8>>> {
        self.read(move |s| s.marketplace_avatar(agent))
    }

    fn marketplace_listed(
        &self,
        after: Option<ListedKey>,
        limit: usize,
        scan: usize,
        keep: ListingFilter,
    ) -> StoreFuture<ListedPage> {
        self.read(move |s| s.marketplace_listed(after, limit, scan, keep))
    }

    fn adopt_agent(
        &self,
        adoption: Adoption,
        keyed: Option<([u8; 32], String)>,
        answer: String,
    ) -> StoreFuture<Adopted> {
        self.write(move |s| s.adopt_agent(&adoption, keyed, &answer))
    }
}
