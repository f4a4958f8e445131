//! CUBIC congestion control (RFC 9438), on top of the slow start and
//! recovery rules of RFC 9002.
//!
//! Window arithmetic is done in f64 segments of max_datagram_size (IEEE
//! arithmetic is deterministic); the byte window is what the transport sees.

use super::base::{AckGrowth, Algorithm, CcBase};
use crate::quic::rtt::RttEstimator;
use crate::time::Time;

/// C: scaling constant of the cubic function (RFC 9438 §5.1).
const C: f64 = 0.4;
/// β_cubic: multiplicative decrease factor (RFC 9438 §4.6).
const BETA_CUBIC: f64 = 0.7;
/// α_cubic: Reno-friendly additive increase, 3(1 − β)/(1 + β) (§4.3).
const ALPHA_CUBIC: f64 = 3.0 * (1.0 - BETA_CUBIC) / (1.0 + BETA_CUBIC);

/// CUBIC's own state just before a congestion event, restored if the
/// event proves spurious.
///
/// Invariant: a copy of the [`Cubic`] fields of the same names taken at one
/// instant, so it satisfies [`Cubic`]'s invariants.
#[derive(Clone, Copy, Debug)]
struct CubicUndo {
    w_max: f64,
    cwnd_prior: f64,
    k: f64,
    epoch_start: Option<Time>,
    w_est: f64,
    alpha: f64,
    app_limited_since: Option<Time>,
    growth_carry: f64,
}

/// CUBIC congestion control.
///
/// Invariants: `w_max`, `cwnd_prior` and `w_est` are in segments;
/// `epoch_start` is `None` outside a congestion-avoidance epoch (before the
/// first one, and from a congestion event until the first acknowledgement
/// in congestion avoidance); `app_limited_since` is set only within an
/// epoch; `0 <= growth_carry < 1` byte; `undo` is the state from before the
/// latest congestion event (`None` before the first, after an undo or after
/// persistent congestion — exactly when `base` has no event to undo).
#[derive(Clone, Debug)]
pub struct Cubic {
    base: CcBase,
    /// W_max: window before the last reduction, lowered by fast convergence.
    w_max: f64,
    /// cwnd_prior: window just before the last reduction.
    cwnd_prior: f64,
    /// K: seconds the cubic function takes to reach `w_max` from the
    /// epoch's starting window.
    k: f64,
    /// t_epoch: start of the current congestion-avoidance epoch, shifted
    /// forward by application-limited time.
    epoch_start: Option<Time>,
    /// W_est: the Reno-friendly window estimate.
    w_est: f64,
    /// α used for `w_est`: α_cubic until `w_est` reaches `cwnd_prior`, then 1.
    alpha: f64,
    /// First app-limited acknowledgement of the current app-limited spell.
    app_limited_since: Option<Time>,
    /// Fraction of a byte of growth not yet added to cwnd.
    growth_carry: f64,
    /// State before the latest congestion event.
    undo: Option<CubicUndo>,
}

impl Cubic {
    /// A controller with the RFC 9002 initial window for `max_datagram_size`.
    #[must_use]
    pub fn new(max_datagram_size: u64) -> Self {
        Self {
            base: CcBase::new(max_datagram_size),
            w_max: 0.0,
            cwnd_prior: 0.0,
            k: 0.0,
            epoch_start: None,
            w_est: 0.0,
            alpha: ALPHA_CUBIC,
            app_limited_since: None,
            growth_carry: 0.0,
            undo: None,
        }
    }

    /// W_cubic(t) = C·(t − K)³ + W_max, in segments (RFC 9438 §4.2, eq. 1).
    fn w_cubic(&self, t: f64) -> f64 {
        C * (t - self.k).powi(3) + self.w_max
    }

    fn cwnd_segments(&self) -> f64 {
        self.base.cwnd as f64 / self.base.mds as f64
    }

