//! The rules of a code agent's create and PATCH (`computer.md` §5), in one
//! place so every writer agrees. The repository's URL decides where its
//! token is sent, so a new URL forgets the old token unless the same
//! change gives one.

use chrono::Utc;
use confer_actors::{AgentId, CodeAgentId, OrgId};
use serde::{Deserialize, Deserializer};

use super::agents::{ArchiveInfo, CodeAgent, Repository, RepositoryKind};
use super::commands::AllowedCommands;
use crate::computer::config::{ComputerConfig, PutComputerConfig, Refusal};

/// The deepest clone a repository may ask for.
const MAX_DEPTH: u32 = 10_000;

/// `Some(value)` for a present field, `null` included (`Some(None)`).
fn present<'de, D, T>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(deserializer).map(Some)
}

/// The `repository` of a create or PATCH body.
#[derive(Clone, Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RepositoryInput {
    /// An http(s) git URL (absent with an uploaded archive).
    pub url: Option<String>,
    /// A branch; null or absent: the remote's default.
    pub branch: Option<String>,
    /// 1–10000; null or absent: a full clone.
    pub depth: Option<u32>,
    /// Write-only: sent to git as an `Authorization` header.
    pub token: Option<String>,
}

/// The fields of `POST /api/code-agents` (all but `agentId`, `name` and
/// the repository optional) and of its PATCH (all optional).
#[derive(Clone, Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CodeAgentInput {
    #[schema(value_type = Option<uuid::Uuid>)]
    pub agent_id: Option<AgentId>,
    /// 1–100 characters.
    pub name: Option<String>,
    /// ≤ 4,000 characters.
    pub description: Option<String>,
    pub repository: Option<RepositoryInput>,
    /// ≤ 4 KiB; null: none.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>)]
    pub setup_command: Option<Option<String>>,
    /// 1–3600 (600).
    pub setup_timeout_secs: Option<u64>,
    /// ≤ 100 word patterns, the last word of each may be `*`; null: any.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<Vec<String>>)]
    pub allowed_commands: Option<Option<Vec<String>>>,
    /// 1–200 (50).
    pub max_steps: Option<u32>,
    /// 1–720 (60).
    pub turn_timeout_mins: Option<u32>,
    /// The computer configuration's fields but `enabled`.
    pub computer: Option<PutComputerConfig>,
}

fn refusal(field: &str, rule: &str) -> Refusal {
    (field.to_owned(), rule.to_owned())
}

fn within(field: &str, value: u64, high: u64) -> Result<(), Refusal> {
    if (1..=high).contains(&value) {
        Ok(())
    } else {
        Err((field.to_owned(), format!("must be 1 to {high}")))
    }
}

impl CodeAgentInput {
    /// A new code agent from a create body; `check_url` is the outbound
    /// policy's shape check; `archive` the uploaded archive, if any.
    pub fn create(
        self,
        org: OrgId,
        id: CodeAgentId,
        archive: Option<ArchiveInfo>,
        check_url: impl Fn(&str) -> Result<(), String>,
    ) -> Result<CodeAgent, Refusal> {
        let agent_id = self
            .agent_id
            .ok_or_else(|| refusal("agentId", "required"))?;
        if self.name.is_none() {
            return Err(refusal("name", "required"));
        }
        if self.repository.is_none() && archive.is_none() {
            return Err(refusal("repository", "required (or an `archive` part)"));
        }
        let now = Utc::now();
        let blank = CodeAgent {
            id,
            org_id: org,
            agent_id,
            name: String::new(),
            description: String::new(),
            repository: Repository {
                kind: RepositoryKind::Git,
                url: None,
                branch: None,
                depth: None,
                token: None,
                archive: None,
            },
            setup_command: None,
            setup_timeout_secs: 600,
            allowed_commands: None,
            max_steps: 50,
            turn_timeout_mins: 60,
            computer: ComputerConfig::default(),
            created_at: now,
            updated_at: now,
        };
        self.apply(blank, archive, check_url)
    }

