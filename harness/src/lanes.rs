//! The build-and-boot loop: two lanes. The build lane runs each job's
//! make commands (both cores) one job after the other; the boot lane
//! (this thread) boots each built image (QEMU's TCG: one core) while the
//! build lane makes the next one. A finished build waits in a queue of
//! one for the boot lane, so the build lane runs at most two jobs ahead
//! and three outputs at most are in flight (one booting, one waiting, one
//! building). The hook's steps after a build run beside its boot.
//! Rows come back in job order; a failed build is a row with its log's
//! last lines and does not stop the other jobs.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc::{channel, sync_channel, Receiver, Sender, SyncSender};
use std::time::Instant;

use crate::app::{arch_manifest, run_arch};
use crate::cli::BootOptions;
use crate::error::HarnessError;
use crate::fsx;
use crate::interrupt::{self, Stop};
use crate::layout::Layout;
use crate::plan::Job;
use crate::report::ArchResult;

/// Lines of a failed build's log shown in the output and the table.
const TAIL_LINES: usize = 30;

/// The build lane's commands run niced, so that a boot keeps the CPU it
/// needs (QEMU's TCG runs a thread per guest CPU).
const NICE: [&str; 3] = ["nice", "-n", "10"];

/// A boot in the loop shares the machine with the next arch's build: its
/// boot and test timeouts are this many times the arch table's (times
/// `--timeout-multiplier`); they catch hangs, not slow runs.
pub const SHARED_MACHINE: f64 = 2.0;

/// What the loop needs besides its jobs.
pub struct LoopSetup<'a> {
    pub tree: &'a Path,
    pub layout: Layout,
    pub boot: &'a BootOptions,
    /// `--manifest`, else each image's own.
    pub manifest: Option<&'a Path>,
    /// Build logs go here.
    pub logs: PathBuf,
    /// `check --hook`: `HOOK build|built|booted <arch> <output> <defconfig> [<toolchain>]`.
    pub hook: Option<&'a str>,
    /// `check --steps`: each build step's outcome appended.
    pub steps: Option<&'a Path>,
}

/// How a job's build ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Built {
    Ok,
    /// make failed: its log and last lines.
    Failed {
        log: PathBuf,
        tail: Vec<String>,
    },
    /// Not built (retest of an output never built): the build command.
    Never(String),
    /// The hook's `build` phase said no (it printed why).
    Refused,
}

impl Built {
    fn word(&self) -> &'static str {
        match self {
            Built::Ok => "ok",
            Built::Failed { .. } => "failed",
            Built::Never(_) => "not-built",
            Built::Refused => "refused",
        }
    }
}

/// A job's row of the table.
#[derive(Debug)]
pub struct Row {
    pub arch: String,
    pub built: Built,
    pub build_s: f64,
    /// The boot's result, or why there is none although it was built.
    pub boot: Option<Result<ArchResult, String>>,
    pub boot_s: f64,
    pub named: bool,
}

impl Row {
    /// Exit status, as `run`'s: a failed build counts as a test failure,
    /// an arch named but never built as an infrastructure one.
    pub fn exit_code(&self) -> u8 {
        match (&self.built, &self.boot) {
            (Built::Ok, Some(Ok(result))) => result.verdict.exit_code(),
            (Built::Ok, _) => 2,
            (Built::Never(_), _) if !self.named => 0,
            (Built::Never(_), _) => 2,
            (Built::Failed { .. } | Built::Refused, _) => 1,
        }
    }
}

struct BuildDone {
    built: Built,
    secs: f64,
}

/// Runs the jobs; returns their rows in job order.
pub fn run(jobs: &[Job], setup: &LoopSetup) -> Result<Vec<Row>, HarnessError> {
    fsx::create_dir(&setup.logs)?;
    // a finished build waits in a queue of one for the boot lane, so the
    // next build starts even when a boot and its hook outlast a build
    let (tx, rx) = sync_channel::<BuildDone>(1);
    let (hooked_tx, hooked) = channel::<usize>();
    std::thread::scope(|scope| {
        scope.spawn(move || build_lane(jobs, setup, &tx, &hooked_tx));
        boot_lane(jobs, setup, &rx, &hooked)
    })
}

/// Builds each job; once the boot lane has a built job, runs the hook's
/// `built` phase (beside its boot), then says so on `hooked`.
fn build_lane(jobs: &[Job], setup: &LoopSetup, tx: &SyncSender<BuildDone>, hooked: &Sender<usize>) {
    for (index, job) in jobs.iter().enumerate() {
        if interrupt::interrupted() {
            return;
        }
        let started = Instant::now();
        let built = build(job, setup);
        let ok = built == Built::Ok;
        let done = BuildDone {
            built,
            secs: started.elapsed().as_secs_f64(),
        };
        if tx.send(done).is_err() {
            return;
        }
        if ok {
            hook(setup, "built", job);
        }
        if hooked.send(index).is_err() {
            return;
        }
    }
}

