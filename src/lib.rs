//! `fc-lab`: measures QUIC receive-window strategies on the `neqo-fc-sim`
//! simulator: one run ([`spec::RunSpec`], [`execute()`]), the comparison
//! matrix and its report ([`compare`]), fault sweeps ([`sweep`]), and their
//! tables, JSON, SVG plots and qlog traces. The binary wraps
//! [`cli::main_with_args`].

#![forbid(unsafe_code)]

pub mod cli;
pub mod compare;
pub mod cost;
pub mod error;
pub mod execute;
pub mod format;
pub mod legend;
pub mod outputs;
pub mod parallel;
pub mod plot;
pub mod profiles;
pub mod qlog;
pub mod report;
pub mod spec;
pub mod stall;
pub mod sweep;
pub mod table;
pub mod transport;
pub mod tuners;
pub mod units;
pub mod workloads;

pub use error::LabError;
pub use execute::{Outcome, execute, execute_observed};
pub use report::RunReport;
pub use spec::RunSpec;
