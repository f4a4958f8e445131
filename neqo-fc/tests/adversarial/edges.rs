//! Values at and around 2^62 − 1 and `u64::MAX`, and durations up to
//! `Duration::MAX`, on every kind of controller.

use std::time::Duration;

use neqo_fc::{
    Budget, Config, Connection, Direction, Error, ExcessTuner, MAX_VARINT, ReceiverFlowControl,
    Role, Rtt, SenderFlowControl, StreamId, UpdateFrame,
};

use super::{one_stream, server};
use crate::common::{self, at_saturating, fire_timer};

#[test]
fn edges_at_2_62_and_u64_max() {
    // Sender: limits clamp, consume saturates at the credit.
    let mut s = SenderFlowControl::new(StreamId(0), u64::MAX);
    assert_eq!(s.limit(), MAX_VARINT);
    assert!(!s.update(u64::MAX));
    assert!(!s.update(MAX_VARINT));
    assert_eq!(s.consume(u64::MAX), MAX_VARINT);
    assert_eq!(s.available(), 0);
    assert!(s.blocked());
    assert_eq!(s.blocked_needed(), Some(MAX_VARINT));
    let mut s = SenderFlowControl::new(Connection, MAX_VARINT - 1);
    assert!(s.update(MAX_VARINT + 1));
    assert_eq!(s.limit(), MAX_VARINT);

    // Stream receiver at the very top (a window of 2^62 − 1 needs a single
    // stream; larger windows and a zero update fraction are refused by
    // `validate`, see `receiver/limits.rs`).
    let mut fc = ReceiverFlowControl::new(StreamId(2), &one_stream(u64::MAX));
    assert_eq!(fc.limit(), MAX_VARINT);
    assert_eq!(fc.window(), MAX_VARINT);
    for bad in [MAX_VARINT + 1, u64::MAX] {
        assert_eq!(fc.on_data(bad, false), Err(Error::ValueTooLarge(bad)));
        assert_eq!(fc.on_data(bad, true), Err(Error::ValueTooLarge(bad)));
        assert_eq!(fc.reset_received(bad), Err(Error::ValueTooLarge(bad)));
    }
    assert_eq!(fc.on_data(MAX_VARINT - 1, false), Ok(MAX_VARINT - 1));
    assert_eq!(fc.on_data(MAX_VARINT, false), Ok(1));
    assert_eq!(fc.retire_to(MAX_VARINT), Ok(MAX_VARINT));
    assert_eq!(
        fc.retire_to(u64::MAX),
        Err(Error::RetiredBeyondReceived {
            retired: u64::MAX,
            received: MAX_VARINT
        })
    );
    let tuner = ExcessTuner::DEFAULT;
    for now in [Duration::ZERO, Duration::from_secs(3600), Duration::MAX] {
        for rtt in [Duration::ZERO, Duration::from_secs(3600), Duration::MAX] {
            let _ = fc.send_update(at_saturating(now), Rtt::from_sample(rtt), &tuner);
            assert!(fc.limit() <= MAX_VARINT);
        }
    }

    // Connection: consume saturates into an error, retire too.
    let config = Config {
        initial_connection_window: MAX_VARINT,
        max_connection_window: MAX_VARINT,
        ..common::config_512k()
    };
    let mut c = ReceiverFlowControl::new(Connection, &config.validate().unwrap());
    assert_eq!(c.consume(MAX_VARINT), Ok(()));
    assert_eq!(
        c.consume(u64::MAX),
        Err(Error::FlowControl {
            received: u64::MAX,
            limit: MAX_VARINT
        })
    );
    assert_eq!(c.consume(0), Ok(()));
    assert!(c.add_retired(u64::MAX).is_err());
    assert_eq!(c.add_retired(MAX_VARINT), Ok(()));

    // A whole connection receiver at the top of every window: one stream
    // (the peer's first unidirectional one) may hold 2^62 − 1.
    let config = common::one_huge_stream(common::config_512k());
    for budget in [None, Some(Budget::default())] {
        let mut rx = server(Config { budget, ..config });
        let id = StreamId::new(Role::Client, Direction::Uni, 0);
        for now in [Duration::ZERO, Duration::from_secs(7200), Duration::MAX] {
            let now = at_saturating(now);
            assert_eq!(
                rx.on_data(id, u64::MAX, false),
                Err(Error::ValueTooLarge(u64::MAX))
            );
            let _ = rx.on_data(id, MAX_VARINT, false);
            let _ = rx.retire_to(id, MAX_VARINT);
            for rtt in [Duration::ZERO, Duration::MAX] {
                let rtt = Rtt::from_sample(rtt);
                fire_timer(&mut rx, now, rtt);
                rx.on_timeout(now, rtt);
                while rx.next_update(now, rtt).is_some() {}
            }
            rx.update_lost(UpdateFrame::MaxData(MAX_VARINT));
            rx.update_acked(UpdateFrame::MaxStreamData {
                id,
                limit: u64::MAX,
            });
            rx.update_lost(UpdateFrame::MaxStreams {
                direction: Direction::Uni,
                limit: u64::MAX,
            });
        }
        assert!(rx.flow().connection().limit() <= MAX_VARINT);
        assert_eq!(rx.flow().connection().consumed(), MAX_VARINT);
        // The second unidirectional stream is beyond MAX_STREAMS.
        let next = StreamId::new(Role::Client, Direction::Uni, 1);
        assert_eq!(rx.on_data(next, 1, false).unwrap_err().code(), 0x04);
    }
}
