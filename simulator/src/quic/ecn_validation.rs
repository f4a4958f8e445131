//! ECN validation (RFC 9000 §13.4.2): whether the path and the peer carry
//! the ECN marks this endpoint sends, judged from the counts in the peer's
//! ACK frames.
//!
//! The sender marks its packets ECT(0) while validation has not failed.
//! On every ACK that advances the largest acknowledged packet (older ACKs
//! may carry older counts, §13.4.2.1) it checks that
//! - the ACK carries ECN counts if it newly acknowledges a marked packet
//!   (a path that clears the field, or a peer that ignores it, sends none);
//! - no count went down;
//! - ECT(1), never sent, was not reported (a middlebox rewrote the field);
//! - the ECT(0) and CE counts grew by at least the number of marked
//!   packets newly acknowledged (fewer: marks were lost on the way);
//! - they do not exceed the marked packets ever sent (a peer inventing
//!   counts).
//!
//! The first ACK that passes makes ECN *capable*; the first that fails
//! makes it *failed* for good: the sender stops marking and ignores the
//! counts, so loss is its only congestion signal again (§13.4.2.2). A
//! rise in CE counts only once they are validated. neqo does the same
//! checks (`neqo-transport/src/ecn.rs`); it also stops marking after ten
//! unacknowledged test packets, which is not modelled here: this sender
//! marks every packet until validation fails.

use std::fmt;

use crate::quic::EcnCounts;

/// Why validation failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EcnFailure {
    /// An ACK newly acknowledged a marked packet and carried no counts.
    NoCounts,
    /// A count went down.
    CountsDecreased,
    /// ECT(1) was reported; this sender never sends it.
    Ect1Reported,
    /// ECT(0) + CE grew by less than the marked packets newly
    /// acknowledged.
    MarksLost,
    /// ECT(0) + CE passed the marked packets ever sent.
    MoreThanSent,
}

/// Where validation stands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EcnState {
    /// ECN not in use: nothing is marked, counts are ignored.
    #[default]
    Off,
    /// Marking; no ACK has validated the counts yet.
    Testing,
    /// An ACK validated the counts; still checked on every ACK.
    Capable,
    /// Validation failed: nothing is marked any more, counts are ignored.
    Failed(EcnFailure),
}

impl fmt::Display for EcnState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Off => "off",
            Self::Testing => "testing",
            Self::Capable => "capable",
            Self::Failed(EcnFailure::NoCounts) => "failed: no ECN counts",
            Self::Failed(EcnFailure::CountsDecreased) => "failed: counts decreased",
            Self::Failed(EcnFailure::Ect1Reported) => "failed: ECT(1) reported",
            Self::Failed(EcnFailure::MarksLost) => "failed: marks lost",
            Self::Failed(EcnFailure::MoreThanSent) => "failed: more marks than sent",
        })
    }
}

/// The validation state machine of one sender.
///
/// Invariants: `last` only grows, and only from ACKs that passed; once
/// `Failed` or `Off`, the state never changes.
#[derive(Clone, Debug)]
pub struct EcnValidator {
    state: EcnState,
    /// Counts of the last ACK that passed.
    last: EcnCounts,
    /// ECT(0)-marked packets sent so far.
    marked_sent: u64,
}

impl EcnValidator {
    /// Testing when `enabled`, else off for good.
    #[must_use]
    pub fn new(enabled: bool) -> Self {
        Self {
            state: if enabled {
                EcnState::Testing
            } else {
                EcnState::Off
            },
            last: EcnCounts::default(),
            marked_sent: 0,
        }
    }

    /// Where validation stands.
    #[must_use]
    pub fn state(&self) -> EcnState {
        self.state
    }

    /// Whether the next packet is marked ECT(0).
    #[must_use]
    pub fn marking(&self) -> bool {
        matches!(self.state, EcnState::Testing | EcnState::Capable)
    }

    /// A packet marked ECT(0) was sent.
    pub fn on_marked_sent(&mut self) {
        self.marked_sent += 1;
    }

