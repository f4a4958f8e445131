//! The sender's side of ACK_FREQUENCY (draft-ietf-quic-ack-frequency) as
//! neqo 0.30 runs it between two neqo endpoints (`ackrate.rs`, `path.rs`):
//! the data sender asks its peer for one ACK per
//! `cwnd · 10 / (MTU · ratio)` ack-eliciting packets (2..=256) and at most
//! `RTT · 10 / ratio` of delay (between the peer's `min_ack_delay` and
//! 50 ms). neqo's bench uses ratio 200: one ACK per cwnd/20 of data, or
//! after RTT/20.
//!
//! What matters is *when* the request changes: neqo computes it when the
//! handshake ends (from the initial window: 2 packets) and again only when
//! a congestion event reduces the window, never while the window grows.
//! Until the first loss or CE mark a receiver therefore acknowledges every
//! second packet, which is what runs a receive-mostly neqo endpoint's
//! pacer into debt in slow start (0.30.1 charges ACK-only packets to it);
//! after it, one ACK per cwnd/20 leaves little debt.
//!
//! At most one request is in flight: a new one waits until the previous
//! one is acknowledged, and a lost one is sent again if the wanted rate
//! still differs from the acknowledged one.

use std::time::Duration;

use super::frame::Frame;

/// What a sender asks its peer for: an ACK every `packet_tolerance`
/// ack-eliciting packets, at the latest `max_ack_delay` after the first.
///
/// Invariant: `packet_tolerance` in `MIN_TOLERANCE..=MAX_TOLERANCE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckRate {
    /// Ack-eliciting packets per ACK.
    pub packet_tolerance: u32,
    /// Longest delay of an ACK.
    pub max_ack_delay: Duration,
}

/// neqo's bounds on the packets per ACK.
const MIN_TOLERANCE: u64 = 2;
const MAX_TOLERANCE: u64 = 256;
/// neqo's longest requested delay.
const MAX_DELAY: Duration = Duration::from_millis(50);
/// neqo's `ConnectionParameters::ACK_RATIO_SCALE`.
const RATIO_SCALE: u64 = 10;

impl AckRate {
    /// neqo's `AckRate::new`: for congestion window `cwnd`, datagram size
    /// `mtu`, smoothed RTT `rtt` and ratio `ratio` (in tenths; at least
    /// 10), with the peer's `min_ack_delay`.
    #[must_use]
    pub fn for_window(
        cwnd: u64,
        mtu: u32,
        rtt: Duration,
        ratio: u8,
        min_ack_delay: Duration,
    ) -> Self {
        let ratio = u64::from(ratio).max(RATIO_SCALE);
        let packets = cwnd.saturating_mul(RATIO_SCALE) / u64::from(mtu.max(1)) / ratio;
        let packet_tolerance = packets.clamp(MIN_TOLERANCE, MAX_TOLERANCE) as u32;
        let delay = rtt.saturating_mul(RATIO_SCALE as u32)
            / u32::from(u8::try_from(ratio).unwrap_or(u8::MAX));
        Self {
            packet_tolerance,
            max_ack_delay: delay.clamp(min_ack_delay, MAX_DELAY.max(min_ack_delay)),
        }
    }

    /// neqo's `needs_update`: the tolerance differs, or the delay by more
    /// than a quarter of `target`'s.
    #[must_use]
    pub fn differs_from(&self, target: &Self) -> bool {
        if self.packet_tolerance != target.packet_tolerance {
            return true;
        }
        let slack = target.max_ack_delay / 4;
        target.max_ack_delay + slack < self.max_ack_delay
            || target.max_ack_delay > self.max_ack_delay + slack
    }
}

/// A sender's ACK_FREQUENCY state.
///
/// Invariants: `next_sequence` counts the frames written; at most one is
/// outstanding; `current` is the rate of the latest acknowledged frame (or
/// the peer's default before any).
#[derive(Clone, Debug)]
pub struct AckFrequencySender {
    ratio: u8,
    min_ack_delay: Duration,
    /// The rate the peer is known to apply.
    current: AckRate,
    /// The rate this sender wants.
    target: AckRate,
    next_sequence: u64,
    /// The request in flight, if any.
    outstanding: Option<(u64, AckRate)>,
}

impl AckFrequencySender {
    /// A sender whose peer starts at `peer_default` (ACK every 2nd packet
    /// within its `max_ack_delay`), aiming at the rate for `cwnd` and `rtt`.
    #[must_use]
    pub fn new(
        ratio: u8,
        min_ack_delay: Duration,
        peer_default: AckRate,
        cwnd: u64,
        mtu: u32,
        rtt: Duration,
    ) -> Self {
        Self {
            ratio,
            min_ack_delay,
            current: peer_default,
            target: AckRate::for_window(cwnd, mtu, rtt, ratio, min_ack_delay),
            next_sequence: 0,
            outstanding: None,
        }
    }

