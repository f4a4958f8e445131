//! Errors, with the QUIC transport error code each maps to.

use std::fmt;

use crate::StreamId;

/// QUIC transport error code (RFC 9000 §20.1).
pub type TransportErrorCode = u64;

/// A flow-control violation or invalid value; the failing call changed nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Error {
    /// Data beyond our limit (RFC 9000 §4.1): FLOW_CONTROL_ERROR (0x03).
    FlowControl {
        /// The offset (stream) or byte count (connection) the peer reached.
        received: u64,
        /// The limit we had advertised.
        limit: u64,
    },
    /// A changed final size, data beyond it, or a final size below data
    /// received (RFC 9000 §4.5): FINAL_SIZE_ERROR (0x06).
    FinalSize {
        /// The final size known before (or the highest offset received).
        known: u64,
        /// The conflicting value the peer sent.
        received: u64,
    },
    /// A value ≥ 2^62 (RFC 9000 §16): FRAME_ENCODING_ERROR (0x07).
    ValueTooLarge(u64),
    /// A peer's stream beyond MAX_STREAMS (RFC 9000 §4.6): STREAM_LIMIT_ERROR
    /// (0x04).
    StreamLimit {
        /// The stream the peer used.
        id: StreamId,
        /// The limit we had advertised for streams of its type.
        limit: u64,
    },
    /// A frame on a stream that cannot receive it (RFC 9000 §19.8, §19.4): one
    /// of ours not opened yet or send-only. STREAM_STATE_ERROR (0x05).
    StreamState(StreamId),
    /// The stack opened a stream with an initial limit above
    /// `max_stream_window`: INTERNAL_ERROR (0x01).
    InitialLimitAboveMax {
        /// The initial limit asked for.
        limit: u64,
        /// `max_stream_window`.
        max: u64,
    },
    /// The stack retired unreceived bytes (a local bug): INTERNAL_ERROR (0x01).
    RetiredBeyondReceived {
        /// Offset (stream) or count (connection) the caller tried to retire.
        retired: u64,
        /// What has been received so far.
        received: u64,
    },
    /// The stack passed a [`crate::StreamReceiver`] to a
    /// [`crate::ConnectionFlow`] that did not open it (a local bug); the call
    /// changed nothing. INTERNAL_ERROR (0x01).
    ForeignStream(StreamId),
}

impl Error {
    /// The QUIC transport error code to close the connection with.
    #[must_use]
    pub const fn code(&self) -> TransportErrorCode {
        match self {
            Self::FlowControl { .. } => 0x03,
            Self::FinalSize { .. } => 0x06,
            Self::ValueTooLarge(_) => 0x07,
            Self::StreamLimit { .. } => 0x04,
            Self::StreamState(_) => 0x05,
            Self::RetiredBeyondReceived { .. }
            | Self::InitialLimitAboveMax { .. }
            | Self::ForeignStream(_) => 0x01,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::FlowControl { received, limit } => {
                write!(
                    f,
                    "FLOW_CONTROL_ERROR: peer reached {received}, limit {limit}"
                )
            }
            Self::FinalSize { known, received } => {
                write!(f, "FINAL_SIZE_ERROR: known {known}, peer sent {received}")
            }
            Self::ValueTooLarge(v) => write!(f, "FRAME_ENCODING_ERROR: {v} is not below 2^62"),
            Self::StreamLimit { id, limit } => write!(
                f,
                "STREAM_LIMIT_ERROR: {id} (index {} of its type) is beyond the limit of {limit} streams",
                id.index()
            ),
            Self::StreamState(id) => write!(f, "STREAM_STATE_ERROR: {id} cannot receive"),
            Self::InitialLimitAboveMax { limit, max } => write!(
                f,
                "INTERNAL_ERROR: initial stream limit {limit} above max_stream_window {max}"
            ),
            Self::RetiredBeyondReceived { retired, received } => write!(
                f,
                "INTERNAL_ERROR: retiring {retired} but only {received} received"
            ),
            Self::ForeignStream(id) => write!(
                f,
                "INTERNAL_ERROR: {id} was opened by another ConnectionFlow"
            ),
        }
    }
}

impl std::error::Error for Error {}

/// Shorthand for results in this crate.
pub type Res<T> = Result<T, Error>;
