//! A command's output kept within bounds (`computer.md` §3): the sandbox
//! keeps only the first and last `output_limit_bytes` of each stream
//! ([`HeadTail`]), and the model gets at most `output_limit_bytes` of both
//! together, cut in the middle around a line saying how much went
//! ([`for_model`]).

use super::protocol::StreamOutput;

/// The first and last `keep` bytes of a stream, and how many between them
/// were dropped.
#[derive(Debug)]
pub struct HeadTail {
    keep: usize,
    head: Vec<u8>,
    /// A ring of the last `keep` bytes past the head, oldest at `start`.
    tail: Vec<u8>,
    start: usize,
    total: u64,
}

impl HeadTail {
    /// Keeps `keep` bytes at each end.
    pub fn new(keep: usize) -> Self {
        Self {
            keep,
            head: Vec::new(),
            tail: Vec::new(),
            start: 0,
            total: 0,
        }
    }

    /// Takes more of the stream.
    pub fn push(&mut self, mut bytes: &[u8]) {
        self.total += bytes.len() as u64;
        let room = self.keep - self.head.len();
        let into_head = room.min(bytes.len());
        self.head.extend_from_slice(&bytes[..into_head]);
        bytes = &bytes[into_head..];
        if bytes.len() >= self.keep {
            self.tail.clear();
            self.tail
                .extend_from_slice(&bytes[bytes.len() - self.keep..]);
            self.start = 0;
            return;
        }
        for &byte in bytes {
            if self.tail.len() < self.keep {
                self.tail.push(byte);
            } else {
                self.tail[self.start] = byte;
                self.start = (self.start + 1) % self.keep;
            }
        }
    }

    /// What was kept.
    pub fn finish(self) -> StreamOutput {
        let mut tail = self.tail[self.start..].to_vec();
        tail.extend_from_slice(&self.tail[..self.start]);
        let kept = (self.head.len() + tail.len()) as u64;
        StreamOutput {
            head: String::from_utf8_lossy(&self.head).into_owned(),
            tail: String::from_utf8_lossy(&tail).into_owned(),
            cut: self.total - kept,
        }
    }
}

/// The longest prefix of `text` within `bytes` bytes that ends on a
/// character boundary.
fn prefix(text: &str, bytes: usize) -> &str {
    let mut end = bytes.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// The longest suffix of `text` within `bytes` bytes.
fn suffix(text: &str, bytes: usize) -> &str {
    let mut start = text.len().saturating_sub(bytes);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    &text[start..]
}

/// A stream's whole size, the cut bytes included.
fn size(stream: &StreamOutput) -> usize {
    stream.head.len() + stream.tail.len() + stream.cut as usize
}

/// A stream as the model sees it within `budget` bytes, and whether
/// anything was cut.
fn cut_to(stream: &StreamOutput, budget: usize) -> (String, bool) {
    if stream.cut == 0 && stream.head.len() + stream.tail.len() <= budget {
        return (format!("{}{}", stream.head, stream.tail), false);
    }
    let head = prefix(&stream.head, budget / 2);
    let tail = suffix(&stream.tail, budget - head.len());
    let cut = size(stream) - head.len() - tail.len();
    (format!("{head}\n[… {cut} bytes cut …]\n{tail}"), true)
}

/// Both streams within `limit` bytes in all (half each, a stream under
/// its half leaving the rest to the other), and whether either was cut.
pub fn for_model(
    stdout: &StreamOutput,
    stderr: &StreamOutput,
    limit: usize,
) -> (String, String, bool) {
    let (out, err, half) = (size(stdout), size(stderr), limit / 2);
    let (out_budget, err_budget) = if out + err <= limit {
        (out, err)
    } else if out <= half {
        (out, limit - out)
    } else if err <= half {
        (limit - err, err)
    } else {
        (half, limit - half)
    };
    let (out, out_cut) = cut_to(stdout, out_budget);
    let (err, err_cut) = cut_to(stderr, err_budget);
    (out, err, out_cut || err_cut)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(keep: usize, chunks: &[&[u8]]) -> StreamOutput {
        let mut ht = HeadTail::new(keep);
        for chunk in chunks {
            ht.push(chunk);
        }
        ht.finish()
    }

    #[test]
    fn short_output_is_kept_whole() {
        let out = kept(8, &[b"abc", b"de"]);
        assert_eq!(
            (out.head.as_str(), out.tail.as_str(), out.cut),
            ("abcde", "", 0)
        );
    }

    #[test]
    fn long_output_keeps_its_ends_across_chunks() {
        let out = kept(4, &[b"0123", b"45", b"6789", b"ab"]);
        assert_eq!(
            (out.head.as_str(), out.tail.as_str(), out.cut),
            ("0123", "89ab", 4)
        );
        let out = kept(4, &[b"0123456789abcdef"]);
        assert_eq!(
            (out.head.as_str(), out.tail.as_str(), out.cut),
            ("0123", "cdef", 8)
        );
    }

    #[test]
    fn the_model_gets_at_most_the_limit_with_a_cut_line() {
        let big = kept(1000, &[&[b'x'; 100_000]]);
        let small = kept(1000, &[b"warning\n"]);
        let (out, err, truncated) = for_model(&big, &small, 1024);
        assert!(truncated);
        assert_eq!(err, "warning\n");
        let body = out.replace(&format!("\n[… {} bytes cut …]\n", 100_000 - (1024 - 8)), "");
        assert_eq!(body.len() + err.len(), 1024, "{out}");
        let (out, err, truncated) = for_model(&small, &small, 1024);
        assert_eq!(
            (out.as_str(), err.as_str(), truncated),
            ("warning\n", "warning\n", false)
        );
    }

    #[test]
    fn a_cut_never_splits_a_character() {
        let text = "é".repeat(1000);
        let stream = kept(2000, &[text.as_bytes()]);
        let (out, _, truncated) = for_model(&stream, &StreamOutput::default(), 1025);
        assert!(truncated);
        assert!(out.contains("bytes cut"));
    }
}
