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
//! - [`ConnectionReceiver`]: the receive side of a whole connection. New
//!   streams are seeded from the connection-level estimate, the connection
//!   window stays ≥ 1.5 × the largest stream window, and an optional
//!   [`Budget`] bounds the credit outstanding across streams, taking it
//!   back from streams whose reader stopped (by not extending their limits).
//!
//! Every window change is returned as a [`WindowChange`] value (and logged
//! with `log::debug!`). Arithmetic is `u64` only, overflow-safe for every
//! value up to 2^62 and every duration; no call panics on any input, and no
//! call allocates.
//!
//! ## Embedding it
//!
//! A stack keeps one [`ConnectionReceiver`] per connection (it owns the
//! connection's and every stream's receive controller, seeding and the
//! memory budget) and one [`SenderFlowControl`] per subject it sends on.
//!
//! ```
//! use std::time::Duration;
//! use neqo_fc::{Config, Connection, ConnectionReceiver, Rtt, SenderFlowControl, StreamId, Subject};
//!
//! let config = Config::default();
//! let mut rx = ConnectionReceiver::new(config, config.tuner());
//! let rtt = Rtt::from(Duration::from_millis(50));
//! let id = StreamId(3);
//!
//! // A STREAM frame for bytes [0, 60_000) arrives (within the 64 KiB
//! // initial_max_stream_data), and the application reads it.
//! rx.on_data(id, 60_000, false, Duration::ZERO)?;
//! rx.retire(id, 60_000)?;
//!
//! // Building a packet: MAX_* frames go first.
//! let now = Duration::from_millis(10);
//! let mut updates = Vec::new();
//! while let Some(update) = rx.next_update(now, rtt) {
//!     updates.push(update); // write MAX_STREAM_DATA / MAX_DATA { update.limit }
//! }
//! let sent = updates[0];
//! assert_eq!(sent.subject, Subject::Stream(id));
//! assert!(sent.limit > 60_000 + 64 * 1024 / 2);
//!
//! // The packet carrying it is lost: the latest limit is due again.
//! rx.update_lost(sent.subject, sent.limit);
//! let again = rx.next_update(now, rtt).expect("re-sent");
//! assert!(again.limit >= sent.limit);
//! rx.update_acked(again.subject, again.limit);
//!
//! // Every window change, for qlog or logs.
//! for change in rx.drain_changes() {
//!     println!("{change}");
//! }
//!
//! // Data past the advertised limit is FLOW_CONTROL_ERROR (0x03).
//! let err = rx.on_data(id, again.limit + 1, false, now).unwrap_err();
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
//! # Ok::<(), neqo_fc::Error>(())
//! ```
//!
//! [`ReceiverFlowControl`] is the per-subject building block underneath,
//! for stacks that want to wire streams and the connection themselves.
//!
//! ## What the embedding stack ignores
//!
//! Late, duplicate or reordered MAX_* frames: pass them to
//! [`SenderFlowControl::update`], which ignores any value that does not
//! raise the limit. Frames for streams that are closed or unknown to the
//! stack (RFC 9000 §19.10: a stream already closed locally): drop them
//! before they reach this crate — there is no controller to update, and
//! this is not an error (rust-yamux learned this when it sent updates
//! early). *_BLOCKED frames for such streams: likewise.

#![forbid(unsafe_code)]

mod budget;
mod change;
mod config;
mod connection_receiver;
mod error;
mod fraction;
pub mod math;
mod receiver;
mod rtt;
mod sender;
mod subject;
pub mod tuner;

pub use budget::Budget;
pub use change::{ChangeReason, WindowChange};
pub use config::{Config, ConfigError};
pub use connection_receiver::{ConnectionReceiver, UpdateFrame};
pub use error::{Error, Res, TransportErrorCode};
pub use fraction::Fraction;
pub use math::MAX_VARINT;
pub use receiver::{ReceiverFlowControl, Update};
pub use rtt::Rtt;
pub use sender::SenderFlowControl;
pub use subject::{Connection, FlowSubject, StreamId, Subject, SubjectKind};
pub use tuner::{ExcessTuner, Fixed, TuneInput, Tuner};
