//! The random starting states and operations.

use std::time::Duration;

use neqo_fc::{Config, ExcessTuner, Fraction, MAX_VARINT, Rtt, ValidConfig};
use proptest::prelude::*;

use super::{duration, fraction, rtt, tuner, value};

/// One thing that can happen to the controllers.
#[derive(Clone, Debug)]
pub enum Op {
    /// A STREAM frame ending at `end`.
    Data { end: u64, fin: bool },
    /// A STREAM frame ending a few bytes around the current limit.
    DataAtLimit { delta: i8, fin: bool },
    /// RESET_STREAM / FIN with a final size.
    FinalSize(u64),
    /// The application reads up to a share (in 1/256) of what arrived.
    Retire(u8),
    /// The application reports reading up to any offset (bugs included).
    RetireRaw(u64),
    /// Time passes and both controllers send an update if due.
    SendUpdate { dt: Duration, rtt: Option<Rtt> },
    /// As `SendUpdate`, with the stream's new limit capped (a budget).
    SendUpdateCapped {
        dt: Duration,
        rtt: Option<Rtt>,
        cap: u64,
    },
    /// The clock goes back.
    ClockBack(Duration),
    /// The peer reports *_BLOCKED on the stream and the connection.
    Blocked,
    /// A past update (picked from the ones sent) was lost.
    UpdateLost(usize),
    /// A past update was acknowledged.
    UpdateAcked(usize),
    /// The connection floor follows the stream window.
    Cover,
    /// The sender wants to send `count` bytes.
    SenderConsume(u64),
    /// The sender reports and writes *_BLOCKED.
    SenderBlocked { sent: bool },
    /// A *_BLOCKED frame from the past was lost.
    SenderBlockedLost(usize),
    /// A stray MAX_* frame reaches the sender.
    SenderUpdate(u64),
}

pub fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (value(), any::<bool>()).prop_map(|(end, fin)| Op::Data { end, fin }),
        3 => (-3i8..=3, prop::bool::weighted(0.1)).prop_map(|(delta, fin)| Op::DataAtLimit { delta, fin }),
        1 => value().prop_map(Op::FinalSize),
        4 => any::<u8>().prop_map(Op::Retire),
        1 => value().prop_map(Op::RetireRaw),
        4 => (duration(), rtt()).prop_map(|(dt, rtt)| Op::SendUpdate { dt, rtt }),
        2 => (duration(), rtt(), value()).prop_map(|(dt, rtt, cap)| Op::SendUpdateCapped { dt, rtt, cap }),
        1 => Just(Op::Blocked),
        1 => any::<usize>().prop_map(Op::UpdateLost),
        1 => any::<usize>().prop_map(Op::UpdateAcked),
        1 => Just(Op::Cover),
        2 => value().prop_map(Op::SenderConsume),
        1 => any::<bool>().prop_map(|sent| Op::SenderBlocked { sent }),
        1 => any::<usize>().prop_map(Op::SenderBlockedLost),
        1 => value().prop_map(Op::SenderUpdate),
        1 => duration().prop_map(Op::ClockBack),
    ]
}

/// Starting state: a connection and a stream opened on it.
#[derive(Clone, Debug)]
pub struct Setup {
    pub conn_window: u64,
    pub stream_limit: u64,
    pub fraction: Fraction,
    pub seed: Option<Fraction>,
    pub tuner: ExcessTuner,
    /// The configured caps (the tuner held them before).
    pub max_stream_window: u64,
    pub max_connection_window: u64,
}

pub fn setup() -> impl Strategy<Value = Setup> {
    (
        value(),
        value(),
        fraction(),
        prop::option::of(fraction()),
        tuner(),
        prop_oneof![Just(32 << 20), value()],
        prop_oneof![Just(48 << 20), value()],
    )
        .prop_map(
            |(conn_window, stream_limit, fraction, seed, tuner, ms, mc)| Setup {
                conn_window,
                stream_limit,
                fraction,
                seed,
                tuner,
                max_stream_window: ms,
                max_connection_window: mc,
            },
        )
}

/// The setup as a valid configuration for one stream: windows in
/// [1, 2^62), each cap at least its initial window. An update fraction
/// outside (0, 1] is refused by `validate` (the old constructor replaced
/// it with ¼; so does this).
pub fn valid_config(s: &Setup) -> ValidConfig {
    let stream = s.stream_limit.clamp(1, MAX_VARINT);
    let conn = s.conn_window.clamp(1, MAX_VARINT);
    let config = Config {
        initial_stream_window: stream,
        initial_connection_window: conn,
        max_stream_window: s.max_stream_window.clamp(stream, MAX_VARINT),
        max_connection_window: s.max_connection_window.clamp(conn, MAX_VARINT),
        update_fraction: s.fraction,
        seed_fraction: s.seed.filter(|f| f.num() <= f.den()),
        max_streams_bidi: 0,
        max_streams_uni: 1,
        ..Config::default()
    };
    match config.validate() {
        Ok(valid) => valid,
        Err(e) => {
            assert!(
                s.fraction.num() == 0 || s.fraction.num() > s.fraction.den(),
                "{e}"
            );
            assert!(e.0.starts_with("update_fraction"), "{e}");
            Config {
                update_fraction: Fraction::QUARTER,
                ..config
            }
            .validate()
            .unwrap()
        }
    }
}
