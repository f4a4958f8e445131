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

/// Stream ID of the `index`-th server-initiated unidirectional stream
/// (RFC 9000 §2.1: type bits 0b11).
#[must_use]
pub const fn stream_id(index: u64) -> u64 {
    index * 4 + 3
}

/// Index of a server-initiated unidirectional stream, or `None` for other
/// stream types.
#[must_use]
pub const fn stream_index(id: u64) -> Option<u64> {
    if id & 3 == 3 { Some(id >> 2) } else { None }
}
