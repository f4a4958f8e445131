//! CoDel ("Controlled Delay") AQM state machine, RFC 8289.
//!
//! The RFC's `dequeue()` drops a run of packets inside one call; here the same
//! logic is written per packet: the queue asks [`Codel::should_drop`] once for
//! each packet at the moment it would start service (`now`) with the time it
//! spent queued (`sojourn`). Consecutive calls at the same `now` reproduce the
//! RFC's drop loop. Differences from the RFC's pseudocode (§5):
//! - The "queue holds at most one MTU" test (`bytes() <= maxpacket`) is left
//!   out: an analytic queue cannot see packets that arrive after `now`.
//! - `drop_next` advances when a packet is dropped in the dropping state,
//!   not after peeking at the next packet; the next packet's own decision
//!   still ends the dropping state if its sojourn is below target.

use std::time::Duration;

use crate::time::{Time, duration_to_nanos};

/// CoDel's two parameters (RFC 8289 §4.2–4.3).
///
/// Invariant: none beyond `Duration`'s; a zero `interval` makes the control
/// law drop every packet above target.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct CodelParams {
    /// Acceptable standing queue delay (RFC default 5 ms).
    pub target: Duration,
    /// Window in which the delay must drop below target (RFC default 100 ms).
    pub interval: Duration,
}

impl Default for CodelParams {
    /// RFC 8289 defaults: target 5 ms, interval 100 ms.
    fn default() -> Self {
        Self {
            target: Duration::from_millis(5),
            interval: Duration::from_millis(100),
        }
    }
}

/// CoDel's per-queue state (RFC 8289 §5.2 names).
///
/// Invariant: `dropping` implies `count >= 1`; `drop_next` is only
/// meaningful while `dropping` (and for the count-reuse test on re-entry).
#[derive(Clone, Debug)]
pub struct Codel {
    params: CodelParams,
    /// When the sojourn time first stayed above target plus one interval;
    /// `None` while below target (the RFC's `first_above_time == 0`).
    first_above_time: Option<Time>,
    /// In the dropping state.
    dropping: bool,
    /// When the next drop is due while dropping.
    drop_next: Time,
    /// Drops since entering the dropping state (drives the control law).
    count: u32,
    /// `count` when the last dropping state began.
    lastcount: u32,
    /// Packets this instance has told the queue to drop (or, when they
    /// are ECN-capable, to mark CE).
    drops: u64,
}

impl Codel {
    /// A CoDel instance in the non-dropping state.
    #[must_use]
    pub fn new(params: CodelParams) -> Self {
        Self {
            params,
            first_above_time: None,
            dropping: false,
            drop_next: Time::ZERO,
            count: 0,
            lastcount: 0,
            drops: 0,
        }
    }

    /// The parameters in use.
    #[must_use]
    pub fn params(&self) -> CodelParams {
        self.params
    }

    /// Packets dropped (or marked CE) so far.
    #[must_use]
    pub fn drops(&self) -> u64 {
        self.drops
    }

    /// `true` while in the dropping state.
    #[must_use]
    pub fn is_dropping(&self) -> bool {
        self.dropping
    }

    /// The control-law count (drops in the current or last dropping state).
    #[must_use]
    pub fn count(&self) -> u32 {
        self.count
    }

    /// RFC 8289 `control_law(t, count) = t + interval / sqrt(count)`, exact
    /// in integers: `floor(sqrt(floor(i^2 / c))) == floor(i / sqrt(c))`.
    fn control_law(&self, t: Time, count: u32) -> Time {
        let i = u128::from(duration_to_nanos(self.params.interval));
        let step = (i * i / u128::from(count.max(1))).isqrt();
        Time(t.0.saturating_add(u64::try_from(step).unwrap_or(u64::MAX)))
    }

    /// RFC 8289 `dodequeue` minus the dequeue: is this packet "ok to drop"
    /// (sojourn has stayed at or above target for at least one interval)?
    fn ok_to_drop(&mut self, now: Time, sojourn: Duration) -> bool {
        if sojourn < self.params.target {
            self.first_above_time = None;
            return false;
        }
        match self.first_above_time {
            None => {
                self.first_above_time = Some(now + self.params.interval);
                false
            }
            Some(t) => now >= t,
        }
    }

