//! Property tests of `ConnectionReceiver` and its memory budget over random
//! operation sequences on several streams: open, data below, at and past
//! the limit (with FIN), retire, *_BLOCKED, `next_update` after time steps
//! from zero to hours with RTTs from zero to hours, loss and
//! acknowledgement of past updates, and close.
//!
//! Invariants, each its own test so a failure names the rule:
//! - with a budget, `committed() ≤ budget()` after every operation, the
//!   budget is `open streams × initial window + growth`, the credit beyond
//!   the initial stream window summed over open streams stays within the
//!   growth budget `min(ceiling, multiple × estimate)`, and neither the
//!   growth budget nor the estimate ever decreases (the whole budget falls
//!   by a stream's promised initial window when it closes);
//! - a new stream's window is `max(initial, seed_fraction × estimate)`
//!   (× connection window without a budget), capped by `initial + room`,
//!   also for the lower-numbered streams a frame opens with it;
//! - a lost update whose limit is still the latest is re-sent by the next
//!   `next_update` calls, room or not;
//! - no advertised limit (stream or connection) ever decreases, and every
//!   frame `next_update` returns carries the subject's current limit;
//! - `committed()` equals `Σ (limit − retired)` over the open streams;
//! - stream windows stay ≤ the configured cap; the connection window only
//!   passes its cap to cover a floor (1.5 × a stream window, or at most
//!   the committed credit after the update lag);
//! - after every `next_update` the connection window is ≥ ⌈1.5 × largest
//!   open stream window⌉ and, with a budget, ≥ ⌈min(committed, parked +
//!   credit beyond the promises + estimate) / (1 − f)⌉, within an update
//!   threshold while data that arrived since is not yet covered;
//! - a failing call on an open stream changes nothing; a failing
//!   `on_data` on a new stream opens it (and the lower-numbered streams of
//!   its type: their ids were valid, RFC 9000 §3.2) but accounts nothing;
//! - frames for closed streams are ignored and never reopen them;
//! - nothing panics.
//!
//! The rebalancing pass runs when its timer is due, before the updates of
//! a `Next` step (as a stack fires `on_timeout`, then writes frames).

#[path = "../common/mod.rs"]
mod common;

mod invariants;
mod regressions;
mod strategies;
mod world;

use neqo_fc::{Direction, Role, StreamId};
use proptest::test_runner::{Config as PtConfig, RngSeed};

/// The receiver is a server; ids `0..BIDI` are the client's first
/// bidirectional streams, `BIDI..IDS` its first unidirectional ones.
const BIDI: u64 = 4;

fn sid(k: u64) -> StreamId {
    if k < BIDI {
        StreamId::new(Role::Client, Direction::Bidi, k)
    } else {
        StreamId::new(Role::Client, Direction::Uni, k - BIDI)
    }
}

/// Stream ids used: 0..IDS.
const IDS: u64 = 6;
/// Sequences per property.
const CASES: u32 = 3_000;

/// Deterministic runs and no regression files in the source tree.
fn pt_config() -> PtConfig {
    PtConfig {
        cases: CASES,
        rng_seed: RngSeed::Fixed(0x6275_6467_6574_7321),
        failure_persistence: None,
        ..PtConfig::default()
    }
}
