//! Which congestion controller a run uses, by name.

use super::{control::CongestionControl, cubic::Cubic, newreno::NewReno};

/// Which congestion controller to build.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CcAlgorithm {
    /// CUBIC, RFC 9438.
    #[default]
    Cubic,
    /// NewReno, RFC 9002 §7.
    NewReno,
}

impl CcAlgorithm {
    /// A fresh controller for datagrams of at most `max_datagram_size`
    /// bytes.
    #[must_use]
    pub fn build(self, max_datagram_size: u64) -> Box<dyn CongestionControl> {
        match self {
            Self::Cubic => Box::new(Cubic::new(max_datagram_size)),
            Self::NewReno => Box::new(NewReno::new(max_datagram_size)),
        }
    }

    /// The algorithm's name ("cubic", "newreno").
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Cubic => "cubic",
            Self::NewReno => "newreno",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quic::cc::CcState;

    #[test]
    fn build_names() {
        assert_eq!(CcAlgorithm::Cubic.build(1200).name(), "cubic");
        assert_eq!(CcAlgorithm::NewReno.build(1200).name(), "newreno");
        assert_eq!(CcAlgorithm::NewReno.name(), "newreno");
        assert_eq!(CcState::Recovery.as_str(), "recovery");
    }
}
