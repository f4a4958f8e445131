//! When the packets that carry no ack-eliciting frame were sent.
//!
//! RFC 9002 §5.1 takes an RTT sample from an ACK frame whose largest
//! acknowledged packet is newly acknowledged, if any packet it newly
//! acknowledges is ack-eliciting; the sample runs from when that *largest*
//! packet was sent, whatever it carried. Appendix A keeps every sent
//! packet for this, and neqo's `SentPackets` does too. A receive-mostly
//! endpoint sends mostly ACK-only packets, so the ACK of one of its rare
//! ack-eliciting packets (a MAX_STREAM_DATA) usually names a later
//! ACK-only packet as its largest. Without these times such an endpoint
//! samples only the ACKs sent the moment its ack-eliciting packet arrived,
//! which on a data path whose sender had been waiting for that very
//! update ride an emptied queue: in neqo's test fixture at 20 ms and
//! 1 Gbit/s the receiver's smoothed RTT stayed at 21.7 ms where real
//! neqo's climbed past 30 ms with the queue.
//!
//! ACK-only packets are not in flight and never declared lost, so they
//! stay out of the sent-packet table that loss detection walks.

use std::collections::VecDeque;

use crate::time::Time;

/// How many ACK-only packets are remembered: the newest ones. A peer
/// acknowledges them only alongside something ack-eliciting, and the
/// largest a future ACK names is one of the newest.
const REMEMBERED: usize = 4096;

/// Send times of ACK-only packets, oldest first.
///
/// Invariant: packet numbers strictly increase from front to back, and at
/// most `REMEMBERED` are held.
#[derive(Debug, Default)]
pub struct AckOnlySent {
    sent: VecDeque<(u64, Time)>,
}

impl AckOnlySent {
    /// Records ACK-only packet `pn`, sent at `time`; `pn` is larger than
    /// every packet number recorded before.
    pub fn on_sent(&mut self, pn: u64, time: Time) {
        debug_assert!(self.sent.back().is_none_or(|&(p, _)| p < pn));
        if self.sent.len() == REMEMBERED {
            self.sent.pop_front();
        }
        self.sent.push_back((pn, time));
    }

    /// An ACK frame named `largest` as its largest acknowledged: when
    /// `largest` was sent, if it is an ACK-only packet not acknowledged
    /// before. Forgets it and every older one, which no later ACK can name
    /// as newly acknowledged largest without reordering ACKs.
    pub fn on_ack(&mut self, largest: u64) -> Option<Time> {
        while self.sent.front().is_some_and(|&(p, _)| p < largest) {
            self.sent.pop_front();
        }
        match self.sent.front() {
            Some(&(p, time)) if p == largest => {
                self.sent.pop_front();
                Some(time)
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn at(ms: u64) -> Time {
        Time::ZERO + Duration::from_millis(ms)
    }

    #[test]
    fn an_acked_ack_only_packet_gives_its_send_time_once() {
        let mut a = AckOnlySent::default();
        a.on_sent(3, at(1));
        a.on_sent(5, at(2));
        a.on_sent(8, at(3));
        assert_eq!(a.on_ack(4), None, "4 was not an ACK-only packet");
        assert_eq!(a.on_ack(5), Some(at(2)));
        assert_eq!(a.on_ack(5), None, "not newly acknowledged");
        assert_eq!(a.on_ack(3), None, "older ones are forgotten");
        assert_eq!(a.on_ack(8), Some(at(3)));
        assert_eq!(a.on_ack(9), None);
    }

    #[test]
    fn only_the_newest_are_remembered() {
        let mut a = AckOnlySent::default();
        for pn in 0..(REMEMBERED as u64 + 10) {
            a.on_sent(pn, at(pn));
        }
        assert_eq!(a.sent.len(), REMEMBERED);
        assert_eq!(a.on_ack(5), None, "dropped");
        let newest = REMEMBERED as u64 + 9;
        assert_eq!(a.on_ack(newest), Some(at(newest)));
    }
}
