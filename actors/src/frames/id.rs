//! Frame ids: `T.N`, the thread's turn number and the frame's index in it.

use std::fmt;
use std::str::FromStr;

/// A frame's id: the thread's turn number and the frame's index in the turn
/// (from 1; 0 for frames outside the log such as `queued`). Written `T.N`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FrameId {
    pub turn: u64,
    pub n: u64,
}

impl fmt::Display for FrameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.turn, self.n)
    }
}

impl FromStr for FrameId {
    type Err = ();

    fn from_str(text: &str) -> Result<Self, ()> {
        let (turn, n) = text.split_once('.').ok_or(())?;
        let digits = |s: &str| -> Result<u64, ()> {
            if s.is_empty() || s.len() > 19 || !s.bytes().all(|b| b.is_ascii_digit()) {
                return Err(());
            }
            s.parse().map_err(|_| ())
        };
        Ok(Self {
            turn: digits(turn)?,
            n: digits(n)?,
        })
    }
}
