//! Syncing a skill from its source (`agent-extras.md` §1 "Sync"), in the
//! request: an archive asked with its validators (304 or the same hash:
//! unchanged), a git ref's commit compared before anything is fetched, the
//! catalogue re-read from the binary. New content replaces the record,
//! name and files in one transaction with `version` + 1; a failure keeps
//! the last good content and records why.

use chrono::Utc;

use super::fetch::Validators;
use super::install::{SkillChange, SkillInstaller, SyncOutcome, Synced, failed};
use super::{Skill, SkillSource, SyncStatus};
use crate::error::ApiError;
use crate::store::skills::SkillWrite;

/// What a source says of the content it gave.
#[derive(Clone, Debug)]
pub enum Revision {
    /// An archive answer's ETag and Last-Modified.
    Validators(Validators),
    /// A git commit.
    Commit(String),
}

impl SkillInstaller {
    /// Syncs a skill from its source.
    pub async fn sync(&self, skill: Skill) -> Result<(SyncOutcome, Skill), ApiError> {
        let (org, id) = (skill.org_id, skill.id);
        let fetched = match skill.source {
            SkillSource::Upload => {
                return Err(ApiError::invalid(
                    "source",
                    "an uploaded skill has no source to sync from",
                ));
            }
            SkillSource::Git => {
                let _slot = self.slot(org, Some(id))?;
                self.sync_git(&skill).await
            }
            SkillSource::Catalog => {
                let _slot = self.slot(org, Some(id))?;
                let key = skill.source_ref.clone().unwrap_or_default();
                match super::catalog::content(&key) {
                    Some(Ok(content)) => Ok(Some((content, None))),
                    Some(Err(error)) => Err(error.to_string()),
                    None => Err("the catalogue no longer has this skill".into()),
                }
            }
            SkillSource::Archive => {
                let _slot = self.slot(org, Some(id))?;
                let token = self.token(&skill).await?;
                let url = skill.source_url.clone().unwrap_or_default();
                let known = skill.validators();
                self.fetch_and_build(
                    &url,
                    skill.source_path.clone(),
                    token.as_deref(),
                    Some(&known),
                )
                .await
                .map(|fetched| fetched.map(|(content, v)| (content, Some(Revision::Validators(v)))))
                .map_err(|e| e.to_string())
            }
        };
        let now = Utc::now();
        let (outcome, change): (SyncOutcome, SkillChange) = match fetched {
            Ok(Some((content, revision))) if content.hash != skill.content_hash => {
                let mut new = skill.clone();
                new.set_content(&content);
                if let Some(revision) = revision {
                    new.set_revision(revision);
                }
                new.version += 1;
                new.sync_status = Some(SyncStatus::Ok);
                new.last_error = None;
                new.synced_at = Some(now);
                new.updated_at = now;
                let old = skill.clone();
                let files = content.files;
                match self
                    .store
                    .skills()
                    .replace_skill_content(old, new, files)
                    .await?
                {
                    SkillWrite::Stored(stored) => return Ok((SyncOutcome::Updated, *stored)),
                    SkillWrite::NameTaken => (
                        SyncOutcome::Failed,
                        failed(
                            "name: another skill of the org has the new name".into(),
                            now,
                        ),
                    ),
                    SkillWrite::Stale | SkillWrite::Full => {
                        return Err(ApiError::Conflict(
                            "the skill changed during the sync".into(),
                        ));
                    }
                }
            }
            Ok(fetched) => {
                let revision = fetched.and_then(|(_, r)| r);
                (
                    SyncOutcome::Unchanged,
                    Box::new(move |s: &mut Skill| {
                        if let Some(r) = revision.clone() {
                            s.set_revision(r);
                        }
                        s.sync_status = Some(SyncStatus::Ok);
                        s.last_error = None;
                        s.synced_at = Some(now);
                    }),
                )
            }
            Err(reason) => (SyncOutcome::Failed, failed(reason, now)),
        };
        let touched = self
            .store
            .skills()
            .touch_skill(org, id, change)
            .await?
            .ok_or_else(|| ApiError::not_found("skill"))?;
        Ok((outcome, touched))
    }
}

impl SkillInstaller {
    async fn token(&self, skill: &Skill) -> Result<Option<String>, ApiError> {
        Ok(crate::skills::token::open(&self.store.secrets(), skill)?)
    }

    /// A git skill's sync: the remote's commit first; the same commit
    /// fetches nothing.
    async fn sync_git(&self, skill: &Skill) -> Result<Option<Synced>, String> {
        let token = self.token(skill).await.map_err(|e| e.to_string())?;
        let url = skill.source_url.clone().unwrap_or_default();
        let request = super::git::request(&url, skill.source_ref.as_deref(), token.as_deref());
        let commit = self
            .git
            .remote_commit(&request)
            .await
            .map_err(|reason| format!("url: {reason}"))?;
        if skill.revision.as_deref() == Some(commit.as_str()) {
            return Ok(None);
        }
        let (content, commit) =
            super::git::content(&self.git, &request, skill.source_path.as_deref())
                .await
                .map_err(|e| e.to_string())?;
        Ok(Some((content, Some(Revision::Commit(commit)))))
    }
}

impl Skill {
    /// Keeps an archive answer's validators; the revision is its ETag, or
    /// its Last-Modified when it gave none.
    pub(super) fn set_validators(&mut self, validators: Validators) {
        self.revision = validators
            .etag
            .clone()
            .or_else(|| validators.last_modified.clone());
        self.etag = validators.etag;
        self.last_modified = validators.last_modified;
    }

    pub(super) fn set_revision(&mut self, revision: Revision) {
        match revision {
            Revision::Validators(validators) => self.set_validators(validators),
            Revision::Commit(commit) => self.revision = Some(commit),
        }
    }

    pub(super) fn validators(&self) -> Validators {
        Validators {
            etag: self.etag.clone(),
            last_modified: self.last_modified.clone(),
        }
    }
}
