//! Installing and syncing skills (`agent-extras.md` §1 "Install", "Sync"),
//! all within the request: the files are read (an upload, an archive
//! fetched through the outbound policy, the catalogue), made a skill under
//! `spawn_blocking` and 30 s, then stored in one transaction; a failure
//! stores nothing. A sync keeps the last good content when it fails and
//! records why; no sync state outlives its request. At most 2 fetches run
//! at once per org, and one sync per skill.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::Utc;
use confer_actors::{OrgId, SkillId};

use super::fetch::{Fetched, Validators, fetch_archive};
pub use super::sync::Revision;
use super::{ArchiveFile, Caps, Skill, SkillContent, SkillError, SkillSource, SyncStatus};
use crate::error::ApiError;
use crate::outbound::Outbound;
use crate::outbound::git::GitFetcher;
use crate::store::Store;
use crate::store::skills::SkillWrite;

/// Fetches an org may run at once.
const FETCHES_PER_ORG: usize = 2;
/// Orgs (and skills syncing) tracked at once; past it, 429 as if the org
/// were busy.
const MAX_TRACKED: usize = 4096;
/// The time to read an archive and make it a skill.
const BUILD_TIMEOUT: Duration = Duration::from_secs(30);

/// Where a new skill comes from.
pub enum Origin {
    /// Uploaded files (a zip's, or parts by relative path).
    Files(Vec<ArchiveFile>),
    /// A zip uploaded whole.
    Zip(Vec<u8>),
    Archive {
        url: String,
        path: Option<String>,
        token: Option<String>,
    },
    Git {
        url: String,
        git_ref: Option<String>,
        path: Option<String>,
        token: Option<String>,
    },
    Catalog(String),
}

/// What a sync did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum SyncOutcome {
    Updated,
    Unchanged,
    Failed,
}

/// The fetches under way, per org, and the skills syncing.
#[derive(Default)]
struct InFlight {
    fetches: HashMap<OrgId, usize>,
    syncing: HashSet<SkillId>,
}

impl InFlight {
    /// Counts one more fetch of `org` (and the sync of `skill`): 409 if
    /// the skill is syncing, 429 past the org's fetches or the bound.
    fn take(&mut self, org: OrgId, skill: Option<SkillId>) -> Result<(), ApiError> {
        if let Some(skill) = skill
            && self.syncing.contains(&skill)
        {
            return Err(ApiError::Conflict("the skill is syncing already".into()));
        }
        let count = self.fetches.get(&org).copied().unwrap_or(0);
        if count >= FETCHES_PER_ORG
            || (count == 0 && self.fetches.len() >= MAX_TRACKED)
            || self.syncing.len() >= MAX_TRACKED
        {
            return Err(busy());
        }
        *self.fetches.entry(org).or_default() += 1;
        if let Some(skill) = skill {
            self.syncing.insert(skill);
        }
        Ok(())
    }
}

/// Installs and syncs skills.
pub struct SkillInstaller {
    pub(super) store: Store,
    outbound: Outbound,
    pub(super) git: GitFetcher,
    in_flight: Arc<Mutex<InFlight>>,
}

/// An org's fetch slot, given back on drop.
pub(super) struct FetchSlot {
    in_flight: Arc<Mutex<InFlight>>,
    org: OrgId,
    skill: Option<SkillId>,
}

impl Drop for FetchSlot {
    fn drop(&mut self) {
        let mut held = self.in_flight.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(count) = held.fetches.get_mut(&self.org) {
            *count -= 1;
            if *count == 0 {
                held.fetches.remove(&self.org);
            }
        }
        if let Some(skill) = self.skill {
            held.syncing.remove(&skill);
        }
    }
}

fn busy() -> ApiError {
    ApiError::RateLimited {
        detail: format!("at most {FETCHES_PER_ORG} skill installs or syncs fetch at once"),
        limit: FETCHES_PER_ORG as u32,
        retry_after: 5,
    }
}

