//! The interface the transport drives ([`CongestionControl`]), the states
//! it reports ([`CcState`]) and the RFC 9002 window bounds every algorithm
//! keeps.

use crate::{quic::rtt::RttEstimator, time::Time};

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
    /// The peer reported more ECN-CE marks (RFC 9002 Appendix B.7); the
    /// largest packet the ACK newly acknowledged was sent at
    /// `largest_acked_sent_time`. Starts a congestion event unless that
    /// packet was sent before the current recovery period began; removes
    /// nothing from flight and keeps no undo state of its own (a CE mark
    /// is never spurious). Returns true if a congestion event started.
    fn on_ecn_ce(&mut self, now: Time, largest_acked_sent_time: Time) -> bool;
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
}
