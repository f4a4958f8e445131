//! One direction of a network path: the canonical element chain
//! RandomLoss → Bottleneck → Delay → Jitter → Duplicate.
//!
//! Why this order:
//! - Random loss comes first, so a datagram lost on the way in never takes
//!   queue space or link time (loss on an access hop before the bottleneck).
//! - The bottleneck is an analytic FIFO that needs arrivals in non-decreasing
//!   time. Anything that can reorder (jitter with `reorder = true`) must
//!   therefore come after the queue: placed before it, the reordering would
//!   be clamped away and the queue would see wrong arrival times. A FIFO
//!   cannot reorder by itself either; reordering happens past it.
//! - Propagation delay is constant, so its place relative to the queue only
//!   shifts times; after the queue keeps queue timestamps equal to send times.
//! - Duplication is last: a copy is made where the datagram leaves the path
//!   and arrives a fixed time after it, taking no queue space. The verdict
//!   carries the original; the caller collects the copy with
//!   [`Path::take_duplicate`].
//!
//! Only configured elements are built; the per-datagram cost is a few
//! branches plus the bottleneck's deque update.

use std::fmt;
use std::time::Duration;

use super::bottleneck::{Bottleneck, DEFAULT_OVERHEAD_BYTES};
use super::codel::CodelParams;
use super::delay::Delay;
use super::duplicate::Duplicate;
use super::ecn::{Ecn, EcnRewrite};
use super::element::{DropReason, Element, Verdict};
use super::jitter::Jitter;
use super::loss::{GilbertElliott, LossError, RandomLoss};
use crate::rng::Rng;
use crate::time::{Time, duration_to_nanos};

/// Random-loss model of a path direction.
#[derive(Copy, Clone, Debug, PartialEq, Default)]
pub enum LossModel {
    /// No random loss.
    #[default]
    None,
    /// Each datagram lost independently with probability `rate`.
    Bernoulli {
        /// Loss probability in `[0, 1]`.
        rate: f64,
    },
    /// Bursty loss (simple Gilbert model, see [`GilbertElliott::from_mean`]);
    /// with a bottleneck the chain also steps once per full-size datagram
    /// time of idle link ([`GilbertElliott::with_slot`]).
    GilbertElliott {
        /// Long-run loss rate in `[0, 1)`.
        mean_rate: f64,
        /// Mean number of consecutive losses, at least 1.
        mean_burst: f64,
    },
}

/// Configuration of one path direction.
///
/// Invariant: none enforced at construction; [`PathConfig::validate`] reports
/// out-of-range loss parameters and [`Path::new`] clamps them.
#[derive(Clone, Debug, PartialEq)]
pub struct PathConfig {
    /// Bottleneck rate in bit/s; `None` = no bottleneck (infinitely fast).
    pub rate_bps: Option<u64>,
    /// Bottleneck queue capacity in payload bytes, excluding the datagram in
    /// service. Default 500,000 (neqo's gigabit bench).
    pub queue_bytes: u64,
    /// Per-datagram link overhead added to the UDP payload for link time.
    /// Default 28 (IPv4 + UDP); neqo's bench uses 80.
    pub overhead_bytes: u32,
    /// Use CoDel (RFC 8289 defaults) at the bottleneck; ignored without one.
    /// It drops Not-ECT datagrams and marks ECN-capable ones CE.
    pub codel: bool,
    /// What a middlebox before the bottleneck does to the ECN field
    /// (default: nothing).
    pub ecn_rewrite: EcnRewrite,
    /// One-way propagation delay.
    pub delay: Duration,
    /// Random loss.
    pub loss: LossModel,
    /// Largest extra random delay; zero = no jitter.
    pub jitter: Duration,
    /// Whether jitter may reorder datagrams.
    pub jitter_reorders: bool,
    /// Probability that a datagram leaving the path is duplicated; zero
    /// (the default) = never, and no randomness drawn.
    pub duplicate: f64,
    /// How much later than its original a duplicate arrives.
    pub duplicate_delay: Duration,
}

