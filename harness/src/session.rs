//! One boot's console, interpreted as it arrives: the boot and test phases,
//! the runner's KTAP, the end sentinel and the kernel problem reports, which
//! fail the top-level test that was running when they appeared
//! (docs/test-protocol.md). Used both live (QEMU) and offline (`parse`).

use crate::console::{classify, ConsoleLine, ProblemKind};
use crate::ktap::{is_version_line, KtapParser, Status, TestNode};

/// The subtest name prefix of the runner's `expect <text>` check: a kernel
/// report with `<text>` is the test's outcome, not a problem.
pub const EXPECT_PREFIX: &str = "expect: ";

/// The texts of a top-level test's passing `expect` checks.
fn expected_reports(test: &TestNode) -> Vec<String> {
    test.subtests
        .iter()
        .filter(|t| t.status == Status::Pass)
        .filter_map(|t| t.name.strip_prefix(EXPECT_PREFIX))
        .map(str::to_string)
        .collect()
}

/// Name of the synthetic test that collects kernel problems seen outside any
/// test (during boot, after the last result, after the sentinel).
pub const KERNEL_LOG_TEST: &str = "kernel-log";
/// Name of the synthetic test that fails when the runner's exit code says
/// failure but no KTAP result does.
pub const RUNNER_EXIT_TEST: &str = "runner-exit";

/// Problem lines this close to the previous one belong to the same report.
const REPORT_SPAN: usize = 40;
/// Lines of a report kept as diagnostics.
const REPORT_LINES_KEPT: usize = 12;
/// Console lines kept as the log of a failed or skipped top-level test:
/// the last ones printed while it ran.
pub const LOG_LINES_KEPT: usize = 60;

/// Something the caller may want to act on at once.
#[derive(Debug, Clone, PartialEq)]
pub enum SessionEvent {
    /// The first `KTAP version` line: the boot phase is over.
    TestsStarted,
    /// Top-level test `index` (into [`Session::top_level`]) has its result.
    TopLevelResult(usize),
    /// The end sentinel, with the runner's exit code.
    Sentinel(Option<i32>),
    /// The first `Kernel panic` line.
    Panic(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Boot,
    Tests,
    Ended,
}

/// When, relative to the tests, a kernel report appeared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Window {
    Boot,
    /// While top-level test `index` (0-based) was running.
    Test(usize),
    /// After the last planned top-level result, before the sentinel.
    AfterTests,
    AfterSentinel,
}

#[derive(Debug, Clone)]
struct KernelReport {
    window: Window,
    kind: ProblemKind,
    head_line: usize,
    head: String,
    last_line: usize,
    lines: Vec<String>,
    applied: bool,
}

impl KernelReport {
    /// Whether the report is one a test expects (the runner's `expect`
    /// check): its head has one of the `expected` texts, and so has each
    /// of its other primary lines (a call trace belongs to its head).
    fn is_expected(&self, expected: &[String]) -> bool {
        let listed = |line: &str| expected.iter().any(|e| line.contains(e.as_str()));
        listed(&self.head)
            && self
                .lines
                .iter()
                .filter(|l| classify(l, true).is_some_and(ProblemKind::is_primary))
                .all(|l| listed(l))
    }

    fn describe(&self) -> String {
        let when = match self.window {
            Window::Boot => " during boot".to_string(),
            Window::Test(_) => String::new(),
            Window::AfterTests => " after the last test".to_string(),
            Window::AfterSentinel => " after the end sentinel".to_string(),
        };
        format!(
            "{}{when} (console.log line {}): {}",
            self.kind.label(),
            self.head_line,
            self.head
        )
    }
}

/// A position in the console.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mark {
    pub line: usize,
    pub timestamp: Option<f64>,
}

/// The end sentinel `# rust-qemu: end exit=<N>`.
#[derive(Debug, Clone, PartialEq)]
pub struct Sentinel {
    pub exit: Option<i32>,
    pub mark: Mark,
}

fn parse_sentinel(payload: &str) -> Option<Option<i32>> {
    let rest = payload.trim().strip_prefix("# rust-qemu: end")?;
    let value = rest.trim().strip_prefix("exit=")?;
    Some(value.trim().parse::<i32>().ok())
}

