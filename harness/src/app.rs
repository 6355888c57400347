//! The commands: `run`, `parse`, `matrix`, `list`, `summary`, `kcidb`,
//! `console` ([`crate::dialogue`]), and the build-and-boot loops `retest`
//! and `check` ([`crate::lanes`]).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::arch_table::{qemu_hint, qemu_packages, ArchSpec, ArchTable};
use crate::axis::fragment;
use crate::board::{BootCommand, Launcher};
use crate::cli::{
    BootOptions, CheckArgs, Cli, Command, ConsoleArgs, DialogueKind, Format, KcidbArgs, LoopArgs,
    MatrixArgs, ParseArgs, RunArgs, SummaryArgs,
};
use crate::dialogue;
use crate::error::HarnessError;
use crate::fsx;
use crate::junit;
use crate::ktap::Counts;
use crate::lanes::{self, LoopSetup};
use crate::layout::{self, Layout};
use crate::manifest::{Manifest, MANIFEST_PATH, TARGET_LISTING};
use crate::matrix::{kernel_toolchain, toolchain_of_config, Matrix, MatrixRow};
use crate::plan;
use crate::printout::{self, TestPrinter};
use crate::qemu::{self, QemuCommand, Timeouts};
use crate::report::{self, seconds, ArchResult, HostInfo, ImageFile, ImageRelease};
use crate::session::Session;
use crate::verdict::{self, InfraFailure, RunEnding, TimeoutLimits, Verdict};

/// Shutdown grace period (after the sentinel or a panic) before scaling.
const GRACE_S: f64 = 10.0;

/// Runs the command line; returns the exit status.
pub fn main(cli: Cli) -> u8 {
    match dispatch(cli) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("rust-qemu-test: error: {error}");
            Verdict::InfrastructureFailure.exit_code()
        }
    }
}

fn dispatch(cli: Cli) -> Result<u8, HarnessError> {
    let tree = layout::tree_root(cli.tree.as_deref());
    let table = ArchTable::load(cli.arches.as_deref(), &tree)?;
    match &cli.command {
        Command::Run(args) => run(&table, &tree, cli.manifest.as_deref(), args),
        Command::Parse(args) => {
            let path = cli
                .manifest
                .clone()
                .unwrap_or_else(|| tree.join(MANIFEST_PATH));
            let machine = args
                .machine
                .clone()
                .unwrap_or_else(|| parse_arch_name(&table, args));
            parse(&table, &Manifest::list(&path, &machine)?, args)
        }
        Command::Matrix(args) => matrix(&table, &tree, args),
        Command::List(args) => {
            print!("{}", list(&table, args.cells));
            Ok(0)
        }
        Command::Summary(args) => summary(&table, args),
        Command::Kcidb(args) => kcidb(&table, &tree, args),
        Command::Retest(args) => {
            let layout = Layout::resolve(&args.boot.dirs);
            let jobs = plan::retest_jobs(&table, &args.arch, &layout.output, &tree)?;
            build_and_boot(&jobs, &tree, cli.manifest.as_deref(), args, None)
        }
        Command::LavaRun(args) => {
            crate::lava_run::run_jobs(&table, &tree, cli.manifest.as_deref(), args)
        }
        Command::LavaJobs(args) => {
            crate::lava::write_jobs(&table, &tree, cli.manifest.as_deref(), args)
        }
        Command::Check(args) => {
            let layout = Layout::resolve(&args.run.boot.dirs);
            let jobs = plan::check_jobs(&table, &args.run.arch, &layout.output)?;
            build_and_boot(&jobs, &tree, cli.manifest.as_deref(), &args.run, Some(args))
        }
        Command::Console(args) => console(args),
    }
}

