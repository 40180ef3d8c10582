//! A project's members: added, changed and removed under the counting lock,
//! so the 500-member bound and the last-owner rule hold under races; each
//! member also has its `projects_by_user` entry, written in the same
//! transaction.

use confer_actors::{OrgId, ProjectId, StoreError};
use sled::Transactional;

use super::{ProjectWrite, user_entry};
use crate::projects::{MAX_MEMBERS, Member, ProjectRole};
use crate::store::codec::{decode, encode};
use crate::store::{SledStore, engine, tx_error};

/// `project ++ user id`.
pub(super) fn member_key(project: ProjectId, user: &str) -> Vec<u8> {
    let mut key = project.as_bytes().to_vec();
    key.extend_from_slice(user.as_bytes());
    key
}

impl SledStore {
    /// A project's members, by user id.
    pub fn project_members(&self, project: ProjectId) -> Result<Vec<Member>, StoreError> {
        self.projects
            .members
            .scan_prefix(project.as_bytes())
            .values()
            .map(|value| decode(&value.map_err(engine)?))
            .collect()
    }

    /// `user`'s role in `project`, if it is a member.
    pub fn project_role(
        &self,
        project: ProjectId,
        user: &str,
    ) -> Result<Option<ProjectRole>, StoreError> {
        let member: Option<Member> = Self::get(&self.projects.members, &member_key(project, user))?;
        Ok(member.map(|m| m.role))
    }

    /// Adds `member` to a project of `org`, or changes its role; `allow`
    /// sees the members before the change. Answers the member and whether
    /// it is new.
    pub fn put_project_member<E>(
        &self,
        org: OrgId,
        project: ProjectId,
        member: Member,
        allow: impl FnOnce(&[Member]) -> Result<(), E>,
    ) -> Result<ProjectWrite<(Member, bool), E>, StoreError> {
        let _writing = self.gate.writing();
        let _counting = self.projects.count_lock();
        let Some(record) = self.project(org, project)? else {
            return Ok(ProjectWrite::Gone);
        };
        let members = self.project_members(project)?;
        let new = !members.iter().any(|m| m.user_id == member.user_id);
        if new && members.len() >= MAX_MEMBERS {
            return Ok(ProjectWrite::Full);
        }
        if let Err(refusal) = allow(&members) {
            return Ok(ProjectWrite::Refused(refusal));
        }
        let key = member_key(project, &member.user_id);
        let entry = user_entry(&record, &member.user_id);
        let bytes = encode(&member)?;
        (&self.projects.members, &self.projects.by_user)
            .transaction(|(member_tree, by_user)| {
                member_tree.insert(key.as_slice(), bytes.as_slice())?;
                by_user.insert(entry.as_slice(), &[])?;
                Ok(())
            })
            .map_err(tx_error)?;
        Ok(ProjectWrite::Done((member, new)))
    }

    /// Removes `user` from a project of `org`; `allow` sees the members
    /// before the change. `Done(false)` when it was not a member.
    pub fn remove_project_member<E>(
        &self,
        org: OrgId,
        project: ProjectId,
        user: &str,
        allow: impl FnOnce(&[Member]) -> Result<(), E>,
    ) -> Result<ProjectWrite<bool, E>, StoreError> {
        let _writing = self.gate.writing();
        let _counting = self.projects.count_lock();
        let Some(record) = self.project(org, project)? else {
            return Ok(ProjectWrite::Gone);
        };
        let members = self.project_members(project)?;
        if !members.iter().any(|m| m.user_id == user) {
            return Ok(ProjectWrite::Done(false));
        }
        if let Err(refusal) = allow(&members) {
            return Ok(ProjectWrite::Refused(refusal));
        }
        let key = member_key(project, user);
        let entry = user_entry(&record, user);
        (&self.projects.members, &self.projects.by_user)
            .transaction(|(member_tree, by_user)| {
                member_tree.remove(key.as_slice())?;
                by_user.remove(entry.as_slice())?;
                Ok(())
            })
            .map_err(tx_error)?;
        Ok(ProjectWrite::Done(true))
    }
}
