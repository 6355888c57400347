//! An arch's outcome in one place: the infrastructure failure, if any, that
//! a run (or a recorded console) ends with, in order of precedence. The
//! tests' own results decide the rest (`ArchResult::settle`).

use crate::manifest::Manifest;
use crate::report::{ExitReason, InfraFailure};
use crate::session::SessionOutcome;

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
/// console lacks (the end sentinel, KTAP), a test that `manifest` names for
/// `machine` missing or skipped. `ending` is None for a recorded console.
pub fn infra_failure(
    outcome: &SessionOutcome,
    ending: Option<&RunEnding>,
    manifest: &Manifest,
    machine: &str,
) -> Option<InfraFailure> {
    let console = InfraFailure::from_console(outcome);
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
        .or_else(|| manifest.check_results(machine, &outcome.tests))
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

    use crate::session::outcome_of as outcome;

    fn manifest() -> Manifest {
        Manifest::parse("a\tload\n", Path::new("m"))
    }

    const PASSED: &str = "rust-tests: KTAP version 1\nrust-tests: 1..1\nrust-tests: ok 1 a\n\
                          rust-tests: # rust-qemu: end exit=0\n";

    fn kind(o: &SessionOutcome, e: Option<&RunEnding>) -> Option<ExitReason> {
        infra_failure(o, e, &manifest(), "x86_64").map(|f| f.kind)
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
        let failure = infra_failure(&outcome("boot\n"), Some(&ending), &manifest(), "x86_64")
            .expect("missing sentinel");
        assert!(
            failure
                .message
                .ends_with("; QEMU exited with status 1; QEMU stderr: qemu: oops"),
            "{}",
            failure.message
        );
        let failure = infra_failure(&outcome("boot\n"), None, &manifest(), "x86_64")
            .expect("missing sentinel");
        assert!(!failure.message.contains("QEMU"), "{}", failure.message);
    }
}
