//! What a turn's server-side calls tell it besides their results
//! ([`CallNotes`]): events to stream before a result, the providers
//! already challenged, and the requests each call made for its trace.

use crate::delegation::{DelegateCall, DelegatedUsage};
use crate::events::{ThreadEvent, Usage};
use crate::trace::{SpanKind, Stamp};

/// A request a call made (an MCP `tools/call`, a webhook's POST): a
/// child of the call's tool span in the trace.
#[derive(Clone, Debug)]
pub struct CallRequest {
    /// [`SpanKind::Webhook`] or [`SpanKind::Mcp`].
    pub kind: SpanKind,
    /// The HTTP method or the MCP method.
    pub name: String,
    pub started: Stamp,
    pub ended: std::time::Instant,
    pub status_code: Option<u16>,
    pub rpc_error: Option<String>,
    /// Why it failed, if it did (never a secret).
    pub error: Option<String>,
}

/// What a turn's calls tell it besides their results: events to stream
/// before a call's `tool_result` (an `auth_challenge`), the providers
/// already challenged in the turn (each at most once), and the requests
/// each call made (for its trace).
#[derive(Debug, Default)]
pub struct CallNotes {
    inner: std::sync::Mutex<CallNotesInner>,
}

#[derive(Debug, Default)]
struct CallNotesInner {
    pending: Vec<(String, ThreadEvent)>,
    challenged: Vec<String>,
    requests: Vec<(String, CallRequest)>,
    delegate_calls: Vec<(String, DelegateCall)>,
    delegated: Option<DelegatedUsage>,
}

/// The entries of `list` for `call_id`, in order, taken out of it.
fn take_for<T>(list: &mut Vec<(String, T)>, call_id: &str) -> Vec<T> {
    let (mine, others) = std::mem::take(list)
        .into_iter()
        .partition(|(id, _)| id == call_id);
    *list = others;
    mine.into_iter().map(|(_, item)| item).collect()
}

impl CallNotes {
    fn lock(&self) -> std::sync::MutexGuard<'_, CallNotesInner> {
        // A panic while holding it leaves plain lists behind.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Whether `provider` may be challenged now: `true` the first time in
    /// the turn.
    pub fn first_challenge(&self, provider: &str) -> bool {
        let mut inner = self.lock();
        if inner.challenged.iter().any(|p| p == provider) {
            return false;
        }
        inner.challenged.push(provider.to_owned());
        true
    }

    /// `event` goes out before the result of call `call_id`.
    pub fn announce(&self, call_id: &str, event: ThreadEvent) {
        self.lock().pending.push((call_id.to_owned(), event));
    }

    /// Call `call_id` made `request`.
    pub fn request(&self, call_id: &str, request: CallRequest) {
        self.lock().requests.push((call_id.to_owned(), request));
    }

    /// Call `call_id` delegated: its span takes `call.span_id`.
    pub fn delegate_call(&self, call_id: &str, call: DelegateCall) {
        self.lock().delegate_calls.push((call_id.to_owned(), call));
    }

    /// A delegated turn ended with `usage` (its `done.usage`, if any):
    /// added to what the turn's `done` reports as delegated.
    pub fn delegated_turn(&self, usage: Option<&Usage>) {
        self.lock()
            .delegated
            .get_or_insert_with(DelegatedUsage::default)
            .add_turn(usage);
    }

    /// What the turn's delegated turns used so far, if it delegated.
    pub fn delegated(&self) -> Option<DelegatedUsage> {
        self.lock().delegated.clone()
    }

    /// What call `call_id` delegated, if it did.
    pub(crate) fn take_delegate_call(&self, call_id: &str) -> Option<DelegateCall> {
        take_for(&mut self.lock().delegate_calls, call_id).pop()
    }

    /// The events of call `call_id`, in order.
    pub(crate) fn take_events(&self, call_id: &str) -> Vec<ThreadEvent> {
        take_for(&mut self.lock().pending, call_id)
    }

    /// The requests of call `call_id`, in order.
    pub fn take_requests(&self, call_id: &str) -> Vec<CallRequest> {
        take_for(&mut self.lock().requests, call_id)
    }
}
