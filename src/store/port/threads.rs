//! The port of threads as the API reads and writes them (`scale.md` §2):
//! creation (keyed, with an owner), changes, deletion, history, context,
//! usage, listings, participants, and the facts of an access check.

use chrono::{DateTime, Utc};
use confer_actors::{
    AgentId, ContextMessage, Message, OrgId, Participant, StoreError, StoreFuture, Thread,
    ThreadId, TraceId, TraceRecord, UsageRecord,
};

use super::SledRecords;
use crate::error::ApiError;
use crate::observability::analytics::DayEntry;
use crate::store::participants::ParticipantPut;
use crate::store::thread_access::ThreadAccess;
use crate::store::threads::Created;
use crate::store::traces::{TracePage, TraceQuery, TraceScope};
use crate::store::update::Updated;
use crate::store::{Page, UsageFilter};

/// A change to a stored thread (see [`ThreadRecords::update_thread`]).
pub type ThreadSwap = Box<dyn FnMut(Thread) -> Result<Thread, ApiError> + Send>;

/// Threads, their history and their usage, as the API reads them.
pub trait ThreadRecords: Send + Sync + 'static {
    /// Stores a new thread; returns it as stored (`created_at` made unique
    /// within the org).
    fn create_thread(&self, thread: Thread) -> StoreFuture<Thread>;

    /// Stores a new thread with its owner participant, under a creation
    /// key (`keyed`: the key's hash with org and caller, and the request's
    /// hash, hex) checked in the same transaction, so two racing repeats
    /// make one thread; a key older than 24 hours counts as unseen.
    fn create_thread_keyed(
        &self,
        thread: Thread,
        owner: Option<Participant>,
        keyed: Option<([u8; 32], String)>,
    ) -> StoreFuture<Created>;

    /// The thread, `None` when not in `org`.
    fn thread(&self, org: OrgId, thread: ThreadId) -> StoreFuture<Option<Thread>>;

    /// The thread with what deciding `user`'s access to it needs (and its
    /// agent, `with_agent`), in one trip; `None` when not in `org`.
    fn thread_access(
        &self,
        org: OrgId,
        thread: ThreadId,
        user: Option<String>,
        with_agent: bool,
    ) -> StoreFuture<Option<ThreadAccess>>;

    /// Changes a thread atomically (its org, agent and creation never
    /// change); `Gone` when it was deleted. A project deleted meanwhile
    /// leaves it with none.
    fn update_thread(
        &self,
        org: OrgId,
        thread: ThreadId,
        change: ThreadSwap,
    ) -> StoreFuture<Updated<Thread, ApiError>>;

    /// Deletes a thread: readers see it gone at once and its history is
    /// purged afterwards; false when it was already gone.
    fn delete_thread(&self, org: OrgId, thread: ThreadId) -> StoreFuture<bool>;

    /// Listed messages after `offset` (at most `limit`) and how many the
    /// thread has.
    fn messages(
        &self,
        thread: ThreadId,
        offset: u64,
        limit: usize,
    ) -> StoreFuture<(Vec<Message>, u64)>;

    /// The model's context, oldest first.
    fn context(&self, thread: ThreadId) -> StoreFuture<Vec<ContextMessage>>;

    /// One stored trace with its spans.
    fn trace(&self, id: TraceId) -> StoreFuture<Option<TraceRecord>>;

    /// A page of stored traces of `scope`, newest first (see
    /// `SledStore::traces`: at most `SCAN_BUDGET` read, and a page cut
    /// short by it ends with a cursor).
    fn traces(&self, scope: TraceScope, query: TraceQuery) -> StoreFuture<TracePage>;

    /// Analytics' day aggregates of `org` (of `user` in it, when given)
    /// for days `first..=last`.
    fn day_aggregates(
        &self,
        org: OrgId,
        user: Option<String>,
        first: u32,
        last: u32,
    ) -> StoreFuture<Vec<DayEntry>>;

    /// Usage records, newest first, strictly older than `before`.
    fn usage(
        &self,
        org: OrgId,
        filter: UsageFilter,
        before: Option<DateTime<Utc>>,
        limit: usize,
    ) -> StoreFuture<Page<UsageRecord>>;

    /// The listed threads of an agent, newest first, strictly older than
    /// `before`; with `user`, those it created or joined.
    fn list_threads(
        &self,
        org: OrgId,
        agent: AgentId,
        user: Option<String>,
        before: Option<DateTime<Utc>>,
        limit: usize,
    ) -> StoreFuture<Page<Thread>>;

    /// A thread's delegated children, newest first, strictly older than
    /// `before`.
    fn child_threads(
        &self,
        org: OrgId,
        parent: ThreadId,
        before: Option<DateTime<Utc>>,
        limit: usize,
    ) -> StoreFuture<Page<Thread>>;

    /// Adds or updates a participant of a live thread, keeping its first
    /// join time; with `cap`, a new one is refused once the thread has
    /// that many (two adds cannot both take the last place).
    fn put_participant(
        &self,
        org: OrgId,
        thread: ThreadId,
        participant: Participant,
        cap: Option<usize>,
    ) -> StoreFuture<ParticipantPut>;

    /// Every participant of a thread, ordered by user id.
    fn participants(&self, thread: ThreadId) -> StoreFuture<Vec<Participant>>;

    /// Removes a participant (the thread stays listed for its creator);
    /// false when that user was not one.
    fn remove_participant(
        &self,
        org: OrgId,
        thread: ThreadId,
        user_id: String,
    ) -> StoreFuture<bool>;
}

impl ThreadRecords for SledRecords {
    fn trace(&self, id: TraceId) -> StoreFuture<Option<TraceRecord>> {
        self.read(move |s| s.trace(id))
    }