/// Reads `bytes` as a zip or tar.gz and makes a skill of it, off the
/// async workers and within [`BUILD_TIMEOUT`].
async fn build_archive(
    bytes: Vec<u8>,
    path: Option<String>,
    field: &'static str,
) -> Result<SkillContent, SkillError> {
    let built = tokio::task::spawn_blocking(move || {
        let files = super::archive::read(&bytes, &Caps::default()).ok_or_else(|| {
            SkillError::Invalid(format!("{field}: not a zip or tar.gz archive"))
        })??;
        super::build(files, path.as_deref(), field)
    });
    match tokio::time::timeout(BUILD_TIMEOUT, built).await {
        Ok(Ok(result)) => result,
        Ok(Err(_)) => Err(SkillError::Invalid(format!("{field}: unreadable archive"))),
        Err(_) => Err(SkillError::Invalid(format!(
            "{field}: reading it took over 30 s"
        ))),
    }
}

impl SkillInstaller {
    pub fn new(store: Store, outbound: Outbound, git: GitFetcher) -> Self {
        Self {
            store,
            outbound,
            git,
            in_flight: Arc::default(),
        }
    }

    /// Takes one of the org's fetch slots (and, for a sync, the skill's).
    pub(super) fn slot(&self, org: OrgId, skill: Option<SkillId>) -> Result<FetchSlot, ApiError> {
        self.in_flight
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take(org, skill)?;
        Ok(FetchSlot {
            in_flight: Arc::clone(&self.in_flight),
            org,
            skill,
        })
    }

    /// Fetches and builds an archive skill.
    pub(super) async fn fetch_and_build(
        &self,
        url: &str,
        path: Option<String>,
        token: Option<&str>,
        known: Option<&Validators>,
    ) -> Result<Option<(SkillContent, Validators)>, SkillError> {
        let invalid = |reason: String| SkillError::Invalid(format!("url: {reason}"));
        match fetch_archive(&self.outbound, url, token, known)
            .await
            .map_err(invalid)?
        {
            Fetched::NotModified => Ok(None),
            Fetched::Archive { bytes, validators } => {
                let content = build_archive(bytes.to_vec(), path, "url").await?;
                Ok(Some((content, validators)))
            }
        }
    }

    /// Installs a skill for `org`; the 201's record.
    pub async fn install(&self, org: OrgId, origin: Origin) -> Result<Skill, ApiError> {
        let now = Utc::now();
        let mut skill = Skill {
            id: SkillId::new(),
            org_id: org,
            name: String::new(),
            description: String::new(),
            license: None,
            compatibility: None,
            metadata: Default::default(),
            allowed_tools: None,
            source: SkillSource::Upload,
            source_url: None,
            source_ref: None,
            source_path: None,
            token: None,
            version: 1,
            revision: None,
            etag: None,
            last_modified: None,
            content_hash: String::new(),
            files: Vec::new(),
            sync_status: None,
            last_error: None,
            synced_at: None,
            created_at: now,
            updated_at: now,
        };
        let content = match origin {
            Origin::Files(files) => {
                let caps = Caps::default();
                check_parts(&files, &caps)?;
                super::build(files, None, "files")?
            }
            Origin::Zip(bytes) => build_archive(bytes, None, "file").await?,
            Origin::Catalog(key) => {
                skill.source = SkillSource::Catalog;
                skill.source_ref = Some(key.clone());
                skill.revision = Some(super::catalog::REVISION.into());
                super::catalog::content(&key)
                    .ok_or_else(|| ApiError::invalid("key", "no such catalogue skill"))??
            }
            Origin::Git {
                url,
                git_ref,
                path,
                token,
            } => {
                let _slot = self.slot(org, None)?;
                let request = super::git::request(&url, git_ref.as_deref(), token.as_deref());
                let (content, commit) =
                    super::git::content(&self.git, &request, path.as_deref()).await?;
                skill.source = SkillSource::Git;
                skill.revision = Some(commit);
                skill.source_url = Some(url.clone());
                skill.source_ref = git_ref;
                skill.source_path = path;
                skill.token = token;
                content
            }
            Origin::Archive { url, path, token } => {
                let _slot = self.slot(org, None)?;
                let (content, validators) = self
                    .fetch_and_build(&url, path.clone(), token.as_deref(), None)
                    .await?
                    .ok_or_else(|| ApiError::invalid("url", "answered 304 to a first fetch"))?;
                skill.source = SkillSource::Archive;
                skill.source_url = Some(url);
                skill.source_path = path;
                skill.token = token;
                skill.set_validators(validators);
                content
            }
        };
        skill.set_content(&content);
        if skill.source != SkillSource::Upload {
            skill.sync_status = Some(SyncStatus::Ok);
            skill.synced_at = Some(now);
        }
        let files = content.files;
        match self.store.skills().create_skill(skill, files).await? {
            SkillWrite::Stored(skill) => Ok(*skill),
            SkillWrite::NameTaken => Err(ApiError::Conflict(
                "name: the org has a skill of this name".into(),
            )),
            SkillWrite::Full => Err(ApiError::Conflict(format!(
                "the org has {} skills, the most it may keep",
                super::MAX_SKILLS_PER_ORG
            ))),
            SkillWrite::Stale => Err(ApiError::Internal("a new skill was stale".into())),
        }
    }
}