/// `console`: the dialogue's output, then its verdict line.
fn console(args: &ConsoleArgs) -> Result<u8, HarnessError> {
    let (name, script) = match args.dialogue {
        DialogueKind::Shell => ("shell", dialogue::Script::shell()),
        DialogueKind::Menuconfig => ("menuconfig", dialogue::Script::menuconfig()),
    };
    let ending = dialogue::run(&args.command, script)?;
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(&ending.output);
    match ending.failure {
        None => {
            let _ = writeln!(out, "\nconsole {name}: ok");
            Ok(0)
        }
        Some(why) => {
            let _ = writeln!(out, "\nconsole {name}: FAILED: {why}");
            Ok(1)
        }
    }
}

/// `retest` and `check`: the jobs through the two lanes, then the table
/// and every failure again.
fn build_and_boot(
    jobs: &[plan::Job],
    tree: &Path,
    manifest: Option<&Path>,
    args: &LoopArgs,
    check: Option<&CheckArgs>,
) -> Result<u8, HarnessError> {
    let layout = Layout::resolve(&args.boot.dirs);
    let setup = LoopSetup {
        tree,
        logs: check
            .and_then(|c| c.logs.clone())
            .unwrap_or_else(|| layout.output.join("logs")),
        layout,
        boot: &args.boot,
        manifest,
        hook: check.and_then(|c| c.hook.as_deref()),
        steps: check.and_then(|c| c.steps.as_deref()),
    };
    let rows = lanes::run(jobs, &setup)?;
    let mut failures = Vec::new();
    for row in &rows {
        if let lanes::Built::Failed { log, tail } = &row.built {
            failures.push(format!(
                "{}: build failed, last lines of {}:",
                row.arch,
                log.display()
            ));
            failures.extend(tail.iter().map(|l| format!("     | {l}")));
        }
        if let Some(Ok(result)) = &row.boot {
            failures.extend(result.failure_lines());
        }
    }
    match args.format {
        Format::Text => {
            printout::failures(&failures);
            print!("\n{}", lanes::text(&rows));
        }
        Format::Tsv => print!("{}", lanes::tsv(&rows)),
    }
    Ok(lanes::exit_code(&rows))
}

/// Writes results.json and junit.xml into `dir`.
fn write_results(dir: &Path, result: &ArchResult) -> Result<(), HarnessError> {
    fsx::create_dir(dir)?;
    result.write_json(&dir.join("results.json"))?;
    fsx::write(&dir.join("junit.xml"), &junit::render(result))
}

fn scaled(seconds: f64, multiplier: f64) -> Duration {
    Duration::try_from_secs_f64(seconds * multiplier).unwrap_or(Duration::MAX)
}

/// The tests `spec`'s run must report: the listing its image carries (its
/// manifest and the drop-ins other packages installed, for its machine);
/// `--manifest` (or, without an image, the tree's manifest) listed by the
/// runner's reader for the image's machine. `only`: the top-level tests
/// `--only` keeps (all if empty).
pub(crate) fn arch_manifest(
    chosen: Option<&Path>,
    spec: &ArchSpec,
    layout: &Layout,
    tree: &Path,
    only: &[String],
) -> Result<Manifest, HarnessError> {
    let listing = spec.target_dir(&layout.output).join(TARGET_LISTING);
    let machine = || spec.guest_machine(&layout.output);
    let manifest = match chosen {
        Some(path) => Manifest::list(path, &machine())?,
        None if listing.is_file() => Manifest::load(&listing)?,
        None => Manifest::list(&tree.join(MANIFEST_PATH), &machine())?,
    };
    if only.is_empty() {
        return Ok(manifest);
    }
    let path = manifest.path.display().to_string();
    manifest
        .only(only)
        .map_err(|names| HarnessError::UnknownTest {
            manifest: path,
            names,
        })
}

