//! The acknowledged packet-number ranges an ACK frame carries, and their
//! wire encoding (RFC 9000 §19.3, §19.3.1).

use std::ops::RangeInclusive;

use super::ranges::RangeSet;
use super::varint::{DecodeError, Decoder, MAX_VARINT, encode_varint, varint_len};

/// Inclusive packet-number ranges of one ACK frame.
///
/// Invariants: at least one range; stored highest first; each range has
/// `smallest <= largest <= MAX_VARINT`; ranges are disjoint and not adjacent
/// (between two ranges there is a gap of at least one unacknowledged
/// packet number), which is exactly what the Gap field can express.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AckRanges {
    /// `(largest, smallest)` pairs, descending.
    ranges: Vec<(u64, u64)>,
}

impl AckRanges {
    /// Checks and wraps `(largest, smallest)` pairs in descending order.
    ///
    /// # Errors
    /// [`DecodeError::InvalidAckRange`] if empty, unordered, overlapping,
    /// adjacent, or above `MAX_VARINT`.
    pub fn from_pairs(ranges: Vec<(u64, u64)>) -> Result<Self, DecodeError> {
        let Some(&(top, _)) = ranges.first() else {
            return Err(DecodeError::InvalidAckRange);
        };
        if top > MAX_VARINT || ranges.iter().any(|&(hi, lo)| lo > hi) {
            return Err(DecodeError::InvalidAckRange);
        }
        // Next range's largest must sit at least 2 below this one's smallest.
        if ranges
            .windows(2)
            .any(|w| w[1].0.checked_add(2).is_none_or(|x| x > w[0].1))
        {
            return Err(DecodeError::InvalidAckRange);
        }
        Ok(Self { ranges })
    }

    /// The ranges of `set` (half-open `[start, end)` packet numbers), or
    /// `None` if nothing in `set` fits below 2^62.
    #[must_use]
    pub fn from_range_set(set: &RangeSet) -> Option<Self> {
        Self::from_range_set_capped(set, usize::MAX)
    }

    /// Like [`AckRanges::from_range_set`] but keeps at most `max_ranges`
    /// ranges, the highest ones (RFC 9000 §13.2.4 lets a receiver limit the
    /// ranges it reports). `max_ranges == 0` is treated as 1.
    #[must_use]
    pub fn from_range_set_capped(set: &RangeSet, max_ranges: usize) -> Option<Self> {
        let ranges: Vec<(u64, u64)> = set
            .iter_rev()
            .filter(|&(s, _)| s <= MAX_VARINT)
            .map(|(s, e)| ((e - 1).min(MAX_VARINT), s))
            .take(max_ranges.max(1))
            .collect();
        (!ranges.is_empty()).then_some(Self { ranges })
    }

    /// A copy keeping only the `max_ranges` highest ranges (at least one).
    #[must_use]
    pub fn truncated(&self, max_ranges: usize) -> Self {
        Self {
            ranges: self.ranges[..self.ranges.len().min(max_ranges.max(1))].to_vec(),
        }
    }