/// New content from a source, and its revision.
pub(super) type Synced = (SkillContent, Option<Revision>);

/// A change of a skill's record that leaves its content alone.
pub(super) type SkillChange = Box<dyn Fn(&mut Skill) + Send>;

/// The change a failed sync makes: the content stays, the failure is kept.
pub(super) fn failed(reason: String, now: chrono::DateTime<Utc>) -> SkillChange {
    Box::new(move |s: &mut Skill| {
        s.sync_status = Some(SyncStatus::Failed);
        s.last_error = Some(reason.clone());
        s.synced_at = Some(now);
    })
}

/// Checks uploaded parts' paths and sizes as an archive's entries are.
fn check_parts(files: &[ArchiveFile], caps: &Caps) -> Result<(), SkillError> {
    if files.len() > caps.max_files {
        return Err(SkillError::TooLarge(format!(
            "files: more than {} files",
            caps.max_files
        )));
    }
    let mut seen = HashSet::new();
    let mut total = 0u64;
    for (path, bytes) in files {
        super::archive::check_name(path)?;
        if !seen.insert(path.as_str()) {
            return Err(SkillError::Invalid(format!("{path}: duplicate path")));
        }
        let size = bytes.len() as u64;
        if size > caps.file_cap(path) {
            return Err(SkillError::TooLarge(format!(
                "{path}: larger than {} bytes",
                caps.file_cap(path)
            )));
        }
        total += size;
        if total > caps.max_total {
            return Err(SkillError::TooLarge(format!(
                "{path}: the files pass {} bytes in all",
                caps.max_total
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fetches_are_bounded_per_org_and_in_all() {
        let mut held = InFlight::default();
        let (org, skill) = (OrgId::new(), SkillId::new());
        held.take(org, Some(skill)).unwrap();
        assert!(matches!(
            held.take(org, Some(skill)),
            Err(ApiError::Conflict(_))
        ));
        held.take(org, None).unwrap();
        assert!(matches!(
            held.take(org, None),
            Err(ApiError::RateLimited { .. })
        ));
        for _ in 1..MAX_TRACKED {
            held.take(OrgId::new(), None).unwrap();
        }
        assert_eq!(held.fetches.len(), MAX_TRACKED);
        assert!(matches!(
            held.take(OrgId::new(), None),
            Err(ApiError::RateLimited { .. })
        ));
    }

    #[test]
    fn parts_are_checked_like_entries() {
        let caps = Caps::default();
        let part = |p: &str| (p.to_owned(), b"x".to_vec());
        assert!(check_parts(&[part("SKILL.md"), part("references/a.md")], &caps).is_ok());
        assert!(check_parts(&[part("../evil.md")], &caps).is_err());
        assert!(check_parts(&[part("a"), part("a")], &caps).is_err());
        let big = ("SKILL.md".to_owned(), vec![b'x'; 129 * 1024]);
        assert!(matches!(
            check_parts(&[big], &caps),
            Err(SkillError::TooLarge(_))
        ));
    }
}
