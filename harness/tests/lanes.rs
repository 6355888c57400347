//! The build-and-boot loops (`check`, `retest`) with a fake make and a
//! fake QEMU that record when they run: the boot of one arch overlaps the
//! build of the next, a failed build is a row, Ctrl-C leaves nothing.

mod common;

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use common::{data, Fixture, Run};

fn script(path: &Path, body: &str) {
    fs::write(path, format!("#!/bin/sh\n{body}")).expect("script");
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).expect("chmod");
}

/// A fake make (PATH) and QEMU (`--qemu-binary-dir`) that append
/// `<what> <start|end> <args>` to `events`; make fails for riscv64's
/// output, and sleeps `make_s`; QEMU sleeps `qemu_s`.
fn fakes(fx: &Fixture, make_s: u32, qemu_s: u32) {
    let events = fx.root.join("events");
    let ev = events.display();
    script(
        &fx.bin().join("make"),
        &format!(
            "echo \"make start $*\" >>'{ev}'\n\
             echo $$ >'{pid}'\n\
             sleep {make_s}\n\
             case \"$*\" in *riscv64*) echo 'error: riscv64 broke here'; exit 2;; esac\n\
             echo \"make end $*\" >>'{ev}'\n",
            pid = fx.root.join("make.pid").display()
        ),
    );
    for qemu in [
        "qemu-system-x86_64",
        "qemu-system-aarch64",
        "qemu-system-riscv64",
    ] {
        script(
            &fx.bin().join(qemu),
            &format!(
                "case \"$1\" in --version) echo 'QEMU emulator version 0.0.1 (fake)'; exit 0;; esac\n\
                 echo \"qemu start {qemu}\" >>'{ev}'\n\
                 sleep {qemu_s}\n\
                 cat '{console}'\n\
                 echo \"qemu end {qemu}\" >>'{ev}'\n",
                console = data("all-pass.log").display()
            ),
        );
    }
    script(
        &fx.root.join("hook"),
        &format!("echo \"hook $1 $2\" >>'{ev}'\n"),
    );
}

fn events(fx: &Fixture) -> Vec<String> {
    fx.read("events").lines().map(str::to_string).collect()
}

fn position(events: &[String], prefix: &str) -> usize {
    events
        .iter()
        .position(|e| e.starts_with(prefix))
        .unwrap_or_else(|| panic!("no '{prefix}' in {events:#?}"))
}

fn harness_loop(fx: &Fixture, command: &str, extra: &[&str]) -> Command {
    let mut harness = fx.harness_in_path(command);
    harness
        .arg("--results-dir")
        .arg(fx.results())
        .arg("--qemu-binary-dir")
        .arg(fx.bin())
        .arg("--timeout-multiplier")
        .arg("0.1")
        .args(extra);
    harness
}

#[test]
fn check_builds_ahead_while_an_arch_boots_and_a_failed_build_is_a_row() {
    let fx = Fixture::new("lanes_check", &["x86_64", "x86_64-kasan"]);
    fakes(&fx, 1, 3);
    let hook = fx.root.join("hook");
    let steps = fx.root.join("steps");
    let logs = fx.root.join("logs");
    let mut command = harness_loop(&fx, "check", &["--format", "tsv"]);
    command
        .args([
            "--arch",
            "x86_64",
            "--arch",
            "riscv64",
            "--arch",
            "x86_64-kasan",
        ])
        .arg("--hook")
        .arg(&hook)
        .arg("--steps")
        .arg(&steps)
        .arg("--logs")
        .arg(&logs);
    let run = Run::of(command);
    run.check(run.code == Some(1), "a failed build: exit 1");
    run.check(
        run.stdout.contains("FAIL build-riscv64 (")
            && run.stdout.contains("| error: riscv64 broke here"),
        "the failed build with its log's last lines",
    );
    run.check(
        run.stdout.contains("\nriscv64\tfailed\t-\t0\t0\t0\t")
            && run.stdout.contains("\nx86_64\tok\tpass\t")
            && run.stdout.contains("\nx86_64-kasan\tok\tpass\t"),
        "one row per arch, in job order",
    );
    let ev = events(&fx);
    // x86_64 boots (3 s) while riscv64 builds and, its failed build
    // waiting in the queue, x86_64-kasan builds too: the failure does not
    // stop x86_64-kasan's build and boot
    let x86_boot_end = position(&ev, "qemu end qemu-system-x86_64");
    let build_start = |arch: &str| {
        ev.iter()
            .position(|e| e.starts_with("make start") && e.contains(&format!("{arch}_")))
            .unwrap_or_else(|| panic!("{arch} not built: {ev:#?}"))
    };
    assert!(build_start("riscv64") < x86_boot_end, "no overlap: {ev:#?}");
    assert!(
        build_start("kasan") < x86_boot_end,
        "not two ahead: {ev:#?}"
    );
    let boots = ev.iter().filter(|e| e.starts_with("qemu end")).count();
    assert_eq!(boots, 2, "{ev:#?}");
    assert!(
        !ev.iter().any(|e| e.contains("qemu-system-riscv64")),
        "{ev:#?}"
    );
    // the hook's phases of each arch in order: before and after its
    // build, after its boot; riscv64, not built, is never booted
    for (arch, phases) in [
        ("x86_64", &["build", "built", "booted"][..]),
        ("riscv64", &["build"][..]),
        ("x86_64-kasan", &["build", "built", "booted"][..]),
    ] {
        let seen: Vec<&str> = ev
            .iter()
            .filter_map(|e| e.strip_prefix("hook ")?.strip_suffix(&format!(" {arch}")))
            .collect();
        assert_eq!(seen, phases, "{arch}: {ev:#?}");
    }
    let steps = fs::read_to_string(steps).expect("steps");
    let names: Vec<(&str, &str)> = steps
        .lines()
        .map(|l| {
            let mut f = l.split('\t');
            (f.next().unwrap_or(""), f.next().unwrap_or(""))
        })
        .collect();
    assert_eq!(
        names,
        [
            ("ok", "build-x86_64"),
            ("FAIL", "build-riscv64"),
            ("ok", "build-x86_64-kasan")
        ]
    );
    assert!(logs.join("build-riscv64.log").is_file());
    assert!(fx.results().join("x86_64-kasan/results.json").is_file());
}

