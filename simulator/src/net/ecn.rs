//! The ECN field of a datagram's IP header (RFC 3168 §5), as far as the
//! simulator carries it.
//!
//! A sender that uses ECN marks its datagrams ECT(0); an AQM that would
//! drop an ECT datagram to signal congestion marks it CE instead and lets
//! it through (RFC 3168 §5, RFC 8289 §4.4 for CoDel). No sender here uses
//! ECT(1) (L4S, RFC 9331; neqo's test-fixture simulator does not either):
//! it appears only when a faulty middlebox rewrites ECT(0) to it
//! ([`EcnRewrite`]), one of the faults ECN validation (RFC 9000 §13.4.2)
//! exists to catch.

/// The ECN codepoint a datagram carries.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum Ecn {
    /// Not-ECT (0b00): the sender does not use ECN; an AQM drops it.
    #[default]
    NotEct,
    /// ECT(0) (0b10): ECN-capable transport.
    Ect0,
    /// ECT(1) (0b01): ECN-capable transport, the L4S codepoint; here only
    /// the work of a remarking middlebox.
    Ect1,
    /// CE (0b11): congestion experienced, set by an AQM on the way.
    Ce,
}

impl Ecn {
    /// True for a codepoint an AQM may mark instead of dropping (ECT or
    /// already CE: marking CE again changes nothing, RFC 3168 §5).
    #[must_use]
    pub const fn is_ecn_capable(self) -> bool {
        matches!(self, Self::Ect0 | Self::Ect1 | Self::Ce)
    }
}

/// What a middlebox on the path does to the ECN field, before the
/// bottleneck. Real paths do both of the faulty ones (RFC 9000 §13.4.2
/// and §A.4; measured by Kühlewind et al., "On the state of ECN and TCP
/// options on the Internet", PAM 2013): a router that clears the field
/// ("bleaching") or rewrites it.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum EcnRewrite {
    /// Leaves the field alone (the default).
    #[default]
    Keep,
    /// Clears it to Not-ECT: the AQM drops instead of marking, and the
    /// receiver counts nothing.
    Clear,
    /// Rewrites ECT(0) to ECT(1): the receiver reports ECT(1), which the
    /// sender never sent.
    Ect1,
}

impl EcnRewrite {
    /// The codepoint after the middlebox. CE is left as it is (a mark of
    /// congestion upstream) unless the field is cleared.
    #[must_use]
    pub const fn apply(self, ecn: Ecn) -> Ecn {
        match (self, ecn) {
            (Self::Clear, _) => Ecn::NotEct,
            (Self::Ect1, Ecn::Ect0) => Ecn::Ect1,
            (_, e) => e,
        }
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
        assert!(Ecn::Ect1.is_ecn_capable());
        assert_eq!(Ecn::default(), Ecn::NotEct);
    }

    #[test]
    fn rewrites() {
        use Ecn::*;
        for e in [NotEct, Ect0, Ect1, Ce] {
            assert_eq!(EcnRewrite::Keep.apply(e), e);
            assert_eq!(EcnRewrite::Clear.apply(e), NotEct);
        }
        assert_eq!(EcnRewrite::Ect1.apply(Ect0), Ect1);
        assert_eq!(EcnRewrite::Ect1.apply(Ce), Ce);
        assert_eq!(EcnRewrite::Ect1.apply(NotEct), NotEct);
        assert_eq!(EcnRewrite::default(), EcnRewrite::Keep);
    }
}
