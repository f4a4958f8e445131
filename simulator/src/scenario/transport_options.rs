//! How both endpoints' transports behave beyond flow control: datagram
//! size, acknowledgement rate, pacing and the sender's stream buffer.
//!
//! [`TransportOptions::DEFAULT`] is this simulator's own QUIC-like
//! transport; [`TransportOptions::neqo`] approximates neqo 0.30 as its
//! test-fixture simulator runs it, the transport the neqo integration
//! (`integrations/neqo/`) measures.

use std::time::Duration;

use crate::quic::pacer::Pacing;

/// Transport settings, the same on both ends.
///
/// Invariants: `max_datagram_size` ≥ 1200 (RFC 9000 §14), `ack_ratio` ≥ 1;
/// `send_buffer`, when set, is at least one datagram.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TransportOptions {
    /// Largest UDP payload.
    pub max_datagram_size: u32,
    /// Acknowledge every this many ack-eliciting packets.
    pub ack_ratio: u32,
    /// `max_ack_delay`: the latest an acknowledgement is sent after the
    /// first unacknowledged ack-eliciting packet.
    pub max_ack_delay: Duration,
    /// Pacing gain and burst.
    pub pacing: Pacing,
    /// The most stream data a sender holds per stream, unacknowledged plus
    /// not yet sent (`None`: the application writes everything at once).
    /// A stream sends new data only below the end of its acknowledged
    /// prefix plus this many bytes, whatever the peer's credit.
    pub send_buffer: Option<u64>,
    /// Use ECN (RFC 9000 §13.4, RFC 9002 §7.1): every packet is sent
    /// ECT(0), ACKs carry ECN counts, and a rise in the peer's CE count is
    /// a congestion event (CUBIC backs off to 0.85, RFC 8511). ECN
    /// validation (§13.4.2) is taken to succeed, as it does on a path
    /// that does not bleach the field. Only a CoDel bottleneck marks.
    pub ecn: bool,
}

impl TransportOptions {
    /// 1,500-byte datagrams, an ACK every 2nd packet or after 25 ms,
    /// RFC 9002 pacing, no send-buffer limit, no ECN.
    pub const DEFAULT: Self = Self {
        max_datagram_size: 1500,
        ack_ratio: 2,
        max_ack_delay: Duration::from_millis(25),
        pacing: Pacing::RFC9002,
        send_buffer: None,
        ecn: false,
    };

    /// neqo 0.30 between two neqo endpoints on a path of round-trip time
    /// `rtt`, as its `min_bandwidth` bench sets it up (`ack_ratio(200)`):
    ///
    /// - 1,252-byte datagrams (neqo's default for IPv6 without PMTUD);
    /// - an ACK every 10 ack-eliciting packets or after max(RTT / 20,
    ///   1 ms). neqo's ACK_FREQUENCY asks for cwnd / (20 · MTU) packets
    ///   (2..=256) and RTT / 20 (`ackrate.rs`), from the cwnd when the rate
    ///   was last updated; a fixed 10 is what reproduces the real runs
    ///   (`fc-lab calibrate`): with 256, neqo 0.30.1's pacing debt never
    ///   builds up and the mission path at 80 ms gives 752 Mbit/s where
    ///   real neqo gives 486 (487 with 10);
    /// - pacing at 2 × cwnd / srtt in bursts of 2, every ack-eliciting
    ///   packet paced while anything is in flight, and ACK-only packets
    ///   spending credit ([`Pacing::NEQO`]: 0.30.1's pacing debt; the
    ///   integration's pacing patch is [`Pacing::NEQO_FIXED`]);
    /// - `TxBuffer::MAX_SIZE` = 10 MiB per send stream, so at most 10 MiB
    ///   is in flight on one stream whatever the receive window;
    /// - ECN off, although neqo marks ECT(0) once its validation succeeds
    ///   (`ecn.rs`). On a tail-drop path ECN changes only the ACK frames
    ///   (three counts, about 6 bytes each), and the ACK rate of 10 above
    ///   was fitted without them: with them the mission path's neqo runs
    ///   at 50 and 60 ms fall from 1.00 and 0.88 of real neqo to 0.86 and
    ///   0.79 (`fc-lab calibrate`, which turns ECN on for the paths whose
    ///   queue runs CoDel, where it decides whether packets are marked or
    ///   dropped).
    ///
    /// Not modelled: its handshake (the RTT estimate starts from the path's
    /// propagation delay), neqo's cwnd-dependent ACK rate, its 1 ms pacing
    /// granularity.
    #[must_use]
    pub fn neqo(rtt: Duration) -> Self {
        Self {
            max_datagram_size: 1252,
            ack_ratio: 10,
            max_ack_delay: (rtt / 20).max(Duration::from_millis(1)),
            pacing: Pacing::NEQO,
            send_buffer: Some(10 << 20),
            ecn: false,
        }
    }
}

impl Default for TransportOptions {
    fn default() -> Self {
        Self::DEFAULT
    }
}
