use super::*;
use crate::quic::cc::CcState;
use crate::quic::ecn_validation::EcnFailure;

const MDS: u64 = 1200;
const MAX_ACK_DELAY: Duration = Duration::from_millis(25);

fn ms(n: u64) -> Time {
    Time::from_millis(n)
}

/// Recovery with CUBIC and a 100 ms handshake RTT sampled at time 0.
fn recovery() -> Recovery {
    let mut r = Recovery::new(CcAlgorithm::Cubic, MDS, MAX_ACK_DELAY, Pacing::RFC9002);
    r.seed_rtt(Time::ZERO, Duration::from_millis(100));
    r
}

fn send(r: &mut Recovery, pn: u64, at: Time) {
    send_with(r, pn, at, false);
}

/// Sends packet `pn`, marked ECT(0) if `ect` (and validation lets it),
/// counted as using the window.
fn send_with(r: &mut Recovery, pn: u64, at: Time, ect: bool) {
    let ect = ect && r.mark_next_ect();
    send_full(r, pn, at, true, ect);
}

/// Sends a full-size ack-eliciting packet `pn`.
fn send_full(r: &mut Recovery, pn: u64, at: Time, cwnd_limited: bool, ect: bool) {
    r.on_packet_sent(
        at,
        SentPacket {
            pn,
            time_sent: at,
            size: MDS as u32,
            ack_eliciting: true,
            in_flight: true,
            cwnd_limited,
            ect,
            frames: SentFrames::new(),
        },
    );
}

fn ack(r: &mut Recovery, at: Time, pairs: &[(u64, u64)]) -> AckOutcome {
    let ranges = AckRanges::from_pairs(pairs.to_vec()).unwrap();
    r.on_ack(at, ranges.largest(), 0, &ranges, None)
}

fn pns(v: &[(SentPacket, LossTrigger)]) -> Vec<(u64, LossTrigger)> {
    v.iter().map(|(p, t)| (p.pn, *t)).collect()
}

use super::super::sent::SentFrames;

/// Sends packet `pn`, judged by `r`'s app-limit rule as a sender does.
fn send_judged(r: &mut Recovery, pn: u64, at: Time) {
    let cwnd_limited = r.uses_window(MDS, MDS);
    send_full(r, pn, at, cwnd_limited, false);
}

/// Sends ACK-only packet `pn` (not ack-eliciting, not in flight).
fn send_ack_only(r: &mut Recovery, pn: u64, at: Time) {
    r.on_packet_sent(
        at,
        SentPacket {
            pn,
            time_sent: at,
            size: 40,
            ack_eliciting: false,
            in_flight: false,
            cwnd_limited: false,
            ect: false,
            frames: SentFrames::new(),
        },
    );
}

/// RFC 9002 §5.1: an ACK whose largest is an ACK-only packet still
/// gives an RTT sample when it newly acknowledges an ack-eliciting
/// one, timed from the largest; one that acknowledges only ACK-only
/// packets, or names an already acknowledged largest, gives none.
#[test]
fn an_ack_only_largest_times_the_rtt_sample() {
    let mut r = recovery();
    send(&mut r, 0, ms(0));
    send_ack_only(&mut r, 1, ms(10));
    send_ack_only(&mut r, 2, ms(20));
    // Packets 0..=2 acknowledged at 150 ms: the sample runs from
    // packet 2 (130 ms), not from packet 0 (150 ms).
    let out = ack(&mut r, ms(150), &[(2, 0)]);
    assert!(out.rtt_sampled);
    assert_eq!(r.rtt.latest(), Duration::from_millis(130));
    // Only ACK-only packets newly acknowledged: no sample.
    send_ack_only(&mut r, 3, ms(160));
    let out = ack(&mut r, ms(300), &[(3, 0)]);
    assert!(!out.rtt_sampled);
    assert_eq!(r.rtt.latest(), Duration::from_millis(130));
    // An ack-eliciting packet below a largest acknowledged before.
    send(&mut r, 4, ms(310));
    send_ack_only(&mut r, 5, ms(320));
    let out = ack(&mut r, ms(420), &[(5, 4)]);
    assert!(out.rtt_sampled);
    assert_eq!(r.rtt.latest(), Duration::from_millis(100));
    let out = ack(&mut r, ms(500), &[(5, 0)]);
    assert!(!out.rtt_sampled, "nothing newly acknowledged");
}

