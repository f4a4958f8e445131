//! The discrete-event queue and the event-stream fingerprint.
//!
//! [`EventQueue`] pops events in time order; events scheduled for the same
//! instant pop in the order they were pushed (FIFO), which makes a run's event
//! order a pure function of its inputs. Most of a run's events are
//! deliveries that leave one path direction in the order they entered it;
//! [`EventQueue::push_in_lane`] keeps those in a FIFO lane (O(1) instead of
//! a heap's O(log n)) without changing the order anything pops in.
//!
//! [`EventHash`] folds whatever a run chooses to record (times, ids, sizes)
//! into one 64-bit value, so determinism tests can compare two runs
//! cheaply.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};

use crate::time::Time;

/// One scheduled event. Ordered so that `BinaryHeap` (a max-heap) yields the
/// earliest time first and, within a time, the lowest sequence number first.
struct Entry<E> {
    at: Time,
    seq: u64,
    ev: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.at == other.at && self.seq == other.seq
    }
}

impl<E> Eq for Entry<E> {}

impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<E> Ord for Entry<E> {
    fn cmp(&self, other: &Self) -> Ordering {
        // Reversed: smaller (time, seq) is "greater" for the max-heap.
        (other.at, other.seq).cmp(&(self.at, self.seq))
    }
}

/// FIFO lanes an [`EventQueue`] has besides its heap.
pub const LANES: usize = 2;

/// A priority queue of events keyed by `(Time, insertion sequence number)`.
///
/// Invariant: `pop` returns events in non-decreasing time; ties pop in push
/// order. Sequence numbers are unique per queue (a `u64` counter never wraps
/// in practice: 2^64 pushes). Each lane holds entries in increasing
/// `(at, seq)` order, so the earliest entry is the least of the heap's top
/// and the lanes' fronts. A push allocates only when the heap or a lane
/// grows.
pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    lanes: [VecDeque<Entry<E>>; LANES],
    next_seq: u64,
}

impl<E> EventQueue<E> {
    /// An empty queue.
    #[must_use]
    pub fn new() -> Self {
        Self {
            heap: BinaryHeap::new(),
            lanes: std::array::from_fn(|_| VecDeque::new()),
            next_seq: 0,
        }
    }

    /// An empty queue with room for `n` events before it reallocates.
    #[must_use]
    pub fn with_capacity(n: usize) -> Self {
        Self {
            heap: BinaryHeap::with_capacity(n),
            lanes: std::array::from_fn(|_| VecDeque::with_capacity(n)),
            next_seq: 0,
        }
    }

    fn entry(&mut self, at: Time, ev: E) -> Entry<E> {
        let seq = self.next_seq;
        self.next_seq = self.next_seq.wrapping_add(1);
        Entry { at, seq, ev }
    }

    /// Schedules `ev` at `at`; it pops after every event already queued for
    /// the same instant.
    pub fn push(&mut self, at: Time, ev: E) {
        let e = self.entry(at, ev);
        self.heap.push(e);
    }

    /// [`EventQueue::push`] for events that mostly come in time order, such
    /// as deliveries from one FIFO path: kept in lane `lane` (`< LANES`)
    /// when not earlier than the lane's last event, else in the heap. The
    /// order events pop in is the same either way.
    ///
    /// # Panics
    /// If `lane >= LANES`.
    pub fn push_in_lane(&mut self, lane: usize, at: Time, ev: E) {
        let e = self.entry(at, ev);
        let l = &mut self.lanes[lane];
        if l.back().is_none_or(|b| b.at <= at) {
            l.push_back(e);
        } else {
            self.heap.push(e);
        }
    }

    /// Where the earliest event is: `Some(lane)`, or `None` for the heap
    /// (also when the queue is empty).
    fn earliest(&self) -> Option<usize> {
        // `Entry`'s order is reversed (max-heap): greater = earlier.
        let mut best = self.heap.peek();
        let mut at = None;
        for (i, l) in self.lanes.iter().enumerate() {
            if let Some(f) = l.front()
                && best.is_none_or(|b| f > b)
            {
                best = Some(f);
                at = Some(i);
            }
        }
        at
    }

    /// Removes and returns the earliest event (FIFO among equal times).
    pub fn pop(&mut self) -> Option<(Time, E)> {
        let e = match self.earliest() {
            Some(lane) => self.lanes[lane].pop_front(),
            None => self.heap.pop(),
        };
        e.map(|e| (e.at, e.ev))
    }

    /// The time of the event `pop` would return next.
    #[must_use]
    pub fn peek_time(&self) -> Option<Time> {
        match self.earliest() {
            Some(lane) => self.lanes[lane].front().map(|e| e.at),
            None => self.heap.peek().map(|e| e.at),
        }
    }

    /// Number of queued events.
    #[must_use]
    pub fn len(&self) -> usize {
        self.heap.len() + self.lanes.iter().map(VecDeque::len).sum::<usize>()
    }

    /// `true` when no event is queued.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> std::fmt::Debug for EventQueue<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventQueue")
            .field("len", &self.len())
            .field("next_time", &self.peek_time())
            .field("pushed", &self.next_seq)
            .finish()
    }
}

/// FNV-1a offset basis (64-bit).
const FNV_OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
/// FNV-1a prime (64-bit).
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// A 64-bit FNV-1a hash over a stream of `u64` words, used to fingerprint
/// a run's event stream.
///
/// Invariant: each word is fed as its 8 little-endian bytes, so the value is
/// the standard FNV-1a of the concatenated byte string and does not depend on
/// the host's endianness.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventHash {
    h: u64,
}

