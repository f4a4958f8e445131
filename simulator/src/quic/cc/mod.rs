//! Congestion control: the interface the transport drives, and the two
//! algorithms behind it, NewReno (RFC 9002 §7, Appendix B) and CUBIC
//! (RFC 9438).
//!
//! Both share slow start, the recovery period and bytes-in-flight
//! accounting (`base.rs`); they differ in congestion avoidance and in how
//! much a congestion event reduces the window.

mod base;
mod cubic;
mod newreno;

pub use cubic::Cubic;
pub use newreno::NewReno;

use super::rtt::RttEstimator;
use crate::time::Time;

/// The initial congestion window (RFC 9002 §7.2):
/// min(10 · max_datagram_size, max(14720, 2 · max_datagram_size)).
#[must_use]
pub const fn initial_window(max_datagram_size: u64) -> u64 {
    let floor = if 14_720 > 2 * max_datagram_size {
        14_720
    } else {
        2 * max_datagram_size
    };
    if 10 * max_datagram_size < floor {
        10 * max_datagram_size
    } else {
        floor
    }
}

/// The minimum congestion window, kMinimumWindow (RFC 9002 §7.2):
/// 2 · max_datagram_size.
#[must_use]
pub const fn minimum_window(max_datagram_size: u64) -> u64 {
    2 * max_datagram_size
}

/// What a congestion controller is doing, as reported to qlog
/// (`recovery:congestion_state_updated`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CcState {
    /// cwnd < ssthresh: the window grows by the bytes acknowledged.
    SlowStart,
    /// cwnd >= ssthresh: the algorithm's avoidance rule applies.
    CongestionAvoidance,
    /// Between a congestion event and the first acknowledgement of a packet
    /// sent after it; the window does not grow (RFC 9002 §7.3.2).
    Recovery,
    /// The latest acknowledgement arrived while the sender was not using
    /// its window; growth is paused (RFC 9002 §7.8).
    ApplicationLimited,
}

impl CcState {
    /// The qlog name of the state.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::SlowStart => "slow_start",
            Self::CongestionAvoidance => "congestion_avoidance",
            Self::Recovery => "recovery",
            Self::ApplicationLimited => "application_limited",
        }
    }
}

/// A congestion controller, driven by the transport's loss recovery.
///
/// Invariants every implementation keeps: `cwnd() >= minimum_window(mds)`
/// and `bytes_in_flight()` equals bytes sent minus bytes acknowledged,
/// declared lost or discarded (never below zero).
pub trait CongestionControl: std::fmt::Debug {
    /// Congestion window in bytes.
    fn cwnd(&self) -> u64;
    /// Slow-start threshold in bytes (`u64::MAX` until the first event).
    fn ssthresh(&self) -> u64;
    /// Bytes of ack-eliciting or padded packets sent and not yet
    /// acknowledged, lost or discarded.
    fn bytes_in_flight(&self) -> u64;
    /// A packet counted in flight was sent.
    fn on_packet_sent(&mut self, now: Time, bytes: u64);
    /// A packet sent at `sent_time` was acknowledged. Removes it from
    /// flight; grows the window unless `app_limited` (RFC 9002 §7.8) or the
    /// packet was sent before the current recovery period (§7.3.2).
    fn on_packet_acked(
        &mut self,
        now: Time,
        sent_time: Time,
        bytes: u64,
        rtt: &RttEstimator,
        app_limited: bool,
    );
    /// Packets totalling `lost_bytes` were declared lost, the newest sent at
    /// `largest_lost_sent_time`. Removes them from flight and starts a
    /// congestion event unless that packet was sent before the current
    /// recovery period began (one reduction per period). Returns true if a
    /// congestion event started; the state from just before it is kept for
    /// [`CongestionControl::undo_congestion_event`].
    fn on_packets_lost(&mut self, now: Time, largest_lost_sent_time: Time, lost_bytes: u64)
    -> bool;
    /// The latest congestion event proved spurious (every packet it was
    /// blamed on was acknowledged after all): restore the window and the
    /// algorithm's state from just before it, never shrinking cwnd or
    /// ssthresh, and end its recovery period. Bytes in flight are not
    /// touched. Returns false and changes nothing if no event is on record
    /// (none yet, already undone, or persistent congestion since).
    fn undo_congestion_event(&mut self) -> bool;
    /// Persistent congestion (RFC 9002 §7.6): the window collapses to the
    /// minimum window and the recovery period ends.
    fn on_persistent_congestion(&mut self);
    /// A packet in flight was discarded without a congestion signal.
    fn on_packet_discarded(&mut self, bytes: u64);
    /// Current state, for qlog.
    fn state(&self) -> CcState;
    /// Algorithm name for logs ("newreno", "cubic").
    fn name(&self) -> &'static str;
}

/// Which congestion controller to build.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CcAlgorithm {
    /// CUBIC, RFC 9438.
    #[default]
    Cubic,
    /// NewReno, RFC 9002 §7.
    NewReno,
}

impl CcAlgorithm {
    /// A fresh controller for datagrams of at most `max_datagram_size`
    /// bytes.
    #[must_use]
    pub fn build(self, max_datagram_size: u64) -> Box<dyn CongestionControl> {
        match self {
            Self::Cubic => Box::new(Cubic::new(max_datagram_size)),
            Self::NewReno => Box::new(NewReno::new(max_datagram_size)),
        }
    }

    /// The algorithm's name ("cubic", "newreno").
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Cubic => "cubic",
            Self::NewReno => "newreno",
        }
    }
}

