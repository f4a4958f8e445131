//! Reordering versus real loss at the sender's loss detection (RFC 9002
//! §6.1, RFC 8985 §6.2): a path whose jitter reorders datagrams by up to
//! 5 ms must not look like a lossy one.
//!
//! Before spurious-loss detection the 100 Mbit/s, 30 ms path below with
//! 5 ms of reordering jitter ran at 2.53 Mbit/s (CUBIC) and 1.68 Mbit/s
//! (NewReno): every packet overtaken by three others was declared lost and
//! cut the window. Now a late acknowledgement of a declared-lost packet
//! raises the packet threshold (or widens the time threshold) and undoes
//! the congestion event when all its losses were spurious.
//!
//! Every number is simulated, so the assertions are exact. Run with
//! `cargo test --release -p neqo-fc-sim --test reordering -- --nocapture`.

use std::time::Duration;

use neqo_fc_sim::{
    metrics::Metrics,
    net::{LossModel, PathConfig},
    quic::cc::{CcAlgorithm, CcState},
    run,
    scenario::{Scenario, Workload},
    trace::{Endpoint, TraceEvent, TraceLevel},
    transport::recovery::{MAX_PACKET_THRESHOLD, PACKET_THRESHOLD},
};

const RATE: u64 = 100_000_000;
const RTT: Duration = Duration::from_millis(30);
const BYTES: u64 = 15 << 20;

/// The lab's `reorder` profile: 100 Mbit/s, 30 ms RTT, one-BDP queue,
/// with `jitter_ms` of jitter that may reorder and `loss` on the data
/// direction.
fn path(jitter_ms: u64, loss: LossModel) -> PathConfig {
    PathConfig {
        loss,
        jitter: Duration::from_millis(jitter_ms),
        jitter_reorders: true,
        ..PathConfig::tail_drop(RATE, RTT)
    }
}

/// 15 MiB on one stream with flow control out of the way, so only loss
/// detection and congestion control set the pace.
fn scenario(path: PathConfig, cc: CcAlgorithm) -> Scenario {
    let mut s = Scenario::new(path, Workload::bulk(BYTES)).unlimited_windows();
    s.cc = cc;
    s
}

fn show(name: &str, m: &Metrics) {
    eprintln!(
        "{name}: {:.2} Mbit/s, lost {}, spurious {}, undone {}, threshold {}, \
         drops {}, reordered {}, hash {:#x}",
        m.goodput_bps / 1e6,
        m.packets_lost,
        m.spurious_losses,
        m.undone_congestion_events,
        m.packet_threshold,
        m.drops,
        m.reordered,
        m.event_hash
    );
}

/// CUBIC and NewReno on the reordering path keep ≥ 95 % of the goodput of
/// the same path without jitter (it was 2.9 % and 2.0 %).
#[test]
fn reordering_keeps_goodput() {
    for cc in [CcAlgorithm::Cubic, CcAlgorithm::NewReno] {
        let clean = run(&scenario(path(0, LossModel::None), cc)).metrics;
        let jitter = run(&scenario(path(5, LossModel::None), cc)).metrics;
        show(&format!("{cc:?} clean"), &clean);
        show(&format!("{cc:?} jitter"), &jitter);
        assert!(clean.completed && jitter.completed);
        assert_eq!(jitter.bytes, BYTES);
        let ratio = jitter.goodput_bps / clean.goodput_bps;
        assert!(ratio >= 0.95, "{cc:?}: {ratio:.3}");
        // No queue was overrun by reordering itself: the drops are the
        // slow-start overshoot both runs share.
        assert_eq!(clean.spurious_losses, 0);
        assert_eq!(clean.packet_threshold, PACKET_THRESHOLD);
        assert_eq!(jitter.persistent_congestion, 0);
        assert!(jitter.reordered > 8000, "{}", jitter.reordered);
    }
}

/// The exact CUBIC run: 42 spurious losses, 11 undone events, a threshold
/// of 94 (slow start paces at 2 × cwnd / srtt, so 5 ms of jitter before
/// the bottleneck spans ~90 packets), within the cap.
#[test]
fn spurious_losses_are_counted_and_threshold_stays_bounded() {
    let m = run(&scenario(path(5, LossModel::None), CcAlgorithm::Cubic)).metrics;
    show("cubic jitter", &m);
    assert_eq!(m.goodput_bps.round(), 83_719_303.0);
    assert_eq!(m.packets_lost, 799);
    assert_eq!(m.spurious_losses, 42);
    assert_eq!(m.undone_congestion_events, 11);
    assert_eq!(m.packet_threshold, 94);
    assert!(m.packet_threshold <= MAX_PACKET_THRESHOLD);
    assert!(m.spurious_losses <= m.packets_lost);
}

/// Entries into the recovery state at the server (congestion events).
fn recovery_entries(s: &Scenario) -> (Metrics, usize) {
    let r = run(s);
    let n = r
        .trace
        .iter()
        .filter(|t| {
            t.endpoint == Endpoint::Server
                && matches!(
                    t.event,
                    TraceEvent::CongestionStateUpdated {
                        new: CcState::Recovery,
                        ..
                    }
                )
        })
        .count();
    (r.metrics, n)
}

/// 1 % random loss without reordering: nothing is spurious, the threshold
/// stays at 3, the losses still cut the window (83 / 84 congestion
/// events for 106 losses, none undone), and the run is
/// event-for-event the one before spurious-loss detection existed (same
/// goodput, same losses, same event fingerprint).
#[test]
fn random_loss_is_still_loss() {
    for (cc, goodput, hash, events) in [
        (
            CcAlgorithm::Cubic,
            6_073_851.0,
            0x3891_790a_89c0_fa37_u64,
            83,
        ),
        (
            CcAlgorithm::NewReno,
            4_811_294.0,
            0xb8a5_4ead_7b1a_aab9_u64,
            84,
        ),
    ] {
        let mut s = scenario(path(0, LossModel::Bernoulli { rate: 0.01 }), cc);
        s.trace = TraceLevel::Core;
        let (m, entries) = recovery_entries(&s);
        show(&format!("{cc:?} lossy"), &m);
        eprintln!("{cc:?}: {entries} congestion events");
        assert_eq!(m.packets_lost, 106);
        assert_eq!(m.drops, 106);
        assert_eq!(m.spurious_losses, 0);
        assert_eq!(m.undone_congestion_events, 0);
        assert_eq!(m.packet_threshold, PACKET_THRESHOLD);
        assert_eq!(m.goodput_bps.round(), goodput);
        assert_eq!(entries, events);
        assert_eq!(m.event_hash, hash);
    }
}
