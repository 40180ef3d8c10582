//! A channel job's turn (`marketplace-channels.md` §9): the contact's
//! thread (made on first use, again if deleted), a public turn under the
//! channel's tools and daily budget (reserved as a publication's), sent as a keyed send so a resumed job
//! finds the turn it started.

use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use confer_actors::{
    Admission, IfBusy, PublicTurn, Refusal, Thread, ThreadEvent, ThreadId, ThreadKind, TurnRequest,
    VendorOptions,
};

use super::{ChannelWorker, ORG_FULL_WAIT, TurnEnd};
use crate::channels::{Channel, MAX_OUTPUT_TOKENS};
use crate::publishing::budget;
use crate::store::channels::jobs::{ChannelJob, JobWork};
use crate::store::keys;

/// Empty continues after compaction pauses, at most, for one message.
const MAX_CONTINUES: u32 = 3;

impl ChannelWorker {
    /// Runs the job's turn (or skips it over budget); `Err` with a wait
    /// when it must be asked again later.
    pub(super) async fn turn(
        &self,
        channel: &Channel,
        job: &ChannelJob,
    ) -> Result<TurnEnd, Duration> {
        let JobWork::Message {
            contact_id, text, ..
        } = &job.work
        else {
            return Ok(TurnEnd {
                text: None,
                tokens: 0,
            });
        };
        let error_reply = Some(channel.settings.error_reply.clone()).filter(|r| !r.is_empty());
        let failed = || TurnEnd {
            text: error_reply.clone(),
            tokens: 0,
        };
        let (org, id, agent_id, contact_id) =
            (channel.org_id, channel.id, channel.agent_id, *contact_id);
        let today = keys::day_number(Utc::now());
        let read = self
            .store
            .run(move |s| {
                Ok::<_, confer_actors::StoreError>((
                    s.channel_day_tokens(id, today)?,
                    s.channel_contact(id, contact_id)?,
                    s.agent(org, agent_id)?,
                ))
            })
            .await;
        let Ok((spent, Some(contact), Some(agent))) = read else {
            return Ok(failed());
        };
        if agent.is_deleted() {
            return Ok(failed());
        }
        let user = format!("channel:{}:{}", channel.id, contact.external_id);
        let Some(thread) = self.contact_thread(channel, &contact, &user).await else {
            return Ok(failed());
        };
        // The day's budget as a publication's (publishing.md rule 7): the
        // most this turn may cost is reserved until it ends.
        let Ok(last_input) = self
            .store
            .run(move |s| s.last_input_tokens(org, thread))
            .await
        else {
            return Ok(failed());
        };
        let cost = budget::send_cost(last_input, text.chars().count(), MAX_OUTPUT_TOKENS);
        let Ok(_reservation) =
            self.budgets
                .hold(id, cost, spent, channel.settings.daily_token_budget)
        else {
            return Ok(failed());
        };
        // A turn the vendor paused after compacting gets an empty continue
        // (compaction.md), each its own keyed send so a resumed job finds it.
        let mut tokens = 0;
        for round in 0..=MAX_CONTINUES {
            let (content, key) = match round {
                0 => (text.clone(), format!("channel:{}", job.id)),
                n => (String::new(), format!("channel:{}:continue:{n}", job.id)),
            };
            let body = serde_json::json!({"content": content});
            let idempotency =
                crate::api::idempotency::send_key(thread, (org, &user), &key, &body, Some(&user));
            let request = TurnRequest {
                content,
                sender_name: contact.display_name.clone(),
                sender_id: Some(user.clone()),
                user_id: user.clone(),
                end_user: false,
                accepted: Some(std::time::Instant::now()),
                idempotency: Some(idempotency),
                if_busy: Some(IfBusy::Queue.as_str()),
                public: Some(Arc::new(PublicTurn {
                    publication: None,
                    tools: channel.settings.public_tools.clone(),
                    hold: Box::new(()),
                })),
                options: Arc::new(VendorOptions {
                    max_output_tokens: Some(MAX_OUTPUT_TOKENS),
                    ..VendorOptions::default()
                }),
                ..TurnRequest::default()
            };
            let admitted = self
                .runtime
                .post(org, thread, request, IfBusy::Queue, Some(agent.clone()))
                .await;
            let mut reader = match admitted {
                Ok(Admission::Accepted { reader, .. }) => reader,
                Ok(Admission::Duplicate {
                    reader: Some(reader),
                    ..
                }) => reader,
                // The turn ended and its frames are gone: it was answered
                // before a stop; nothing more is owed but what it said, which
                // is in the thread.
                Ok(Admission::Duplicate { reader: None, .. }) => {
                    return Ok(TurnEnd { text: None, tokens });
                }
                Ok(Admission::Refused(Refusal::OrgQueueFull | Refusal::QueueFull)) => {
                    return Err(ORG_FULL_WAIT);
                }
                Ok(Admission::Refused(_)) => return Ok(TurnEnd { tokens, ..failed() }),
                Err(_) => return Err(ORG_FULL_WAIT),
            };
            let done = loop {
                match reader.next().await {
                    Some(frame) => {
                        if let ThreadEvent::Done(done) = &frame.event {
                            break Some(done.clone());
                        }
                    }
                    None => break None,
                }
            };
            let Some(done) = done else {
                return Ok(TurnEnd { tokens, ..failed() });
            };
            tokens += done
                .usage
                .as_ref()
                .map_or(0, |u| u.input_tokens + u.output_tokens);
            if done.ok && done.paused == Some("compaction") && round < MAX_CONTINUES {
                continue;
            }
            let text = if done.ok && !done.content.trim().is_empty() {
                Some(done.content.clone())
            } else if done.stopped == Some(true) {
                None
            } else {
                error_reply.clone()
            };
            return Ok(TurnEnd { text, tokens });
        }
        Ok(TurnEnd { tokens, ..failed() })
    }

    /// The contact's thread, made on first use (and again if deleted).
    async fn contact_thread(
        &self,
        channel: &Channel,
        contact: &crate::channels::Contact,
        user: &str,
    ) -> Option<ThreadId> {
        let org = channel.org_id;
        if let Some(thread) = contact.thread_id {
            let live = self.store.run(move |s| s.thread(org, thread)).await;
            if matches!(live, Ok(Some(_))) {
                return Some(thread);
            }
        }
        let now = Utc::now();
        let metadata = [
            ("channel", channel.kind.as_str().to_owned()),
            ("channel_id", channel.id.to_string()),
            ("contact_id", contact.id.to_string()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
        let thread = Thread {
            id: ThreadId::new(),
            org_id: org,
            agent_id: channel.agent_id,
            title: contact
                .display_name
                .clone()
                .or_else(|| Some(user.to_owned())),
            kind: ThreadKind::Single,
            active_profile: None,
            metadata,
            system_prompt_overlay: None,
            resource_bindings: Vec::new(),
            created_by: format!("channel:{}", channel.id),
            publication_id: None,
            invite_generation: 0,
            origin: None,
            delegation: None,
            project_id: None,
            created_at: now,
            updated_at: now,
        };
        let (id, contact_id, thread_id) = (channel.id, contact.id, thread.id);
        let made = self
            .store
            .write(move |s| {
                s.create_thread_keyed(&thread, None, None)?;
                s.set_contact_thread(id, contact_id, thread_id)
            })
            .await;
        match made {
            Ok(()) => Some(thread_id),
            Err(error) => {
                tracing::error!(%error, "making a contact's thread failed");
                None
            }
        }
    }
}