/// A burst of 6 packets into an initial window of 10 (12,000 bytes):
/// the first five leave with under half the window in flight, the
/// sixth with half. Acknowledging only the first two grows the window
/// under neqo's rule (they lie below the sixth's watermark) and not
/// under the per-packet rule (neither used the window itself).
#[test]
fn neqo_rule_counts_a_whole_burst_once_its_tail_used_the_window() {
    for (rule, grown) in [(AppLimit::PerPacket, 0), (AppLimit::Neqo, 2 * MDS)] {
        let mut r = recovery().with_app_limit(rule);
        let before = r.cc.cwnd();
        assert_eq!(before, 10 * MDS);
        for pn in 0..6 {
            send_judged(&mut r, pn, ms(1));
        }
        let out = ack(&mut r, ms(101), &[(1, 0)]);
        assert_eq!(out.acked.len(), 2);
        assert_eq!(r.cc.cwnd() - before, grown, "{rule:?}");
    }
    // Under neqo's rule a burst whose tail stayed below half the
    // window does not count, even acknowledged whole.
    let mut r = recovery().with_app_limit(AppLimit::Neqo);
    for pn in 0..5 {
        send_judged(&mut r, pn, ms(1));
    }
    ack(&mut r, ms(101), &[(4, 0)]);
    assert_eq!(r.cc.cwnd(), 10 * MDS);
}

#[test]
fn reordered_packet_is_spurious_raises_threshold_and_undoes() {
    let mut r = recovery();
    for pn in 0..11 {
        send(&mut r, pn, ms(pn));
    }
    // Packets 1–5 overtake packet 0: distance 5 ≥ 3, declared lost.
    let out = ack(&mut r, ms(105), &[(5, 1)]);
    assert_eq!(pns(&out.lost), [(0, LossTrigger::Reordering)]);
    // Slow start grew 12 000 by 5 × 1200, then × 0.7.
    assert_eq!(r.cc.cwnd(), 12_600);
    assert_eq!(r.cc.ssthresh(), 12_600);
    assert_eq!(r.cc.state(), CcState::Recovery);
    assert_eq!(r.cc.bytes_in_flight(), 5 * MDS);
    // Packet 0 arrives after all.
    let out = ack(&mut r, ms(106), &[(5, 0)]);
    assert!(out.acked.is_empty() && out.lost.is_empty());
    assert_eq!(out.spurious.len(), 1);
    assert_eq!(out.spurious[0].pn, 0);
    assert_eq!(r.stats.spurious_losses, 1);
    assert_eq!(r.stats.undone_events, 1);
    // Threshold = distance + 1; the window is back, still in slow start,
    // and packet 0 does not leave flight twice.
    assert_eq!(r.packet_threshold(), 6);
    assert_eq!(r.cc.cwnd(), 18_000);
    assert_eq!(r.cc.ssthresh(), u64::MAX);
    assert_eq!(r.cc.state(), CcState::SlowStart);
    assert_eq!(r.cc.bytes_in_flight(), 5 * MDS);
    // Reported once: a repeat of the same ACK finds nothing.
    let out = ack(&mut r, ms(107), &[(5, 0)]);
    assert!(out.spurious.is_empty());
    assert_eq!(r.stats.spurious_losses, 1);
    // The raised threshold now tolerates the same reordering: packet 6
    // missing below 7–10 is 4 behind, under the threshold of 6.
    let out = ack(&mut r, ms(110), &[(10, 7)]);
    assert!(out.lost.is_empty());
    assert_eq!(r.cc.cwnd(), 22_800);
}

/// An ACK from an honest peer that received every packet up to the
/// largest in `pairs`, `ce` of them marked CE on the way.
fn ack_ecn(r: &mut Recovery, at: Time, pairs: &[(u64, u64)], ce: u64) -> AckOutcome {
    let ranges = AckRanges::from_pairs(pairs.to_vec()).unwrap();
    let counts = EcnCounts {
        ect0: ranges.largest() + 1 - ce,
        ect1: 0,
        ce,
    };
    r.on_ack(at, ranges.largest(), 0, &ranges, Some(counts))
}

