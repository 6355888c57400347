//! Host-side boot-test harness of the Rust-for-Linux QEMU images: boots each
//! arch's image, reads the serial console, parses the runner's KTAP and
//! reports (docs/test-protocol.md).

pub mod app;
pub mod arch_table;
pub mod axis;
pub mod board;
pub mod cli;
pub mod console;
pub mod dialogue;
pub mod error;
pub mod fsx;
pub mod interrupt;
pub mod junit;
pub mod kcidb;
pub mod ktap;
pub mod lanes;
pub mod lava;
pub mod lava_run;
pub mod layout;
pub mod manifest;
pub mod matrix;
pub mod plan;
pub mod printout;
pub mod qemu;
pub mod report;
pub mod session;
pub mod verdict;
