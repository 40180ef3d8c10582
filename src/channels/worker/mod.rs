//! The channels' jobs (`marketplace-channels.md` §9): each inbound message
//! becomes one turn of its contact's thread and one reply, in order per
//! contact, at most `CONFER_CHANNEL_WORKERS` at once; jobs left by a stop
//! resume at start. The turn is an ordinary keyed send (`channel:{jobId}`),
//! so a resumed job finds the turn it started. A reply's chunks are stored
//! before the first send and each send advances `sent`: a crash just after
//! a vendor's 2xx repeats at most that chunk.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::{DateTime, Utc};
use confer_actors::{ChannelId, ChannelJobId, ContactId, Runtime};
use tokio::sync::Notify;

mod turn;

use super::chunks;
use super::vendors::{SendError, VendorApis, telegram};
use super::{Channel, ChannelStatus, Opened};
use crate::publishing::budget::Reservations;
use crate::store::Store;
use crate::store::channels::jobs::{ChannelJob, JobWork, Reply};
use crate::store::keys;

/// Tries of one send before the job fails.
const MAX_TRIES: u32 = 8;
/// The longest wait between tries.
const MAX_BACKOFF: Duration = Duration::from_secs(300);
/// How long a deleted bot's `deleteWebhook` is retried.
const CLEANUP_FOR: chrono::Duration = chrono::Duration::hours(24);
/// A full org queue's wait before the turn is asked again.
const ORG_FULL_WAIT: Duration = Duration::from_secs(5);
/// How often the dispatcher looks even when nothing woke it.
const IDLE_LOOK: Duration = Duration::from_secs(30);

/// Which jobs may not run at once: a contact's, in order.
#[derive(Clone, Copy, Hash, PartialEq, Eq)]
enum Lane {
    Contact(ContactId),
    Job(ChannelJobId),
}

fn lane(job: &ChannelJob) -> Lane {
    job.contact().map_or(Lane::Job(job.id), Lane::Contact)
}

/// The jobs a dispatch pass starts (at most `free`, none of a lane that is
/// `busy` or behind an earlier job of its contact) and the earliest time a
/// job it passed becomes due. It stops reading once `free` are found: a job
/// that ends wakes the dispatcher, which reads again.
fn pick(
    jobs: impl Iterator<Item = Result<ChannelJob, confer_actors::StoreError>>,
    busy: &HashSet<Lane>,
    free: usize,
    now: DateTime<Utc>,
) -> Result<(Vec<ChannelJob>, Option<DateTime<Utc>>), confer_actors::StoreError> {
    let mut ready = Vec::new();
    let mut next: Option<DateTime<Utc>> = None;
    let mut passed = HashSet::new();
    let mut jobs = jobs;
    while ready.len() < free {
        let Some(job) = jobs.next() else {
            break;
        };
        let job = job?;
        let lane = lane(&job);
        // A contact's later jobs wait behind its first.
        if !passed.insert(lane) || busy.contains(&lane) {
            continue;
        }
        if job.not_before > now {
            next = Some(next.map_or(job.not_before, |n| n.min(job.not_before)));
            continue;
        }
        ready.push(job);
    }
    Ok((ready, next))
}

/// Runs the channels' jobs.
pub struct ChannelWorker {
    store: Store,
    runtime: Runtime,
    apis: VendorApis,
    workers: usize,
    wake: Notify,
    busy: Mutex<HashSet<Lane>>,
    /// The running turns' reservations of their channel's daily budget.
    budgets: Reservations<ChannelId>,
}

/// What a turn gave the reply.
struct TurnEnd {
    text: Option<String>,
    tokens: u64,
}

impl ChannelWorker {
    /// Starts the dispatcher (it resumes the jobs a stop left).
    pub fn start(store: Store, runtime: Runtime, apis: VendorApis, workers: usize) -> Arc<Self> {
        let worker = Arc::new(Self {
            store,
            runtime,
            apis,
            workers: workers.max(1),
            wake: Notify::new(),
            busy: Mutex::new(HashSet::new()),
            budgets: Reservations::default(),
        });
        let looping = Arc::clone(&worker);
        if worker.store.is_postgres() {
            return worker; // channels are not kept in PostgreSQL yet
        }
        tokio::spawn(async move { looping.dispatch_loop().await });
        worker
    }