#[test]
fn a_rising_ce_count_is_one_congestion_event_per_recovery_period() {
    let mut r = recovery().with_ecn();
    for pn in 0..10 {
        send_with(&mut r, pn, ms(pn), true);
    }
    // No CE yet: slow start grows 12 000 by 3 × 1200.
    let out = ack_ecn(&mut r, ms(102), &[(2, 0)], 0);
    assert_eq!(out.acked.len(), 3);
    assert_eq!(r.cc.cwnd(), 15_600);
    assert_eq!(r.stats.ecn_events, 0);
    // Two marks reported: one event, × 0.85 after this ACK's growth
    // (B.7 runs after the acked packets are processed), nothing lost.
    let out = ack_ecn(&mut r, ms(104), &[(4, 0)], 2);
    assert!(out.lost.is_empty());
    assert_eq!(r.cc.cwnd(), (15_600 + 2 * 1200) * 85 / 100);
    assert_eq!(r.stats.ecn_events, 1);
    assert_eq!(r.cc.state(), CcState::Recovery);
    // The same count again, or a higher one for packets sent before the
    // event: no new event.
    ack_ecn(&mut r, ms(105), &[(5, 0)], 2);
    ack_ecn(&mut r, ms(106), &[(6, 0)], 3);
    assert_eq!(r.stats.ecn_events, 1);
    assert_eq!(r.cc.cwnd(), 15_300);
    // A mark on a packet sent after the event starts a new one.
    send_with(&mut r, 10, ms(200), true);
    ack_ecn(&mut r, ms(300), &[(10, 0)], 4);
    assert_eq!(r.stats.ecn_events, 2);
    // (CUBIC may first grow the window a little on this ACK.)
    let cwnd = r.cc.cwnd();
    assert!((15_300 * 85 / 100..15_300).contains(&cwnd), "{cwnd}");
    assert_eq!(r.cc.ssthresh(), cwnd);
    // An ACK that acknowledges a marked packet without counts fails
    // ECN validation: nothing more is marked, and counts no longer
    // count.
    assert_eq!(r.ecn_state(), EcnState::Capable);
    send_with(&mut r, 11, ms(301), true);
    ack(&mut r, ms(400), &[(11, 0)]);
    assert_eq!(r.ecn_state(), EcnState::Failed(EcnFailure::NoCounts));
    assert!(!r.mark_next_ect());
    send_with(&mut r, 12, ms(401), true);
    ack_ecn(&mut r, ms(500), &[(12, 0)], 9);
    assert_eq!(r.stats.ecn_events, 2);
}

#[test]
fn without_ecn_counts_are_ignored() {
    let mut r = recovery();
    assert_eq!(r.ecn_state(), EcnState::Off);
    assert!(!r.mark_next_ect());
    for pn in 0..10 {
        send(&mut r, pn, ms(pn));
    }
    ack_ecn(&mut r, ms(102), &[(9, 0)], 5);
    assert_eq!(r.stats.ecn_events, 0);
    assert_eq!(r.cc.state(), CcState::SlowStart);
}

#[test]
fn a_real_loss_in_the_event_prevents_undo() {
    let mut r = recovery();
    for pn in 0..10 {
        send(&mut r, pn, ms(pn));
    }
    let out = ack(&mut r, ms(106), &[(6, 2)]);
    assert_eq!(
        pns(&out.lost),
        [(0, LossTrigger::Reordering), (1, LossTrigger::Reordering)]
    );
    let reduced = r.cc.cwnd();
    assert_eq!(reduced, 12_600); // (12 000 + 5 × 1200) × 0.7
    // Packet 0 was only late; packet 1 never comes.
    let out = ack(&mut r, ms(107), &[(6, 2), (0, 0)]);
    assert_eq!(out.spurious.len(), 1);
    assert_eq!(r.stats.spurious_losses, 1);
    assert_eq!(r.stats.undone_events, 0);
    assert_eq!(r.cc.cwnd(), reduced);
    assert_eq!(r.cc.state(), CcState::Recovery);
    assert_eq!(r.packet_threshold(), 7);
}

#[test]
fn packet_threshold_is_capped() {
    let mut r = recovery();
    for pn in 0..1000 {
        send(&mut r, pn, ms(1) + Duration::from_micros(pn));
    }
    let out = ack(&mut r, ms(102), &[(999, 1)]);
    assert_eq!(out.lost.len(), 1);
    let out = ack(&mut r, ms(103), &[(999, 0)]);
    assert_eq!(out.spurious.len(), 1);
    assert_eq!(r.packet_threshold(), MAX_PACKET_THRESHOLD);
    assert_eq!(r.stats.undone_events, 1);
}