fn run(
    table: &ArchTable,
    tree: &Path,
    chosen_manifest: Option<&Path>,
    args: &RunArgs,
) -> Result<u8, HarnessError> {
    let arches = table.select(&args.arch)?;
    // Every arch's command first: an error in the tree stops before any boot.
    let boots = arches
        .iter()
        .map(|spec| spec.boot_command(tree))
        .collect::<Result<Vec<_>, _>>()?;
    let layout = Layout::resolve(&args.boot.dirs);
    let mut total = Counts::default();
    let mut worst = 0;
    let mut failures = Vec::new();
    for (spec, boot) in arches.iter().zip(&boots) {
        let manifest = arch_manifest(chosen_manifest, spec, &layout, tree, &args.boot.only)?;
        let result = run_arch(spec, boot, &manifest, &layout, &args.boot, tree)?;
        total += result.counts;
        worst = worst.max(result.verdict.exit_code());
        failures.extend(result.failure_lines());
    }
    if arches.len() > 1 {
        let all: Vec<&ArchSpec> = table.arches.iter().collect();
        let (_, path) = write_matrix(table, &all, tree, &layout)?;
        println!("arch matrix: {}", path.display());
        printout::failures(&failures);
    }
    println!("{}", report::final_line(total));
    Ok(worst)
}

/// Checks what a boot needs: the QEMU binary and the images.
fn preflight(
    spec: &ArchSpec,
    command: &BootCommand,
    images: &Path,
    qemu_dir: Option<&Path>,
    tree: &Path,
) -> Result<PathBuf, InfraFailure> {
    // A UML kernel is one of the images, checked below.
    let found = match command.launcher {
        Launcher::Qemu => qemu::find_program(&command.program, qemu_dir),
        Launcher::Uml => Some(images.join(&command.program)),
    };
    let Some(program) = found else {
        let place = match qemu_dir {
            Some(dir) => format!("in {}", dir.display()),
            None => "in PATH".to_string(),
        };
        return Err(verdict::qemu_not_found(
            &command.program,
            &place,
            &qemu_hint(&command.program, &qemu_packages(tree)),
        ));
    };
    let missing: Vec<String> = command
        .images
        .iter()
        .map(|name| images.join(name))
        .filter(|path| !path.is_file())
        .map(|path| path.display().to_string())
        .collect();
    if !missing.is_empty() {
        return Err(verdict::images_missing(&missing, &spec.build_command()));
    }
    Ok(program)
}

/// Removes the files of an earlier run from `dir`, which must not pass
/// for this one's (a UML boot's copy-on-write files start empty, as
/// QEMU's -snapshot); returns the console log's path.
fn clear_results_dir(dir: &Path, boot: &BootCommand) -> Result<PathBuf, HarnessError> {
    fsx::create_dir(dir)?;
    let console_path = dir.join("console.log");
    let cows = crate::board::uml_cow_files(&boot.args);
    let cow_paths = cows.iter().filter_map(|cow| Path::new(cow).file_name());
    for old in [console_path.clone(), dir.join("results.json")]
        .into_iter()
        .chain(cow_paths.map(|name| dir.join(name)))
    {
        fsx::remove_file(&old)?;
    }
    Ok(console_path)
}

/// An arch's result before its boot: what was asked for.
fn new_result(spec: &ArchSpec, multiplier: f64) -> ArchResult {
    let mut result = ArchResult::new(&spec.name, "qemu");
    result.started_at = Some(report::utc_now());
    result.defconfig = Some(spec.defconfig.clone());
    result.host = HostInfo::current();
    result.timeout_multiplier = Some(multiplier);
    result.boot_timeout_s = Some(spec.boot_timeout_s * multiplier);
    result.test_timeout_s = Some(spec.test_timeout_s * multiplier);
    result.durations_from = Some("host clock".to_string());
    result
}

/// Settles the verdict, writes results.json and junit.xml, prints the end.
fn finish(mut result: ArchResult, dir: &Path) -> Result<ArchResult, HarnessError> {
    result.settle();
    write_results(dir, &result)?;
    printout::arch_end(&result);
    Ok(result)
}

