//! `fc-studies readme`: the README's numbers from a fresh run, so they cannot
//! drift from the code. Every result the README quotes sits in a marked
//! block (`<!-- fc-lab readme: NAME -->` … `<!-- /fc-lab readme -->`);
//! the command reruns the scenarios behind them and rewrites the blocks,
//! or with `--check` reports the blocks that differ (exit code 1).
//!
//! - [`runs`]: the runs behind the numbers (the comparison matrix, the
//!   named runs, the fault sweep);
//! - [`blocks`]: the text of each block;
//! - [`calibration`]: the simulator beside real neqo, three blocks;
//! - [`real_short`]: the short transfers in real neqo, one block;
//! - [`headline`]: the README's first tables (one per RTT set, the
//!   runs per RTT below them), one block;
//! - [`real_quinn`]: quinn-proto with and without neqo-fc, one block;
//! - [`real_scoreboard`]: real neqo's and real quinn's scoreboards (the upstream series
//!   against each stack as it ships), one block each;
//! - [`blind_start`]: the credit given before the rate is known, against
//!   it, one block;
//! - [`markers`]: finding and replacing the blocks in the file.

pub mod blind_start;
pub mod blocks;
pub mod calibration;
pub mod headline;
pub mod markers;
pub mod real_quinn;
pub mod real_scoreboard;
pub mod real_short;
pub mod runs;