    /// Begins a congestion-avoidance epoch at `now` (RFC 9438 §4.2 eq. 2,
    /// §4.3): K from the current window, W_est = cwnd_epoch.
    fn start_epoch(&mut self, now: Time) -> Time {
        let cwnd = self.cwnd_segments();
        if self.w_max > cwnd {
            self.k = ((self.w_max - cwnd) / C).cbrt();
        } else {
            // Already at or above W_max (e.g. slow start after persistent
            // congestion went past it): start on the convex part at once.
            self.k = 0.0;
            self.w_max = cwnd;
        }
        self.w_est = cwnd;
        self.epoch_start = Some(now);
        self.app_limited_since = None;
        self.growth_carry = 0.0;
        now
    }

    /// RFC 9438 §4.3–§4.5 for one acknowledgement of `bytes`.
    fn congestion_avoidance(&mut self, now: Time, bytes: u64, rtt: &RttEstimator) {
        let mut epoch = match self.epoch_start {
            Some(e) => e,
            None => self.start_epoch(now),
        };
        if let Some(since) = self.app_limited_since.take() {
            // RFC 9438 §5.8: no growth while application limited; moving
            // t_epoch forward keeps that time out of W_cubic(t).
            epoch += now - since;
            self.epoch_start = Some(epoch);
        }
        let mds = self.base.mds as f64;
        let cwnd = self.cwnd_segments();
        let acked = bytes as f64 / mds;
        let t = (now - epoch).as_secs_f64();

        // §4.3: Reno-friendly estimate; α becomes 1 once W_est reaches
        // the window before the last reduction.
        self.w_est += self.alpha * acked / cwnd;
        if self.w_est >= self.cwnd_prior {
            self.alpha = 1.0;
        }

        if self.w_cubic(t) < self.w_est {
            // Reno-friendly region: cwnd = W_est.
            let est = (self.w_est * mds) as u64;
            self.base.cwnd = self.base.cwnd.max(est);
        } else {
            // §4.4/§4.5: grow towards W_cubic(t + RTT), by
            // (target − cwnd)/cwnd per acknowledged segment.
            let srtt = rtt.smoothed().as_secs_f64();
            let target = self.w_cubic(t + srtt).clamp(cwnd, 1.5 * cwnd);
            self.growth_carry += (target - cwnd) / cwnd * bytes as f64;
            let whole = self.growth_carry.floor();
            self.growth_carry -= whole;
            self.base.cwnd += whole as u64;
        }
    }
}

impl Algorithm for Cubic {
    const NAME: &'static str = "cubic";

    fn base(&self) -> &CcBase {
        &self.base
    }

    fn base_mut(&mut self) -> &mut CcBase {
        &mut self.base
    }

    fn on_ack(&mut self, growth: AckGrowth, now: Time, bytes: u64, rtt: &RttEstimator) {
        match growth {
            AckGrowth::CongestionAvoidance => self.congestion_avoidance(now, bytes, rtt),
            AckGrowth::AppLimited => {
                if self.epoch_start.is_some() && self.app_limited_since.is_none() {
                    self.app_limited_since = Some(now);
                }
            }
            AckGrowth::InRecovery | AckGrowth::SlowStart => {}
        }
    }

    fn on_congestion_event(&mut self, _now: Time, ecn: bool) {
        self.undo = Some(CubicUndo {
            w_max: self.w_max,
            cwnd_prior: self.cwnd_prior,
            k: self.k,
            epoch_start: self.epoch_start,
            w_est: self.w_est,
            alpha: self.alpha,
            app_limited_since: self.app_limited_since,
            growth_carry: self.growth_carry,
        });
        // §4.7 fast convergence, §4.6 multiplicative decrease.
        let cwnd = self.cwnd_segments();
        self.w_max = if cwnd < self.w_max {
            cwnd * (1.0 + BETA_CUBIC) / 2.0
        } else {
            cwnd
        };
        self.cwnd_prior = cwnd;
        // β = 0.7 exactly in integer bytes; 0.85 for an ECN-CE signal
        // (RFC 8511 §3.1, "Alternative Backoff with ECN", as neqo does).
        let (num, den) = if ecn { (85, 100) } else { (7, 10) };
        self.base.reduce_to(self.base.cwnd * num / den);
        self.alpha = ALPHA_CUBIC;
        self.epoch_start = None;
        self.app_limited_since = None;
    }