/// What a finished QEMU run left: its facts, its tests, its verdict.
fn record_run(
    result: &mut ArchResult,
    run: qemu::QemuRun,
    spec: &ArchSpec,
    manifest: &Manifest,
    console_path: &Path,
) {
    result.console_log = Some(console_path.display().to_string());
    result.console_lines = Some(run.outcome.console_lines);
    result.qemu_exit_code = run.exit_code;
    result.qemu_stderr = Some(run.stderr.clone()).filter(|s| !s.is_empty());
    result.boot_duration_s = run.boot_duration.map(|d| d.as_secs_f64());
    result.test_duration_s = run.test_duration.map(|d| d.as_secs_f64());
    result.runner_exit = run.outcome.runner_exit;
    result.kernel_release = run.outcome.kernel_release.clone();
    let limits = TimeoutLimits {
        boot_s: spec.boot_timeout_s,
        test_s: spec.test_timeout_s,
        multiplier: result.timeout_multiplier.unwrap_or(1.0),
    };
    let ending = RunEnding {
        timeout: verdict::timeout_failure(
            run.end,
            limits,
            run.running_at_timeout.as_deref(),
            run.outcome.last_line.as_deref(),
        ),
        console_error: run.console_error.clone(),
        exit_code: run.exit_code,
        stderr_tail: verdict::stderr_tail(&run.stderr),
    };
    if let Some(failure) = verdict::infra_failure(&run.outcome, Some(&ending), manifest) {
        result.set_infra(failure);
    }
    result.tests = run.outcome.tests;
    manifest.set_sources(&mut result.tests);
}

pub(crate) fn run_arch(
    spec: &ArchSpec,
    boot: &BootCommand,
    manifest: &Manifest,
    layout: &Layout,
    args: &BootOptions,
    tree: &Path,
) -> Result<ArchResult, HarnessError> {
    let arch = spec.name.as_str();
    let multiplier = args.timeout_multiplier;
    let dir = layout.results.join(arch);
    let console_path = clear_results_dir(&dir, boot)?;
    let mut result = new_result(spec, multiplier);

    let images = spec.images_dir(&layout.output);
    let program = match preflight(spec, boot, &images, args.qemu_binary_dir.as_deref(), tree) {
        Ok(program) => program,
        Err(failure) => {
            result.set_infra(failure);
            return finish(result, &dir);
        }
    };
    result.qemu_version = qemu::qemu_version(&program);
    // What runs: the images' checksums, the compilers of the kernel build
    result.images = boot
        .images
        .iter()
        .filter_map(|name| ImageFile::read(&images, name))
        .collect();
    result.record_image(&spec.target_dir(&layout.output));
    let command = QemuCommand {
        program,
        args: boot.launch_args(
            &ArchSpec::cmdline_extra(&kernel_args(manifest, args)),
            &args.qemu_extra,
            &dir,
        ),
        cwd: images,
    };
    result.qemu_command = Some(command.argv());
    result.qemu_cwd = Some(command.cwd.display().to_string());
    let timeouts = Timeouts {
        boot: scaled(spec.boot_timeout_s, multiplier),
        test: scaled(spec.test_timeout_s, multiplier),
        grace: scaled(GRACE_S, multiplier),
    };
    println!(
        "{arch}: booting (boot timeout {}, test timeout {}): {}",
        seconds(result.boot_timeout_s),
        seconds(result.test_timeout_s),
        command.shell_line()
    );

    let mut printer = TestPrinter::new(arch, manifest);
    let session = Session::new(spec.kernel_log_ignore.clone());
    let on_event = |session: &Session, event: &_| printer.on_event(session, event);
    match qemu::run(&command, timeouts, &console_path, session, on_event) {
        Ok(run) => {
            printer.rest(&run.outcome);
            record_run(&mut result, run, spec, manifest, &console_path);
        }
        Err(HarnessError::Spawn { program, source }) => {
            result.set_infra(verdict::spawn_failure(&program, &source));
        }
        Err(other) => return Err(other),
    }
    finish(result, &dir)
}

