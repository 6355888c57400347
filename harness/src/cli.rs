//! Command line (clap derive).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Boots the Rust-for-Linux test images in QEMU and reports their KTAP
/// results (docs/test-protocol.md).
///
/// Exit status: 0 all tests passed, 1 test failures, 2 infrastructure
/// failure (no QEMU, missing image, hang, kernel panic, missing end
/// sentinel) or a usage error.
#[derive(Debug, Parser)]
#[command(name = "rust-qemu-test", version)]
pub struct Cli {
    /// A table of [[arch]] entries read before the board folders' arch.toml
    /// (an entry of it wins).
    #[arg(long, global = true, value_name = "FILE")]
    pub arches: Option<PathBuf>,
    /// The BR2_EXTERNAL tree (board readmes, runner manifest, defconfigs)
    /// [default: the repository around the current directory, else the one
    /// the harness was built in]
    #[arg(long, global = true, value_name = "DIR")]
    pub tree: Option<PathBuf>,
    /// The runner's manifest, which names the tests each arch must report
    /// [default: the one the image runs, <output>/<defconfig>/target/usr/share/rust-tests/manifest,
    /// with its `include`d drop-ins; without an output (parse), <tree>/package/rust-tests/src/manifest]
    #[arg(long, global = true, value_name = "FILE")]
    pub manifest: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Boot each arch's image in QEMU and run the tests.
    Run(RunArgs),
    /// Write the arch support matrix from the per-arch results.
    Matrix(MatrixArgs),
    /// Re-parse a recorded console.log offline (same report and exit status).
    Parse(ParseArgs),
    /// Print the arch table: one `<arch> <defconfig>` line per arch.
    List(ListArgs),
    /// Print the failures of the per-arch results.json files again, then
    /// their counts as one line `passed N failed N skipped N` (an arch
    /// without results counts as one failure).
    Summary(SummaryArgs),
    /// Write the arches' results as one KernelCI KCIDB document (schema
    /// v5.3): a checkout, a build per arch, a test per KTAP test.
    Kcidb(KcidbArgs),
    /// The edit -> result loop: rebuild what changed in each arch's
    /// existing output, boot it in quick mode while the next one builds,
    /// then one table. Exit status: as `run`; a failed build counts as 1.
    Retest(LoopArgs),
    /// Build each arch afresh, its hook's steps, boot it while the next
    /// one builds (every test; quick mode for a toolchain cell), one table.
    Check(CheckArgs),
    /// Write a LAVA job and device file for each built QEMU arch and cell:
    /// <lava-dir>/<arch>/{job.yaml,device.yaml}, booting what `run` boots.
    LavaJobs(LavaJobsArgs),
    /// Run jobs of `lava-jobs` with LAVA's own dispatcher (Debian 12's
    /// lava-run, as root), judged like a direct boot: results in
    /// <results-dir>/<arch>@lava/, compared with the direct boot's.
    /// Exit status: as `run`; 77 if not root (nothing ran).
    LavaRun(LavaRunArgs),
    /// Drive a console (make check's interactive checks): start COMMAND,
    /// type what the dialogue says when its output says so, judge its end.
    /// Prints the output, then one verdict line; exit status 0 or 1.
    Console(ConsoleArgs),
}

#[derive(Debug, Args)]
pub struct ConsoleArgs {
    /// shell: a root shell that answers `echo $((6 * 7))answer`, then
    /// `poweroff` ends the command with exit 0 (images/start-qemu.sh);
    /// menuconfig: Escape until the menu ends, exit 0, nothing saved
    #[arg(value_enum)]
    pub dialogue: DialogueKind,
    /// The command and its arguments
    #[arg(last = true, required = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

/// The dialogues of `console`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DialogueKind {
    Shell,
    Menuconfig,
}

