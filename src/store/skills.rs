//! Skills in the store (`agent-extras.md` §1; see `crate::skills`).
//!
//! | tree                | key                        | value                     |
//! |---------------------|----------------------------|---------------------------|
//! | `skills`            | org ++ skill               | `Skill` (token sealed)    |
//! | `skill_names`       | org ++ name (UTF-8)        | skill id                  |
//! | `skill_files`       | skill ++ path (UTF-8)      | the file's bytes          |
//! | `skill_attachments` | owner ++ skill             | `SkillAttachment`         |
//! | `skill_attached`    | skill ++ owner             | empty                     |
//!
//! An owner is an agent or a runner (16 UUID bytes either way). A record,
//! its name and its files change in one transaction, so a reader never
//! sees a version's record with another's files; a content change is a
//! compare-and-swap on the version read. Counting writes (200 skills per
//! org, 32 attachments per owner) hold one lock, since a sled transaction
//! cannot count a prefix.

use chrono::{DateTime, Utc};
use confer_actors::{OrgId, SkillId, StoreError};
use serde::{Deserialize, Serialize};
use sled::Transactional;
use sled::transaction::TransactionalTree;

use super::codec::{decode, encode};
use super::{SledStore, abort, engine, tx_error};
use crate::skills::{ArchiveFile, MAX_ATTACHMENTS, MAX_SKILLS_PER_ORG, Skill};

/// The skill trees.
pub struct SkillTrees {
    skills: sled::Tree,
    names: sled::Tree,
    files: sled::Tree,
    attachments: sled::Tree,
    attached: sled::Tree,
    /// Held by writes that count.
    counting: std::sync::Mutex<()>,
}

impl SkillTrees {
    pub fn open(db: &sled::Db) -> Result<Self, StoreError> {
        let tree = |name: &str| db.open_tree(name).map_err(engine);
        Ok(Self {
            skills: tree("skills")?,
            names: tree("skill_names")?,
            files: tree("skill_files")?,
            attachments: tree("skill_attachments")?,
            attached: tree("skill_attached")?,
            counting: std::sync::Mutex::new(()),
        })
    }
}

impl SkillTrees {
    /// The skills' records (for `confer migrate`).
    pub fn records(&self) -> &sled::Tree {
        &self.skills
    }

    /// The skills' files.
    pub fn files(&self) -> &sled::Tree {
        &self.files
    }

    /// The attachments, by owner.
    pub fn attachments(&self) -> &sled::Tree {
        &self.attachments
    }
}

/// A skill attached to an agent or a runner.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SkillAttachment {
    pub skill_id: SkillId,
    pub enabled: bool,
    pub attached_at: DateTime<Utc>,
}

/// What a create or a content change did.
#[derive(Debug)]
pub enum SkillWrite {
    Stored(Box<Skill>),
    /// Another skill of the org has the name.
    NameTaken,
    /// The org has [`MAX_SKILLS_PER_ORG`] skills.
    Full,
    /// The skill is gone, or changed since it was read.
    Stale,
}

/// What an attach did.
#[derive(Debug, PartialEq, Eq)]
pub enum SkillAttach {
    Attached,
    Updated,
    /// No such skill in the org.
    Missing,
    /// The owner has [`MAX_ATTACHMENTS`] skills.
    Full,
}

fn key(org: OrgId, id: SkillId) -> Vec<u8> {
    [org.as_bytes().as_slice(), id.as_bytes()].concat()
}

fn name_key(org: OrgId, name: &str) -> Vec<u8> {
    [org.as_bytes().as_slice(), name.as_bytes()].concat()
}

fn file_key(id: SkillId, path: &str) -> Vec<u8> {
    [id.as_bytes().as_slice(), path.as_bytes()].concat()
}

fn pair(a: &[u8; 16], b: &[u8; 16]) -> Vec<u8> {
    [a.as_slice(), b.as_slice()].concat()
}

type Tx = sled::transaction::ConflictableTransactionError<StoreError>;

/// Writes `skill`'s files, less `old`'s.
fn replace_files(
    files: &TransactionalTree,
    id: SkillId,
    old: &[String],
    new: &[ArchiveFile],
) -> Result<(), Tx> {
    for path in old {
        files.remove(file_key(id, path))?;
    }
    for (path, bytes) in new {
        files.insert(file_key(id, path), bytes.as_slice())?;
    }
    Ok(())
}

