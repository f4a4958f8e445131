//! A slow reader never inflates memory: the application reads at 1 % of the
//! link rate, the sender fills every byte of credit it gets (and reports
//! STREAM_DATA_BLOCKED / DATA_BLOCKED when it runs out), and neither the
//! stream nor the connection window ever grows past its initial value.
//!
//! Growth needs the reader to retire more than `(1 − f) × window` per RTT
//! (see the tuner's docs), so the paths are chosen with a reader
//! bandwidth-delay product (1 % of R × RTT) of at most half the stream's
//! starting window (`common::config_512k`: seeded to 128 KiB).

mod common;

use std::{collections::VecDeque, time::Duration};

use common::base;
use neqo_fc::{
    ChangeReason, Connection, ExcessTuner, ReceiverFlowControl, Rtt, SenderFlowControl, StreamId,
};

const NS_PER_S: u64 = 1_000_000_000;
const CHUNK: u64 = 1200;
/// The reader wakes up every millisecond.
const TICK_NS: u64 = 1_000_000;

/// Frames in flight, in either direction.
#[derive(Clone, Copy, Debug)]
enum Frame {
    /// STREAM data ending at this offset (sender → receiver).
    Stream(u64),
    /// STREAM_DATA_BLOCKED (sender → receiver).
    StreamBlocked(u64),
    /// DATA_BLOCKED (sender → receiver).
    DataBlocked(u64),
    /// MAX_STREAM_DATA (receiver → sender).
    MaxStreamData(u64),
    /// MAX_DATA (receiver → sender).
    MaxData(u64),
}

/// What the run saw.
#[derive(Debug, Default)]
struct Seen {
    /// Sends that used the last byte of the stream credit the sender had.
    filled_to_limit: u64,
    /// Fewest unread bytes after the warm-up.
    min_unretired: u64,
    /// Most unread bytes at any time.
    max_unretired: u64,
    blocked_sent: u64,
    updates: u64,
    retired: u64,
}

