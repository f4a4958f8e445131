//! What a flow controller limits: the whole connection or one stream.

use std::fmt;

/// A QUIC stream identifier (RFC 9000 §2.1); a plain number here.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct StreamId(pub u64);

impl fmt::Display for StreamId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "stream {}", self.0)
    }
}

/// Marker for connection-level flow control (MAX_DATA / DATA_BLOCKED).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Connection;

/// Whether a controller limits the connection or a stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SubjectKind {
    /// Connection-level: MAX_DATA, DATA_BLOCKED.
    Connection,
    /// Stream-level: MAX_STREAM_DATA, STREAM_DATA_BLOCKED.
    Stream,
}

/// A concrete subject, as it appears in window-change reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Subject {
    /// The connection.
    Connection,
    /// One stream.
    Stream(StreamId),
}

impl fmt::Display for Subject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Connection => f.write_str("connection"),
            Self::Stream(id) => id.fmt(f),
        }
    }
}

/// A type that names a flow-control subject ([`Connection`] or
/// [`StreamId`]). Sealed by convention: the crate's controllers are only
/// meaningful for these two.
pub trait FlowSubject: Copy + fmt::Debug {
    /// The subject as a value.
    fn subject(&self) -> Subject;
    /// Connection or stream.
    fn kind(&self) -> SubjectKind;
}

impl FlowSubject for Connection {
    fn subject(&self) -> Subject {
        Subject::Connection
    }
    fn kind(&self) -> SubjectKind {
        SubjectKind::Connection
    }
}

impl FlowSubject for StreamId {
    fn subject(&self) -> Subject {
        Subject::Stream(*self)
    }
    fn kind(&self) -> SubjectKind {
        SubjectKind::Stream
    }
}
