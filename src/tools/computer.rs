//! The computer tools (`computer.md` §3): `computer_run` (a fresh
//! `bash -c` in the thread's sandbox) and `computer_edit` (Anthropic's
//! text editor: `view`, `create`, `str_replace`, `insert`). Offered while
//! the agent's computer is enabled and its runtime available; each call
//! takes the thread's instance for itself ([`ComputerService::acquire`]).
//! Every failure is an error result, never a failed stream.

use std::sync::Arc;
use std::time::Duration;

use confer_actors::tools::{COMPUTER_PREFIX, NOT_AVAILABLE, ToolOutput, ToolScope};
use confer_actors::{RuntimeProvider, ThreadEvent, ToolCall, ToolDefinition, ToolOutputEvent};
use serde::Deserialize;
use serde_json::json;

use crate::computer::config::ComputerConfig;
use crate::computer::editor;
use crate::computer::output::for_model;
use crate::computer::runtime::{ExecSpec, Reply};
use crate::computer::service::{ComputerService, Lease};
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

#[derive(Deserialize)]
struct RunArguments {
    command: String,
    timeout: Option<u64>,
    cwd: Option<String>,
}

#[derive(Deserialize)]
struct EditArguments {
    command: String,
    path: String,
    view_range: Option<(i64, i64)>,
    file_text: Option<String>,
    old_str: Option<String>,
    new_str: Option<String>,
    insert_line: Option<usize>,
    insert_text: Option<String>,
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

fn ok(result: serde_json::Value) -> ToolOutput {
    ToolOutput {
        result,
        is_error: false,
    }
}

/// A reply that is not the one expected: the helper's error, or a
/// sandbox that went away.
fn unexpected(reply: Reply) -> ToolOutput {
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
        let (org, agent) = (scope.org, scope.agent);
        let read = self
            .store
            .run(move |s| {
                let config = s.computer_config(org, agent)?;
                let provider = confer_actors::ThreadStore::agent(s, org, agent)?
                    .map(|a| a.runtime_provider)
                    .unwrap_or_default();
                Ok::<_, confer_actors::StoreError>((config, provider))
            })
            .await;
        let Ok((config, provider)) = read else {
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

/// The most of one call's output streamed as `tool_output` (`computer.md`
/// §3); past it, one last event says `truncated`.
const MAX_STREAMED: usize = 64 * 1024;

/// Streams a command's output as `tool_output` events until the command
/// ends (its sender is dropped with its reply).
async fn forward_output(
    mut receiver: tokio::sync::mpsc::Receiver<(String, String)>,
    scope: &ToolScope,
    (name, id): &(String, String),
) {
    let mut sent = 0;
    while let Some((stream, mut delta)) = receiver.recv().await {
        if sent >= MAX_STREAMED {
            continue;
        }
        let mut truncated = None;
        if sent + delta.len() > MAX_STREAMED {
            let mut end = MAX_STREAMED - sent;
            while !delta.is_char_boundary(end) {
                end -= 1;
            }
            delta.truncate(end);
            truncated = Some(true);
            sent = MAX_STREAMED;
        } else {
            sent += delta.len();
        }
        let stream = if stream == "stderr" {
            "stderr"
        } else {
            "stdout"
        };
        scope
            .place
            .emitter
            .emit(ThreadEvent::ToolOutput(Box::new(ToolOutputEvent {
                tool_name: name.clone(),
                tool_call_id: id.clone(),
                stream,
                delta,
                truncated,
            })));
    }
}

async fn run(
    lease: &Lease,
    config: &ComputerConfig,
    arguments: &RunArguments,
    scope: &ToolScope,
    call: &(String, String),
) -> ToolOutput {
    let Some(sandbox) = lease.sandbox() else {
        return ToolOutput::error("computer unavailable: the sandbox stopped");
    };
    let timeout = arguments
        .timeout
        .unwrap_or(config.max_command_secs.min(60))
        .clamp(1, config.max_command_secs);
    let workspace = lease.instance.workspace_path.clone();
    let mut env = vec![
        ("PATH".to_owned(), "/usr/local/bin:/usr/bin:/bin".to_owned()),
        ("HOME".to_owned(), workspace),
        ("LANG".to_owned(), "C.UTF-8".to_owned()),
    ];
    env.extend(config.env.iter().map(|(k, v)| (k.clone(), v.clone())));
    let (output, receiver) = match scope.stream_tool_output {
        true => {
            let (sender, receiver) = tokio::sync::mpsc::channel(64);
            (Some(sender), Some(receiver))
        }
        false => (None, None),
    };
    let exec = sandbox.exec(ExecSpec {
        command: arguments.command.clone(),
        cwd: arguments.cwd.clone(),
        timeout: Duration::from_secs(timeout),
        env,
        limits: lease.instance.size_class.rlimits(),
        keep: config.output_limit_bytes,
        output,
    });
    let reply = match receiver {
        Some(receiver) => tokio::join!(exec, forward_output(receiver, scope, call)).0,
        None => exec.await,
    };
    let Reply::Exec {
        exit_code,
        signal,
        timed_out,
        process_limit,
        stdout,
        stderr,
        duration_ms,
    } = reply
    else {
        return unexpected(reply);
    };
    let (stdout, stderr, truncated) = for_model(&stdout, &stderr, config.output_limit_bytes);
    let error = if timed_out {
        Some(format!("timeout after {timeout} s"))
    } else if process_limit {
        Some("process limit reached".to_owned())
    } else if let Some(signal) = signal {
        Some(format!("killed by signal {signal}"))
    } else {
        exit_code
            .filter(|code| *code != 0)
            .map(|code| format!("exit status {code}"))
    };
    let mut result = json!({
        "exit_code": exit_code,
        "stdout": stdout,
        "stderr": stderr,
        "truncated": truncated,
        "duration_ms": duration_ms,
    });
    let is_error = error.is_some();
    if let Some(error) = error {
        result["error"] = json!(error);
    }
    ToolOutput { result, is_error }
}

async fn edit(lease: &Lease, arguments: &EditArguments) -> ToolOutput {
    let Some(sandbox) = lease.sandbox() else {
        return ToolOutput::error("computer unavailable: the sandbox stopped");
    };
    let path = arguments.path.clone();
    let read = || sandbox.read_file(path.clone());
    let text = |reply: Reply| match reply {
        Reply::File { content } => Ok(content),
        Reply::Dir { .. } => Err(ToolOutput::error(format!("{path} is a directory"))),
        other => Err(unexpected(other)),
    };
    let missing = |field: &str| ToolOutput::error(format!("arguments: {field} is required"));
    let change = match arguments.command.as_str() {
        "view" => {
            return match read().await {
                Reply::Dir { entries, truncated } => ok(json!({
                    "path": path,
                    "entries": entries,
                    "truncated": truncated,
                })),
                reply => match text(reply) {
                    Ok(content) => match editor::view(&content, arguments.view_range) {
                        Ok(shown) => ok(json!(shown)),
                        Err(reason) => ToolOutput::error(reason),
                    },
                    Err(output) => output,
                },
            };
        }
        "create" => {
            let Some(content) = arguments.file_text.clone() else {
                return missing("file_text");
            };
            let lines = content.lines().count();
            return match sandbox.write_file(path.clone(), content).await {
                Reply::Done => ok(json!(format!("created {path} ({lines} lines)"))),
                other => unexpected(other),
            };
        }
        "str_replace" => {
            let Some(old) = arguments.old_str.as_deref() else {
                return missing("old_str");
            };
            let new = arguments.new_str.as_deref().unwrap_or("");
            match text(read().await) {
                Ok(content) => editor::str_replace(&content, &path, old, new),
                Err(output) => return output,
            }
        }
        "insert" => {
            let (Some(line), Some(inserted)) =
                (arguments.insert_line, arguments.insert_text.as_deref())
            else {
                return missing("insert_line and insert_text");
            };
            match text(read().await) {
                Ok(content) => editor::insert(&content, line, inserted),
                Err(output) => return output,
            }
        }
        other => {
            return ToolOutput::error(format!(
                "arguments: command {other:?} is not view, create, str_replace or insert"
            ));
        }
    };
    let (content, shown) = match change {
        Ok(changed) => changed,
        Err(reason) => return ToolOutput::error(reason),
    };
    match sandbox.write_file(path.clone(), content).await {
        Reply::Done => ok(json!(format!("edited {path}:\n{shown}"))),
        other => unexpected(other),
    }
}
