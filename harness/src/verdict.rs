//! An arch's verdict in one place: the outcome types (`ExitReason`,
//! `InfraFailure`, `Verdict`) and every rule that turns an observation into
//! an infrastructure failure: what the console says (a panic, no sentinel,
//! no KTAP), how QEMU ended (a timeout, a console error, its exit status
//! and stderr), what the image lacks before a boot, a QEMU that does not
//! start, and the tests the manifest names that did not run. `infra_failure`
//! picks the one that wins; the tests' own results decide the rest
//! (`ArchResult::settle`).

use serde::{Deserialize, Serialize};

use crate::ktap::TestNode;
use crate::manifest::Manifest;
use crate::qemu::RunEnd;
use crate::session::{last_line_note, SessionOutcome};

/// Lines of QEMU's stderr quoted in error messages.
const STDERR_LINES: usize = 5;

/// Why the boot ended (`exit_reason` in results.json).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ExitReason {
    /// The end sentinel came: the tests ran to their end.
    Completed,
    BootTimeout,
    TestTimeout,
    KernelPanic,
    /// The console ended without the end sentinel.
    MissingSentinel,
    /// The sentinel came, but no KTAP before it.
    NoKtap,
    /// The KTAP holds no test result (e.g. `1..0`).
    NoTests,
    /// A test that must run on the image's machine is absent or skipped.
    MissingTests,
    QemuNotFound,
    ImageMissing,
    /// QEMU could not be started.
    QemuFailed,
    /// The console could not be read or recorded.
    ConsoleError,
    /// The lab's own run failed (LAVA's job, or lava-run itself).
    LabFailure,
}

impl ExitReason {
    pub fn as_str(self) -> &'static str {
        match self {
            ExitReason::Completed => "completed",
            ExitReason::BootTimeout => "boot-timeout",
            ExitReason::TestTimeout => "test-timeout",
            ExitReason::KernelPanic => "kernel-panic",
            ExitReason::MissingSentinel => "missing-sentinel",
            ExitReason::NoKtap => "no-ktap",
            ExitReason::NoTests => "no-tests",
            ExitReason::MissingTests => "missing-tests",
            ExitReason::QemuNotFound => "qemu-not-found",
            ExitReason::ImageMissing => "image-missing",
            ExitReason::QemuFailed => "qemu-failed",
            ExitReason::ConsoleError => "console-error",
            ExitReason::LabFailure => "lab-failure",
        }
    }
}

/// A failure of the boot itself rather than of a test (exit code 2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InfraFailure {
    pub kind: ExitReason,
    pub message: String,
}

impl InfraFailure {
    pub fn new(kind: ExitReason, message: impl Into<String>) -> InfraFailure {
        InfraFailure {
            kind,
            message: message.into(),
        }
    }
}

/// Overall verdict of one arch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    Pass,
    Fail,
    InfrastructureFailure,
}

impl Verdict {
    /// Its name in results.json (`pass`, `fail`, `infrastructure-failure`).
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Fail => "fail",
            Verdict::InfrastructureFailure => "infrastructure-failure",
        }
    }

    /// Exit code, as tuxrun: 0 pass, 1 test failures, 2 infrastructure.
    pub fn exit_code(self) -> u8 {
        match self {
            Verdict::Pass => 0,
            Verdict::Fail => 1,
            Verdict::InfrastructureFailure => 2,
        }
    }
}

/// What the console alone says went wrong: a panic, a missing sentinel,
/// or a sentinel without KTAP.
pub fn console_failure(outcome: &SessionOutcome) -> Option<InfraFailure> {
    if let Some((line, mark)) = &outcome.panic {
        return Some(InfraFailure::new(
            ExitReason::KernelPanic,
            format!("kernel panic (console.log line {}): {line}", mark.line),
        ));
    }
    if outcome.sentinel.is_none() {
        let what = if outcome.ktap_started {
            "the console ends before the end sentinel `# rust-qemu: end exit=N`".to_string()
        } else {
            "the console ends before the tests started \
             (no `rust-tests: KTAP version 1` line) and without the end sentinel"
                .to_string()
        };
        return Some(InfraFailure::new(
            ExitReason::MissingSentinel,
            format!("missing end sentinel: {what}{}", outcome.last_line_note()),
        ));
    }
    if !outcome.ktap_started {
        let exit = outcome
            .runner_exit
            .map_or("unknown".to_string(), |c| c.to_string());
        return Some(InfraFailure::new(
            ExitReason::NoKtap,
            format!("the runner printed no KTAP before the end sentinel (runner exit {exit})"),
        ));
    }
    None
}

