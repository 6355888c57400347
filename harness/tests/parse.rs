//! `rust-qemu-test parse`: offline re-parse of recorded consoles, with the
//! same report and exit status as a live run.

mod common;

use common::{data, harness, Run};

fn parse(console: &str, extra: &[&str]) -> Run {
    let mut command = harness();
    command.arg("parse").arg(data(console)).args(extra);
    Run::of(command)
}

#[test]
fn exit_codes_of_the_recorded_consoles() {
    for (console, code, last) in [
        ("all-pass.log", 0, "15 passed, 0 failed"),
        ("sample-fail.log", 1, "14 passed, 1 failed"),
        ("doctest-fail.log", 1, "14 passed, 1 failed"),
        ("warn-during-test.log", 1, "15 passed, 1 failed"),
        ("truncated.log", 2, "7 passed, 3 failed"),
        ("empty-run.log", 2, "0 passed, 1 failed"),
        ("panic.log", 2, "5 passed, 3 failed"),
        ("no-sentinel.log", 2, "15 passed, 1 failed"),
        ("hang-boot.log", 2, "0 passed, 1 failed"),
        ("hang-tests.log", 2, "6 passed, 3 failed"),
    ] {
        let run = parse(console, &["--arch", "x86_64"]);
        run.check(run.code == Some(code), &format!("{console}: exit {code}"));
        run.check(run.last_line() == last, &format!("{console}: final line"));
    }
}

/// A real arm64 boot (QEMU virt, PL011 console, `-cpu max,pauth-impdef=on`),
/// recorded by `make check` on 2026-12-03: every test of the runner passed.
#[test]
fn recorded_arm64_boot() {
    let run = parse("aarch64-pass.log", &["--arch", "aarch64"]);
    run.check(run.code == Some(0), "exit 0");
    run.check(
        run.last_line() == "330 passed, 0 failed, 1 skipped",
        "final line",
    );
    run.check(
        run.stdout
            .contains("aarch64: ok kunit_rust_doctests (160/160)")
            && run.stdout.contains("aarch64: ok rust_platform@of (11/11)"),
        "doctests and the device-tree platform test",
    );
}

/// A real UML boot (`images/linux-um`, a program of the host: console on its
/// stdin/stdout, the device tree from `dtb=`), recorded on 2026-12-04: every
/// test passed but the two rust_platform groups of x86_64 and loongarch64.
#[test]
fn recorded_uml_boot() {
    let run = parse("um-pass.log", &["--arch", "um"]);
    run.check(run.code == Some(0), "exit 0");
    run.check(
        run.last_line() == "337 passed, 0 failed, 2 skipped",
        "final line",
    );
    run.check(
        run.stdout.contains("um: ok kunit_rust_doctests (167/167)")
            && run.stdout.contains("um: ok rust_platform@of (11/11)")
            && run.stdout.contains("um: ok lockdep (2/2)"),
        "doctests, the device-tree platform test and lockdep still on",
    );
}

#[test]
fn empty_run_is_an_infrastructure_failure() {
    let run = parse("empty-run.log", &["--arch", "x86_64"]);
    run.check(
        run.stdout.contains(
            "x86_64: infrastructure failure (no-tests): no test ran: the runner's KTAP reports no result",
        ),
        "says why",
    );
}

#[test]
fn tests_the_manifest_names_for_the_arch_must_run() {
    // tests/data/manifest: rust_platform@of runs on aarch64 and loongarch64.
    let run = parse("all-pass.log", &["--arch", "aarch64"]);
    run.check(run.code == Some(2), "exit 2");
    run.check(
        run.stdout
            .contains("aarch64: infrastructure failure (missing-tests): 1 test(s) that "),
        "reason",
    );
    run.check(
        run.stdout
            .contains("names for aarch64 did not run: rust_platform@of"),
        "which test",
    );
    run.check(run.last_line() == "15 passed, 1 failed", "final line");
}

#[test]
fn report_uses_guest_timestamps() {
    let run = parse("all-pass.log", &["--arch", "riscv64"]);
    run.check(
        run.stdout
            .contains("riscv64: 15 passed, 0 failed, 0 skipped (boot 2.0 s, tests 0.5 s)"),
        "durations from printk timestamps",
    );
}

#[test]
fn arch_defaults_to_console() {
    let run = parse("all-pass.log", &[]);
    run.check(
        run.stdout
            .starts_with("console: ok kunit_rust_doctests (3/3)\n"),
        "label",
    );
}

