//! Delegation benchmark (issue 38): what one delegate call adds to a turn
//! (the child thread's creation, its turn on `builtin/echo` started and
//! run, the result back to the parent), measured by
//! `support::tool_step` with [`Step::Delegate`] against the real `confer`
//! binary (release under `cargo bench`) on a temporary data directory.
//!
//! Run: `cargo bench --bench delegation` (prints a markdown table).

// A benchmark aborts on setup failure: there is nothing to measure then.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

#[path = "support/mod.rs"]
mod support;

use support::tool_step::{self, Step};

#[tokio::main]
async fn main() {
    let data = tempfile::tempdir().unwrap();
    let command = tool_step::server_command(None, data.path());
    let step = tool_step::measure_step(command, data, Step::Delegate).await;
    support::print_latencies(&[
        ("turn without a delegate call (ms)", &step.plain),
        ("turn with one delegate call (ms)", &step.stepped),
    ]);
    println!(
        "\ndirect from here, p50: a vendor call {} ms",
        support::ms(step.vendor_call)
    );
    println!(
        "Confer's own overhead per delegate call (p50 difference less the direct vendor call): {} ms",
        support::ms(step.overhead)
    );
}
