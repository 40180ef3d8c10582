//! The messages between Confer and its in-sandbox helper (`confer
//! sandbox-agent`, [`super::agent`]): each a JSON document after its
//! length as four big-endian bytes, requests on the helper's standard
//! input and replies on its standard output. File paths in them are the
//! sandbox's own, resolved by the helper inside it.

use std::io::{Read, Write};

use serde::{Deserialize, Serialize};

/// The largest message either side sends or accepts (`computer.md` §1).
pub const MAX_MESSAGE: usize = 4 << 20;
/// The most bytes of one `Append` (base64 keeps it under the message bound).
pub const MAX_APPEND: usize = 2 << 20;

/// The per-command limits of rlimit mode (`computer.md` §4 point 4).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Limits {
    /// `RLIMIT_AS`.
    pub memory_bytes: u64,
    /// `RLIMIT_NPROC` (counted in the sandbox's user namespace).
    pub processes: u64,
    /// `RLIMIT_FSIZE`.
    pub file_bytes: u64,
}

/// What Confer asks of the helper.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Request {
    /// `bash -c command` in its own process group.
    Exec {
        id: u64,
        command: String,
        /// The working directory (relative: under the workspace).
        cwd: Option<String>,
        timeout_ms: u64,
        env: Vec<(String, String)>,
        limits: Limits,
        /// How many bytes of each stream's head, and again of its tail,
        /// are kept.
        keep: usize,
        /// Whether output is also sent on as it comes (`Output`).
        #[serde(default)]
        stream: bool,
    },
    /// Kills the process group of the running `Exec` `target`.
    Signal { id: u64, target: u64 },
    /// A file's text, or a directory's listing (two levels).
    Read { id: u64, path: String },
    /// Writes a file atomically (its directories made as needed).
    Write {
        id: u64,
        path: String,
        content: String,
    },
    /// Appends bytes (base64) to a file, emptied first when `truncate`
    /// (a workspace's seed, sent in pieces under the message bound).
    Append {
        id: u64,
        path: String,
        data: String,
        truncate: bool,
    },
}

impl Request {
    /// The request's id, which its reply repeats.
    pub fn id(&self) -> u64 {
        match self {
            Self::Exec { id, .. }
            | Self::Signal { id, .. }
            | Self::Read { id, .. }
            | Self::Write { id, .. }
            | Self::Append { id, .. } => *id,
        }
    }
}

/// One stream of a command: what was kept of it and how much was cut.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct StreamOutput {
    /// The head and tail kept (joined when nothing was cut), lossy UTF-8.
    pub head: String,
    pub tail: String,
    /// Bytes between the head and the tail that were not kept.
    pub cut: u64,
}

/// What the helper answers.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(tag = "reply", rename_all = "snake_case")]
pub enum Reply {
    /// The helper started and waits for requests (id 0).
    Ready,
    /// Output of a running `Exec` that asked for it, before its `Exec`
    /// reply.
    Output { stream: String, delta: String },
    /// An `Exec` ended.
    Exec {
        exit_code: Option<i32>,
        signal: Option<i32>,
        timed_out: bool,
        /// The command's process group met the process limit (and was
        /// killed).
        #[serde(default)]
        process_limit: bool,
        stdout: StreamOutput,
        stderr: StreamOutput,
        duration_ms: u64,
    },
    /// A file's text.
    File { content: String },
    /// A directory's entries (relative paths, directories ending in `/`),
    /// and whether the listing stopped at its bound.
    Dir {
        entries: Vec<String>,
        truncated: bool,
    },
    /// A `Write` or `Signal` done.
    Done,
    /// The request failed; the reason is shown to the model.
    Error { message: String },
}

/// A reply with the id of its request.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Envelope {
    pub id: u64,
    #[serde(flatten)]
    pub reply: Reply,
}

/// Writes one message.
pub fn write_message(out: &mut impl Write, message: &impl Serialize) -> std::io::Result<()> {
    let body = serde_json::to_vec(message).map_err(std::io::Error::other)?;
    if body.len() > MAX_MESSAGE {
        return Err(std::io::Error::other("message over 4 MiB"));
    }
    // The bound above keeps the length within four bytes.
    let length = u32::try_from(body.len()).map_err(std::io::Error::other)?;
    out.write_all(&length.to_be_bytes())?;
    out.write_all(&body)?;
    out.flush()
}

/// Reads one message; `None` at the end of the input.
pub fn read_message<T: serde::de::DeserializeOwned>(
    input: &mut impl Read,
) -> std::io::Result<Option<T>> {
    let mut length = [0u8; 4];
    match input.read_exact(&mut length) {
        Ok(()) => {}
        Err(error) if error.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(error) => return Err(error),
    }
    let length = u32::from_be_bytes(length) as usize;
    if length > MAX_MESSAGE {
        return Err(std::io::Error::other("message over 4 MiB"));
    }
    let mut body = vec![0u8; length];
    input.read_exact(&mut body)?;
    serde_json::from_slice(&body)
        .map(Some)
        .map_err(std::io::Error::other)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_reads_back_and_the_input_ends_cleanly() {
        let mut buffer = Vec::new();
        let request = Request::Read {
            id: 7,
            path: "a.txt".into(),
        };
        write_message(&mut buffer, &request).unwrap();
        let mut input = buffer.as_slice();
        let read: Request = read_message(&mut input).unwrap().unwrap();
        assert_eq!(read.id(), 7);
        assert!(read_message::<Request>(&mut input).unwrap().is_none());
    }

    #[test]
    fn a_length_over_the_bound_is_refused_before_reading_it() {
        let mut input: &[u8] = &[0xff, 0xff, 0xff, 0xff];
        assert!(read_message::<Request>(&mut input).is_err());
    }
}
