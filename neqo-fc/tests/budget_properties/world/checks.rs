//! The invariants checked after every operation.

use neqo_fc::{ChangeReason, Error, Fraction, MAX_VARINT, Subject, UpdateFrame};

use super::{Snapshot, World};
use crate::{BIDI, IDS, sid};

impl World {
    /// The seeds the streams a frame on `id` opens should get, in the order
    /// they open (lowest index first): `max(initial, seed × basis)` capped
    /// by `initial + room`, where the basis is the estimate with a budget
    /// (the connection window without) and the room is the growth budget
    /// less the credit beyond the initial window summed over open streams.
    /// Each opening may raise the estimate (1.5 × a seed) and the
    /// connection window (its floor) before the next.
    pub(super) fn expected_seeds(&self, id: u64) -> Vec<(u64, u64)> {
        let c = self.rx.flow().config();
        let initial = c.initial_stream_window;
        let excess = self.excess();
        let mut estimate = self.rx.flow().estimate();
        let mut conn_window = self.rx.flow().connection().window();
        let mut largest = self.rx.flow().largest_window();
        let same_type = if id < BIDI { 0..BIDI } else { BIDI..IDS };
        let mut out = Vec::new();
        for k in same_type.filter(|&k| k <= id && !self.seen.contains(&k)) {
            let seed = match c.budget {
                Some(b) => {
                    let room = b.limit(estimate, 0, 0).saturating_sub(excess);
                    c.seed_window(estimate).min(initial.saturating_add(room))
                }
                None => c.seed_window(conn_window),
            };
            if seed != initial {
                estimate = estimate.max(c.connection_floor.of_ceil(seed));
            }
            largest = largest.max(seed);
            conn_window = conn_window.max(c.connection_floor.of_ceil(largest));
            out.push((k, seed));
        }
        out
    }

    pub(super) fn check_seeds(&self, expected: &[(u64, u64)]) {
        if self.checks.seeds {
            for &(k, seed) in expected {
                // (One reset on its first frame is closed already.)
                let Some(s) = self.rx.stream(sid(k)) else {
                    continue;
                };
                assert_eq!(s.window(), seed, "seed of {:?}", sid(k));
                assert_eq!(s.limit(), self.rx.flow().config().initial_stream_window);
            }
        }
    }

    /// `Σ max(0, credit − initial_stream_window)` over open streams.
    pub(super) fn excess(&self) -> u64 {
        let initial = self.rx.flow().config().initial_stream_window;
        self.open_ids()
            .map(|id| self.rx.stream(id).unwrap().credit().saturating_sub(initial))
            .sum()
    }

    /// A failing call leaves every stream open before as it was, and the
    /// connection's books and the committed credit; the only change
    /// allowed is the streams a frame opens (their ids were valid), each
    /// fresh with its initial credit — and through them the connection
    /// window (see `failed_data_on_a_new_stream_accounts_nothing_at_the_connection`
    /// in `connection_receiver/errors.rs`).
    pub(super) fn failed(&self, e: Option<Error>, before: Option<&Snapshot>) {
        let Some(e) = e else {
            return;
        };
        assert!(matches!(e.code(), 0x01 | 0x03 | 0x04 | 0x06 | 0x07), "{e}");
        let Some(before) = before else {
            return;
        };
        let after = self.snapshot();
        let newly: Vec<u64> = (0..IDS)
            .filter(|&k| {
                before.streams[k as usize].is_none() && after.streams[k as usize].is_some()
            })
            .collect();
        if newly.is_empty() {
            assert_eq!(&after, before, "{e} changed state");
            return;
        }
        assert!(
            !matches!(e, Error::StreamLimit { .. }),
            "{e} opened {newly:?}"
        );
        let initial = self.rx.flow().config().initial_stream_window;
        for k in 0..IDS {
            if before.streams[k as usize].is_some() {
                assert_eq!(after.streams[k as usize], before.streams[k as usize], "{e}");
            }
        }
        for &k in &newly {
            let s = self.rx.stream(sid(k)).unwrap();
            assert_eq!(
                (s.limit(), s.consumed(), s.retired(), s.final_size()),
                (initial, 0, 0, None),
                "{e}: opened {k}"
            );
        }
        assert_eq!(after.connection_books, before.connection_books, "{e}");
        assert_eq!(after.stream_count, before.stream_count + newly.len(), "{e}");
        assert_eq!(
            after.committed,
            before.committed + newly.len() as u64 * initial,
            "{e}"
        );
    }

