//! Tool-step benchmark: Confer's own cost of one server-side tool step,
//! measured by `support::tool_step` (see there) against the real `confer`
//! binary (release under `cargo bench`) on a temporary data directory.
//!
//! Run: `cargo bench --bench tool_steps` (prints a markdown table).

// A benchmark aborts on setup failure: there is nothing to measure then.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

#[path = "support/mod.rs"]
mod support;

use support::tool_step;

#[tokio::main]
async fn main() {
    let data = tempfile::tempdir().unwrap();
    let command = tool_step::server_command(None, data.path());
    let step = tool_step::measure(command, data).await;
    support::print_latencies(&[
        ("turn without a tool step (ms)", &step.plain),
        ("turn with one tool step (ms)", &step.stepped),
    ]);
    println!(
        "\ndirect from here, p50: a vendor call {} ms, a webhook call {} ms",
        support::ms(step.vendor_call),
        support::ms(step.webhook_call)
    );
    println!(
        "Confer's own overhead per tool step (p50 difference less both direct calls): {} ms",
        support::ms(step.overhead)
    );
}
