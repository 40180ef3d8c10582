//! The org tools' executor (`tools.md` §2): the turn's [`ToolExecutor`]
//! for tools registered with `/api/tools`, each called as a signed webhook
//! through the outbound policy. No retries (a call may have side effects);
//! `timeout_ms` bounds the whole call; every failure becomes an error result
//! the model reads (the turn goes on), never the secret, URL query or body.

use std::sync::Arc;
use std::time::Duration;

use confer_actors::tools::{
    CallRequest, NOT_AVAILABLE, OfferedFuture, ServerTools, TIMEOUT_PREFIX, ToolExecutor,
    ToolFuture, ToolOutput, ToolScope,
};
use confer_actors::trace::{SpanKind, Stamp};
use confer_actors::{AgentId, OrgId, ThreadId, ToolCall, ToolDefinition};
use secrecy::ExposeSecret;
use serde_json::{Value, json};

use super::org_cache::OrgCache;
use crate::outbound::{Outbound, OutboundError, read_capped};
use crate::resolver::signed;
use crate::store::Store;
use crate::store::tools::OrgTool;

/// Bytes of a webhook's answer a model is given at most.
pub const RESULT_CAP: usize = 256 * 1024;

/// The orgs' tool definitions as last read, so that a turn does not go to
/// the store (and its blocking pool) for them.
pub type OfferedCache = OrgCache<Vec<ToolDefinition>>;

/// Calls org tools for turns.
pub struct WebhookTools {
    store: Store,
    outbound: Outbound,
    cache: Arc<OfferedCache>,
}

impl WebhookTools {
    /// An executor reading tools from `store` (through `cache`), calling
    /// them through `outbound`.
    pub fn new(store: Store, outbound: Outbound, cache: Arc<OfferedCache>) -> Self {
        Self {
            store,
            outbound,
            cache,
        }
    }
}

/// Who a webhook call is made for (the body's ids).
pub struct WebhookCall {
    pub org: OrgId,
    pub agent: Option<AgentId>,
    pub thread: Option<ThreadId>,
    pub user_id: String,
    pub call_id: String,
    pub arguments: Value,
}

/// The definition the model is offered for `tool`.
pub fn definition(tool: &OrgTool) -> ToolDefinition {
    ToolDefinition {
        name: tool.name.clone(),
        description: (!tool.description.is_empty()).then(|| tool.description.clone()),
        parameters: tool.parameters.clone(),
    }
}

/// The error result of arguments that are not a JSON object, if they are not.
pub fn bad_arguments(arguments: &Value) -> Option<ToolOutput> {
    // Arguments that did not parse never get here (the turn answers them
    // with `INVALID_ARGUMENTS`); a string is the model's JSON string.
    match arguments {
        Value::Object(_) => None,
        _ => Some(ToolOutput::error("arguments are not a JSON object")),
    }
}

/// One signed call of `tool`; every failure is an error result.
pub async fn call(
    store: &Store,
    outbound: &Outbound,
    tool: &OrgTool,
    request: WebhookCall,
) -> ToolOutput {
    call_answered(store, outbound, tool, request).await.0
}

