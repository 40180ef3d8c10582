//! MCP's older HTTP+SSE transport (protocol version 2024-11-05), which the
//! SDK no longer carries: a GET opens an event stream whose first event,
//! `endpoint`, names the URL messages are POSTed to; the server's messages
//! arrive as `message` events. The endpoint must be on the stream's origin
//! (a server cannot send Confer's POSTs, and their headers, elsewhere), and
//! both requests go through the outbound policy's client.

use std::pin::Pin;

use std::collections::VecDeque;

use bytes::Bytes;
use futures_util::{Stream, StreamExt};
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderValue};
use rmcp::RoleClient;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use url::Url;

use crate::outbound::{Outbound, OutboundError};
use crate::providers::sse_decoder::{DecodeError, SseDecoder};

/// Largest message a server may send in one event.
const MAX_MESSAGE_BYTES: usize = 4 * 1024 * 1024;
/// Bytes of one event at most (its data and its unfinished line), counted
/// as they arrive, before anything is kept.
const MAX_EVENT_BYTES: usize = MAX_MESSAGE_BYTES + 64 * 1024;

type Body = Pin<Box<dyn Stream<Item = reqwest::Result<Bytes>> + Send>>;

/// Why the SSE transport failed; never carries a URL or a body.
#[derive(Debug, thiserror::Error)]
pub enum SseError {
    #[error(transparent)]
    Outbound(#[from] OutboundError),
    #[error("http {0}")]
    Status(u16),
    #[error("the event stream ended before naming its endpoint")]
    NoEndpoint,
    #[error("the endpoint is not on the server's origin")]
    ForeignEndpoint,
}

/// One event of the stream: its type (`message` when it named none) and
/// data.
#[derive(Debug, Default, PartialEq, Eq)]
struct SseEvent {
    event: String,
    data: String,
}

/// An open HTTP+SSE session's transport.
pub struct SseTransport {
    body: Body,
    /// The WHATWG `text/event-stream` rules, shared with the vendors'
    /// streams: each byte read once, at most one event of
    /// [`MAX_EVENT_BYTES`] kept, so a server's line without end costs
    /// neither quadratic time nor unbounded memory.
    decoder: SseDecoder,
    ready: VecDeque<SseEvent>,
    endpoint: Url,
    client: reqwest::Client,
    headers: HeaderMap,
}

impl SseTransport {
    /// The next event; `None` when the stream ended, failed or sent an
    /// event over the bound.
    async fn next_event(&mut self) -> Option<SseEvent> {
        loop {
            if let Some(event) = self.ready.pop_front() {
                return Some(event);
            }
            let chunk = self.body.next().await?.ok()?;
            let ready = &mut self.ready;
            let fed = self.decoder.feed(&chunk, |e| {
                ready.push_back(SseEvent {
                    event: e.event.to_owned(),
                    data: e.data.to_owned(),
                });
            });
            match fed {
                Ok(()) => {}
                Err(DecodeError::TooLarge) => {
                    tracing::warn!("an MCP server sent an event over 4 MiB; its stream is closed");
                    return None;
                }
                // JSON-RPC is UTF-8: a stream that is not is not MCP.
                Err(DecodeError::NotUtf8) => {
                    tracing::warn!(
                        "an MCP server sent an event that is not UTF-8; its stream is closed"
                    );
                    return None;
                }
            }
        }
    }
}

/// Opens the event stream at `url` and waits for its endpoint.
pub async fn connect(
    outbound: &Outbound,
    url: &str,
    headers: HeaderMap,
) -> Result<SseTransport, SseError> {
    let (client, url) = outbound.client_for(url)?;
    let response = outbound
        .send(
            client
                .get(url.clone())
                .headers(headers.clone())
                .header(ACCEPT, "text/event-stream"),
        )
        .await?;
    if !response.status().is_success() {
        return Err(SseError::Status(response.status().as_u16()));
    }
    let mut transport = SseTransport {
        body: Box::pin(response.bytes_stream()),
        decoder: SseDecoder::with_limit(MAX_EVENT_BYTES),
        ready: VecDeque::new(),
        // Replaced by the endpoint below.
        endpoint: url.clone(),
        client,
        headers,
    };
    let endpoint = loop {
        match transport.next_event().await {
            Some(event) if event.event == "endpoint" => break event.data,
            Some(_) => {}
            None => return Err(SseError::NoEndpoint),
        }
    };
    let endpoint = url
        .join(endpoint.trim())
        .map_err(|_| SseError::ForeignEndpoint)?;
    if endpoint.origin() != url.origin() {
        return Err(SseError::ForeignEndpoint);
    }
    transport.endpoint = endpoint;
    Ok(transport)
}

impl Transport<RoleClient> for SseTransport {
    type Error = SseError;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), SseError>> + Send + 'static {
        let request = self
            .client
            .post(self.endpoint.clone())
            .headers(self.headers.clone())
            .header(CONTENT_TYPE, HeaderValue::from_static("application/json"))
            .json(&item);
        async move {
            let response = request
                .send()
                .await
                .map_err(|e| SseError::Outbound(OutboundError::transport(&e)))?;
            if response.status().is_success() {
                Ok(())
            } else {
                Err(SseError::Status(response.status().as_u16()))
            }
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        loop {
            let event = self.next_event().await?;
            if event.event != "message" {
                continue;
            }
            if event.data.len() > MAX_MESSAGE_BYTES {
                tracing::warn!("an MCP server's message over 4 MiB was dropped");
                continue;
            }
            match serde_json::from_str(&event.data) {
                Ok(message) => return Some(message),
                Err(_) => tracing::warn!("an MCP server sent a message that is not JSON-RPC"),
            }
        }
    }

    async fn close(&mut self) -> Result<(), SseError> {
        Ok(())
    }
}
