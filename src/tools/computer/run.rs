//! `computer_run`: the command's spec, its output cut for the model, its
//! error result, and its output streamed as `tool_output` while it runs.
//! A code session's setup command runs through the same two halves
//! ([`exec_streaming`], [`command_output`]).

use std::time::Duration;

use confer_actors::tools::{ToolOutput, ToolScope};
use confer_actors::{Emitter, ThreadEvent, ToolOutputEvent};
use serde::Deserialize;
use serde_json::json;

use super::unexpected;
use crate::computer::config::ComputerConfig;
use crate::computer::output::for_model;
use crate::computer::runtime::{ExecSpec, Reply, RunningSandbox, RuntimeKind};
use crate::computer::service::Lease;

#[derive(Deserialize)]
pub(super) struct RunArguments {
    pub command: String,
    timeout: Option<u64>,
    cwd: Option<String>,
}

/// The most of one call's output streamed as `tool_output` (`computer.md`
/// §3); past it, one last event says `truncated`.
const MAX_STREAMED: usize = 64 * 1024;

/// Streams a command's output as `tool_output` events until the command
/// ends (its sender is dropped with its reply).
async fn forward_output(
    mut receiver: tokio::sync::mpsc::Receiver<(String, String)>,
    emitter: &Emitter,
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
        emitter.emit(ThreadEvent::ToolOutput(Box::new(ToolOutputEvent {
            tool_name: name.clone(),
            tool_call_id: id.clone(),
            stream,
            delta,
            truncated,
        })));
    }
}

pub(super) async fn run(
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
    let mut spec = ExecSpec::in_workspace(
        arguments.command.clone(),
        &lease.instance.workspace_path,
        config,
        lease.instance.size_class.rlimits(),
        Duration::from_secs(timeout),
    );
    spec.cwd = arguments.cwd.clone();
    let streamed = scope
        .stream_tool_output
        .then_some((&scope.place.emitter, call));
    let reply = exec_streaming(sandbox, spec, streamed).await;
    command_output(
        reply,
        timeout,
        config.output_limit_bytes,
        lease.instance.runtime,
    )
}

/// Runs `spec`, its output streamed as `tool_output` of the call
/// `(name, id)` through the emitter when one is given.
pub(crate) async fn exec_streaming(
    sandbox: &dyn RunningSandbox,
    mut spec: ExecSpec,
    streamed: Option<(&Emitter, &(String, String))>,
) -> Reply {
    let Some((emitter, call)) = streamed else {
        return sandbox.exec(spec).await;
    };
    let (sender, receiver) = tokio::sync::mpsc::channel(64);
    spec.output = Some(sender);
    tokio::join!(sandbox.exec(spec), forward_output(receiver, emitter, call)).0
}

/// A command's reply as `computer_run`'s result: its output cut to
/// `output_limit` for the model, and an error when it did not end well
/// (counted in the sandbox metrics by outcome).
pub(crate) fn command_output(
    reply: Reply,
    timeout: u64,
    output_limit: usize,
    runtime: RuntimeKind,
) -> ToolOutput {
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
    let (stdout, stderr, truncated) = for_model(&stdout, &stderr, output_limit);
    let outcome = if timed_out {
        "timeout"
    } else if process_limit {
        "process_limit"
    } else if signal.is_some() {
        "signal"
    } else if exit_code.is_some_and(|code| code != 0) {
        "exit"
    } else {
        "ok"
    };
    crate::computer::metrics::command(runtime, outcome);
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
