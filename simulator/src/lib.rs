//! `neqo-fc-sim`: a deterministic discrete-event network simulator and a
//! QUIC-like transport that embeds `neqo-fc` on both ends.
//!
//! Everything here runs in virtual time (integer nanoseconds) with one seeded
//! PRNG per run: the same seed gives the same bytes out.
//!
//! ```
//! use std::time::Duration;
//! use neqo_fc_sim::{net::PathConfig, scenario::*};
//!
//! let path = PathConfig {
//!     rate_bps: Some(100_000_000),
//!     queue_bytes: 250_000,
//!     delay: Duration::from_millis(10),
//!     ..PathConfig::default()
//! };
//! let workload = Workload {
//!     kind: WorkloadKind::Bulk { bytes: 4_000_000 },
//!     streams: 1,
//!     reader: ReaderSpeed::Unlimited,
//!     stall: None,
//! };
//! let result = neqo_fc_sim::run(&Scenario::new(path, workload));
//! assert!(result.metrics.completed);
//! assert_eq!(result.metrics.bytes, 4_000_000);
//! ```

pub mod event;
pub mod metrics;
pub mod net;
pub mod progress;
pub mod quic;
pub mod rng;
pub mod scenario;
pub mod time;
pub mod trace;
pub mod transport;

pub use transport::sim::{run, run_observed};