impl EventHash {
    /// The hash of the empty stream (the FNV-1a offset basis).
    #[must_use]
    pub fn new() -> Self {
        Self {
            h: FNV_OFFSET_BASIS,
        }
    }

    /// Folds one word into the hash.
    pub fn mix(&mut self, word: u64) {
        for b in word.to_le_bytes() {
            self.h ^= u64::from(b);
            self.h = self.h.wrapping_mul(FNV_PRIME);
        }
    }

    /// The current hash value.
    #[must_use]
    pub fn value(&self) -> u64 {
        self.h
    }
}

impl Default for EventHash {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    #[test]
    fn pops_in_time_order_fifo_on_ties() {
        let mut q = EventQueue::new();
        q.push(Time(30), "c");
        q.push(Time(10), "a1");
        q.push(Time(20), "b");
        q.push(Time(10), "a2");
        q.push(Time(10), "a3");
        q.push(Time(0), "z");
        assert_eq!(q.len(), 6);
        assert_eq!(q.peek_time(), Some(Time(0)));
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            [
                (Time(0), "z"),
                (Time(10), "a1"),
                (Time(10), "a2"),
                (Time(10), "a3"),
                (Time(20), "b"),
                (Time(30), "c")
            ]
        );
        assert!(q.is_empty());
        assert_eq!(q.pop(), None);
        assert_eq!(q.peek_time(), None);
    }

    #[test]
    fn fifo_holds_across_interleaved_push_pop() {
        let mut q = EventQueue::with_capacity(4);
        q.push(Time(5), 1);
        q.push(Time(5), 2);
        assert_eq!(q.pop(), Some((Time(5), 1)));
        // Pushed later at the same time: must come after 2.
        q.push(Time(5), 3);
        q.push(Time(4), 0);
        assert_eq!(q.pop(), Some((Time(4), 0)));
        assert_eq!(q.pop(), Some((Time(5), 2)));
        assert_eq!(q.pop(), Some((Time(5), 3)));
    }

    #[test]
    fn matches_stable_sort_on_random_input() {
        let mut rng = Rng::new(11);
        let mut q = EventQueue::new();
        let mut reference = Vec::new();
        for i in 0..10_000u32 {
            let t = Time(rng.below(100)); // many ties
            q.push(t, i);
            reference.push((t, i));
        }
        reference.sort_by_key(|&(t, _)| t); // stable: keeps push order on ties
        let popped: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(popped, reference);
    }

    /// Lanes change nothing about the order: random pushes spread over the
    /// heap and both lanes (mostly in order, some not) pop exactly as a
    /// stable sort of all of them, interleaved with pops.
    #[test]
    fn lanes_pop_as_one_stable_order() {
        let mut rng = Rng::new(5);
        let mut q = EventQueue::with_capacity(8);
        let mut plain = EventQueue::new();
        let mut last = [0u64; LANES];
        let mut now = 0;
        let mut got = Vec::new();
        let mut want = Vec::new();
        for i in 0..20_000u32 {
            let lane = rng.below(4) as usize; // 0, 1: lanes; 2, 3: heap
            let t = if lane < LANES && rng.below(10) > 0 {
                // In order for the lane, often tied.
                last[lane] = last[lane].max(now) + rng.below(3);
                last[lane]
            } else {
                now + rng.below(50)
            };
            if lane < LANES {
                q.push_in_lane(lane, Time(t), i);
            } else {
                q.push(Time(t), i);
            }
            plain.push(Time(t), i);
            assert_eq!(q.len(), plain.len());
            assert_eq!(q.peek_time(), plain.peek_time());
            if rng.below(3) == 0 {
                let (a, b) = (q.pop(), plain.pop());
                now = a.map_or(now, |(t, _)| t.0);
                got.push(a);
                want.push(b);
            }
        }
        while !plain.is_empty() {
            got.push(q.pop());
            want.push(plain.pop());
        }
        assert_eq!(got, want);
        assert!(q.is_empty());
        assert_eq!(q.pop(), None);
    }

    #[test]
    fn fnv1a_reference_values() {
        // Empty input is the offset basis.
        assert_eq!(EventHash::new().value(), 0xcbf2_9ce4_8422_2325);
        // Values from an independent FNV-1a 64 implementation (Python) over
        // the same bytes.
        let mut h = EventHash::new();
        h.mix(u64::from_le_bytes(*b"abcdefgh"));
        assert_eq!(h.value(), 0x25da_8c18_36a8_d66d);
        let mut two = EventHash::new();
        two.mix(1);
        two.mix(2);
        assert_eq!(two.value(), 0x7717_9803_63c8_e066);
        // Published FNV-1a 64 test vector: "a" -> 0xaf63dc4c8601ec8c (checks
        // basis and prime on a single byte).
        let mut one = EventHash::new();
        one.h ^= u64::from(b'a');
        one.h = one.h.wrapping_mul(FNV_PRIME);
        assert_eq!(one.value(), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn hash_is_order_sensitive() {
        let mut a = EventHash::new();
        a.mix(1);
        a.mix(2);
        let mut b = EventHash::new();
        b.mix(2);
        b.mix(1);
        let mut c = EventHash::new();
        c.mix(1);
        c.mix(2);
        assert_ne!(a.value(), b.value());
        assert_eq!(a, c);
    }
}
