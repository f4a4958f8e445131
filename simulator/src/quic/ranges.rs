//! A set of `u64` values stored as sorted, disjoint, half-open ranges.
//!
//! Used for received packet numbers (ACK generation), stream reassembly
//! (out-of-order offsets) and the sender's retransmission bookkeeping.

use std::collections::BTreeMap;
use std::ops::Bound::{Excluded, Included};

/// A set of `u64` values kept as ranges `[start, end)`.
///
/// Invariants: ranges are non-empty, sorted, disjoint and never adjacent
/// (touching ranges are merged), and `total` is the sum of their lengths.
/// Every operation is O(log n) in the number of ranges, plus the number of
/// ranges it merges or removes; appending at the end (the common in-order
/// case) touches only the last range.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RangeSet {
    /// start -> end (exclusive).
    ranges: BTreeMap<u64, u64>,
    total: u64,
}

impl RangeSet {
    /// An empty set.
    #[must_use]
    pub const fn new() -> Self {
        Self {
            ranges: BTreeMap::new(),
            total: 0,
        }
    }

    /// Adds `[start, end)`; returns how many values were not already in the
    /// set. An empty or inverted range adds nothing.
    pub fn insert(&mut self, start: u64, end: u64) -> u64 {
        if start >= end {
            return 0;
        }
        // Fast path: at or after the end of the last range.
        if let Some(mut last) = self.ranges.last_entry() {
            let last_end = *last.get();
            if start == last_end {
                *last.get_mut() = end;
                self.total += end - start;
                return end - start;
            }
            if start > last_end {
                self.ranges.insert(start, end);
                self.total += end - start;
                return end - start;
            }
        }
        let mut new_start = start;
        let mut new_end = end;
        let mut merged = 0;
        // A range starting at or before `start` that reaches it.
        if let Some((&s, &e)) = self.ranges.range(..=start).next_back()
            && e >= start
        {
            if e >= end {
                return 0;
            }
            self.ranges.remove(&s);
            new_start = s;
            merged += e - s;
        }
        // Ranges starting inside `(start, end]` overlap or touch.
        while let Some((&s, &e)) = self.ranges.range((Excluded(start), Included(end))).next() {
            self.ranges.remove(&s);
            merged += e - s;
            new_end = new_end.max(e);
        }
        self.ranges.insert(new_start, new_end);
        let added = (new_end - new_start) - merged;
        self.total += added;
        added
    }

    /// Removes `[start, end)`; returns how many values were in the set.
    pub fn remove(&mut self, start: u64, end: u64) -> u64 {
        if start >= end {
            return 0;
        }
        let mut removed = 0;
        // A range starting before `start` that overlaps it: keep its head.
        if let Some((&s, &e)) = self.ranges.range(..start).next_back()
            && e > start
        {
            self.ranges.insert(s, start);
            if e > end {
                self.ranges.insert(end, e);
                removed = end - start;
                self.total -= removed;
                return removed;
            }
            removed += e - start;
        }
        while let Some((&s, &e)) = self.ranges.range(start..end).next() {
            self.ranges.remove(&s);
            if e > end {
                self.ranges.insert(end, e);
                removed += end - s;
            } else {
                removed += e - s;
            }
        }
        self.total -= removed;
        removed
    }

    /// Drops every value below `v` (trimming acknowledged or delivered
    /// prefixes).
    pub fn remove_below(&mut self, v: u64) {
        // Pop whole ranges from the front; re-key at most one straddling
        // range. No allocation unless a range is split.
        while let Some((&s, &e)) = self.ranges.first_key_value() {
            if s >= v {
                break;
            }
            self.ranges.pop_first();
            if e > v {
                self.ranges.insert(v, e);
                self.total -= v - s;
                break;
            }
            self.total -= e - s;
        }
    }

    /// True if `v` is in the set.
    #[must_use]
    pub fn contains(&self, v: u64) -> bool {
        self.ranges
            .range(..=v)
            .next_back()
            .is_some_and(|(_, &e)| e > v)
    }

