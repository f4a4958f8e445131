//! Receive-side packet-number tracking and the ACK policy (RFC 9000
//! §13.2): acknowledge every `ack_ratio`-th ack-eliciting packet, at the
//! latest `max_ack_delay` after the first unacknowledged one, and at once
//! when a packet arrives out of order.

use std::time::Duration;

use crate::{
    quic::{ack::AckRanges, frame::Frame, ranges::RangeSet},
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
        }
    }

    /// Records packet `pn`. Returns false for a duplicate (already seen),
    /// whose frames must be ignored.
    pub fn on_packet(&mut self, now: Time, pn: u64, ack_eliciting: bool) -> bool {
        if self.received.contains(pn)
            || self.largest.is_some_and(|l| pn.saturating_add(HISTORY) < l)
        {
            return false;
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
        })
    }
}
