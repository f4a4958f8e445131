//! Random loss: independent (Bernoulli) or bursty (Gilbert–Elliott).
//!
//! Gilbert–Elliott is a two-state Markov chain (E. N. Gilbert, "Capacity of a
//! burst-noise channel", 1960; E. O. Elliott, 1963): in state Good a datagram
//! is lost with probability `loss_good`, in state Bad with `loss_bad`; after
//! each datagram the chain moves Good→Bad with probability `p` and Bad→Good
//! with probability `r`. With `loss_good = 0` and `loss_bad = 1` (the simple
//! Gilbert model) the stationary loss rate is `p / (p + r)` and loss bursts
//! are geometric with mean length `1 / r`.

use std::{fmt, time::Duration};

use super::element::{DropReason, Element, Verdict};
use crate::rng::Rng;
use crate::time::Time;

/// A loss parameter outside its valid range.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum LossError {
    /// A probability not in `[0, 1]` (or NaN); names the parameter.
    Probability(&'static str, f64),
    /// A mean loss rate not in `[0, 1)` (or NaN).
    MeanRate(f64),
    /// A mean burst length below 1 (or NaN).
    MeanBurst(f64),
    /// The mean rate and burst length cannot both hold with loss-free good
    /// periods: needs `mean_rate / (1 - mean_rate) <= mean_burst`.
    Unreachable {
        /// Requested mean loss rate.
        mean_rate: f64,
        /// Requested mean burst length.
        mean_burst: f64,
    },
}

impl fmt::Display for LossError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Probability(name, v) => write!(f, "{name} = {v} is not a probability in [0, 1]"),
            Self::MeanRate(v) => write!(f, "mean loss rate {v} is not in [0, 1)"),
            Self::MeanBurst(v) => write!(f, "mean burst length {v} is below 1"),
            Self::Unreachable {
                mean_rate,
                mean_burst,
            } => write!(
                f,
                "a mean loss rate of {mean_rate} needs a mean burst length of at least {}, got {mean_burst}",
                mean_rate / (1.0 - mean_rate)
            ),
        }
    }
}

impl std::error::Error for LossError {}

/// Checks that `v` is a probability.
fn probability(name: &'static str, v: f64) -> Result<f64, LossError> {
    if (0.0..=1.0).contains(&v) {
        Ok(v)
    } else {
        Err(LossError::Probability(name, v))
    }
}

/// Gilbert–Elliott two-state loss process.
///
/// Invariant: all four probabilities are in `[0, 1]`; the chain starts in
/// Good.
#[derive(Clone, Debug, PartialEq)]
pub struct GilbertElliott {
    p_good_to_bad: f64,
    p_bad_to_good: f64,
    loss_good: f64,
    loss_bad: f64,
    in_bad: bool,
    /// Length of one step of the chain in time (0: one step per datagram,
    /// however far apart).
    slot_ns: u64,
    /// When the last datagram was seen.
    last: Option<Time>,
}

impl GilbertElliott {
    /// The raw four-parameter form: transition probabilities `p` (Good→Bad)
    /// and `r` (Bad→Good) per datagram, and the loss probability in each state.
    ///
    /// # Errors
    /// [`LossError::Probability`] if any parameter is not in `[0, 1]`.
    pub fn new(p: f64, r: f64, loss_good: f64, loss_bad: f64) -> Result<Self, LossError> {
        Ok(Self {
            p_good_to_bad: probability("p", p)?,
            p_bad_to_good: probability("r", r)?,
            loss_good: probability("loss_good", loss_good)?,
            loss_bad: probability("loss_bad", loss_bad)?,
            in_bad: false,
            slot_ns: 0,
            last: None,
        })
    }

    /// The simple Gilbert model with a given long-run loss rate and mean loss
    /// burst length (in datagrams): every datagram in Bad is lost, none in
    /// Good; `r = 1 / mean_burst`, `p = r * mean_rate / (1 - mean_rate)`.
    ///
    /// # Errors
    /// [`LossError::MeanRate`] unless `0 <= mean_rate < 1`;
    /// [`LossError::MeanBurst`] unless `mean_burst >= 1`;
    /// [`LossError::Unreachable`] if that would need `p > 1`.
    pub fn from_mean(mean_rate: f64, mean_burst: f64) -> Result<Self, LossError> {
        if !(0.0..1.0).contains(&mean_rate) {
            return Err(LossError::MeanRate(mean_rate));
        }
        if mean_burst.is_nan() || mean_burst < 1.0 {
            return Err(LossError::MeanBurst(mean_burst));
        }
        let r = 1.0 / mean_burst;
        let p = r * mean_rate / (1.0 - mean_rate);
        if p > 1.0 {
            return Err(LossError::Unreachable {
                mean_rate,
                mean_burst,
            });
        }
        Self::new(p, r, 0.0, 1.0)
    }

