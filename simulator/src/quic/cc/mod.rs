//! Congestion control: the interface the transport drives, and the two
//! algorithms behind it, NewReno (RFC 9002 §7, Appendix B) and CUBIC
//! (RFC 9438).
//!
//! - `control.rs`: [`CongestionControl`], [`CcState`], the window bounds;
//! - `base.rs`: what both share — slow start, the recovery period,
//!   bytes-in-flight accounting, undo — and the one `CongestionControl`
//!   implementation over it;
//! - `newreno.rs`, `cubic.rs`: only what differs, congestion avoidance and
//!   the reduction at a congestion event;
//! - `algorithm.rs`: [`CcAlgorithm`], which one a run builds.

mod algorithm;
mod base;
mod control;
mod cubic;
mod newreno;
#[cfg(test)]
mod test_util;

pub use self::{
    algorithm::CcAlgorithm,
    control::{CcState, CongestionControl, initial_window, minimum_window},
    cubic::Cubic,
    newreno::NewReno,
};
