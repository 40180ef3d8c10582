//! The computer tools (`computer.md` §3): `computer_run` (a fresh
//! `bash -c` in the thread's sandbox) and `computer_edit` (Anthropic's
//! text editor: `view`, `create`, `str_replace`, `insert`). Offered while
//! the agent's computer is enabled and its runtime available; each call
//! takes the thread's instance for itself ([`ComputerService::acquire`]).
//! Every failure is an error result, never a failed stream.

use std::sync::Arc;
use std::time::Duration;

use confer_actors::tools::{COMPUTER_PREFIX, NOT_AVAILABLE, ToolOutput, ToolScope};
use confer_actors::{RuntimeProvider, ToolCall, ToolDefinition};
use serde_json::json;

mod edit;
pub(crate) mod run;

use self::edit::{EditArguments, edit};
use self::run::{RunArguments, run};
use crate::computer::config::ComputerConfig;
use crate::computer::runtime::Reply;
use crate::computer::service::ComputerService;
use crate::store::Store;

/// `computer_run`'s name.
pub const COMPUTER_RUN: &str = "computer_run";
/// `computer_edit`'s name.
pub const COMPUTER_EDIT: &str = "computer_edit";
/// The longest command `computer_run` takes.
const MAX_COMMAND_BYTES: usize = 16 * 1024;
/// The turn's deadline of a computer call: the longest command (an hour),
/// a start (60 s) and the drain.
pub const DEADLINE: Duration = Duration::from_secs(3_600 + 60 + 30);

/// Whether `name` is a computer tool's.
pub fn is_computer_tool(name: &str) -> bool {
    name.starts_with(COMPUTER_PREFIX)
}

/// The computer tools.
#[derive(Clone)]
pub struct ComputerTools {
    store: Store,
    service: Arc<ComputerService>,
}

/// The tools' definitions for an agent configured as `config`.
pub fn offer(config: &ComputerConfig, workspace: &str) -> Vec<ToolDefinition> {
    let network = match config.network.mode {
        crate::computer::config::NetworkMode::None => "no network".to_owned(),
        crate::computer::config::NetworkMode::Allowlist => {
            format!("network only to {}", config.network.allow.join(", "))
        }
    };
    let run = format!(
        "Run a shell command in your sandbox (a Linux computer of your own; workspace {workspace}, \
         {network}). Each call is a fresh `bash -c` in the workspace: state lives in files, not \
         in shell variables. Commands run at most {} s (timeout, default {} s); output over {} \
         bytes is cut in the middle.",
        config.max_command_secs,
        config.max_command_secs.min(60),
        config.output_limit_bytes
    );
    vec![
        ToolDefinition {
            name: COMPUTER_RUN.into(),
            description: Some(run),
            parameters: json!({
                "type": "object",
                "properties": {
                    "command": {"type": "string", "description": "The command line, run by bash -c"},
                    "timeout": {"type": "integer", "minimum": 1, "maximum": config.max_command_secs, "description": "Seconds before the command is killed"},
                    "cwd": {"type": "string", "description": "The working directory (relative: in the workspace)"}
                },
                "required": ["command"]
            }),
        },
        ToolDefinition {
            name: COMPUTER_EDIT.into(),
            description: Some(format!(
                "View, create and edit text files in your sandbox (workspace {workspace}; relative \
                 paths start there). view: a file with line numbers, or a directory two levels \
                 deep; create: writes file_text (overwrites); str_replace: replaces old_str, which \
                 must occur exactly once, by new_str; insert: insert_text after line insert_line \
                 (0 = the start). Files over 1 MiB or not UTF-8 are refused."
            )),
            parameters: json!({
                "type": "object",
                "properties": {
                    "command": {"type": "string", "enum": ["view", "create", "str_replace", "insert"]},
                    "path": {"type": "string"},
                    "view_range": {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2},
                    "file_text": {"type": "string"},
                    "old_str": {"type": "string"},
                    "new_str": {"type": "string"},
                    "insert_line": {"type": "integer", "minimum": 0},
                    "insert_text": {"type": "string"}
                },
                "required": ["command", "path"]
            }),
        },
    ]
}

