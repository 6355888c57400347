//! JUnit XML (`junit.xml`): one testsuite per top-level KTAP test, one
//! testcase per subtest (leaf), failures with their source line and
//! diagnostics, skips, and the console lines of a test that did not pass
//! as its suite's `system-out`.

use std::fmt::Write as _;

use crate::ktap::{Status, TestNode};
use crate::report::ArchResult;

/// Text with the characters XML 1.0 cannot hold replaced by U+FFFD.
fn clean(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\t' | '\n' | '\r' => c,
            c if (c as u32) < 0x20 || c == '\u{fffe}' || c == '\u{ffff}' => '\u{fffd}',
            c => c,
        })
        .collect()
}

/// Escapes text content.
pub fn escape_text(text: &str) -> String {
    clean(text)
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Escapes an attribute value (double-quoted).
pub fn escape_attr(text: &str) -> String {
    escape_text(text)
        .replace('"', "&quot;")
        .replace('\'', "&apos;")
        .replace('\n', "&#10;")
        .replace('\r', "&#13;")
        .replace('\t', "&#9;")
}

struct Case<'a> {
    name: String,
    test: &'a TestNode,
    /// The suite's own failure (not visible in any leaf).
    own_failure: bool,
}

fn failure_body(test: &TestNode) -> String {
    let mut lines: Vec<String> = test.errors.clone();
    lines.extend(test.diagnostics.iter().map(|d| format!("# {d}")));
    lines.join("\n")
}

fn write_case(out: &mut String, classname: &str, case: &Case<'_>) {
    let _ = write!(
        out,
        "    <testcase classname=\"{}\" name=\"{}\"",
        escape_attr(classname),
        escape_attr(&case.name)
    );
    let test = case.test;
    let status = if case.own_failure {
        Status::Fail
    } else {
        test.status
    };
    match status {
        Status::Pass => out.push_str("/>\n"),
        Status::Fail => {
            let message = test
                .errors
                .first()
                .cloned()
                .unwrap_or_else(|| "not ok".to_string());
            let mut body = if case.own_failure {
                test.errors.join("\n")
            } else {
                failure_body(test)
            };
            if let Some(source) = &test.source {
                body = format!("at {source}\n{body}");
            }
            let _ = writeln!(
                out,
                ">\n      <failure message=\"{}\" type=\"failure\">{}</failure>\n    </testcase>",
                escape_attr(&message),
                escape_text(&body)
            );
        }
        Status::Skip | Status::Todo => {
            let word = if status == Status::Todo {
                "TODO"
            } else {
                "SKIP"
            };
            let message = match &test.reason {
                Some(reason) => format!("{word} {reason}"),
                None => word.to_string(),
            };
            let _ = writeln!(
                out,
                ">\n      <skipped message=\"{}\"/>\n    </testcase>",
                escape_attr(&message)
            );
        }
    }
}

fn cases(test: &TestNode) -> Vec<Case<'_>> {
    if test.subtests.is_empty() {
        return vec![Case {
            name: test.name.clone(),
            test,
            own_failure: false,
        }];
    }
    let mut cases: Vec<Case<'_>> = test
        .leaves()
        .into_iter()
        .map(|(name, leaf)| Case {
            name,
            test: leaf,
            own_failure: false,
        })
        .collect();
    if test.fails_on_its_own() {
        cases.push(Case {
            name: test.name.clone(),
            test,
            own_failure: true,
        });
    }
    cases
}