    fn on_undo(&mut self) {
        // RFC 9438 does not cover undo; restoring W_max, K and the epoch
        // resumes the cubic curve where the spurious event cut it off.
        let Some(u) = self.undo.take() else {
            return;
        };
        self.w_max = u.w_max;
        self.cwnd_prior = u.cwnd_prior;
        self.k = u.k;
        self.epoch_start = u.epoch_start;
        self.w_est = u.w_est;
        self.alpha = u.alpha;
        self.app_limited_since = u.app_limited_since;
        self.growth_carry = u.growth_carry;
    }

    fn on_collapse(&mut self) {
        self.epoch_start = None;
        self.app_limited_since = None;
        self.undo = None;
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::*;
    use super::super::{
        algorithm::CcAlgorithm,
        control::{CcState, CongestionControl},
    };
    use super::*;
    use std::time::Duration;

    #[test]
    fn shared() {
        shared_behaviour(CcAlgorithm::Cubic, |w| w * 7 / 10);
    }

    fn rtt_of(ms: u64) -> RttEstimator {
        let mut r = RttEstimator::new(Duration::from_millis(ms));
        r.update(Duration::from_millis(ms), Duration::ZERO, Duration::ZERO);
        r
    }

    /// A CUBIC controller that just reduced from `segments` segments at
    /// time 1 s (the lost packet was sent at 0.9 s).
    fn after_loss(segments: u64) -> Cubic {
        let mut cc = Cubic::new(MDS);
        cc.base.cwnd = segments * MDS;
        cc.on_packet_sent(ms(900), MDS);
        cc.on_packets_lost(ms(1000), ms(900), MDS);
        cc
    }

    /// Acks MDS packets back to back at the rate cwnd / rtt, starting at
    /// `start`, until `until`; each packet was sent one RTT before its ack.
    /// Calls `check(t, cc)` at each ack.
    fn ack_clock(
        cc: &mut Cubic,
        rtt: &RttEstimator,
        start: Time,
        until: Time,
        app_limited: bool,
        mut check: impl FnMut(Time, &Cubic),
    ) -> Time {
        let mut now = start;
        while now < until {
            let sent = Time(now.0 - rtt.smoothed().as_nanos() as u64);
            cc.on_packet_sent(sent, MDS);
            cc.on_packet_acked(now, sent, MDS, rtt, app_limited);
            check(now, cc);
            let gap = rtt.smoothed().as_nanos() as u64 * MDS / cc.cwnd();
            now = Time(now.0 + gap);
        }
        now
    }

    /// [`ack_clock`] with acks that are not application limited, unchecked.
    fn ack_until(cc: &mut Cubic, rtt: &RttEstimator, start: Time, until: Time) -> Time {
        ack_clock(cc, rtt, start, until, false, |_, _| {})
    }

    #[test]
    fn loss_multiplies_by_beta_and_sets_k() {
        let cc = after_loss(100);
        assert_eq!(cc.cwnd(), 70 * MDS);
        assert_eq!(cc.ssthresh(), 70 * MDS);
        assert_eq!(cc.w_max, 100.0);
        assert_eq!(cc.cwnd_prior, 100.0);
        assert_eq!(cc.state(), CcState::Recovery);
    }

    #[test]
    fn ecn_ce_backs_off_to_0_85_once_per_recovery_period() {
        let mut cc = Cubic::new(MDS);
        cc.base.cwnd = 100 * MDS;
        cc.on_packet_sent(ms(900), MDS);
        assert!(cc.on_ecn_ce(ms(1000), ms(900)));
        // RFC 8511 §3.1: β_ecn = 0.85; nothing left flight.
        assert_eq!(cc.cwnd(), 85 * MDS);
        assert_eq!(cc.ssthresh(), 85 * MDS);
        assert_eq!(cc.bytes_in_flight(), MDS);
        assert_eq!(cc.w_max, 100.0);
        assert_eq!(cc.state(), CcState::Recovery);
        // A mark on a packet sent before the event starts none.
        assert!(!cc.on_ecn_ce(ms(1001), ms(950)));
        assert_eq!(cc.cwnd(), 85 * MDS);
        // One sent after it does; fast convergence lowers W_max below it.
        assert!(cc.on_ecn_ce(ms(2000), ms(1500)));
        assert_eq!(cc.cwnd(), 85 * 85 * MDS / 100);
        assert_eq!(cc.w_max, 85.0 * (1.0 + BETA_CUBIC) / 2.0);
        // A CE mark keeps no undo state of its own.
        assert!(!cc.undo_congestion_event());
    }

    #[test]
    fn window_follows_w_cubic() {
        let rtt = rtt_of(100);
        let mut cc = after_loss(100);
        // First ack of a packet sent after the loss starts the epoch.
        let start = ms(1100) + Duration::from_nanos(1);
        let k = (100.0f64 * (1.0 - BETA_CUBIC) / C).cbrt(); // 4.217 s
        let mut checked = Vec::new();
        let checkpoints = [0.5, 1.0, 2.0, 3.0, k, 5.0];
        ack_clock(&mut cc, &rtt, start, ms(1100 + 5200), false, |now, cc| {
            assert_eq!(cc.epoch_start, Some(start));
            assert!((cc.k - k).abs() < 1e-12);
            let t = (now - start).as_secs_f64();
            if let Some(&cp) = checkpoints
                .iter()
                .find(|&&cp| t >= cp && !checked.contains(&cp))
            {
                checked.push(cp);
                let expect = C * (t - k).powi(3) + 100.0;
                let got = cc.cwnd() as f64 / MDS as f64;
                assert!(
                    (got - expect).abs() <= 0.1,
                    "t={t:.3}: cwnd {got:.2} vs W_cubic {expect:.2}"
                );
            }
        });
        assert_eq!(checked.len(), checkpoints.len());
    }

    #[test]
    fn reaches_w_max_at_k() {
        let rtt = rtt_of(100);
        let mut cc = after_loss(100);
        let start = ms(1100) + Duration::from_nanos(1);
        let k_ms = ((100.0f64 * 0.3 / C).cbrt() * 1000.0) as u64;
        ack_until(&mut cc, &rtt, start, start + Duration::from_millis(k_ms));
        let w = cc.cwnd() as f64 / MDS as f64;
        assert!((w - 100.0).abs() <= 0.1, "cwnd at K: {w:.2} segments");
    }

    #[test]
    fn reno_friendly_region_at_short_rtt() {
        // At 10 ms RTT W_cubic grows slower than Reno near the plateau:
        // cwnd follows W_est = 70 + α·rounds, then +1 per round once it
        // reaches cwnd_prior = 100 (RFC 9438 §4.3).
        let rtt = rtt_of(10);
        let mut cc = after_loss(100);
        let start = ms(1010) + Duration::from_nanos(1);
        ack_until(&mut cc, &rtt, start, start + Duration::from_secs(1));
        let rounds_to_prior = 30.0 / ALPHA_CUBIC; // 56.7 RTTs
        let expect = 100.0 + (100.0 - rounds_to_prior);
        let got = cc.cwnd() as f64 / MDS as f64;
        assert!(
            (got - expect).abs() <= 0.1,
            "cwnd {got:.2} vs Reno estimate {expect:.2}"
        );
        assert!(got > cc.w_cubic(1.0) + 40.0);
        assert_eq!(cc.alpha, 1.0);
    }

    #[test]
    fn app_limited_time_does_not_count() {
        let rtt = rtt_of(100);
        let mut cc = after_loss(100);
        let start = ms(1100) + Duration::from_nanos(1);
        let t1 = ack_until(&mut cc, &rtt, start, start + Duration::from_secs(1));
        let before = cc.cwnd();
        // Three seconds of app-limited acks: no growth at all.
        let t2 = ack_clock(
            &mut cc,
            &rtt,
            t1,
            t1 + Duration::from_secs(3),
            true,
            |_, cc| {
                assert_eq!(cc.cwnd(), before);
                assert_eq!(cc.state(), CcState::ApplicationLimited);
            },
        );
        // Back to sending: the epoch moved forward by the app-limited time,
        // so the next ack grows like the one at t1 did (a fraction of a
        // segment), not like W_cubic(t + 3 s).
        ack_until(&mut cc, &rtt, t2, t2 + Duration::from_nanos(1));
        assert!(
            cc.cwnd() - before < MDS,
            "grew {} bytes",
            cc.cwnd() - before
        );
        assert_eq!(cc.epoch_start, Some(start + (t2 - t1)));
    }

    #[test]
    fn fast_convergence_lowers_w_max() {
        let mut cc = after_loss(100);
        // Second loss below the previous W_max.
        cc.base.cwnd = 80 * MDS;
        cc.on_packet_sent(ms(2000), MDS);
        cc.on_packets_lost(ms(2100), ms(2000), MDS);
        assert_eq!(cc.cwnd(), 56 * MDS);
        assert!((cc.w_max - 68.0).abs() < 1e-9); // 80 · (1 + 0.7) / 2
        assert_eq!(cc.cwnd_prior, 80.0);
        // K = cbrt((68 − 56) / 0.4) = cbrt(30) once the epoch starts.
        cc.on_packet_sent(ms(2200), MDS);
        cc.on_packet_acked(ms(2300), ms(2200), MDS, &rtt_of(100), false);
        assert!((cc.k - 30f64.cbrt()).abs() < 1e-9);
    }

    #[test]
    fn undo_restores_the_state_before_the_event() {
        let rtt = rtt_of(100);
        let mut cc = after_loss(100);
        // Into congestion avoidance for a second: an epoch with W_est.
        let start = ms(1100) + Duration::from_nanos(1);
        ack_until(&mut cc, &rtt, start, start + Duration::from_secs(1));
        let before = cc.clone();
        let flight = cc.bytes_in_flight();
        // A second event, then proof it was spurious.
        cc.on_packet_sent(ms(2200), MDS);
        assert!(cc.on_packets_lost(ms(2300), ms(2200), MDS));
        assert!(cc.cwnd() < before.cwnd());
        assert!(cc.undo_congestion_event());
        assert_eq!(cc.cwnd(), before.cwnd());
        assert_eq!(cc.ssthresh(), before.ssthresh());
        assert_eq!(cc.bytes_in_flight(), flight);
        assert_eq!(cc.state(), CcState::CongestionAvoidance);
        assert_eq!(cc.w_max, before.w_max);
        assert_eq!(cc.cwnd_prior, before.cwnd_prior);
        assert_eq!(cc.k, before.k);
        assert_eq!(cc.epoch_start, before.epoch_start);
        assert_eq!(cc.w_est, before.w_est);
        assert_eq!(cc.alpha, before.alpha);
        assert_eq!(cc.growth_carry, before.growth_carry);
        // Only once; and never after persistent congestion.
        assert!(!cc.undo_congestion_event());
        cc.on_packet_sent(ms(2400), MDS);
        assert!(cc.on_packets_lost(ms(2500), ms(2400), MDS));
        cc.on_persistent_congestion();
        assert!(!cc.undo_congestion_event());
        assert_eq!(cc.cwnd(), 2 * MDS);
    }

    #[test]
    fn epoch_above_w_max_starts_convex() {
        // Persistent congestion then slow start past the old W_max.
        let mut cc = after_loss(10);
        cc.on_persistent_congestion();
        cc.base.cwnd = 20 * MDS; // above W_max = 10, at ssthresh 7
        cc.on_packet_sent(ms(3000), MDS);
        cc.on_packet_acked(ms(3100), ms(3000), MDS, &rtt_of(100), false);
        assert_eq!(cc.k, 0.0);
        assert_eq!(cc.w_max, 20.0);
    }
}