    /// Like [`from_mean`](Self::from_mean) but never fails: NaN becomes 0,
    /// the rate is clamped to `[0, 1)`, the burst to at least 1, and an
    /// unreachable pair keeps the burst length and gets the highest rate it
    /// allows (`p = 1`).
    #[must_use]
    pub fn from_mean_clamped(mean_rate: f64, mean_burst: f64) -> Self {
        let rate = if mean_rate.is_nan() {
            0.0
        } else {
            mean_rate.clamp(0.0, 1.0)
        };
        let burst = if mean_burst.is_nan() {
            1.0
        } else {
            mean_burst.max(1.0)
        };
        let r = 1.0 / burst;
        let p = if rate >= 1.0 {
            1.0
        } else {
            (r * rate / (1.0 - rate)).min(1.0)
        };
        Self {
            p_good_to_bad: p,
            p_bad_to_good: r,
            loss_good: 0.0,
            loss_bad: 1.0,
            in_bad: false,
            slot_ns: 0,
            last: None,
        }
    }

    /// The same chain with one step per `slot` of time as well as per
    /// datagram: a datagram that arrives `k` slots after the previous one
    /// sees the chain `k` steps on, so idle time ends a loss burst as
    /// traffic would. Without it a burst outlasts any pause — a sender
    /// backing off its probe timeout (seconds apart) would lose probe after
    /// probe for as long as at line rate (`mean_burst` datagrams), which no
    /// real bursty link does. `Duration::ZERO` keeps one step per datagram.
    #[must_use]
    pub fn with_slot(mut self, slot: Duration) -> Self {
        self.slot_ns = u64::try_from(slot.as_nanos()).unwrap_or(u64::MAX);
        self
    }

    /// Probability of being in Bad after `steps` more steps of the chain
    /// from the current state: with `λ = 1 − p − r` and the stationary Bad
    /// share `π = p / (p + r)`, `π + (1 − π) λⁿ` from Bad and `π (1 − λⁿ)`
    /// from Good.
    fn bad_after(&self, steps: u64) -> f64 {
        let (p, r) = (self.p_good_to_bad, self.p_bad_to_good);
        let now = if self.in_bad { 1.0 } else { 0.0 };
        if steps == 0 || p + r == 0.0 {
            return now;
        }
        let pi = p / (p + r);
        let n = i32::try_from(steps.min(1 << 20)).unwrap_or(i32::MAX);
        let decay = (1.0 - p - r).powi(n);
        (pi + (now - pi) * decay).clamp(0.0, 1.0)
    }

    /// Steps the chain over `steps` idle slots in one draw.
    fn skip(&mut self, steps: u64, rng: &mut Rng) {
        if steps > 0 {
            self.in_bad = rng.chance(self.bad_after(steps));
        }
    }

    /// Long-run loss rate of the chain: `(r * loss_good + p * loss_bad) / (p + r)`
    /// (`loss_good` if the chain never leaves Good).
    #[must_use]
    pub fn mean_rate(&self) -> f64 {
        let (p, r) = (self.p_good_to_bad, self.p_bad_to_good);
        if p + r == 0.0 {
            return self.loss_good;
        }
        (r * self.loss_good + p * self.loss_bad) / (p + r)
    }

    /// `true` while in the Bad state.
    #[must_use]
    pub fn in_bad(&self) -> bool {
        self.in_bad
    }

    /// Decides one datagram's fate in the current state, then steps the chain.
    pub fn lose(&mut self, rng: &mut Rng) -> bool {
        self.lose_at(None, rng)
    }

