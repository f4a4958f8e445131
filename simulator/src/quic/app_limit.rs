//! Which packets count as using the congestion window, so that
//! acknowledging them grows it (RFC 9002 §7.8: "When bytes in flight is
//! smaller than the congestion window and sending is not pacing limited,
//! the congestion window is underutilized ... the congestion window
//! SHOULD NOT be increased").
//!
//! The RFC leaves the test to the implementation. Two are modelled: this
//! simulator's own, judged packet by packet, and neqo 0.30's
//! (`cc/classic_cc.rs`: `app_limited` and `first_app_limited`), which
//! judges a whole acknowledgement by a watermark.

/// How a sender decides that its congestion window was used.
///
/// Invariant: both rules count a packet sent with the window full (bytes
/// in flight ≥ cwnd) as using it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AppLimit {
    /// A packet uses the window if the bytes in flight, itself included,
    /// reach half of it; each acknowledged packet grows the window by its
    /// own size only if it did.
    #[default]
    PerPacket,
    /// neqo 0.30: a packet uses the window if the bytes in flight before
    /// it reach the window, or half of it in slow start, or come within
    /// two datagrams of it after slow start (`PACING_BURST_SIZE`); it then
    /// marks every packet sent up to it as having used the window (the
    /// `first_app_limited` watermark). An acknowledgement grows the window
    /// by everything it newly acknowledges if any of those packets lies
    /// below the watermark, and not at all otherwise. In a burst released
    /// by a flow-control update the last packets, sent with the window
    /// half full, so make the whole burst count.
    Neqo,
}

impl AppLimit {
    /// Whether a packet of `size` bytes sent with `in_flight` bytes
    /// already in flight uses a window of `cwnd` bytes; `slow_start` when
    /// cwnd is below ssthresh, `max_datagram` the datagram size.
    #[must_use]
    pub fn uses_window(
        self,
        in_flight: u64,
        size: u64,
        cwnd: u64,
        slow_start: bool,
        max_datagram: u64,
    ) -> bool {
        match self {
            Self::PerPacket => in_flight.saturating_add(size).saturating_mul(2) >= cwnd,
            Self::Neqo => {
                in_flight >= cwnd
                    || if slow_start {
                        in_flight >= cwnd / 2
                    } else {
                        in_flight.saturating_add(max_datagram.saturating_mul(2)) >= cwnd
                    }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_packet_counts_the_packet_itself_in_every_phase() {
        let r = AppLimit::PerPacket;
        assert!(r.uses_window(4_000, 1_000, 10_000, true, 1_000));
        assert!(!r.uses_window(3_999, 1_000, 10_000, true, 1_000));
        assert!(!r.uses_window(3_999, 1_000, 10_000, false, 1_000));
    }

    #[test]
    fn neqo_uses_half_the_window_in_slow_start_and_two_datagrams_after() {
        let r = AppLimit::Neqo;
        // Slow start: bytes in flight before the packet, against cwnd / 2.
        assert!(r.uses_window(5_000, 1_000, 10_000, true, 1_000));
        assert!(!r.uses_window(4_999, 1_000, 10_000, true, 1_000));
        // After it: within two datagrams of the window.
        assert!(r.uses_window(8_000, 1_000, 10_000, false, 1_000));
        assert!(!r.uses_window(7_999, 1_000, 10_000, false, 1_000));
        // A full window always counts.
        assert!(r.uses_window(10_000, 1_000, 10_000, false, 5_000));
        assert!(r.uses_window(u64::MAX, u64::MAX, u64::MAX, false, u64::MAX));
    }
}