/// Renders `junit.xml` for one arch.
pub fn render(result: &ArchResult) -> String {
    let arch = &result.arch;
    let mut suites = String::new();
    let (mut total, mut failures, mut skipped) = (0usize, 0usize, 0usize);
    for test in &result.tests {
        let cases = cases(test);
        let count = |f: &dyn Fn(Status) -> bool| {
            cases
                .iter()
                .filter(|c| {
                    f(if c.own_failure {
                        Status::Fail
                    } else {
                        c.test.status
                    })
                })
                .count()
        };
        let fails = count(&|s| s == Status::Fail);
        let skips = count(&|s| matches!(s, Status::Skip | Status::Todo));
        total += cases.len();
        failures += fails;
        skipped += skips;
        let time = test
            .duration_s
            .map(|d| format!(" time=\"{d:.3}\""))
            .unwrap_or_default();
        let _ = writeln!(
            suites,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{fails}\" errors=\"0\" skipped=\"{skips}\"{time}>",
            escape_attr(&test.name),
            cases.len()
        );
        let reproduce = match (&result.reproduce, test.status) {
            (Some(command), Status::Fail) => format!(
                "<property name=\"reproduce\" value=\"{}\"/>",
                escape_attr(command)
            ),
            _ => String::new(),
        };
        let _ = writeln!(
            suites,
            "    <properties><property name=\"arch\" value=\"{}\"/>{reproduce}</properties>",
            escape_attr(arch)
        );
        let classname = format!("{arch}.{}", test.name);
        for case in &cases {
            write_case(&mut suites, &classname, case);
        }
        if !test.log.is_empty() {
            let _ = writeln!(
                suites,
                "    <system-out>{}</system-out>",
                escape_text(&test.log.join("\n"))
            );
        }
        suites.push_str("  </testsuite>\n");
    }
    let mut errors = 0;
    if let Some(failure) = &result.infrastructure_failure {
        errors = 1;
        total += 1;
        let _ = writeln!(
            suites,
            "  <testsuite name=\"infrastructure\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\">\n    \
             <testcase classname=\"{}.infrastructure\" name=\"{}\">\n      \
             <error message=\"{}\" type=\"{}\"/>\n    </testcase>\n  </testsuite>",
            escape_attr(arch),
            escape_attr(failure.kind.as_str()),
            escape_attr(&failure.message),
            escape_attr(failure.kind.as_str())
        );
    }
    let time = result.test_duration_s.unwrap_or(0.0) + result.boot_duration_s.unwrap_or(0.0);
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <testsuites name=\"rust-qemu-test {}\" tests=\"{total}\" failures=\"{failures}\" \
         errors=\"{errors}\" skipped=\"{skipped}\" time=\"{time:.3}\">\n{suites}</testsuites>\n",
        escape_attr(arch)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ktap::parse_str;
    use crate::verdict::{ExitReason, InfraFailure};

    #[test]
    fn escaping() {
        assert_eq!(escape_text("a < b & c > d"), "a &lt; b &amp; c &gt; d");
        assert_eq!(
            escape_attr("say \"hi\"\n'x'"),
            "say &quot;hi&quot;&#10;&apos;x&apos;"
        );
        assert_eq!(
            escape_text("bell\u{7}esc\u{1b}[0m"),
            "bell\u{fffd}esc\u{fffd}[0m"
        );
    }

    #[test]
    fn renders_suites_cases_failures_and_skips() {
        let mut result = ArchResult::new("x86_64", "console");
        result.tests = parse_str(
            "KTAP version 1\n1..3\n\
             \x20   KTAP version 1\n    # Subtest: config\n    1..2\n    ok 1 CONFIG_RUST=y\n\
             \x20   ok 2 CONFIG_X=y # SKIP not <needed>\nok 1 config\n\
             \x20   KTAP version 1\n    # Subtest: rust_minimal\n    1..2\n    ok 1 load\n\
             \x20   not ok 2 dmesg: rust_minimal: Am I built-in? false\n    # expected: a & b\nnot ok 2 rust_minimal\n\
             ok 3 leaf\n",
        )
        .tests;
        result.tests[2].fail("kernel WARNING (console.log line 9): WARNING: x");
        result.set_infra(InfraFailure::new(ExitReason::TestTimeout, "test timeout"));
        result.settle();
        let xml = render(&result);
        assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"rust-qemu-test x86_64\" tests=\"6\" failures=\"2\" errors=\"1\" skipped=\"1\""), "{xml}");
        assert!(xml.contains(
            "<testsuite name=\"config\" tests=\"2\" failures=\"0\" errors=\"0\" skipped=\"1\">"
        ));
        assert!(xml.contains("<testcase classname=\"x86_64.config\" name=\"CONFIG_RUST=y\"/>"));
        assert!(
            xml.contains("<skipped message=\"SKIP not &lt;needed&gt;\"/>"),
            "{xml}"
        );
        assert!(
            xml.contains(
                "<failure message=\"not ok\" type=\"failure\"># expected: a &amp; b</failure>"
            ),
            "{xml}"
        );
        // A leaf top-level test that failed on its own (kernel warning).
        assert!(xml.contains("<testcase classname=\"x86_64.leaf\" name=\"leaf\">\n      <failure message=\"kernel WARNING (console.log line 9): WARNING: x\""), "{xml}");
        assert!(xml.contains("<error message=\"test timeout\" type=\"test-timeout\"/>"));
        assert_eq!(xml.matches("<testsuite ").count(), 4);
    }

    #[test]
    fn suite_failing_on_its_own_gets_a_case() {
        let mut result = ArchResult::new("riscv64", "console");
        result.tests = parse_str(
            "KTAP version 1\n1..1\n    KTAP version 1\n    # Subtest: m\n    1..1\n    ok 1 load\nok 1 m\n",
        )
        .tests;
        result.tests[0].fail(
            "lockdep report (console.log line 3): WARNING: possible recursive locking detected",
        );
        result.settle();
        let xml = render(&result);
        assert!(
            xml.contains("<testsuite name=\"m\" tests=\"2\" failures=\"1\""),
            "{xml}"
        );
        assert!(
            xml.contains("<testcase classname=\"riscv64.m\" name=\"m\">"),
            "{xml}"
        );
    }
}
