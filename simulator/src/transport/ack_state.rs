//! Receive-side packet-number tracking and the ACK policy (RFC 9000
//! §13.2): acknowledge every `ack_ratio`-th ack-eliciting packet, at the
//! latest `max_ack_delay` after the first unacknowledged one, and at once
//! when a packet arrives out of order. ACKs carry ECN counts (§13.4.1)
//! once a packet with an ECN codepoint has arrived.

use std::time::Duration;

use crate::{
    net::Ecn,
    quic::{ack::AckRanges, ecn_counts::EcnCounts, frame::Frame, ranges::RangeSet},
    time::Time,
};

use super::{ACK_DELAY_EXPONENT, MAX_ACK_RANGES};

/// How far below the largest received packet number we keep history.
const HISTORY: u64 = 4096;

/// Invariant: `received` holds every packet number seen within `HISTORY`
/// of the largest; `unacked_eliciting > 0` iff an ack-eliciting packet
/// arrived since the last ACK was sent.
#[derive(Debug)]
pub struct AckState {
    received: RangeSet,
    largest: Option<u64>,
    largest_time: Time,
    unacked_eliciting: u32,
    first_unacked_time: Option<Time>,
    immediate: bool,
    /// Anything received since the last ACK (ack-eliciting or not).
    new_since_ack: bool,
    ack_ratio: u32,
    max_ack_delay: Duration,
    /// The latest ACK_FREQUENCY sequence number applied.
    frequency_sequence: Option<u64>,
    /// ECN counts of the packets processed; `None` until one arrives with
    /// ECT or CE (ACKs then switch to type 0x03 for good).
    ecn: Option<EcnCounts>,
}

impl AckState {
    /// A fresh tracker.
    #[must_use]
    pub fn new(ack_ratio: u32, max_ack_delay: Duration) -> Self {
        Self {
            received: RangeSet::default(),
            largest: None,
            largest_time: Time::ZERO,
            unacked_eliciting: 0,
            first_unacked_time: None,
            immediate: false,
            new_since_ack: false,
            ack_ratio: ack_ratio.max(1),
            max_ack_delay,
            frequency_sequence: None,
            ecn: None,
        }
    }

    /// Records packet `pn`, which arrived with ECN codepoint `ecn`.
    /// Returns false for a duplicate (already seen), whose frames must be
    /// ignored and which is not counted.
    pub fn on_packet(&mut self, now: Time, pn: u64, ack_eliciting: bool, ecn: Ecn) -> bool {
        if self.received.contains(pn)
            || self.largest.is_some_and(|l| pn.saturating_add(HISTORY) < l)
        {
            return false;
        }
        match ecn {
            Ecn::NotEct => {}
            Ecn::Ect0 => self.ecn.get_or_insert_default().ect0 += 1,
            Ecn::Ect1 => self.ecn.get_or_insert_default().ect1 += 1,
            Ecn::Ce => self.ecn.get_or_insert_default().ce += 1,
        }
        let in_order = match self.largest {
            None => pn == 0,
            Some(l) => pn == l + 1,
        };
        self.received.insert(pn, pn + 1);
        if self.largest.is_none_or(|l| pn > l) {
            self.largest = Some(pn);
            self.largest_time = now;
            // Trim old history now and then (not per packet: re-keying the
            // first range costs an allocation).
            if pn > HISTORY && pn.is_multiple_of(1024) {
                self.received.remove_below(pn - HISTORY);
            }
        }
        self.new_since_ack = true;
        if ack_eliciting {
            self.unacked_eliciting += 1;
            self.first_unacked_time.get_or_insert(now);
            if !in_order || self.unacked_eliciting >= self.ack_ratio {
                self.immediate = true;
            }
        }
        true
    }

    /// Applies the peer's ACK_FREQUENCY request `sequence`: an ACK every
    /// `packet_tolerance` ack-eliciting packets (at least 1), at the latest
    /// `max_ack_delay` after the first. A request older than one applied
    /// is ignored.
    pub fn on_ack_frequency(
        &mut self,
        sequence: u64,
        packet_tolerance: u32,
        max_ack_delay: Duration,
    ) {
        if self.frequency_sequence.is_some_and(|s| sequence < s) {
            return;
        }
        self.frequency_sequence = Some(sequence);
        self.ack_ratio = packet_tolerance.max(1);
        self.max_ack_delay = max_ack_delay;
    }

    /// True when an ACK must go out now.
    #[must_use]
    pub fn ack_now(&self, now: Time) -> bool {
        self.immediate || self.deadline().is_some_and(|d| d <= now)
    }

    /// When the delayed ACK is due.
    #[must_use]
    pub fn deadline(&self) -> Option<Time> {
        self.first_unacked_time.map(|t| t + self.max_ack_delay)
    }

    /// True when an ACK frame would tell the peer something new.
    #[must_use]
    pub fn has_new(&self) -> bool {
        self.new_since_ack
    }

    /// The ACK frame to send now (and marks everything acknowledged).
    pub fn make_ack(&mut self, now: Time) -> Option<Frame> {
        let largest = self.largest?;
        let ranges = AckRanges::from_range_set_capped(&self.received, MAX_ACK_RANGES)?;
        let delay_us = u64::try_from((now - self.largest_time).as_micros()).unwrap_or(u64::MAX);
        self.unacked_eliciting = 0;
        self.first_unacked_time = None;
        self.immediate = false;
        self.new_since_ack = false;
        Some(Frame::Ack {
            largest,
            ack_delay: delay_us >> ACK_DELAY_EXPONENT,
            ranges,
            ecn: self.ecn,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(f: &Frame) -> Option<EcnCounts> {
        match f {
            Frame::Ack { ecn, .. } => *ecn,
            _ => None,
        }
    }

    #[test]
    fn acks_carry_ecn_counts_once_an_ecn_packet_arrived() {
        let mut a = AckState::new(2, Duration::from_millis(25));
        assert!(a.on_packet(Time::ZERO, 0, true, Ecn::NotEct));
        let ack = a.make_ack(Time::ZERO).unwrap();
        assert_eq!(counts(&ack), None, "type 0x02 until ECN is seen");
        assert!(a.on_packet(Time::ZERO, 1, true, Ecn::Ect0));
        assert!(a.on_packet(Time::ZERO, 2, true, Ecn::Ce));
        assert!(a.on_packet(Time::ZERO, 3, true, Ecn::NotEct));
        // A duplicate is not counted again (RFC 9000 §13.4.1).
        assert!(!a.on_packet(Time::ZERO, 2, true, Ecn::Ce));
        let ack = a.make_ack(Time::ZERO).unwrap();
        assert_eq!(
            counts(&ack),
            Some(EcnCounts {
                ect0: 1,
                ect1: 0,
                ce: 1
            })
        );
        // Counts are cumulative and stay on every later ACK.
        assert!(a.on_packet(Time::ZERO, 4, true, Ecn::NotEct));
        let ack = a.make_ack(Time::ZERO).unwrap();
        assert_eq!(counts(&ack).map(|c| c.ce), Some(1));
    }
}