    /// Decides the fate of the packet at the head of the queue: `now` is when
    /// it would start service, `sojourn` how long it waited. Returns `true`
    /// if CoDel drops it. Calls must come in non-decreasing `now`.
    pub fn should_drop(&mut self, now: Time, sojourn: Duration) -> bool {
        let ok = self.ok_to_drop(now, sojourn);
        let drop = if self.dropping {
            if !ok {
                // Sojourn went below target: leave the dropping state.
                self.dropping = false;
                false
            } else if now >= self.drop_next {
                self.count = self.count.saturating_add(1);
                self.drop_next = self.control_law(self.drop_next, self.count);
                true
            } else {
                false
            }
        } else if ok {
            // Enter the dropping state. If we left it recently, resume near
            // the old drop rate instead of restarting at count 1 (§5.5).
            self.dropping = true;
            let delta = self.count.saturating_sub(self.lastcount);
            let recent = now - self.drop_next < self.params.interval.saturating_mul(16);
            self.count = if delta > 1 && recent { delta } else { 1 };
            self.lastcount = self.count;
            self.drop_next = self.control_law(now, self.count);
            true
        } else {
            false
        };
        if drop {
            self.drops += 1;
        }
        drop
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn control_law_exact() {
        let c = Codel::new(CodelParams::default());
        assert_eq!(c.control_law(Time(0), 1), Time(100 * MS));
        assert_eq!(c.control_law(Time(0), 4), Time(50 * MS));
        // 100 ms / sqrt(2) = 70,710,678.118... ns -> floor.
        assert_eq!(c.control_law(Time(1), 2), Time(1 + 70_710_678));
        assert_eq!(c.control_law(Time(0), 3), Time(57_735_026));
        assert_eq!(c.control_law(Time::MAX, 1), Time::MAX);
    }

    #[test]
    fn below_target_never_drops() {
        let mut c = Codel::new(CodelParams::default());
        for i in 0..10_000 {
            // 4.999 ms sojourn, forever.
            assert!(!c.should_drop(Time(i * MS), Duration::from_micros(4_999)));
        }
        assert_eq!(c.drops(), 0);
        assert!(!c.is_dropping());
    }

    #[test]
    fn first_drop_exactly_one_interval_after_going_above_target() {
        let mut c = Codel::new(CodelParams::default());
        let s = Duration::from_millis(5); // exactly target counts as above
        assert!(!c.should_drop(Time(10 * MS), s)); // first_above_time = 110 ms
        assert!(!c.should_drop(Time(110 * MS - 1), s));
        assert!(c.should_drop(Time(110 * MS), s));
        assert!(c.is_dropping());
        assert_eq!(c.count(), 1);
        // Next drop due 100 ms later (count 1), then at 100/sqrt(2) ms.
        assert!(!c.should_drop(Time(210 * MS - 1), s));
        assert!(c.should_drop(Time(210 * MS), s));
        assert_eq!(c.count(), 2);
        assert!(!c.should_drop(Time(210 * MS + 70_710_677), s));
        assert!(c.should_drop(Time(210 * MS + 70_710_678), s));
        assert_eq!(c.count(), 3);
        assert_eq!(c.drops(), 3);
    }

    #[test]
    fn one_packet_below_target_ends_dropping_and_resets_timer() {
        let mut c = Codel::new(CodelParams::default());
        let hi = Duration::from_millis(20);
        assert!(!c.should_drop(Time(0), hi));
        assert!(c.should_drop(Time(100 * MS), hi));
        assert!(!c.should_drop(Time(101 * MS), Duration::from_millis(1)));
        assert!(!c.is_dropping());
        // Above target again: a full interval must pass before dropping.
        assert!(!c.should_drop(Time(102 * MS), hi));
        assert!(!c.should_drop(Time(201 * MS), hi));
        assert!(c.should_drop(Time(202 * MS), hi));
    }

    #[test]
    fn reentry_soon_after_reuses_count() {
        let mut c = Codel::new(CodelParams::default());
        let hi = Duration::from_millis(20);
        let mut now = Time(0);
        c.should_drop(now, hi);
        // Stay above target long enough to reach count 4.
        while c.count() < 4 {
            now = Time(now.0 + MS);
            c.should_drop(now, hi);
        }
        assert_eq!(c.drops(), 4);
        // Leave, then re-enter one interval later: delta = 4 - 1 = 3 > 1.
        now = Time(now.0 + MS);
        assert!(!c.should_drop(now, Duration::ZERO));
        now = Time(now.0 + MS);
        c.should_drop(now, hi);
        now = Time(now.0 + 100 * MS);
        assert!(c.should_drop(now, hi));
        assert_eq!(c.count(), 3);
    }
}
