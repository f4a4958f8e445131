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
//!   keeps it static. New streams are seeded from the connection window
//!   ([`ReceiverFlowControl::open_stream`]) and the connection window stays
//!   ≥ 1.5 × the largest stream window
//!   ([`ReceiverFlowControl::cover_stream_window`]).
//!
//! Every window change is returned as a [`WindowChange`] value (and logged
//! with `log::debug!`). Arithmetic is `u64` only, overflow-safe for every
//! value up to 2^62 and every duration; no call panics on any input, and no
//! call allocates.
//!
//! ## Embedding it
//!
//! ```
//! use std::time::Duration;
//! use neqo_fc::{Config, ReceiverFlowControl, Rtt, SenderFlowControl, StreamId, Connection};
//!
//! let config = Config::default();
//! let tuner = config.tuner();
//! let rtt = Rtt::from(Duration::from_millis(50));
//! let mut now = Duration::ZERO;
//!
//! // Receiver: the connection, and a stream opened by the peer.
//! let mut conn = ReceiverFlowControl::connection(&config);
//! let (mut stream, _seed) =
//!     conn.open_stream(StreamId(0), config.initial_stream_window, &config, now);
//!
//! // A STREAM frame for bytes [0, 100_000) arrives.
//! let new = stream.on_data(100_000, false)?;
//! conn.consume(new)?;
//!
//! // The application reads it all.
//! let read = stream.retire(100_000)?;
//! conn.retire(read)?;
//!
//! // A quarter of the window has been read: MAX_STREAM_DATA is due.
//! now += Duration::from_millis(10);
//! assert!(stream.update_due());
//! let update = stream.send_update(now, rtt, &tuner).expect("due");
//! assert_eq!(update.limit, 100_000 + stream.window());
//! // ... write MAX_STREAM_DATA { stream_id: 0, maximum: update.limit } ...
//!
//! // The packet carrying it is lost: the latest limit must be sent again.
//! stream.update_lost(update.limit);
//! assert!(stream.update_due());
//! let again = stream.send_update(now, rtt, &tuner).expect("resend");
//! assert!(again.limit >= update.limit);
//! stream.update_acked(again.limit);
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
