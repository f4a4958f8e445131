//! # neqo-fc: QUIC flow control with receive-window auto-tuning
//!
//! Stream and connection flow control exactly as RFC 9000 §4 specifies, in
//! the sans-IO style of neqo and quinn-proto: the embedding stack passes
//! in the time and its RTT estimate and writes the frames; this crate keeps
//! the books and decides.
//!
//! - [`ReceiverFlowControl`]: checks what the peer sends against the limit
//!   we advertised (`FLOW_CONTROL_ERROR`, `FINAL_SIZE_ERROR`), says when a
//!   MAX_DATA / MAX_STREAM_DATA is due and what limit it carries, and tunes
//!   the window as it goes.
//! - [`SenderFlowControl`]: the credit the peer granted, and when to send
//!   DATA_BLOCKED / STREAM_DATA_BLOCKED.
//! - [`Tuner`]: the auto-tuning strategy. [`ExcessTuner`] (the default)
//!   grows the window by the excess of bytes retired over what the current
//!   window could have carried in the elapsed time, times a bonus; [`Fixed`]
//!   keeps it static.
//! - [`ConnectionFlow`]: the receive side of a whole connection for a
//!   stack that owns its streams' controllers ([`StreamReceiver`]). New
//!   streams are seeded from the connection-level estimate, the connection
//!   window stays ≥ 1.5 × the largest stream window, and an optional
//!   [`Budget`] bounds the credit outstanding across streams, taking it
//!   back from streams whose reader stopped (by not extending their
//!   limits) in a rebalancing pass on a timer
//!   ([`ConnectionFlow::next_timeout`]).
//! - [`ConnectionReceiver`]: the same, owning the streams, with the
//!   MAX_STREAMS limits and the stream lifecycle of RFC 9000 §2–§3.
//!
//! Every window change is returned as a [`WindowChange`] value (and logged
//! with `log::debug!`). Arithmetic is `u64` only, overflow-safe for every
//! value up to 2^62 and every duration; with any configuration
//! [`Config::validate`] accepts, no call panics on any input, and no call
//! allocates on the per-packet path.
//!
//! ## Embedding it
//!
//! A stack that owns one controller per receive stream (neqo, quinn) keeps
//! a [`ConnectionFlow`] per connection and a [`StreamReceiver`] inside each
//! stream; one that would rather let the crate own them keeps a
//! [`ConnectionReceiver`]. Either way it passes in the time (a
//! [`std::time::Instant`]; the crate never reads a clock) and its RTT
//! estimate (`None` before the first sample), and writes the frames.
//!
//! ```
//! use std::time::{Duration, Instant};
//! use neqo_fc::{Config, ConnectionReceiver, Role, Rtt, SenderFlowControl, Connection, StreamId, UpdateFrame};
//!
//! let config = Config::default().validate()?;
//! let mut rx = ConnectionReceiver::new(Role::Server, config);
//! let start = Instant::now();
//! let rtt = Rtt::from_sample(Duration::from_millis(50));
//! let id = StreamId(0); // the client's first bidirectional stream
//!
//! // A STREAM frame for bytes [0, 60_000) arrives (within the 64 KiB
//! // initial_max_stream_data), and the application reads it.
//! rx.on_data(id, 60_000, false)?;
//! rx.retire_to(id, 60_000)?;
//!
//! // Building a packet: MAX_* frames first.
//! let now = start + Duration::from_millis(10);
//! let mut updates = Vec::new();
//! while let Some(update) = rx.next_update(now, rtt) {
//!     updates.push(update);
//! }
//! let UpdateFrame::MaxStreamData { id: sent_id, limit } = updates[0] else { panic!() };
//! assert_eq!(sent_id, id);
//! assert!(limit > 60_000 + 64 * 1024 / 2);
//!
//! // The packet carrying it is lost: the latest limit is due again.
//! rx.update_lost(updates[0]);
//! let again = rx.next_update(now, rtt).expect("re-sent");
//! assert!(again.limit() >= limit);
//! rx.update_acked(again);
//!
//! // The budget's rebalancing pass runs on a timer the stack arms.
//! if let Some(at) = rx.next_timeout() {
//!     rx.on_timeout(at, rtt);
//! }
//!
//! // Every window change, for qlog or logs.
//! for change in rx.drain_changes() {
//!     println!("{change}");
//! }
//!
//! // Data past the advertised limit is FLOW_CONTROL_ERROR (0x03).
//! let err = rx.on_data(id, again.limit() + 1, false).unwrap_err();
//! assert_eq!(err.code(), 0x03);
//!
//! // Sender side: credit from the peer's MAX_DATA.
//! let mut credit = SenderFlowControl::new(Connection, 1_000);
//! assert_eq!(credit.consume(1_500), 1_000);
//! assert!(credit.blocked());               // send DATA_BLOCKED { limit: 1000 }
//! assert_eq!(credit.blocked_needed(), Some(1_000));
//! credit.blocked_sent();
//! assert!(!credit.update(900));            // lower MAX_DATA: ignored
//! assert!(credit.update(5_000));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! [`ReceiverFlowControl`] is the per-subject building block underneath,
//! usable on its own (the crate README has an example, and a table of
//! what to call on each event for each shape).
//!
//! ## Misuse that does not compile
//!
//! Controllers are built only from a validated configuration:
//!
//! ```compile_fail
//! use neqo_fc::{Config, ReceiverFlowControl, StreamId};
//! let fc = ReceiverFlowControl::new(StreamId(0), &Config::default());
//! ```
//!
//! A stream retires up to an offset, the connection by a count — the
//! connection has no `retire_to`, a stream no `add_retired`:
//!
//! ```compile_fail
//! use neqo_fc::{Config, Connection, ReceiverFlowControl};
//! let config = Config::default().validate().unwrap();
//! let mut conn = ReceiverFlowControl::new(Connection, &config);
//! conn.retire_to(10);
//! ```
//!
//! An RTT estimate keeps `0 < min ≤ smoothed`; its fields are private:
//!
//! ```compile_fail
//! use std::time::Duration;
//! let rtt = neqo_fc::Rtt { smoothed: Duration::ZERO, min: Duration::from_secs(1) };
//! ```
//!
//! Only [`Connection`] and [`StreamId`] are flow subjects (a stack converts
//! its own stream-id type):
//!
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
//! Late, duplicate or reordered MAX_* frames: pass them to
//! [`SenderFlowControl::update`], which ignores any value that does not
//! raise the limit. Frames for streams that are closed: a
//! [`ConnectionReceiver`] ignores them itself; a stack that owns its
//! streams drops them (their bytes were counted when the final size was
//! known; RFC 9000 §19.10 — rust-yamux learned this when it sent updates
//! early).

#![forbid(unsafe_code)]

mod budget;
mod change;
mod config;
mod connection_flow;
mod connection_receiver;
mod error;
mod fraction;
mod math;
mod policy;
mod receiver;
mod rtt;
mod sender;
mod stream_limits;
mod subject;
mod tuner;

pub use budget::Budget;
pub use change::{ChangeReason, MAX_PENDING_CHANGES, WindowChange};
pub use config::{Config, ConfigError, MAX_STREAMS, ValidConfig};
pub use connection_flow::{ConnectionFlow, MIN_BLOCKED_ANSWER, StreamReceiver};
pub use connection_receiver::{ConnectionReceiver, MAX_OWNED_STREAMS, UpdateFrame};
pub use error::{Error, Res, TransportErrorCode};
pub use fraction::Fraction;
pub use math::MAX_VARINT;
pub use policy::{BlockedResponse, TuningInterval};
pub use receiver::{ReceiverFlowControl, Update};
pub use rtt::Rtt;
pub use sender::SenderFlowControl;
pub use subject::{Connection, Direction, FlowSubject, Role, StreamId, Subject, SubjectKind};
pub use tuner::{ExcessTuner, TuneInput, Tuner};

/// The crate README's examples, run as doc-tests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