#[derive(Debug, Args)]
pub struct LavaRunArgs {
    /// Arch whose job to run (repeatable)
    #[arg(long = "arch", value_name = "ARCH", required = true)]
    pub arch: Vec<String>,
    #[command(flatten)]
    pub dirs: Dirs,
    /// Where lava-jobs wrote <arch>/{job.yaml,device.yaml} [default: output/lava]
    #[arg(long, value_name = "DIR")]
    pub lava_dir: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct LavaJobsArgs {
    /// Arch or cell (repeatable) [default: every one with images]
    #[arg(long = "arch", value_name = "ARCH")]
    pub arch: Vec<String>,
    /// Buildroot output root holding <defconfig>/images/ [default: output]
    #[arg(long, value_name = "DIR")]
    pub output_dir: Option<PathBuf>,
    /// Where to write <arch>/{job.yaml,device.yaml} [default: output/lava]
    #[arg(long, value_name = "DIR")]
    pub lava_dir: Option<PathBuf>,
    /// http(s) URL under which a lab serves each output's images/ as
    /// <URL>/<output name>/ [default: file:// URLs of this machine's images]
    #[arg(long, value_name = "URL", env = "LAVA_BASE_URL")]
    pub base_url: Option<String>,
}

#[derive(Debug, Clone, Args)]
pub struct ListArgs {
    /// Print the cells of the toolchain axis instead (support/toolchains/axis.toml):
    /// one `<cell> <defconfig> <toolchain> check|extra` line per cell (check:
    /// make check builds it)
    #[arg(long)]
    pub cells: bool,
}

/// Where the images are and where results go.
#[derive(Debug, Clone, Args)]
pub struct Dirs {
    /// Buildroot output root holding <defconfig>/images/
    /// [default: output, in the repository root]
    #[arg(long, value_name = "DIR")]
    pub output_dir: Option<PathBuf>,
    /// Where to write <arch>/{results.json,junit.xml,console.log}
    /// [default: output/tests, in the repository root]
    #[arg(long, value_name = "DIR")]
    pub results_dir: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// Arch to run (repeatable) [default: every arch in the table]
    #[arg(long = "arch", value_name = "ARCH")]
    pub arch: Vec<String>,
    #[command(flatten)]
    pub boot: BootOptions,
}

/// How an image is booted and where its results go (`run`, `retest`, `check`).
#[derive(Debug, Clone, Args)]
pub struct BootOptions {
    #[command(flatten)]
    pub dirs: Dirs,
    /// Scale the boot and test timeouts (and the shutdown grace period)
    #[arg(long, value_name = "FACTOR", default_value_t = 1.0, value_parser = parse_multiplier)]
    pub timeout_multiplier: f64,
    /// Extra QEMU argument (repeatable), appended to the command line
    #[arg(long = "qemu-extra", value_name = "ARG", allow_hyphen_values = true)]
    pub qemu_extra: Vec<String>,
    /// Extra kernel command-line argument (repeatable), e.g. `rusttest=quick`
    /// (the runner then loads and unloads each module 3 times, not 100)
    #[arg(long = "kernel-arg", value_name = "ARG")]
    pub kernel_args: Vec<String>,
    /// Run only these top-level tests of the manifest (the kernel argument
    /// `rusttest.only=`; the others are neither run nor expected)
    #[arg(long, value_name = "TEST[,TEST...]", value_delimiter = ',')]
    pub only: Vec<String>,
    /// Take the QEMU binaries from this directory instead of PATH
    #[arg(long, value_name = "DIR", env = "RUST_QEMU_TEST_QEMU_DIR")]
    pub qemu_binary_dir: Option<PathBuf>,
}

/// The arches of a build-and-boot loop and how its table is printed.
#[derive(Debug, Args)]
pub struct LoopArgs {
    /// Arch or toolchain cell (repeatable, in this order); `all`: every
    /// arch of the table
    #[arg(long = "arch", value_name = "ARCH", required = true)]
    pub arch: Vec<String>,
    #[command(flatten)]
    pub boot: BootOptions,
    /// The closing table: for people, or one tab-separated line per arch
    /// (arch, build, verdict, passed, failed, skipped, build s, boot s,
    /// failing tests joined by `; `)
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// The form of a closing table or summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Text,
    Tsv,
}

/// `check`: fresh builds, the steps around them.
#[derive(Debug, Args)]
pub struct CheckArgs {
    #[command(flatten)]
    pub run: LoopArgs,
    /// A command run as `HOOK build|built|booted <arch> <output dir>
    /// <defconfig> [<toolchain>]`: before the build (non-zero: not built),
    /// after it (in the build lane) and after the boot (in the boot lane)
    #[arg(long, value_name = "COMMAND")]
    pub hook: Option<String>,
    /// Append each build step's outcome (`ok|FAIL <tab> name <tab> seconds`)
    /// to this file, as the hook's steps do
    #[arg(long, value_name = "FILE")]
    pub steps: Option<PathBuf>,
    /// Where the build logs go [default: output/logs]
    #[arg(long, value_name = "DIR")]
    pub logs: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct MatrixArgs {
    /// Arch to include (repeatable) [default: every arch in the table, and the toolchain cells with results]
    #[arg(long = "arch", value_name = "ARCH")]
    pub arch: Vec<String>,
    #[command(flatten)]
    pub dirs: Dirs,
}

#[derive(Debug, Args)]
pub struct SummaryArgs {
    /// Arch to count (repeatable) [default: every arch in the table, and the toolchain cells with results]
    #[arg(long = "arch", value_name = "ARCH")]
    pub arch: Vec<String>,
    #[command(flatten)]
    pub dirs: Dirs,
    /// text: the failures, then `passed N failed N skipped N`; tsv: one
    /// line per arch (arch, verdict, passed, failed, skipped), then
    /// `total` with the sums (an arch without results: verdict `missing`,
    /// counted as one failure)
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

#[derive(Debug, Args)]
pub struct KcidbArgs {
    /// Arch to include (repeatable) [default: every arch and toolchain cell with results]
    #[arg(long = "arch", value_name = "ARCH")]
    pub arch: Vec<String>,
    #[command(flatten)]
    pub dirs: Dirs,
    /// Where to write it [default: <results-dir>/kcidb.json]
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct ParseArgs {
    /// A console.log recorded by `run` (or any serial console capture)
    #[arg(value_name = "CONSOLE_LOG")]
    pub console: PathBuf,
    /// Arch to report it as [default: the log's directory name if it is an
    /// arch of the table, else "console"]
    #[arg(long, value_name = "ARCH")]
    pub arch: Option<String>,
    /// Also write <DIR>/<arch>/{results.json,junit.xml,console.log}
    #[arg(long, value_name = "DIR")]
    pub results_dir: Option<PathBuf>,
    /// The guest's `uname -m`, which the manifest's `arch` lines name (an
    /// image records its own: /etc/rust-qemu-release) [default: the arch]
    #[arg(long, value_name = "MACHINE")]
    pub machine: Option<String>,
}

fn parse_multiplier(text: &str) -> Result<f64, String> {
    let value: f64 = text
        .parse()
        .map_err(|_| format!("'{text}' is not a number"))?;
    if value.is_finite() && value > 0.0 {
        Ok(value)
    } else {
        Err(format!("'{text}' is not a positive number"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn parses_run() {
        let cli = Cli::try_parse_from([
            "rust-qemu-test",
            "run",
            "--arch",
            "x86_64",
            "--arch",
            "riscv64",
            "--timeout-multiplier",
            "2.5",
            "--qemu-extra",
            "-s",
            "--qemu-extra=-S",
            "--output-dir",
            "/o",
        ])
        .expect("parses");
        let Command::Run(run) = cli.command else {
            panic!("not run");
        };
        assert_eq!(run.arch, ["x86_64", "riscv64"]);
        assert_eq!(run.boot.timeout_multiplier, 2.5);
        assert_eq!(run.boot.qemu_extra, ["-s", "-S"]);
        assert_eq!(run.boot.dirs.output_dir, Some(PathBuf::from("/o")));
        assert_eq!(run.boot.dirs.results_dir, None);
    }

    #[test]
    fn rejects_bad_multipliers() {
        for bad in ["0", "-1", "nan", "x"] {
            assert!(
                Cli::try_parse_from(["rust-qemu-test", "run", "--timeout-multiplier", bad])
                    .is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn parses_parse_and_matrix() {
        let cli = Cli::try_parse_from(["rust-qemu-test", "parse", "c.log", "--arch", "riscv64"])
            .expect("parses");
        assert!(
            matches!(cli.command, Command::Parse(ref p) if p.arch.as_deref() == Some("riscv64"))
        );
        let cli = Cli::try_parse_from(["rust-qemu-test", "--arches", "t.toml", "matrix"])
            .expect("parses");
        assert_eq!(cli.arches, Some(PathBuf::from("t.toml")));
        assert!(matches!(cli.command, Command::Matrix(_)));
        let cli =
            Cli::try_parse_from(["rust-qemu-test", "summary", "--arch", "x86_64"]).expect("parses");
        assert!(matches!(cli.command, Command::Summary(ref s) if s.arch == ["x86_64"]));
        let cli = Cli::try_parse_from([
            "rust-qemu-test",
            "retest",
            "--arch",
            "all",
            "--format",
            "tsv",
        ])
        .expect("parses");
        assert!(
            matches!(cli.command, Command::Retest(ref r) if r.arch == ["all"] && r.format == Format::Tsv)
        );
        assert!(Cli::try_parse_from(["rust-qemu-test", "retest"]).is_err());
        let cli = Cli::try_parse_from(["rust-qemu-test", "list"]).expect("parses");
        assert!(matches!(
            cli.command,
            Command::List(ListArgs { cells: false })
        ));
    }
}