/// Interprets one boot's console line by line.
#[derive(Debug)]
pub struct Session {
    ignore: Vec<String>,
    lines: usize,
    phase: Phase,
    parser: KtapParser,
    reports: Vec<KernelReport>,
    panic: Option<(String, Mark)>,
    ktap_start: Option<Mark>,
    /// The guest time the running top-level test started at: the KTAP
    /// header's, then each top-level result's.
    test_started: Option<f64>,
    sentinel: Option<Sentinel>,
    last_line: Option<String>,
    /// The console lines of the running top-level test, the last
    /// `LOG_LINES_KEPT`, and how many were dropped before them.
    log: std::collections::VecDeque<String>,
    log_dropped: usize,
    /// `rust_doctest_<...>` -> `<file>:<line>`, from the kernel's own KUnit
    /// lines `# <test>.location: <file>:<line>`.
    locations: std::collections::HashMap<String, String>,
    kernel_release: Option<String>,
}

impl Session {
    /// `ignore`: substrings of kernel lines not to treat as problems.
    pub fn new(ignore: Vec<String>) -> Session {
        Session {
            ignore,
            lines: 0,
            phase: Phase::Boot,
            parser: KtapParser::new(),
            reports: Vec::new(),
            panic: None,
            ktap_start: None,
            test_started: None,
            sentinel: None,
            last_line: None,
            log: std::collections::VecDeque::new(),
            log_dropped: 0,
            locations: std::collections::HashMap::new(),
            kernel_release: None,
        }
    }

    /// The top-level tests with results so far.
    pub fn top_level(&self) -> &[TestNode] {
        self.parser.top_level()
    }

    /// The last non-empty console line seen.
    pub fn last_line(&self) -> Option<&str> {
        self.last_line.as_deref()
    }

    /// Describes the top-level test running now, for timeout messages.
    pub fn running(&self) -> Option<String> {
        if self.phase != Phase::Tests {
            return None;
        }
        let (number, name) = self.parser.running()?;
        Some(match name {
            Some(name) => format!("top-level test {number} ({name})"),
            None => format!("top-level test {number}"),
        })
    }

    /// Feeds one raw console line (without its `\n`).
    pub fn push_raw(&mut self, raw: &[u8]) -> Vec<SessionEvent> {
        self.lines += 1;
        let line = ConsoleLine::new(self.lines, raw);
        if !line.text.trim().is_empty() {
            self.last_line = Some(line.text.trim_end().to_string());
        }
        let mark = Mark {
            line: line.number,
            timestamp: line.timestamp,
        };
        let mut events = Vec::new();
        self.note_location(&line.text);
        if self.kernel_release.is_none() {
            self.kernel_release = line
                .text
                .trim_start()
                .strip_prefix("Linux version ")
                .and_then(|rest| rest.split_whitespace().next())
                .map(str::to_string);
        }
        if self.phase == Phase::Tests {
            if self.log.len() == LOG_LINES_KEPT {
                self.log.pop_front();
                self.log_dropped += 1;
            }
            self.log.push_back(line.text.trim_end().to_string());
        }
        if let Some(payload) = line.result_payload() {
            self.result_line(payload, mark, &mut events);
        } else {
            self.kernel_line(&line, mark, &mut events);
        }
        events
    }

    fn result_line(&mut self, payload: &str, mark: Mark, events: &mut Vec<SessionEvent>) {
        if self.phase == Phase::Ended {
            return;
        }
        if let Some(exit) = parse_sentinel(payload) {
            self.phase = Phase::Ended;
            self.sentinel = Some(Sentinel { exit, mark });
            events.push(SessionEvent::Sentinel(exit));
            return;
        }
        if self.phase == Phase::Boot {
            if !is_version_line(payload) {
                return;
            }
            self.phase = Phase::Tests;
            self.ktap_start = Some(mark);
            self.test_started = mark.timestamp;
            events.push(SessionEvent::TestsStarted);
        }
        for index in self.parser.feed(payload) {
            self.apply_reports(index);
            self.keep_log(index);
            self.time(index, mark.timestamp);
            events.push(SessionEvent::TopLevelResult(index));
        }
    }