    /// As [`GilbertElliott::lose`] for a datagram arriving `at`: with a
    /// slot set, first steps the chain over the idle slots since the
    /// previous datagram (none for back-to-back datagrams, whose results
    /// are then the same as without a slot).
    pub fn lose_at(&mut self, at: Option<Time>, rng: &mut Rng) -> bool {
        if let (Some(now), Some(last)) = (at, self.last)
            && self.slot_ns > 0
        {
            let idle_steps = now.as_nanos().saturating_sub(last.as_nanos()) / self.slot_ns;
            self.skip(idle_steps.saturating_sub(1), rng);
        }
        if at.is_some() {
            self.last = at;
        }
        let lost = rng.chance(if self.in_bad {
            self.loss_bad
        } else {
            self.loss_good
        });
        let flip = rng.chance(if self.in_bad {
            self.p_bad_to_good
        } else {
            self.p_good_to_bad
        });
        self.in_bad ^= flip;
        lost
    }
}

/// Which random process decides losses.
#[derive(Clone, Debug, PartialEq)]
enum Model {
    Bernoulli(f64),
    GilbertElliott(GilbertElliott),
}

/// Drops datagrams at random; never delays them.
///
/// Invariant: `drops <= packets`; a drop consumes no time.
#[derive(Clone, Debug)]
pub struct RandomLoss {
    model: Model,
    packets: u64,
    drops: u64,
}

impl RandomLoss {
    /// Independent loss with probability `rate` per datagram.
    ///
    /// # Errors
    /// [`LossError::Probability`] unless `0 <= rate <= 1`.
    pub fn bernoulli(rate: f64) -> Result<Self, LossError> {
        Ok(Self::with_model(Model::Bernoulli(probability(
            "rate", rate,
        )?)))
    }

    /// Bursty loss from a Gilbert–Elliott chain.
    #[must_use]
    pub fn gilbert_elliott(ge: GilbertElliott) -> Self {
        Self::with_model(Model::GilbertElliott(ge))
    }

    fn with_model(model: Model) -> Self {
        Self {
            model,
            packets: 0,
            drops: 0,
        }
    }

    /// Datagrams seen.
    #[must_use]
    pub fn packets(&self) -> u64 {
        self.packets
    }

    /// Datagrams dropped.
    #[must_use]
    pub fn drops(&self) -> u64 {
        self.drops
    }

    /// Decides whether the next datagram is lost.
    pub fn lose(&mut self, rng: &mut Rng) -> bool {
        self.lose_at(None, rng)
    }

    /// Decides whether a datagram arriving `at` is lost (the time matters
    /// only to a Gilbert–Elliott chain with a slot).
    pub fn lose_at(&mut self, at: Option<Time>, rng: &mut Rng) -> bool {
        self.packets += 1;
        let lost = match &mut self.model {
            Model::Bernoulli(p) => rng.chance(*p),
            Model::GilbertElliott(ge) => ge.lose_at(at, rng),
        };
        if lost {
            self.drops += 1;
        }
        lost
    }
}

