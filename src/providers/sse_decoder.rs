//! The vendors' Server-Sent Events, decoded from the body's chunks as they
//! arrive (WHATWG HTML, "Interpreting an event stream").
//!
//! Written here instead of using eventsource-stream because the token path
//! pays for every copy (issue 37): that crate gives each chunk a new
//! `String`, copies the rest of its buffer after every line, and allocates
//! each event's fields, which was half of a streamed token's instructions.
//! This decoder reads a chunk in place, keeps only an unfinished line (one
//! buffer per connection), and hands each event's fields out borrowed; the
//! event's `data` is copied once, into a buffer reused for every event.
//! MCP's HTTP+SSE transport uses it too, with its own bound.

/// One event: its type (`message` when the stream named none) and its data
/// lines joined by `\n`. Borrowed from the decoder until the next event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WireEvent<'a> {
    pub event: &'a str,
    pub data: &'a str,
}

/// The largest vendor event kept (the default bound): its unfinished line
/// and its data lines. A vendor's event is a chunk of an answer (a whole
/// tool call's arguments at most), so one past this is a broken or hostile
/// stream, not an answer.
pub const MAX_EVENT_BYTES: usize = 8 * 1024 * 1024;

/// Why a body cannot be decoded.
#[derive(Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// A line was not UTF-8.
    NotUtf8,
    /// An event grew past the decoder's bound.
    TooLarge,
}

/// The decoder of one response body.
#[derive(Debug)]
pub struct SseDecoder {
    /// The largest event kept, in bytes.
    limit: usize,
    /// The unfinished line of the previous chunks.
    partial: Vec<u8>,
    /// The event being built: its type and its data lines.
    event: String,
    data: String,
    /// The previous chunk ended with `\r`: a `\n` opening this one belongs
    /// to the same line ending.
    after_cr: bool,
    /// The first line was read (a byte order mark is only skipped there,
    /// whichever chunks it came in).
    started: bool,
}

impl Default for SseDecoder {
    fn default() -> Self {
        Self::with_limit(MAX_EVENT_BYTES)
    }
}

impl SseDecoder {
    /// A decoder that refuses an event past `limit` bytes.
    pub fn with_limit(limit: usize) -> Self {
        Self {
            limit,
            partial: Vec::new(),
            event: String::new(),
            data: String::new(),
            after_cr: false,
            started: false,
        }
    }

