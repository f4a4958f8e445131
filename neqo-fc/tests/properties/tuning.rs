//! Windows grown by tuning: within the default caps on a realistic flow,
//! never shrunk by the tuner alone.

use std::time::Duration;

use neqo_fc::{
    ChangeReason, Config, Connection, ExcessTuner, ReceiverFlowControl, StreamId, SubjectKind,
    TuneInput, Tuner,
};
use proptest::prelude::*;

use super::{duration, fraction, pt_config, rtt, sample, tuner, value};
use crate::common::at_saturating;

proptest! {
    #![proptest_config(pt_config(2000))]

    /// A realistic flow (data in order, reads, updates) with the default
    /// configuration: windows stay within the default caps.
    #[test]
    fn in_order_flow_stays_within_caps(
        steps in prop::collection::vec(
            (1u64..=(4 << 20), any::<u8>(), duration(), rtt()),
            1..200,
        ),
    ) {
        let config = Config::default().validate().unwrap();
        let tuner = ExcessTuner::DEFAULT;
        let mut conn = ReceiverFlowControl::new(Connection, &config);
        let mut stream = ReceiverFlowControl::new(StreamId(4), &config);
        stream.raise_window(config.seed_window(conn.window()), ChangeReason::Seed);
        let mut now = Duration::ZERO;
        for (len, share, dt, rtt) in steps {
            let end = stream.limit().min(stream.consumed() + len);
            let n = stream.on_data(end, false).unwrap();
            conn.consume(n).unwrap();
            let off = stream.retired() + stream.unretired() * u64::from(share) / 255;
            let r = stream.retire_to(off).unwrap();
            conn.add_retired(r).unwrap();
            now = now.saturating_add(dt);
            let t = at_saturating(now);
            stream.send_update(t, rtt, &tuner);
            conn.cover_stream_window(stream.window(), config.connection_floor);
            conn.send_update(t, rtt, &tuner);
            prop_assert!(stream.window() <= config.max_stream_window);
            prop_assert!(conn.window() <= config.max_connection_window);
            prop_assert!(stream.consumed() <= stream.limit());
            prop_assert!(conn.consumed() <= conn.limit());
        }
    }

    /// The tuner alone never shrinks a window, whatever the input (the
    /// controller applies the cap: `in_order_flow_stays_within_caps`).
    #[test]
    fn tuner_never_shrinks(
        tuner in tuner(),
        stream in any::<bool>(),
        window in value(),
        max_window in value(),
        delivered in value(),
        elapsed in duration(),
        rtt in sample(),
        fraction in fraction(),
        drained_steps in any::<u32>(),
        late in value(),
    ) {
        let kind = if stream { SubjectKind::Stream } else { SubjectKind::Connection };
        let input = TuneInput {
            kind,
            window,
            max_window,
            delivered,
            elapsed,
            rtt,
            update_fraction: fraction,
            drained_steps,
            late,
        };
        prop_assert!(tuner.tune(&input) >= window);
    }
}
