//! The ECN field of a datagram's IP header (RFC 3168 §5), as far as the
//! simulator carries it.
//!
//! A sender that uses ECN marks its datagrams ECT(0); an AQM that would
//! drop an ECT datagram to signal congestion marks it CE instead and lets
//! it through (RFC 3168 §5, RFC 8289 §4.4 for CoDel). ECT(1) (L4S,
//! RFC 9331) is not modelled; neqo's test-fixture simulator does not
//! implement it either.

/// The ECN codepoint a datagram carries.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum Ecn {
    /// Not-ECT (0b00): the sender does not use ECN; an AQM drops it.
    #[default]
    NotEct,
    /// ECT(0) (0b10): ECN-capable transport.
    Ect0,
    /// CE (0b11): congestion experienced, set by an AQM on the way.
    Ce,
}

impl Ecn {
    /// True for a codepoint an AQM may mark instead of dropping (ECT or
    /// already CE: marking CE again changes nothing, RFC 3168 §5).
    #[must_use]
    pub const fn is_ecn_capable(self) -> bool {
        matches!(self, Self::Ect0 | Self::Ce)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_ect_and_ce_may_be_marked() {
        assert!(!Ecn::NotEct.is_ecn_capable());
        assert!(Ecn::Ect0.is_ecn_capable());
        assert!(Ecn::Ce.is_ecn_capable());
        assert_eq!(Ecn::default(), Ecn::NotEct);
    }
}
