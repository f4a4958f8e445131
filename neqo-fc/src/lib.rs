//! # neqo-fc: QUIC flow control with receive-window auto-tuning
//!
//! RFC 9000 §4 flow control, sans-IO: the stack passes in the time and its
//! RTT estimate and writes the frames; this crate keeps the books and
//! decides. The README below shows both ways to embed it:
//! [`ConnectionFlow`] + [`StreamReceiver`] (a controller inside each of the
//! stack's streams, as in neqo and quinn) or [`ConnectionReceiver`] (owning
//! the streams and MAX_STREAMS). [`ReceiverFlowControl`] and
//! [`SenderFlowControl`] are the one-subject building blocks underneath.
//!
//! | rule | file |
//! |---|---|
//! | RFC 9000 §4 limits and errors | `src/receiver.rs` |
//! | when a MAX_* is due, what it carries, *_BLOCKED, loss | `src/receiver/update.rs` |
//! | how a window grows ([`ExcessTuner`]) and when a step runs | `src/receiver/tuning.rs` |
//! | seeding, the budget, the connection floor, the rebalancing pass | `src/connection_flow.rs`, `src/connection_flow/budget.rs` |
//!
//! Invariants, whatever the call order: limits never decrease; a failing
//! call changes nothing; under a configuration [`Config::validate`]
//! accepts, no call panics or overflows (values up to 2^62, any duration)
//! and the per-packet path does not allocate. Every window change is
//! returned as a [`WindowChange`] (and logged with `log::debug!`).
//!
//! ## Misuse that does not compile
//!
//! Controllers need a validated configuration:
//! ```compile_fail
//! use neqo_fc::{Config, ReceiverFlowControl, StreamId};
//! let fc = ReceiverFlowControl::new(StreamId(0), &Config::default());
//! ```
//! A stream retires up to an offset, the connection by a count:
//! ```compile_fail
//! use neqo_fc::{Config, Connection, ReceiverFlowControl};
//! let config = Config::default().validate().unwrap();
//! let mut conn = ReceiverFlowControl::new(Connection, &config);
//! conn.retire_to(10);
//! ```
//! [`Rtt`]'s fields are private (it keeps `0 < min ≤ smoothed`):
//! ```compile_fail
//! use std::time::Duration;
//! let rtt = neqo_fc::Rtt { smoothed: Duration::ZERO, min: Duration::from_secs(1) };
//! ```
//! Only [`Connection`] and [`StreamId`] are flow subjects:
//! ```compile_fail
//! #[derive(Clone, Copy, Debug)]
//! struct MyStreamId(u64);
//! impl neqo_fc::FlowSubject for MyStreamId {
//!     fn subject(&self) -> neqo_fc::Subject { neqo_fc::Subject::Connection }
//!     fn kind(&self) -> neqo_fc::SubjectKind { neqo_fc::SubjectKind::Connection }
//! }
//! ```
//!
//! ## What the embedding stack ignores
//!
//! Late, duplicate or reordered MAX_* frames ([`SenderFlowControl::update`]
//! drops them), and frames for closed streams (a [`ConnectionReceiver`]
//! handles them; otherwise drop them: their bytes were counted at the final
//! size, RFC 9000 §4.5).
#![doc = ""]
#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]

mod change;
mod config;
mod connection_flow;
mod connection_receiver;
mod error;
mod fraction;
mod math;
mod receiver;
mod rtt;
mod sender;
mod stream_limits;
mod subject;

pub use change::{ChangeReason, MAX_PENDING_CHANGES, WindowChange};
pub use config::{Config, ConfigError, MAX_STREAMS, ValidConfig};
pub use connection_flow::{Budget, ConnectionFlow, MIN_BLOCKED_ANSWER, StreamReceiver};
pub use connection_receiver::{ConnectionReceiver, MAX_OWNED_STREAMS, UpdateFrame};
pub use error::{Error, Res, TransportErrorCode};
pub use fraction::Fraction;
pub use math::MAX_VARINT;
pub use receiver::{ExcessTuner, ReceiverFlowControl, TuneInput, Tuner, Update};
pub use rtt::Rtt;
pub use sender::SenderFlowControl;
pub use subject::{Connection, Direction, FlowSubject, Role, StreamId, Subject, SubjectKind};
