//! The command line (`run`, `compare`, `profiles`, `sweep`), with the
//! pieces other command lines on the lab reuse (flag parsers, progress bars,
//! output). A bad value produces one line, `error: --flag: expected …, got
//! "…"`, and exit code 2; nothing panics on any input (a closed pipe ends
//! the program quietly).

mod args;
mod compare;
mod output;
mod profiles;
mod progress;
mod run;
mod sweep;
mod values;

use std::ffi::OsString;

use crate::error::LabError;

use clap::{
    CommandFactory, FromArgMatches, Parser,
    error::{ContextKind, ContextValue, ErrorKind},
};

pub use self::{
    args::{
        BehaviourArgs, CcArg, Cli, Command, CompareArgs, PathArgs, ProfilesArgs, QlogLevel,
        RunArgs, SweepArgs, TransportArgs, worker_threads,
    },
    output::{json_line, print},
    profiles::profiles_table,
    progress::runs_bar,
    run::run_summary,
    values::{ArgError, MAX_STREAMS, MAX_SWEEP_SEEDS, threads_arg},
};

/// One line for a clap error: `error: --flag: expected …, got "…"` for bad
/// values, clap's own message (folded onto one line) for the rest.
#[must_use]
pub fn clap_error_line(e: &clap::Error) -> String {
    let flag = || match e.get(ContextKind::InvalidArg) {
        Some(ContextValue::String(arg)) => arg.split([' ', '=']).next().map(str::to_owned),
        _ => None,
    };
    match e.kind() {
        ErrorKind::ValueValidation => {
            if let (Some(flag), Some(source)) = (flag(), std::error::Error::source(e)) {
                return format!("error: {flag}: {source}");
            }
        }
        ErrorKind::InvalidValue => {
            let got = match e.get(ContextKind::InvalidValue) {
                Some(ContextValue::String(s)) => s.clone(),
                _ => String::new(),
            };
            if let (Some(flag), Some(ContextValue::Strings(valid))) =
                (flag(), e.get(ContextKind::ValidValue))
                && !valid.is_empty()
            {
                let valid = valid.join(", ");
                if got.is_empty() {
                    return format!("error: {flag}: a value is required (one of {valid})");
                }
                return format!("error: {flag}: expected one of {valid}, got {got:?}");
            }
            if let Some(flag) = flag() {
                return format!("error: {flag}: a value is required");
            }
        }
        _ => {}
    }
    let rendered = e.render().to_string();
    let body: Vec<&str> = rendered
        .lines()
        .map(str::trim)
        .take_while(|l| !l.starts_with("Usage:") && !l.starts_with("For more information"))
        .filter(|l| !l.is_empty())
        .collect();
    let mut line = body.join(" ");
    if !line.starts_with("error:") {
        line = format!("error: {line}");
    }
    if let Some(command) = usage_command(&rendered) {
        line.push_str(&format!(" (see `{command} --help`)"));
    }
    line
}

/// The command a clap error's usage line names, `fc-lab run` from
/// `Usage: fc-lab run [OPTIONS]`, for the hint to its `--help`.
fn usage_command(rendered: &str) -> Option<String> {
    let usage = rendered
        .lines()
        .find_map(|l| l.trim().strip_prefix("Usage:"))?;
    let words: Vec<&str> = usage
        .split_whitespace()
        .take_while(|w| !w.starts_with(['[', '<', '-']))
        .collect();
    (!words.is_empty()).then(|| words.join(" "))
}

/// Runs the CLI with `args` (the first is the program name) and returns
/// the exit code: 0 success, 1 a run failed (connection error, stalled or
/// timed out, verification failure) or a file could not be written, 2 bad
/// flags.
pub fn main_with_args(args: impl IntoIterator<Item = impl Into<OsString> + Clone>) -> i32 {
    let cmd = Cli::command();
    let index = flag_index(&cmd);
    parse_and_run(cmd.after_help(index), args, |cli: Cli| match cli.command {
        Command::Run(a) => run::cmd_run(&a),
        Command::Compare(a) => compare::cmd_compare(&a),
        Command::Profiles(a) => profiles::cmd_profiles(&a),
        Command::Sweep(a) => sweep::cmd_sweep(&a),
    })
}

/// Width the flag index of the top-level help wraps at.
const INDEX_WIDTH: usize = 100;

