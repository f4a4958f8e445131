//! Growing for delay the path adds: a probe paid for by the read rate.
//!
//! The excess rule divides by the minimum RTT, so a reader held back by a
//! credit loop longer than that (jitter, a queue someone else holds) looks
//! like a slow one and the window stops short. Dividing by the smoothed RTT
//! instead would also count our own queue, and a window that buys delay
//! grows into it without end (`bufferbloat`). No delay figure tells the two
//! apart: a reader that credit holds back reads `window / loop` either way.
//! What more window buys does: where the delay is the path's, the reader
//! then reads faster; where it is our own queue, the link is already full
//! and the rate stays.
//!
//! So the smoothed RTT only starts a probe. The controller samples the read
//! rate once per loop (a smoothed RTT) and judges rates over the latest two
//! loops (one alone swings by a twentieth as steps fall on either side of
//! its end). At a tuning step where
//! - the excess rule keeps the window,
//! - in each of the last two loops credit held the peer back (it sent up to
//!   the limit it had when the loop began, within a quantum) and the window
//!   did not change (a rate, not a ramp), and
//! - the same rule over the last two loops and the smoothed RTT sees an
//!   excess,
//!
//! the window grows by that excess times the bonus, at most
//! [`crate::ExcessTuner::probe_step`] of itself. The two loops that start
//! half a loop or more after the probe, once the new credit can have
//! brought data, judge it: it pays if credit still held the peer and the
//! rate rose by at least a sixteenth of the window's relative rise, and
//! another may follow. If not, the growth stays (a window only shrinks by a
//! budget) and probing holds until two loops read an eighth faster than the
//! better of the rates before and after (a congestion window or the excess
//! rule made room), or until, with credit holding the peer back in both and
//! the window unchanged, two loops after the verdict read an eighth slower:
//! the same credit now takes longer to come back, so the path's delay grew
//! (a queue someone else holds, more jitter) and more window may pay again.
//!
//! Bound. A probe starts only while `delivered / loops > effective(window)
//! / smoothed_rtt`, so it leaves the window below `(1 + step) × rate ×
//! smoothed_rtt / ((1 − f) × (1 − headroom))`. Where our own queue makes the
//! smoothed RTT, that bound moves with the window and the rate bounds it
//! instead: the link is full, the probe does not pay, and none follows until
//! the rate rises by an eighth, which a full link does not, or falls by an
//! eighth under the same binding window, which our own queue does not cause
//! (a fixed window that binds holds a fixed queue on a full link). A full
//! link thus costs one step beyond the excess rule's fixed point; each probe
//! that paid raised the rate by at least a sixteenth of its step, so a peer
//! cannot buy window without delivering more, and one that slows down to
//! start a probe again gets one step for each eighth of its rate it gives
//! up, within the bound above.
//!
//! Why a sixteenth: under jitter the read rate answers a window's rise
//! only weakly in the two loops that judge it, and a verdict that holds is
//! not revisited; a full link's rate does not rise at all, so the smaller
//! share costs no window there (measured in `docs/tuner.md`).
//!
//! A wrong verdict is not undone: heavy jitter can make a loop read slower
//! after a probe that helped, and probing then holds until the rate rises
//! or falls by an eighth.

use std::time::{Duration, Instant};

use crate::math;

/// A paid probe raised the rate by at least `1 / PAY_DIVISOR` of the
/// window's relative rise.
const PAY_DIVISOR: u64 = 16;

/// A held probe may start again once a loop reads this much faster than the
/// held rate (as `num / den` above it).
const UNHOLD: (u64, u64) = (1, 8);

/// ... or, with credit still holding the peer back, this much slower (as
/// `num / den` below it): the path's delay grew.
const FALL: (u64, u64) = (1, 8);

/// Bytes read over a span of time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Rate {
    bytes: u64,
    over: Duration,
}

impl Rate {
    /// Bytes per second.
    fn per_second(self) -> u64 {
        math::mul_div(self.bytes, 1_000_000_000, math::nanos(self.over))
    }