    /// `agent` with this change applied (a PATCH), or the first field
    /// refused. `agentId` may not change.
    pub fn apply(
        self,
        mut agent: CodeAgent,
        archive: Option<ArchiveInfo>,
        check_url: impl Fn(&str) -> Result<(), String>,
    ) -> Result<CodeAgent, Refusal> {
        if let Some(name) = self.name {
            let name = name.trim().to_owned();
            if name.is_empty() || name.chars().count() > 100 {
                return Err(refusal("name", "1 to 100 characters"));
            }
            agent.name = name;
        }
        if let Some(description) = self.description {
            if description.chars().count() > 4_000 {
                return Err(refusal("description", "at most 4000 characters"));
            }
            agent.description = description;
        }
        if let Some(command) = self.setup_command {
            if command.as_ref().is_some_and(|c| c.len() > 4_096) {
                return Err(refusal("setupCommand", "at most 4 KiB"));
            }
            agent.setup_command = command.filter(|c| !c.trim().is_empty());
        }
        if let Some(secs) = self.setup_timeout_secs {
            within("setupTimeoutSecs", secs, 3_600)?;
            agent.setup_timeout_secs = secs;
        }
        if let Some(commands) = self.allowed_commands {
            if let Some(patterns) = &commands {
                AllowedCommands::parse(patterns)
                    .map_err(|(at, why)| (format!("allowedCommands[{at}]"), why.to_owned()))?;
            }
            agent.allowed_commands = commands;
        }
        if let Some(steps) = self.max_steps {
            within("maxSteps", steps.into(), 200)?;
            agent.max_steps = steps;
        }
        if let Some(mins) = self.turn_timeout_mins {
            within("turnTimeoutMins", mins.into(), 720)?;
            agent.turn_timeout_mins = mins;
        }
        if let Some(computer) = self.computer {
            if computer.enabled.is_some() {
                return Err(refusal(
                    "computer.enabled",
                    "not a code agent's field: its sessions always have a computer",
                ));
            }
            agent.computer = computer
                .apply(agent.computer)
                .map_err(|(field, why)| (format!("computer.{field}"), why))?;
        }
        agent.repository = repository(agent.repository, self.repository, archive, check_url)?;
        agent.updated_at = Utc::now();
        Ok(agent)
    }
}

