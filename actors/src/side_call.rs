//! Reading a model call made beside an answer (a compaction's summary, a
//! memory collection): nothing of it is relayed to a client.

use futures_util::StreamExt;

use crate::provider::{ModelError, ModelEvent, ModelStream};

/// What a call made beside an answer gave (a compaction's summary, a
/// memory collection): its text, its usage, or its failure.
pub struct SideCall {
    /// The vendor accepted it: it is billed.
    pub accepted: bool,
    pub text: String,
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    pub failure: Option<ModelError>,
}

/// Reads a side call to its end (nothing is relayed to a client).
pub async fn read_side_call(mut stream: ModelStream) -> SideCall {
    let mut call = SideCall {
        accepted: false,
        text: String::new(),
        input_tokens: None,
        output_tokens: None,
        failure: None,
    };
    while let Some(event) = stream.next().await {
        match event {
            ModelEvent::Accepted => call.accepted = true,
            ModelEvent::Text(piece) => call.text.push_str(&piece),
            ModelEvent::Usage {
                input_tokens,
                output_tokens,
                ..
            } => {
                call.input_tokens = input_tokens.or(call.input_tokens);
                call.output_tokens = output_tokens.or(call.output_tokens);
            }
            ModelEvent::Finish(_) => break,
            ModelEvent::Error(error) => {
                call.failure = Some(error);
                break;
            }
            _ => {}
        }
    }
    call
}
