//! Property tests over hostile call sequences (issue #6): what a peer — or
//! a confused embedding stack — can throw at the receive and send sides.
//!
//! - data past the limit → FLOW_CONTROL_ERROR (0x03), never accepted
//!   (RFC 9000 §4.1);
//! - final size changes → FINAL_SIZE_ERROR (0x06) (RFC 9000 §4.5);
//! - lower or duplicate MAX_* frames are ignored (RFC 9000 §4.1);
//! - frames for streams already closed are ignored;
//! - values at and around 2^62 − 1 and `u64::MAX`, and durations from zero
//!   to `Duration::MAX`, never overflow or panic;
//! - a flood of *_BLOCKED frames against a reader that reads nothing
//!   grows no window and makes no update due;
//! - streams a receiver cannot receive on (our own, or beyond
//!   MAX_STREAMS) → STREAM_STATE_ERROR (0x05) / STREAM_LIMIT_ERROR (0x04),
//!   clocks that go backwards, `on_timeout` at any time, and any
//!   configuration `Config::validate` accepts.

#[path = "../common/mod.rs"]
mod common;

mod controllers;
mod edges;
mod frames;
mod sequences;

use std::time::Duration;

use neqo_fc::{
    Budget, Config, Connection, ConnectionReceiver, Direction, ExcessTuner, FlowSubject,
    MAX_VARINT, ReceiverFlowControl, Role, StreamId, ValidConfig,
};
use proptest::prelude::*;

/// 4,000 cases per property, no regression files in the source tree.
fn pt_config() -> ProptestConfig {
    ProptestConfig {
        cases: 4000,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Everything observable about one receive-side controller.
type Snap = (u64, u64, u64, u64, bool, bool, Option<u64>);

fn snap(fc: &ReceiverFlowControl<StreamId>) -> Snap {
    snap_with(fc, fc.final_size())
}

fn snap_conn(fc: &ReceiverFlowControl<Connection>) -> Snap {
    snap_with(fc, None)
}

/// [`Snap`] of either kind of controller, with its final size (only a
/// stream has one).
fn snap_with<S: FlowSubject>(fc: &ReceiverFlowControl<S>, final_size: Option<u64>) -> Snap {
    (
        fc.limit(),
        fc.window(),
        fc.consumed(),
        fc.retired(),
        fc.update_due(),
        fc.resend_pending(),
        final_size,
    )
}

/// Everything observable about a connection receiver, for the streams in
/// `ids`.
type SnapAll = (Snap, Vec<Option<Snap>>, u64, usize, bool);

fn snap_all(rx: &ConnectionReceiver<ExcessTuner>, ids: &[StreamId]) -> SnapAll {
    (
        snap_conn(rx.flow().connection()),
        ids.iter().map(|&id| rx.stream(id).map(snap)).collect(),
        rx.flow().committed(),
        rx.streams().count(),
        rx.update_pending(),
    )
}

/// The state a failing call must leave unchanged. `update_pending` is left
/// out: it is a hint ("may return a frame").
fn core(s: &SnapAll) -> (Snap, Vec<Option<Snap>>, u64, usize) {
    (s.0, s.1.clone(), s.2, s.3)
}

fn receiver(role: Role, config: Config) -> ConnectionReceiver<ExcessTuner> {
    ConnectionReceiver::new(role, config.validate().expect("valid config"))
}

/// A small configuration so that connection limits are reached too.
fn small(budget: bool) -> Config {
    Config {
        initial_stream_window: 1000,
        initial_connection_window: 2500,
        budget: budget.then(Budget::default),
        ..common::config_512k()
    }
}

/// One stream whose window may be anything a QUIC value allows.
fn one_stream(window: u64) -> ValidConfig {
    let w = window.clamp(1, MAX_VARINT);
    Config {
        initial_stream_window: w,
        max_stream_window: w,
        max_streams_bidi: 0,
        max_streams_uni: 1,
        ..common::config_512k()
    }
    .validate()
    .expect("one stream, window in [1, 2^62)")
}

/// Offsets and counts: small, near the limits in use, and the edges.
fn value() -> impl Strategy<Value = u64> {
    prop_oneof![
        6 => 0..4000u64,
        2 => 0..200_000u64,
        1 => prop::sample::select(vec![
            MAX_VARINT - 1,
            MAX_VARINT,
            MAX_VARINT + 1,
            u64::MAX - 1,
            u64::MAX,
        ]),
        1 => any::<u64>(),
    ]
}

fn duration() -> impl Strategy<Value = Duration> {
    prop_oneof![
        3 => (0..200u64).prop_map(Duration::from_millis),
        1 => Just(Duration::ZERO),
        1 => Just(Duration::from_nanos(1)),
        1 => Just(Duration::from_secs(3600)),
        1 => Just(Duration::from_secs(10 * 3600)),
        1 => Just(Duration::MAX),
        1 => any::<u64>().prop_map(Duration::from_nanos),
    ]
}

/// The peer's `k`-th bidirectional stream, for a server.
fn client_bidi(k: u64) -> StreamId {
    StreamId::new(Role::Client, Direction::Bidi, k)
}

fn server(config: Config) -> ConnectionReceiver<ExcessTuner> {
    receiver(Role::Server, config)
}
