//! The Connect protocol's envelopes (connectrpc.com, "Streaming"), as
//! envd's server-streaming calls use them: a flags byte, the message's
//! length as four big-endian bytes, then the JSON message. Flag `0x02`
//! marks the end of the stream, whose message carries the call's error,
//! if any.

/// The flag of the end-of-stream envelope.
const END_STREAM: u8 = 0x02;
/// The largest message read (envd's output events are small; 4 MiB bounds
/// a broken or hostile stream).
pub const MAX_MESSAGE: usize = 4 << 20;

/// One envelope of a request: `message` after its flags and length.
pub fn envelope(message: &[u8]) -> Vec<u8> {
    let mut framed = Vec::with_capacity(message.len() + 5);
    framed.push(0);
    // A request is one small JSON document, far under 4 GiB.
    framed.extend_from_slice(&(message.len() as u32).to_be_bytes());
    framed.extend_from_slice(message);
    framed
}

/// What one envelope of a response was.
#[derive(Debug, PartialEq, Eq)]
pub enum Frame {
    /// A message of the stream.
    Message(Vec<u8>),
    /// The end of the stream, with its JSON (`{}` or `{"error": …}`).
    End(Vec<u8>),
}

/// Envelopes read from a body's chunks as they arrive.
#[derive(Default)]
pub struct Decoder {
    buffer: Vec<u8>,
}

impl Decoder {
    /// Takes a chunk; the envelopes it completes, or why the stream is
    /// not Connect's.
    pub fn push(&mut self, chunk: &[u8]) -> Result<Vec<Frame>, String> {
        self.buffer.extend_from_slice(chunk);
        let mut frames = Vec::new();
        while let Some(head) = self.buffer.get(..5) {
            let flags = head[0];
            let length = u32::from_be_bytes([head[1], head[2], head[3], head[4]]) as usize;
            if length > MAX_MESSAGE {
                return Err("a Connect message over 4 MiB".into());
            }
            if self.buffer.len() < 5 + length {
                break;
            }
            let message = self.buffer[5..5 + length].to_vec();
            self.buffer.drain(..5 + length);
            frames.push(if flags & END_STREAM != 0 {
                Frame::End(message)
            } else {
                Frame::Message(message)
            });
        }
        Ok(frames)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelopes_are_read_across_chunks() {
        let mut body = envelope(br#"{"a":1}"#);
        body.extend_from_slice(&[END_STREAM, 0, 0, 0, 2]);
        body.extend_from_slice(b"{}");
        let mut decoder = Decoder::default();
        let mut frames = Vec::new();
        for byte in &body {
            frames.extend(decoder.push(std::slice::from_ref(byte)).unwrap());
        }
        assert_eq!(
            frames,
            [
                Frame::Message(br#"{"a":1}"#.to_vec()),
                Frame::End(b"{}".to_vec())
            ]
        );
        assert!(
            Decoder::default()
                .push(&[0, 0xff, 0xff, 0xff, 0xff])
                .is_err()
        );
    }
}