/// How a live run ended, beyond what its console says.
#[derive(Debug, Default)]
pub struct RunEnding {
    /// QEMU killed at the boot or the test timeout: that failure.
    pub timeout: Option<InfraFailure>,
    /// A problem writing or reading the console.
    pub console_error: Option<String>,
    /// QEMU's exit code (None if killed by a signal).
    pub exit_code: Option<i32>,
    /// The last lines of QEMU's standard error, `a | b`.
    pub stderr_tail: Option<String>,
}

/// The first of: a kernel panic, a timeout, a console error, what the
/// console lacks (the end sentinel, KTAP), a test that must run by
/// `manifest` (listed for the image's machine) missing or skipped. `ending`
/// is None for a recorded console.
pub fn infra_failure(
    outcome: &SessionOutcome,
    ending: Option<&RunEnding>,
    manifest: &Manifest,
) -> Option<InfraFailure> {
    let console = console_failure(outcome);
    let panic = console
        .clone()
        .filter(|f| f.kind == ExitReason::KernelPanic);
    panic
        .or_else(|| ending.and_then(|e| e.timeout.clone()))
        .or_else(|| {
            ending
                .and_then(|e| e.console_error.clone())
                .map(|message| InfraFailure::new(ExitReason::ConsoleError, message))
        })
        .or_else(|| console.map(|f| with_qemu_end(f, ending)))
        .or_else(|| manifest_failure(manifest, &outcome.tests))
}

/// The tests of a completed run against its manifest: no test at all, or
/// a test that must run absent or skipped: an empty or partial run is
/// never a pass.
pub fn manifest_failure(manifest: &Manifest, tests: &[TestNode]) -> Option<InfraFailure> {
    if tests.iter().all(|t| t.synthetic) {
        return Some(InfraFailure::new(
            ExitReason::NoTests,
            "no test ran: the runner's KTAP reports no result (plan `1..0`?), \
             as kunit.py's \"no tests run\"",
        ));
    }
    let missing = manifest.missing(tests);
    let machine = manifest.machine.as_deref().unwrap_or("every machine");
    (!missing.is_empty()).then(|| {
        InfraFailure::new(
            ExitReason::MissingTests,
            format!(
                "{} test(s) that {} names for {machine} did not run: {}",
                missing.len(),
                manifest.path.display(),
                missing.join(", ")
            ),
        )
    })
}

/// The boot and test timeouts of a run: as configured, and the multiplier.
#[derive(Debug, Clone, Copy)]
pub struct TimeoutLimits {
    pub boot_s: f64,
    pub test_s: f64,
    pub multiplier: f64,
}

/// QEMU killed at a timeout: that failure, saying what was running and
/// the console's last line.
pub fn timeout_failure(
    end: RunEnd,
    limits: TimeoutLimits,
    running: Option<&str>,
    last_line: Option<&str>,
) -> Option<InfraFailure> {
    let m = limits.multiplier;
    let last = last_line_note(last_line);
    match end {
        RunEnd::BootTimeout => Some(InfraFailure::new(
            ExitReason::BootTimeout,
            format!(
                "boot timeout: no `rust-tests: KTAP version 1` within {:.1} s \
                 ({} s x timeout multiplier {m}); QEMU was killed{last}",
                limits.boot_s * m,
                limits.boot_s
            ),
        )),
        RunEnd::TestTimeout => {
            let running = running.map_or(String::new(), |r| format!(" while {r} was running"));
            Some(InfraFailure::new(
                ExitReason::TestTimeout,
                format!(
                    "test timeout: no end sentinel within {:.1} s after the tests started \
                     ({} s x timeout multiplier {m}){running}; QEMU was killed{last}",
                    limits.test_s * m,
                    limits.test_s
                ),
            ))
        }
        RunEnd::Exited | RunEnd::KilledAfterGrace => None,
    }
}