/// What the top-level `--help` shows under the commands: every command's
/// flags by name, wrapped, and where each is explained (`fc-lab <command>
/// --help`).
#[must_use]
pub fn flag_index(cmd: &clap::Command) -> String {
    let name = cmd.get_name();
    let subs: Vec<&clap::Command> = cmd.get_subcommands().collect();
    let width = subs.iter().map(|c| c.get_name().len()).max().unwrap_or(0);
    let mut out = format!("Flags of each command (`{name} <COMMAND> --help` explains them):\n");
    for sub in subs {
        let flags: Vec<String> = sub
            .get_arguments()
            .filter(|a| !a.is_hide_set())
            .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
            .chain(["--help".to_owned()])
            .collect();
        let lead = format!("  {:<width$}  ", sub.get_name());
        let mut line = lead.clone();
        for flag in flags {
            if line.len() > lead.len() && line.len() + 1 + flag.len() > INDEX_WIDTH {
                out.push_str(line.trim_end());
                out.push('\n');
                line = " ".repeat(lead.len());
            }
            if line.len() > lead.len() {
                line.push(' ');
            }
            line.push_str(&flag);
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// Parses `args` as the command line `C` and runs it with `command`: help
/// and the version print and exit 0, a bad command line prints one line
/// ([`clap_error_line`]) and exits 2, a command's error prints as
/// `error: …` with its exit code.
pub fn run_command_line<C: Parser>(
    args: impl IntoIterator<Item = impl Into<OsString> + Clone>,
    command: impl FnOnce(C) -> Result<i32, LabError>,
) -> i32 {
    parse_and_run(C::command(), args, command)
}

/// [`run_command_line`] with the command line `cmd` (`C`'s, perhaps with
/// more help text).
fn parse_and_run<C: FromArgMatches>(
    cmd: clap::Command,
    args: impl IntoIterator<Item = impl Into<OsString> + Clone>,
    command: impl FnOnce(C) -> Result<i32, LabError>,
) -> i32 {
    let parsed = cmd
        .try_get_matches_from(args)
        .and_then(|mut m| C::from_arg_matches_mut(&mut m));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) => {
            if matches!(
                e.kind(),
                ErrorKind::DisplayHelp
                    | ErrorKind::DisplayVersion
                    | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            ) {
                let _ = e.print();
                return e.exit_code();
            }
            eprintln!("{}", clap_error_line(&e));
            return 2;
        }
    };
    command(cli).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        e.exit_code()
    })
}

/// Parses `args` (after the program name) as `main_with_args` does: the
/// command line, or its one-line error.
#[cfg(test)]
fn parse(args: &[&str]) -> Result<Cli, String> {
    Cli::try_parse_from(std::iter::once("fc-lab").chain(args.iter().copied()))
        .map_err(|e| clap_error_line(&e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_values_name_the_flag_on_one_line() {
        let cases = [
            (
                &["run", "--rate", "fast"][..],
                "error: --rate: expected a rate like 1Gbit",
            ),
            (
                &["run", "--rtt", "-5ms"],
                "error: --rtt: expected a positive duration",
            ),
            (
                &["run", "--rtt", "1000000s"],
                "error: --rtt: expected an RTT of at most 3600s (one hour), got \"1000000s\"",
            ),
            (
                &["run", "--rate", "50"],
                "error: --rate: expected a rate with its unit like 1Gbit",
            ),
            (
                &["run", "--reverse-rate", "1000000"],
                "error: --reverse-rate: expected a rate with its unit",
            ),
            (
                &["run", "--seed", "99999999999999999999"],
                "error: --seed: expected a seed of at most 18446744073709551615 (2^64 - 1)",
            ),
            (
                &["run", "--seed", "x"],
                "error: --seed: expected a whole number",
            ),
            (
                &["run", "--plot", "out.png"],
                "error: --plot: expected a file name ending in .svg (the plot is SVG), got \"out.png\"",
            ),
            (
                &["run", "--qlog", "x.qlog"],
                "error: --qlog: expected a folder (one trace per endpoint is written into it), got \"x.qlog\"",
            ),
            (
                &["run", "--profile", "fast"],
                "error: --profile: expected a profile name",
            ),
            (
                &["run", "--tuner", "magic"],
                "error: --tuner: expected default, min-rtt, neqo",
            ),
            (
                &["run", "--update-fraction", "0"],
                "error: --update-fraction: expected a fraction in (0, 1]",
            ),
            (
                &["run", "--queue", "x"],
                "error: --queue: expected a queue like 1bdp",
            ),
            (
                &["run", "--cc", "bbr"],
                "error: --cc: expected one of cubic, newreno, got \"bbr\"",
            ),
            (
                &["run", "--streams", "0"],
                "error: --streams: expected a stream count",
            ),
            (
                &["compare", "--threads", "0"],
                "error: --threads: expected a thread count",
            ),
            (
                &["compare", "--profile", "gbit-50ms,nope"],
                "error: --profile: expected a profile name",
            ),
            (
                &["run", "--bogus"],
                "error: unexpected argument '--bogus' found",
            ),
            (
                &["run", "--profile"],
                "error: --profile: a value is required",
            ),
            (&["run", "--cc"], "error: --cc: a value is required"),
        ];
        for (args, want) in cases {
            let e = parse(args).unwrap_err();
            assert!(e.starts_with(want), "{args:?}: {e}");
            assert!(!e.contains('\n'), "{args:?}: {e}");
        }
        // The value given is echoed.
        assert!(
            parse(&["run", "--rate", "fast"])
                .unwrap_err()
                .ends_with("got \"fast\"")
        );
    }
}
