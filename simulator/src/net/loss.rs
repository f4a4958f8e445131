//! Random loss: independent (Bernoulli) or bursty (Gilbert–Elliott).
//!
//! Gilbert–Elliott is a two-state Markov chain (E. N. Gilbert, "Capacity of a
//! burst-noise channel", 1960; E. O. Elliott, 1963): in state Good a datagram
//! is lost with probability `loss_good`, in state Bad with `loss_bad`; after
//! each datagram the chain moves Good→Bad with probability `p` and Bad→Good
//! with probability `r`. With `loss_good = 0` and `loss_bad = 1` (the simple
//! Gilbert model) the stationary loss rate is `p / (p + r)` and loss bursts
//! are geometric with mean length `1 / r`.

use std::fmt;

use super::{DropReason, Element, Verdict};
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
        self.packets += 1;
        let lost = match &mut self.model {
            Model::Bernoulli(p) => rng.chance(*p),
            Model::GilbertElliott(ge) => ge.lose(rng),
        };
        if lost {
            self.drops += 1;
        }
        lost
    }
}

impl Element for RandomLoss {
    fn process(&mut self, at: Time, _size: u32, rng: &mut Rng) -> Verdict {
        if self.lose(rng) {
            Verdict::Drop(DropReason::RandomLoss)
        } else {
            Verdict::Forward(at)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