    /// Frames whose latest limit was lost.
    pub(super) fn resend_pending(&self) -> Vec<UpdateFrame> {
        let conn = self.rx.flow().connection();
        conn.resend_pending()
            .then(|| UpdateFrame::MaxData(conn.limit()))
            .into_iter()
            .chain(self.open_ids().filter_map(|id| {
                let s = self.rx.stream(id).unwrap();
                s.resend_pending().then(|| UpdateFrame::MaxStreamData {
                    id,
                    limit: s.limit(),
                })
            }))
            .collect()
    }

    /// Connection window ≥ ⌈1.5 × largest open stream window⌉ and (with a
    /// budget) covers the credit it stands behind: the bytes parked unread
    /// and the credit beyond the promises over `1 − f`, plus the rest of the
    /// committed credit up to the estimate; at once after every call but
    /// data arrival, and within an update threshold (`f × window`) after
    /// data arrival.
    pub(super) fn check_floor(&self, when: &dyn std::fmt::Debug) {
        if !self.checks.floor {
            return;
        }
        let c = self.rx.flow().config();
        let largest = self
            .open_ids()
            .map(|id| self.rx.stream(id).unwrap().window())
            .max()
            .unwrap_or(0);
        let w = self.rx.flow().connection().window();
        // Both floors saturate at 2^62 − 1, the largest window (reached only
        // with windows near 2^62 / streams; the credit itself is never
        // above it).
        let need = c.connection_floor.of_ceil(largest).min(MAX_VARINT);
        assert!(
            w >= need,
            "after {when:?}: connection window {w} < ⌈1.5 × {largest}⌉ = {need}"
        );
        if c.budget.is_some() {
            let committed = self.rx.flow().committed();
            let parked = committed.min(
                self.rx
                    .flow()
                    .connection()
                    .unretired()
                    .saturating_add(self.excess()),
            );
            let active = (committed - parked).min(self.rx.flow().estimate());
            let need = lag_floor(parked, c.update_fraction)
                .saturating_add(active)
                .min(MAX_VARINT);
            let slack = c.update_fraction.of(w);
            assert!(
                w.saturating_add(slack) >= need,
                "after {when:?}: connection window {w} (+ {slack}) < credit floor {need}"
            );
        }
    }

    /// Records the largest stream window (including ones a budget cut in
    /// the same call: the floor may follow those) and committed credit so
    /// far, and checks every reported change: `old != new`, the caller's
    /// time, and a reason that fits the subject.
    pub(super) fn observe(&mut self) {
        for id in 0..IDS {
            if let Some(s) = self.rx.stream(sid(id)) {
                self.max_stream_window = self.max_stream_window.max(s.window());
            }
        }
        self.max_committed = self.max_committed.max(self.rx.flow().committed());
        let now = self.instant();
        for c in self.rx.drain_changes() {
            assert_ne!(c.old, c.new, "{c}");
            // Opening a stream (a seed, and the floor that covers it) takes
            // no time; everything else happens at the caller's time.
            assert!(c.now.is_none_or(|t| t == now), "{c}");
            assert!(
                c.now.is_some()
                    || matches!(c.reason, ChangeReason::Seed | ChangeReason::ConnectionFloor),
                "{c}"
            );
            match c.subject {
                Subject::Stream(_) => {
                    assert_ne!(c.reason, ChangeReason::ConnectionFloor, "{c}");
                    self.max_stream_window = self.max_stream_window.max(c.new);
                }
                Subject::Connection => assert!(
                    matches!(
                        c.reason,
                        ChangeReason::AutoTune | ChangeReason::ConnectionFloor
                    ),
                    "{c}"
                ),
            }
        }
    }