/// Boots each built job; its `booted` hook phase waits for its `built`
/// one (which may still read the build trees the former may remove).
fn boot_lane(
    jobs: &[Job],
    setup: &LoopSetup,
    rx: &Receiver<BuildDone>,
    hooked: &Receiver<usize>,
) -> Result<Vec<Row>, HarnessError> {
    let mut rows = Vec::new();
    for (index, job) in jobs.iter().enumerate() {
        let Ok(done) = rx.recv() else {
            break;
        };
        if interrupt::interrupted() {
            break;
        }
        let started = Instant::now();
        let boot = (done.built == Built::Ok).then(|| boot(job, setup));
        let boot_s = started.elapsed().as_secs_f64();
        let built_hook_done = hooked.iter().any(|i| i == index);
        if boot.is_some() && built_hook_done {
            hook(setup, "booted", job);
        }
        rows.push(Row {
            arch: job.spec.name.clone(),
            built: done.built,
            build_s: done.secs,
            boot_s,
            boot,
            named: job.named,
        });
    }
    Ok(rows)
}

/// Boots a built job's image (`run`'s engine: it prints as `run` does).
fn boot(job: &Job, setup: &LoopSetup) -> Result<ArchResult, String> {
    let spec = &job.spec;
    let command = spec.boot_command(setup.tree).map_err(|e| e.to_string())?;
    let manifest = arch_manifest(
        setup.manifest,
        spec,
        &setup.layout,
        setup.tree,
        &setup.boot.only,
    )
    .map_err(|e| e.to_string())?;
    let mut options = setup.boot.clone();
    options.timeout_multiplier *= SHARED_MACHINE;
    options
        .kernel_args
        .splice(0..0, job.kernel_args.iter().cloned());
    run_arch(
        spec,
        &command,
        &manifest,
        &setup.layout,
        &options,
        setup.tree,
    )
    .map_err(|e| {
        println!("{}: harness error: {e}", spec.name);
        e.to_string()
    })
}

/// The hook's `build` phase, the make commands, the `built` phase.
fn build(job: &Job, setup: &LoopSetup) -> Built {
    if let Some(command) = &job.not_built {
        return Built::Never(command.clone());
    }
    if !hook(setup, "build", job) {
        return Built::Refused;
    }
    let log = setup.logs.join(job.log_name());
    let started = Instant::now();
    println!("{}: building (log: {})", job.spec.name, log.display());
    let ok = make_all(job, setup.tree, &log);
    let secs = started.elapsed().as_secs();
    let step = format!("{}-{}", job.kind, job.spec.name);
    let built = if ok {
        println!("ok   {step} ({secs}s)");
        Built::Ok
    } else {
        let tail = log_tail(&log);
        println!("FAIL {step} ({secs}s), last lines of {}:", log.display());
        for line in &tail {
            println!("     | {line}");
        }
        println!("     {}: not booted, its build failed", job.spec.name);
        Built::Failed { log, tail }
    };
    record_step(setup.steps, ok, &step, secs);
    built
}

/// Runs the job's make command lines in order, their output to `log`,
/// make niced so that a boot of the other lane keeps its core.
fn make_all(job: &Job, tree: &Path, log: &Path) -> bool {
    let Ok(file) = File::create(log) else {
        println!("{}: cannot write {}", job.spec.name, log.display());
        return false;
    };
    for args in &job.builds {
        let (Ok(out), Ok(err)) = (file.try_clone(), file.try_clone()) else {
            return false;
        };
        let mut command = Command::new(NICE[0]);
        command
            .args(&NICE[1..])
            .arg("make")
            .args(args)
            .current_dir(tree);
        interrupt::own_group(&mut command)
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err);
        let Ok(mut child) = command.spawn() else {
            println!(
                "{}: cannot start make ({} make)",
                job.spec.name,
                NICE.join(" ")
            );
            return false;
        };
        let _group = interrupt::register(child.id(), Stop::Term);
        if !child.wait().is_ok_and(|s| s.success()) {
            return false;
        }
    }
    true
}

/// The last lines of a log.
fn log_tail(log: &Path) -> Vec<String> {
    let Ok(file) = File::open(log) else {
        return Vec::new();
    };
    let lines: Vec<String> = BufReader::new(file).lines().map_while(Result::ok).collect();
    lines[lines.len().saturating_sub(TAIL_LINES)..].to_vec()
}

