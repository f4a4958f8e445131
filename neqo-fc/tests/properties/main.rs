//! Property tests: invariants of the receive and send controllers over
//! random operation sequences, with values anywhere in `u64` (most near 0,
//! near 2^62 − 1 and just past it) and durations from zero to hours and
//! `Duration::MAX`.
//!
//! Invariants checked after every operation (RFC 9000 §4.1, §4.5):
//! - the advertised limit never decreases, and neither does the sender's;
//! - `retired ≤ consumed ≤ limit ≤ 2^62 − 1` (data past the limit errors);
//! - a failing call changes nothing;
//! - a window grown only by the tuner or a seed stays ≤ the configured cap
//!   (or its starting value when that was already larger) and never shrinks;
//! - every reported window change has `old != new` and the caller's `now`;
//!   a tuning step needs an RTT sample and time that moved forward since
//!   an earlier update (clocks here also go backwards);
//! - no call panics.

#[path = "../common/mod.rs"]
mod common;

mod invariants;
mod ops;
mod tuning;
mod world;

use std::time::Duration;

use neqo_fc::{ExcessTuner, Fraction, MAX_VARINT, Rtt};
use proptest::{
    prelude::*,
    test_runner::{Config as PtConfig, RngSeed},
};

/// Deterministic runs (project rule: same seed, same result) and no
/// regression files written into the source tree.
fn pt_config(cases: u32) -> PtConfig {
    PtConfig {
        cases,
        rng_seed: RngSeed::Fixed(0x6e65_716f_2d66_6321),
        failure_persistence: None,
        ..PtConfig::default()
    }
}

/// A value anywhere in `u64`, weighted toward the interesting edges.
fn value() -> impl Strategy<Value = u64> {
    prop_oneof![
        3 => 0u64..=4096,
        2 => 0u64..=(64 << 20),
        1 => any::<u64>(),
        2 => (MAX_VARINT - 4096)..=MAX_VARINT,
        1 => (1u64 << 62)..=((1 << 62) + 4096),
        1 => Just(u64::MAX),
    ]
}

fn duration() -> impl Strategy<Value = Duration> {
    prop_oneof![
        2 => Just(Duration::ZERO),
        4 => (0u64..=200_000_000).prop_map(Duration::from_nanos),
        1 => (1u64..=100).prop_map(|h| Duration::from_secs(h * 3600)),
        1 => Just(Duration::MAX),
        1 => any::<u64>().prop_map(Duration::from_nanos),
    ]
}

/// An RTT estimate as a stack passes it: a sample (`min ≤ smoothed`, as
/// `Rtt::new` requires) or none yet (also what a zero or inverted pair
/// gives).
fn rtt() -> impl Strategy<Value = Option<Rtt>> {
    prop_oneof![
        4 => (duration(), duration()).prop_map(|(s, m)| Rtt::new(s.max(m), m)),
        1 => (duration(), duration()).prop_map(|(s, m)| Rtt::new(s, m)),
    ]
}

/// A sample, for the tuner alone.
fn sample() -> impl Strategy<Value = Rtt> {
    (duration(), duration()).prop_filter_map("no sample", |(s, m)| Rtt::new(s.max(m), m))
}

fn fraction() -> impl Strategy<Value = Fraction> {
    prop_oneof![
        Just(Fraction::QUARTER),
        Just(Fraction::HALF),
        Just(Fraction::ONE),
        // Includes improper values `validate` must refuse.
        (0u32..=70, 1u32..=64).prop_map(|(n, d)| Fraction::new(n, d).unwrap()),
    ]
}

fn tuner() -> impl Strategy<Value = ExcessTuner> {
    prop_oneof![
        Just(ExcessTuner::DEFAULT),
        (0u64..=16).prop_map(|bonus| ExcessTuner {
            bonus,
            ..ExcessTuner::DEFAULT
        }),
        (any::<u64>()).prop_map(|bonus| ExcessTuner {
            bonus,
            ..ExcessTuner::DEFAULT
        }),
    ]
}