/// The kernel arguments of a run: the manifest's `cmdline` words, the
/// runner's selection (`--only`), then `--kernel-arg`s.
fn kernel_args(manifest: &Manifest, args: &BootOptions) -> Vec<String> {
    let mut words = manifest.kernel_args.clone();
    if !args.only.is_empty() {
        words.push(format!("rusttest.only={}", args.only.join(",")));
    }
    words.extend(args.kernel_args.iter().cloned());
    words
}

/// The arch a console belongs to: `--arch`, else its directory's name if
/// that is an arch of the table, else `console`.
fn parse_arch_name(table: &ArchTable, args: &ParseArgs) -> String {
    if let Some(arch) = &args.arch {
        return arch.clone();
    }
    args.console
        .canonicalize()
        .ok()
        .and_then(|p| {
            p.parent()
                .and_then(|d| d.file_name())
                .map(|n| n.to_string_lossy().to_string())
        })
        .filter(|name| table.get(name).is_some())
        .unwrap_or_else(|| "console".to_string())
}

fn parse(table: &ArchTable, manifest: &Manifest, args: &ParseArgs) -> Result<u8, HarnessError> {
    let bytes = fsx::read(&args.console)?;
    let arch = parse_arch_name(table, args);
    let spec = table.get(&arch);
    let mut session = Session::new(
        spec.map(|s| s.kernel_log_ignore.clone())
            .unwrap_or_default(),
    );
    let mut printer = TestPrinter::new(&arch, manifest);
    let mut lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    if lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    for line in lines {
        for event in session.push_raw(line) {
            printer.on_event(&session, &event);
        }
    }
    let outcome = session.finish();
    printer.rest(&outcome);

    let mut result = ArchResult::new(&arch, "console");
    result.defconfig = spec.map(|s| s.defconfig.clone());
    result.host = HostInfo::current();
    result.console_log = Some(args.console.display().to_string());
    result.console_lines = Some(outcome.console_lines);
    let (boot, tests) = outcome.guest_durations();
    result.boot_duration_s = boot;
    result.test_duration_s = tests;
    result.durations_from = Some("guest printk timestamps".to_string());
    result.runner_exit = outcome.runner_exit;
    result.kernel_release = outcome.kernel_release.clone();
    if let Some(failure) = verdict::infra_failure(&outcome, None, manifest) {
        result.set_infra(failure);
    }
    result.tests = outcome.tests;
    manifest.set_sources(&mut result.tests);
    result.settle();
    if let Some(results_dir) = &args.results_dir {
        let dir = results_dir.join(&arch);
        write_results(&dir, &result)?;
        let copy = dir.join("console.log");
        let same = match (copy.canonicalize(), args.console.canonicalize()) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        };
        if !same {
            fsx::copy(&args.console, &copy)?;
        }
    }
    printout::arch_end(&result);
    println!("{}", report::final_line(result.counts));
    Ok(result.verdict.exit_code())
}

/// The matrix row of an arch the tree tests: its results, what its image
/// says of its kernel (configuration and toolchain), its QEMU machine.
fn matrix_row(spec: &ArchSpec, tree: &Path, layout: &Layout) -> Result<MatrixRow, HarnessError> {
    let path = layout.results.join(&spec.name).join("results.json");
    let result = if path.is_file() {
        Some(ArchResult::read_json(&path)?)
    } else {
        None
    };
    let release = ImageRelease::read(&spec.target_dir(&layout.output));
    let config = release.as_ref().map(|r| r.text().to_string());
    let tools = release.as_ref().map(ImageRelease::toolchain);
    // a cell's configuration: the defconfig, then its toolchain's fragment
    let defconfig = std::fs::read_to_string(spec.defconfig_file(tree))
        .ok()
        .map(|text| match &spec.toolchain {
            Some(t) => text + &std::fs::read_to_string(tree.join(fragment(t))).unwrap_or_default(),
            None => text,
        });
    let machine = spec.boot_command(tree).ok();
    Ok(MatrixRow {
        // The image's own record first: UML's toolchain is not in its defconfig.
        toolchain: config
            .as_deref()
            .zip(tools.as_ref())
            .and_then(|(config, tools)| toolchain_of_config(config, tools))
            .or_else(|| defconfig.as_deref().map(kernel_toolchain)),
        qemu_machine: machine.and_then(|m| m.platform()),
        ..MatrixRow::new(spec.matrix_name(), result.as_ref(), config.as_deref())
    })
}