/// [`call`], and the HTTP status the webhook answered, when it answered.
pub async fn call_answered(
    store: &Store,
    outbound: &Outbound,
    tool: &OrgTool,
    request: WebhookCall,
) -> (ToolOutput, Option<u16>) {
    if let Some(refused) = bad_arguments(&request.arguments) {
        return (refused, None);
    }
    let secret = match store.tools().tool_secret(tool) {
        Ok(secret) => secret,
        Err(error) => {
            tracing::error!(%error, tool = %tool.id, "a tool's signing secret did not open");
            return (ToolOutput::error("unreachable"), None);
        }
    };
    let body = json!({
        "toolName": tool.name,
        "toolCallId": request.call_id,
        "arguments": request.arguments,
        "threadId": request.thread.map(|t| t.to_string()),
        "agentId": request.agent.map(|a| a.to_string()),
        "orgId": request.org.to_string(),
        "userId": request.user_id,
    })
    .to_string();
    let timeout = Duration::from_millis(u64::from(tool.timeout_ms));
    let prepared = match outbound.request(reqwest::Method::POST, &tool.url) {
        Ok(prepared) => prepared,
        Err(error) => return (failure(&error, tool), None),
    };
    let sent = signed(prepared.timeout(timeout), secret.expose_secret(), body);
    let response = match outbound.send(sent).await {
        Ok(response) => response,
        Err(error) => return (failure(&error, tool), None),
    };
    let status = response.status();
    let code = Some(status.as_u16());
    if status.is_redirection() {
        return (ToolOutput::error("redirect not followed"), code);
    }
    if !status.is_success() {
        return (ToolOutput::error(format!("http {}", status.as_u16())), code);
    }
    let json = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|v| {
            v.split(';')
                .next()
                .unwrap_or_default()
                .trim()
                .to_ascii_lowercase()
        })
        .is_some_and(|v| v == "application/json" || v.ends_with("+json"));
    let bytes = match read_capped(response, RESULT_CAP).await {
        Ok(bytes) => bytes,
        Err(error) => return (failure(&error, tool), code),
    };
    if !json {
        let text = Value::String(String::from_utf8_lossy(&bytes).into_owned());
        return (
            ToolOutput {
                result: text,
                is_error: false,
            },
            code,
        );
    }
    let output = match serde_json::from_slice(&bytes) {
        Ok(result) => ToolOutput {
            result,
            is_error: false,
        },
        Err(_) => ToolOutput::error("invalid JSON from tool"),
    };
    (output, code)
}

/// The error result of a call that failed on the way.
fn failure(error: &OutboundError, tool: &OrgTool) -> ToolOutput {
    tracing::debug!(%error, tool = %tool.id, "a tool call failed");
    ToolOutput::error(match error {
        OutboundError::TimedOut => format!("{TIMEOUT_PREFIX} {} ms", tool.timeout_ms),
        OutboundError::Refused(_) => "address refused by outbound policy".into(),
        OutboundError::TooLarge(_) => "response over 256 KiB".into(),
        OutboundError::Transport(_) => "unreachable".into(),
    })
}

impl ToolExecutor for WebhookTools {
    fn offered(&self, scope: &ToolScope) -> OfferedFuture {
        let org = scope.org;
        if let Some(kept) = self.cache.get(org) {
            let org = kept.as_ref().clone();
            return Box::pin(async move {
                ServerTools {
                    org,
                    ..ServerTools::default()
                }
            });
        }
        let (store, cache) = (self.store.clone(), Arc::clone(&self.cache));
        Box::pin(async move {
            let generation = cache.generation();
            match store.tools().list_tools(org).await {
                Ok(tools) => {
                    let tools: Vec<ToolDefinition> = tools.iter().map(definition).collect();
                    cache.put(org, Arc::new(tools.clone()), generation);
                    ServerTools {
                        org: tools,
                        ..ServerTools::default()
                    }
                }
                Err(error) => {
                    tracing::error!(%error, "listing the org's tools failed; none offered");
                    ServerTools::default()
                }
            }
        })
    }

    fn execute(&self, scope: &ToolScope, tool_call: &ToolCall) -> ToolFuture {
        let (store, outbound) = (self.store.clone(), self.outbound.clone());
        let (org, name) = (scope.org, tool_call.name.clone());
        let request = WebhookCall {
            org,
            agent: Some(scope.agent),
            thread: Some(scope.thread),
            user_id: scope.user_id.clone(),
            call_id: tool_call.id.clone(),
            arguments: tool_call.arguments.clone(),
        };
        let (notes, call_id) = (Arc::clone(&scope.notes), tool_call.id.clone());
        Box::pin(async move {
            match store.tools().tool_named(org, name).await {
                Ok(Some(tool)) => {
                    let started = Stamp::now();
                    let (output, status_code) =
                        call_answered(&store, &outbound, &tool, request).await;
                    // The POST is a child of the call's tool span.
                    notes.request(
                        &call_id,
                        CallRequest {
                            kind: SpanKind::Webhook,
                            name: "POST".into(),
                            started,
                            ended: std::time::Instant::now(),
                            status_code,
                            rpc_error: None,
                            error: output.is_error.then(|| output.as_text()),
                        },
                    );
                    output
                }
                // Deleted since it was offered.
                Ok(None) => ToolOutput::error(NOT_AVAILABLE),
                Err(error) => {
                    tracing::error!(%error, "reading a tool failed");
                    ToolOutput::error("unreachable")
                }
            }
        })
    }
}
