//! Physical limits a run must respect (issue #3): a fixed receive window
//! caps goodput at window / RTT; without flow-control limits a bulk
//! transfer fills the bottleneck up to the packet overhead.
//!
//! Run with `cargo test -p neqo-fc-sim --test physics`.

use std::{sync::Arc, time::Duration};

use neqo_fc_sim::scenario::Fixed;
use neqo_fc_sim::{
    net::{DEFAULT_OVERHEAD_BYTES, GIGABIT_BPS, GIGABIT_RTT, PathConfig},
    quic::frame::Frame,
    run,
    scenario::{RunResult, Scenario, Workload},
    transport::{PACKET_OVERHEAD, stream_id},
};

const MIB: u64 = 1 << 20;

/// Largest STREAM payload the sender puts in a full 1500-byte packet: it
/// reserves the longest STREAM header it writes (type 1 + ID 8 + offset 8 +
/// length 2 = 19 bytes) after the short header and AEAD tag.
const STREAM_PAYLOAD: u64 = 1500 - PACKET_OVERHEAD as u64 - 19;

/// Stream bytes per byte on the wire for full packets: the payload over
/// the datagram as encoded (the header varints are shorter than reserved)
/// plus the link's IPv4 + UDP overhead. Offsets between 2^14 and 2^30 take
/// a 4-byte varint (RFC 9000 §16), which covers every transfer here past
/// its first 11 packets.
fn payload_efficiency() -> f64 {
    let frame = Frame::Stream {
        stream_id: stream_id(0),
        offset: 1 << 20,
        length: STREAM_PAYLOAD,
        fin: false,
        data: None,
    };
    let datagram = PACKET_OVERHEAD + frame.encoded_len();
    assert_eq!(datagram, 1489, "1 + 1 + 4 + 2 bytes of STREAM header");
    let wire = datagram as u64 + u64::from(DEFAULT_OVERHEAD_BYTES);
    STREAM_PAYLOAD as f64 / wire as f64
}

fn mbit(bps: f64) -> f64 {
    bps / 1e6
}

/// A fixed 1 MiB stream window: the sender has at most 1 MiB unacknowledged
/// by the reader per round trip, so goodput ≤ 1 MiB / 50 ms = 167.8 Mbit/s
/// on a path that could carry 1 Gbit/s; it must also reach ≥ 80 % of that
/// (the window is re-advertised after every quarter read, so the sender
/// rarely waits for credit, and slow start needs only ~7 RTTs to reach it).
#[test]
fn fixed_window_caps_goodput_at_window_per_rtt() {
    let rtt = GIGABIT_RTT;
    let window = MIB;
    let mut s = Scenario::new(PathConfig::gigabit(), Workload::bulk(100 * MIB));
    s.fc.initial_stream_window = window;
    s.fc.initial_connection_window = 1 << 30;
    s.fc.max_stream_window = window;
    s.fc.max_connection_window = 1 << 30;
    s.tuner = Arc::new(Fixed);
    let m = run(&s).metrics;
    let cap = window as f64 * 8.0 / rtt.as_secs_f64();
    eprintln!(
        "fixed 1 MiB @ 50 ms: goodput {:.2} Mbit/s, cap {:.2} Mbit/s ({:.1} %); {m:?}",
        mbit(m.goodput_bps),
        mbit(cap),
        100.0 * m.goodput_bps / cap
    );
    assert!(m.completed && m.error.is_none(), "{m:?}");
    assert_eq!(m.bytes, 100 * MIB);
    assert_eq!(m.peak_stream_window, window, "the tuner never grows it");
    assert!(m.goodput_bps <= cap, "{} > cap {}", m.goodput_bps, cap);
    assert!(
        m.goodput_bps >= 0.8 * cap,
        "{:.2} Mbit/s < 80 % of {:.2}",
        mbit(m.goodput_bps),
        mbit(cap)
    );
    // Flow control, not the network, was the limit.
    assert_eq!(m.drops, 0, "{m:?}");
    assert!(m.fc_blocked > m.duration / 2, "{m:?}");
}

