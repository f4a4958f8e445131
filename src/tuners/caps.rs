//! The largest windows a peer strategy tunes up to: one for a stream, one
//! for the connection (RFC 9000's MAX_STREAM_DATA and MAX_DATA subjects).

use neqo_fc::SubjectKind;

/// Caps on the stream and connection receive windows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WindowCaps {
    /// Largest stream window.
    pub stream: u64,
    /// Largest connection window.
    pub connection: u64,
}

impl WindowCaps {
    /// The cap for windows of `kind`.
    #[must_use]
    pub const fn of(&self, kind: SubjectKind) -> u64 {
        match kind {
            SubjectKind::Stream => self.stream,
            SubjectKind::Connection => self.connection,
        }
    }
}
