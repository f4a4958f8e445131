//! The command line: `fc-studies readme`, `fc-studies calibrate` and `fc-studies delay`, with
//! fc-lab's flag parsers, error lines and progress bars.

mod calibrate;
mod delay;
mod readme;

use std::{ffi::OsString, path::PathBuf};

use clap::{Args, Parser, Subcommand};
use fc_lab::{
    cli::{BehaviourArgs, run_command_line, threads_arg},
    transport::Preset,
};

/// `fc-studies`: the lab's studies and the docs' numbers.
#[derive(Debug, Parser)]
#[command(
    name = "fc-studies",
    version,
    about = "The lab's studies on fc-lab (calibration against real neqo) and the generator of the \
README's and docs/' numbers"
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// The simulator beside real neqo on the neqo integration's scenarios
    /// (integrations/neqo/run.sh): goodput, peak window and losses side by
    /// side with their ratio. Uses the committed real results unless
    /// --real names a fresh run.sh --json file. About a minute.
    Calibrate(CalibrateArgs),
    /// Rerun every scenario the README and docs/ quote and rewrite their
    /// marked blocks (<!-- fc-lab readme: NAME --> … <!-- /fc-lab readme -->),
    /// or check them with --check (exit code 1 if any differs). A few
    /// minutes.
    Readme(ReadmeArgs),
    /// Paths whose delay varies (jitter, loss recovery, random loss, cross
    /// traffic) and the bufferbloat row, over 21 RTTs: ours against
    /// unlimited windows and the peers (issue #42). 1,386 runs: about 30
    /// minutes on 2 cores; --quick runs 3 RTTs of 256 MiB.
    Delay(DelayArgs),
}

/// Flags of `fc-studies delay`.
#[derive(Debug, Args)]
pub struct DelayArgs {
    /// 3 RTTs and 256 MiB transfers instead of 21 and 1 GiB.
    #[arg(long)]
    pub quick: bool,
    /// Also write the table to this Markdown file (e.g.
    /// docs/varying-delay.md).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Worker threads (default: the number of cores). Results do not
    /// depend on it.
    #[arg(long, value_name = "N", value_parser = threads_arg, allow_hyphen_values = true)]
    pub threads: Option<usize>,
}

/// Flags of `fc-studies readme`.
#[derive(Debug, Args)]
pub struct ReadmeArgs {
    /// A Markdown file with marked blocks (repeat for several). Default:
    /// README.md, integrations/neqo/README.md, integrations/quinn/README.md
    /// and every docs/*.md that has blocks.
    #[arg(long, value_name = "FILE")]
    pub file: Vec<PathBuf>,
    /// Only compare: list the blocks that differ from this build and exit
    /// 1 if any does; the file is not written.
    #[arg(long)]
    pub check: bool,
    /// Worker threads (default: the number of cores). Results do not
    /// depend on it.
    #[arg(long, value_name = "N", value_parser = threads_arg, allow_hyphen_values = true)]
    pub threads: Option<usize>,
}

/// Flags of `fc-studies calibrate`.
#[derive(Debug, Args)]
pub struct CalibrateArgs {
    /// Real results to compare with: a file `integrations/neqo/run.sh
    /// --json FILE` wrote (default: the committed
    /// integrations/neqo/results/matrix.json).
    #[arg(long, value_name = "FILE")]
    pub real: Option<PathBuf>,
    /// Simulated transport model (see `fc-lab run --help`).
    #[arg(long, value_enum, default_value_t = Preset::Neqo)]
    pub transport: Preset,
    /// `--blocked`, `--app-limit`, `--acks`: override the model's.
    #[command(flatten)]
    pub behaviour: BehaviourArgs,
    /// Worker threads (default: the number of cores). Results do not
    /// depend on it.
    #[arg(long, value_name = "N", value_parser = threads_arg, allow_hyphen_values = true)]
    pub threads: Option<usize>,
    /// Print one JSON object (rows, means, …) instead of the tables.
    #[arg(long)]
    pub json: bool,
}

/// Runs the command line `args` (program name first) and returns the exit
/// code: 0 on success, 1 when a check or a run fails, 2 for a bad command
/// line.
pub fn main_with_args(args: impl IntoIterator<Item = impl Into<OsString> + Clone>) -> i32 {
    run_command_line(args, |cli: Cli| match cli.command {
        Command::Calibrate(a) => calibrate::cmd_calibrate(&a),
        Command::Readme(a) => readme::cmd_readme(&a),
        Command::Delay(a) => delay::cmd_delay(&a),
    })
}