impl SledStore {
    /// Stores a new skill with its files (`skill.token` in plain text,
    /// sealed here).
    pub fn create_skill(
        &self,
        skill: Skill,
        files: &[ArchiveFile],
    ) -> Result<SkillWrite, StoreError> {
        let _writing = self.gate.writing();
        let trees = &self.skills;
        let _counting = trees.counting.lock().unwrap_or_else(|p| p.into_inner());
        let org = skill.org_id;
        if trees.skills.scan_prefix(org.as_bytes()).count() >= MAX_SKILLS_PER_ORG {
            return Ok(SkillWrite::Full);
        }
        let skill = crate::skills::token::sealed(&self.secrets, skill)?;
        let record = encode(&skill)?;
        let taken = (&trees.skills, &trees.names, &trees.files)
            .transaction(|(skills, names, stored)| {
                if names.get(name_key(org, &skill.name))?.is_some() {
                    return Ok(true);
                }
                names.insert(name_key(org, &skill.name), skill.id.as_bytes().as_slice())?;
                skills.insert(key(org, skill.id), record.as_slice())?;
                replace_files(stored, skill.id, &[], files)?;
                Ok(false)
            })
            .map_err(tx_error)?;
        Ok(match taken {
            true => SkillWrite::NameTaken,
            false => SkillWrite::Stored(Box::new(skill)),
        })
    }

    /// Replaces the content of the skill `old` as read (its version and
    /// hash unchanged since): the record `new` and its `files`, in one
    /// transaction with its name's index.
    pub fn replace_skill_content(
        &self,
        old: &Skill,
        new: Skill,
        files: &[ArchiveFile],
    ) -> Result<SkillWrite, StoreError> {
        let _writing = self.gate.writing();
        let trees = &self.skills;
        let (org, id) = (old.org_id, old.id);
        let old_paths: Vec<String> = old.files.iter().map(|f| f.path.clone()).collect();
        let record = encode(&new)?;
        (&trees.skills, &trees.names, &trees.files)
            .transaction(|(skills, names, stored)| {
                let Some(current) = skills.get(key(org, id))? else {
                    return Ok(SkillWrite::Stale);
                };
                let current: Skill = decode(&current).map_err(abort)?;
                if current.version != old.version || current.content_hash != old.content_hash {
                    return Ok(SkillWrite::Stale);
                }
                if new.name != current.name {
                    if names.get(name_key(org, &new.name))?.is_some() {
                        return Ok(SkillWrite::NameTaken);
                    }
                    names.remove(name_key(org, &current.name))?;
                    names.insert(name_key(org, &new.name), id.as_bytes().as_slice())?;
                }
                replace_files(stored, id, &old_paths, files)?;
                skills.insert(key(org, id), record.as_slice())?;
                Ok(SkillWrite::Stored(Box::new(new.clone())))
            })
            .map_err(tx_error)
    }

    /// Records a sync that changed no content: `change` applied to the
    /// record as stored (compare-and-swap); `None` if it is gone.
    pub fn touch_skill(
        &self,
        org: OrgId,
        id: SkillId,
        change: impl Fn(&mut Skill),
    ) -> Result<Option<Skill>, StoreError> {
        let _writing = self.gate.writing();
        let updated = super::update::swap(
            &self.skills.skills,
            &key(org, id),
            |bytes| bytes.map(decode::<Skill>).transpose(),
            |mut skill| {
                change(&mut skill);
                Ok::<_, std::convert::Infallible>(skill)
            },
        )?;
        Ok(match updated {
            super::update::Updated::Stored(skill) => Some(skill),
            _ => None,
        })
    }

    /// The org's skills, by name.
    pub fn skills(&self, org: OrgId) -> Result<Vec<Skill>, StoreError> {
        let mut skills = Vec::new();
        for entry in self.skills.skills.scan_prefix(org.as_bytes()).values() {
            skills.push(decode::<Skill>(&entry.map_err(engine)?)?);
        }
        skills.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(skills)
    }

    /// One skill of the org (its token sealed).
    pub fn skill(&self, org: OrgId, id: SkillId) -> Result<Option<Skill>, StoreError> {
        Self::get(&self.skills.skills, &key(org, id))
    }

