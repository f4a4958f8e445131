//! Each invariant its own property, over random configurations and
//! operation sequences.

use proptest::prelude::*;

use super::{
    pt_config,
    strategies::{config, config_without_rebalancing, ops},
    world::{Checks, run},
};

proptest! {
    #![proptest_config(pt_config())]

    #[test]
    fn committed_never_exceeds_the_budget_without_closes(config in config(), ops in ops(false)) {
        run(config, &ops, Checks { budget: true, ..Checks::default() });
    }

    /// See `closing_a_stream_keeps_committed_within_the_budget` in
    /// `connection_receiver/closing.rs` for a small example.
    #[test]
    fn committed_never_exceeds_the_budget(config in config(), ops in ops(true)) {
        run(config, &ops, Checks { budget: true, ..Checks::default() });
    }

    #[test]
    fn limits_never_decrease_and_committed_is_the_credit_sum(config in config(), ops in ops(true)) {
        run(config, &ops, Checks { monotonic: true, committed_sum: true, ..Checks::default() });
    }

    /// Data rejected on a new stream opens it now (see
    /// `failed_data_on_a_new_stream_accounts_nothing_at_the_connection` in
    /// `connection_receiver/errors.rs`), so the connection window it raises
    /// covers a stream that is open: the caps hold with or without opening
    /// streams first (the old receiver needed them opened first).
    #[test]
    fn windows_stay_within_the_caps(config in config(), ops in ops(true)) {
        run(config, &ops, Checks { caps: true, ..Checks::default() });
    }

    #[test]
    fn windows_stay_within_the_caps_when_streams_open_first(config in config(), ops in ops(true)) {
        run(config, &ops, Checks { caps: true, open_first: true, ..Checks::default() });
    }

    #[test]
    fn connection_floor_holds_without_rebalancing(
        config in config_without_rebalancing(),
        ops in ops(true),
    ) {
        run(config, &ops, Checks { floor: true, ..Checks::default() });
    }

    /// See `connection_floor_follows_a_window_raised_by_rebalancing`.
    #[test]
    fn connection_floor_holds_after_every_next_update(config in config(), ops in ops(true)) {
        run(config, &ops, Checks { floor: true, ..Checks::default() });
    }

    #[test]
    fn failed_calls_change_nothing(config in config(), ops in ops(true)) {
        run(config, &ops, Checks { failures: true, ..Checks::default() });
    }

    #[test]
    fn new_streams_are_seeded_within_the_room(config in config(), ops in ops(true)) {
        run(config, &ops, Checks { seeds: true, ..Checks::default() });
    }

    #[test]
    fn lost_updates_are_resent_room_or_not(config in config(), ops in ops(true)) {
        run(config, &ops, Checks { resend: true, ..Checks::default() });
    }
}
