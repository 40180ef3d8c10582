//! MCP's older HTTP+SSE transport (protocol version 2024-11-05), which the
//! SDK no longer carries: a GET opens an event stream whose first event,
//! `endpoint`, names the URL messages are POSTed to; the server's messages
//! arrive as `message` events. The endpoint must be on the stream's origin
//! (a server cannot send Confer's POSTs, and their headers, elsewhere), and
//! both requests go through the outbound policy's client.

use std::pin::Pin;

use eventsource_stream::{Event, Eventsource};
use futures_util::{Stream, StreamExt};
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderValue};
use rmcp::RoleClient;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use url::Url;

use crate::outbound::{Outbound, OutboundError};

/// Largest message a server may send in one event.
const MAX_MESSAGE_BYTES: usize = 4 * 1024 * 1024;

type Events = Pin<Box<dyn Stream<Item = Result<Event, String>> + Send>>;

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

/// An open HTTP+SSE session's transport.
pub struct SseTransport {
    events: Events,
    endpoint: Url,
    client: reqwest::Client,
    headers: HeaderMap,
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
    let mut events: Events = Box::pin(
        response
            .bytes_stream()
            .eventsource()
            .map(|event| event.map_err(|e| e.to_string())),
    );
    let endpoint = loop {
        match events.next().await {
            Some(Ok(event)) if event.event == "endpoint" => break event.data,
            Some(Ok(_)) => {}
            Some(Err(_)) | None => return Err(SseError::NoEndpoint),
        }
    };
    let endpoint = url
        .join(endpoint.trim())
        .map_err(|_| SseError::ForeignEndpoint)?;
    if endpoint.origin() != url.origin() {
        return Err(SseError::ForeignEndpoint);
    }
    Ok(SseTransport {
        events,
        endpoint,
        client,
        headers,
    })
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
            let event = self.events.next().await?.ok()?;
            if event.event != "message" && !event.event.is_empty() {
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
