//! `lava-run`: an arch's job of `lava-jobs` run end to end by LAVA's own
//! dispatcher (Debian 12's `lava-run`, standalone, no server), judged by
//! the harness: LAVA's log is one JSON object a line, its `target` lines
//! are the guest's console, which the same session reads as a direct
//! boot's. The results go to `<results>/<arch>@lava/`, and are compared
//! with the direct boot's of the same image when there is one.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::app::arch_manifest;
use crate::arch_table::{ArchTable, LAVA_SUFFIX};
use crate::cli::LavaRunArgs;
use crate::error::HarnessError;
use crate::fsx;
use crate::interrupt::{self, Stop};
use crate::layout::Layout;
use crate::printout::{self, TestPrinter};
use crate::report::{self, ArchResult, HostInfo};
use crate::session::Session;
use crate::verdict::{self, ExitReason, InfraFailure};

/// Exit status of a run that could not happen here (not root): a skip.
pub const SKIPPED: u8 = 77;

/// What LAVA's log said besides the console.
#[derive(Debug, Default)]
struct LavaLog {
    /// The `job` result of the `lava` definition: pass, or fail with why.
    job: Option<(String, String)>,
    /// The monitor's results: (test case, result).
    monitor: Vec<(String, String)>,
}

impl LavaLog {
    /// Reads one `lvl: results` message.
    fn result(&mut self, msg: &Value) {
        let text = |key: &str| {
            msg.get(key)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        match (text("definition").as_str(), text("case").as_str()) {
            ("lava", "job") => {
                let why = [text("error_type"), text("error_msg")].join(": ");
                self.job = Some((text("result"), why));
            }
            ("rust-tests", case) => self.monitor.push((case.to_string(), text("result"))),
            _ => {}
        }
    }
}

/// Runs the jobs of `args.arch`; the worst exit status, `SKIPPED` if not root.
pub fn run_jobs(
    table: &ArchTable,
    tree: &Path,
    manifest: Option<&Path>,
    args: &LavaRunArgs,
) -> Result<u8, HarnessError> {
    let layout = Layout::resolve(&args.dirs);
    let lava_dir = args
        .lava_dir
        .clone()
        .unwrap_or_else(|| layout.output.join("lava"));
    // SAFETY: geteuid has no arguments and cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        for arch in &args.arch {
            println!(
                "SKIP {arch}{LAVA_SUFFIX}: Debian 12's lava-run runs as root only (this is uid {}); \
                 its job was written and validated, not run",
                // SAFETY: as above.
                unsafe { libc::geteuid() }
            );
        }
        return Ok(SKIPPED);
    }
    let Some(lava_run) = crate::qemu::find_program("lava-run", None) else {
        println!("no lava-run in PATH: Debian's lava-dispatcher, installed by make setup (support/setup-host.sh check)");
        return Ok(2);
    };
    let mut worst = 0;
    for arch in &args.arch {
        let spec = table.get(&format!("{arch}{LAVA_SUFFIX}")).ok_or_else(|| {
            HarnessError::UnknownArch {
                name: arch.clone(),
                known: table.names().join(", "),
            }
        })?;
        let jobs = lava_dir.join(arch);
        if !jobs.join("job.yaml").is_file() {
            println!(
                "{arch}: no {}: make lava-jobs first",
                jobs.join("job.yaml").display()
            );
            worst = 2;
            continue;
        }
        let manifest = arch_manifest(manifest, spec, &layout, tree, &[])?;
        let dir = layout.results.join(&spec.name);
        fsx::create_dir(&dir)?;
        let mut result = ArchResult::new(&spec.name, "lava");
        result.started_at = Some(report::utc_now());
        result.defconfig = Some(spec.defconfig.clone());
        result.host = HostInfo::current();
        result.durations_from = Some("guest printk timestamps".to_string());
        result.qemu_command = Some(vec![
            lava_run.display().to_string(),
            jobs.join("job.yaml").display().to_string(),
        ]);
        result.record_image(&spec.target_dir(&layout.output));
        let limit = Duration::from_secs_f64(spec.boot_timeout_s + spec.test_timeout_s + 300.0);
        println!(
            "{}: lava-run {} (log: {})",
            spec.name,
            jobs.join("job.yaml").display(),
            dir.join("lava.log").display()
        );
        let mut printer = TestPrinter::new(&spec.name, &manifest);
        let mut session = Session::new(spec.kernel_log_ignore.clone());
        let ran = run_one(&lava_run, &jobs, &dir, limit, &mut |line| {
            for event in session.push_raw(line.as_bytes()) {
                printer.on_event(&session, &event);
            }
        })?;
        let outcome = session.finish();
        printer.rest(&outcome);
        let (boot, tests) = outcome.guest_durations();
        result.boot_duration_s = boot;
        result.test_duration_s = tests;
        result.console_log = Some(dir.join("console.log").display().to_string());
        result.console_lines = Some(outcome.console_lines);
        result.runner_exit = outcome.runner_exit;
        result.kernel_release = outcome.kernel_release.clone();
        if let Some(failure) = verdict::infra_failure(&outcome, None, &manifest) {
            result.set_infra(failure);
        }
        if let Some(failure) = lava_failure(&ran) {
            result.set_infra(failure);
        }
        result.tests = outcome.tests;
        manifest.set_sources(&mut result.tests);
        result.settle();
        result.write_json(&dir.join("results.json"))?;
        fsx::write(&dir.join("junit.xml"), &crate::junit::render(&result))?;
        printout::arch_end(&result);
        println!(
            "{}: LAVA's own view: job {}, {} monitor results ({} fail)",
            spec.name,
            ran.log.job.as_ref().map_or("unknown", |(r, _)| r.as_str()),
            ran.log.monitor.len(),
            ran.log.monitor.iter().filter(|(_, r)| r == "fail").count()
        );
        let mut code = result.verdict.exit_code();
        let direct = layout.results.join(arch).join("results.json");
        if direct.is_file() {
            let differences = compare(&ArchResult::read_json(&direct)?, &result);
            if differences.is_empty() {
                println!(
                    "{}: the same tests and verdicts as the direct boot ({})",
                    spec.name,
                    direct.display()
                );
            } else {
                println!(
                    "{}: NOT the direct boot's results ({}):",
                    spec.name,
                    direct.display()
                );
                for d in &differences {
                    println!("     | {d}");
                }
                code = code.max(1);
            }
        }
        worst = worst.max(code);
    }
    Ok(worst)
}