    fn traces(&self, scope: TraceScope, query: TraceQuery) -> StoreFuture<TracePage> {
        self.read(move |s| s.traces(&scope, &query))
    }

    fn day_aggregates(
        &self,
        org: OrgId,
        user: Option<String>,
        first: u32,
        last: u32,
    ) -> StoreFuture<Vec<DayEntry>> {
        self.read(move |s| match user {
            None => s.trace_days(org, first, last),
            Some(user) => s.user_trace_days(org, &user, first, last),
        })
    }

    fn create_thread(&self, thread: Thread) -> StoreFuture<Thread> {
        self.write(move |s| s.create_thread(&thread, None))
    }

    fn create_thread_keyed(
        &self,
        thread: Thread,
        owner: Option<Participant>,
        keyed: Option<([u8; 32], String)>,
    ) -> StoreFuture<Created> {
        self.write(move |s| s.create_thread_keyed(&thread, owner.as_ref(), keyed))
    }

    fn thread(&self, org: OrgId, thread: ThreadId) -> StoreFuture<Option<Thread>> {
        self.read(move |s| s.thread(org, thread))
    }

    fn thread_access(
        &self,
        org: OrgId,
        thread: ThreadId,
        user: Option<String>,
        with_agent: bool,
    ) -> StoreFuture<Option<ThreadAccess>> {
        self.read(move |s| s.thread_access(org, thread, user.as_deref(), with_agent))
    }

    fn update_thread(
        &self,
        org: OrgId,
        thread: ThreadId,
        change: ThreadSwap,
    ) -> StoreFuture<Updated<Thread, ApiError>> {
        self.write(move |s| s.update_thread(org, thread, change))
    }

    fn delete_thread(&self, org: OrgId, thread: ThreadId) -> StoreFuture<bool> {
        self.write(move |s| s.delete_thread(org, thread))
    }

    fn messages(
        &self,
        thread: ThreadId,
        offset: u64,
        limit: usize,
    ) -> StoreFuture<(Vec<Message>, u64)> {
        self.read(move |s| s.messages(thread, offset, limit))
    }

    fn context(&self, thread: ThreadId) -> StoreFuture<Vec<ContextMessage>> {
        self.read(move |s| s.context(thread))
    }

    fn usage(
        &self,
        org: OrgId,
        filter: UsageFilter,
        before: Option<DateTime<Utc>>,
        limit: usize,
    ) -> StoreFuture<Page<UsageRecord>> {
        self.read(move |s| s.list_usage(org, filter, before, limit, |_| Ok(true)))
    }

    fn list_threads(
        &self,
        org: OrgId,
        agent: AgentId,
        user: Option<String>,
        before: Option<DateTime<Utc>>,
        limit: usize,
    ) -> StoreFuture<Page<Thread>> {
        self.read(move |s| s.list_threads(org, agent, user.as_deref(), before, limit, |_| Ok(true)))
    }

    fn child_threads(
        &self,
        org: OrgId,
        parent: ThreadId,
        before: Option<DateTime<Utc>>,
        limit: usize,
    ) -> StoreFuture<Page<Thread>> {
        self.read(move |s| s.child_threads(org, parent, before, limit))
    }

    fn put_participant(
        &self,
        org: OrgId,
        thread: ThreadId,
        participant: Participant,
        cap: Option<usize>,
    ) -> StoreFuture<ParticipantPut> {
        self.write(move |s| s.put_participant(org, thread, &participant, cap))
    }

    fn participants(&self, thread: ThreadId) -> StoreFuture<Vec<Participant>> {
        self.read(move |s| s.participants(thread))
    }

    fn remove_participant(
        &self,
        org: OrgId,
        thread: ThreadId,
        user_id: String,
    ) -> StoreFuture<bool> {
        self.write(move |s| s.remove_participant(org, thread, &user_id))
    }
}

/// Descendants one listing follows at most (a root's turns each make at
/// most 20 calls; a thread of many turns may still have many).
pub const MAX_DESCENDANTS: usize = 10_000;

/// `thread` and its delegated descendants, nearest first (at most
/// [`MAX_DESCENDANTS`] of them), on either store.
pub async fn thread_and_descendants(
    records: &dyn ThreadRecords,
    org: OrgId,
    thread: ThreadId,
) -> Result<Vec<ThreadId>, StoreError> {
    let mut all = vec![thread];
    let mut next = 0;
    while next < all.len() && all.len() <= MAX_DESCENDANTS {
        let mut before = None;
        loop {
            let page = records.child_threads(org, all[next], before, 200).await?;
            all.extend(page.items.iter().map(|t| t.id));
            match page.next_cursor {
                Some(cursor) if all.len() <= MAX_DESCENDANTS => before = Some(cursor),
                _ => break,
            }
        }
        next += 1;
    }
    all.truncate(MAX_DESCENDANTS + 1);
    Ok(all)
}

/// The usage records of `threads`, newest first, strictly older than
/// `before`: each thread's page, merged.
pub async fn usage_of_threads(
    records: &dyn ThreadRecords,
    org: OrgId,
    threads: &[ThreadId],
    before: Option<DateTime<Utc>>,
    limit: usize,
) -> Result<Page<UsageRecord>, StoreError> {
    let mut items = Vec::new();
    let mut more = false;
    for &thread in threads {
        let filter = UsageFilter {
            agent: None,
            thread: Some(thread),
        };
        let page = records.usage(org, filter, before, limit).await?;
        more |= page.next_cursor.is_some();
        items.extend(page.items);
    }
    items.sort_by_key(|r| std::cmp::Reverse(r.created_at));
    if items.len() > limit {
        more = true;
        items.truncate(limit);
    }
    let next_cursor = more.then(|| items.last().map(|r| r.created_at)).flatten();
    Ok(Page { items, next_cursor })
}
