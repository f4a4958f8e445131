//! The client application on top of one endpoint: when it reads (its
//! [`Reader`] pacing and stalls), what it takes from each stream, and
//! when it is done. It reads only through [`RecvStreams`]; it never sees
//! packets or frames.

use super::{reader::Reader, recv_streams::RecvStreams};
use crate::time::Time;

/// The application reading `expected` streams.
///
/// Invariants: `completed` = the number of `Some` in `completion`;
/// `delivered_unstalled ≤ delivered`; a stream's completion time is set
/// once, when its last byte was read.
#[derive(Debug)]
pub struct Application {
    reader: Reader,
    expected: u64,
    completed: u64,
    /// Bytes read, all streams.
    delivered: u64,
    /// Bytes read on streams that never stall.
    delivered_unstalled: u64,
    /// Per stream index: when the last byte was read.
    completion: Vec<Option<Time>>,
    /// Drop streams whose reader stopped for good from the read scan.
    forget_dead_readers: bool,
    /// Reused buffer for stream-ID lists.
    scratch: Vec<u64>,
    /// Streams read to their end since [`Application::take_completed`].
    newly_completed: Vec<u64>,
}

impl Application {
    /// An application reading `expected` streams at the pace of `reader`.
    #[must_use]
    pub fn new(reader: Reader, expected: u64) -> Self {
        Self {
            reader,
            expected,
            completed: 0,
            delivered: 0,
            delivered_unstalled: 0,
            completion: vec![None; usize::try_from(expected).unwrap_or(0)],
            forget_dead_readers: false,
            scratch: Vec::new(),
            newly_completed: Vec::new(),
        }
    }

    /// Stops scanning streams whose reader stalled for good on every
    /// packet (thousands of them cost O(streams) per packet otherwise).
    /// Off by default: it changes when timers fire, hence event counts.
    pub fn forget_dead_readers(&mut self) {
        self.forget_dead_readers = true;
    }

    /// Reads what the reader may take now from the streams with data, in
    /// stream-ID order, within its budget.
    pub fn read(&mut self, now: Time, streams: &mut RecvStreams) {
        if streams.nothing_readable() {
            return;
        }
        let mut budget = self.reader.budget(now);
        let mut ids = std::mem::take(&mut self.scratch);
        ids.extend(streams.readable());
        for &id in &ids {
            if budget == 0 {
                break;
            }
            let Some(s) = streams.get(id) else {
                streams.not_readable(id);
                continue;
            };
            let index = s.index;
            if self.reader.stalled(index, now) {
                if self.forget_dead_readers && self.reader.stalled_for_good(index, now) {
                    // Never read again: drop it from the scan so thousands
                    // of dead readers cost nothing per packet.
                    streams.not_readable(id);
                }
                continue;
            }
            let avail = self
                .reader
                .readable(s.read_offset(), s.contiguous_end(), s.final_size);
            let n = avail.min(budget);
            if n > 0 {
                streams.read(id, n);
                budget -= n;
                self.reader.consume(n);
                self.delivered += n;
                if !self.reader.stalls(index) {
                    self.delivered_unstalled += n;
                }
            }
            let s = streams.get(id).expect("still open");
            let more = self
                .reader
                .readable(s.read_offset(), s.contiguous_end(), s.final_size);
            if s.all_read() {
                let slot = usize::try_from(index).unwrap_or(usize::MAX);
                if let Some(slot) = self.completion.get_mut(slot) {
                    *slot = Some(now);
                }
                self.completed += 1;
                self.newly_completed.push(index);
                streams.close(id);
            } else if more == 0 {
                streams.not_readable(id);
            }
        }
        ids.clear();
        self.scratch = ids;
    }

    /// When the application next wants to read without new data arriving:
    /// the reader's next budget while a readable stream is not stalled, or
    /// the end of a stall.
    #[must_use]
    pub fn next_timeout(&self, now: Time, streams: &RecvStreams) -> Option<Time> {
        if streams.nothing_readable() {
            return None;
        }
        // Wake for read budget only if a stream can use it now; a stalled
        // one wakes at the stall's end instead.
        let can_read = streams
            .readable()
            .filter_map(|id| streams.get(id))
            .any(|s| !self.reader.stalled(s.index, now));
        let budget = if can_read && !self.reader.unlimited() {
            self.reader.next_budget_time(now)
        } else {
            None
        };
        [budget, self.reader.stall_end(now)]
            .into_iter()
            .flatten()
            .min()
    }

    /// The indices of the streams read to their end since the last call
    /// (the server answers a request once it has read all of it).
    pub fn take_completed(&mut self) -> std::vec::Drain<'_, u64> {
        self.newly_completed.drain(..)
    }

    // ---------------------------------------------------------------
    // Progress.

    /// Bytes read, all streams.
    #[must_use]
    pub fn delivered(&self) -> u64 {
        self.delivered
    }

    /// Bytes read on streams that never stall.
    #[must_use]
    pub fn delivered_unstalled(&self) -> u64 {
        self.delivered_unstalled
    }

    /// Per stream index: when its last byte was read.
    #[must_use]
    pub fn completion(&self) -> &[Option<Time>] {
        &self.completion
    }

    fn finished(&self, index: u64) -> bool {
        usize::try_from(index)
            .ok()
            .and_then(|i| self.completion.get(i))
            .is_some_and(Option::is_some)
    }

    /// True when every expected stream was read to its end (stalled
    /// readers do not count as done).
    #[must_use]
    pub fn all_streams_completed(&self) -> bool {
        self.completed == self.expected
    }

    /// True when every expected stream was read to its end, or its reader
    /// stopped for good.
    #[must_use]
    pub fn all_streams_read(&self, now: Time) -> bool {
        if self.completed == self.expected {
            return true;
        }
        let Some(stall) = self.reader.stall() else {
            return false;
        };
        if !stall.permanent() || self.completed + u64::from(stall.streams) < self.expected {
            return false;
        }
        (0..self.expected).all(|i| self.finished(i) || self.reader.stalled_for_good(i, now))
    }
}
