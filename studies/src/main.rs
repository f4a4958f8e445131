//! `fc-studies`: the lab's studies and the generator of the docs' numbers.
//! All logic lives in the `fc_studies` library; see `fc-studies --help`.

fn main() {
    std::process::exit(fc_studies::cli::main_with_args(std::env::args_os()));
}
