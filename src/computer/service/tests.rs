//! The lifecycle's bounds: at most eight operations wait for an instance
//! (a ninth is `computer busy`, and one that stops waiting gives its place
//! back), and, on a runtime of stand-in sandboxes, the host's running cap
//! refuses a start past it.

#![allow(clippy::unwrap_used)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use confer_actors::{AgentId, OrgId, RuntimeProvider, ThreadId};

use super::{ComputerService, ComputerSettings, Fallback, MAX_WAITING, Slot, Waiting};
use crate::computer::config::ComputerConfig;
use crate::computer::instances::InstanceId;
use crate::computer::runtime::{
    ExecSpec, Reply, RunningSandbox, RuntimeFuture, RuntimeKind, SandboxRuntime, StartSpec,
};
use crate::store::Store;

struct Idle;

impl RunningSandbox for Idle {
    fn exec(&self, _: ExecSpec) -> RuntimeFuture<'_, Reply> {
        Box::pin(async { Reply::Done })
    }
    fn read_file(&self, _: String) -> RuntimeFuture<'_, Reply> {
        Box::pin(async { Reply::Done })
    }
    fn write_file(&self, _: String, _: String) -> RuntimeFuture<'_, Reply> {
        Box::pin(async { Reply::Done })
    }
    fn append_file(&self, _: String, _: Vec<u8>, _: bool) -> RuntimeFuture<'_, Reply> {
        Box::pin(async { Reply::Done })
    }
    fn is_alive(&self) -> bool {
        true
    }
}

struct Fake;

impl SandboxRuntime for Fake {
    fn kind(&self) -> RuntimeKind {
        RuntimeKind::Local
    }
    fn probe(&self) -> RuntimeFuture<'_, Result<(), String>> {
        Box::pin(async { Ok(()) })
    }
    fn start(&self, _: StartSpec) -> RuntimeFuture<'_, Result<Box<dyn RunningSandbox>, String>> {
        Box::pin(async { Ok(Box::new(Idle) as Box<dyn RunningSandbox>) })
    }
    fn resume(&self, _: StartSpec) -> RuntimeFuture<'_, Result<Box<dyn RunningSandbox>, String>> {
        Box::pin(async { Ok(Box::new(Idle) as Box<dyn RunningSandbox>) })
    }
    fn stop(&self, _: Box<dyn RunningSandbox>) -> RuntimeFuture<'_, ()> {
        Box::pin(async {})
    }
    fn destroy(&self, _: InstanceId) -> RuntimeFuture<'_, Result<(), String>> {
        Box::pin(async { Ok(()) })
    }
}

fn service(dir: &std::path::Path, max_running: usize) -> Arc<ComputerService> {
    ComputerService::new(
        Store::open(dir).unwrap(),
        super::Runtimes {
            local: Some(Arc::new(Fake)),
            e2b: None,
            daytona: None,
        },
        ComputerSettings {
            fallback: Fallback::Local,
            e2b_key: false,
            daytona_key: false,
            max_running_per_org: 4,
            max_instances_per_org: 50,
            max_running,
            retention: chrono::Duration::hours(1),
        },
    )
}

fn config() -> ComputerConfig {
    ComputerConfig {
        enabled: true,
        ..ComputerConfig::default()
    }
}

#[test]
fn at_most_eight_operations_wait_for_an_instance() {
    let slot = Slot {
        kind: RuntimeKind::Local,
        org: OrgId::new(),
        sandbox: Arc::default(),
        waiting: AtomicUsize::new(0),
        last_active: Mutex::new(Instant::now()),
        idle_timeout: Mutex::new(Duration::from_secs(600)),
    };
    let mut waiting: Vec<_> = (0..MAX_WAITING)
        .map(|_| Waiting::enter(&slot).unwrap())
        .collect();
    assert!(
        Waiting::enter(&slot).is_none(),
        "a ninth is `computer busy`"
    );
    // One stops waiting (its turn was stopped): its place is free again.
    waiting.pop();
    let again = Waiting::enter(&slot);
    assert!(again.is_some());
    drop(waiting);
    drop(again);
    assert_eq!(slot.waiting.load(Ordering::Acquire), 0);
}

#[tokio::test]
async fn the_hosts_running_cap_refuses_a_start_past_it() {
    let dir = tempfile::tempdir().unwrap();
    let service = service(dir.path(), 1);
    let (org, agent) = (OrgId::new(), AgentId::new());
    let first = service
        .acquire(org, agent, ThreadId::new(), RuntimeProvider::E2b, &config())
        .await
        .unwrap();
    let refused = service
        .acquire(org, agent, ThreadId::new(), RuntimeProvider::E2b, &config())
        .await
        .err()
        .unwrap();
    assert_eq!(refused, "computer unavailable: 1 instances busy");
    service.finish(first, true).await;
}
