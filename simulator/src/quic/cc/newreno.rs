//! NewReno congestion control (RFC 9002 §7, Appendix B).

use super::base::{AckGrowth, Algorithm, CcBase};
use crate::quic::rtt::RttEstimator;
use crate::time::Time;

/// NewReno: slow start, then one max_datagram_size per window of
/// acknowledged bytes; halve the window on a congestion event
/// (kLossReductionFactor = 0.5).
///
/// Invariant: `ca_acked < cwnd` after every acknowledgement; it holds the
/// bytes acknowledged in congestion avoidance not yet turned into growth,
/// so growth is exactly `mds · acked / cwnd` summed over acks.
/// `undo_ca_acked` is `ca_acked` from before the latest congestion event.
#[derive(Clone, Debug)]
pub struct NewReno {
    base: CcBase,
    ca_acked: u64,
    undo_ca_acked: u64,
}

impl NewReno {
    /// A controller with the RFC 9002 initial window for `max_datagram_size`.
    #[must_use]
    pub fn new(max_datagram_size: u64) -> Self {
        Self {
            base: CcBase::new(max_datagram_size),
            ca_acked: 0,
            undo_ca_acked: 0,
        }
    }
}

impl Algorithm for NewReno {
    const NAME: &'static str = "newreno";

    fn base(&self) -> &CcBase {
        &self.base
    }

    fn base_mut(&mut self) -> &mut CcBase {
        &mut self.base
    }

    fn on_ack(&mut self, growth: AckGrowth, _now: Time, bytes: u64, _rtt: &RttEstimator) {
        if growth == AckGrowth::CongestionAvoidance {
            // Appendix B.5: cwnd += mds * acked / cwnd, by byte counting.
            self.ca_acked += bytes;
            while self.ca_acked >= self.base.cwnd {
                self.ca_acked -= self.base.cwnd;
                self.base.cwnd += self.base.mds;
            }
        }
    }

    fn on_congestion_event(&mut self, _now: Time, _ecn: bool) {
        // RFC 9002 §7.3.2 halves the window for either signal (neqo too).
        self.undo_ca_acked = self.ca_acked;
        self.base.reduce_to(self.base.cwnd / 2);
        self.ca_acked = 0;
    }

    fn on_undo(&mut self) {
        // Keep `ca_acked < cwnd`: the restored window is at least as large
        // as the one `undo_ca_acked` was counted against.
        self.ca_acked = self.undo_ca_acked.min(self.base.cwnd.saturating_sub(1));
    }

    fn on_collapse(&mut self) {
        self.ca_acked = 0;
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
        shared_behaviour(CcAlgorithm::NewReno, |w| w / 2);
    }

    #[test]
    fn congestion_avoidance_adds_one_mds_per_window() {
        let mut cc = NewReno::new(MDS);
        cc.base.reduce_to(12_000); // ssthresh = cwnd: congestion avoidance
        assert_eq!(cc.state(), CcState::CongestionAvoidance);
        let t = ms(0);
        for _ in 0..9 {
            cc.on_packet_sent(t, MDS);
            cc.on_packet_acked(t + Duration::from_millis(100), t, MDS, &rtt(), false);
        }
        // 10 800 bytes acked, less than the 12 000-byte window: no growth yet.
        assert_eq!(cc.cwnd(), 12_000);
        cc.on_packet_sent(t, MDS);
        cc.on_packet_acked(t, t, MDS, &rtt(), false);
        assert_eq!(cc.cwnd(), 13_200);
        assert_eq!(cc.ca_acked, 0);
        // Next increase needs 13 200 bytes = 11 packets.
        for _ in 0..10 {
            cc.on_packet_sent(t, MDS);
            cc.on_packet_acked(t, t, MDS, &rtt(), false);
        }
        assert_eq!(cc.cwnd(), 13_200);
        cc.on_packet_sent(t, MDS);
        cc.on_packet_acked(t, t, MDS, &rtt(), false);
        assert_eq!(cc.cwnd(), 14_400);
        // Over many rounds: one MDS per round trip.
        let mut now = ms(1000);
        for i in 1..=20 {
            now = round(&mut cc, now, false);
            assert_eq!(cc.cwnd(), 14_400 + i * MDS);
        }
    }

    #[test]
    fn app_limited_in_congestion_avoidance() {
        let mut cc = NewReno::new(MDS);
        cc.base.reduce_to(12_000);
        let now = round(&mut cc, ms(0), true);
        assert_eq!(cc.cwnd(), 12_000);
        assert_eq!(cc.ca_acked, 0);
        round(&mut cc, now, false);
        assert_eq!(cc.cwnd(), 13_200);
    }

    #[test]
    fn undo_restores_window_and_byte_count() {
        let mut cc = NewReno::new(MDS);
        cc.base.reduce_to(24_000); // congestion avoidance
        let t = ms(0);
        for _ in 0..5 {
            cc.on_packet_sent(t, MDS);
            cc.on_packet_acked(t + Duration::from_millis(100), t, MDS, &rtt(), false);
        }
        assert_eq!(cc.ca_acked, 6000);
        cc.on_packet_sent(ms(200), MDS);
        assert!(cc.on_packets_lost(ms(300), ms(200), MDS));
        assert_eq!((cc.cwnd(), cc.ca_acked), (12_000, 0));
        // A loss of a packet sent before the event starts none.
        cc.on_packet_sent(ms(250), MDS);
        assert!(!cc.on_packets_lost(ms(301), ms(250), MDS));
        assert!(cc.undo_congestion_event());
        assert_eq!(
            (cc.cwnd(), cc.ssthresh(), cc.ca_acked),
            (24_000, 24_000, 6000)
        );
        assert_eq!(cc.state(), CcState::CongestionAvoidance);
        assert_eq!(cc.bytes_in_flight(), 0);
        assert!(!cc.undo_congestion_event());
    }

    #[test]
    fn ecn_ce_halves_like_a_loss_without_touching_flight() {
        let mut cc = NewReno::new(MDS);
        cc.on_packet_sent(ms(0), MDS);
        assert!(cc.on_ecn_ce(ms(10), ms(0)));
        assert_eq!(cc.cwnd(), 6000);
        assert_eq!(cc.bytes_in_flight(), MDS);
        assert!(!cc.on_ecn_ce(ms(11), ms(5)));
        assert_eq!(cc.cwnd(), 6000);
    }

    #[test]
    fn loss_halves_but_not_below_minimum() {
        let mut cc = NewReno::new(MDS);
        cc.on_packet_sent(ms(0), MDS);
        cc.on_packets_lost(ms(10), ms(0), MDS);
        assert_eq!(cc.cwnd(), 6000);
        cc.on_packet_sent(ms(20), MDS);
        cc.on_packets_lost(ms(30), ms(20), MDS);
        assert_eq!(cc.cwnd(), 3000);
        cc.on_packet_sent(ms(40), MDS);
        cc.on_packets_lost(ms(50), ms(40), MDS);
        assert_eq!(cc.cwnd(), 2400); // 1500 floored at 2 * MDS
    }
}
