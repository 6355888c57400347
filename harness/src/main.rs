use std::process::ExitCode;

use clap::Parser;

use rust_qemu_test::{app, cli::Cli};

fn main() -> ExitCode {
    ExitCode::from(app::main(Cli::parse()))
}