    /// Decodes `chunk`, calling `on_event` for every event it completes.
    /// The unfinished rest is kept for the next chunk; the events still
    /// unfinished when the body ends are dropped, as the standard says.
    pub fn feed(
        &mut self,
        mut chunk: &[u8],
        mut on_event: impl FnMut(WireEvent<'_>),
    ) -> Result<(), DecodeError> {
        if self.after_cr && !chunk.is_empty() {
            self.after_cr = false;
            if chunk[0] == b'\n' {
                chunk = &chunk[1..];
            }
        }
        // A line begun in an earlier chunk: finish it from this one.
        if !self.partial.is_empty() {
            let Some(end) = memchr::memchr2(b'\n', b'\r', chunk) else {
                return self.keep(chunk);
            };
            let mut partial = std::mem::take(&mut self.partial);
            partial.extend_from_slice(&chunk[..end]);
            let line = std::str::from_utf8(&partial).map_err(|_| DecodeError::NotUtf8);
            let taken = line.map(|line| self.line(line, &mut on_event));
            partial.clear();
            // The buffer keeps its capacity for the next unfinished line.
            self.partial = partial;
            taken?;
            if self.data.len() > self.limit {
                return Err(DecodeError::TooLarge);
            }
            chunk = self.skip_ending(chunk, end);
        }
        while let Some(end) = memchr::memchr2(b'\n', b'\r', chunk) {
            let line = std::str::from_utf8(&chunk[..end]).map_err(|_| DecodeError::NotUtf8)?;
            self.line(line, &mut on_event);
            if self.data.len() > self.limit {
                return Err(DecodeError::TooLarge);
            }
            chunk = self.skip_ending(chunk, end);
        }
        self.keep(chunk)
    }

    /// Keeps the start of an unfinished line, within the event's bound.
    fn keep(&mut self, rest: &[u8]) -> Result<(), DecodeError> {
        if self.partial.len() + self.data.len() + rest.len() > self.limit {
            return Err(DecodeError::TooLarge);
        }
        self.partial.extend_from_slice(rest);
        Ok(())
    }

    /// `chunk` after the line ending at `end` (`\r\n`, `\n` or `\r`).
    fn skip_ending<'c>(&mut self, chunk: &'c [u8], end: usize) -> &'c [u8] {
        if chunk[end] == b'\r' {
            match chunk.get(end + 1) {
                Some(b'\n') => return &chunk[end + 2..],
                None => self.after_cr = true,
                Some(_) => {}
            }
        }
        &chunk[end + 1..]
    }

    /// One line: a field of the event, a comment, or the blank line that
    /// dispatches the event.
    fn line(&mut self, line: &str, on_event: &mut impl FnMut(WireEvent<'_>)) {
        let line = if self.started {
            line
        } else {
            self.started = true;
            line.strip_prefix('\u{feff}').unwrap_or(line)
        };
        if line.is_empty() {
            if !self.data.is_empty() {
                // The data's last line feed is not part of it.
                self.data.pop();
                let event = if self.event.is_empty() {
                    "message"
                } else {
                    &self.event
                };
                on_event(WireEvent {
                    event,
                    data: &self.data,
                });
            }
            self.data.clear();
            self.event.clear();
            return;
        }
        if line.starts_with(':') {
            return;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match field {
            "data" => {
                self.data.push_str(value);
                self.data.push('\n');
            }
            "event" => {
                self.event.clear();
                self.event.push_str(value);
            }
            // `id` and `retry` steer a browser's reconnection; a vendor's
            // answer is never resumed, so they are read and ignored.
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The events of `chunks` as (type, data) pairs.
    fn decode(chunks: &[&[u8]]) -> Result<Vec<(String, String)>, DecodeError> {
        let mut decoder = SseDecoder::default();
        let mut out = Vec::new();
        for chunk in chunks {
            decoder.feed(chunk, |e| out.push((e.event.to_owned(), e.data.to_owned())))?;
        }
        Ok(out)
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(e, d)| ((*e).to_owned(), (*d).to_owned()))
            .collect()
    }

    #[test]
    fn fields_comments_and_blank_lines_follow_the_standard() {
        let body = "\u{feff}: a comment\nevent: delta\ndata: {\"a\":1}\n\n\
                    data:no space\ndata:  two spaces\nid: 7\nretry: 10\nunknown: x\n\n\
                    event: empty\n\n\
                    data\n\n\
                    data: unfinished";
        let want = pairs(&[
            ("delta", "{\"a\":1}"),
            ("message", "no space\n two spaces"),
            ("message", ""),
        ]);
        // An event with no data line is not dispatched; a bare `data` is a
        // data line with an empty value (an event whose data is empty);
        // the unfinished last event is dropped.
        assert_eq!(decode(&[body.as_bytes()]).unwrap(), want);
        assert_eq!(
            decode(&[b"data\ndata\n\n"]).unwrap(),
            pairs(&[("message", "\n")])
        );
    }

    #[test]
    fn every_line_ending_and_every_split_decodes_the_same() {
        let body = "event: a\r\ndata: one\r\n\r\ndata: two\rdata: 2\r\revent: c\ndata: three\n\n";
        let want = pairs(&[("a", "one"), ("message", "two\n2"), ("c", "three")]);
        assert_eq!(decode(&[body.as_bytes()]).unwrap(), want);
        let bytes = body.as_bytes();
        for at in 1..bytes.len() {
            for second in at..bytes.len() {
                let got = decode(&[&bytes[..at], &bytes[at..second], &bytes[second..]]).unwrap();
                assert_eq!(got, want, "split at {at} and {second}");
            }
        }
        let trickle: Vec<&[u8]> = bytes.chunks(1).collect();
        assert_eq!(decode(&trickle).unwrap(), want);
        // A byte order mark is skipped however the chunks cut it, and only
        // at the start.
        let marked = format!("\u{feff}{body}");
        let trickle: Vec<&[u8]> = marked.as_bytes().chunks(1).collect();
        assert_eq!(decode(&trickle).unwrap(), want);
        let later = format!("{body}\u{feff}data: x\n\n");
        assert_eq!(decode(&[later.as_bytes()]).unwrap(), want);
    }

    #[test]
    fn a_character_split_across_chunks_is_whole_and_bad_bytes_are_refused() {
        let body = "data: é ✓\n\n".as_bytes();
        for at in 1..body.len() {
            let got = decode(&[&body[..at], &body[at..]]).unwrap();
            assert_eq!(got, pairs(&[("message", "é ✓")]), "split at {at}");
        }
        assert_eq!(decode(&[b"data: \xff\n\n"]), Err(DecodeError::NotUtf8));
        assert_eq!(decode(&[b"data: \xff", b"\n\n"]), Err(DecodeError::NotUtf8));
    }

    #[test]
    fn an_event_past_its_bound_is_refused_however_it_grows() {
        let mb = vec![b'x'; 1024 * 1024];
        // One line that never ends.
        let mut decoder = SseDecoder::default();
        let mut fed = Ok(());
        for _ in 0..9 {
            fed = decoder.feed(&mb, |_| {});
            if fed.is_err() {
                break;
            }
        }
        assert_eq!(fed, Err(DecodeError::TooLarge));
        assert!(decoder.partial.len() <= MAX_EVENT_BYTES);
        // Data lines that never reach a blank line.
        let mut line = b"data: ".to_vec();
        line.extend_from_slice(&mb);
        line.push(b'\n');
        let mut decoder = SseDecoder::default();
        let mut fed = Ok(());
        for _ in 0..9 {
            fed = decoder.feed(&line, |_| {});
            if fed.is_err() {
                break;
            }
        }
        assert_eq!(fed, Err(DecodeError::TooLarge));
        // Just under the bound, one event is whole.
        let mut big = b"data: ".to_vec();
        big.extend(std::iter::repeat_n(b'y', MAX_EVENT_BYTES - 16));
        big.extend_from_slice(b"\n\n");
        assert_eq!(decode(&[&big]).unwrap().len(), 1);
    }

    #[test]
    fn a_decoder_keeps_its_own_bound() {
        let mut decoder = SseDecoder::with_limit(64);
        let mut seen = 0;
        decoder
            .feed(
                &[b"data: ".as_slice(), &[b'x'; 50], b"\n\n"].concat(),
                |_| seen += 1,
            )
            .unwrap();
        assert_eq!(seen, 1);
        let long = [b"data: ".as_slice(), &[b'x'; 60]].concat();
        assert_eq!(decoder.feed(&long, |_| {}), Err(DecodeError::TooLarge));
    }

    #[test]
    fn an_unfinished_line_keeps_one_buffer() {
        let mut decoder = SseDecoder::default();
        let mut seen = 0;
        decoder.feed(b"data: abc", |_| seen += 1).unwrap();
        let capacity = decoder.partial.capacity();
        decoder.feed(b"def\n\ndata: x", |_| seen += 1).unwrap();
        assert_eq!(seen, 1);
        assert_eq!(decoder.partial, b"data: x");
        assert!(decoder.partial.capacity() >= capacity);
    }
}