    /// A congestion event reduced the window to `cwnd`: aim at its rate.
    pub fn on_window_reduced(&mut self, cwnd: u64, mtu: u32, rtt: Duration) {
        self.target = AckRate::for_window(cwnd, mtu, rtt, self.ratio, self.min_ack_delay);
    }

    /// The frame to send now, if the peer's rate should change and no
    /// request is in flight; it is then in flight as `sequence`.
    pub fn frame_to_send(&mut self) -> Option<Frame> {
        if self.outstanding.is_some() || !self.current.differs_from(&self.target) {
            return None;
        }
        let sequence = self.next_sequence;
        self.next_sequence += 1;
        self.outstanding = Some((sequence, self.target));
        Some(Frame::AckFrequency {
            sequence,
            packet_tolerance: u64::from(self.target.packet_tolerance),
            max_ack_delay_us: u64::try_from(self.target.max_ack_delay.as_micros())
                .unwrap_or(u64::MAX),
            reordering_threshold: 0,
        })
    }

    /// The packet carrying request `sequence` was acknowledged.
    pub fn on_acked(&mut self, sequence: u64) {
        if let Some((seq, rate)) = self.outstanding
            && seq == sequence
        {
            self.current = rate;
            self.outstanding = None;
        }
    }

    /// The packet carrying request `sequence` was lost.
    pub fn on_lost(&mut self, sequence: u64) {
        if self.outstanding.is_some_and(|(seq, _)| seq == sequence) {
            self.outstanding = None;
        }
    }

    /// True when [`AckFrequencySender::frame_to_send`] has a frame.
    #[must_use]
    pub fn wants_to_send(&self) -> bool {
        self.outstanding.is_none() && self.current.differs_from(&self.target)
    }

    /// The rate the peer is known to apply.
    #[must_use]
    pub const fn current(&self) -> AckRate {
        self.current
    }

    /// The rate this sender wants.
    #[must_use]
    pub const fn target(&self) -> AckRate {
        self.target
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn rate_follows_neqo_ackrate() {
        // Initial window (10 × 1,232) on a 100 ms path: 2 packets, 5 ms.
        let r = AckRate::for_window(12_320, 1252, 100 * MS, 200, MS);
        assert_eq!(
            r,
            AckRate {
                packet_tolerance: 2,
                max_ack_delay: 5 * MS
            }
        );
        // 6 MB window: 6e6 · 10 / 1252 / 200 = 239 packets.
        let r = AckRate::for_window(6_000_000, 1252, 40 * MS, 200, MS);
        assert_eq!(
            r,
            AckRate {
                packet_tolerance: 239,
                max_ack_delay: 2 * MS
            }
        );
        // Capped: 256 packets, 50 ms; floored at min_ack_delay.
        let r = AckRate::for_window(1 << 30, 1252, 2000 * MS, 200, MS);
        assert_eq!(
            r,
            AckRate {
                packet_tolerance: 256,
                max_ack_delay: 50 * MS
            }
        );
        let r = AckRate::for_window(1 << 30, 1252, 5 * MS, 200, MS);
        assert_eq!(r.max_ack_delay, MS);
        // A ratio below 10 counts as 10.
        assert_eq!(
            AckRate::for_window(125_200, 1252, 10 * MS, 1, MS).packet_tolerance,
            100
        );
    }

    #[test]
    fn one_request_at_a_time_and_only_on_change() {
        let default = AckRate {
            packet_tolerance: 2,
            max_ack_delay: 20 * MS,
        };
        let mut s = AckFrequencySender::new(200, MS, default, 12_320, 1252, 100 * MS);
        // The delay differs (5 ms vs 20 ms): one request.
        let Some(Frame::AckFrequency {
            sequence: 0,
            packet_tolerance: 2,
            max_ack_delay_us: 5000,
            ..
        }) = s.frame_to_send()
        else {
            panic!("expected the first request");
        };
        assert_eq!(s.frame_to_send(), None, "one in flight at a time");
        // A reduction while it is in flight waits for it.
        s.on_window_reduced(6_000_000, 1252, 100 * MS);
        assert_eq!(s.frame_to_send(), None);
        s.on_acked(0);
        assert_eq!(s.current().max_ack_delay, 5 * MS);
        let Some(Frame::AckFrequency {
            sequence: 1,
            packet_tolerance: 239,
            ..
        }) = s.frame_to_send()
        else {
            panic!("expected the second request");
        };
        // Lost: sent again under a new sequence number.
        s.on_lost(1);
        let Some(Frame::AckFrequency {
            sequence: 2,
            packet_tolerance: 239,
            ..
        }) = s.frame_to_send()
        else {
            panic!("expected a repeat");
        };
        s.on_acked(1); // stale: ignored
        assert_eq!(s.current().packet_tolerance, 2);
        s.on_acked(2);
        assert_eq!(s.current(), s.target());
        assert_eq!(s.frame_to_send(), None, "nothing left to ask");
        // A delay within a quarter of the target's is not worth a frame.
        s.on_window_reduced(6_000_000, 1252, 110 * MS);
        assert_eq!(s.frame_to_send(), None);
    }
}