    /// Ranges from highest to lowest.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = RangeInclusive<u64>> + '_ {
        self.ranges.iter().map(|&(hi, lo)| lo..=hi)
    }

    /// The Largest Acknowledged packet number.
    #[must_use]
    pub fn largest(&self) -> u64 {
        self.ranges[0].0
    }

    /// The smallest acknowledged packet number.
    #[must_use]
    pub fn smallest(&self) -> u64 {
        self.ranges[self.ranges.len() - 1].1
    }

    /// True if packet number `pn` is acknowledged.
    #[must_use]
    pub fn contains(&self, pn: u64) -> bool {
        // Descending by largest: find the first range whose smallest <= pn.
        let i = self.ranges.partition_point(|&(_, lo)| lo > pn);
        self.ranges.get(i).is_some_and(|&(hi, _)| pn <= hi)
    }

    /// Number of ranges (at least 1).
    #[must_use]
    pub fn len(&self) -> usize {
        self.ranges.len()
    }

    /// Always false: an ACK frame acknowledges at least one packet.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// Bytes of the ACK Range Count, First ACK Range and ACK Range fields
    /// (everything after ACK Delay).
    #[must_use]
    pub fn encoded_len(&self) -> usize {
        let (hi0, lo0) = self.ranges[0];
        let mut len = varint_len(self.ranges.len() as u64 - 1) + varint_len(hi0 - lo0);
        for w in self.ranges.windows(2) {
            let (gap, range_len) = Self::gap_and_len(w[0], w[1]);
            len += varint_len(gap) + varint_len(range_len);
        }
        len
    }

    /// Writes ACK Range Count, First ACK Range and the Gap / ACK Range Length
    /// pairs (RFC 9000 §19.3.1). Largest Acknowledged and ACK Delay are
    /// written by the frame.
    pub fn encode(&self, out: &mut Vec<u8>) {
        let (hi0, lo0) = self.ranges[0];
        encode_varint(self.ranges.len() as u64 - 1, out);
        encode_varint(hi0 - lo0, out);
        for w in self.ranges.windows(2) {
            let (gap, range_len) = Self::gap_and_len(w[0], w[1]);
            encode_varint(gap, out);
            encode_varint(range_len, out);
        }
    }

    /// Reads the fields [`AckRanges::encode`] writes, given the Largest
    /// Acknowledged already read.
    ///
    /// # Errors
    /// [`DecodeError::InvalidAckRange`] when a range would go below packet
    /// number 0; [`DecodeError::Truncated`] on short input.
    pub fn decode(largest: u64, dec: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        let count = dec.decode_varint()?;
        // Each further range takes at least two bytes: bound the allocation
        // by the input before trusting `count`.
        if count > (dec.remaining() / 2) as u64 {
            return Err(DecodeError::Truncated);
        }
        let mut ranges = Vec::with_capacity(count as usize + 1);
        let first = dec.decode_varint()?;
        let mut smallest = largest
            .checked_sub(first)
            .ok_or(DecodeError::InvalidAckRange)?;
        ranges.push((largest, smallest));
        for _ in 0..count {
            let gap = dec.decode_varint()?;
            let range_len = dec.decode_varint()?;
            let hi = smallest
                .checked_sub(gap)
                .and_then(|x| x.checked_sub(2))
                .ok_or(DecodeError::InvalidAckRange)?;
            smallest = hi
                .checked_sub(range_len)
                .ok_or(DecodeError::InvalidAckRange)?;
            ranges.push((hi, smallest));
        }
        Ok(Self { ranges })
    }

    /// Gap and ACK Range Length between range `prev` and the next lower
    /// range `cur` (both `(largest, smallest)`).
    fn gap_and_len(prev: (u64, u64), cur: (u64, u64)) -> (u64, u64) {
        (prev.1 - cur.0 - 2, cur.0 - cur.1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(ranges: &[(u64, u64)]) -> RangeSet {
        let mut s = RangeSet::new();
        for &(a, b) in ranges {
            s.insert(a, b);
        }
        s
    }

    #[test]
    fn from_range_set_is_descending_inclusive() {
        let a = AckRanges::from_range_set(&set(&[(0, 3), (5, 6), (10, 20)])).unwrap();
        assert_eq!(a.iter().collect::<Vec<_>>(), [10..=19, 5..=5, 0..=2]);
        assert_eq!(a.largest(), 19);
        assert_eq!(a.smallest(), 0);
        assert_eq!(a.len(), 3);
        for (pn, yes) in [
            (0, true),
            (2, true),
            (3, false),
            (4, false),
            (5, true),
            (6, false),
        ] {
            assert_eq!(a.contains(pn), yes, "pn {pn}");
        }
        assert!(a.contains(19));
        assert!(!a.contains(20));
        assert!(AckRanges::from_range_set(&RangeSet::new()).is_none());
    }

    #[test]
    fn truncation_keeps_highest() {
        let s = set(&[(0, 1), (2, 3), (4, 5), (6, 7)]);
        let a = AckRanges::from_range_set_capped(&s, 2).unwrap();
        assert_eq!(a.iter().collect::<Vec<_>>(), [6..=6, 4..=4]);
        let full = AckRanges::from_range_set(&s).unwrap();
        assert_eq!(full.truncated(2), a);
        assert_eq!(full.truncated(0).len(), 1);
        assert_eq!(full.truncated(10), full);
    }

    #[test]
    fn encoding_rfc9000_19_3_1() {
        // Ranges 10..=19, 5..=5, 0..=2.
        let a = AckRanges::from_range_set(&set(&[(0, 3), (5, 6), (10, 20)])).unwrap();
        let mut out = Vec::new();
        a.encode(&mut out);
        // count=2, first=19-10=9, gap=10-5-2=3, len=0, gap=5-2-2=1, len=2
        assert_eq!(out, [2, 9, 3, 0, 1, 2]);
        assert_eq!(a.encoded_len(), out.len());
        let mut d = Decoder::new(&out);
        assert_eq!(AckRanges::decode(19, &mut d), Ok(a));
        assert!(d.is_empty());
    }

    #[test]
    fn decode_underflow_is_invalid() {
        // First ACK Range larger than Largest Acknowledged.
        let mut d = Decoder::new(&[0, 6]);
        assert_eq!(
            AckRanges::decode(5, &mut d),
            Err(DecodeError::InvalidAckRange)
        );
        // 3..=5 then gap 1 -> next largest = 3-1-2 = 0, length 1 -> underflow.
        let mut d = Decoder::new(&[1, 2, 1, 1]);
        assert_eq!(
            AckRanges::decode(5, &mut d),
            Err(DecodeError::InvalidAckRange)
        );
        // Same with length 0 is fine: 0..=0.
        let mut d = Decoder::new(&[1, 2, 1, 0]);
        let a = AckRanges::decode(5, &mut d).unwrap();
        assert_eq!(a.iter().collect::<Vec<_>>(), [3..=5, 0..=0]);
        // Gap pushing below zero.
        let mut d = Decoder::new(&[1, 2, 2, 0]);
        assert_eq!(
            AckRanges::decode(5, &mut d),
            Err(DecodeError::InvalidAckRange)
        );
        // A huge range count with no bytes behind it is rejected before allocating.
        let mut d = Decoder::new(&[0xbf, 0xff, 0xff, 0xff, 0]);
        assert_eq!(AckRanges::decode(5, &mut d), Err(DecodeError::Truncated));
    }

    #[test]
    fn from_pairs_validates() {
        assert!(AckRanges::from_pairs(vec![(10, 5), (3, 0)]).is_ok());
        assert!(AckRanges::from_pairs(vec![]).is_err());
        assert!(AckRanges::from_pairs(vec![(10, 5), (4, 0)]).is_err()); // adjacent
        assert!(AckRanges::from_pairs(vec![(10, 5), (12, 11)]).is_err()); // ascending
        assert!(AckRanges::from_pairs(vec![(5, 10)]).is_err()); // inverted
        assert!(AckRanges::from_pairs(vec![(MAX_VARINT + 1, 0)]).is_err());
    }
}