impl Default for PathConfig {
    /// No bottleneck, no delay, no loss, no jitter, 28 bytes of overhead.
    fn default() -> Self {
        Self {
            rate_bps: None,
            queue_bytes: 500_000,
            overhead_bytes: DEFAULT_OVERHEAD_BYTES,
            codel: false,
            ecn_rewrite: EcnRewrite::Keep,
            delay: Duration::ZERO,
            loss: LossModel::None,
            jitter: Duration::ZERO,
            jitter_reorders: false,
            duplicate: 0.0,
            duplicate_delay: Duration::ZERO,
        }
    }
}

/// Bandwidth-delay product in bytes: `rate_bps * rtt / 8`, rounded down,
/// saturating at `u64::MAX`.
#[must_use]
pub fn bdp_bytes(rate_bps: u64, rtt: Duration) -> u64 {
    let bits = u128::from(rate_bps) * u128::from(duration_to_nanos(rtt));
    u64::try_from(bits / 8_000_000_000).unwrap_or(u64::MAX)
}

impl PathConfig {
    /// A `rate_bps` bottleneck with a tail-drop queue of one
    /// bandwidth-delay product and `rtt` of propagation delay, split
    /// evenly between the directions; no loss, no jitter.
    #[must_use]
    pub fn tail_drop(rate_bps: u64, rtt: Duration) -> Self {
        Self {
            rate_bps: Some(rate_bps),
            queue_bytes: bdp_bytes(rate_bps, rtt),
            delay: rtt / 2,
            ..Self::default()
        }
    }

    /// The gigabit path every speed claim is measured on: 1 Gbit/s, 50 ms
    /// RTT, tail-drop queue of one BDP (6.25 MB).
    #[must_use]
    pub fn gigabit() -> Self {
        Self::tail_drop(GIGABIT_BPS, GIGABIT_RTT)
    }
}

/// Rate of [`PathConfig::gigabit`]: 1 Gbit/s.
pub const GIGABIT_BPS: u64 = 1_000_000_000;
/// Round-trip propagation delay of [`PathConfig::gigabit`]: 50 ms.
pub const GIGABIT_RTT: Duration = Duration::from_millis(50);

/// A configuration value out of range.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum PathConfigError {
    /// The loss model's parameters are invalid.
    Loss(LossError),
    /// The duplication probability is not in `[0, 1]` (or NaN).
    Duplicate(f64),
}

impl fmt::Display for PathConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Loss(e) => write!(f, "invalid loss model: {e}"),
            Self::Duplicate(p) => write!(f, "duplication probability {p} is not in [0, 1]"),
        }
    }
}

impl std::error::Error for PathConfigError {}

impl From<LossError> for PathConfigError {
    fn from(e: LossError) -> Self {
        Self::Loss(e)
    }
}

impl PathConfig {
    /// Checks the parameters [`Path::new`] would otherwise clamp.
    ///
    /// # Errors
    /// [`PathConfigError::Loss`] for a loss rate or burst length out of range;
    /// [`PathConfigError::Duplicate`] for a duplication probability outside
    /// `[0, 1]`.
    pub fn validate(&self) -> Result<(), PathConfigError> {
        self.loss_element()?;
        if !(0.0..=1.0).contains(&self.duplicate) {
            return Err(PathConfigError::Duplicate(self.duplicate));
        }
        Ok(())
    }

    /// The loss element this config asks for (`None` if lossless).
    fn loss_element(&self) -> Result<Option<RandomLoss>, LossError> {
        Ok(match self.loss {
            LossModel::None => None,
            LossModel::Bernoulli { rate } => Some(RandomLoss::bernoulli(rate)?),
            LossModel::GilbertElliott {
                mean_rate,
                mean_burst,
            } => Some(RandomLoss::gilbert_elliott(
                GilbertElliott::from_mean(mean_rate, mean_burst)?.with_slot(self.loss_slot()),
            )),
        })
    }

    /// One step of a Gilbert–Elliott chain in time: a full-size datagram's
    /// time at the bottleneck rate (zero without a bottleneck: one step
    /// per datagram).
    fn loss_slot(&self) -> Duration {
        self.rate_bps.map_or(Duration::ZERO, |rate| {
            crate::time::serialization_time(1500 + u64::from(self.overhead_bytes), rate)
        })
    }

