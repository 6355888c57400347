//! Helpers of the integration tests: a scratch directory with fake images and
//! a fake QEMU (a shell script that prints a recorded console), and a way to
//! run the harness binary.

#![allow(dead_code)]

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use rust_qemu_test::arch_table::{ArchSpec, ArchTable};
use rust_qemu_test::board::BootCommand;

/// A recorded console in tests/data.
pub fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// What the fake QEMU does after printing its console.
#[derive(Debug, Clone, Copy)]
pub enum After {
    /// Exits 0, as QEMU does when the guest reboots under -no-reboot.
    Exit,
    /// Hangs (keeping the console open), as a stuck guest does.
    Hang,
    /// Prints an error to stderr and exits 1.
    Fail,
}

pub struct Fixture {
    pub root: PathBuf,
}

impl Fixture {
    /// A fresh scratch directory with the images of the given arches: the
    /// files their board readme's QEMU command names.
    pub fn new(name: &str, arches: &[&str]) -> Fixture {
        let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
        let _ = fs::remove_dir_all(&root);
        fs::create_dir_all(root.join("bin")).expect("bin dir");
        let fixture = Fixture { root };
        for arch in arches {
            let images = fixture.images(arch);
            fs::create_dir_all(&images).expect("images dir");
            for file in boot_command(arch).images {
                fs::write(images.join(file), b"image").expect("image");
            }
        }
        fixture
    }

    /// The usual x86_64 fixture.
    pub fn x86(name: &str) -> Fixture {
        Fixture::new(name, &["x86_64"])
    }

    /// `output/<defconfig>/images` of `arch`.
    pub fn images(&self, arch: &str) -> PathBuf {
        arch_spec(arch).images_dir(&self.output())
    }

    pub fn bin(&self) -> PathBuf {
        self.root.join("bin")
    }

    pub fn output(&self) -> PathBuf {
        self.root.join("output")
    }

    pub fn results(&self) -> PathBuf {
        self.root.join("results")
    }

    /// Installs a fake `binary` that prints `console` (a tests/data file),
    /// records its arguments and directory, then does `after`.
    pub fn fake_qemu(&self, binary: &str, console: &str, after: After) {
        let tail = match after {
            After::Exit => "exit 0",
            After::Hang => "exec sleep 60",
            After::Fail => "echo 'qemu: could not load kernel' >&2; exit 1",
        };
        let script = format!(
            "#!/bin/sh\n\
             # Fake QEMU of the rust-qemu-test integration tests.\n\
             case \"$1\" in --version) echo 'QEMU emulator version 0.0.1 (fake)'; exit 0;; esac\n\
             printf '%s\\n' \"$@\" > '{args}'\n\
             pwd > '{cwd}'\n\
             cat '{console}'\n\
             {tail}\n",
            args = self.root.join(format!("{binary}.args")).display(),
            cwd = self.root.join(format!("{binary}.cwd")).display(),
            console = data(console).display(),
        );
        let path = self.bin().join(binary);
        fs::write(&path, script).expect("fake qemu");
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).expect("chmod");
    }

    /// Arguments the fake QEMU got, one per line.
    pub fn qemu_args(&self, binary: &str) -> Vec<String> {
        fs::read_to_string(self.root.join(format!("{binary}.args")))
            .expect("fake qemu ran")
            .lines()
            .map(str::to_string)
            .collect()
    }

    pub fn qemu_cwd(&self, binary: &str) -> PathBuf {
        PathBuf::from(
            fs::read_to_string(self.root.join(format!("{binary}.cwd")))
                .expect("fake qemu ran")
                .trim(),
        )
    }

    /// `rust-qemu-test run` with this fixture's directories and fake QEMU.
    pub fn run(&self, extra: &[&str]) -> Run {
        let mut command = harness();
        command
            .arg("run")
            .arg("--output-dir")
            .arg(self.output())
            .arg("--results-dir")
            .arg(self.results())
            .arg("--qemu-binary-dir")
            .arg(self.bin())
            .args(extra);
        Run::of(command)
    }

    pub fn read(&self, relative: &str) -> String {
        fs::read_to_string(self.root.join(relative)).unwrap_or_else(|e| panic!("{relative}: {e}"))
    }

    pub fn results_json(&self, arch: &str) -> serde_json::Value {
        serde_json::from_str(&self.read(&format!("results/{arch}/results.json")))
            .expect("results.json is JSON")
    }
}

/// The arch of the built-in table called `name`.
pub fn arch_spec(name: &str) -> ArchSpec {
    ArchTable::load(None, &Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
        .expect("table")
        .get(name)
        .expect("arch of the table")
        .clone()
}

/// The QEMU command of `arch`'s board readme.
pub fn boot_command(arch: &str) -> BootCommand {
    let tree = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    arch_spec(arch).boot_command(&tree).expect("readme command")
}

/// The harness binary, with a clean environment for its QEMU lookup and
/// the manifest of the recorded consoles (tests/data/manifest).
pub fn harness() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_rust-qemu-test"));
    command.env_remove("RUST_QEMU_TEST_QEMU_DIR");
    command.arg("--manifest").arg(data("manifest"));
    command
}

impl Fixture {
    /// The harness running `command`, this fixture's `bin/` first in PATH
    /// (a fake make, lava-run...) and its output directory.
    pub fn harness_in_path(&self, command: &str) -> Command {
        let mut harness = harness();
        let path = format!(
            "{}:{}",
            self.bin().display(),
            std::env::var("PATH").unwrap_or_default()
        );
        harness
            .env("PATH", path)
            .arg(command)
            .arg("--output-dir")
            .arg(self.output());
        harness
    }
}

/// A finished harness run.
pub struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
}

impl Run {
    pub fn of(mut command: Command) -> Run {
        let start = Instant::now();
        let Output {
            status,
            stdout,
            stderr,
        } = command.output().expect("harness runs");
        Run {
            code: status.code(),
            stdout: String::from_utf8_lossy(&stdout).into_owned(),
            stderr: String::from_utf8_lossy(&stderr).into_owned(),
            elapsed: start.elapsed(),
        }
    }

    /// The last line of standard output.
    pub fn last_line(&self) -> &str {
        self.stdout.lines().last().unwrap_or("")
    }

    /// Fails with the whole output unless `cond`.
    pub fn check(&self, cond: bool, what: &str) {
        assert!(
            cond,
            "{what}\n--- exit {:?}, {:?}\n--- stdout\n{}--- stderr\n{}",
            self.code, self.elapsed, self.stdout, self.stderr
        );
    }
}