    /// Whether `self ≥ other × (1 + num / den)`.
    fn at_least(self, other: Self, num: u64, den: u64) -> bool {
        self.per_second() >= math::mul_div(other.per_second(), den.saturating_add(num), den)
    }

    /// Whether `self < other × (1 − num / den)`, `num ≤ den`.
    fn below(self, other: Self, num: u64, den: u64) -> bool {
        self.per_second() < math::mul_div(other.per_second(), den - num.min(den), den)
    }
}

/// A controller's books at a tuning step, as the probe reads them.
#[derive(Clone, Copy, Debug)]
pub(super) struct Books {
    /// Bytes read.
    pub(super) retired: u64,
    /// Highest offset received.
    pub(super) consumed: u64,
    /// The limit advertised.
    pub(super) limit: u64,
    /// How far below a loop-old limit the peer may stay and still count as
    /// held by it: the update quantum.
    pub(super) slack: u64,
    /// The window.
    pub(super) window: u64,
}

/// Where the current loop started.
#[derive(Clone, Copy, Debug)]
struct Mark {
    at: Instant,
    retired: u64,
    limit: u64,
    window: u64,
}

impl Mark {
    const fn new(at: Instant, books: Books) -> Self {
        Self {
            at,
            retired: books.retired,
            limit: books.limit,
            window: books.window,
        }
    }
}

/// Where a probe stands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum State {
    /// A probe may start.
    #[default]
    Idle,
    /// A probe grew the window from `window_before` at `since`, when the
    /// loops before read at `rate_before`; `judged` loops have closed since
    /// the new credit could bring data.
    Waiting {
        since: Instant,
        window_before: u64,
        rate_before: Rate,
        judged: u8,
    },
    /// The last probe did not pay: no other until the loops read an eighth
    /// faster than `rate`, or, held by credit, an eighth slower; `loops`
    /// have closed since (counted up to [`LOOPS`]).
    Held { rate: Rate, loops: u8 },
}

/// Loops a rate is measured over: one alone swings by a twentieth as steps
/// fall on either side of a loop's end.
const LOOPS: u8 = 2;

/// The read rate, sampled per loop (a smoothed RTT), and the probe.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct DelayProbe {
    mark: Option<Mark>,
    /// The latest complete loops, newest first.
    loops: [Option<Rate>; LOOPS as usize],
    /// In the latest complete loop the peer reached the limit it had at its
    /// start (within the slack).
    held_by_credit: bool,
    /// Loops in a row that credit held the peer back with the window
    /// unchanged: a rate, not a ramp.
    steady: u8,
    state: State,
}

impl DelayProbe {
    /// At a tuning step: closes the loop if one smoothed RTT has passed, and
    /// judges a waiting probe. If a probe may start now, the bytes read and
    /// the time over the latest [`LOOPS`] loops, to judge the need on.
    pub(super) fn step(
        &mut self,
        now: Instant,
        books: Books,
        loop_time: Duration,
    ) -> Option<(u64, Duration)> {
        let Some(mark) = self.mark else {
            self.mark = Some(Mark::new(now, books));
            return None;
        };
        let over = now.saturating_duration_since(mark.at);
        if over >= loop_time && !over.is_zero() {
            let rate = Rate {
                bytes: books.retired - mark.retired,
                over,
            };
            self.held_by_credit = books.consumed.saturating_add(books.slack) >= mark.limit;
            self.steady = if self.held_by_credit && books.window == mark.window {
                self.steady.saturating_add(1)
            } else {
                0
            };
            self.mark = Some(Mark::new(now, books));
            self.loops.rotate_right(1);
            self.loops[0] = Some(rate);
            self.judge(mark.at, books.window, loop_time);
        }
        let rate = self.rate()?;
        (self.state == State::Idle && self.steady >= LOOPS).then_some((rate.bytes, rate.over))
    }