/// The repository after a change: an archive replaces whatever was
/// there; a `repository` with a URL makes it git. A token survives only
/// while the URL stays the same.
fn repository(
    mut current: Repository,
    change: Option<RepositoryInput>,
    archive: Option<ArchiveInfo>,
    check_url: impl Fn(&str) -> Result<(), String>,
) -> Result<Repository, Refusal> {
    let change = change.unwrap_or_default();
    if let Some(archive) = archive {
        if change.url.is_some() || change.token.is_some() {
            return Err(refusal(
                "repository.url",
                "not with an uploaded archive (send one or the other)",
            ));
        }
        return Ok(Repository {
            kind: RepositoryKind::Archive,
            url: None,
            branch: None,
            depth: None,
            token: None,
            archive: Some(archive),
        });
    }
    if let Some(url) = change.url {
        check_url(&url).map_err(|why| ("repository.url".to_owned(), why))?;
        if current.url.as_deref() != Some(url.as_str()) {
            current.token = None;
        }
        current.kind = RepositoryKind::Git;
        current.url = Some(url);
        current.archive = None;
    } else if current.kind == RepositoryKind::Archive
        && (change.branch.is_some() || change.depth.is_some() || change.token.is_some())
    {
        return Err(refusal(
            "repository.url",
            "required: the code agent's repository is an archive",
        ));
    }
    if let Some(branch) = change.branch {
        if !crate::outbound::git::is_ref_name(&branch) {
            return Err(refusal("repository.branch", "not a branch name"));
        }
        current.branch = Some(branch);
    }
    if let Some(depth) = change.depth {
        within("repository.depth", depth.into(), MAX_DEPTH.into())?;
        current.depth = Some(depth);
    }
    if let Some(token) = change.token {
        if token.is_empty() || token.len() > 4_096 || token.chars().any(char::is_control) {
            return Err(refusal("repository.token", "1 to 4096 printable bytes"));
        }
        current.token = Some(token);
    }
    Ok(current)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The outbound policy's shape check, as far as these tests need.
    fn any_url(url: &str) -> Result<(), String> {
        match url.starts_with("https://") {
            true => Ok(()),
            false => Err("must be an https URL".into()),
        }
    }

    fn input(json: serde_json::Value) -> CodeAgentInput {
        serde_json::from_value(json).unwrap()
    }

    fn created() -> CodeAgent {
        input(serde_json::json!({
            "agentId": AgentId::new(),
            "name": " fixer ",
            "repository": {"url": "https://git.example/r.git", "token": "t0k"},
            "allowedCommands": ["cargo test *"],
        }))
        .create(OrgId::new(), CodeAgentId::new(), None, any_url)
        .unwrap()
    }

    #[test]
    fn a_create_takes_the_defaults_and_trims_the_name() {
        let agent = created();
        assert_eq!(agent.name, "fixer");
        assert_eq!(agent.max_steps, 50);
        assert_eq!(agent.setup_timeout_secs, 600);
        assert_eq!(agent.turn_timeout_mins, 60);
        assert_eq!(agent.repository.token.as_deref(), Some("t0k"));
        assert_eq!(agent.repository.kind, RepositoryKind::Git);
    }

    #[test]
    fn a_new_url_forgets_the_token_and_null_clears_a_nullable() {
        let agent = created();
        let same = input(serde_json::json!({"repository": {"url": "https://git.example/r.git"}}))
            .apply(agent.clone(), None, any_url)
            .unwrap();
        assert_eq!(same.repository.token.as_deref(), Some("t0k"));
        let moved =
            input(serde_json::json!({"repository": {"url": "https://other.example/r.git"}}))
                .apply(agent.clone(), None, any_url)
                .unwrap();
        assert_eq!(moved.repository.token, None);
        let cleared = input(serde_json::json!({"allowedCommands": null}))
            .apply(agent, None, any_url)
            .unwrap();
        assert_eq!(cleared.allowed_commands, None);
    }

    #[test]
    fn each_rule_names_its_field() {
        let refused =
            |json: serde_json::Value| input(json).apply(created(), None, any_url).unwrap_err().0;
        assert_eq!(refused(serde_json::json!({"name": ""})), "name");
        assert_eq!(refused(serde_json::json!({"maxSteps": 201})), "maxSteps");
        assert_eq!(
            refused(serde_json::json!({"turnTimeoutMins": 0})),
            "turnTimeoutMins"
        );
        assert_eq!(
            refused(serde_json::json!({"setupTimeoutSecs": 3601})),
            "setupTimeoutSecs"
        );
        assert_eq!(
            refused(serde_json::json!({"allowedCommands": ["ls", "* x"]})),
            "allowedCommands[1]"
        );
        assert_eq!(
            refused(serde_json::json!({"repository": {"url": "ssh://git@x/r"}})),
            "repository.url"
        );
        assert_eq!(
            refused(serde_json::json!({"repository": {"branch": "-x"}})),
            "repository.branch"
        );
        assert_eq!(
            refused(serde_json::json!({"repository": {"depth": 10001}})),
            "repository.depth"
        );
        assert_eq!(
            refused(serde_json::json!({"computer": {"enabled": true}})),
            "computer.enabled"
        );
        assert_eq!(
            refused(serde_json::json!({"computer": {"maxCommandSecs": 0}})),
            "computer.maxCommandSecs"
        );
    }

    #[test]
    fn an_archive_replaces_a_git_repository_and_its_token() {
        let archive = ArchiveInfo {
            filename: "src.tar".into(),
            bytes: 10,
            sha256: "ab".into(),
            stored_as: "x".into(),
        };
        let agent = CodeAgentInput::default()
            .apply(created(), Some(archive), any_url)
            .unwrap();
        assert_eq!(agent.repository.kind, RepositoryKind::Archive);
        assert_eq!(agent.repository.token, None);
        assert_eq!(agent.repository.url, None);
        let refused = input(serde_json::json!({"repository": {"branch": "main"}}))
            .apply(agent, None, any_url)
            .unwrap_err();
        assert_eq!(refused.0, "repository.url");
    }
}
