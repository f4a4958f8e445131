//! `fc-studies readme`: regenerate (or `--check`) the marked blocks of the
//! README and `docs/` from a fresh run.

use std::{
    path::{Path, PathBuf},
    time::Instant,
};

use fc_lab::{
    cli::{runs_bar, worker_threads},
    error::LabError,
};

use super::ReadmeArgs;
use crate::readme::{blocks::blocks, markers, runs};

/// The files `readme` fills when no `--file` is given: the README, the
/// real-neqo and real-quinn integrations' READMEs and every Markdown file
/// in `docs/` that has blocks.
fn default_files() -> Vec<PathBuf> {
    let mut files = vec![
        PathBuf::from("README.md"),
        PathBuf::from("integrations/neqo/README.md"),
        PathBuf::from("integrations/quinn/README.md"),
    ];
    if let Ok(dir) = std::fs::read_dir("docs") {
        let mut docs: Vec<PathBuf> = dir
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "md"))
            .collect();
        docs.sort();
        files.extend(docs);
    }
    files
}

/// One file's text and the names of its blocks.
struct Marked {
    file: PathBuf,
    text: String,
    names: Vec<String>,
}

fn read_marked(file: &Path, required: bool) -> Result<Option<Marked>, LabError> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| LabError::flag("--file", format!("{}: {e}", file.display())))?;
    // Refuse a file without (or with broken) markers before running.
    let names = markers::block_names(&text)
        .map_err(|e| LabError::flag("--file", format!("{}: {}", file.display(), e.0)))?;
    if names.is_empty() {
        if !required {
            return Ok(None);
        }
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
    Ok(Some(Marked {
        file: file.to_owned(),
        text,
        names,
    }))
}

pub(super) fn cmd_readme(a: &ReadmeArgs) -> Result<i32, LabError> {
    let (files, required) = if a.file.is_empty() {
        (default_files(), false)
    } else {
        (a.file.clone(), true)
    };
    let mut marked = Vec::new();
    for (k, file) in files.iter().enumerate() {
        // The README itself must have blocks even by default.
        if let Some(m) = read_marked(file, required || k == 0)? {
            marked.push(m);
        }
    }
    if !a.check {
        for m in &marked {
            fc_lab::outputs::writable_file("--file", &m.file)?;
        }
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
    let wall = started.elapsed().as_secs_f64();
    let mut differ = false;
    for m in &marked {
        let file = &m.file;
        let (new, changed) = markers::fill(&m.text, &generated)
            .map_err(|e| LabError::flag("--file", format!("{}: {}", file.display(), e.0)))?;
        if a.check {
            if changed.is_empty() {
                eprintln!(
                    "{}: all {} blocks match this build ({wall:.1} s)",
                    file.display(),
                    m.names.len()
                );
            } else {
                differ = true;
                eprintln!(
                    "error: {}: {} of {} blocks differ from this build: {} (run `cargo run \
                     --release -p fc-studies -- readme` to rewrite them)",
                    file.display(),
                    changed.len(),
                    m.names.len(),
                    changed.join(", ")
                );
            }
            continue;
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
            m.names.len(),
            if changed.is_empty() {
                String::new()
            } else {
                format!(": {}", changed.join(", "))
            }
        );
    }
    Ok(i32::from(differ))
}
