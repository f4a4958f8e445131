//! The errors `fc-lab` reports: one line each, naming the flag or file at
//! fault, never a panic.

use std::{fmt, path::PathBuf};

/// Something `fc-lab` could not do.
///
/// Invariant: `Display` renders one line (no newline), suitable after
/// `error: `.
#[derive(Debug)]
pub enum LabError {
    /// A flag's value is unusable: `--rate: expected a rate like …`.
    Flag {
        /// The flag, with dashes (`--rate`).
        flag: String,
        /// What was wrong and what is accepted.
        message: String,
    },
    /// Flow-control settings that `neqo_fc::Config::validate` rejected.
    Config(String),
    /// A file or directory could not be written.
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The operating system's reason.
        source: std::io::Error,
    },
    /// An output flag's file or directory could not be written after the
    /// run (it was checked before: the disk filled up, say).
    Output {
        /// The flag (`--qlog`, `--plot`, `--out`).
        flag: String,
        /// The file or directory.
        path: PathBuf,
        /// The reason.
        message: String,
    },
    /// A plot could not be drawn.
    Plot {
        /// The SVG file.
        path: PathBuf,
        /// The plotting library's reason.
        message: String,
    },
    /// The simulator failed (a panic inside a run, caught).
    Simulator(String),
}

impl LabError {
    /// An I/O or plot error as [`LabError::Output`] naming `flag`; others
    /// unchanged.
    #[must_use]
    pub fn for_output(self, flag: &str) -> Self {
        match self {
            Self::Io { path, source } => Self::Output {
                flag: flag.to_owned(),
                path,
                message: source.to_string(),
            },
            Self::Plot { path, message } => Self::Output {
                flag: flag.to_owned(),
                path,
                message,
            },
            other => other,
        }
    }

    /// `--flag: message`.
    pub fn flag(flag: &str, message: impl Into<String>) -> Self {
        Self::Flag {
            flag: flag.to_owned(),
            message: message.into(),
        }
    }

    /// The process exit code: 2 for bad flags (as clap uses), 1 otherwise.
    #[must_use]
    pub fn exit_code(&self) -> i32 {
        match self {
            Self::Flag { .. } | Self::Config(_) => 2,
            _ => 1,
        }
    }
}

/// Replaces line breaks so a message always stays on one line.
fn one_line(s: &str) -> String {
    s.split(['\n', '\r'])
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("; ")
}

impl fmt::Display for LabError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Flag { flag, message } => write!(f, "{flag}: {}", one_line(message)),
            Self::Config(m) => write!(f, "invalid flow-control settings: {}", one_line(m)),
            Self::Io { path, source } => {
                write!(f, "{}: {}", path.display(), one_line(&source.to_string()))
            }
            Self::Output {
                flag,
                path,
                message,
            } => write!(f, "{flag}: {}: {}", path.display(), one_line(message)),
            Self::Plot { path, message } => {
                write!(f, "plot {}: {}", path.display(), one_line(message))
            }
            Self::Simulator(m) => write!(f, "simulator: {}", one_line(m)),
        }
    }
}

impl std::error::Error for LabError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_one_line() {
        let e = LabError::flag("--rate", "expected a rate\nlike 1Gbit");
        assert_eq!(e.to_string(), "--rate: expected a rate; like 1Gbit");
        assert_eq!(e.exit_code(), 2);
        let e = LabError::Simulator("boom\n\n at x".into());
        assert_eq!(e.to_string(), "simulator: boom; at x");
        assert_eq!(e.exit_code(), 1);
    }
}