    /// The console lines of top-level test `index`, kept if it did not pass.
    fn keep_log(&mut self, index: usize) {
        let mut log: Vec<String> = std::mem::take(&mut self.log).into();
        if self.log_dropped > 0 {
            log.insert(
                0,
                format!("[{} earlier lines in console.log]", self.log_dropped),
            );
            self.log_dropped = 0;
        }
        if let Some(test) = self.parser.top_level_mut().get_mut(index) {
            if test.status != Status::Pass {
                test.log = log;
            }
            set_sources(test, &self.locations);
        }
    }

    /// Top-level test `index` ended at guest time `now`.
    fn time(&mut self, index: usize, now: Option<f64>) {
        if let (Some(test), Some(start), Some(end)) = (
            self.parser.top_level_mut().get_mut(index),
            self.test_started,
            now,
        ) {
            test.duration_s = Some(((end - start).max(0.0) * 1e6).round() / 1e6);
        }
        self.test_started = now;
    }

    /// Notes a KUnit `# <test>.location: <file>:<line>` line.
    fn note_location(&mut self, text: &str) {
        let Some(rest) = text.trim_start().strip_prefix("# ") else {
            return;
        };
        if let Some((test, place)) = rest.split_once(".location: ") {
            if !test.contains(' ') {
                self.locations
                    .insert(test.to_string(), place.trim().to_string());
            }
        }
    }

    fn kernel_line(&mut self, line: &ConsoleLine, mark: Mark, events: &mut Vec<SessionEvent>) {
        if self.ignore.iter().any(|p| line.text.contains(p.as_str())) {
            return;
        }
        let Some(kind) = classify(&line.text, line.timestamp.is_some()) else {
            return;
        };
        let text = line.text.trim().to_string();
        if kind == ProblemKind::Panic {
            if self.panic.is_none() {
                self.panic = Some((text.clone(), mark));
                events.push(SessionEvent::Panic(text));
            }
            return;
        }
        let window = self.window();
        if let Some(report) = self.reports.last_mut() {
            if report.window == window && line.number - report.last_line <= REPORT_SPAN {
                report.last_line = line.number;
                if report.lines.len() < REPORT_LINES_KEPT {
                    report.lines.push(text.clone());
                }
                if kind.is_primary() && !report.kind.is_primary() {
                    report.kind = kind;
                    report.head = text;
                    report.head_line = line.number;
                }
                return;
            }
        }
        self.reports.push(KernelReport {
            window,
            kind,
            head_line: line.number,
            head: text.clone(),
            last_line: line.number,
            lines: vec![text],
            applied: false,
        });
    }

    fn window(&self) -> Window {
        match self.phase {
            Phase::Boot => Window::Boot,
            Phase::Ended => Window::AfterSentinel,
            Phase::Tests => {
                let done = self.parser.top_level().len();
                match self.parser.top_level_plan() {
                    Some(plan) if usize::try_from(plan).is_ok_and(|p| done >= p) => {
                        Window::AfterTests
                    }
                    _ => Window::Test(done),
                }
            }
        }
    }

    /// Fails top-level test `index` for each kernel report seen while it
    /// ran, but for those its passing `expect: <text>` checks name.
    fn apply_reports(&mut self, index: usize) {
        let tests = self.parser.top_level_mut();
        let Some(test) = tests.get_mut(index) else {
            return;
        };
        let expected = expected_reports(test);
        for report in &mut self.reports {
            if report.window == Window::Test(index) && !report.applied {
                report.applied = true;
                if report.is_expected(&expected) {
                    test.diagnostics
                        .push(format!("expected {}", report.describe()));
                } else {
                    test.fail(report.describe());
                }
            }
        }
    }

