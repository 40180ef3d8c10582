//! The rows of publishing's and skills' kinds in a sled store: an org's
//! settings, publications, skills, their files (bytes, digested in the
//! manifest) and their attachments.

use serde_json::Value;

use super::lines::skill_file_line;
use super::source::{Row, Rows, SledSource, cell, codec, record, tree_rows, uuid_at, with_body};
use crate::publishing::{OrgSettings, Publication};
use crate::skills::Skill;

impl<'a> SledSource<'a> {
    /// The rows of `table` when it is one of these kinds.
    pub(super) fn extra_rows(&self, table: &str) -> Option<Rows<'a>> {
        let s = self.store;
        Some(match table {
            "org_settings" => tree_rows(&s.org_settings, |k, v| {
                let (_, body) = record::<OrgSettings>("an org's settings", v)?;
                with_body(vec![cell(uuid_at(k, 0)?)], body)
            }),
            "publications" => tree_rows(&s.publications, |_, v| {
                let (publication, body) = record::<Publication>("a publication", v)?;
                with_body(
                    vec![
                        cell(publication.org_id.0),
                        cell(publication.agent_id.0),
                        cell(publication.id.0),
                        cell(publication.slug),
                    ],
                    body,
                )
            }),
            "skills" => tree_rows(s.skills.records(), |_, v| {
                let (skill, body) = record::<Skill>("a skill", v)?;
                with_body(
                    vec![cell(skill.org_id.0), cell(skill.id.0), cell(skill.name)],
                    body,
                )
            }),
            "skill_files" => tree_rows(s.skills.files(), |k, v| {
                let path = std::str::from_utf8(k.get(16..).unwrap_or_default())
                    .map_err(|e| codec("a skill's file", e))?;
                let skill = uuid_at(k, 0)?;
                Ok(Row {
                    line: skill_file_line(skill, path, v),
                    cells: vec![cell(skill), cell(path.to_owned()), cell(v.to_vec())],
                })
            }),
            "skill_attachments" => tree_rows(s.skills.attachments(), |k, v| {
                let (_, body) = record::<Value>("a skill's attachment", v)?;
                with_body(vec![cell(uuid_at(k, 0)?), cell(uuid_at(k, 16)?)], body)
            }),
            _ => return None,
        })
    }
}
