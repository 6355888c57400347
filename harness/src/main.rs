use std::process::ExitCode;

use clap::Parser;

use rust_qemu_test::{app, cli::Cli};

fn main() -> ExitCode {
    let cli = Cli::parse();
    rust_qemu_test::interrupt::install();
    let code = app::main(cli);
    rust_qemu_test::interrupt::settle();
    ExitCode::from(code)
}
