//! Hostile values against single controllers: data past the limit,
//! consumption past the connection limit, stale MAX_* frames, and any
//! value or duration.

use neqo_fc::{
    Config, Connection, Error, ExcessTuner, MAX_VARINT, ReceiverFlowControl, Rtt,
    SenderFlowControl, StreamId,
};
use proptest::prelude::*;

use super::{duration, one_stream, pt_config, snap, value};
use crate::common::{self, at_saturating};

proptest! {
    #![proptest_config(pt_config())]

    /// A stream controller: data past the limit is FLOW_CONTROL_ERROR and
    /// never accepted; the outcome is exactly predictable.
    #[test]
    fn stream_data_past_limit(
        limit in value(),
        calls in prop::collection::vec((value(), prop::bool::weighted(0.2)), 1..40),
    ) {
        // Windows are in [1, 2^62) now (validate refuses the rest).
        let mut fc = ReceiverFlowControl::new(StreamId(2), &one_stream(limit));
        let limit = limit.clamp(1, MAX_VARINT);
        prop_assert_eq!(fc.limit(), limit);
        for (end, fin) in calls {
            let before = snap(&fc);
            let consumed = fc.consumed();
            let known = fc.final_size();
            let expected = if end > MAX_VARINT {
                Err(Error::ValueTooLarge(end))
            } else if let Some(k) = known {
                if (fin && end != k) || end > k {
                    Err(Error::FinalSize { known: k, received: end })
                } else {
                    Ok(0)
                }
            } else if fin && end < consumed {
                Err(Error::FinalSize { known: consumed, received: end })
            } else if end > limit {
                Err(Error::FlowControl { received: end, limit })
            } else {
                Ok(end.saturating_sub(consumed))
            };
            // A reset is a FIN.
            let mut twin = fc.clone();
            let got = fc.on_data(end, fin);
            prop_assert_eq!(got, expected);
            if fin {
                prop_assert_eq!(twin.reset_received(end), got);
                prop_assert_eq!(snap(&twin), snap(&fc));
            }
            if let Err(e) = got {
                prop_assert_eq!(snap(&fc), before, "{:?}", e);
                let code = match e {
                    Error::ValueTooLarge(_) => 0x07,
                    Error::FinalSize { .. } => 0x06,
                    _ => 0x03,
                };
                prop_assert_eq!(e.code(), code);
            }
            prop_assert!(fc.consumed() <= fc.limit());
        }
    }

    /// Connection-level consume: the running total never passes the limit.
    #[test]
    fn connection_consume_past_limit(
        window in value(),
        counts in prop::collection::vec(value(), 1..40),
    ) {
        let window = window.clamp(1, MAX_VARINT);
        let config = Config {
            initial_connection_window: window,
            max_connection_window: window,
            ..common::config_512k()
        };
        let mut c = ReceiverFlowControl::new(Connection, &config.validate().unwrap());
        for n in counts {
            let before = c.consumed();
            match c.consume(n) {
                Ok(()) => prop_assert_eq!(c.consumed(), before + n),
                Err(e) => {
                    prop_assert_eq!(e.code(), 0x03);
                    prop_assert_eq!(
                        e,
                        Error::FlowControl { received: before.saturating_add(n), limit: c.limit() }
                    );
                    prop_assert_eq!(c.consumed(), before);
                }
            }
            prop_assert!(c.consumed() <= c.limit());
        }
    }

    /// Lower or duplicate MAX_* values are ignored: the limit is the
    /// running maximum (clamped to 2^62 − 1), `update` returns true exactly
    /// when it rose.
    #[test]
    fn sender_ignores_lower_or_duplicate_max(
        initial in value(),
        ops in prop::collection::vec((value(), value(), any::<bool>()), 1..60),
    ) {
        let mut s = SenderFlowControl::new(Connection, initial);
        let mut limit = initial.min(MAX_VARINT);
        for (update, consume, blocked) in ops {
            let raised = s.update(update);
            prop_assert_eq!(raised, update.min(MAX_VARINT) > limit);
            limit = limit.max(update.min(MAX_VARINT));
            prop_assert_eq!(s.limit(), limit);
            // A duplicate is ignored.
            prop_assert!(!s.update(update));
            prop_assert_eq!(s.limit(), limit);
            let used = s.used();
            let granted = s.consume(consume);
            prop_assert_eq!(granted, consume.min(limit - used));
            prop_assert!(s.used() <= s.limit());
            if blocked {
                let available = s.available();
                let armed = s.blocked();
                prop_assert!(!armed || available == 0, "armed with credit left");
                if armed {
                    prop_assert_eq!(s.blocked_needed(), Some(limit));
                    // Once per limit.
                    prop_assert!(!s.blocked());
                }
                if let Some(l) = s.blocked_needed() {
                    prop_assert_eq!(l, limit);
                    s.blocked_sent();
                }
            }
        }
    }

    /// Any time, RTT and value, straight on one controller: no panic, no
    /// overflow, invariants held.
    #[test]
    fn extreme_values_and_durations(
        initial in value(),
        window in value(),
        steps in prop::collection::vec((value(), duration(), duration(), 0u8..5), 1..40),
    ) {
        let tuner = ExcessTuner::DEFAULT;
        // Limit `initial`, window `window` (any value, even 0), the cap
        // 2^62 − 1: one stream.
        let mut fc = ReceiverFlowControl::new(StreamId(2), &Config {
            max_stream_window: MAX_VARINT,
            ..*one_stream(initial)
        }.validate().unwrap());
        let _ = fc.set_window(window, neqo_fc::ChangeReason::Seed);
        let mut last_limit = fc.limit();
        for (v, now, rtt, kind) in steps {
            // Times in any order, up to the end of time.
            let now = at_saturating(now);
            let rtt = Rtt::new(rtt, rtt / 2);
            match kind {
                0 => { let _ = fc.on_data(v, false); }
                1 => { let _ = fc.retire_to(v); }
                2 => {
                    if let Some(u) = fc.send_update(now, rtt, &tuner) {
                        prop_assert!(u.limit <= MAX_VARINT);
                    }
                }
                3 => { fc.update_lost(v); fc.update_acked(v / 2); }
                _ => { let _ = fc.raise_window(v, neqo_fc::ChangeReason::Seed); }
            }
            prop_assert!(fc.retired() <= fc.consumed());
            prop_assert!(fc.consumed() <= fc.limit());
            prop_assert!(fc.limit() <= MAX_VARINT && fc.window() <= MAX_VARINT);
            prop_assert!(fc.limit() >= last_limit);
            last_limit = fc.limit();
        }
    }
}
