//! The trace store: listing, paging, removal, retention, backups.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use confer_actors::trace::{Stamp, TraceRecorder, TraceStart};
use confer_actors::{AgentId, Metadata, RunningTraces, ThreadAppend, TraceStatus};

use super::*;
use crate::store::{reopen_for_test, test_thread};

/// Stores `record` as the trace of an answer-less write to `thread`.
fn store_trace_of(store: &SledStore, thread: ThreadId, record: TraceRecord) {
    let write = ThreadAppend {
        trace: Some(Box::new(record)),
        ..ThreadAppend::default()
    };
    store.append(thread, write).unwrap();
}

pub(super) fn finished(org: OrgId, agent: AgentId, thread: ThreadId, user: &str) -> TraceRecord {
    let running = Arc::new(RunningTraces::default());
    let mut recorder = TraceRecorder::start(
        TraceStart {
            org,
            agent,
            thread,
            user_id: user.into(),
            model: "gpt-4.1".into(),
            turn: 1,
            if_busy: None,
            otel_trace_id: None,
            started: Stamp::now(),
            payloads: false,
            run: None,
            link: None,
        },
        &running,
    );
    recorder.finish(TraceStatus::Ok, None, "gpt-4.1".into(), Metadata::new())
}

#[test]
fn traces_are_indexed_paged_and_removed_while_aggregates_stay() {
    let dir = tempfile::tempdir().unwrap();
    let store = reopen_for_test(dir.path());
    let (org, agent) = (OrgId::new(), AgentId::new());
    let thread = test_thread(org, agent, "alice");
    let mut ids = Vec::new();
    for user in ["alice", "bob", "alice"] {
        let record = finished(org, agent, thread.id, user);
        ids.push(record.trace.id);
        store_trace_of(&store, thread.id, record);
    }
    let all = store
        .traces(&TraceScope::Org(org), &TraceQuery::newest(10))
        .unwrap();
    let listed: Vec<TraceId> = all.traces.iter().map(|t| t.id).collect();
    assert_eq!(listed, [ids[2], ids[1], ids[0]], "newest first");
    assert!(all.next.is_none());
    // The store span was ended and sized by the write.
    let stored = store.trace(ids[0]).unwrap().unwrap();
    assert!(stored.trace.ended_at.is_some());
    // One at a time, each once.
    let mut seen = Vec::new();
    let mut q = TraceQuery::newest(1);
    loop {
        let page = store.traces(&TraceScope::Org(org), &q).unwrap();
        seen.extend(page.traces.iter().map(|t| t.id));
        match page.next {
            Some(next) => q.before = Some(next),
            None => break,
        }
    }
    assert_eq!(seen, listed);
    let alice = store
        .traces(
            &TraceScope::User(org, "alice".into()),
            &TraceQuery::newest(10),
        )
        .unwrap();
    assert_eq!(alice.traces.len(), 2);
    let other_org = store
        .traces(&TraceScope::Org(OrgId::new()), &TraceQuery::newest(10))
        .unwrap();
    assert!(other_org.traces.is_empty());
    let today = keys::day_number(Utc::now());
    // The day aggregates wait for the flush that acknowledges the turns.
    assert!(store.trace_days(org, today, today).unwrap().is_empty());
    store.flush_now().unwrap();
    let days = store.trace_days(org, today, today).unwrap();
    assert_eq!(days.len(), 1);
    assert_eq!(days[0].3.turns, 3);
    assert_eq!(days[0].3.users.count(), 2);
    // A deleted thread's traces are erased, in batches; the aggregates
    // stay.
    let created = thread.created_at;
    assert_eq!(
        store.remove_thread_traces(thread.id, created, 2).unwrap(),
        2
    );
    assert_eq!(
        store.remove_thread_traces(thread.id, created, 2).unwrap(),
        1
    );
    assert_eq!(
        store.remove_thread_traces(thread.id, created, 2).unwrap(),
        0
    );
    for scope in [
        TraceScope::Org(org),
        TraceScope::Agent(org, agent),
        TraceScope::User(org, "alice".into()),
        TraceScope::Thread(thread.id),
    ] {
        assert!(
            store
                .traces(&scope, &TraceQuery::newest(10))
                .unwrap()
                .traces
                .is_empty()
        );
    }
    assert!(store.trace(ids[0]).unwrap().is_none());
    assert_eq!(store.trace_days(org, today, today).unwrap()[0].3.turns, 3);
}