    /// True if every value of `[start, end)` is in the set (vacuously true
    /// for an empty range).
    #[must_use]
    pub fn covers(&self, start: u64, end: u64) -> bool {
        start >= end
            || self
                .ranges
                .range(..=start)
                .next_back()
                .is_some_and(|(_, &e)| e >= end)
    }

    /// The lowest range, as `(start, end)`.
    #[must_use]
    pub fn first_range(&self) -> Option<(u64, u64)> {
        self.ranges.first_key_value().map(|(&s, &e)| (s, e))
    }

    /// The highest range, as `(start, end)`.
    #[must_use]
    pub fn last_range(&self) -> Option<(u64, u64)> {
        self.ranges.last_key_value().map(|(&s, &e)| (s, e))
    }

    /// One past the largest value in the set, `None` when empty.
    #[must_use]
    pub fn last_end(&self) -> Option<u64> {
        self.ranges.last_key_value().map(|(_, &e)| e)
    }

    /// Ranges in ascending order, as `(start, end)`.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (u64, u64)> + '_ {
        self.ranges.iter().map(|(&s, &e)| (s, e))
    }

    /// Ranges in descending order, as `(start, end)`.
    pub fn iter_rev(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.iter().rev()
    }

    /// Ranges (as `(start, end)`) that intersect `[start, end)`, clipped to
    /// it, ascending.
    pub fn iter_within(&self, start: u64, end: u64) -> impl Iterator<Item = (u64, u64)> + '_ {
        let first = self
            .ranges
            .range(..start)
            .next_back()
            .map_or(start, |(&s, _)| s);
        // `first <= start`, so the bounds are ordered whenever start < end.
        let (lo, hi) = if start < end { (first, end) } else { (0, 0) };
        self.ranges.range(lo..hi).filter_map(move |(&s, &e)| {
            let (s, e) = (s.max(start), e.min(end));
            (s < e).then_some((s, e))
        })
    }

    /// Number of disjoint ranges.
    #[must_use]
    pub fn range_count(&self) -> usize {
        self.ranges.len()
    }

    /// True if the set holds no value.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// Number of values in the set.
    #[must_use]
    pub const fn len_total(&self) -> u64 {
        self.total
    }

    /// Removes everything.
    pub fn clear(&mut self) {
        self.ranges.clear();
        self.total = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    fn ranges(s: &RangeSet) -> Vec<(u64, u64)> {
        s.iter().collect()
    }

    #[test]
    fn insert_merges_and_counts_new_values() {
        let mut s = RangeSet::new();
        assert_eq!(s.insert(10, 20), 10);
        assert_eq!(s.insert(20, 25), 5); // adjacent: merged
        assert_eq!(ranges(&s), [(10, 25)]);
        assert_eq!(s.insert(30, 40), 10);
        assert_eq!(s.insert(0, 5), 5);
        assert_eq!(ranges(&s), [(0, 5), (10, 25), (30, 40)]);
        assert_eq!(s.insert(12, 18), 0);
        assert_eq!(s.insert(5, 10), 5); // bridges two ranges
        assert_eq!(ranges(&s), [(0, 25), (30, 40)]);
        assert_eq!(s.insert(20, 45), 10); // 25..30 and 40..45
        assert_eq!(ranges(&s), [(0, 45)]);
        assert_eq!(s.len_total(), 45);
        assert_eq!(s.insert(7, 7), 0);
        assert_eq!(s.insert(9, 3), 0);
    }

    #[test]
    fn queries() {
        let mut s = RangeSet::new();
        assert_eq!(s.first_range(), None);
        assert_eq!(s.last_end(), None);
        assert!(s.covers(5, 5));
        s.insert(10, 20);
        s.insert(30, 40);
        assert!(!s.contains(9));
        assert!(s.contains(10));
        assert!(s.contains(19));
        assert!(!s.contains(20));
        assert!(s.covers(10, 20));
        assert!(!s.covers(10, 21));
        assert!(!s.covers(9, 20));
        assert!(!s.covers(15, 35));
        assert_eq!(s.first_range(), Some((10, 20)));
        assert_eq!(s.last_range(), Some((30, 40)));
        assert_eq!(s.last_end(), Some(40));
        assert_eq!(s.iter_rev().collect::<Vec<_>>(), [(30, 40), (10, 20)]);
        assert_eq!(s.range_count(), 2);
        assert_eq!(
            s.iter_within(15, 35).collect::<Vec<_>>(),
            [(15, 20), (30, 35)]
        );
        assert_eq!(s.iter_within(20, 30).count(), 0);
    }

    #[test]
    fn remove_below_trims_prefix() {
        let mut s = RangeSet::new();
        s.insert(10, 20);
        s.insert(30, 40);
        s.remove_below(15);
        assert_eq!(ranges(&s), [(15, 20), (30, 40)]);
        assert_eq!(s.len_total(), 15);
        s.remove_below(20);
        assert_eq!(ranges(&s), [(30, 40)]);
        s.remove_below(30);
        assert_eq!(ranges(&s), [(30, 40)]);
        s.remove_below(100);
        assert!(s.is_empty());
        assert_eq!(s.len_total(), 0);
    }

    #[test]
    fn remove_splits_ranges() {
        let mut s = RangeSet::new();
        s.insert(0, 100);
        assert_eq!(s.remove(10, 20), 10);
        assert_eq!(ranges(&s), [(0, 10), (20, 100)]);
        assert_eq!(s.remove(5, 25), 10);
        assert_eq!(ranges(&s), [(0, 5), (25, 100)]);
        assert_eq!(s.remove(90, 200), 10);
        assert_eq!(s.len_total(), 70);
    }

    #[test]
    fn in_order_append_stays_one_range() {
        let mut s = RangeSet::new();
        for pn in 0..10_000 {
            assert_eq!(s.insert(pn, pn + 1), 1);
        }
        assert_eq!(ranges(&s), [(0, 10_000)]);
    }

    #[derive(Debug, Clone)]
    enum Op {
        Insert(u64, u64),
        Remove(u64, u64),
        RemoveBelow(u64),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            4 => (0u64..64, 0u64..12).prop_map(|(s, l)| Op::Insert(s, s + l)),
            1 => (0u64..64, 0u64..12).prop_map(|(s, l)| Op::Remove(s, s + l)),
            1 => (0u64..40).prop_map(Op::RemoveBelow),
        ]
    }

    proptest! {
        #[test]
        fn matches_btreeset_model(ops in proptest::collection::vec(op(), 0..40)) {
            let mut set = RangeSet::new();
            let mut model = BTreeSet::new();
            for op in ops {
                match op {
                    Op::Insert(a, b) => {
                        let new = (a..b).filter(|v| model.insert(*v)).count() as u64;
                        prop_assert_eq!(set.insert(a, b), new);
                    }
                    Op::Remove(a, b) => {
                        let gone = (a..b).filter(|v| model.remove(v)).count() as u64;
                        prop_assert_eq!(set.remove(a, b), gone);
                    }
                    Op::RemoveBelow(v) => {
                        model.retain(|x| *x >= v);
                        set.remove_below(v);
                    }
                }
                // Structure: sorted, disjoint, non-adjacent, non-empty.
                let rs: Vec<_> = set.iter().collect();
                for w in rs.windows(2) {
                    prop_assert!(w[0].1 < w[1].0);
                }
                prop_assert!(rs.iter().all(|(s, e)| s < e));
                let flat: Vec<u64> = rs.iter().flat_map(|&(s, e)| s..e).collect();
                prop_assert_eq!(&flat, &model.iter().copied().collect::<Vec<_>>());
                prop_assert_eq!(set.len_total(), model.len() as u64);
                for v in 0..80 {
                    prop_assert_eq!(set.contains(v), model.contains(&v));
                }
                for a in (0..80).step_by(3) {
                    for b in [a, a + 1, a + 5] {
                        prop_assert_eq!(set.covers(a, b), (a..b).all(|v| model.contains(&v)));
                        let within: Vec<u64> =
                            set.iter_within(a, b).flat_map(|(s, e)| s..e).collect();
                        let expect: Vec<u64> = model.range(a..b).copied().collect();
                        prop_assert_eq!(within, expect);
                    }
                }
                prop_assert_eq!(set.last_end(), model.last().map(|v| v + 1));
            }
        }
    }
}