    /// Tells the dispatcher jobs were stored.
    pub fn wake(&self) {
        self.wake.notify_one();
    }

    /// The vendors' APIs (the routes check credentials with them).
    pub fn apis(&self) -> &VendorApis {
        &self.apis
    }

    fn busy(&self) -> std::sync::MutexGuard<'_, HashSet<Lane>> {
        // A poisoned lock only means a panic elsewhere; the set stays valid.
        self.busy.lock().unwrap_or_else(|e| e.into_inner())
    }

    async fn dispatch_loop(self: Arc<Self>) {
        let mut swept = Utc::now() - chrono::Duration::hours(1);
        loop {
            if self.runtime.is_closing() {
                return;
            }
            let next = match self.dispatch().await {
                Ok(next) => next,
                Err(error) => {
                    tracing::error!(%error, "reading the channels' jobs failed");
                    Some(Utc::now() + chrono::Duration::seconds(5))
                }
            };
            if Utc::now() - swept > chrono::Duration::hours(1) {
                swept = Utc::now();
                let now = swept;
                if let Err(error) = self.store.write(move |s| s.sweep_channel_keys(now)).await {
                    tracing::warn!(%error, "sweeping the channels' delivery keys failed");
                }
            }
            let wait = next
                .map(|at| (at - Utc::now()).to_std().unwrap_or_default())
                .unwrap_or(IDLE_LOOK)
                .min(IDLE_LOOK);
            let _ = tokio::time::timeout(wait, self.wake.notified()).await;
        }
    }

    /// Starts the jobs that may run now; when the next waiting one is due.
    async fn dispatch(
        self: &Arc<Self>,
    ) -> Result<Option<DateTime<Utc>>, confer_actors::StoreError> {
        let busy = self.busy().clone();
        let free = self.workers.saturating_sub(busy.len());
        let now = Utc::now();
        let (ready, next) = self
            .store
            .run(move |s| pick(s.channel_jobs(), &busy, free, now))
            .await?;
        for job in ready {
            let lane = lane(&job);
            if !self.busy().insert(lane) {
                continue;
            }
            let worker = Arc::clone(self);
            tokio::spawn(async move {
                worker.process(job).await;
                worker.busy().remove(&lane);
                worker.wake.notify_one();
            });
        }
        Ok(next)
    }

    async fn process(&self, mut job: ChannelJob) {
        let id = job.channel_id;
        let channel = match self.store.run(move |s| s.channel(id)).await {
            Ok(channel) => channel,
            Err(error) => {
                tracing::error!(%error, "reading a job's channel failed");
                return self.retry(job, None).await;
            }
        };
        if let JobWork::DeleteWebhook { sealed_bot_token } = job.work.clone() {
            return self.cleanup(job, &sealed_bot_token).await;
        }
        let Some(channel) = channel else {
            return self.finish(&job).await;
        };
        let opened = {
            let record = channel.clone();
            match self.store.run(move |s| s.open_channel(&record)).await {
                Ok(opened) => opened,
                Err(error) => {
                    tracing::error!(%error, channel = %channel.id, "opening a channel's secrets failed");
                    return self.finish(&job).await;
                }
            }
        };
        if job.reply.is_none() {
            match self.turn(&channel, &job).await {
                Ok(end) => {
                    let chunks = end
                        .text
                        .map(|t| chunks::split(channel.kind, &t))
                        .unwrap_or_default();
                    job.reply = Some(Reply { chunks, sent: 0 });
                    if end.tokens > 0 {
                        let (day, tokens) = (keys::day_number(Utc::now()), end.tokens);
                        let _ = self
                            .store
                            .write(move |s| s.add_channel_day_tokens(id, day, tokens))
                            .await;
                    }
                    if !self.save(&job).await {
                        return;
                    }
                }
                Err(wait) => return self.retry(job, Some(wait)).await,
            }
        }
        self.send_reply(&channel, &opened, job).await;
    }

    /// Sends what is left of the job's reply, saving after each chunk.
    async fn send_reply(&self, channel: &Channel, opened: &Opened, mut job: ChannelJob) {
        let JobWork::Message { target, .. } = job.work.clone() else {
            return;
        };
        loop {
            let Some(reply) = job.reply.as_mut() else {
                return;
            };
            let Some(chunk) = reply.chunks.get(reply.sent).cloned() else {
                return self.finish(&job).await;
            };
            match self.apis.send(channel, opened, &target, &chunk).await {
                Ok(()) => {
                    reply.sent += 1;
                    job.attempts = 0;
                    if !self.save(&job).await {
                        return;
                    }
                }
                Err(SendError::Retry { after, detail }) if job.attempts + 1 < MAX_TRIES => {
                    tracing::warn!(channel = %channel.id, %detail, "a reply will be tried again");
                    return self.retry(job, after).await;
                }
                Err(SendError::Auth(detail)) => {
                    self.mark(channel, Some(ChannelStatus::Error), detail).await;
                    return self.finish(&job).await;
                }
                Err(SendError::Retry { detail, .. } | SendError::Failed(detail)) => {
                    self.mark(channel, None, detail).await;
                    return self.finish(&job).await;
                }
            }
        }
    }

    /// Telegram's `deleteWebhook` for a deleted channel, tried for 24 h.
    async fn cleanup(&self, job: ChannelJob, sealed: &str) {
        let (id, org, sealed) = (job.channel_id, job.org_id, sealed.to_owned());
        let opened = self
            .store
            .run(move |s| s.open_channel_secret((org, id), "bot_token", &sealed))
            .await;
        let Ok(bot_token) = opened else {
            return self.finish(&job).await;
        };
        let opened = Opened {
            bot_token,
            ..Opened::default()
        };
        match telegram::delete_webhook(&self.apis, &opened).await {
            Ok(()) => self.finish(&job).await,
            Err(_) if Utc::now() - job.created_at > CLEANUP_FOR => self.finish(&job).await,
            Err(SendError::Retry { after, .. }) => self.retry(job, after).await,
            Err(_) => self.finish(&job).await,
        }
    }

    /// Puts the job back with a wait: 1 s doubling to 5 minutes, or the
    /// vendor's own when longer.
    async fn retry(&self, mut job: ChannelJob, after: Option<Duration>) {
        job.attempts += 1;
        let doubling = Duration::from_secs(1 << job.attempts.min(9)).min(MAX_BACKOFF);
        let wait = after.map_or(doubling, |a| a.max(doubling).min(MAX_BACKOFF * 2));
        job.not_before = Utc::now() + chrono::Duration::from_std(wait).unwrap_or_default();
        self.save(&job).await;
    }

    /// Stores the job's progress; false when it is gone or not stored.
    async fn save(&self, job: &ChannelJob) -> bool {
        let saved = job.clone();
        match self.store.write(move |s| s.save_channel_job(&saved)).await {
            Ok(kept) => kept,
            Err(error) => {
                tracing::error!(%error, "saving a channel job failed");
                false
            }
        }
    }

    async fn finish(&self, job: &ChannelJob) {
        let done = job.clone();
        if let Err(error) = self.store.write(move |s| s.finish_channel_job(&done)).await {
            tracing::error!(%error, "removing a finished channel job failed");
        }
    }

    /// Records a send's failure on the channel (and its status).
    async fn mark(&self, channel: &Channel, status: Option<ChannelStatus>, detail: String) {
        let (org, id) = (channel.org_id, channel.id);
        let _ = self
            .store
            .write(move |s| {
                s.update_channel(
                    org,
                    id,
                    || (),
                    |mut c| {
                        c.last_error = Some(detail.clone());
                        if let Some(status) = status {
                            c.status = status;
                        }
                        c.updated_at = Utc::now();
                        Ok(c)
                    },
                )
            })
            .await;
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;
