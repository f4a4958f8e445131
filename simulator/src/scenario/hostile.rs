//! Scripted misbehaviour of the server (issue #6), as a scenario states
//! it: a peer that ignores flow control, opens too many streams, distorts
//! the RTT the receiver measures, or floods control frames. The client
//! must survive each one with bounded memory and bounded work.
//!
//! This is the description only; `transport::hostile` carries it out.
//! Only the server misbehaves; the client is the system under test.

use std::time::Duration;

/// One kind of server-side misbehaviour.
///
/// Invariant: each variant changes only what the server sends (or when it
/// acknowledges); the client runs its normal code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hostile {
    /// Once a stream is blocked by its limit, send `extra` bytes past it
    /// anyway (RFC 9000 §4.1: the receiver must close with
    /// FLOW_CONTROL_ERROR).
    IgnoreLimits {
        /// Bytes sent beyond the stream limit (one frame at most per packet).
        extra: u64,
    },
    /// Open `streams` unidirectional streams of its own (server-initiated,
    /// like HTTP/3 push) with `bytes` each, and answer no request: the
    /// client never asked for them, so its application never reads them;
    /// its stream limit (`max_streams_uni`) and budget must bound them.
    ManyStreams {
        /// Streams the server opens.
        streams: u64,
        /// Bytes on each.
        bytes: u64,
    },
    /// Send every ACK frame `delay` after it was made, with the ACK Delay
    /// field it had then: the client's RTT samples grow by `delay`, beyond
    /// any `max_ack_delay` allowance (RFC 9002 §5.3).
    DelayAcks {
        /// Longest time an ACK waits.
        delay: Duration,
    },
    /// Ignore pacing: send each congestion window as a line-rate burst.
    PaceFast,
    /// Put `per_packet` DATA_BLOCKED / STREAM_DATA_BLOCKED frames (at the
    /// current limits) in every packet.
    FloodBlocked {
        /// Frames added per packet (fewer if the packet is full).
        per_packet: u32,
    },
    /// Put `per_packet` duplicate, stale MAX_DATA frames in every packet.
    DuplicateMaxData {
        /// Frames added per packet (fewer if the packet is full).
        per_packet: u32,
    },
}

impl Hostile {
    /// Most streams a [`Hostile::ManyStreams`] server opens (bounds the
    /// simulator's own memory; far beyond any stream limit).
    pub const MAX_STREAMS: u64 = 1 << 20;

    /// The byte count of each stream the server pushes on its own
    /// ([`Hostile::ManyStreams`]); `None` when it answers requests as
    /// usual.
    #[must_use]
    pub fn pushed_streams(&self) -> Option<Vec<u64>> {
        match *self {
            Self::ManyStreams { streams, bytes } => {
                let n = usize::try_from(streams.min(Self::MAX_STREAMS)).unwrap_or(0);
                Some(vec![bytes; n])
            }
            _ => None,
        }
    }

    /// How long the server holds each ACK frame, if it delays them.
    #[must_use]
    pub fn ack_delay(&self) -> Option<Duration> {
        match *self {
            Self::DelayAcks { delay } => Some(delay),
            _ => None,
        }
    }

    /// True when the server ignores its pacer.
    #[must_use]
    pub fn ignores_pacing(&self) -> bool {
        matches!(self, Self::PaceFast)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn many_streams_pushes_instead_of_answering() {
        let h = Hostile::ManyStreams {
            streams: 3,
            bytes: 7,
        };
        assert_eq!(h.pushed_streams(), Some(vec![7, 7, 7]));
        assert_eq!(Hostile::PaceFast.pushed_streams(), None);
    }
}