/// `bytes` over a one-BDP tail-drop path with every flow-control limit
/// lifted.
fn unlimited(rate: u64, rtt: Duration, bytes: u64) -> RunResult {
    run(&Scenario::new(PathConfig::tail_drop(rate, rtt), Workload::bulk(bytes)).unlimited_windows())
}

/// Without flow-control limits the bottleneck is the limit: over the whole
/// transfer goodput is at least 90 % of the link rate times the payload
/// efficiency and never above it, and the link is busy ≥ 90 % of the time.
/// The transfers are long enough to amortise slow start and the CUBIC
/// reductions after its overshoot (three at 1 Gbit/s × 50 ms, ending
/// ~1.6 s in: a 256 MiB transfer only reaches 83 %).
#[test]
fn unlimited_windows_fill_the_link() {
    let eff = payload_efficiency();
    for (rate, rtt, bytes) in [
        (100_000_000, Duration::from_millis(20), 50_000_000),
        (GIGABIT_BPS, GIGABIT_RTT, 1 << 30),
    ] {
        let r = unlimited(rate, rtt, bytes);
        let m = &r.metrics;
        let ceiling = rate as f64 * eff;
        // Steady state: the middle of the run, after the start-up
        // congestion events, before the last flight.
        let window = |from: Duration, to: Duration| {
            let a = r.series.iter().find(|x| x.time >= from).unwrap();
            let b = r.series.iter().rev().find(|x| x.time <= to).unwrap();
            (b.delivered - a.delivered) as f64 * 8.0 / (b.time - a.time).as_secs_f64()
        };
        let steady = window(m.duration * 2 / 5, m.duration * 9 / 10);
        eprintln!(
            "unlimited {} Mbit/s {rtt:?} {bytes} B: goodput {:.2} Mbit/s = {:.1} % of {:.2} \
             (eff {eff:.5}), steady {:.2} Mbit/s = {:.1} %, util {:.4}, duration {:?}, \
             drops {}",
            rate / 1_000_000,
            mbit(m.goodput_bps),
            100.0 * m.goodput_bps / ceiling,
            mbit(ceiling),
            mbit(steady),
            100.0 * steady / ceiling,
            m.link_utilisation,
            m.duration,
            m.drops
        );
        assert!(m.completed && m.error.is_none(), "{m:?}");
        assert_eq!(m.bytes, bytes);
        assert_eq!(m.fc_blocked, Duration::ZERO, "{m:?}");
        assert!(m.goodput_bps <= ceiling, "{m:?}");
        assert!(m.goodput_bps >= 0.9 * ceiling, "{m:?}");
        assert!(
            m.link_utilisation >= 0.9 && m.link_utilisation <= 1.0,
            "{m:?}"
        );
        assert!(steady >= 0.98 * ceiling, "steady {steady}");
    }
}

/// A send buffer caps what is in flight on a stream, whatever the
/// receive window: with unlimited windows and a 1 MiB buffer, goodput
/// ≤ 1 MiB per RTT (167.8 Mbit/s at 50 ms) and ≥ 80 % of it; nothing is
/// dropped (1 MiB is a sixth of the one-BDP queue). Without the buffer the
/// same run fills the link.
#[test]
fn send_buffer_caps_goodput_at_buffer_per_rtt() {
    let rtt = GIGABIT_RTT;
    let buffer = MIB;
    let base = Scenario::new(PathConfig::gigabit(), Workload::bulk(100 * MIB)).unlimited_windows();
    let mut s = base.clone();
    s.transport.send_buffer = Some(buffer);
    let m = run(&s).metrics;
    let cap = buffer as f64 * 8.0 / rtt.as_secs_f64();
    eprintln!(
        "send buffer 1 MiB @ 50 ms: {:.2} Mbit/s, cap {:.2}",
        mbit(m.goodput_bps),
        mbit(cap)
    );
    assert!(m.completed && m.error.is_none(), "{m:?}");
    assert_eq!(m.bytes, 100 * MIB);
    assert!(m.goodput_bps <= cap, "{} > cap {cap}", m.goodput_bps);
    assert!(m.goodput_bps >= 0.8 * cap, "{m:?}");
    assert_eq!(m.drops, 0);
    let free = run(&base).metrics;
    assert!(free.goodput_bps > 2.0 * cap, "{free:?}");
}