fn run(rate_bps: u64, rtt: Duration, report_blocked: bool) -> Seen {
    let config = common::config_512k().validate().unwrap();
    let tuner = ExcessTuner::DEFAULT;
    let rtt_est = Rtt::from_sample(rtt);
    let one_way = u64::try_from(rtt.as_nanos()).unwrap() / 2;
    let mut conn = ReceiverFlowControl::new(Connection, &config);
    // A stream opened as `ConnectionFlow` opens one (without a budget):
    // its seed, max(initial, ¼ × connection window), is the initial value
    // it must never grow past.
    let mut stream = ReceiverFlowControl::new(StreamId(0), &config);
    stream.raise_window(config.seed_window(conn.window()), ChangeReason::Seed);
    assert_eq!(stream.window(), 128 << 10);
    let (stream_window, conn_window) = (stream.window(), conn.window());
    let floor = conn.cover_stream_window(stream_window, config.connection_floor);
    assert_eq!(floor, None, "the connection window already covers it");

    let mut credit_stream = SenderFlowControl::new(StreamId(0), stream.limit());
    let mut credit_conn = SenderFlowControl::new(Connection, conn.limit());

    let tx_ns = CHUNK * 8 * NS_PER_S / rate_bps;
    let read_rate = rate_bps / 8 / 100; // bytes per second: 1 % of the link
    let per_tick = read_rate * TICK_NS / NS_PER_S;
    assert!(per_tick > 0);
    let reader_bdp = read_rate * one_way * 2 / NS_PER_S;
    assert!(
        2 * reader_bdp <= stream_window,
        "path too fast for a slow reader"
    );
    // Twenty turnovers of the stream window at the reader's pace.
    let end = 20 * stream_window * NS_PER_S / read_rate;
    let warm_up = 2 * stream_window * NS_PER_S / read_rate;

    let mut to_receiver: VecDeque<(u64, Frame)> = VecDeque::new();
    let mut to_sender: VecDeque<(u64, Frame)> = VecDeque::new();
    let mut link_free = 0u64;
    let mut next_tick = TICK_NS;
    let mut now = 0u64;
    let mut seen = Seen {
        min_unretired: u64::MAX,
        ..Seen::default()
    };

    loop {
        let can_send = credit_stream.available().min(credit_conn.available()) > 0;
        let next_send = if can_send {
            link_free.max(now)
        } else {
            u64::MAX
        };
        let next_rx = to_receiver.front().map_or(u64::MAX, |f| f.0);
        let next_tx = to_sender.front().map_or(u64::MAX, |f| f.0);
        let t = next_send.min(next_rx).min(next_tx).min(next_tick);
        if t > end {
            break;
        }
        now = t;
        let at = base() + Duration::from_nanos(now);
        let mut receiver_acted = false;
        if now == next_rx {
            receiver_acted = true;
            match to_receiver.pop_front().unwrap().1 {
                Frame::Stream(offset) => {
                    let new = stream.on_data(offset, false).expect("within the limit");
                    conn.consume(new).expect("within the connection limit");
                }
                Frame::StreamBlocked(limit) => {
                    stream.blocked_received(limit);
                }
                Frame::DataBlocked(limit) => {
                    conn.blocked_received(limit);
                }
                Frame::MaxStreamData(_) | Frame::MaxData(_) => unreachable!(),
            }
        } else if now == next_tx {
            match to_sender.pop_front().unwrap().1 {
                Frame::MaxStreamData(l) => credit_stream.update(l),
                Frame::MaxData(l) => credit_conn.update(l),
                _ => unreachable!(),
            };
        } else if now == next_tick {
            receiver_acted = true;
            next_tick += TICK_NS;
            let read = stream.unretired().min(per_tick);
            let offset = stream.retired() + read;
            let n = stream.retire_to(offset).unwrap();
            conn.add_retired(n).unwrap();
            seen.retired += n;
            if now >= warm_up {
                seen.min_unretired = seen.min_unretired.min(stream.unretired());
            }
        } else {
            let n = CHUNK
                .min(credit_stream.available())
                .min(credit_conn.available());
            credit_stream.consume(n);
            credit_conn.consume(n);
            if credit_stream.available() == 0 {
                seen.filled_to_limit += 1;
            }
            link_free = now + tx_ns;
            to_receiver.push_back((link_free + one_way, Frame::Stream(credit_stream.used())));
        }
        // The sender reports running out of credit (once per limit).
        if report_blocked && credit_stream.blocked() {
            credit_stream.blocked_sent();
            seen.blocked_sent += 1;
            to_receiver.push_back((
                now.max(link_free) + one_way,
                Frame::StreamBlocked(credit_stream.limit()),
            ));
        }
        if report_blocked && credit_conn.blocked() {
            credit_conn.blocked_sent();
            to_receiver.push_back((
                now.max(link_free) + one_way,
                Frame::DataBlocked(credit_conn.limit()),
            ));
        }
        if receiver_acted {
            if let Some(u) = stream.send_update(at, rtt_est, &tuner) {
                assert_eq!(u.change, None, "stream window grew: {u:?}");
                seen.updates += 1;
                to_sender.push_back((now + one_way, Frame::MaxStreamData(u.limit)));
            }
            let cover = conn.cover_stream_window(stream.window(), config.connection_floor);
            assert_eq!(cover, None);
            if let Some(u) = conn.send_update(at, rtt_est, &tuner) {
                assert_eq!(u.change, None, "connection window grew: {u:?}");
                to_sender.push_back((now + one_way, Frame::MaxData(u.limit)));
            }
        }
        assert_eq!(stream.window(), stream_window);
        assert_eq!(conn.window(), conn_window);
        seen.max_unretired = seen.max_unretired.max(stream.unretired());
    }
    // The reader kept its pace (never starved once the first data arrived
    // after one one-way delay), so it read 1 % of R.
    let expected = end / TICK_NS * per_tick;
    let first_data_ticks = (one_way + tx_ns) / TICK_NS + 1;
    assert!(
        seen.retired + first_data_ticks * per_tick >= expected,
        "reader starved: {} of {expected}",
        seen.retired
    );
    eprintln!(
        "{} Mbit/s {rtt:?} (blocked frames: {report_blocked}): read {} B, {} updates, {} blocked, filled to limit {}×, \
         unread {}..={} B (window {})",
        rate_bps / 1_000_000,
        seen.retired,
        seen.updates,
        seen.blocked_sent,
        seen.filled_to_limit,
        seen.min_unretired,
        seen.max_unretired,
        stream_window,
    );
    // Data kept arriving up to the limit: the sender used every update to
    // the last byte, and the buffer stayed between ¾ window (minus what is
    // read in a round trip, and a tick and a packet of slack each side)
    // and the full window.
    let low = stream_window * 3 / 4 - reader_bdp - 2 * (per_tick + CHUNK);
    // Updates come each time ¼ window was read, in whole read ticks.
    let quantum = (stream_window / 4).div_ceil(per_tick) * per_tick;
    let cycles = seen.retired / quantum;
    assert!(cycles >= 60, "{seen:?}");
    assert!(seen.filled_to_limit >= cycles - 2, "{seen:?}");
    if report_blocked {
        assert!(seen.blocked_sent >= cycles - 2, "{seen:?}");
    } else {
        assert!(
            (cycles - 1..=cycles + 1).contains(&seen.updates),
            "{seen:?}"
        );
    }
    assert!(seen.max_unretired <= stream_window);
    let high = stream_window - reader_bdp - 2 * (per_tick + CHUNK);
    assert!(seen.max_unretired >= high, "{seen:?}, high {high}");
    assert!(seen.min_unretired >= low, "{seen:?}, low {low}");
    seen
}

const PATHS: [(u64, u64); 4] = [(10, 20), (100, 50), (1000, 50), (10_000, 5)];

#[test]
fn slow_reader_never_grows_the_windows() {
    for (mbps, rtt_ms) in PATHS {
        run(mbps * 1_000_000, Duration::from_millis(rtt_ms), false);
    }
}

/// The same with a sender that reports STREAM_DATA_BLOCKED / DATA_BLOCKED
/// each time it runs out of credit (RFC 9000 §4.1 SHOULD).
#[test]
fn slow_reader_with_blocked_frames_never_grows_the_windows() {
    for (mbps, rtt_ms) in PATHS {
        run(mbps * 1_000_000, Duration::from_millis(rtt_ms), true);
    }
}