    /// One file of a skill.
    pub fn skill_file(&self, id: SkillId, path: &str) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(self
            .skills
            .files
            .get(file_key(id, path))
            .map_err(engine)?
            .map(|v| v.to_vec()))
    }

    /// Deletes a skill, its files and every attachment of it; whether
    /// there was one.
    pub fn delete_skill(&self, org: OrgId, id: SkillId) -> Result<bool, StoreError> {
        let _writing = self.gate.writing();
        let trees = &self.skills;
        let _counting = trees.counting.lock().unwrap_or_else(|p| p.into_inner());
        let Some(skill) = self.skill(org, id)? else {
            return Ok(false);
        };
        let owners: Vec<sled::IVec> = trees
            .attached
            .scan_prefix(id.as_bytes())
            .keys()
            .collect::<Result<_, _>>()
            .map_err(engine)?;
        let paths: Vec<String> = skill.files.iter().map(|f| f.path.clone()).collect();
        (
            &trees.skills,
            &trees.names,
            &trees.files,
            &trees.attachments,
            &trees.attached,
        )
            .transaction(|(skills, names, files, attachments, attached)| {
                skills.remove(key(org, id))?;
                names.remove(name_key(org, &skill.name))?;
                replace_files(files, id, &paths, &[])?;
                for reverse in &owners {
                    attached.remove(reverse)?;
                    let owner = &reverse[16..];
                    attachments.remove([owner, id.as_bytes().as_slice()].concat())?;
                }
                Ok(())
            })
            .map_err(tx_error)?;
        Ok(true)
    }

    /// Attaches `org`'s skill to `owner` (an agent or a runner), or sets
    /// `enabled` of an attachment (`None`: as it was, or `true`).
    pub fn attach_skill(
        &self,
        org: OrgId,
        owner: uuid::Uuid,
        skill: SkillId,
        enabled: Option<bool>,
    ) -> Result<SkillAttach, StoreError> {
        let _writing = self.gate.writing();
        let trees = &self.skills;
        let _counting = trees.counting.lock().unwrap_or_else(|p| p.into_inner());
        let forward = pair(owner.as_bytes(), skill.as_bytes());
        let existing = trees.attachments.get(&forward).map_err(engine)?;
        if existing.is_none()
            && trees.attachments.scan_prefix(owner.as_bytes()).count() >= MAX_ATTACHMENTS
        {
            return Ok(SkillAttach::Full);
        }
        let attachment = match &existing {
            Some(bytes) => {
                let mut old: SkillAttachment = decode(bytes)?;
                old.enabled = enabled.unwrap_or(old.enabled);
                old
            }
            None => SkillAttachment {
                skill_id: skill,
                enabled: enabled.unwrap_or(true),
                attached_at: Utc::now(),
            },
        };
        let value = encode(&attachment)?;
        let reverse = pair(skill.as_bytes(), owner.as_bytes());
        let found = (&trees.skills, &trees.attachments, &trees.attached)
            .transaction(|(skills, attachments, attached)| {
                if skills.get(key(org, skill))?.is_none() {
                    return Ok(false);
                }
                attachments.insert(forward.as_slice(), value.as_slice())?;
                attached.insert(reverse.as_slice(), &[][..])?;
                Ok(true)
            })
            .map_err(tx_error)?;
        Ok(match (found, existing) {
            (false, _) => SkillAttach::Missing,
            (true, None) => SkillAttach::Attached,
            (true, Some(_)) => SkillAttach::Updated,
        })
    }

    /// Detaches a skill from `owner`; whether it was attached.
    pub fn detach_skill(&self, owner: uuid::Uuid, skill: SkillId) -> Result<bool, StoreError> {
        let _writing = self.gate.writing();
        let trees = &self.skills;
        let forward = pair(owner.as_bytes(), skill.as_bytes());
        let reverse = pair(skill.as_bytes(), owner.as_bytes());
        (&trees.attachments, &trees.attached)
            .transaction(|(attachments, attached)| {
                attached.remove(reverse.as_slice())?;
                Ok(attachments.remove(forward.as_slice())?.is_some())
            })
            .map_err(tx_error)
    }

    /// Every attachment of `owner`, each with its skill, in attachment
    /// order (an attachment whose skill is gone is skipped).
    pub fn skill_attachments(
        &self,
        org: OrgId,
        owner: uuid::Uuid,
    ) -> Result<Vec<(SkillAttachment, Skill)>, StoreError> {
        let mut found = Vec::new();
        for entry in self
            .skills
            .attachments
            .scan_prefix(owner.as_bytes())
            .values()
        {
            let attachment: SkillAttachment = decode(&entry.map_err(engine)?)?;
            if let Some(skill) = self.skill(org, attachment.skill_id)? {
                found.push((attachment, skill));
            }
        }
        found.sort_by_key(|(a, _)| a.attached_at);
        Ok(found)
    }
}
