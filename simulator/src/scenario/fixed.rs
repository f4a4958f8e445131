//! A static window: the tuner of the `unlimited` bound and of fixed-window
//! peers (neqo before auto-tuning, yamux). The sizes are the run's
//! [`neqo_fc::Config`] windows.

use neqo_fc::{TuneInput, Tuner};

/// Never changes a window: every controller keeps the window it was
/// created with (set the initial windows in the config, and disable
/// seeding to keep streams at exactly that size).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Fixed;

impl Tuner for Fixed {
    fn tune(&self, input: &TuneInput) -> u64 {
        input.window
    }
}