/// A failed doctest and a failed manifest check point at their source, and
/// carry the console lines printed while their test ran, in the printed
/// lines, results.json and junit.xml.
#[test]
fn failures_name_their_source_and_carry_their_log() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("parse_sources");
    let _ = std::fs::remove_dir_all(&dir);
    let results = dir.to_str().expect("utf-8 path");
    for (console, arch, test, leaf, source, logged) in [
        (
            "doctest-fail.log",
            "x86_64",
            "kunit_rust_doctests",
            "rust_doctest_kernel_sync_arc_rs_0",
            "rust/kernel/sync/arc.rs:58",
            "ASSERTION FAILED at rust/doctests_kernel_generated.rs:2041",
        ),
        (
            "sample-fail.log",
            "riscv64",
            "rust_minimal",
            "dmesg: rust_minimal: Am I built-in? false",
            "harness/tests/data/manifest:7",
            "rust_minimal: My numbers are [72, 108, 200]",
        ),
    ] {
        let run = parse(console, &["--arch", arch, "--results-dir", results]);
        run.check(run.code == Some(1), &format!("{console}: exit 1"));
        run.check(
            run.stdout.contains(&format!(" {leaf} (at ")) && run.stdout.contains(source),
            &format!("{console}: printed source"),
        );
        let json: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join(arch).join("results.json")).expect("results.json"),
        )
        .expect("json");
        let top = json["tests"]
            .as_array()
            .and_then(|t| t.iter().find(|t| t["name"] == test))
            .expect("the failed test");
        let failed = top["subtests"]
            .as_array()
            .and_then(|t| t.iter().find(|t| t["name"] == leaf))
            .expect("the failed leaf");
        assert!(
            failed["source"]
                .as_str()
                .is_some_and(|s| s.ends_with(source)),
            "{console}: {failed}"
        );
        let log = top["log"].as_array().expect("a log");
        assert!(
            log.iter()
                .any(|l| l.as_str().is_some_and(|l| l.contains(logged))),
            "{console}: {log:?}"
        );
        let junit = std::fs::read_to_string(dir.join(arch).join("junit.xml")).expect("junit");
        assert!(junit.contains(source), "{console}: {junit}");
        assert!(junit.contains("<system-out>"), "{console}: {junit}");
        // How to run it again: the failed test alone, quick.
        let reproduce = format!("make retest ARCH={arch} TESTS={test}");
        assert_eq!(json["reproduce"], reproduce.as_str(), "{console}");
        assert!(
            junit.contains(&format!("name=\"reproduce\" value=\"{reproduce}\"")),
            "{console}: {junit}"
        );
        run.check(
            run.stdout
                .contains(&format!("{arch}: to run it again: {reproduce}\n")),
            &format!("{console}: printed reproduce command"),
        );
    }
}

#[test]
fn writes_results_when_asked() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("parse_results");
    let _ = std::fs::remove_dir_all(&dir);
    let results = dir.to_str().expect("utf-8 path");
    let run = parse(
        "sample-fail.log",
        &["--arch", "x86_64", "--results-dir", results],
    );
    run.check(run.code == Some(1), "exit 1");
    let json: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("x86_64/results.json")).expect("results.json"),
    )
    .expect("json");
    assert_eq!(json["source"], "console");
    assert_eq!(json["verdict"], "fail");
    assert!(dir.join("x86_64/junit.xml").is_file());
    assert_eq!(
        std::fs::read(dir.join("x86_64/console.log")).expect("copy"),
        std::fs::read(data("sample-fail.log")).expect("data")
    );

    // Re-parsing the copy in place infers the arch from its directory and
    // leaves the file alone.
    let mut again = harness();
    again
        .arg("parse")
        .arg(dir.join("x86_64/console.log"))
        .arg("--results-dir")
        .arg(&dir);
    let run = Run::of(again);
    run.check(run.code == Some(1), "exit 1");
    run.check(
        run.stdout.contains("x86_64: not ok rust_minimal (4/5)"),
        "arch from directory",
    );
}

#[test]
fn summary_counts_the_results_files() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("summary_results");
    let _ = std::fs::remove_dir_all(&dir);
    let results = dir.to_str().expect("utf-8 path");
    for (console, arch) in [("all-pass.log", "x86_64"), ("sample-fail.log", "riscv64")] {
        let run = parse(console, &["--arch", arch, "--results-dir", results]);
        run.check(run.code.is_some(), "parsed");
    }
    let summary = |arches: &[&str]| {
        let mut command = harness();
        command.arg("summary").arg("--results-dir").arg(&dir);
        for arch in arches {
            command.arg("--arch").arg(arch);
        }
        Run::of(command)
    };
    let run = summary(&["x86_64", "riscv64"]);
    run.check(run.code == Some(0), "exit 0");
    run.check(
        run.stdout
            .starts_with("failures:\nriscv64: not ok rust_minimal (4/5)\n"),
        "failures again",
    );
    run.check(
        run.stdout.ends_with("\npassed 29 failed 1 skipped 0\n"),
        "then the counts",
    );
    // An arch without results.json is a failure.
    let run = summary(&["x86_64", "aarch64"]);
    run.check(run.stdout == "passed 15 failed 1 skipped 0\n", "counts");
    run.check(run.stderr.contains("aarch64: no results"), "says which");
}

#[test]
fn list_prints_arch_and_defconfig() {
    let mut command = harness();
    command.arg("list");
    let run = Run::of(command);
    run.check(run.code == Some(0), "exit 0");
    run.check(
        run.stdout
            .lines()
            .any(|l| l == "riscv64 qemu_riscv64_rust_defconfig"),
        "riscv64 line",
    );
}

#[test]
fn missing_console_file_is_an_error() {
    let mut command = harness();
    command.arg("parse").arg("/nonexistent/console.log");
    let run = Run::of(command);
    run.check(run.code == Some(2), "exit 2");
    run.check(
        run.stderr.contains("cannot read /nonexistent/console.log"),
        "says what",
    );
}
