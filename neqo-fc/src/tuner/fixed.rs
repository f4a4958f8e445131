//! A static window: what neqo did before auto-tuning (1 MiB) and what
//! yamux uses by default (256 KiB). The sizes themselves are
//! [`crate::Config`]'s initial windows.

use super::{TuneInput, Tuner};

/// Never changes a window: every controller keeps the window it was
/// created with (set the initial windows in [`crate::Config`], and
/// disable seeding to keep streams at exactly that size).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Fixed;

impl Tuner for Fixed {
    fn tune(&self, input: &TuneInput) -> u64 {
        input.window
    }
}
