//! The sandboxes' metrics (`computer.md` §7): instances by runtime and
//! state (a gauge set at each scrape from the store), how long starting
//! or resuming a sandbox took, and the agents' commands by outcome.

use std::time::Duration;

use super::instances::{Instance, InstanceState};
use super::runtime::RuntimeKind;

/// Instances now, by runtime and state.
pub const INSTANCES: &str = "confer_sandbox_instances";
/// Sandbox starts (`kind`: start, resume), in seconds.
pub const START_SECONDS: &str = "confer_sandbox_start_seconds";
/// `computer_run` commands, by outcome (ok, exit, timeout, signal,
/// process_limit, error).
pub const COMMANDS: &str = "confer_sandbox_commands_total";

const RUNTIMES: [RuntimeKind; 3] = [RuntimeKind::Local, RuntimeKind::E2b, RuntimeKind::Daytona];
const STATES: [InstanceState; 5] = [
    InstanceState::Starting,
    InstanceState::Running,
    InstanceState::Stopping,
    InstanceState::Stopped,
    InstanceState::Failed,
];

fn runtime_label(runtime: RuntimeKind) -> &'static str {
    runtime.name()
}

fn state_label(state: InstanceState) -> &'static str {
    match state {
        InstanceState::Starting => "starting",
        InstanceState::Running => "running",
        InstanceState::Stopping => "stopping",
        InstanceState::Stopped => "stopped",
        InstanceState::Failed => "failed",
    }
}

/// The families' help texts.
pub fn describe() {
    metrics::describe_gauge!(INSTANCES, "Sandbox instances by runtime and state");
    metrics::describe_histogram!(START_SECONDS, "Sandbox starts and resumes, in seconds");
    metrics::describe_counter!(COMMANDS, "Agents' sandbox commands by runtime and outcome");
}

/// Sets the instance gauge from every stored instance (each runtime and
/// state, zero included, so a count that fell to nothing shows it).
pub fn set_instances(instances: &[Instance]) {
    for runtime in RUNTIMES {
        for state in STATES {
            let count = instances
                .iter()
                .filter(|i| i.runtime == runtime && i.state == state)
                .count();
            metrics::gauge!(INSTANCES, "runtime" => runtime_label(runtime), "state" => state_label(state))
                .set(count as f64);
        }
    }
}

/// A sandbox started (`resumed`: from its kept workspace).
pub fn started(runtime: RuntimeKind, resumed: bool, took: Duration) {
    let kind = if resumed { "resume" } else { "start" };
    metrics::histogram!(START_SECONDS, "runtime" => runtime_label(runtime), "kind" => kind)
        .record(took.as_secs_f64());
}

/// A `computer_run` command ended with `outcome`.
pub fn command(runtime: RuntimeKind, outcome: &'static str) {
    metrics::counter!(COMMANDS, "runtime" => runtime_label(runtime), "outcome" => outcome)
        .increment(1);
}