    /// The rate over the latest [`LOOPS`] loops.
    fn rate(&self) -> Option<Rate> {
        self.loops.iter().try_fold(
            Rate {
                bytes: 0,
                over: Duration::ZERO,
            },
            |sum, r| {
                r.map(|r| Rate {
                    bytes: sum.bytes.saturating_add(r.bytes),
                    over: sum.over.saturating_add(r.over),
                })
            },
        )
    }

    /// Moves the probe on once the loop from `start` closed.
    fn judge(&mut self, start: Instant, window: u64, loop_time: Duration) {
        let Some(rate) = self.rate() else {
            return;
        };
        match self.state {
            State::Waiting {
                since,
                window_before,
                rate_before,
                judged,
            } if since.checked_add(loop_time / 2).is_some_and(|t| start >= t) => {
                if judged + 1 < LOOPS {
                    self.state = State::Waiting {
                        since,
                        window_before,
                        rate_before,
                        judged: judged + 1,
                    };
                    return;
                }
                let rise = window.saturating_sub(window_before);
                let den = window_before.saturating_mul(PAY_DIVISOR).max(1);
                self.state = if self.held_by_credit && rate.at_least(rate_before, rise, den) {
                    State::Idle
                } else {
                    // The better of the two: a dip while judged (a loss) must
                    // not make the recovery after it look like room.
                    State::Held {
                        rate: if rate.at_least(rate_before, 0, 1) {
                            rate
                        } else {
                            rate_before
                        },
                        loops: 0,
                    }
                };
            }
            State::Held { rate: held, loops } => {
                let loops = loops.saturating_add(1).min(LOOPS);
                // A fall counts over loops that all closed after the verdict
                // (a dip while judged is not the path's delay), in each of
                // which credit held the peer back under the same window.
                let fell =
                    loops >= LOOPS && self.steady >= LOOPS && rate.below(held, FALL.0, FALL.1);
                self.state = if fell || rate.at_least(held, UNHOLD.0, UNHOLD.1) {
                    State::Idle
                } else {
                    State::Held { rate: held, loops }
                };
            }
            _ => {}
        }
    }