/// Writes arch-matrix.md and arch-matrix.json into the results directory:
/// a row for each arch of `arches`, then the table's other arches. Returns
/// the Markdown text and the file's path.
fn write_matrix(
    table: &ArchTable,
    arches: &[&ArchSpec],
    tree: &Path,
    layout: &Layout,
) -> Result<(String, PathBuf), HarnessError> {
    let mut rows = Vec::new();
    for spec in arches {
        rows.push(matrix_row(spec, tree, layout)?);
    }
    rows.extend(table.others.iter().map(MatrixRow::other));
    let matrix = Matrix { rows };
    fsx::create_dir(&layout.results)?;
    let md = layout.results.join("arch-matrix.md");
    let text = matrix.markdown();
    fsx::write(&md, &text)?;
    let mut json = serde_json::to_string_pretty(&matrix)?;
    json.push('\n');
    fsx::write(&layout.results.join("arch-matrix.json"), &json)?;
    Ok((text, md))
}

fn matrix(table: &ArchTable, tree: &Path, args: &MatrixArgs) -> Result<u8, HarnessError> {
    let layout = Layout::resolve(&args.dirs);
    let arches = table.select_reported(&args.arch, &layout.results)?;
    let (text, path) = write_matrix(table, &arches, tree, &layout)?;
    print!("{text}");
    println!("\narch matrix: {}", path.display());
    Ok(0)
}

/// `<arch> <defconfig>` lines, or the cells' `<cell> <defconfig>
/// <toolchain> check|extra` lines.
fn list(table: &ArchTable, cells: bool) -> String {
    if cells {
        return table
            .cells
            .iter()
            .map(|c| {
                let toolchain = c.spec.toolchain.as_deref().unwrap_or("-");
                let when = if c.check { "check" } else { "extra" };
                format!("{} {} {toolchain} {when}\n", c.spec.name, c.spec.defconfig)
            })
            .collect();
    }
    table
        .arches
        .iter()
        .map(|a| format!("{} {}\n", a.name, a.defconfig))
        .collect()
}

/// The counts of the arches' results.json files, after their failures
/// (text), or per arch (tsv); an arch without a readable one counts as
/// one failure.
fn summary(table: &ArchTable, args: &SummaryArgs) -> Result<u8, HarnessError> {
    let layout = Layout::resolve(&args.dirs);
    let mut total = Counts::default();
    let mut failures = Vec::new();
    let mut rows = String::new();
    for spec in table.select_reported(&args.arch, &layout.results)? {
        let path = layout.results.join(&spec.name).join("results.json");
        let (verdict, counts) = match ArchResult::read_json(&path) {
            Ok(result) => {
                failures.extend(result.failure_lines());
                (result.verdict.name().to_string(), result.counts)
            }
            Err(error) => {
                eprintln!("rust-qemu-test: {}: no results: {error}", spec.name);
                let missing = Counts {
                    failed: 1,
                    ..Counts::default()
                };
                ("missing".to_string(), missing)
            }
        };
        total += counts;
        rows.push_str(&tsv_counts(&spec.name, &verdict, counts));
    }
    match args.format {
        Format::Tsv => print!("{rows}{}", tsv_counts("total", "-", total)),
        Format::Text => {
            printout::failures(&failures);
            println!(
                "passed {} failed {} skipped {}",
                total.passed, total.failed, total.skipped
            );
        }
    }
    Ok(0)
}