/// How one lava-run ended.
struct Ran {
    log: LavaLog,
    exit: Option<i32>,
    killed: bool,
}

/// LAVA's word on a run the console alone does not explain: its job
/// failed, lava-run failed, or it was killed.
fn lava_failure(ran: &Ran) -> Option<InfraFailure> {
    if ran.killed {
        return Some(InfraFailure::new(
            ExitReason::TestTimeout,
            "lava-run outlived the job's timeouts and was killed",
        ));
    }
    match (&ran.log.job, ran.exit) {
        (Some((result, _)), Some(0)) if result == "pass" => None,
        (Some((result, why)), _) if result != "pass" => Some(InfraFailure::new(
            ExitReason::LabFailure,
            format!("LAVA's job failed ({why})"),
        )),
        (_, exit) => Some(InfraFailure::new(
            ExitReason::LabFailure,
            format!("lava-run exited {exit:?} without a job result"),
        )),
    }
}

/// Runs lava-run on `jobs/{job,device}.yaml`: its log to `dir/lava.log`,
/// its `target` lines to `dir/console.log` and `console`.
fn run_one(
    lava_run: &Path,
    jobs: &Path,
    dir: &Path,
    limit: Duration,
    console: &mut dyn FnMut(&str),
) -> Result<Ran, HarnessError> {
    let output = std::env::temp_dir().join(format!("rust-qemu-lava-{}", std::process::id()));
    let mut command = Command::new(lava_run);
    command
        .arg("--job-id")
        .arg(format!("rust-qemu-{}", std::process::id()))
        .arg("--output-dir")
        .arg(&output)
        .arg("--device")
        .arg(jobs.join("device.yaml"))
        .arg(jobs.join("job.yaml"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = interrupt::own_group(&mut command)
        .spawn()
        .map_err(|source| HarnessError::Spawn {
            program: lava_run.display().to_string(),
            source,
        })?;
    let _group = interrupt::register(child.id(), Stop::Kill);
    // its log comes on stdout or stderr (which, depends on its version
    // and where they go): both, a line at a time
    let (tx, rx) = mpsc::channel();
    let stdout = child
        .stdout
        .take()
        .map(|s| Box::new(s) as Box<dyn Read + Send>);
    let stderr = child
        .stderr
        .take()
        .map(|s| Box::new(s) as Box<dyn Read + Send>);
    for stream in stdout.into_iter().chain(stderr) {
        let tx = tx.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stream).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
    }
    drop(tx);
    let mut log = fsx::create(&dir.join("lava.log"))?;
    let mut console_log = fsx::create(&dir.join("console.log"))?;
    let mut lava = LavaLog::default();
    let deadline = Instant::now() + limit;
    let mut killed = false;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(line) => {
                let _ = writeln!(log, "{line}");
                let Some(entry) = log_entry(&line) else {
                    continue;
                };
                match (entry.get("lvl").and_then(Value::as_str), entry.get("msg")) {
                    // console lines; "feedback" ones LAVA read while
                    // it disconnected, after the monitor's end
                    (Some("target" | "feedback"), Some(Value::String(text))) => {
                        let text = text.trim_end_matches('\r');
                        let _ = writeln!(console_log, "{text}");
                        console(text);
                    }
                    (Some("results"), Some(msg)) => lava.result(msg),
                    _ => {}
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                killed = true;
                break;
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
    }
    if killed {
        // SAFETY: kill(2) of the process group lava-run leads (own_group).
        unsafe {
            libc::kill(-(child.id() as libc::pid_t), libc::SIGKILL);
        }
    }
    let exit = child.wait().ok().and_then(|s| s.code());
    let _ = std::fs::remove_dir_all(&output);
    Ok(Ran {
        log: lava,
        exit,
        killed,
    })
}

/// One line of LAVA's log: JSON, but for the escapes LAVA 2023.01 writes
/// the way Python does for console text: `\\xHH` for a byte that is not
/// UTF-8 (read as U+00HH) and `\\UXXXXXXXX` for a character beyond U+FFFF.
fn log_entry(line: &str) -> Option<Value> {
    if let Ok(entry) = serde_json::from_str(line) {
        return Some(entry);
    }
    let mut json = String::with_capacity(line.len() + 16);
    let mut rest = line;
    while let Some(at) = rest.find('\\') {
        json.push_str(&rest[..at]);
        let escape = &rest[at..];
        let (hex, len) = match escape.as_bytes().get(1) {
            Some(b'x') => (escape.get(2..4), 4),
            Some(b'U') => (escape.get(2..10), 10),
            _ => (None, 2),
        };
        match hex
            .and_then(|h| u32::from_str_radix(h, 16).ok())
            .and_then(char::from_u32)
        {
            Some(c) => json.push(c),
            None => json.push_str(escape.get(..2).unwrap_or(escape)),
        }
        rest = escape.get(len..).unwrap_or("");
    }
    json.push_str(rest);
    serde_json::from_str(&json).ok()
}

/// What differs between a direct boot's results and a LAVA run's of the
/// same image: the top-level tests, their verdicts, the counts.
fn compare(direct: &ArchResult, lava: &ArchResult) -> Vec<String> {
    let verdicts = |r: &ArchResult| -> Vec<String> {
        r.tests
            .iter()
            .map(|t| format!("{} {:?}", t.name, t.status))
            .collect()
    };
    let (a, b) = (verdicts(direct), verdicts(lava));
    let mut out: Vec<String> = a
        .iter()
        .filter(|t| !b.contains(t))
        .map(|t| format!("direct only: {t}"))
        .chain(
            b.iter()
                .filter(|t| !a.contains(t))
                .map(|t| format!("LAVA only: {t}")),
        )
        .collect();
    if direct.counts != lava.counts {
        out.push(format!(
            "counts: direct {} passed {} failed {} skipped, LAVA {} passed {} failed {} skipped",
            direct.counts.passed,
            direct.counts.failed,
            direct.counts.skipped,
            lava.counts.passed,
            lava.counts.failed,
            lava.counts.skipped
        ));
    }
    if direct.verdict != lava.verdict {
        out.push(format!(
            "verdict: direct {}, LAVA {}",
            direct.verdict.name(),
            lava.verdict.name()
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ktap::parse_str;
    use serde_json::json;

    fn result(ktap: &str) -> ArchResult {
        let mut r = ArchResult::new("x86_64", "qemu");
        r.tests = parse_str(ktap).tests;
        r.settle();
        r
    }

    #[test]
    fn same_results_compare_equal_and_a_failure_shows() {
        let pass = "KTAP version 1\n1..2\nok 1 a\nok 2 b\n";
        let fail = "KTAP version 1\n1..2\nok 1 a\nnot ok 2 b\n";
        assert!(compare(&result(pass), &result(pass)).is_empty());
        let differences = compare(&result(pass), &result(fail));
        assert!(
            differences.iter().any(|d| d == "LAVA only: b Fail"),
            "{differences:?}"
        );
        assert!(
            differences.iter().any(|d| d.starts_with("counts: ")),
            "{differences:?}"
        );
    }

    #[test]
    fn log_lines_with_lavas_byte_escapes() {
        let line =
            r#"{"lvl": "target", "msg": "read: Gr\xFCezi \\x41 \"q\" \U0001F980mod \u00e9"}"#;
        let entry = log_entry(line).expect("read");
        assert_eq!(
            entry["msg"],
            "read: Gr\u{fc}ezi \\x41 \"q\" \u{1f980}mod \u{e9}"
        );
        assert!(log_entry("not json").is_none());
    }

    #[test]
    fn lava_job_results_and_failures() {
        let mut log = LavaLog::default();
        log.result(&json!({"definition": "rust-tests", "case": "config", "result": "pass"}));
        log.result(
            &json!({"definition": "lava", "case": "job", "result": "fail",
                           "error_type": "Infrastructure", "error_msg": "Connection closed"}),
        );
        assert_eq!(log.monitor, [("config".to_string(), "pass".to_string())]);
        let ran = Ran {
            log,
            exit: Some(1),
            killed: false,
        };
        let failure = lava_failure(&ran).expect("a failure");
        assert!(
            failure
                .message
                .contains("Infrastructure: Connection closed"),
            "{}",
            failure.message
        );
        let ok = Ran {
            log: LavaLog {
                job: Some(("pass".into(), String::new())),
                monitor: Vec::new(),
            },
            exit: Some(0),
            killed: false,
        };
        assert!(lava_failure(&ok).is_none());
    }
}
