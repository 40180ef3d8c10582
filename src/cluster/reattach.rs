//! A reader reattaching on a node that does not hold the turn's frames
//! (`scale.md` §4): a takeover's new owner, or a restarted node. The turn's
//! `turns` row says what the reader missed; the frames themselves lived
//! only on the node that ran the turn.

use confer_actors::{FrameId, ThreadEvent, codes};

use crate::store::pg::TurnState;

/// The `detail` of a turn whose node stopped.
pub const NODE_FAILED_DETAIL: &str =
    "the node running this turn stopped; its answer was not stored";

/// What a reader resuming after a frame of a turn this node holds no
/// frames of has missed.
#[derive(Debug, PartialEq)]
pub enum Missed {
    /// The turn ended without its answer stored: the `error` and
    /// `done {ok:false}` (id-less) the reader never got.
    Failed([ThreadEvent; 2]),
    /// The reader had read to the turn's `done`.
    Nothing,
    /// Frames it had not read are gone, or the turn was never stored (a
    /// queued send of a node that stopped: its key was never recorded, so
    /// a retry runs it).
    Gap,
}

/// What a reader who last read `at` missed, by turn `at.turn`'s row.
pub fn missed(row: Option<TurnState>, at: FrameId) -> Missed {
    match row {
        Some(TurnState::Done { last_frame }) if at.n >= last_frame => Missed::Nothing,
        Some(TurnState::Failed { last_frame, .. })
            if last_frame.is_some_and(|last| at.n >= last) =>
        {
            Missed::Nothing
        }
        Some(TurnState::Failed { code, .. }) => {
            let failure = match code.as_deref() {
                Some(code) if code != codes::NODE_FAILED.code => ThreadEvent::failure(
                    codes::INTERNAL,
                    Some("the turn failed unexpectedly".into()),
                    String::new(),
                ),
                _ => ThreadEvent::failure(
                    codes::NODE_FAILED,
                    Some(NODE_FAILED_DETAIL.into()),
                    String::new(),
                ),
            };
            Missed::Failed(failure)
        }
        Some(TurnState::Done { .. } | TurnState::Running) | None => Missed::Gap,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(turn: u64, n: u64) -> FrameId {
        FrameId { turn, n }
    }

    #[test]
    fn a_turn_whose_node_stopped_ends_with_node_failed() {
        let row = TurnState::Failed {
            code: Some("NODE_FAILED".into()),
            last_frame: None,
        };
        let Missed::Failed([error, done]) = missed(Some(row), at(3, 4)) else {
            panic!("a failed turn is told");
        };
        assert!(
            matches!(&error, ThreadEvent::Error { code, detail } if code == "NODE_FAILED" && detail.as_deref() == Some(NODE_FAILED_DETAIL))
        );
        assert!(matches!(&done, ThreadEvent::Done(done) if !done.ok && done.content.is_empty()));
    }

    #[test]
    fn a_turn_that_broke_on_its_node_is_told_as_internal() {
        let row = TurnState::Failed {
            code: Some("INTERNAL".into()),
            last_frame: Some(5),
        };
        assert!(matches!(
            missed(Some(row.clone()), at(3, 2)),
            Missed::Failed([ThreadEvent::Error { ref code, .. }, _]) if code == "INTERNAL"
        ));
        assert_eq!(missed(Some(row), at(3, 5)), Missed::Nothing);
    }

    #[test]
    fn a_done_turn_was_missed_only_before_its_done() {
        let row = TurnState::Done { last_frame: 6 };
        assert_eq!(missed(Some(row.clone()), at(2, 6)), Missed::Nothing);
        assert_eq!(missed(Some(row), at(2, 5)), Missed::Gap);
    }

    #[test]
    fn an_unstored_or_running_turn_is_a_gap() {
        assert_eq!(missed(None, at(9, 0)), Missed::Gap);
        assert_eq!(missed(Some(TurnState::Running), at(9, 0)), Missed::Gap);
    }
}
