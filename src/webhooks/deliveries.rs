//! The delivery worker: sends due completion webhooks, at most
//! [`MAX_IN_FLIGHT`] at once, through the outbound policy with a 10 s
//! timeout and the answer read up to 64 KiB. A 2xx ends a delivery, a
//! 410 stops it, an address the policy refuses fails it at once; any
//! other outcome is retried on `RETRY_AFTER_SECS` (±10%), then `failed`.
//! Each attempt's outcome is written before the next is planned, so a
//! restart resumes where the log says.

use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use secrecy::ExposeSecret;
use tokio::sync::Semaphore;

use super::{DeliveryRecord, DeliveryStatus, retry_at, signature};
use crate::outbound::{Outbound, OutboundError, read_capped};
use crate::store::Store;

/// Deliveries being sent at once.
pub const MAX_IN_FLIGHT: usize = 16;
/// The time an attempt may take.
const TIMEOUT: Duration = Duration::from_secs(10);
/// The most of an answer read.
const ANSWER_CAP: usize = 64 * 1024;
/// The longest wait between two looks at the queue.
const POLL: Duration = Duration::from_secs(1);

/// Sends deliveries.
pub struct DeliveryWorker {
    store: Store,
    outbound: Outbound,
    slots: Arc<Semaphore>,
}

impl DeliveryWorker {
    /// Starts the worker's task.
    pub fn start(store: Store, outbound: Outbound) -> Arc<Self> {
        let worker = Arc::new(Self {
            store,
            outbound,
            slots: Arc::new(Semaphore::new(MAX_IN_FLIGHT)),
        });
        let looping = Arc::clone(&worker);
        if worker.store.is_postgres() {
            return worker; // deliveries are not kept in PostgreSQL yet
        }
        tokio::spawn(async move { looping.run_loop().await });
        worker
    }

    async fn run_loop(self: Arc<Self>) {
        let mut sending = std::collections::HashSet::new();
        // At most MAX_IN_FLIGHT attempts run, so this never fills.
        let (done_tx, mut done_rx) = tokio::sync::mpsc::channel(MAX_IN_FLIGHT);
        loop {
            while let Ok(id) = done_rx.try_recv() {
                sending.remove(&id);
            }
            let free = self.slots.available_permits();
            let due = if free == 0 {
                Ok(Vec::new())
            } else {
                self.store
                    .run(move |s| s.due_deliveries(Utc::now(), free + MAX_IN_FLIGHT))
                    .await
            };
            match due {
                Ok(due) => {
                    for record in due {
                        if sending.contains(&record.delivery.id) {
                            continue;
                        }
                        let Ok(permit) = Arc::clone(&self.slots).try_acquire_owned() else {
                            break;
                        };
                        sending.insert(record.delivery.id);
                        let (worker, done) = (Arc::clone(&self), done_tx.clone());
                        tokio::spawn(async move {
                            let id = record.delivery.id;
                            worker.attempt(record).await;
                            drop(permit);
                            let _ = done.send(id).await;
                        });
                    }
                }
                Err(error) => tracing::error!(%error, "reading due deliveries failed"),
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// One attempt of `record`, its outcome written.
    async fn attempt(&self, mut record: DeliveryRecord) {
        let was_due = record.delivery.next_attempt_at.unwrap_or_else(Utc::now);
        let (org, runner) = (record.org_id, record.runner_id);
        let target = self
            .store
            .run(move |s| Ok((s.runner(org, runner)?, s.runner_secret(org, runner)?)))
            .await;
        let outcome = match target {
            Ok((Some(runner), Some(secret))) if runner.deleted_at.is_none() => {
                match runner.completion_webhook {
                    Some(hook) => self.send(&hook.url, secret.expose_secret(), &record).await,
                    None => Outcome::Stop(None, "the runner has no completion webhook".into()),
                }
            }
            Ok(_) => Outcome::Stop(None, "the runner has no completion webhook".into()),
            Err(error) => Outcome::Retry(None, format!("store: {error}")),
        };
        let now = Utc::now();
        let delivery = &mut record.delivery;
        delivery.attempts += 1;
        match outcome {
            Outcome::Delivered(code) => {
                delivery.status = DeliveryStatus::Delivered;
                delivery.last_status_code = Some(code);
                delivery.last_error = None;
                delivery.next_attempt_at = None;
            }
            Outcome::Stop(code, error) => {
                delivery.status = DeliveryStatus::Failed;
                delivery.last_status_code = code;
                delivery.last_error = Some(error);
                delivery.next_attempt_at = None;
            }
            Outcome::Retry(code, error) => {
                delivery.last_status_code = code;
                delivery.last_error = Some(error);
                let jitter = (rand_unit() - 0.5) * 0.2;
                delivery.next_attempt_at = retry_at(delivery.attempts, now, jitter);
                if delivery.next_attempt_at.is_none() {
                    delivery.status = DeliveryStatus::Failed;
                }
            }
        }
        let stored = record.clone();
        if let Err(error) = self
            .store
            .write(move |s| s.record_attempt(was_due, &stored))
            .await
        {
            tracing::error!(%error, "recording a delivery attempt failed");
        }
    }

    /// Posts `record` to `url`, signed with `secret`.
    async fn send(&self, url: &str, secret: &str, record: &DeliveryRecord) -> Outcome {
        let id = record.delivery.id.to_string();
        let timestamp = Utc::now().timestamp();
        let Some(signed) = signature(secret, &id, timestamp, &record.body) else {
            return Outcome::Stop(None, "the completion secret is not base64".into());
        };
        let request = match self.outbound.request(reqwest::Method::POST, url) {
            Ok(request) => request,
            Err(OutboundError::Refused(_)) => return refused(),
            Err(error) => return Outcome::Retry(None, error.to_string()),
        };
        let request = request
            .timeout(TIMEOUT)
            .header("content-type", "application/json")
            .header("webhook-id", &id)
            .header("webhook-timestamp", timestamp.to_string())
            .header("webhook-signature", signed)
            .body(record.body.clone());
        match self.outbound.send(request).await {
            Ok(response) => {
                let code = response.status().as_u16();
                // The answer is read (bounded) so the connection can be reused.
                let _ = read_capped(response, ANSWER_CAP).await;
                match code {
                    200..=299 => Outcome::Delivered(code),
                    410 => Outcome::Stop(Some(code), "http 410: the receiver is gone".into()),
                    _ => Outcome::Retry(Some(code), format!("http {code}")),
                }
            }
            Err(OutboundError::Refused(_)) => refused(),
            Err(OutboundError::TimedOut) => Outcome::Retry(None, "timed out after 10 s".into()),
            Err(error) => Outcome::Retry(None, error.to_string()),
        }
    }
}

fn refused() -> Outcome {
    Outcome::Stop(None, "address refused by outbound policy".into())
}

/// How an attempt ended: the status code, if any, and the error.
enum Outcome {
    Delivered(u16),
    Stop(Option<u16>, String),
    Retry(Option<u16>, String),
}

/// A number in [0, 1) for the retry jitter.
fn rand_unit() -> f64 {
    let mut bytes = [0u8; 8];
    if getrandom::fill(&mut bytes).is_err() {
        return 0.5;
    }
    (u64::from_le_bytes(bytes) >> 11) as f64 / (1u64 << 53) as f64
}