pub(super) fn ok(result: serde_json::Value) -> ToolOutput {
    ToolOutput {
        result,
        is_error: false,
    }
}

/// A reply that is not the one expected: the helper's error, or a
/// sandbox that went away.
pub(super) fn unexpected(reply: Reply) -> ToolOutput {
    match reply {
        Reply::Error { message } => ToolOutput::error(message),
        _ => ToolOutput::error("computer unavailable: the sandbox answered out of turn"),
    }
}

impl ComputerTools {
    pub fn new(store: Store, service: Arc<ComputerService>) -> Self {
        Self { store, service }
    }

    /// The lifecycle (for the routes).
    pub fn service(&self) -> &Arc<ComputerService> {
        &self.service
    }

    /// The definitions to offer for an agent configured as `config` whose
    /// runtime provider is `provider`: none unless enabled and available.
    pub async fn offered(
        &self,
        config: &ComputerConfig,
        provider: RuntimeProvider,
    ) -> Vec<ToolDefinition> {
        if !config.enabled {
            return Vec::new();
        }
        let availability = self.service.availability(provider).await;
        match (availability.available(), availability.runtime) {
            (true, Some(runtime)) => offer(config, runtime.workspace()),
            _ => Vec::new(),
        }
    }

    /// Runs a `computer_run` or `computer_edit` call.
    pub async fn execute(&self, scope: ToolScope, call: ToolCall) -> ToolOutput {
        let (org, agent, thread) = (scope.org, scope.agent, scope.thread);
        let read = self
            .store
            .run(move |s| {
                // A code session's thread has its code agent's computer.
                let (config, allowed) = match crate::code::prompt::thread_computer(s, org, thread)?
                {
                    Some((config, allowed)) => (config, allowed),
                    None => (s.computer_config(org, agent)?, None),
                };
                let provider = crate::store::SledStore::agent(s, org, agent)?
                    .map(|a| a.runtime_provider)
                    .unwrap_or_default();
                Ok::<_, confer_actors::StoreError>((config, allowed, provider))
            })
            .await;
        let Ok((config, allowed, provider)) = read else {
            return ToolOutput::error("computer unavailable: the store failed");
        };
        if !config.enabled {
            return ToolOutput::error(NOT_AVAILABLE);
        }
        let call_meta = (call.name.clone(), call.id.clone());
        // Arguments are checked before a sandbox is started for them.
        let call = match call.name.as_str() {
            COMPUTER_RUN => match serde_json::from_value::<RunArguments>(call.arguments) {
                Ok(arguments) if arguments.command.len() > MAX_COMMAND_BYTES => {
                    return ToolOutput::error("arguments: command is over 16 KiB");
                }
                Ok(arguments) => Call::Run(arguments),
                Err(_) => return ToolOutput::error("arguments: command (a string) is required"),
            },
            COMPUTER_EDIT => match serde_json::from_value::<EditArguments>(call.arguments) {
                Ok(arguments) => Call::Edit(Box::new(arguments)),
                Err(error) => return ToolOutput::error(format!("arguments: {error}")),
            },
            _ => return ToolOutput::error(NOT_AVAILABLE),
        };
        if let (Call::Run(arguments), Some(allowed)) = (&call, &allowed)
            && let Err(reason) = allowed.check(&arguments.command)
        {
            return ToolOutput::error(format!("command not allowed: {reason}"));
        }
        let lease = match self
            .service
            .acquire(org, agent, scope.thread, provider, &config)
            .await
        {
            Ok(lease) => lease,
            Err(reason) => return ToolOutput::error(reason),
        };
        let output = match &call {
            Call::Run(arguments) => run(&lease, &config, arguments, &scope, &call_meta).await,
            Call::Edit(arguments) => edit(&lease, arguments).await,
        };
        self.service
            .finish(lease, matches!(call, Call::Run(_)))
            .await;
        output
    }
}

enum Call {
    Run(RunArguments),
    Edit(Box<EditArguments>),
}
