//! The QUIC-like transport: packets with packet numbers and real frames,
//! RFC 9002 loss recovery and congestion control, streams with
//! round-robin scheduling, and `neqo-fc` flow control on both ends.
//!
//! Not QUIC: no TLS, no handshake, no connection IDs. Everything a window
//! tuner can observe is real: RTT (with ACK delay), losses, pacing, ACK
//! frequency, control frames riding first in the next packet.
//!
//! - `sim.rs`: [`run`](sim::run), the event loop of two endpoints and two
//!   paths, and the [`Metrics`](crate::metrics::Metrics) it ends with;
//! - `connection.rs`: one endpoint — packets in and out, frame dispatch,
//!   timers — wiring the parts below;
//! - `send_streams.rs` / `send_stream.rs`: what the sender sends, within
//!   `neqo-fc`'s send credit; `recv_streams.rs` / `recv_stream.rs`: what
//!   the receiver buffers, within `neqo-fc`'s receive windows;
//! - `application.rs` and `reader.rs`: when and how much the client reads;
//! - `recovery.rs`, `sent.rs`, `ack_state.rs`, `packet.rs`: RFC 9002 loss
//!   recovery, what each sent packet carried, ACK policy, packets;
//! - `stats.rs`, `tracer.rs`: what an endpoint measures and records;
//! - `hostile.rs`: the server carrying out a scripted misbehaviour.

pub mod ack_only_sent;
pub mod ack_state;
pub mod application;
pub mod connection;
pub mod hostile;
pub mod packet;
pub mod reader;
pub mod recovery;
pub mod recv_stream;
pub mod recv_streams;
pub mod send_stream;
pub mod send_streams;
pub mod sent;
pub mod sim;
pub mod stats;
pub mod tracer;

/// Short-header bytes we charge per packet: 1 (flags) + 8 (DCID) + 4
/// (packet number), plus the 16-byte AEAD tag.
pub const PACKET_OVERHEAD: usize = 1 + 8 + 4 + 16;

/// ACK delay exponent (RFC 9000 §18.2 default).
pub const ACK_DELAY_EXPONENT: u32 = 3;

/// Most ACK ranges we put in one ACK frame.
pub const MAX_ACK_RANGES: usize = 32;

/// Bytes of the request the client sends on each of its streams before the
/// server answers (an HTTP/3 GET: a HEADERS frame of a few dozen bytes).
pub const REQUEST_BYTES: u64 = 32;

/// Which streams carry what (RFC 9000 §2.1, stream type in the two low
/// bits of the ID).
///
/// The workload runs as HTTP/3 does: stream `i` is the client's `i`-th
/// bidirectional stream (ID `4i`), on which the client sends a small
/// request and the server its response. A hostile server may also open
/// streams of its own, unidirectional (ID `4i + 3`, like server push),
/// which the client's application never asked for and never reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamKind {
    /// Client-initiated bidirectional: request and response.
    Request,
    /// Server-initiated unidirectional: unsolicited (hostile) data.
    Push,
}

impl StreamKind {
    /// The ID of the `index`-th stream of this kind.
    #[must_use]
    pub const fn id(self, index: u64) -> u64 {
        match self {
            Self::Request => index * 4,
            Self::Push => index * 4 + 3,
        }
    }

    /// The index of `id` if it is a stream of this kind.
    #[must_use]
    pub const fn index(self, id: u64) -> Option<u64> {
        let low = match self {
            Self::Request => 0,
            Self::Push => 3,
        };
        if id & 3 == low { Some(id >> 2) } else { None }
    }
}

/// Stream ID of the `index`-th request stream (client-initiated
/// bidirectional, RFC 9000 §2.1: type bits 0b00).
#[must_use]
pub const fn stream_id(index: u64) -> u64 {
    StreamKind::Request.id(index)
}

/// Index of a request stream, or `None` for other stream types.
#[must_use]
pub const fn stream_index(id: u64) -> Option<u64> {
    StreamKind::Request.index(id)
}