    /// Ends the console: closes the KTAP stream and adds the synthetic tests.
    pub fn finish(self) -> SessionOutcome {
        let Session {
            lines,
            parser,
            mut reports,
            panic,
            ktap_start,
            sentinel,
            last_line,
            log,
            locations,
            kernel_release,
            ..
        } = self;
        let real_results = parser.top_level().len();
        let document = parser.finish();
        let mut tests = document.tests;
        // The test the console ended in (closed as truncated) has the rest.
        if let Some(test) = tests.get_mut(real_results).filter(|t| !t.synthetic) {
            test.log = log.into();
        }
        for test in &mut tests {
            set_sources(test, &locations);
        }

        // Reports from a test whose result never came go to that test if the
        // end of the stream closed it (as truncated), else to `kernel-log`.
        for report in reports.iter_mut().filter(|r| !r.applied) {
            if let Window::Test(index) = report.window {
                if index >= real_results {
                    if let Some(test) = tests.get_mut(index).filter(|t| !t.synthetic) {
                        report.applied = true;
                        test.fail(report.describe());
                    }
                }
            }
        }
        let leftovers: Vec<&KernelReport> = reports.iter().filter(|r| !r.applied).collect();
        if !leftovers.is_empty() {
            let mut node = TestNode::synthetic_failure(KERNEL_LOG_TEST, "");
            node.errors.clear();
            for report in leftovers {
                let mut error = report.describe();
                if let Window::Test(index) = report.window {
                    error.push_str(&format!(
                        " (while top-level test {} was running; it has no result)",
                        index + 1
                    ));
                }
                node.errors.push(error);
                node.diagnostics.extend(report.lines.iter().cloned());
            }
            tests.push(node);
        }

        let runner_exit = sentinel.as_ref().and_then(|s| s.exit);
        if let Some(sentinel) = &sentinel {
            let any_failed = tests.iter().any(|t| t.status == Status::Fail);
            match sentinel.exit {
                Some(0) => {}
                Some(code) if !any_failed && document.started => {
                    tests.push(TestNode::synthetic_failure(
                        RUNNER_EXIT_TEST,
                        format!("the runner exited with status {code}, but no KTAP result failed"),
                    ))
                }
                Some(_) => {}
                None => tests.push(TestNode::synthetic_failure(
                    RUNNER_EXIT_TEST,
                    "the end sentinel has no numeric exit status",
                )),
            }
        }

        SessionOutcome {
            console_lines: lines,
            ktap_started: document.started,
            ktap_start,
            sentinel,
            runner_exit,
            panic,
            last_line,
            kernel_release,
            tests,
        }
    }
}

/// What one boot's console showed.
#[derive(Debug, Clone)]
pub struct SessionOutcome {
    pub console_lines: usize,
    pub ktap_started: bool,
    pub ktap_start: Option<Mark>,
    pub sentinel: Option<Sentinel>,
    pub runner_exit: Option<i32>,
    /// The first `Kernel panic` line and where it was.
    pub panic: Option<(String, Mark)>,
    pub last_line: Option<String>,
    /// The kernel's release, from its `Linux version <release> ...` line.
    pub kernel_release: Option<String>,
    /// Top-level tests, synthetic ones included.
    pub tests: Vec<TestNode>,
}

impl SessionOutcome {
    /// Boot and test durations from the guest's printk timestamps.
    pub fn guest_durations(&self) -> (Option<f64>, Option<f64>) {
        let boot = self.ktap_start.and_then(|m| m.timestamp);
        let tests = match (boot, self.sentinel.as_ref().and_then(|s| s.mark.timestamp)) {
            (Some(start), Some(end)) if end >= start => Some(end - start),
            _ => None,
        };
        (boot, tests)
    }

    /// `; last console line: '...'` for error messages.
    pub fn last_line_note(&self) -> String {
        last_line_note(self.last_line.as_deref())
    }
}

/// `; last console line: '...'` (or that there was none).
pub fn last_line_note(last: Option<&str>) -> String {
    match last {
        Some(line) => format!("; last console line: '{line}'"),
        None => "; the console stayed empty".to_string(),
    }
}

/// Sets the source of every test of the tree that `locations` names.
fn set_sources(test: &mut TestNode, locations: &std::collections::HashMap<String, String>) {
    if let Some(place) = locations.get(&test.name) {
        test.source = Some(place.clone());
    }
    for subtest in &mut test.subtests {
        set_sources(subtest, locations);
    }
}

