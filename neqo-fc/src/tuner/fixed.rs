//! A static window: what neqo did before auto-tuning (1 MiB) and what
//! yamux uses by default (256 KiB).

use super::{TuneInput, Tuner};
use crate::SubjectKind;

/// Never changes a window: the controller keeps the window it was created
/// with. `max_window` reports the configured sizes so budgets and caps stay
/// meaningful.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fixed {
    /// Stream window in bytes.
    pub stream: u64,
    /// Connection window in bytes.
    pub connection: u64,
}

impl Tuner for Fixed {
    fn tune(&self, input: &TuneInput) -> u64 {
        input.window
    }

    fn max_window(&self, kind: SubjectKind) -> u64 {
        match kind {
            SubjectKind::Stream => self.stream,
            SubjectKind::Connection => self.connection,
        }
    }
}
