//! Local sandbox benchmark (`computer.md` acceptance 9): how long a
//! bubblewrap sandbox takes to start (a new instance, empty workspace) and
//! to resume (a stopped instance, its workspace kept), each until its
//! helper answers, and how many commands (`true`, each a fresh `bash -c`
//! in its own process group) run per second on 1 and on 4 instances at
//! once. It drives `confer::computer::local` directly, with the `confer`
//! binary Cargo built as the in-sandbox helper.
//!
//! Run: `cargo bench --bench sandbox` (prints markdown tables).

// A benchmark aborts on setup failure: there is nothing to measure then.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

#[path = "support/mod.rs"]
mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use confer::computer::config::SizeClass;
use confer::computer::instances::InstanceId;
use confer::computer::local::{LocalRuntime, LocalSettings};
use confer::computer::runtime::{ExecSpec, Reply, RunningSandbox, SandboxRuntime, StartSpec};

const STARTS: usize = 100;
const COMMANDS: usize = 200;

fn runtime(dir: &std::path::Path) -> LocalRuntime {
    let root = std::process::Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.trim_ascii() == b"0");
    LocalRuntime::new(LocalSettings {
        bwrap: "/usr/bin/bwrap".into(),
        dir: dir.to_path_buf(),
        run_as: root.then_some(65532),
        binary: env!("CARGO_BIN_EXE_confer").into(),
        policy: std::sync::Arc::new(confer::outbound::OutboundPolicy::new("", None).unwrap()),
    })
}

fn spec(instance: InstanceId) -> StartSpec {
    StartSpec {
        instance,
        size: SizeClass::Small,
        ttl_secs: 600,
        network: Default::default(),
    }
}

async fn command(sandbox: &dyn RunningSandbox) {
    let reply = sandbox
        .exec(ExecSpec {
            command: "true".into(),
            cwd: None,
            timeout: Duration::from_secs(10),
            env: vec![("PATH".into(), "/usr/bin:/bin".into())],
            limits: SizeClass::Small.rlimits(),
            keep: 1024,
            output: None,
        })
        .await;
    assert!(
        matches!(
            reply,
            Reply::Exec {
                exit_code: Some(0),
                ..
            }
        ),
        "{reply:?}"
    );
}

/// Commands per second on `instances` sandboxes at once.
async fn commands_per_second(runtime: &Arc<LocalRuntime>, instances: usize) -> f64 {
    let mut sandboxes = Vec::new();
    for _ in 0..instances {
        let sandbox = runtime.start(spec(InstanceId::new())).await.unwrap();
        command(sandbox.as_ref()).await; // warm
        sandboxes.push(sandbox);
    }
    let started = Instant::now();
    let runs = sandboxes.iter().map(|sandbox| async move {
        for _ in 0..COMMANDS {
            command(sandbox.as_ref()).await;
        }
    });
    futures_util::future::join_all(runs).await;
    (instances * COMMANDS) as f64 / started.elapsed().as_secs_f64()
}

#[tokio::main]
async fn main() {
    let dir = tempfile::tempdir().unwrap();
    let runtime = Arc::new(runtime(dir.path()));
    if let Err(reason) = runtime.probe().await {
        panic!("the local sandbox does not start here: {reason}");
    }
    let mut starts = Vec::with_capacity(STARTS);
    for _ in 0..STARTS {
        let instance = InstanceId::new();
        let began = Instant::now();
        let sandbox = runtime.start(spec(instance)).await.unwrap();
        starts.push(began.elapsed());
        runtime.stop(sandbox).await;
        runtime.destroy(instance).await.unwrap();
    }
    let instance = InstanceId::new();
    let sandbox = runtime.start(spec(instance)).await.unwrap();
    runtime.stop(sandbox).await;
    let mut resumes = Vec::with_capacity(STARTS);
    for _ in 0..STARTS {
        let began = Instant::now();
        let sandbox = runtime.resume(spec(instance)).await.unwrap();
        resumes.push(began.elapsed());
        runtime.stop(sandbox).await;
    }
    starts.sort();
    resumes.sort();
    support::print_latencies(&[
        (
            "local sandbox start, until its helper answers (ms)",
            &starts,
        ),
        ("local sandbox resume (ms)", &resumes),
    ]);
    let one = commands_per_second(&runtime, 1).await;
    let four = commands_per_second(&runtime, 4).await;
    println!("\n| instances | commands/s (`true`, each a fresh bash -c) |");
    println!("|---|---|");
    println!("| 1 | {one:.0} |");
    println!("| 4 | {four:.0} |");
}