/// The outcome of a whole console text (for tests).
#[cfg(test)]
pub fn outcome_of(console: &str) -> SessionOutcome {
    let mut session = Session::new(Vec::new());
    for line in console.lines() {
        session.push_raw(line.as_bytes());
    }
    session.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(console: &str) -> (Vec<SessionEvent>, SessionOutcome) {
        let mut session = Session::new(Vec::new());
        let mut events = Vec::new();
        for line in console.lines() {
            events.extend(session.push_raw(line.as_bytes()));
        }
        (events, session.finish())
    }

    const GOOD: &str = "\
[    0.000000] Linux version 6.12.57 (builder@host) #1 SMP PREEMPT_DYNAMIC
[    0.412000]     KTAP version 1
[    0.412100]     # Subtest: rust_doctests_kernel
[    0.412200]     1..1
[    0.413000]     ok 1 rust_doctest_kernel_alloc_kbox_rs_0
[    0.413100] ok 1 rust_doctests_kernel
[    1.100000] Run /sbin/init as init process
Starting syslogd: OK
[    2.000000] rust-tests: KTAP version 1
[    2.000100] rust-tests: 1..2
[    2.000200] rust-tests:     KTAP version 1
[    2.000300] rust-tests:     # Subtest: config
[    2.000400] rust-tests:     1..1
[    2.000500] rust-tests:     ok 1 CONFIG_RUST=y
[    2.000600] rust-tests: ok 1 config
[    2.100000] rust-tests:     KTAP version 1
[    2.100100] rust-tests:     # Subtest: rust_minimal
[    2.100200] rust-tests:     1..2
[    2.200000] rust_minimal: Rust minimal sample (init)
[    2.200100] rust-tests:     ok 1 load
[    2.300000] rust_minimal: My numbers are [72, 108, 200]
[    2.300100] rust-tests:     ok 2 unload
[    2.300200] rust-tests: ok 2 rust_minimal
[    4.500000] rust-tests: # rust-qemu: end exit=0
[    4.600000] reboot: Restarting system
";

    #[test]
    fn good_console() {
        let (events, outcome) = run(GOOD);
        assert_eq!(
            events,
            [
                SessionEvent::TestsStarted,
                SessionEvent::TopLevelResult(0),
                SessionEvent::TopLevelResult(1),
                SessionEvent::Sentinel(Some(0))
            ]
        );
        assert!(outcome.ktap_started);
        assert_eq!(outcome.runner_exit, Some(0));
        assert!(outcome.panic.is_none());
        assert_eq!(outcome.tests.len(), 2);
        assert!(outcome.tests.iter().all(|t| t.status == Status::Pass));
        assert_eq!(outcome.guest_durations(), (Some(2.0), Some(2.5)));
        assert_eq!(
            outcome.last_line.as_deref(),
            Some("reboot: Restarting system")
        );
    }

    #[test]
    fn each_top_level_test_has_its_guest_duration() {
        let (_, outcome) = run(GOOD);
        let durations: Vec<Option<f64>> = outcome.tests.iter().map(|t| t.duration_s).collect();
        // from the KTAP header (2.0) to `ok 1 config`, then to `ok 2 rust_minimal`
        assert_eq!(durations, [Some(0.0006), Some(0.2996)]);
        // without printk timestamps there is nothing to measure
        let (_, plain) = run(&GOOD
            .lines()
            .map(|l| l.get(15..).unwrap_or(l))
            .collect::<Vec<_>>()
            .join("\n"));
        assert!(
            plain.tests.iter().all(|t| t.duration_s.is_none()),
            "{:?}",
            plain.tests
        );
    }

    #[test]
    fn unprefixed_kunit_output_at_boot_is_not_the_start() {
        let (events, outcome) = run(&GOOD.lines().take(8).collect::<Vec<_>>().join("\n"));
        assert!(events.is_empty(), "{events:?}");
        assert!(!outcome.ktap_started);
        assert!(outcome.tests.is_empty());
        assert!(outcome.sentinel.is_none());
    }

    #[test]
    fn warning_during_a_test_fails_that_test() {
        let console = GOOD.replace(
            "[    2.300000] rust_minimal: My numbers are [72, 108, 200]\n",
            "[    2.300000] ------------[ cut here ]------------\n\
             [    2.300001] WARNING: CPU: 1 PID: 80 at samples/rust/rust_minimal.rs:40 drop+0x1/0x2\n\
             [    2.300002] Call Trace:\n\
             [    2.300003]  <TASK>\n\
             [    2.300004] ---[ end trace 0000000000000000 ]---\n",
        );
        let (_, outcome) = run(&console);
        assert_eq!(outcome.tests.len(), 2);
        assert_eq!(outcome.tests[0].status, Status::Pass);
        let minimal = &outcome.tests[1];
        assert_eq!(minimal.status, Status::Fail);
        assert_eq!(minimal.errors.len(), 1, "{:?}", minimal.errors);
        assert!(
            minimal.errors[0].starts_with("kernel WARNING (console.log line 22): WARNING: CPU: 1")
        );
        assert_eq!(minimal.counts().failed, 1);
    }

    /// A console where rust_minimal's test expects the atomic-sleep report
    /// (`expect` passed: `ok_expect`), with `extra` lines after that report.
    fn expecting_console(ok_expect: bool, extra: &str) -> String {
        let result = if ok_expect { "ok" } else { "not ok" };
        GOOD.replace("rust-tests:     1..2\n", "rust-tests:     1..3\n")
            .replace(
                "[    2.300000] rust_minimal: My numbers are [72, 108, 200]\n",
                &format!(
                    "[    2.300000] BUG: sleeping function called from invalid context at mm/slub.c:4126\n\
                     [    2.300001] in_atomic(): 1, irqs_disabled(): 0, non_block: 0, pid: 80\n\
                     [    2.300002] Call Trace:\n\
                     [    2.300003]  <TASK>\n{extra}"
                ),
            )
            .replace(
                "[    2.300100] rust-tests:     ok 2 unload\n",
                &format!(
                    "[    2.300100] rust-tests:     ok 2 unload\n\
                     [    2.300101] rust-tests:     {result} 3 expect: BUG: sleeping function called\n"
                ),
            )
    }

    #[test]
    fn an_expected_report_is_no_failure() {
        let (_, outcome) = run(&expecting_console(true, ""));
        let minimal = &outcome.tests[1];
        assert_eq!(minimal.status, Status::Pass, "{:?}", minimal.errors);
        assert!(
            minimal.diagnostics.iter().any(|d| d
                .starts_with("expected kernel BUG (console.log line 21): BUG: sleeping function")),
            "{:?}",
            minimal.diagnostics
        );
        // not without its passing expect check
        let (_, outcome) = run(&expecting_console(false, ""));
        let minimal = &outcome.tests[1];
        assert!(
            minimal
                .errors
                .iter()
                .any(|e| e.starts_with("kernel BUG (console.log line 21)")),
            "{:?}",
            minimal.errors
        );
        // nor another report that joins it
        let warning = "[    2.300004] WARNING: CPU: 1 PID: 80 at lib/foo.c:1 bar+0x1/0x2\n";
        let (_, outcome) = run(&expecting_console(true, warning));
        assert_eq!(outcome.tests[1].status, Status::Fail);
        assert_eq!(outcome.tests[1].errors.len(), 1);
    }

    #[test]
    fn warning_during_boot_is_a_kernel_log_failure() {
        let console = GOOD.replace(
            "[    1.100000] Run /sbin/init as init process\n",
            "[    1.000000] ============================================\n\
             [    1.000001] WARNING: possible recursive locking detected\n\
             [    1.000002] 6.12.57 #1 Not tainted\n\
             [    1.000003] --------------------------------------------\n\
             [    1.100000] Run /sbin/init as init process\n",
        );
        let (_, outcome) = run(&console);
        let log = outcome.tests.last().expect("kernel-log test");
        assert_eq!(log.name, KERNEL_LOG_TEST);
        assert!(log.synthetic);
        assert_eq!(log.status, Status::Fail);
        assert_eq!(log.errors.len(), 1, "{:?}", log.errors);
        assert!(log.errors[0].starts_with("lockdep report during boot (console.log line 8)"));
        assert!(outcome.tests[..2].iter().all(|t| t.status == Status::Pass));
    }

    #[test]
    fn warning_after_the_last_test_and_after_the_sentinel() {
        let console = GOOD
            .replace(
                "[    4.500000] rust-tests: # rust-qemu: end exit=0\n",
                "[    4.400000] BUG: unable to handle page fault for address: 1\n\
                 [    4.500000] rust-tests: # rust-qemu: end exit=0\n",
            )
            .replace(
                "[    4.600000] reboot: Restarting system\n",
                "[    4.550000] WARNING: CPU: 0 PID: 1 at kernel/reboot.c:1 x\n\
                 [    4.600000] reboot: Restarting system\n",
            );
        let (_, outcome) = run(&console);
        let log = outcome.tests.last().expect("kernel-log test");
        assert_eq!(log.name, KERNEL_LOG_TEST);
        assert_eq!(log.errors.len(), 2);
        assert!(log.errors[0].contains("after the last test"));
        assert!(log.errors[1].contains("after the end sentinel"));
    }

    #[test]
    fn panic_is_reported_once() {
        let console = "\
[    2.000000] rust-tests: KTAP version 1
[    2.000100] rust-tests: 1..1
[    2.000200] rust-tests:     KTAP version 1
[    2.000300] rust-tests:     # Subtest: rust_minimal
[    2.000400] rust-tests:     1..1
[    2.100000] Oops: general protection fault, probably for non-canonical address 0xdead: 0000 [#1] SMP
[    2.100100] Kernel panic - not syncing: Fatal exception
[    2.100200] ---[ end Kernel panic - not syncing: Fatal exception ]---
";
        let (events, outcome) = run(console);
        let panics: Vec<_> = events
            .iter()
            .filter(|e| matches!(e, SessionEvent::Panic(_)))
            .collect();
        assert_eq!(
            panics,
            [&SessionEvent::Panic(
                "Kernel panic - not syncing: Fatal exception".into()
            )]
        );
        assert!(outcome.sentinel.is_none());
        // The module under test got the Oops (its output was cut, too).
        let minimal = &outcome.tests[0];
        assert_eq!(minimal.name, "rust_minimal");
        assert!(
            minimal.errors.iter().any(|e| e.starts_with("kernel Oops")),
            "{:?}",
            minimal.errors
        );
        assert!(minimal.errors.iter().any(|e| e.contains("no result line")));
    }

    #[test]
    fn sentinel_parsing() {
        assert_eq!(parse_sentinel("# rust-qemu: end exit=0"), Some(Some(0)));
        assert_eq!(parse_sentinel("  # rust-qemu: end exit=3 "), Some(Some(3)));
        assert_eq!(parse_sentinel("# rust-qemu: end exit=x"), Some(None));
        assert_eq!(parse_sentinel("# rust-qemu: begin"), None);
        assert_eq!(parse_sentinel("ok 1 end"), None);
    }

    #[test]
    fn runner_exit_without_failures_fails() {
        let console = GOOD.replace("end exit=0", "end exit=3");
        let (_, outcome) = run(&console);
        assert_eq!(outcome.runner_exit, Some(3));
        let last = outcome.tests.last().expect("tests");
        assert_eq!(last.name, RUNNER_EXIT_TEST);
        assert_eq!(last.status, Status::Fail);
    }

    #[test]
    fn ignored_lines_are_not_problems() {
        let console = GOOD.replace(
            "[    1.100000] Run /sbin/init as init process\n",
            "[    1.000000] WARNING: CPU: 0 PID: 1 at mm/debug_vm_pgtable.c:10 x\n",
        );
        let mut session = Session::new(vec!["at mm/debug_vm_pgtable.c:".into()]);
        for line in console.lines() {
            session.push_raw(line.as_bytes());
        }
        let outcome = session.finish();
        assert!(outcome.tests.iter().all(|t| t.status == Status::Pass));
    }

    #[test]
    fn runner_lines_are_never_kernel_problems() {
        let console = GOOD.replace(
            "[    2.300100] rust-tests:     ok 2 unload\n",
            "[    2.300100] rust-tests:     ok 2 kernel clean (no new WARN/BUG/Oops/lockdep)\n",
        );
        let (_, outcome) = run(&console);
        assert!(outcome.tests.iter().all(|t| t.status == Status::Pass));
    }

    #[test]
    fn running_test_description() {
        let mut session = Session::new(Vec::new());
        for line in GOOD.lines().take(17) {
            session.push_raw(line.as_bytes());
        }
        assert_eq!(
            session.running().as_deref(),
            Some("top-level test 2 (rust_minimal)")
        );
    }
}