#[test]
fn a_backup_holds_the_aggregates_of_the_traces_it_holds() {
    let dir = tempfile::tempdir().unwrap();
    let store = reopen_for_test(dir.path());
    let (org, agent) = (OrgId::new(), AgentId::new());
    let thread = test_thread(org, agent, "alice");
    store_trace_of(&store, thread.id, finished(org, agent, thread.id, "alice"));
    let today = keys::day_number(Utc::now());
    assert!(store.trace_days(org, today, today).unwrap().is_empty());
    store.write_backup(Vec::new(), false).unwrap();
    assert_eq!(store.trace_days(org, today, today).unwrap()[0].3.turns, 1);
}

#[test]
fn a_listing_reads_at_most_its_budget_and_ends_with_a_cursor() {
    let dir = tempfile::tempdir().unwrap();
    let store = reopen_for_test(dir.path());
    let (org, agent) = (OrgId::new(), AgentId::new());
    let thread = test_thread(org, agent, "alice");
    for _ in 0..SCAN_BUDGET + 5 {
        store_trace_of(&store, thread.id, finished(org, agent, thread.id, "alice"));
    }
    // The status is in the index: it filters without reading a trace.
    let mut errors = TraceQuery::newest(10);
    errors.status = Some(TraceStatus::Error);
    let page = store.traces(&TraceScope::Org(org), &errors).unwrap();
    assert!(page.traces.is_empty() && page.next.is_none());
    // `q` is read from each trace: no model matches, so the budget runs
    // out with an empty page and a cursor.
    let mut q = TraceQuery::newest(10);
    q.q = Some("no such model".into());
    let page = store.traces(&TraceScope::Org(org), &q).unwrap();
    assert!(page.traces.is_empty());
    let next = page.next.expect("a cursor where the budget ran out");
    q.before = Some(next);
    let rest = store.traces(&TraceScope::Org(org), &q).unwrap();
    assert!(rest.traces.is_empty());
    assert!(rest.next.is_none(), "the last 5 fit in the next budget");
}

#[test]
fn retention_removes_whole_past_days_and_keeps_the_aggregates() {
    let dir = tempfile::tempdir().unwrap();
    let store = reopen_for_test(dir.path());
    let (org, agent) = (OrgId::new(), AgentId::new());
    let thread = test_thread(org, agent, "alice");
    let mut old = finished(org, agent, thread.id, "alice");
    old.trace.started_at -= chrono::TimeDelta::days(40);
    let old_id = old.trace.id;
    for record in [old, finished(org, agent, thread.id, "alice")] {
        store_trace_of(&store, thread.id, record);
    }
    store.flush_now().unwrap();
    assert_eq!(store.trace_files.days().unwrap().len(), 2);
    let all = store
        .traces(&TraceScope::Org(org), &TraceQuery::newest(10))
        .unwrap();
    assert_eq!(all.traces.len(), 2);
    assert_eq!(all.traces[1].id, old_id, "the older one last");
    let cutoff = Utc::now() - chrono::TimeDelta::days(30);
    assert_eq!(store.sweep_traces(cutoff).unwrap(), 1);
    assert_eq!(store.trace_files.days().unwrap().len(), 1);
    let left = store
        .traces(&TraceScope::Org(org), &TraceQuery::newest(10))
        .unwrap();
    assert_eq!(left.traces.len(), 1);
    assert_ne!(left.traces[0].id, old_id);
    let old_day = keys::day_number(Utc::now() - chrono::TimeDelta::days(40));
    assert_eq!(
        store.trace_days(org, old_day, old_day).unwrap()[0].3.turns,
        1
    );
}

