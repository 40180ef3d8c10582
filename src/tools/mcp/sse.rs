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

/// Largest message a server may send in one event.
const MAX_MESSAGE_BYTES: usize = 4 * 1024 * 1024;
/// Bytes of one event (all its lines, field names included) at most,
/// counted as they arrive, before anything is kept.
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

/// One event of the stream: its type (`""`: `message`) and data.
#[derive(Debug, Default, PartialEq, Eq)]
struct SseEvent {
    event: String,
    data: String,
}

/// A server's event over [`MAX_EVENT_BYTES`].
#[derive(Debug)]
struct EventTooLarge;

/// The event stream's parser (the WHATWG `text/event-stream` rules that
/// MCP uses: `event` and `data` fields, comments, a blank line ends an
/// event). It reads each byte once and keeps at most one event of
/// [`MAX_EVENT_BYTES`]: a general parser that re-reads its whole buffer
/// for each chunk would spend quadratic time, and unbounded memory, on a
/// server's line without end.
#[derive(Default)]
struct EventDecoder {
    line: Vec<u8>,
    current: SseEvent,
    has_data: bool,
    /// Bytes of the current event so far (line ends excluded).
    size: usize,
    /// The last byte was a `\r` (a `\n` right after it ends no new line).
    after_cr: bool,
}

impl EventDecoder {
    /// Takes the next chunk; the events it completes are added to `out`.
    fn push(
        &mut self,
        mut chunk: &[u8],
        out: &mut VecDeque<SseEvent>,
    ) -> Result<(), EventTooLarge> {
        while let Some((&first, rest)) = chunk.split_first() {
            if std::mem::take(&mut self.after_cr) && first == b'\n' {
                chunk = rest;
                continue;
            }
            let Some(end) = chunk.iter().position(|&b| b == b'\n' || b == b'\r') else {
                self.grow(chunk.len())?;
                self.line.extend_from_slice(chunk);
                return Ok(());
            };
            self.grow(end)?;
            self.line.extend_from_slice(&chunk[..end]);
            self.after_cr = chunk[end] == b'\r';
            chunk = &chunk[end + 1..];
            self.end_line(out);
        }
        Ok(())
    }

    fn grow(&mut self, bytes: usize) -> Result<(), EventTooLarge> {
        self.size += bytes;
        if self.size > MAX_EVENT_BYTES {
            return Err(EventTooLarge);
        }
        Ok(())
    }

    fn end_line(&mut self, out: &mut VecDeque<SseEvent>) {
        let line = std::mem::take(&mut self.line);
        if line.is_empty() {
            let event = std::mem::take(&mut self.current);
            if std::mem::take(&mut self.has_data) {
                out.push_back(event);
            }
            self.size = 0;
            return;
        }
        if line[0] == b':' {
            return;
        }
        let (field, value) = match line.iter().position(|&b| b == b':') {
            Some(at) => {
                let value = &line[at + 1..];
                (&line[..at], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line.as_slice(), &[][..]),
        };
        let value = String::from_utf8_lossy(value);
        match field {
            b"event" => self.current.event = value.into_owned(),
            b"data" => {
                if self.has_data {
                    self.current.data.push('\n');
                }
                self.current.data.push_str(&value);
                self.has_data = true;
            }
            _ => {}
        }
    }
}

/// An open HTTP+SSE session's transport.
pub struct SseTransport {
    body: Body,
    decoder: EventDecoder,
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
            if self.decoder.push(&chunk, &mut self.ready).is_err() {
                tracing::warn!("an MCP server sent an event over 4 MiB; its stream is closed");
                return None;
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
        decoder: EventDecoder::default(),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(chunks: &[&[u8]]) -> Result<Vec<SseEvent>, EventTooLarge> {
        let (mut decoder, mut out) = (EventDecoder::default(), VecDeque::new());
        for chunk in chunks {
            decoder.push(chunk, &mut out)?;
        }
        Ok(out.into())
    }

    fn event(event: &str, data: &str) -> SseEvent {
        SseEvent {
            event: event.into(),
            data: data.into(),
        }
    }

    #[test]
    fn events_are_read_across_chunks_with_any_line_end() {
        let read = decode(&[
            b"event: endpoint\r",
            b"\ndata: /messages?session=1\r\n\r\n: a comment\n",
            b"data: {\"a\"\ndata:1}\n\nevent: message\rdata: x\r\r",
            b"data: unfinished",
        ])
        .unwrap();
        assert_eq!(
            read,
            [
                event("endpoint", "/messages?session=1"),
                event("", "{\"a\"\n1}"),
                event("message", "x"),
            ]
        );
    }

    #[test]
    fn an_event_over_the_bound_is_refused_as_it_arrives() {
        let line = vec![b'x'; 1024 * 1024];
        let mut chunks: Vec<&[u8]> = vec![b"data: "];
        chunks.extend(std::iter::repeat_n(line.as_slice(), 4));
        assert!(decode(&chunks).is_ok());
        // Past 4 MiB and 64 KiB of one line without a newline.
        chunks.push(&line[..128 * 1024]);
        assert!(decode(&chunks).is_err());
    }

    #[test]
    fn many_lines_of_one_event_count_together_and_a_blank_line_resets() {
        let line = [b"data: ".as_slice(), &vec![b'y'; 1024 * 1024], b"\r\n"].concat();
        let mut chunks: Vec<&[u8]> = std::iter::repeat_n(line.as_slice(), 4).collect();
        chunks.push(b"\r\n");
        chunks.extend(std::iter::repeat_n(line.as_slice(), 4));
        chunks.push(b"\n");
        assert_eq!(decode(&chunks).unwrap().len(), 2);
        // Without an end, the fifth megabyte is too many.
        chunks.extend(std::iter::repeat_n(line.as_slice(), 5));
        assert!(decode(&chunks).is_err());
    }
}
