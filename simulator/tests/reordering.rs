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
//! The tests assert what the physics allows (goodput against the same
//! path without jitter, thresholds against the reordering the path really
//! did); the exact runs are pinned in `snapshots/reordering.txt`, which
//! `UPDATE_SNAPSHOTS=1 cargo test -p neqo-fc-sim --test
//! reordering` regenerates after an intended change. Run with
//! `-- --nocapture` for the numbers.

use std::{fs, path::PathBuf, time::Duration};

use neqo_fc_sim::{
    metrics::Metrics,
    net::{LossModel, PathConfig},
    quic::cc::{CcAlgorithm, CcState},
    run,
    scenario::{RunResult, Scenario, Workload},
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

/// Data packets of a full size the transfer needs at least (a 1500-byte
/// datagram carries under 1,500 stream bytes).
const MIN_PACKETS: u64 = BYTES / 1500;

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
        // 5 ms of jitter spans ~40 serialisations of a full packet at
        // 100 Mbit/s: most packets are overtaken by a later one.
        assert!(jitter.reordered > MIN_PACKETS / 2, "{}", jitter.reordered);
    }
}

/// The largest reordering distance the client saw: packet numbers by
/// which an arriving packet trailed the largest one before it (dropped
/// packets count, as they do for the sender's packet threshold).
fn largest_reordering(r: &RunResult) -> u64 {
    let mut largest: Option<u64> = None;
    let mut distance = 0;
    for t in r.trace.iter().filter(|t| t.endpoint == Endpoint::Client) {
        if let TraceEvent::PacketReceived { pn, .. } = t.event {
            if let Some(l) = largest {
                distance = distance.max(l.saturating_sub(pn));
            }
            largest = largest.max(Some(pn));
        }
    }
    distance
}

/// Spurious losses are counted and undone, and the packet threshold rises
/// to what the path's reordering needs and no further: at most one more
/// than the largest reordering the client saw (RFC 9002 §6.1.1: a packet
/// is lost once `threshold` later ones are acknowledged), within the cap.
#[test]
fn spurious_losses_are_counted_and_threshold_stays_bounded() {
    for cc in [CcAlgorithm::Cubic, CcAlgorithm::NewReno] {
        let mut s = scenario(path(5, LossModel::None), cc);
        s.trace = TraceLevel::Full;
        let r = run(&s);
        let m = &r.metrics;
        let seen = largest_reordering(&r);
        show(&format!("{cc:?} jitter"), m);
        eprintln!("{cc:?}: largest reordering seen {seen} packets");
        assert!(m.completed && m.error.is_none(), "{m:?}");
        assert!(m.spurious_losses > 0 && m.spurious_losses <= m.packets_lost);
        // Each undone event needs at least one spurious loss behind it.
        assert!(m.undone_congestion_events >= 1);
        assert!(m.undone_congestion_events <= m.spurious_losses);
        assert!(m.packet_threshold > PACKET_THRESHOLD, "{m:?}");
        assert!(m.packet_threshold <= (seen + 1).min(MAX_PACKET_THRESHOLD));
    }
}

/// Entries into the recovery state at the server (congestion events).
fn recovery_entries(r: &RunResult) -> u64 {
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
    n as u64
}

/// 1 % random loss without reordering: nothing is spurious, no event is
/// undone, the threshold stays at 3, every packet declared lost was really
/// dropped, and the losses still cut the window — at least one congestion
/// event per two losses (at ~40 packets per RTT, 1 % loss rarely hits one
/// round trip twice; the sender reduces once per round trip).
#[test]
fn random_loss_is_still_loss() {
    for cc in [CcAlgorithm::Cubic, CcAlgorithm::NewReno] {
        let mut s = scenario(path(0, LossModel::Bernoulli { rate: 0.01 }), cc);
        s.trace = TraceLevel::Core;
        let r = run(&s);
        let m = &r.metrics;
        let events = recovery_entries(&r);
        show(&format!("{cc:?} lossy"), m);
        eprintln!("{cc:?}: {events} congestion events");
        assert!(m.completed && m.error.is_none(), "{m:?}");
        assert_eq!(m.spurious_losses, 0);
        assert_eq!(m.undone_congestion_events, 0);
        assert_eq!(m.packet_threshold, PACKET_THRESHOLD);
        assert!(m.packets_lost > 0 && m.packets_lost <= m.drops, "{m:?}");
        assert!(events >= 1 && events <= m.packets_lost);
        assert!(2 * events >= m.packets_lost, "{events} events");
    }
}

/// The runs of this file, exactly: goodput, losses, thresholds, events and
/// the event fingerprint. A change in loss detection or congestion control
/// shows here first; if it is intended, regenerate with
/// `UPDATE_SNAPSHOTS=1 cargo test -p neqo-fc-sim --test reordering`.
#[test]
fn runs_match_the_snapshot() {
    let mut lines = Vec::new();
    for cc in [CcAlgorithm::Cubic, CcAlgorithm::NewReno] {
        for (name, jitter, loss) in [
            ("clean", 0, LossModel::None),
            ("jitter-5ms", 5, LossModel::None),
            ("loss-1%", 0, LossModel::Bernoulli { rate: 0.01 }),
        ] {
            let m = run(&scenario(path(jitter, loss), cc)).metrics;
            lines.push(format!(
                "{} {name}: goodput {:.0} bit/s, lost {}, spurious {}, undone {}, \
                 threshold {}, drops {}, events {}, hash {:016x}",
                cc.name(),
                m.goodput_bps,
                m.packets_lost,
                m.spurious_losses,
                m.undone_congestion_events,
                m.packet_threshold,
                m.drops,
                m.events,
                m.event_hash
            ));
        }
    }
    check_snapshot("reordering.txt", &(lines.join("\n") + "\n"));
}

/// Compares `actual` with `tests/snapshots/<name>`; with `UPDATE_SNAPSHOTS`
/// set, writes it there instead.
fn check_snapshot(name: &str, actual: &str) {
    let file: PathBuf = [env!("CARGO_MANIFEST_DIR"), "tests", "snapshots", name]
        .iter()
        .collect();
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        fs::create_dir_all(file.parent().expect("a folder")).expect("snapshot folder");
        fs::write(&file, actual).expect("snapshot written");
        return;
    }
    let expected = fs::read_to_string(&file).unwrap_or_default();
    assert!(
        expected == actual,
        "{} differs from this build.\n--- snapshot\n{expected}--- this build\n{actual}\
         If the change is intended: UPDATE_SNAPSHOTS=1 cargo test -p neqo-fc-sim \
         --test reordering",
        file.display()
    );
}
