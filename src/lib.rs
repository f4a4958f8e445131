//! `fc-lab`: the lab that measures QUIC receive-window strategies on the
//! `neqo-fc-sim` simulator — one run ([`spec::RunSpec`], [`execute()`]),
//! the comparison matrix and its report ([`compare`]), built-in network
//! paths ([`profiles`]), peer tuners ([`tuners`]), stalled readers
//! ([`stall`]), tables, JSON ([`report::RunReport`]), SVG plots
//! ([`plot`]), qlog traces ([`qlog`]), fault sweeps ([`sweep`]), what a
//! run will cost ([`cost`]), and output paths checked before a run
//! ([`outputs`]). The studies and the docs generator built on it are the
//! `fc-studies` crate.
//!
//! The binary is a thin wrapper around [`cli::main_with_args`]; tests and
//! benches call the library directly.

#![forbid(unsafe_code)]

pub mod cli;
pub mod compare;
pub mod cost;
pub mod error;
pub mod execute;
pub mod format;
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
