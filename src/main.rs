//! `fc-lab`: compare QUIC receive-window strategies on simulated paths.
//! All logic lives in the `fc_lab` library; see `fc-lab --help`.

fn main() {
    std::process::exit(fc_lab::cli::main_with_args(std::env::args_os()));
}
