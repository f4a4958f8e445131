//! QUIC building blocks for the simulator's transport: varints and frames
//! with their real wire encoding (RFC 9000), ACK ranges, range sets, RTT
//! estimation (RFC 9002 §5), congestion control (NewReno, CUBIC) and pacing.
//!
//! Everything here is pure: the caller passes time in and owns all I/O.

pub mod ack;
pub mod ack_frequency;
pub mod app_limit;
pub mod cc;
pub mod ecn_counts;
pub mod ecn_validation;
pub mod frame;
pub mod pacer;
pub mod ranges;
pub mod rtt;
pub mod varint;

pub use ack::AckRanges;
pub use app_limit::AppLimit;
pub use cc::{CcAlgorithm, CcState, CongestionControl, Cubic, NewReno};
pub use ecn_counts::EcnCounts;
pub use frame::{Frame, decode_frames};
pub use pacer::{Pacer, Pacing};
pub use ranges::RangeSet;
pub use rtt::RttEstimator;
pub use varint::{DecodeError, Decoder, MAX_VARINT, encode_varint, varint_len};
