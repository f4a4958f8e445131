//! Flow subjects (connection or stream) and QUIC stream IDs (RFC 9000 §2.1).

use std::fmt;

/// Which endpoint a connection is, or which one opened a stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Role {
    /// The endpoint that initiated the connection; opens even-numbered streams.
    Client,
    /// The endpoint that accepted it; opens odd-numbered streams.
    Server,
}

impl Role {
    /// The other endpoint.
    #[must_use]
    pub(crate) const fn peer(self) -> Self {
        match self {
            Self::Client => Self::Server,
            Self::Server => Self::Client,
        }
    }
}

/// Whether data flows both ways on a stream or only from its initiator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Direction {
    /// Bidirectional: both endpoints send.
    Bidi,
    /// Unidirectional: only the initiator sends.
    Uni,
}

/// A QUIC stream ID (RFC 9000 §2.1): bit 0 is the initiator (1: server), bit 1
/// the direction (1: unidirectional), the rest the index. Calls reject values ≥
/// 2^62.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct StreamId(pub u64);

impl StreamId {
    /// The `index`-th stream of its type; saturates for indices ≥ 2^62.
    #[must_use]
    pub const fn new(initiator: Role, direction: Direction, index: u64) -> Self {
        let low = match initiator {
            Role::Client => 0,
            Role::Server => 1,
        } | match direction {
            Direction::Bidi => 0,
            Direction::Uni => 2,
        };
        let index = if index > (u64::MAX >> 2) {
            u64::MAX >> 2
        } else {
            index
        };
        Self((index << 2) | low)
    }

    /// The endpoint that opened this stream.
    #[must_use]
    pub const fn initiator(self) -> Role {
        if self.0 & 1 == 0 {
            Role::Client
        } else {
            Role::Server
        }
    }

    /// Bidirectional or unidirectional.
    #[must_use]
    pub const fn direction(self) -> Direction {
        if self.0 & 2 == 0 {
            Direction::Bidi
        } else {
            Direction::Uni
        }
    }

    /// Index within its type: the number MAX_STREAMS limits (RFC 9000 §4.6).
    #[must_use]
    pub const fn index(self) -> u64 {
        self.0 >> 2
    }

    /// True if an endpoint in `role` receives on this stream.
    #[must_use]
    pub(crate) fn has_receive_side(self, role: Role) -> bool {
        self.direction() == Direction::Bidi || self.initiator() != role
    }
}

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

impl From<StreamId> for Subject {
    fn from(id: StreamId) -> Self {
        Self::Stream(id)
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::Connection {}
    impl Sealed for super::StreamId {}
}

/// The two subjects a controller can limit (sealed: convert your own stream ID
/// type into [`StreamId`]).
pub trait FlowSubject: Copy + fmt::Debug + sealed::Sealed {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_id_bits_follow_rfc_9000() {
        // RFC 9000 §2.1, Table 1.
        assert_eq!(StreamId::new(Role::Client, Direction::Bidi, 0), StreamId(0));
        assert_eq!(StreamId::new(Role::Server, Direction::Bidi, 0), StreamId(1));
        assert_eq!(StreamId::new(Role::Client, Direction::Uni, 0), StreamId(2));
        assert_eq!(StreamId::new(Role::Server, Direction::Uni, 5), StreamId(23));
        let id = StreamId(23);
        assert_eq!(id.initiator(), Role::Server);
        assert_eq!(id.direction(), Direction::Uni);
        assert_eq!(id.index(), 5);
        assert!(id.has_receive_side(Role::Client));
        assert!(!id.has_receive_side(Role::Server));
        assert!(StreamId(0).has_receive_side(Role::Client));
        assert_eq!(
            StreamId::new(Role::Client, Direction::Bidi, u64::MAX).index(),
            u64::MAX >> 2
        );
    }
}