/// The last lines of QEMU's stderr, `a | b`, if it printed any.
pub fn stderr_tail(stderr: &str) -> Option<String> {
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    if lines.is_empty() {
        return None;
    }
    let from = lines.len().saturating_sub(STDERR_LINES);
    Some(lines[from..].join(" | "))
}

/// QEMU (or the UML kernel) could not be started.
pub fn spawn_failure(program: &str, error: &std::io::Error) -> InfraFailure {
    InfraFailure::new(
        ExitReason::QemuFailed,
        format!("cannot start {program}: {error}"),
    )
}

/// No QEMU binary `program` where it was looked for (`place`); `hint`
/// names the package that has it.
pub fn qemu_not_found(program: &str, place: &str, hint: &str) -> InfraFailure {
    InfraFailure::new(
        ExitReason::QemuNotFound,
        format!("{program} not found {place}: {hint}"),
    )
}

/// Images of the boot command that the output lacks.
pub fn images_missing(missing: &[String], build: &str) -> InfraFailure {
    InfraFailure::new(
        ExitReason::ImageMissing,
        format!(
            "missing image{} {}: build it with `{build}`",
            if missing.len() > 1 { "s" } else { "" },
            missing.join(" and "),
        ),
    )
}

/// A missing sentinel of a live run says how QEMU ended.
fn with_qemu_end(mut failure: InfraFailure, ending: Option<&RunEnding>) -> InfraFailure {
    let Some(ending) = ending.filter(|_| failure.kind == ExitReason::MissingSentinel) else {
        return failure;
    };
    match ending.exit_code {
        Some(code) => failure
            .message
            .push_str(&format!("; QEMU exited with status {code}")),
        None => failure.message.push_str("; QEMU was killed by a signal"),
    }
    if let Some(tail) = &ending.stderr_tail {
        failure.message.push_str(&format!("; QEMU stderr: {tail}"));
    }
    failure
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    use crate::ktap::parse_str;
    use crate::session::outcome_of as outcome;

    fn manifest() -> Manifest {
        Manifest::from_listing("machine x86_64\ntest a\nline 1 load m:1\n", Path::new("m"))
            .expect("valid")
    }

    const PASSED: &str = "rust-tests: KTAP version 1\nrust-tests: 1..1\nrust-tests: ok 1 a\n\
                          rust-tests: # rust-qemu: end exit=0\n";

    fn kind(o: &SessionOutcome, e: Option<&RunEnding>) -> Option<ExitReason> {
        infra_failure(o, e, &manifest()).map(|f| f.kind)
    }

    #[test]
    fn infra_from_console() {
        let o = outcome("[ 1.0] Run /sbin/init as init process\n");
        let f = console_failure(&o).expect("missing sentinel");
        assert_eq!(f.kind, ExitReason::MissingSentinel);
        assert!(
            f.message.contains("before the tests started"),
            "{}",
            f.message
        );
        assert!(f.message.contains("Run /sbin/init"), "{}", f.message);

        let o = outcome("[ 1.0] Kernel panic - not syncing: VFS: Unable to mount root fs\n");
        let f = console_failure(&o).expect("panic");
        assert_eq!(f.kind, ExitReason::KernelPanic);
        assert_eq!(
            f.message,
            "kernel panic (console.log line 1): Kernel panic - not syncing: VFS: Unable to mount root fs"
        );

        let o = outcome("[ 1.0] rust-tests: # rust-qemu: end exit=127\n");
        let f = console_failure(&o).expect("no ktap");
        assert_eq!(f.kind, ExitReason::NoKtap);
        assert!(f.message.contains("127"));

        let o = outcome(
            "[ 1.0] rust-tests: KTAP version 1\n[ 1.0] rust-tests: 1..0\n\
             [ 1.1] rust-tests: # rust-qemu: end exit=0\n",
        );
        assert_eq!(console_failure(&o), None);
    }

    #[test]
    fn empty_and_partial_runs_fail() {
        let m = Manifest::from_listing(
            "machine x86_64\ntest a\nline 1 load m:1\ntest b\nline 1 load m:2\n",
            Path::new("manifest"),
        )
        .expect("valid");
        let empty = parse_str("KTAP version 1\n1..0\n");
        let kind = |tests: &[TestNode]| manifest_failure(&m, tests).map(|f| f.kind);
        assert_eq!(kind(&empty.tests), Some(ExitReason::NoTests));
        let kernel_log = [TestNode::synthetic_failure("kernel-log", "x")];
        assert_eq!(kind(&kernel_log), Some(ExitReason::NoTests));
        let partial = parse_str("KTAP version 1\n1..1\nnot ok 1 a\n");
        let failure = manifest_failure(&m, &partial.tests).expect("partial");
        assert_eq!(failure.kind, ExitReason::MissingTests);
        assert_eq!(
            failure.message,
            "1 test(s) that manifest names for x86_64 did not run: b"
        );
        let complete = parse_str("KTAP version 1\n1..2\nok 1 a\nnot ok 2 b\n");
        assert_eq!(kind(&complete.tests), None);
    }

    #[test]
    fn stderr_tails() {
        assert_eq!(stderr_tail(""), None);
        assert_eq!(stderr_tail("a\n\nb\n"), Some("a | b".to_string()));
        let many: String = (1..=9).map(|i| format!("l{i}\n")).collect();
        assert_eq!(
            stderr_tail(&many),
            Some("l5 | l6 | l7 | l8 | l9".to_string())
        );
    }

    #[test]
    fn timeouts_say_what_was_running() {
        let limits = TimeoutLimits {
            boot_s: 240.0,
            test_s: 300.0,
            multiplier: 0.5,
        };
        let boot = timeout_failure(RunEnd::BootTimeout, limits, None, None).expect("boot");
        assert_eq!(boot.kind, ExitReason::BootTimeout);
        assert!(boot
            .message
            .contains("within 120.0 s (240 s x timeout multiplier 0.5)"));
        let test =
            timeout_failure(RunEnd::TestTimeout, limits, Some("rust_minimal"), None).expect("test");
        assert!(
            test.message.contains("while rust_minimal was running"),
            "{}",
            test.message
        );
        assert_eq!(timeout_failure(RunEnd::Exited, limits, None, None), None);
    }

    #[test]
    fn a_complete_run_has_none() {
        assert_eq!(kind(&outcome(PASSED), None), None);
        assert_eq!(kind(&outcome(PASSED), Some(&RunEnding::default())), None);
    }

    #[test]
    fn precedence() {
        let timeout = RunEnding {
            timeout: Some(InfraFailure::new(ExitReason::TestTimeout, "t")),
            console_error: Some("c".into()),
            ..RunEnding::default()
        };
        let started = outcome("rust-tests: KTAP version 1\nrust-tests: 1..1\n");
        assert_eq!(
            kind(&started, Some(&timeout)),
            Some(ExitReason::TestTimeout)
        );
        let panicked = outcome("rust-tests: KTAP version 1\nKernel panic - not syncing: x\n");
        assert_eq!(
            kind(&panicked, Some(&timeout)),
            Some(ExitReason::KernelPanic)
        );
        let console_error = RunEnding {
            console_error: Some("c".into()),
            ..RunEnding::default()
        };
        assert_eq!(
            kind(&started, Some(&console_error)),
            Some(ExitReason::ConsoleError)
        );
        assert_eq!(kind(&started, None), Some(ExitReason::MissingSentinel));
        let other = outcome(&PASSED.replace(" a\n", " b\n"));
        assert_eq!(kind(&other, None), Some(ExitReason::MissingTests));
    }

    #[test]
    fn a_missing_sentinel_says_how_qemu_ended() {
        let ending = RunEnding {
            exit_code: Some(1),
            stderr_tail: Some("qemu: oops".into()),
            ..RunEnding::default()
        };
        let failure = infra_failure(&outcome("boot\n"), Some(&ending), &manifest())
            .expect("missing sentinel");
        assert!(
            failure
                .message
                .ends_with("; QEMU exited with status 1; QEMU stderr: qemu: oops"),
            "{}",
            failure.message
        );
        let failure =
            infra_failure(&outcome("boot\n"), None, &manifest()).expect("missing sentinel");
        assert!(!failure.message.contains("QEMU"), "{}", failure.message);
    }
}
