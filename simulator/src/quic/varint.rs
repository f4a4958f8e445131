//! QUIC variable-length integers (RFC 9000 §16) and a bounds-checked
//! decoding cursor.
//!
//! The two most significant bits of the first byte give the encoded length
//! (1, 2, 4 or 8 bytes); the remaining bits hold the value in network byte
//! order, so a varint carries at most 62 bits.

use std::fmt;

/// The largest value a QUIC varint can carry: 2^62 − 1 (RFC 9000 §16).
pub const MAX_VARINT: u64 = (1 << 62) - 1;

/// The QUIC transport error code every [`DecodeError`] maps to:
/// FRAME_ENCODING_ERROR (RFC 9000 §20.1).
pub const FRAME_ENCODING_ERROR: u64 = 0x07;

/// Number of bytes the shortest encoding of `v` takes: 1, 2, 4 or 8.
///
/// Values above [`MAX_VARINT`] report 8 (they cannot be encoded at all).
#[must_use]
pub const fn varint_len(v: u64) -> usize {
    if v < (1 << 6) {
        1
    } else if v < (1 << 14) {
        2
    } else if v < (1 << 30) {
        4
    } else {
        8
    }
}

/// Appends the shortest encoding of `v` to `out`.
///
/// The caller guarantees `v <= MAX_VARINT` (checked with `debug_assert!`;
/// in release builds the two top bits of a larger value are overwritten by
/// the length prefix).
pub fn encode_varint(v: u64, out: &mut Vec<u8>) {
    debug_assert!(v <= MAX_VARINT, "varint {v} exceeds 2^62-1");
    match varint_len(v) {
        1 => out.push(v as u8),
        2 => out.extend_from_slice(&(0x4000 | v as u16).to_be_bytes()),
        4 => out.extend_from_slice(&(0x8000_0000 | v as u32).to_be_bytes()),
        _ => out.extend_from_slice(&((0b11 << 62) | (v & MAX_VARINT)).to_be_bytes()),
    }
}

/// Why bytes could not be decoded as QUIC frames.
///
/// Every variant is a connection error of type FRAME_ENCODING_ERROR
/// (see [`DecodeError::code`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// The input ended in the middle of a field.
    Truncated,
    /// A frame type this codec does not know (RFC 9000 §12.4).
    UnknownFrameType(u64),
    /// A value exceeds what the protocol allows (e.g. a stream offset plus
    /// length of 2^62 or more, RFC 9000 §19.8).
    ValueTooLarge,
    /// An ACK frame's ranges run below packet number 0 (RFC 9000 §19.3.1).
    InvalidAckRange,
    /// Any other structural problem, with a short static description.
    InvalidFrame(&'static str),
}

impl DecodeError {
    /// The QUIC transport error code for this error: always
    /// FRAME_ENCODING_ERROR (0x07).
    #[must_use]
    pub const fn code(&self) -> u64 {
        FRAME_ENCODING_ERROR
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Truncated => f.write_str("truncated input"),
            Self::UnknownFrameType(t) => write!(f, "unknown frame type {t:#x}"),
            Self::ValueTooLarge => f.write_str("value too large"),
            Self::InvalidAckRange => f.write_str("invalid ACK range"),
            Self::InvalidFrame(why) => write!(f, "invalid frame: {why}"),
        }
    }
}

impl std::error::Error for DecodeError {}