    /// An ACK that advances the largest acknowledged packet, newly
    /// acknowledging `newly_marked` packets sent ECT(0), with the counts
    /// it carried. Returns the validated CE count when it rose (the caller
    /// starts a congestion event), `None` otherwise.
    pub fn on_ack(&mut self, newly_marked: u64, counts: Option<EcnCounts>) -> Option<u64> {
        if !self.marking() {
            return None;
        }
        let verdict = match counts {
            None if newly_marked > 0 => Err(EcnFailure::NoCounts),
            None => return None,
            Some(c) => self.check(newly_marked, c),
        };
        match verdict {
            Err(why) => {
                self.state = EcnState::Failed(why);
                None
            }
            Ok(c) => {
                if newly_marked > 0 {
                    self.state = EcnState::Capable;
                }
                let rose = c.ce > self.last.ce;
                self.last = c;
                rose.then_some(c.ce)
            }
        }
    }

    fn check(&self, newly_marked: u64, c: EcnCounts) -> Result<EcnCounts, EcnFailure> {
        let last = self.last;
        if c.ect0 < last.ect0 || c.ect1 < last.ect1 || c.ce < last.ce {
            return Err(EcnFailure::CountsDecreased);
        }
        if c.ect1 > 0 {
            return Err(EcnFailure::Ect1Reported);
        }
        let grew = (c.ect0 - last.ect0).saturating_add(c.ce - last.ce);
        if grew < newly_marked {
            return Err(EcnFailure::MarksLost);
        }
        if c.ect0.saturating_add(c.ce) > self.marked_sent {
            return Err(EcnFailure::MoreThanSent);
        }
        Ok(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(ect0: u64, ect1: u64, ce: u64) -> Option<EcnCounts> {
        Some(EcnCounts { ect0, ect1, ce })
    }

    fn sent(n: u64) -> EcnValidator {
        let mut v = EcnValidator::new(true);
        for _ in 0..n {
            v.on_marked_sent();
        }
        v
    }

    #[test]
    fn honest_counts_validate_and_ce_rises_are_reported() {
        let mut v = sent(20);
        assert_eq!(v.state(), EcnState::Testing);
        assert!(v.marking());
        // No marked packet newly acknowledged, no counts: nothing learnt.
        assert_eq!(v.on_ack(0, None), None);
        assert_eq!(v.state(), EcnState::Testing);
        assert_eq!(v.on_ack(4, counts(4, 0, 0)), None);
        assert_eq!(v.state(), EcnState::Capable);
        assert_eq!(v.on_ack(3, counts(6, 0, 1)), Some(1));
        // Counts may grow by more than acknowledged (packets acknowledged
        // earlier as lost, duplicates of no consequence).
        assert_eq!(v.on_ack(1, counts(8, 0, 1)), None);
        assert_eq!(v.on_ack(2, counts(9, 0, 2)), Some(2));
        assert_eq!(v.state(), EcnState::Capable);
    }

    #[test]
    fn every_fault_fails_for_good() {
        let cases = [
            (4, None, EcnFailure::NoCounts),
            (4, counts(3, 0, 0), EcnFailure::MarksLost),
            (4, counts(0, 4, 0), EcnFailure::Ect1Reported),
            (4, counts(11, 0, 0), EcnFailure::MoreThanSent),
        ];
        for (newly, c, why) in cases {
            let mut v = sent(10);
            assert_eq!(v.on_ack(newly, c), None, "{why:?}");
            assert_eq!(v.state(), EcnState::Failed(why));
            assert!(!v.marking());
            // Nothing more is learnt, honest counts included.
            assert_eq!(v.on_ack(1, counts(9, 0, 5)), None);
            assert_eq!(v.state(), EcnState::Failed(why));
        }
        let mut v = sent(10);
        assert_eq!(v.on_ack(2, counts(2, 0, 1)), Some(1));
        assert_eq!(v.on_ack(1, counts(3, 0, 0)), None);
        assert_eq!(v.state(), EcnState::Failed(EcnFailure::CountsDecreased));
    }

    #[test]
    fn off_never_marks_nor_learns() {
        let mut v = EcnValidator::new(false);
        assert!(!v.marking());
        assert_eq!(v.on_ack(0, counts(5, 0, 5)), None);
        assert_eq!(v.state(), EcnState::Off);
        assert_eq!(v.state().to_string(), "off");
    }
}
