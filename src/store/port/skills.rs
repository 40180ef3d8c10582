//! The port of skills (`agent-extras.md` §1), on either store: a skill, its
//! name (unique in the org) and its files change together, so a reader
//! never sees one version's record with another's files; a content change
//! is a compare-and-swap on the version read; the org's skills and an
//! owner's attachments are counted exactly. A git token is sealed by the
//! store and opened by `crate::skills::token`.

use confer_actors::{OrgId, SkillId, StoreFuture};

use super::SledRecords;
use crate::skills::{ArchiveFile, Skill};
use crate::store::skills::{SkillAttach, SkillAttachment, SkillWrite};

/// A change to a stored skill that leaves its content alone (a sync that
/// found nothing new).
pub type SkillTouch = Box<dyn Fn(&mut Skill) + Send>;

/// Skills, their files and their attachments to agents and runners.
pub trait SkillRecords: Send + Sync + 'static {
    /// Stores a new skill with its files (`skill.token` in plain text,
    /// sealed by the store), unless the org has the name or is full.
    fn create_skill(&self, skill: Skill, files: Vec<ArchiveFile>) -> StoreFuture<SkillWrite>;

    /// Replaces the content of `old` as read (its version and hash
    /// unchanged since): the record `new` and its `files`.
    fn replace_skill_content(
        &self,
        old: Skill,
        new: Skill,
        files: Vec<ArchiveFile>,
    ) -> StoreFuture<SkillWrite>;

    /// Applies `change` to the skill as stored; `None` when it is gone.
    fn touch_skill(
        &self,
        org: OrgId,
        id: SkillId,
        change: SkillTouch,
    ) -> StoreFuture<Option<Skill>>;

    /// The org's skills, by name.
    fn skills(&self, org: OrgId) -> StoreFuture<Vec<Skill>>;

    /// One skill of the org (its token sealed).
    fn skill(&self, org: OrgId, id: SkillId) -> StoreFuture<Option<Skill>>;

    /// One file of a skill.
    fn skill_file(&self, id: SkillId, path: String) -> StoreFuture<Option<Vec<u8>>>;

    /// Deletes a skill, its files and every attachment of it; whether
    /// there was one.
    fn delete_skill(&self, org: OrgId, id: SkillId) -> StoreFuture<bool>;

    /// Attaches the org's skill to `owner` (an agent or a runner), or sets
    /// `enabled` of an attachment (`None`: as it was, or `true`).
    fn attach_skill(
        &self,
        org: OrgId,
        owner: uuid::Uuid,
        skill: SkillId,
        enabled: Option<bool>,
    ) -> StoreFuture<SkillAttach>;

    /// Detaches a skill from `owner`; whether it was attached.
    fn detach_skill(&self, owner: uuid::Uuid, skill: SkillId) -> StoreFuture<bool>;

    /// Every attachment of `owner`, each with its skill, in attachment
    /// order (an attachment whose skill is gone is skipped).
    fn skill_attachments(
        &self,
        org: OrgId,
        owner: uuid::Uuid,
    ) -> StoreFuture<Vec<(SkillAttachment, Skill)>>;
}

impl SkillRecords for SledRecords {
    fn create_skill(&self, skill: Skill, files: Vec<ArchiveFile>) -> StoreFuture<SkillWrite> {
        self.write(move |s| s.create_skill(skill, &files))
    }

    fn replace_skill_content(
        &self,
        old: Skill,
        new: Skill,
        files: Vec<ArchiveFile>,
    ) -> StoreFuture<SkillWrite> {
        self.write(move |s| s.replace_skill_content(&old, new, &files))
    }

    fn touch_skill(
        &self,
        org: OrgId,
        id: SkillId,
        change: SkillTouch,
    ) -> StoreFuture<Option<Skill>> {
        self.write(move |s| s.touch_skill(org, id, change))
    }

    fn skills(&self, org: OrgId) -> StoreFuture<Vec<Skill>> {
        self.read(move |s| s.skills(org))
    }

    fn skill(&self, org: OrgId, id: SkillId) -> StoreFuture<Option<Skill>> {
        self.read(move |s| s.skill(org, id))
    }

    fn skill_file(&self, id: SkillId, path: String) -> StoreFuture<Option<Vec<u8>>> {
        self.read(move |s| s.skill_file(id, &path))
    }

    fn delete_skill(&self, org: OrgId, id: SkillId) -> StoreFuture<bool> {
        self.write(move |s| s.delete_skill(org, id))
    }

    fn attach_skill(
        &self,
        org: OrgId,
        owner: uuid::Uuid,
        skill: SkillId,
        enabled: Option<bool>,
    ) -> StoreFuture<SkillAttach> {
        self.write(move |s| s.attach_skill(org, owner, skill, enabled))
    }

    fn detach_skill(&self, owner: uuid::Uuid, skill: SkillId) -> StoreFuture<bool> {
        self.write(move |s| s.detach_skill(owner, skill))
    }

    fn skill_attachments(
        &self,
        org: OrgId,
        owner: uuid::Uuid,
    ) -> StoreFuture<Vec<(SkillAttachment, Skill)>> {
        self.read(move |s| s.skill_attachments(org, owner))
    }
}