impl Element for RandomLoss {
    fn process(&mut self, at: Time, _size: u32, rng: &mut Rng) -> Verdict {
        if self.lose_at(Some(at), rng) {
            Verdict::Drop(DropReason::RandomLoss)
        } else {
            Verdict::Forward(at)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_after_n_steps_follows_the_chain() {
        // p = 0.05, r = 0.25: π = 1/6, λ = 0.7.
        let mut ge = GilbertElliott::new(0.05, 0.25, 0.0, 1.0).unwrap();
        ge.in_bad = true;
        assert_eq!(ge.bad_after(0), 1.0);
        assert!((ge.bad_after(1) - 0.75).abs() < 1e-12);
        assert!((ge.bad_after(2) - (1.0 / 6.0 + 5.0 / 6.0 * 0.49)).abs() < 1e-12);
        assert!((ge.bad_after(1_000) - 1.0 / 6.0).abs() < 1e-12);
        ge.in_bad = false;
        assert!((ge.bad_after(1) - 0.05).abs() < 1e-12);
        assert!((ge.bad_after(u64::MAX) - 1.0 / 6.0).abs() < 1e-12);
        // A chain that never moves stays put.
        let mut still = GilbertElliott::new(0.0, 0.0, 0.0, 1.0).unwrap();
        still.in_bad = true;
        assert_eq!(still.bad_after(1_000), 1.0);
    }

    /// Datagrams one slot apart (or closer) see the per-datagram chain:
    /// the same losses, draw for draw, as without a slot.
    #[test]
    fn back_to_back_datagrams_are_unchanged_by_the_slot() {
        let slot = Duration::from_micros(12);
        let mut plain = GilbertElliott::from_mean(0.1, 4.0).unwrap();
        let mut timed = GilbertElliott::from_mean(0.1, 4.0).unwrap().with_slot(slot);
        let (mut a, mut b) = (Rng::new(7), Rng::new(7));
        for i in 0..10_000u64 {
            let at = Time::from_nanos(i * 12_000 - (i % 3) * 1_000);
            assert_eq!(plain.lose(&mut a), timed.lose_at(Some(at), &mut b), "{i}");
        }
    }

    /// A datagram that follows a long pause sees the chain's long-run
    /// state, not the burst the last datagram was in: after a loss and a
    /// pause of 10,000 slots, about `mean_rate` of such datagrams are lost
    /// (per datagram, ≈ 1 − 1/mean_burst would be).
    #[test]
    fn a_long_pause_ends_a_loss_burst() {
        let slot = Duration::from_micros(12);
        let mut rng = Rng::new(3);
        let (mut after_loss, mut lost_after) = (0u32, 0u32);
        let mut ge = GilbertElliott::from_mean(0.1, 4.0).unwrap().with_slot(slot);
        let mut t = 0u64;
        let mut prev_lost = false;
        for _ in 0..200_000 {
            // Alternate back-to-back datagrams with long pauses.
            t += if prev_lost { 120_000_000 } else { 12_000 };
            let lost = ge.lose_at(Some(Time::from_nanos(t)), &mut rng);
            if prev_lost {
                after_loss += 1;
                lost_after += u32::from(lost);
            }
            prev_lost = lost;
        }
        let share = f64::from(lost_after) / f64::from(after_loss);
        assert!(after_loss > 5_000, "{after_loss}");
        assert!((share - 0.1).abs() < 0.01, "{share}");
    }

    /// Runs `n` datagrams; returns (drops, number of loss bursts).
    fn run(loss: &mut RandomLoss, seed: u64, n: u32) -> (u64, u64) {
        let mut rng = Rng::new(seed);
        let mut bursts = 0;
        let mut prev_lost = false;
        for i in 0..n {
            let v = loss.process(Time(u64::from(i)), 1500, &mut rng);
            let lost = v == Verdict::Drop(DropReason::RandomLoss);
            if !lost {
                assert_eq!(v, Verdict::Forward(Time(u64::from(i))));
            }
            if lost && !prev_lost {
                bursts += 1;
            }
            prev_lost = lost;
        }
        (loss.drops(), bursts)
    }

    #[test]
    fn bernoulli_rate_within_4_sigma() {
        for p in [0.001, 0.01, 0.1, 0.5] {
            let mut l = RandomLoss::bernoulli(p).unwrap();
            let n = 100_000;
            let (drops, _) = run(&mut l, 42, n);
            let mean = p * f64::from(n);
            let sigma = (f64::from(n) * p * (1.0 - p)).sqrt();
            #[allow(clippy::cast_precision_loss)]
            let dev = (drops as f64 - mean).abs();
            assert!(
                dev <= 4.0 * sigma,
                "p={p}: {drops} drops, expected {mean} +- {sigma}"
            );
            assert_eq!(l.packets(), u64::from(n));
        }
    }

    #[test]
    fn bernoulli_extremes_and_errors() {
        let mut none = RandomLoss::bernoulli(0.0).unwrap();
        assert_eq!(run(&mut none, 1, 1_000).0, 0);
        let mut all = RandomLoss::bernoulli(1.0).unwrap();
        assert_eq!(run(&mut all, 1, 1_000), (1_000, 1));
        assert_eq!(
            RandomLoss::bernoulli(1.5).unwrap_err(),
            LossError::Probability("rate", 1.5)
        );
        assert!(RandomLoss::bernoulli(-0.1).is_err());
        assert!(RandomLoss::bernoulli(f64::NAN).is_err());
    }

    #[test]
    fn gilbert_elliott_mean_and_burst_length() {
        let (rate, burst) = (0.01, 5.0);
        let ge = GilbertElliott::from_mean(rate, burst).unwrap();
        assert!((ge.mean_rate() - rate).abs() < 1e-12);
        let mut l = RandomLoss::gilbert_elliott(ge);
        let n = 1_000_000;
        let (drops, bursts) = run(&mut l, 7, n);
        #[allow(clippy::cast_precision_loss)]
        let (measured_rate, measured_burst) =
            (drops as f64 / f64::from(n), drops as f64 / bursts as f64);
        // ~2,000 bursts of geometric length: allow 10% on the rate and burst.
        assert!(
            (measured_rate - rate).abs() < 0.1 * rate,
            "rate {measured_rate}"
        );
        assert!(
            (measured_burst - burst).abs() < 0.1 * burst,
            "burst {measured_burst}"
        );

        // Bernoulli at the same rate has bursts of ~1 / (1 - p) = 1.01.
        let mut b = RandomLoss::bernoulli(rate).unwrap();
        let (bd, bb) = run(&mut b, 7, n);
        #[allow(clippy::cast_precision_loss)]
        let bernoulli_burst = bd as f64 / bb as f64;
        assert!(bernoulli_burst < 1.05, "{bernoulli_burst}");
        assert!(measured_burst > 3.0 * bernoulli_burst);
    }

    #[test]
    fn gilbert_elliott_raw_form() {
        // Absorbing Bad state that loses half: long-run rate 0.5.
        let ge = GilbertElliott::new(1.0, 0.0, 0.0, 0.5).unwrap();
        assert!((ge.mean_rate() - 0.5).abs() < 1e-12);
        let mut l = RandomLoss::gilbert_elliott(ge);
        let mut rng = Rng::new(3);
        // First datagram is judged in Good: never lost.
        assert!(!l.lose(&mut rng));
        let lost = (0..100_000).filter(|_| l.lose(&mut rng)).count();
        // sd = sqrt(1e5 / 4) ~ 158; 4 sigma.
        assert!((49_368..=50_632).contains(&lost), "{lost}");
        assert!(GilbertElliott::new(0.1, 1.1, 0.0, 1.0).is_err());
        assert_eq!(
            GilbertElliott::new(0.1, 0.2, -0.5, 1.0).unwrap_err(),
            LossError::Probability("loss_good", -0.5)
        );
        // A chain that never leaves Good loses at loss_good.
        assert!(
            (GilbertElliott::new(0.0, 0.0, 0.25, 1.0)
                .unwrap()
                .mean_rate()
                - 0.25)
                .abs()
                < 1e-12
        );
    }

    #[test]
    fn from_mean_validation_and_clamping() {
        assert_eq!(
            GilbertElliott::from_mean(1.0, 2.0).unwrap_err(),
            LossError::MeanRate(1.0)
        );
        assert_eq!(
            GilbertElliott::from_mean(0.1, 0.5).unwrap_err(),
            LossError::MeanBurst(0.5)
        );
        assert!(GilbertElliott::from_mean(f64::NAN, 2.0).is_err());
        assert!(GilbertElliott::from_mean(0.1, f64::NAN).is_err());
        // rate/(1-rate) = 1.5 > burst 1: unreachable.
        assert!(matches!(
            GilbertElliott::from_mean(0.6, 1.0),
            Err(LossError::Unreachable { .. })
        ));
        // Boundary: rate 0.5 with burst 1 is exactly p = 1 (alternating).
        let mut alt = GilbertElliott::from_mean(0.5, 1.0).unwrap();
        let mut rng = Rng::new(0);
        let pattern: Vec<bool> = (0..6).map(|_| alt.lose(&mut rng)).collect();
        assert_eq!(pattern, [false, true, false, true, false, true]);
        // Clamped variant.
        let c = GilbertElliott::from_mean_clamped(0.6, 1.0);
        assert!((c.mean_rate() - 0.5).abs() < 1e-12);
        let c = GilbertElliott::from_mean_clamped(f64::NAN, f64::NAN);
        assert!(c.mean_rate().abs() < 1e-12);
        let c = GilbertElliott::from_mean_clamped(0.02, 4.0);
        assert_eq!(c, GilbertElliott::from_mean(0.02, 4.0).unwrap());
        assert!(LossError::MeanBurst(0.5).to_string().contains("below 1"));
    }

    #[test]
    fn same_seed_same_losses() {
        let ge = GilbertElliott::from_mean(0.05, 3.0).unwrap();
        let pattern = |seed| {
            let mut l = RandomLoss::gilbert_elliott(ge.clone());
            let mut rng = Rng::new(seed);
            (0..10_000).map(|_| l.lose(&mut rng)).collect::<Vec<_>>()
        };
        assert_eq!(pattern(9), pattern(9));
        assert_ne!(pattern(9), pattern(10));
    }
}
