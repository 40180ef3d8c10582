//! The rows of publishing's, skills' and MCP servers' kinds in a sled
//! store: an org's settings, publications, skills, their files (bytes,
//! digested in the manifest) and their attachments; MCP servers, their
//! attachments, and the OAuth registrations and tokens kept for them;
//! database integrations and their attachments (secrets still sealed).

use serde_json::Value;

use super::lines::skill_file_line;
use super::source::{Row, Rows, SledSource, cell, codec, record, tree_rows, uuid_at, with_body};
use crate::knowledge::memory::{Memory, content_key};
use crate::publishing::{OrgSettings, Publication};
use crate::skills::Skill;
use crate::store::integrations::{Integration, IntegrationAttachment};
use crate::store::knowledge::memories::Forget;
use crate::store::mcps::{McpAttachment, McpServer};
use crate::store::oauth::StoredToken;

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
            "mcp_servers" => tree_rows(&s.mcps, |_, v| {
                let (server, body) = record::<McpServer>("an MCP server", v)?;
                let cells = vec![
                    cell(server.org_id.0),
                    cell(server.id.0),
                    cell(server.slug),
                    cell(i64::from(server.oauth_epoch)),
                ];
                with_body(cells, body)
            }),
            "mcp_attachments" => tree_rows(&s.agent_mcps, |k, v| {
                let (attachment, body) = record::<McpAttachment>("an MCP attachment", v)?;
                let cells = vec![
                    cell(uuid_at(k, 0)?),
                    cell(uuid_at(k, 16)?),
                    cell(attachment.target.0),
                    cell(attachment.attached_at),
                ];
                with_body(cells, body)
            }),
            "oauth_registrations" => tree_rows(&s.oauth_registrations, |k, v| {
                let (_, body) = record::<Value>("an OAuth registration", v)?;
                with_body(vec![cell(uuid_at(k, 0)?), cell(uuid_at(k, 16)?)], body)
            }),
            "oauth_tokens" => tree_rows(&s.oauth_tokens, |k, v| {
                let (token, body) = record::<StoredToken>("an OAuth token", v)?;
                let owner = k.get(32..).unwrap_or_default().to_vec();
                let cells = vec![
                    cell(uuid_at(k, 0)?),
                    cell(uuid_at(k, 16)?),
                    cell(owner),
                    cell(token.updated_at),
                ];
                with_body(cells, body)
            }),
            "memories" => tree_rows(s.knowledge.memories.copied().0, |_, v| {
                let (memory, body) = record::<Memory>("a memory", v)?;
                let cells = vec![
                    cell(memory.org_id.0),
                    cell(memory.agent_id.0),
                    cell(memory.id.0),
                    cell(memory.owner().key().to_vec()),
                    cell(content_key(&memory.content).to_vec()),
                    cell(memory.created_at),
                ];
                with_body(cells, body)
            }),
            "memory_forgets" => tree_rows(s.knowledge.memories.copied().1, |k, v| {
                let (forget, body) = record::<Forget>("a forgotten owner's marker", v)?;
                let owner = k
                    .get(32..48)
                    .ok_or_else(|| codec("a marker's key", "too short"))?;
                let cells = vec![
                    cell(uuid_at(k, 0)?),
                    cell(uuid_at(k, 16)?),
                    cell(owner.to_vec()),
                    cell(forget.before.0),
                ];
                with_body(cells, body)
            }),
            "integrations" => tree_rows(&s.integrations, |_, v| {
                let (integration, body) = record::<Integration>("an integration", v)?;
                let cells = vec![
                    cell(integration.org_id.0),
                    cell(integration.id.0),
                    cell(integration.slug),
                ];
                with_body(cells, body)
            }),
            "integration_attachments" => tree_rows(&s.agent_integrations, |k, v| {
                let (attachment, body) =
                    record::<IntegrationAttachment>("an integration's attachment", v)?;
                let cells = vec![
                    cell(uuid_at(k, 0)?),
                    cell(uuid_at(k, 16)?),
                    cell(attachment.target.0),
                    cell(attachment.attached_at),
                ];
                with_body(cells, body)
            }),
            _ => return None,
        })
    }
}
