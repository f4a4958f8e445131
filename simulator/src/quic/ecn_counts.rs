//! The ECN counts an ACK frame of type 0x03 carries (RFC 9000 §19.3.2,
//! §13.4.1): how many packets of the acknowledged packet-number space
//! arrived with each ECN codepoint.

use super::varint::{DecodeError, Decoder, encode_varint, varint_len};

/// Cumulative ECN counts of one packet-number space.
///
/// Invariant: each count only grows over a connection (the receiver
/// counts every packet it processes once, duplicates not included).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct EcnCounts {
    /// Packets received with ECT(0).
    pub ect0: u64,
    /// Packets received with ECT(1).
    pub ect1: u64,
    /// Packets received with CE.
    pub ce: u64,
}

impl EcnCounts {
    /// Bytes the three counts take on the wire.
    #[must_use]
    pub const fn encoded_len(&self) -> usize {
        varint_len(self.ect0) + varint_len(self.ect1) + varint_len(self.ce)
    }

    /// Appends ECT0 Count, ECT1 Count, ECN-CE Count.
    pub fn encode(&self, out: &mut Vec<u8>) {
        encode_varint(self.ect0, out);
        encode_varint(self.ect1, out);
        encode_varint(self.ce, out);
    }

    /// Reads the three counts.
    ///
    /// # Errors
    /// The varint decoder's error when the input ends early.
    pub fn decode(dec: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        Ok(Self {
            ect0: dec.decode_varint()?,
            ect1: dec.decode_varint()?,
            ce: dec.decode_varint()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_with_exact_length() {
        let c = EcnCounts {
            ect0: 70_000,
            ect1: 0,
            ce: 63,
        };
        let mut out = Vec::new();
        c.encode(&mut out);
        assert_eq!(out, [0x80, 0x01, 0x11, 0x70, 0x00, 0x3f]);
        assert_eq!(out.len(), c.encoded_len());
        let mut dec = Decoder::new(&out);
        assert_eq!(EcnCounts::decode(&mut dec), Ok(c));
        let mut short = Decoder::new(&out[..5]);
        assert!(EcnCounts::decode(&mut short).is_err());
    }
}
