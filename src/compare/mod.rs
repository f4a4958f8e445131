//! `fc-lab compare`: the matrix of profiles × workloads × tuners, run in
//! parallel, shown as critcmp-style tables and written as a report folder
//! (`report.json`, `report.md`, SVG bar charts).
//!
//! - [`matrix`]: which runs ([`Matrix`], [`Section`]);
//! - [`run`]: running them in parallel ([`run_all`]) and folding each
//!   cell's seeds into its median run ([`median_of_seeds`]);
//! - [`rows`]: what every table shares (grouping, outcome cells);
//! - [`tables`]: a table per (profile, workload), as `compare` prints it;
//! - [`memory`]: the many-streams tables and report.md's "Memory" section;
//! - [`summary`]: report.md's profile × tuner matrices;
//! - [`findings`]: who wins each scenario, by how much, at what memory;
//! - [`colours`]: one colour per strategy in every chart;
//! - [`report_dir`]: the report folder compare owns ([`prepare_report_dir`],
//!   [`write_report`]).
//!
//! Parallelism is `std::thread::scope` with an atomic work index over a
//! fixed job order; each result is stored at its spec's index, so the
//! output is identical whatever the thread count (every run is
//! deterministic on its own).

pub mod colours;
pub mod findings;
pub mod matrix;
pub mod memory;
pub mod report_dir;
pub mod rows;
pub mod run;
pub mod summary;
pub mod tables;

pub mod fixtures;

pub use self::{
    matrix::{Matrix, Section},
    report_dir::{prepare_report_dir, write_report},
    run::{median_of_seeds, run_all, run_count_phrase},
    tables::render_table,
};