#[test]
fn retest_rebuilds_what_the_output_has_and_names_an_arch_never_built() {
    let fx = Fixture::new("lanes_retest", &["x86_64"]);
    fakes(&fx, 0, 1);
    let out = fx.output().join("qemu_x86_64_rust_defconfig");
    fs::write(out.join(".config"), "BR2_PACKAGE_RUST_TESTS=y\n").expect(".config");
    let mut command = harness_loop(&fx, "retest", &[]);
    command.args(["--arch", "x86_64", "--arch", "riscv64"]);
    let run = Run::of(command);
    run.check(run.code == Some(2), "an arch named but never built: exit 2");
    let ev = events(&fx);
    let make = format!(
        "make start O={} linux-rebuild rust-tests-rebuild all",
        out.display()
    );
    assert!(ev.contains(&make), "{ev:#?}");
    run.check(
        run.stdout.contains("riscv64")
            && run
                .stdout
                .contains("not built: make qemu_riscv64_rust_defconfig && make"),
        "the row says how to build it",
    );
    run.check(
        run.stdout
            .lines()
            .any(|l| l.starts_with("x86_64 ") && l.contains(" pass ")),
        "x86_64's row",
    );
    // quick mode
    let json = fx.results_json("x86_64");
    let argv = json["qemu_command"].to_string();
    assert!(argv.contains("rusttest=quick"), "{argv}");

    // every arch (all): one never built is a row, not an error
    let command = harness_loop(&fx, "retest", &["--arch", "all", "--format", "tsv"]);
    let run = Run::of(command);
    run.check(run.code == Some(0), "x86_64 passes, the others are rows");
    run.check(
        run.stdout
            .lines()
            .any(|l| l.starts_with("riscv64\tnot-built\t")),
        "riscv64 not built",
    );
}

#[test]
fn an_interrupt_stops_the_build_and_leaves_no_process() {
    let fx = Fixture::new("lanes_interrupt", &["x86_64"]);
    fakes(&fx, 60, 1);
    let mut command = harness_loop(&fx, "check", &["--arch", "x86_64", "--logs"]);
    command.arg(fx.root.join("logs"));
    let mut child = command.spawn().expect("harness starts");
    let pid_file = fx.root.join("make.pid");
    let started = Instant::now();
    while !pid_file.is_file() && started.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(200));
    let make: i32 = fx.read("make.pid").trim().parse().expect("make's pid");
    let harness = i32::try_from(child.id()).expect("pid");
    // SAFETY: kill(2) of the child this test started; touches no memory.
    unsafe {
        libc::kill(harness, libc::SIGINT);
    }
    let status = child.wait().expect("harness ends");
    assert_eq!(status.code(), Some(130));
    assert!(started.elapsed() < Duration::from_secs(30));
    // SAFETY: kill(2) with signal 0 only asks whether the process exists.
    let alive = unsafe { libc::kill(make, 0) } == 0;
    assert!(!alive, "make ({make}) still runs");
}
