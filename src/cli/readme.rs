//! `fc-lab readme`: regenerate (or `--check`) the README's marked blocks
//! from a fresh run.

use std::time::Instant;

use super::{
    args::{ReadmeArgs, worker_threads},
    progress::runs_bar,
};
use crate::{
    error::LabError,
    readme::{blocks::blocks, markers, runs},
};

pub(super) fn cmd_readme(a: &ReadmeArgs) -> Result<i32, LabError> {
    let file = &a.file;
    let text = std::fs::read_to_string(file)
        .map_err(|e| LabError::flag("--file", format!("{}: {e}", file.display())))?;
    // Refuse a file without (or with broken) markers before running.
    let names = markers::block_names(&text)
        .map_err(|e| LabError::flag("--file", format!("{}: {}", file.display(), e.0)))?;
    if names.is_empty() {
        return Err(LabError::flag(
            "--file",
            format!(
                "{}: no block marked {} … {}",
                file.display(),
                markers::open("NAME"),
                markers::CLOSE
            ),
        ));
    }
    if !a.check {
        crate::outputs::writable_file("--file", file)?;
    }
    let threads = worker_threads(a.threads);
    let bar = runs_bar(runs::run_count(), "runs");
    let started = Instant::now();
    let all = runs::run_everything(threads, &|what| {
        bar.set_message(what.to_owned());
        bar.inc(1);
    });
    bar.finish_and_clear();
    let generated = blocks(&all?)?;
    let (new, changed) = markers::fill(&text, &generated)
        .map_err(|e| LabError::flag("--file", format!("{}: {}", file.display(), e.0)))?;
    let wall = started.elapsed().as_secs_f64();
    if a.check {
        if changed.is_empty() {
            eprintln!(
                "{}: all {} blocks match this build ({wall:.1} s)",
                file.display(),
                names.len()
            );
            return Ok(0);
        }
        eprintln!(
            "error: {}: {} of {} blocks differ from this build: {} (run `cargo run --release \
             -- readme` to rewrite them)",
            file.display(),
            changed.len(),
            names.len(),
            changed.join(", ")
        );
        return Ok(1);
    }
    if !changed.is_empty() {
        std::fs::write(file, new).map_err(|source| LabError::Output {
            flag: "--file".to_owned(),
            path: file.clone(),
            message: source.to_string(),
        })?;
    }
    eprintln!(
        "{}: {} of {} blocks rewritten{} ({wall:.1} s)",
        file.display(),
        changed.len(),
        names.len(),
        if changed.is_empty() {
            String::new()
        } else {
            format!(": {}", changed.join(", "))
        }
    );
    Ok(0)
}