    pub(super) fn check(&mut self, after: &dyn std::fmt::Debug) {
        self.observe();
        let rx = &self.rx;
        let c = *rx.flow().config();
        if self.checks.budget
            && let Some(b) = c.budget
        {
            assert!(
                rx.flow().committed() <= rx.flow().budget(),
                "after {after:?}: committed {} > budget {}",
                rx.flow().committed(),
                rx.flow().budget()
            );
            let growth = b.limit(rx.flow().estimate(), 0, 0);
            // The promised part counts the streams open now (the old budget
            // counted `max_streams` slots, open or not).
            assert_eq!(
                rx.flow().budget(),
                b.limit(
                    rx.flow().estimate(),
                    rx.streams().count() as u64,
                    c.initial_stream_window
                )
            );
            let excess = self.excess();
            assert!(
                excess <= growth,
                "after {after:?}: credit beyond the initial windows {excess} > growth {growth}"
            );
            assert!(
                growth >= self.growth && rx.flow().estimate() >= self.estimate,
                "after {after:?}: growth budget {} -> {growth}, estimate {} -> {}",
                self.growth,
                self.estimate,
                rx.flow().estimate()
            );
            self.growth = growth;
            self.estimate = rx.flow().estimate();
        }
        if c.budget.is_none() {
            assert_eq!(rx.flow().budget(), u64::MAX);
        }
        if self.checks.committed_sum {
            let sum: u64 = self
                .open_ids()
                .map(|id| rx.stream(id).unwrap().credit())
                .sum();
            assert_eq!(rx.flow().committed(), sum, "after {after:?}");
            assert_eq!(rx.streams().count(), self.open_ids().count());
        }
        if self.checks.monotonic {
            let conn = rx.flow().connection().limit();
            assert!(
                conn >= self.conn_limit,
                "after {after:?}: MAX_DATA {} -> {conn}",
                self.conn_limit
            );
            self.conn_limit = conn;
            for id in 0..IDS {
                if let Some(s) = rx.stream(sid(id)) {
                    let old = self.limits.insert(id, s.limit()).unwrap_or(0);
                    assert!(
                        s.limit() >= old,
                        "after {after:?}: stream {id} limit {old} -> {}",
                        s.limit()
                    );
                    assert!(s.retired() <= s.consumed() && s.consumed() <= s.limit());
                }
            }
        }
        if self.checks.caps {
            let stream_cap = c.max_stream_window;
            for id in 0..IDS {
                if let Some(s) = rx.stream(sid(id)) {
                    assert!(
                        s.window() <= stream_cap,
                        "after {after:?}: stream {id} window {} > cap {stream_cap}",
                        s.window()
                    );
                }
            }
            let bound = c
                .max_connection_window
                .max(c.initial_connection_window)
                .max(c.connection_floor.of_ceil(self.max_stream_window))
                .max(if c.budget.is_some() {
                    lag_floor(self.max_committed, c.update_fraction)
                } else {
                    0
                });
            let w = rx.flow().connection().window();
            assert!(
                w <= bound,
                "after {after:?}: connection window {w} > {bound}"
            );
        }
    }
}

/// `⌈committed × den / (den − num)⌉`, as the receiver computes its floor.
fn lag_floor(parked: u64, f: Fraction) -> u64 {
    let usable = u64::from(f.den() - f.num()).max(1);
    let v = (u128::from(parked) * u128::from(f.den())).div_ceil(u128::from(usable));
    u64::try_from(v).unwrap_or(u64::MAX)
}
