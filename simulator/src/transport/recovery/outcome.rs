//! What loss recovery reports to the connection: why a packet was
//! declared lost, what an ACK or a timer did, and the adaptive loss
//! detection's counters.

use super::SentPacket;

/// Why a packet was declared lost (qlog's trigger names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossTrigger {
    /// At least the packet threshold (3, raised after spurious losses) of
    /// later packets were acknowledged.
    Reordering,
    /// Sent more than the loss delay ([`super::Recovery::loss_delay`]) before a
    /// later packet was acknowledged.
    Time,
}

impl LossTrigger {
    /// qlog name.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Reordering => "reordering_threshold",
            Self::Time => "time_threshold",
        }
    }
}

/// What an ACK frame did.
///
/// Invariant: a packet appears in at most one of `acked`, `spurious` and
/// `lost`, and only once over the connection's life in `acked` or
/// `spurious` (its acknowledgement is reported once).
#[derive(Debug, Default)]
pub struct AckOutcome {
    /// Newly acknowledged packets.
    pub acked: Vec<SentPacket>,
    /// Packets declared lost earlier and acknowledged by this ACK after all
    /// (spurious losses). Already out of flight: only their frames count.
    pub spurious: Vec<SentPacket>,
    /// Packets declared lost as a result.
    pub lost: Vec<(SentPacket, LossTrigger)>,
    /// An RTT sample was taken.
    pub rtt_sampled: bool,
}

/// What a timer expiry did.
#[derive(Debug)]
pub enum TimeoutOutcome {
    /// Nothing was due.
    None,
    /// The loss timer declared these lost.
    Lost(Vec<(SentPacket, LossTrigger)>),
    /// A probe timeout: send up to two ack-eliciting probes.
    Probe,
}

/// Counters of the adaptive loss detection.
///
/// Invariant: each counter only grows; `undone_events` never exceeds the
/// congestion events started, `spurious_losses` never exceeds the packets
/// declared lost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RecoveryStats {
    /// Declared-lost packets acknowledged later (spurious losses).
    pub spurious_losses: u64,
    /// Congestion events undone because all their losses were spurious.
    pub undone_events: u64,
    /// Times persistent congestion collapsed the window (RFC 9002 §7.6).
    pub persistent_congestion: u64,
    /// Congestion events started by a rise in the peer's ECN-CE count
    /// (RFC 9002 §7.1, Appendix B.7).
    pub ecn_events: u64,
}