/// Shared test drivers for the algorithms.
#[cfg(test)]
mod test_util {
    use super::*;
    use std::time::Duration;

    pub const MDS: u64 = 1200;

    pub fn rtt() -> RttEstimator {
        let mut r = RttEstimator::new(Duration::from_millis(100));
        r.update(Duration::from_millis(100), Duration::ZERO, Duration::ZERO);
        r
    }

    pub fn ms(n: u64) -> Time {
        Time::from_millis(n)
    }

    /// Sends a full window at `now` in MDS packets and acks all of it one
    /// RTT later; returns the ack time.
    pub fn round(cc: &mut dyn CongestionControl, now: Time, app_limited: bool) -> Time {
        let n = cc.cwnd() / MDS;
        for _ in 0..n {
            cc.on_packet_sent(now, MDS);
        }
        let ack = now + Duration::from_millis(100);
        for _ in 0..n {
            cc.on_packet_acked(ack, now, MDS, &rtt(), app_limited);
        }
        ack
    }

    /// Checks what both algorithms share: slow start, in-flight accounting,
    /// one reduction per recovery period, app-limited, minimum window.
    pub fn shared_behaviour(alg: CcAlgorithm, reduced: fn(u64) -> u64) {
        let mut cc = alg.build(MDS);
        assert_eq!(cc.cwnd(), 12_000);
        assert_eq!(cc.ssthresh(), u64::MAX);
        assert_eq!(cc.state(), CcState::SlowStart);

        // Slow start doubles per round of acks.
        let mut now = ms(0);
        for expect in [24_000, 48_000, 96_000] {
            now = round(cc.as_mut(), now, false);
            assert_eq!(cc.cwnd(), expect);
            assert_eq!(cc.bytes_in_flight(), 0);
        }

        // App-limited acks do not grow the window.
        let t = round(cc.as_mut(), now, true);
        assert_eq!(cc.cwnd(), 96_000);
        assert_eq!(cc.state(), CcState::ApplicationLimited);
        now = round(cc.as_mut(), t, false);
        assert_eq!(cc.cwnd(), 192_000);

        // Loss: one reduction.
        for _ in 0..10 {
            cc.on_packet_sent(now, MDS);
        }
        let loss_at = now + Duration::from_millis(100);
        cc.on_packets_lost(loss_at, now, MDS);
        let w = reduced(192_000);
        assert_eq!(cc.cwnd(), w);
        assert_eq!(cc.ssthresh(), w);
        assert_eq!(cc.bytes_in_flight(), 9 * MDS);
        assert_eq!(cc.state(), CcState::Recovery);
        // A later loss of a packet sent before the recovery start does nothing.
        cc.on_packets_lost(loss_at + Duration::from_millis(1), now, MDS);
        cc.on_packets_lost(loss_at + Duration::from_millis(1), loss_at, MDS);
        assert_eq!(cc.cwnd(), w);
        assert_eq!(cc.bytes_in_flight(), 7 * MDS);
        // Acks of packets sent before recovery start: no growth, still recovery.
        for _ in 0..7 {
            cc.on_packet_acked(loss_at, now, MDS, &rtt(), false);
        }
        assert_eq!(cc.cwnd(), w);
        assert_eq!(cc.state(), CcState::Recovery);
        assert_eq!(cc.bytes_in_flight(), 0);

        // A packet sent after recovery start ends recovery.
        let sent = loss_at + Duration::from_millis(1);
        cc.on_packet_sent(sent, MDS);
        cc.on_packet_acked(sent + Duration::from_millis(100), sent, MDS, &rtt(), false);
        assert_eq!(cc.state(), CcState::CongestionAvoidance);
        // A loss of a packet sent after the recovery start is a new event.
        let before = cc.cwnd();
        cc.on_packet_sent(sent, MDS);
        cc.on_packets_lost(sent + Duration::from_millis(200), sent, MDS);
        assert_eq!(cc.cwnd(), reduced(before));

        // Discard: out of flight, no signal.
        cc.on_packet_sent(sent, 500);
        cc.on_packet_discarded(500);
        assert_eq!(cc.bytes_in_flight(), 0);
        assert_eq!(cc.cwnd(), reduced(before));

        // Persistent congestion: minimum window, then slow start again.
        cc.on_persistent_congestion();
        assert_eq!(cc.cwnd(), 2 * MDS);
        assert_eq!(cc.state(), CcState::SlowStart);
        // Repeated losses never go below the minimum window.
        let mut t = sent + Duration::from_secs(1);
        for _ in 0..5 {
            cc.on_packet_sent(t, MDS);
            cc.on_packets_lost(t + Duration::from_millis(1), t, MDS);
            t += Duration::from_millis(10);
            assert_eq!(cc.cwnd(), 2 * MDS);
        }
        assert_eq!(cc.bytes_in_flight(), 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_rfc9002_7_2() {
        assert_eq!(initial_window(1200), 12_000);
        assert_eq!(initial_window(1472), 14_720);
        assert_eq!(initial_window(1500), 14_720);
        assert_eq!(initial_window(9000), 18_000);
        assert_eq!(minimum_window(1200), 2400);
    }

    #[test]
    fn build_names() {
        assert_eq!(CcAlgorithm::Cubic.build(1200).name(), "cubic");
        assert_eq!(CcAlgorithm::NewReno.build(1200).name(), "newreno");
        assert_eq!(CcAlgorithm::NewReno.name(), "newreno");
        assert_eq!(CcState::Recovery.as_str(), "recovery");
    }
}
