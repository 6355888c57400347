//! `lava-jobs` and `lava-run` with a fake lava-run that prints a recorded
//! console as LAVA's log (one JSON object a line, the console as `target`
//! lines, from the end sentinel's line on as `feedback` ones, as LAVA logs
//! what it reads while it disconnects) and LAVA's job result: the harness
//! judges it as a direct boot.

mod common;

use std::fs;
use std::os::unix::fs::PermissionsExt;

use common::{data, After, Fixture, Run};

/// A fake lava-run in `bin/` that prints `console` as LAVA's log, then
/// the job result `job` (`pass`, or `fail` with an infrastructure error).
fn fake_lava(fx: &Fixture, console: &str, job: &str) {
    let text = fs::read(data(console)).expect("console");
    let mut log = String::new();
    let mut lvl = "target";
    for line in String::from_utf8_lossy(&text).lines() {
        if line.contains("rust-qemu: end exit=") {
            lvl = "feedback";
        }
        let entry = serde_json::json!({"dt": "2026-12-07T06:00:00", "lvl": lvl, "msg": line});
        log.push_str(&format!("{entry}\n"));
    }
    let mut result = serde_json::json!({"definition": "lava", "case": "job", "result": job});
    if job != "pass" {
        result["error_type"] = "Infrastructure".into();
        result["error_msg"] = "Connection closed".into();
    }
    log.push_str(&format!(
        "{}\n",
        serde_json::json!({"lvl": "results", "msg": result})
    ));
    let log_file = fx.root.join("lava-log.jsonl");
    fs::write(&log_file, log).expect("log");
    let script = fx.bin().join("lava-run");
    fs::write(
        &script,
        format!(
            "#!/bin/sh\necho \"$@\" >'{}'\ncat '{}'\n[ {job} = pass ]\n",
            fx.root.join("lava-run.args").display(),
            log_file.display()
        ),
    )
    .expect("script");
    fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).expect("chmod");
}

fn is_root() -> bool {
    // SAFETY: geteuid has no arguments and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

fn harness(fx: &Fixture, command: &str, extra: &[&str]) -> Run {
    let mut harness = fx.harness_in_path(command);
    harness
        .env_remove("LAVA_BASE_URL")
        .arg("--lava-dir")
        .arg(fx.root.join("lava"))
        .args(extra);
    Run::of(harness)
}

fn lava_run(fx: &Fixture) -> Run {
    harness(
        fx,
        "lava-run",
        &[
            "--arch",
            "x86_64",
            "--results-dir",
            fx.results().to_str().expect("utf-8"),
        ],
    )
}

#[test]
fn a_failing_test_fails_under_lava_as_in_a_direct_boot() {
    let fx = Fixture::x86("lava_sample_fail");
    fx.fake_qemu("qemu-system-x86_64", "sample-fail.log", After::Exit);
    let direct = fx.run(&["--arch", "x86_64"]);
    direct.check(direct.code == Some(1), "the direct boot fails");
    let jobs = harness(&fx, "lava-jobs", &[]);
    jobs.check(jobs.code == Some(0), "jobs written");
    let job = fx.read("lava/x86_64/job.yaml");
    assert!(job.contains("device_type: \"qemu\""), "{job}");
    assert!(job.contains("file://"), "{job}");
    fake_lava(&fx, "sample-fail.log", "pass");
    let run = lava_run(&fx);
    if !is_root() {
        run.check(
            run.code == Some(77) && run.stdout.contains("SKIP x86_64@lava"),
            "a loud skip",
        );
        return;
    }
    run.check(run.code == Some(1), "the same failure: exit 1");
    run.check(
        run.stdout.contains("x86_64@lava: not ok rust_minimal"),
        "the failing test, live",
    );
    run.check(
        run.stdout
            .contains("the same tests and verdicts as the direct boot"),
        "compared with the direct boot",
    );
    let json = fx.results_json("x86_64@lava");
    assert_eq!(json["verdict"], "fail");
    assert_eq!(json["source"], "lava");
    let args = fx.read("lava-run.args");
    assert!(
        args.contains("--device") && args.contains("lava/x86_64/job.yaml"),
        "{args}"
    );
    assert_eq!(
        fx.read("results/x86_64@lava/console.log").lines().count(),
        fs::read_to_string(data("sample-fail.log"))
            .expect("log")
            .lines()
            .count()
    );
}

#[test]
fn a_panic_and_a_failed_lava_job_are_infrastructure_failures() {
    let fx = Fixture::x86("lava_panic");
    let jobs = harness(&fx, "lava-jobs", &[]);
    jobs.check(jobs.code == Some(0), "jobs written");
    if !is_root() {
        return;
    }
    fake_lava(&fx, "panic.log", "fail");
    let run = lava_run(&fx);
    run.check(run.code == Some(2), "exit 2");
    run.check(
        run.stdout.contains("infrastructure failure (kernel-panic)"),
        "the panic",
    );
    // a hung guest: LAVA's timeout ends the console before the sentinel
    fake_lava(&fx, "hang-tests.log", "fail");
    let run = lava_run(&fx);
    run.check(run.code == Some(2), "exit 2");
    run.check(
        run.stdout.contains("infrastructure failure ("),
        "an infrastructure failure",
    );
    // a complete console, but LAVA's job failed
    fake_lava(&fx, "all-pass.log", "fail");
    let run = lava_run(&fx);
    run.check(run.code == Some(2), "exit 2");
    run.check(
        run.stdout
            .contains("(lab-failure): LAVA's job failed (Infrastructure: Connection closed)"),
        "LAVA's word",
    );
}

#[test]
fn lava_jobs_bad_input() {
    // nothing built
    let fx = Fixture::new("lava_nothing", &[]);
    let run = harness(&fx, "lava-jobs", &[]);
    run.check(
        run.code == Some(2) && run.stderr.contains("no arch has images"),
        "says so",
    );
    // named but not built: the build command
    let run = harness(&fx, "lava-jobs", &["--arch", "riscv64"]);
    run.check(
        run.code == Some(2)
            && run
                .stderr
                .contains("make qemu_riscv64_rust_defconfig && make"),
        "names the build",
    );
    // a base URL that is not http(s)
    let fx = Fixture::x86("lava_url");
    let run = harness(&fx, "lava-jobs", &["--base-url", "ftp://lab/images"]);
    run.check(
        run.code == Some(2) && run.stderr.contains("not an http:// or https:// URL"),
        "refused",
    );
    let run = harness(
        &fx,
        "lava-jobs",
        &["--base-url", "https://lab.example/rust-qemu/"],
    );
    run.check(run.code == Some(0), "an https URL");
    let job = fx.read("lava/x86_64/job.yaml");
    assert!(
        job.contains("\"https://lab.example/rust-qemu/qemu_x86_64_rust_defconfig/bzImage\""),
        "{job}"
    );
    // um has no LAVA device, and says so
    let fx = Fixture::new("lava_um", &["um"]);
    let run = harness(&fx, "lava-jobs", &["--arch", "um"]);
    run.check(
        run.code == Some(0) && run.stdout.contains("User-Mode Linux is no LAVA device"),
        "um: why not, and no error",
    );
    assert!(!fx.root.join("lava/um").exists());
}