fn tsv_counts(name: &str, verdict: &str, c: Counts) -> String {
    format!(
        "{name}\t{verdict}\t{}\t{}\t{}\n",
        c.passed, c.failed, c.skipped
    )
}

/// The KCIDB document of the arches' results.json files (those that have
/// one, unless `--arch` names them: then each must), written to a file.
fn kcidb(table: &ArchTable, tree: &Path, args: &KcidbArgs) -> Result<u8, HarnessError> {
    let layout = Layout::resolve(&args.dirs);
    let mut results = Vec::new();
    for spec in table.select_reported(&args.arch, &layout.results)? {
        let path = layout.results.join(&spec.name).join("results.json");
        if args.arch.is_empty() && !path.is_file() {
            continue;
        }
        results.push(ArchResult::read_json(&path)?);
    }
    let checkout = crate::kcidb::Checkout::of_results(&results, pinned_tarball(tree)?)
        .map_err(HarnessError::KernelSource)?;
    let doc = crate::kcidb::document(&checkout, &results);
    let output = args
        .output
        .clone()
        .unwrap_or_else(|| layout.results.join("kcidb.json"));
    let mut text = serde_json::to_string_pretty(&doc)?;
    text.push('\n');
    fsx::write(&output, &text)?;
    let count = |key: &str| doc[key].as_array().map_or(0, Vec::len);
    println!(
        "kcidb: {} ({} builds, {} tests)",
        output.display(),
        count("builds"),
        count("tests")
    );
    Ok(0)
}

/// The pinned kernel tarball: its line of `patches/linux/linux.hash`.
fn pinned_tarball(tree: &Path) -> Result<Option<String>, HarnessError> {
    Ok(fsx::read_to_string(&tree.join("patches/linux/linux.hash"))?
        .lines()
        .find(|l| l.starts_with("sha256") && l.ends_with(".tar.xz"))
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" ")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict::ExitReason;

    #[test]
    fn lists_the_table() {
        let tree = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let table = ArchTable::load(None, &tree).expect("table");
        let text = list(&table, false);
        assert_eq!(text.lines().count(), table.arches.len());
        // board folder order: board/qemu/aarch64/ first
        assert!(
            text.starts_with("aarch64 qemu_aarch64_rust_defconfig\n"),
            "{text}"
        );
        assert!(text.contains("\nx86_64-kasan qemu_x86_64_kasan_rust_defconfig\n"));
    }

    #[test]
    fn scaling() {
        assert_eq!(scaled(120.0, 0.5), Duration::from_secs(60));
        assert_eq!(scaled(f64::MAX, 10.0), Duration::MAX);
    }

    #[test]
    fn preflight_names_package_and_make_command() {
        let tree = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let table = ArchTable::load(None, &tree).expect("table");
        let tree = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let empty = std::env::temp_dir();
        for spec in &table.arches {
            let boot = spec.boot_command(&tree).expect("readme command");
            let err = preflight(
                spec,
                &boot,
                &empty,
                Some(Path::new("/nonexistent-dir")),
                &tree,
            )
            .expect_err("no qemu there");
            if boot.launcher == Launcher::Uml {
                // the UML kernel is an image: missing, built by its defconfig
                assert_eq!(err.kind, ExitReason::ImageMissing);
                assert!(err.message.contains(&spec.defconfig), "{}", err.message);
                continue;
            }
            assert_eq!(err.kind, ExitReason::QemuNotFound);
            let expected = format!("{} not found in /nonexistent-dir", boot.program);
            assert!(err.message.contains(&expected), "{}", err.message);
            assert!(err.message.contains("make setup"), "{}", err.message);
        }
    }
}