/// Appends `ok|FAIL <tab> name <tab> seconds` to the steps file.
fn record_step(steps: Option<&Path>, ok: bool, name: &str, secs: u64) {
    use std::io::Write;
    let Some(path) = steps else {
        return;
    };
    let word = if ok { "ok" } else { "FAIL" };
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .and_then(|mut f| writeln!(f, "{word}\t{name}\t{secs}"));
    if let Err(e) = written {
        println!("cannot record step {name} in {}: {e}", path.display());
    }
}

/// Runs a phase of the hook, if there is one; true if it passed (or
/// there is none).
fn hook(setup: &LoopSetup, phase: &str, job: &Job) -> bool {
    let Some(hook) = setup.hook else {
        return true;
    };
    // the build lane's phases niced, as its make
    let lane = if phase == "booted" {
        &[][..]
    } else {
        &NICE[..]
    };
    let mut command = Command::new(lane.first().copied().unwrap_or("sh"));
    if !lane.is_empty() {
        command.args(&lane[1..]).arg("sh");
    }
    command
        .args([
            "-c",
            &format!("{hook} \"$@\""),
            "hook",
            phase,
            &job.spec.name,
        ])
        .arg(&job.output)
        .arg(&job.spec.defconfig)
        .args(job.spec.toolchain.iter())
        .current_dir(setup.tree)
        .stdin(Stdio::null());
    let status = interrupt::own_group(&mut command)
        .spawn()
        .and_then(|mut child| {
            let _group = interrupt::register(child.id(), Stop::Term);
            child.wait()
        });
    match status {
        Ok(status) => status.success(),
        Err(e) => {
            println!("{}: cannot run the hook '{hook}': {e}", job.spec.name);
            false
        }
    }
}

/// The loop's exit status: the worst row's.
pub fn exit_code(rows: &[Row]) -> u8 {
    rows.iter().map(Row::exit_code).max().unwrap_or(0)
}

/// The failing tests of a row, `; `-joined (its build's failure, or what
/// its results name).
fn failing(row: &Row) -> String {
    match (&row.built, &row.boot) {
        (Built::Failed { log, .. }, _) => format!("build failed: {}", log.display()),
        (Built::Never(command), _) => format!("not built: {command}"),
        (Built::Refused, _) => "not built: the check's hook refused (above)".to_string(),
        (Built::Ok, Some(Err(error))) => error.clone(),
        (Built::Ok, Some(Ok(result))) => {
            let mut names: Vec<String> = result.infra_line().into_iter().collect();
            names.extend(
                result
                    .tests
                    .iter()
                    .filter(|t| t.status == crate::ktap::Status::Fail)
                    .map(|t| t.name.clone()),
            );
            names.join("; ")
        }
        (Built::Ok, None) => String::new(),
    }
}

fn verdict(row: &Row) -> &'static str {
    match &row.boot {
        Some(Ok(result)) => result.verdict.name(),
        Some(Err(_)) => "harness-error",
        None => "-",
    }
}

fn counts(row: &Row) -> [u64; 3] {
    match &row.boot {
        Some(Ok(r)) => [r.counts.passed, r.counts.failed, r.counts.skipped],
        _ => [0, 0, 0],
    }
}

/// One tab-separated line per row: arch, build, verdict, passed, failed,
/// skipped, build s, boot s, failing.
pub fn tsv(rows: &[Row]) -> String {
    rows.iter()
        .map(|row| {
            let [p, f, s] = counts(row);
            let failing = failing(row).replace(['\t', '\n'], " ");
            format!(
                "{}\t{}\t{}\t{p}\t{f}\t{s}\t{:.0}\t{:.0}\t{failing}\n",
                row.arch,
                row.built.word(),
                verdict(row),
                row.build_s,
                row.boot_s
            )
        })
        .collect()
}

/// The table for people.
pub fn text(rows: &[Row]) -> String {
    let mut out = format!(
        "{:<26} {:<9} {:<22} {:>6} {:>6} {:>7} {:>7} {:>7}  {}\n",
        "arch", "build", "tests", "passed", "failed", "skipped", "build s", "boot s", "failing"
    );
    for row in rows {
        let [p, f, s] = counts(row);
        out.push_str(&format!(
            "{:<26} {:<9} {:<22} {p:>6} {f:>6} {s:>7} {:>7.0} {:>7.0}  {}\n",
            row.arch,
            row.built.word(),
            verdict(row),
            row.build_s,
            row.boot_s,
            failing(row)
        ));
    }
    out
}
