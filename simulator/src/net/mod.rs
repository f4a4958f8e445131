//! Network elements: one direction of a path is a chain of them.
//!
//! Every element is a small analytic model that maps "a datagram of `size`
//! bytes reaches me at `at`" to "it leaves at time T" or "it is dropped"
//! ([`Verdict`]). No element schedules events of its own, so a datagram
//! crosses a whole [`Path`] in one call. The reference for what users expect
//! is neqo's test-fixture `sim` (TailDrop, Delay, RandomDelay, Drop).

pub mod bottleneck;
pub mod codel;
pub mod delay;
pub mod duplicate;
pub mod ecn;
pub mod element;
pub mod jitter;
pub mod loss;
pub mod path;

pub use bottleneck::{Bottleneck, BottleneckStats, DEFAULT_OVERHEAD_BYTES};
pub use codel::{Codel, CodelParams};
pub use delay::Delay;
pub use duplicate::Duplicate;
pub use ecn::{Ecn, EcnRewrite};
pub use element::{DropReason, Element, Verdict};
pub use jitter::Jitter;
pub use loss::{GilbertElliott, LossError, RandomLoss};
pub use path::{
    GIGABIT_BPS, GIGABIT_RTT, LossModel, Path, PathConfig, PathConfigError, PathStats, bdp_bytes,
};