    /// A probe grew the window from `window_before` at `now`; a new loop
    /// starts.
    pub(super) fn started(&mut self, now: Instant, books: Books, window_before: u64) {
        if let Some(rate_before) = self.rate() {
            self.state = State::Waiting {
                since: now,
                window_before,
                rate_before,
                judged: 0,
            };
            self.mark = Some(Mark::new(now, books));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOOP: Duration = Duration::from_millis(100);

    /// Drives a probe through loops of exactly one `LOOP`, the peer reading
    /// `per_loop` bytes each and sending up to the limit (`held`) or not.
    struct Driver {
        probe: DelayProbe,
        t0: Instant,
        now: Duration,
        retired: u64,
        window: u64,
    }

    impl Driver {
        fn new(window: u64) -> Self {
            let mut d = Self {
                probe: DelayProbe::default(),
                t0: Instant::now(),
                now: Duration::ZERO,
                retired: 0,
                window,
            };
            let _ = d.probe.step(d.t0, d.books(d.window), LOOP);
            d
        }

        fn books(&self, consumed: u64) -> Books {
            Books {
                retired: self.retired,
                consumed,
                limit: self.retired + self.window,
                slack: self.window / 4,
                window: self.window,
            }
        }

        /// One loop: what a probe may start on at its end.
        fn read_loop(&mut self, per_loop: u64, held: bool) -> Option<(u64, Duration)> {
            let limit_before = self.retired + self.window;
            self.retired += per_loop;
            self.now += LOOP;
            let consumed = if held {
                limit_before
            } else {
                limit_before - self.window / 2
            };
            self.probe
                .step(self.t0 + self.now, self.books(consumed), LOOP)
        }

        /// Three steady loops at 800_000 bytes, then a probe of 1/16 on a
        /// window of 1_000_000.
        fn probed() -> Self {
            let mut d = Self::new(1_000_000);
            for _ in 0..3 {
                d.read_loop(800_000, true);
            }
            d.grow(62_500);
            d
        }

        fn grow(&mut self, by: u64) {
            let before = self.window;
            self.window += by;
            self.probe
                .started(self.t0 + self.now, self.books(self.retired), before);
        }
    }

    #[test]
    fn starts_only_after_two_steady_loops_held_by_credit() {
        let mut d = Driver::new(1_000_000);
        assert_eq!(d.read_loop(800_000, true), None);
        // A loop the peer did not use its credit breaks the streak.
        assert_eq!(d.read_loop(800_000, false), None);
        assert_eq!(d.read_loop(800_000, true), None);
        assert_eq!(d.read_loop(800_000, true), Some((1_600_000, 2 * LOOP)));
        // A window that grew meanwhile (a ramp) restarts it.
        d.window += 1;
        assert_eq!(d.read_loop(800_000, true), None);
        assert_eq!(d.read_loop(800_000, true), None);
        assert!(d.read_loop(800_000, true).is_some());
    }

    #[test]
    fn a_probe_pays_when_the_rate_rises_with_the_window() {
        // +1/16 of the window pays with a rate 1/16 × 1/16 higher over the
        // two loops that judge it (803_125 per loop against 800_000), not less.
        for (per_loop, paid) in [(803_125, true), (803_124, false)] {
            let mut d = Driver::probed();
            // The loop that starts at the probe is not judged; the next two are.
            assert_eq!(d.read_loop(800_000, true), None);
            assert_eq!(d.read_loop(per_loop, true), None);
            let after = d.read_loop(per_loop, true);
            assert_eq!(after, paid.then_some((2 * per_loop, 2 * LOOP)));
        }
    }

    #[test]
    fn a_probe_the_rate_does_not_pay_holds_until_the_rate_rises_an_eighth() {
        let mut d = Driver::probed();
        for _ in 0..3 {
            assert_eq!(d.read_loop(800_000, true), None);
        }
        // Held: a full link reads no faster, however long.
        for _ in 0..50 {
            assert_eq!(d.read_loop(800_000, true), None);
        }
        // Two loops an eighth faster (someone made room): free again.
        assert_eq!(d.read_loop(900_000, true), None);
        assert_eq!(d.read_loop(900_000, true), Some((1_800_000, 2 * LOOP)));
    }

    #[test]
    fn a_held_probe_starts_again_when_credit_holds_a_rate_an_eighth_lower() {
        // The path's delay grew under an unchanged window (someone else's
        // queue): the same credit now reads an eighth slower.
        for (per_loop, again) in [(699_999, true), (700_000, false)] {
            let mut d = Driver::probed();
            for _ in 0..3 {
                d.read_loop(800_000, true);
            }
            assert_eq!(d.read_loop(per_loop, true), None);
            let after = d.read_loop(per_loop, true);
            assert_eq!(after, again.then_some((2 * per_loop, 2 * LOOP)));
        }
    }

    #[test]
    fn a_slower_rate_the_peer_chose_does_not_start_a_held_probe() {
        // The peer left credit unused (a congestion window after a loss).
        let mut d = Driver::probed();
        for _ in 0..3 {
            d.read_loop(800_000, true);
        }
        for _ in 0..5 {
            assert_eq!(d.read_loop(500_000, false), None);
        }
        // Back to the held rate: still held.
        for _ in 0..5 {
            assert_eq!(d.read_loop(800_000, true), None);
        }
    }

    #[test]
    fn a_dip_while_judged_is_not_taken_for_room_after_it() {
        let mut d = Driver::probed();
        d.read_loop(800_000, true);
        d.read_loop(400_000, true);
        d.read_loop(400_000, true);
        // Back to the rate before the probe: no faster than that, still held.
        for _ in 0..5 {
            assert_eq!(d.read_loop(800_000, true), None);
        }
    }
}
