//! Progress on the terminal for the long commands (`run`, `compare`,
//! `sweep`, and the studies): a bar on stderr, drawn only when stderr is a
//! terminal, so pipes, tests and CI see nothing of it.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// True when stderr is a terminal (progress is drawn only then).
#[must_use]
pub(super) fn on_terminal() -> bool {
    std::io::stderr().is_terminal()
}

/// A bar of `len` steps with `template` (indicatif's syntax), hidden
/// unless stderr is a terminal.
pub(super) fn bar(len: u64, template: &str) -> ProgressBar {
    let bar = ProgressBar::new(len);
    if on_terminal() {
        if let Ok(style) = ProgressStyle::with_template(template) {
            bar.set_style(style.progress_chars("=> "));
        }
    } else {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    bar
}

/// A bar counting runs: `[====>   ] 312/804 runs  0:04 (eta 0:06)  msg`.
pub fn runs_bar(len: u64, what: &str) -> ProgressBar {
    bar(
        len,
        &format!("{{bar:30}} {{pos}}/{{len}} {what}  {{elapsed}} (eta {{eta}})  {{wide_msg}}"),
    )
}

/// A bar counting bytes delivered: `[===>   ] 1.2 GiB/30 GiB  0:04 (eta
/// 1:36)  msg`.
pub(super) fn bytes_bar(len: u64) -> ProgressBar {
    bar(
        len,
        "{bar:30} {bytes}/{total_bytes} read  {elapsed} (eta {eta})  {wide_msg}",
    )
}
