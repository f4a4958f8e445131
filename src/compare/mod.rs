//! `fc-lab compare`: the matrix of profiles × workloads × tuners
//! ([`Matrix`]), run in parallel ([`run_all`]; the output does not depend
//! on the thread count), shown as critcmp-style tables and written as a
//! report folder ([`write_report`]: `report.json`, `report.md`, SVG charts).

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