    /// Like `loss_element` but never fails: out-of-range values are clamped.
    fn loss_element_clamped(&self) -> Option<RandomLoss> {
        self.loss_element().unwrap_or_else(|_| match self.loss {
            LossModel::None => None,
            LossModel::Bernoulli { rate } => {
                let rate = if rate.is_nan() {
                    0.0
                } else {
                    rate.clamp(0.0, 1.0)
                };
                RandomLoss::bernoulli(rate).ok()
            }
            LossModel::GilbertElliott {
                mean_rate,
                mean_burst,
            } => Some(RandomLoss::gilbert_elliott(
                GilbertElliott::from_mean_clamped(mean_rate, mean_burst)
                    .with_slot(self.loss_slot()),
            )),
        })
    }
}

/// Counters of one path direction.
///
/// Invariant: `packets_in` = `forwarded_packets` + `dropped_queue` +
/// `dropped_loss` + `dropped_codel` (every datagram is counted exactly once;
/// duplicates are extra and counted only in `duplicated`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct PathStats {
    /// Datagrams offered to the path.
    pub packets_in: u64,
    /// Tail drops at the bottleneck.
    pub dropped_queue: u64,
    /// Random losses.
    pub dropped_loss: u64,
    /// CoDel drops at the bottleneck.
    pub dropped_codel: u64,
    /// ECN-capable datagrams the bottleneck's CoDel marked CE (forwarded,
    /// so also counted in `forwarded_packets`).
    pub marked_ce: u64,
    /// Largest bottleneck queue (payload bytes waiting, not in service).
    pub peak_queue_bytes: u64,
    /// Datagrams that came out of the far end.
    pub forwarded_packets: u64,
    /// Payload bytes of those datagrams.
    pub forwarded_bytes: u64,
    /// Time the bottleneck spent serialising (zero without one).
    pub busy_time: Duration,
    /// Duplicates the caller collected with [`Path::take_duplicate`] (put
    /// on the wire); copies nobody collected are not counted.
    pub duplicated: u64,
    /// Datagrams the jitter stage let overtake an earlier one.
    pub reordered: u64,
}

/// One direction of a path: the configured subset of
/// RandomLoss → Bottleneck → Delay → Jitter → Duplicate.
///
/// Invariants: `send` must be called in non-decreasing `now` (the bottleneck
/// clamps earlier times to the latest one seen); `pending_copy` only ever
/// holds the copy of the datagram last sent.
#[derive(Debug)]
pub struct Path {
    loss: Option<RandomLoss>,
    bottleneck: Option<Bottleneck>,
    ecn_rewrite: EcnRewrite,
    delay: Delay,
    jitter: Option<Jitter>,
    duplicate: Option<Duplicate>,
    pending_copy: Option<Time>,
    packets_in: u64,
    forwarded_packets: u64,
    forwarded_bytes: u64,
    duplicated: u64,
}

impl Path {
    /// Builds the chain for `cfg`. Out-of-range loss parameters are clamped
    /// to the nearest valid ones (use [`PathConfig::validate`] or
    /// [`Path::try_new`] to reject them instead).
    #[must_use]
    pub fn new(cfg: &PathConfig) -> Path {
        Self::build(cfg, cfg.loss_element_clamped())
    }

    /// Builds the chain for `cfg`, rejecting out-of-range parameters.
    ///
    /// # Errors
    /// See [`PathConfig::validate`].
    pub fn try_new(cfg: &PathConfig) -> Result<Path, PathConfigError> {
        cfg.validate()?;
        Ok(Self::build(cfg, cfg.loss_element()?))
    }