#[test]
fn spurious_time_loss_widens_the_reordering_window_up_to_srtt() {
    let mut r = recovery();
    assert_eq!(r.loss_delay(), Duration::from_micros(112_500)); // 9/8 × 100 ms
    let mut t = ms(1000);
    for round in 1..=6u32 {
        let pn = u64::from(round - 1) * 2;
        send(&mut r, pn, t);
        send(&mut r, pn + 1, t + Duration::from_millis(1));
        // Packet pn + 1 acked one RTT after it left; pn is not 3 behind.
        let at = t + Duration::from_millis(101);
        let out = ack(&mut r, at, &[(pn + 1, pn + 1)]);
        assert!(out.lost.is_empty());
        let fire = r.timeout().unwrap();
        let TimeoutOutcome::Lost(lost) = r.on_timeout(fire) else {
            panic!("loss timer expected");
        };
        assert_eq!(pns(&lost), [(pn, LossTrigger::Time)]);
        // Packet pn shows up just after the timer.
        let ranges: &[(u64, u64)] = if pn == 0 { &[(1, 0)] } else { &[(pn + 1, 0)] };
        let out = ack(&mut r, fire + Duration::from_millis(1), ranges);
        assert_eq!(out.spurious.len(), 1);
        assert_eq!(r.stats.undone_events, u64::from(round));
        // One step per round, min_rtt / 4 = 25 ms each, up to 4 steps.
        let mult = round.min(MAX_REO_WND_MULT);
        assert_eq!(r.reo_wnd_mult(), mult);
        let rtt = r.rtt.latest().max(r.rtt.smoothed());
        let reo = (r.rtt.min_rtt() / 4 * mult).min(r.rtt.smoothed());
        assert_eq!(r.loss_delay(), (rtt * 9 / 8).max(rtt + reo));
        assert!(r.loss_delay() <= rtt + r.rtt.smoothed());
        t = fire + Duration::from_millis(10);
    }
    // The packet threshold was never involved.
    assert_eq!(r.packet_threshold(), PACKET_THRESHOLD);
    assert_eq!(r.loss_delay(), Duration::from_millis(200));
}

#[test]
fn forgotten_losses_are_not_spurious() {
    let mut r = recovery();
    for pn in 0..5 {
        send(&mut r, pn, ms(pn));
    }
    let out = ack(&mut r, ms(105), &[(4, 1)]);
    assert_eq!(out.lost.len(), 1);
    let reduced = r.cc.cwnd();
    // Acknowledged more than a PTO period (100 + 200 + 25 ms) later:
    // forgotten, no longer evidence.
    let out = ack(&mut r, ms(105 + 326), &[(4, 0)]);
    assert!(out.spurious.is_empty());
    assert_eq!(r.stats.spurious_losses, 0);
    assert_eq!(r.cc.cwnd(), reduced);
    assert_eq!(r.packet_threshold(), PACKET_THRESHOLD);
}

#[test]
fn lost_memory_is_bounded() {
    let mut r = recovery();
    let n = MAX_LOST_REMEMBERED as u64 + 100;
    for pn in 0..=n {
        send(&mut r, pn, ms(1) + Duration::from_micros(pn));
    }
    // All but the two packets within the packet threshold are lost.
    let out = ack(&mut r, ms(200), &[(n, n)]);
    assert_eq!(out.lost.len() as u64, n - 2);
    assert_eq!(r.lost.len(), MAX_LOST_REMEMBERED);
    // The oldest were forgotten, so the event cannot be undone.
    let out = ack(&mut r, ms(201), &[(n, 0)]);
    assert_eq!(out.spurious.len(), MAX_LOST_REMEMBERED);
    assert_eq!(r.stats.undone_events, 0);
}

#[test]
fn persistent_congestion_collapses_the_window() {
    // The ACK's 100 ms sample leaves smoothed_rtt at 100 ms and rttvar
    // at 37.5 ms: PTO period = 100 + 4 × 37.5 + 25 = 275 ms; × 3 =
    // 825 ms.
    for (span_ms, persistent) in [(826, true), (825, false)] {
        let mut r = recovery();
        send(&mut r, 0, ms(1));
        send(&mut r, 1, ms(1 + span_ms / 2));
        send(&mut r, 2, ms(1 + span_ms));
        for pn in 3..6 {
            send(&mut r, pn, ms(1 + span_ms + pn));
        }
        let out = ack(&mut r, ms(106 + span_ms), &[(5, 5)]);
        assert_eq!(out.lost.len(), 3);
        assert_eq!(r.rtt.pto_period(MAX_ACK_DELAY), Duration::from_millis(275));
        let want = if persistent {
            2 * MDS
        } else {
            (12_000 + MDS) * 7 / 10
        };
        assert_eq!(r.cc.cwnd(), want, "span {span_ms} ms");
        assert_eq!(r.stats.persistent_congestion, u64::from(persistent));
    }
}

#[test]
fn persistent_congestion_needs_an_unbroken_run() {
    let mut r = recovery();
    send(&mut r, 0, ms(1));
    send(&mut r, 1, ms(500));
    send(&mut r, 2, ms(1000));
    for pn in 3..6 {
        send(&mut r, pn, ms(1000 + pn));
    }
    // Packet 1 was acknowledged: 0 and 2 are not one loss period.
    let out = ack(&mut r, ms(1100), &[(5, 5), (1, 1)]);
    assert_eq!(out.lost.len(), 2);
    assert_eq!(r.stats.persistent_congestion, 0);
    assert_eq!(r.cc.cwnd(), (12_000 + 2 * MDS) * 7 / 10);
}