#[test]
fn since_until_and_status_filter_across_days() {
    let dir = tempfile::tempdir().unwrap();
    let store = reopen_for_test(dir.path());
    let (org, agent) = (OrgId::new(), AgentId::new());
    let thread = test_thread(org, agent, "alice");
    let now = Utc::now();
    for days_ago in [0, 1, 2, 3] {
        let mut record = finished(org, agent, thread.id, "alice");
        record.trace.started_at = now - chrono::TimeDelta::days(days_ago);
        if days_ago == 2 {
            record.trace.status = TraceStatus::Error;
        }
        store_trace_of(&store, thread.id, record);
    }
    let mut q = TraceQuery::newest(10);
    q.since = Some(now - chrono::TimeDelta::hours(60));
    q.until = Some(now - chrono::TimeDelta::hours(12));
    let page = store.traces(&TraceScope::Thread(thread.id), &q).unwrap();
    let ages: Vec<i64> = page
        .traces
        .iter()
        .map(|t| (now - t.started_at).num_days())
        .collect();
    assert_eq!(ages, [1, 2]);
    q.status = Some(TraceStatus::Error);
    let errors = store.traces(&TraceScope::Agent(org, agent), &q).unwrap();
    assert_eq!(errors.traces.len(), 1);
    assert_eq!(errors.traces[0].status, TraceStatus::Error);
    // A user's analytics read the user's own day aggregates (made as the
    // turns commit, merged by the flush), no trace.
    store.flush_now().unwrap();
    let today = keys::day_number(now);
    let alice = store
        .user_trace_days(org, "alice", today - 5, today)
        .unwrap();
    let mut days: Vec<u32> = alice.iter().map(|(day, ..)| today - day).collect();
    days.sort_unstable();
    assert_eq!(days, [0, 1, 2, 3]);
    assert!(alice.iter().all(|(.., aggregate)| aggregate.turns == 1));
    assert!(
        alice
            .iter()
            .all(|(.., aggregate)| aggregate.users.count() == 1)
    );
    assert!(
        store
            .user_trace_days(org, "bob", today - 5, today)
            .unwrap()
            .is_empty()
    );
    // The org's own aggregates are not mixed with its users'.
    assert_eq!(store.trace_days(org, today - 5, today).unwrap().len(), 4);
}

#[test]
fn a_synchronous_flush_syncs_the_trace_files_too() {
    let dir = tempfile::tempdir().unwrap();
    let store = reopen_for_test(dir.path());
    let (org, agent) = (OrgId::new(), AgentId::new());
    let thread = test_thread(org, agent, "alice");
    store_trace_of(&store, thread.id, finished(org, agent, thread.id, "alice"));
    assert_eq!(store.trace_files.unsynced(), 1);
    // The flush of shutdown (and of start) covers the traces as the group
    // commit's does.
    store.flush_now().unwrap();
    assert_eq!(store.trace_files.unsynced(), 0);
}

#[test]
fn a_threads_purge_reads_only_the_days_since_its_creation() {
    let dir = tempfile::tempdir().unwrap();
    let store = reopen_for_test(dir.path());
    let (org, agent) = (OrgId::new(), AgentId::new());
    let thread = test_thread(org, agent, "alice");
    store_trace_of(&store, thread.id, finished(org, agent, thread.id, "alice"));
    // A trace of the same thread filed ten days before its creation (no
    // real turn makes one): a purge that read every day would erase it.
    let mut old = finished(org, agent, thread.id, "alice");
    old.trace.started_at -= chrono::TimeDelta::days(10);
    store_trace_of(&store, thread.id, old);
    assert_eq!(
        store
            .remove_thread_traces(thread.id, thread.created_at, 10)
            .unwrap(),
        1
    );
    let left = store
        .traces(&TraceScope::Thread(thread.id), &TraceQuery::newest(10))
        .unwrap();
    assert_eq!(
        left.traces.len(),
        1,
        "the day before its creation is not read"
    );
}