/// A read cursor over a byte slice.
///
/// Invariant: the cursor never reads past the end of its slice; every read
/// either consumes exactly the bytes it returns or fails with
/// [`DecodeError::Truncated`] and consumes nothing.
#[derive(Clone, Debug)]
pub struct Decoder<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Decoder<'a> {
    /// A cursor at the start of `buf`.
    #[must_use]
    pub const fn new(buf: &'a [u8]) -> Self {
        Self { buf, pos: 0 }
    }

    /// Bytes not yet consumed.
    #[must_use]
    pub const fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    /// True when every byte has been consumed.
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    /// Number of bytes consumed so far.
    #[must_use]
    pub const fn position(&self) -> usize {
        self.pos
    }

    /// The next byte without consuming it, if any.
    #[must_use]
    pub fn peek_u8(&self) -> Option<u8> {
        self.buf.get(self.pos).copied()
    }

    /// Consumes one byte.
    ///
    /// # Errors
    /// [`DecodeError::Truncated`] at the end of the input.
    pub fn decode_u8(&mut self) -> Result<u8, DecodeError> {
        let b = self.peek_u8().ok_or(DecodeError::Truncated)?;
        self.pos += 1;
        Ok(b)
    }

    /// Consumes and returns the next `n` bytes.
    ///
    /// # Errors
    /// [`DecodeError::Truncated`] if fewer than `n` bytes remain.
    pub fn take(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        if n > self.remaining() {
            return Err(DecodeError::Truncated);
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    /// Consumes one varint (any of the four lengths; non-minimal encodings
    /// are accepted as RFC 9000 §16 allows).
    ///
    /// # Errors
    /// [`DecodeError::Truncated`] if the varint is cut short.
    pub fn decode_varint(&mut self) -> Result<u64, DecodeError> {
        let first = self.peek_u8().ok_or(DecodeError::Truncated)?;
        let len = 1usize << (first >> 6);
        let bytes = self.take(len)?;
        let mut v = u64::from(first & 0x3f);
        for &b in &bytes[1..] {
            v = (v << 8) | u64::from(b);
        }
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn enc(v: u64) -> Vec<u8> {
        let mut out = Vec::new();
        encode_varint(v, &mut out);
        out
    }

    #[test]
    fn boundaries_switch_length_exactly() {
        let cases: [(u64, &[u8]); 8] = [
            (63, &[0x3f]),
            (64, &[0x40, 0x40]),
            (16383, &[0x7f, 0xff]),
            (16384, &[0x80, 0x00, 0x40, 0x00]),
            ((1 << 30) - 1, &[0xbf, 0xff, 0xff, 0xff]),
            (1 << 30, &[0xc0, 0, 0, 0, 0x40, 0, 0, 0]),
            (MAX_VARINT, &[0xff; 8]),
            (0, &[0x00]),
        ];
        for (v, bytes) in cases {
            assert_eq!(enc(v), bytes, "encoding of {v}");
            assert_eq!(varint_len(v), bytes.len(), "length of {v}");
            let mut d = Decoder::new(bytes);
            assert_eq!(d.decode_varint(), Ok(v));
            assert!(d.is_empty());
        }
    }

    #[test]
    fn rfc9000_appendix_a1_examples() {
        // RFC 9000 Appendix A.1 sample encodings.
        let mut d = Decoder::new(&[0xc2, 0x19, 0x7c, 0x5e, 0xff, 0x14, 0xe8, 0x8c]);
        assert_eq!(d.decode_varint(), Ok(151_288_809_941_952_652));
        let mut d = Decoder::new(&[0x9d, 0x7f, 0x3e, 0x7d]);
        assert_eq!(d.decode_varint(), Ok(494_878_333));
        let mut d = Decoder::new(&[0x7b, 0xbd]);
        assert_eq!(d.decode_varint(), Ok(15_293));
        let mut d = Decoder::new(&[0x25]);
        assert_eq!(d.decode_varint(), Ok(37));
        // Non-minimal two-byte encoding of 37 is accepted.
        let mut d = Decoder::new(&[0x40, 0x25]);
        assert_eq!(d.decode_varint(), Ok(37));
        assert_eq!(
            enc(151_288_809_941_952_652),
            [0xc2, 0x19, 0x7c, 0x5e, 0xff, 0x14, 0xe8, 0x8c]
        );
    }

    #[test]
    fn truncated_reads_consume_nothing() {
        let mut d = Decoder::new(&[0x80, 0x00, 0x40]);
        assert_eq!(d.decode_varint(), Err(DecodeError::Truncated));
        assert_eq!(d.remaining(), 3);
        assert_eq!(d.take(4), Err(DecodeError::Truncated));
        assert_eq!(d.take(3), Ok(&[0x80, 0x00, 0x40][..]));
        assert_eq!(d.decode_u8(), Err(DecodeError::Truncated));
        assert_eq!(
            Decoder::new(&[]).decode_varint(),
            Err(DecodeError::Truncated)
        );
    }

    #[test]
    fn errors_map_to_frame_encoding_error() {
        assert_eq!(DecodeError::InvalidAckRange.code(), 0x07);
        assert_eq!(DecodeError::UnknownFrameType(0x1e).code(), 0x07);
        assert_eq!(
            DecodeError::UnknownFrameType(0x1e).to_string(),
            "unknown frame type 0x1e"
        );
    }

    proptest! {
        #[test]
        fn round_trip(v in 0..=MAX_VARINT) {
            let bytes = enc(v);
            prop_assert_eq!(bytes.len(), varint_len(v));
            let mut d = Decoder::new(&bytes);
            prop_assert_eq!(d.decode_varint(), Ok(v));
            prop_assert!(d.is_empty());
        }
    }
}