    fn build(cfg: &PathConfig, loss: Option<RandomLoss>) -> Path {
        let bottleneck = cfg.rate_bps.map(|rate| {
            let b = Bottleneck::new(rate, cfg.queue_bytes).with_overhead(cfg.overhead_bytes);
            if cfg.codel {
                b.with_codel(CodelParams::default())
            } else {
                b
            }
        });
        let jitter = (!cfg.jitter.is_zero()).then(|| Jitter::new(cfg.jitter, cfg.jitter_reorders));
        Path {
            loss,
            bottleneck,
            ecn_rewrite: cfg.ecn_rewrite,
            delay: Delay::new(cfg.delay),
            jitter,
            duplicate: (cfg.duplicate > 0.0)
                .then(|| Duplicate::new(cfg.duplicate, cfg.duplicate_delay)),
            pending_copy: None,
            packets_in: 0,
            forwarded_packets: 0,
            forwarded_bytes: 0,
            duplicated: 0,
        }
    }

    /// Sends a datagram of `size` UDP payload bytes into the path at `now`:
    /// returns when it reaches the far end, or why it was dropped. If the
    /// path duplicated it, [`Path::take_duplicate`] then says when the copy
    /// arrives.
    pub fn send(&mut self, now: Time, size: u32, rng: &mut Rng) -> Verdict {
        self.send_ecn(now, size, Ecn::NotEct, rng).0
    }

    /// [`Path::send`] for a datagram carrying ECN codepoint `ecn`: also
    /// returns the codepoint it arrives with (after the path's
    /// [`EcnRewrite`], and CE if the bottleneck's CoDel marked it on the
    /// way).
    pub fn send_ecn(&mut self, now: Time, size: u32, ecn: Ecn, rng: &mut Rng) -> (Verdict, Ecn) {
        self.packets_in += 1;
        self.pending_copy = None;
        if let Some(loss) = &mut self.loss
            && loss.lose_at(Some(now), rng)
        {
            return (Verdict::Drop(DropReason::RandomLoss), ecn);
        }
        let mut t = now;
        let mut ecn = self.ecn_rewrite.apply(ecn);
        if let Some(b) = &mut self.bottleneck {
            match b.enqueue_ecn(t, size, ecn) {
                (Verdict::Forward(out), e) => (t, ecn) = (out, e),
                drop @ (Verdict::Drop(_), _) => return drop,
            }
        }
        t = self.delay.exit_time(t);
        if let Some(j) = &mut self.jitter {
            t = j.exit_time(t, rng);
        }
        if let Some(d) = &mut self.duplicate {
            self.pending_copy = d.copy_time(t, rng);
        }
        self.forwarded_packets += 1;
        self.forwarded_bytes += u64::from(size);
        (Verdict::Forward(t), ecn)
    }

    /// When the copy of the datagram just sent arrives, if the path
    /// duplicated it; `None` after the first call. The caller delivers the
    /// copy (an identical datagram) at that time.
    pub fn take_duplicate(&mut self) -> Option<Time> {
        let copy = self.pending_copy.take();
        self.duplicated += u64::from(copy.is_some());
        copy
    }

    /// The counters so far.
    #[must_use]
    pub fn stats(&self) -> PathStats {
        let b = self
            .bottleneck
            .as_ref()
            .map(Bottleneck::stats)
            .unwrap_or_default();
        PathStats {
            packets_in: self.packets_in,
            dropped_queue: b.drops,
            dropped_loss: self.loss.as_ref().map_or(0, RandomLoss::drops),
            dropped_codel: b.codel_drops,
            marked_ce: b.ce_marks,
            peak_queue_bytes: b.peak_queue_bytes,
            forwarded_packets: self.forwarded_packets,
            forwarded_bytes: self.forwarded_bytes,
            busy_time: b.busy_time,
            duplicated: self.duplicated,
            reordered: self.jitter.as_ref().map_or(0, Jitter::reordered),
        }
    }

    /// The bottleneck, if configured.
    #[must_use]
    pub fn bottleneck(&self) -> Option<&Bottleneck> {
        self.bottleneck.as_ref()
    }

    /// The constant propagation delay.
    #[must_use]
    pub fn delay(&self) -> Duration {
        self.delay.delay()
    }

    /// The jitter element, if configured.
    #[must_use]
    pub fn jitter(&self) -> Option<&Jitter> {
        self.jitter.as_ref()
    }
}

impl Element for Path {
    fn process(&mut self, at: Time, size: u32, rng: &mut Rng) -> Verdict {
        self.send(at, size, rng)
    }
}

#[cfg(test)]
mod tests;
