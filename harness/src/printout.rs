//! What the harness prints while it runs: each top-level test's lines once
//! (live as its result arrives, the rest when the console ends), an arch's
//! end, and every arch's failures again. `run` and `parse` print alike.

use crate::ktap::TestNode;
use crate::manifest::Manifest;
use crate::report::{self, ArchResult};
use crate::session::{Session, SessionEvent, SessionOutcome};

/// Prints the top-level tests of one arch's console, each once, with the
/// manifest lines of their checks.
pub struct TestPrinter<'a> {
    arch: &'a str,
    manifest: &'a Manifest,
    printed: usize,
}

impl<'a> TestPrinter<'a> {
    pub fn new(arch: &'a str, manifest: &'a Manifest) -> TestPrinter<'a> {
        TestPrinter {
            arch,
            manifest,
            printed: 0,
        }
    }

    /// A top-level result as it arrives.
    pub fn on_event(&mut self, session: &Session, event: &SessionEvent) {
        if let SessionEvent::TopLevelResult(index) = event {
            if let Some(test) = session.top_level().get(*index) {
                self.print(test);
                self.printed = self.printed.max(index + 1);
            }
        }
    }

    /// The tests not printed yet, when the console has ended.
    pub fn rest(&mut self, outcome: &SessionOutcome) {
        for test in outcome.tests.iter().skip(self.printed) {
            self.print(test);
        }
        self.printed = outcome.tests.len();
    }

    fn print(&self, test: &TestNode) {
        let mut test = [test.clone()];
        self.manifest.set_sources(&mut test);
        print_lines(&report::top_level_lines(self.arch, &test[0]));
    }
}

fn print_lines(lines: &[String]) {
    for line in lines {
        println!("{line}");
    }
}

/// An arch's end: its infrastructure failure (if any), its summary.
pub fn arch_end(result: &ArchResult) {
    if let Some(line) = result.infra_line() {
        println!("{line}");
    }
    if let Some(command) = &result.reproduce {
        println!("{}: to run it again: {command}", result.arch);
    }
    println!("{}", result.summary_line());
}

/// Each arch's failures again, together: the end of a long log.
pub fn failures(failures: &[String]) {
    if !failures.is_empty() {
        println!("failures:\n{}", failures.join("\n"));
    }
}
