//! Failure paths of `rust-qemu-test run`, each proven with a fake QEMU that
//! prints a recorded console (tests/data) and then exits or hangs.

mod common;

use std::time::Duration;

use common::{After, Fixture};

/// Timeouts scaled to 1.2 s (x86_64: 120 s boot, 120 s test).
const FAST: &[&str] = &["--arch", "x86_64", "--timeout-multiplier", "0.01"];
/// Generous enough not to fire on a loaded machine; the fake exits first.
const NORMAL: &[&str] = &["--arch", "x86_64", "--timeout-multiplier", "0.05"];
const QUICK: Duration = Duration::from_secs(5);

/// `--only`: the runner is asked for those tests on the kernel command line,
/// and only they are expected; a test the manifest does not have is an error.
#[test]
fn only_some_tests() {
    let fx = Fixture::x86("only");
    fx.fake_qemu("qemu-system-x86_64", "all-pass.log", After::Exit);
    let mut args = NORMAL.to_vec();
    args.extend(["--only", "rust_minimal,config"]);
    let run = fx.run(&args);
    run.check(run.code == Some(0), "exit 0");
    let append = fx.qemu_args("qemu-system-x86_64").join(" ");
    run.check(
        append.contains(" rust_print.x=1 rusttest.only=rust_minimal,config"),
        "rusttest.only= on the kernel command line",
    );
    let mut args = NORMAL.to_vec();
    args.extend(["--only", "rust_minimal,nosuch"]);
    let run = fx.run(&args);
    run.check(run.code == Some(2), "exit 2");
    run.check(
        run.stderr.contains("has no test nosuch (--only)"),
        "names the unknown test",
    );
}

#[test]
fn all_pass_exits_0() {
    let fx = Fixture::x86("all_pass");
    fx.fake_qemu("qemu-system-x86_64", "all-pass.log", After::Exit);
    let run = fx.run(NORMAL);
    run.check(run.code == Some(0), "exit 0");
    run.check(run.last_line() == "15 passed, 0 failed", "final line");
    run.check(
        run.stdout.contains("x86_64: ok rust_minimal (5/5)\n"),
        "per-test line",
    );
    run.check(
        run.stdout
            .contains("x86_64: 15 passed, 0 failed, 0 skipped (boot "),
        "summary line",
    );
    run.check(run.elapsed < QUICK, "fast");
    // What ran: the images with their sha256, the kernel's release.
    let json = fx.results_json("x86_64");
    assert_eq!(json["kernel_release"], "6.12.57");
    let images = json["images"].as_array().expect("images");
    assert!(images.iter().any(|i| i["file"] == "bzImage"), "{images:?}");
    assert!(
        images
            .iter()
            .all(|i| i["sha256"].as_str().is_some_and(|h| h.len() == 64)),
        "{images:?}"
    );

    // QEMU got the readme's command line with the harness's additions, in
    // the images directory.
    let args = fx.qemu_args("qemu-system-x86_64");
    // (and the `cmdline` words of the manifest, tests/data/manifest)
    let append = "root=/dev/vda rw rootwait console=ttyS0 rusttest panic=-1 printk.devkmsg=on \
                  rcupdate.rcu_expedited=1 rust_print.x=1";
    let expected = [
        "-M",
        "pc",
        "-cpu",
        "max",
        "-m",
        "512",
        "-smp",
        "2",
        "-kernel",
        "bzImage",
        "-drive",
        "file=rootfs.ext4,if=virtio,format=raw",
        "-append",
        append,
        "-nographic",
        "-no-reboot",
        "-snapshot",
    ];
    assert_eq!(args, expected);
    let images = fx.images("x86_64");
    assert_eq!(
        fx.qemu_cwd("qemu-system-x86_64")
            .canonicalize()
            .expect("cwd"),
        images.canonicalize().expect("images")
    );

    // The console is kept byte for byte; results.json and junit.xml exist.
    let console = std::fs::read(fx.results().join("x86_64/console.log")).expect("console.log");
    assert_eq!(
        console,
        std::fs::read(common::data("all-pass.log")).expect("data")
    );
    let json = fx.results_json("x86_64");
    assert_eq!(json["arch"], "x86_64");
    assert_eq!(json["exit_reason"], "completed");
    assert_eq!(json["verdict"], "pass");
    assert_eq!(json["counts"]["passed"], 15);
    assert_eq!(json["runner_exit"], 0);
    assert_eq!(json["qemu_version"], "QEMU emulator version 0.0.1 (fake)");
    assert_eq!(json["qemu_command"][1], "-M");
    assert!(json["host"]["cpus"].as_u64().is_some_and(|n| n > 0));
    assert!(json["boot_duration_s"].as_f64().is_some());
    assert!(json["test_duration_s"].as_f64().is_some());
    assert_eq!(json["tests"][2]["name"], "rust_minimal");
    assert_eq!(json["tests"][2]["subtests"][4]["status"], "pass");
    let junit = fx.read("results/x86_64/junit.xml");
    assert!(junit.contains("<testsuite name=\"rust_minimal\" tests=\"5\" failures=\"0\""));
    // each top-level test's guest duration, in results.json and JUnit
    let minimal = json["tests"][2]["duration_s"].as_f64().expect("a duration");
    assert!(minimal > 0.0, "{minimal}");
    assert!(
        junit.contains(&format!("skipped=\"0\" time=\"{minimal:.3}\">")),
        "{junit}"
    );
}

#[test]
fn qemu_extra_arguments_are_passed() {
    let fx = Fixture::x86("qemu_extra");
    fx.fake_qemu("qemu-system-x86_64", "all-pass.log", After::Exit);
    let mut args = NORMAL.to_vec();
    args.extend([
        "--qemu-extra",
        "-s",
        "--qemu-extra",
        "-d",
        "--qemu-extra",
        "int",
    ]);
    let run = fx.run(&args);
    run.check(run.code == Some(0), "exit 0");
    let got = fx.qemu_args("qemu-system-x86_64");
    assert_eq!(&got[got.len() - 4..], ["-snapshot", "-s", "-d", "int"]);
}

#[test]
fn hang_during_boot_exits_2_after_the_boot_timeout() {
    let fx = Fixture::x86("hang_boot");
    fx.fake_qemu("qemu-system-x86_64", "hang-boot.log", After::Hang);
    let run = fx.run(FAST);
    run.check(run.code == Some(2), "exit 2");
    run.check(
        run.elapsed >= Duration::from_millis(1200),
        "waited for the timeout",
    );
    run.check(run.elapsed < QUICK, "killed promptly");
    run.check(
        run.stdout.contains("x86_64: infrastructure failure (boot-timeout): boot timeout: no `rust-tests: KTAP version 1` within 1.2 s"),
        "names the phase",
    );
    run.check(
        run.stdout
            .contains("last console line: 'Run /sbin/init as init process'"),
        "names the last console line",
    );
    run.check(
        run.last_line() == "0 passed, 1 failed",
        "infrastructure failure counts",
    );
    let console = fx.read("results/x86_64/console.log");
    assert!(
        console.ends_with("Run /sbin/init as init process\r\n"),
        "console.log kept"
    );
    assert_eq!(fx.results_json("x86_64")["exit_reason"], "boot-timeout");
}

#[test]
fn hang_during_tests_exits_2_after_the_test_timeout() {
    let fx = Fixture::x86("hang_tests");
    fx.fake_qemu("qemu-system-x86_64", "hang-tests.log", After::Hang);
    let run = fx.run(FAST);
    run.check(run.code == Some(2), "exit 2");
    run.check(run.elapsed < QUICK, "killed promptly");
    run.check(
        run.stdout.contains("infrastructure failure (test-timeout): test timeout: no end sentinel within 1.8 s after the tests started (180 s x timeout multiplier 0.01) while top-level test 3 (rust_minimal) was running; QEMU was killed; last console line: 'rust-tests:     ok 1 load'"),
        "names the phase, the test and the last line",
    );
    run.check(
        run.stdout.contains("x86_64: ok config (2/2)"),
        "earlier results kept",
    );
    run.check(
        run.stdout.contains("x86_64: not ok rust_minimal"),
        "cut test fails",
    );
    let json = fx.results_json("x86_64");
    assert_eq!(json["exit_reason"], "test-timeout");
    assert!(fx.read("results/x86_64/console.log").contains("ok 1 load"));
}

#[test]
fn kernel_panic_exits_2_naming_the_panic() {
    let fx = Fixture::x86("panic");
    fx.fake_qemu("qemu-system-x86_64", "panic.log", After::Exit);
    let run = fx.run(NORMAL);
    run.check(run.code == Some(2), "exit 2");
    run.check(
        run.stdout.contains("x86_64: infrastructure failure (kernel-panic): kernel panic (console.log line 68): Kernel panic - not syncing: Fatal exception"),
        "names the panic",
    );
    run.check(
        run.stdout
            .contains("! kernel BUG (console.log line 60): BUG: kernel NULL pointer dereference"),
        "the module under test gets the BUG",
    );
    assert_eq!(fx.results_json("x86_64")["exit_reason"], "kernel-panic");
    let junit = fx.read("results/x86_64/junit.xml");
    assert!(junit.contains("<error message=\"kernel panic (console.log line 68)"));
}

#[test]
fn failing_sample_check_exits_1_naming_the_check() {
    let fx = Fixture::x86("sample_fail");
    fx.fake_qemu("qemu-system-x86_64", "sample-fail.log", After::Exit);
    let run = fx.run(NORMAL);
    run.check(run.code == Some(1), "exit 1");
    run.check(
        run.stdout.contains("x86_64: not ok rust_minimal (4/5)\n"),
        "test line",
    );
    run.check(
        run.stdout
            .contains("x86_64:     not ok 3 dmesg: rust_minimal: Am I built-in? false (at /")
            && run.stdout.contains("harness/tests/data/manifest:7)\n"),
        "names the check and its manifest line",
    );
    run.check(
        run.stdout.contains(
            "# expected: a kernel log line containing 'rust_minimal: Am I built-in? false'",
        ),
        "shows the diagnostic",
    );
    run.check(run.last_line() == "14 passed, 1 failed", "final line");
    let junit = fx.read("results/x86_64/junit.xml");
    assert!(junit.contains(
        "name=\"dmesg: rust_minimal: Am I built-in? false\">\n      <failure message=\"not ok\" type=\"failure\">at /"
    ));
    assert!(
        junit.contains("harness/tests/data/manifest:7\n# expected:"),
        "{junit}"
    );
    // The console lines of the failed test: the kernel's and the runner's.
    assert!(junit.contains("<system-out>"), "{junit}");
    assert!(
        junit.contains("rust_minimal: My numbers are [72, 108, 200]"),
        "{junit}"
    );
    let json = fx.results_json("x86_64");
    assert_eq!(json["runner_exit"], 1);
    let minimal = json["tests"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["name"] == "rust_minimal"))
        .expect("rust_minimal");
    let log = minimal["log"].as_array().expect("a log");
    assert!(
        log.iter()
            .any(|l| l == "rust_minimal: Am I built-in? false"),
        "{log:?}"
    );
    let check = &minimal["subtests"][2];
    assert!(
        check["source"]
            .as_str()
            .is_some_and(|s| s.ends_with("data/manifest:7")),
        "{check}"
    );
}

#[test]
fn warning_during_a_test_fails_that_test() {
    let fx = Fixture::x86("warn");
    fx.fake_qemu("qemu-system-x86_64", "warn-during-test.log", After::Exit);
    let run = fx.run(NORMAL);
    run.check(run.code == Some(1), "exit 1");
    run.check(
        run.stdout.contains("x86_64: ok rust_minimal (5/5)"),
        "other tests pass",
    );
    run.check(
        run.stdout.contains("x86_64: not ok rust_print (5/6)"),
        "rust_print fails",
    );
    run.check(
        run.stdout.contains("x86_64:     ! kernel WARNING (console.log line 77): WARNING: CPU: 1 PID: 97 at samples/rust/rust_print.rs:44"),
        "names the line",
    );
    run.check(run.last_line() == "15 passed, 1 failed", "final line");
    let json = fx.results_json("x86_64");
    assert_eq!(json["tests"][3]["name"], "rust_print");
    assert_eq!(json["tests"][3]["status"], "fail");
}

#[test]
fn truncated_ktap_fails() {
    let fx = Fixture::x86("truncated");
    fx.fake_qemu("qemu-system-x86_64", "truncated.log", After::Exit);
    let run = fx.run(NORMAL);
    // rust_print, which the manifest names, never ran: not a mere test failure.
    run.check(run.code == Some(2), "exit 2, not 0");
    run.check(
        run.stdout
            .contains("! truncated: plan 1..5 but only 2 result(s)"),
        "says why",
    );
    run.check(
        run.stdout.contains("not ok missing result 4"),
        "missing top-level result",
    );
    run.check(
        run.stdout
            .contains("infrastructure failure (missing-tests): 1 test(s) that "),
        "names the missing test",
    );
    run.check(run.stdout.contains("did not run: rust_print"), "which one");
    run.check(run.last_line() == "7 passed, 3 failed", "final line");
}

#[test]
fn empty_run_exits_2() {
    let fx = Fixture::x86("empty_run");
    fx.fake_qemu("qemu-system-x86_64", "empty-run.log", After::Exit);
    let run = fx.run(NORMAL);
    run.check(run.code == Some(2), "exit 2, not 0");
    run.check(
        run.stdout
            .contains("x86_64: infrastructure failure (no-tests): no test ran"),
        "says why",
    );
    run.check(run.last_line() == "0 passed, 1 failed", "final line");
    assert_eq!(fx.results_json("x86_64")["exit_reason"], "no-tests");
}

#[test]
fn missing_sentinel_exits_2() {
    let fx = Fixture::x86("no_sentinel");
    fx.fake_qemu("qemu-system-x86_64", "no-sentinel.log", After::Exit);
    let run = fx.run(NORMAL);
    run.check(run.code == Some(2), "exit 2");
    run.check(
        run.stdout.contains("infrastructure failure (missing-sentinel): missing end sentinel: the console ends before the end sentinel"),
        "names the missing sentinel",
    );
    run.check(
        run.stdout.contains("QEMU exited with status 0"),
        "QEMU status",
    );
    run.check(run.last_line() == "15 passed, 1 failed", "final line");
}

#[test]
fn qemu_error_is_reported_with_its_stderr() {
    let fx = Fixture::x86("qemu_error");
    fx.fake_qemu("qemu-system-x86_64", "hang-boot.log", After::Fail);
    let run = fx.run(NORMAL);
    run.check(run.code == Some(2), "exit 2");
    run.check(
        run.stdout
            .contains("QEMU exited with status 1; QEMU stderr: qemu: could not load kernel"),
        "QEMU's complaint",
    );
}

#[test]
fn missing_qemu_names_the_package() {
    let fx = Fixture::new("no_qemu", &["riscv64"]);
    let run = fx.run(&["--arch", "riscv64"]);
    run.check(run.code == Some(2), "exit 2");
    run.check(
        run.stdout.contains(
            "riscv64: infrastructure failure (qemu-not-found): qemu-system-riscv64 not found in",
        ),
        "names the binary",
    );
    run.check(
        run.stdout
            .contains("install QEMU: make setup, or apt-get install ")
            && run.stdout.contains("qemu-system-misc"),
        "names the packages (support/debian-packages.txt)",
    );
    assert_eq!(fx.results_json("riscv64")["exit_reason"], "qemu-not-found");
}

#[test]
fn missing_image_names_the_make_command() {
    let fx = Fixture::new("no_image", &[]);
    fx.fake_qemu("qemu-system-x86_64", "all-pass.log", After::Exit);
    let run = fx.run(NORMAL);
    run.check(run.code == Some(2), "exit 2");
    run.check(
        run.stdout.contains("(image-missing): missing images "),
        "names the image",
    );
    run.check(
        run.stdout
            .contains("build it with `make qemu_x86_64_rust_defconfig && make`"),
        "names the make command",
    );
}

#[test]
fn several_arches_add_up_and_write_the_matrix() {
    let fx = Fixture::new("two_arches", &["x86_64", "riscv64"]);
    fx.fake_qemu("qemu-system-x86_64", "all-pass.log", After::Exit);
    fx.fake_qemu("qemu-system-riscv64", "sample-fail.log", After::Exit);
    // x86_64's image says what it is (post-build.sh); riscv64's does not
    let etc = fx.output().join("qemu_x86_64_rust_defconfig/target/etc");
    std::fs::create_dir_all(&etc).expect("target dir");
    std::fs::write(
        etc.join("rust-qemu-release"),
        "RUST_QEMU_DEFCONFIG=\"qemu_x86_64_rust_defconfig\"\nCONFIG_RUST=y\n",
    )
    .expect("release file");
    let run = fx.run(&[
        "--arch",
        "x86_64",
        "--arch",
        "riscv64",
        "--timeout-multiplier",
        "0.05",
    ]);
    run.check(run.code == Some(1), "worst of 0 and 1");
    run.check(
        run.last_line() == "29 passed, 1 failed",
        "leaf cases of both arches",
    );
    run.check(
        run.stdout.contains("riscv64: not ok rust_minimal (4/5)"),
        "riscv64 line",
    );
    // sample behaviour: the checks with a manifest line that neither loads
    // nor unloads (tests/data/manifest: rust_minimal's two dmesg lines and
    // rust_print's cmdline line; the consoles' other subtests of rust_print
    // have no line there)
    let md = fx.read("results/arch-matrix.md");
    assert!(
        md.contains("| x86_64 | yes | gcc | pc | 3/3 | 2/2 | 3/3 | "),
        "{md}"
    );
    assert!(
        md.contains("| riscv64 | unknown | LLVM (clang) | virt | 3/3 | 2/2 | 2/3 | "),
        "{md}"
    );
    // what ran, as the image said it
    let x86 = fx.read("results/x86_64/results.json");
    assert!(
        x86.contains("\"image\": {\n    \"defconfig\": \"qemu_x86_64_rust_defconfig\""),
        "{x86}"
    );
    assert!(!fx
        .read("results/riscv64/results.json")
        .contains("\"image\""));
    // Every arch of the table and every other arch of the matrix has a row.
    let tree = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let table = rust_qemu_test::arch_table::ArchTable::load(None, &tree).expect("table");
    for name in table
        .arches
        .iter()
        .map(|a| a.matrix_name())
        .chain(table.others.iter().map(|o| o.matrix_name.as_str()))
    {
        assert!(md.contains(&format!("\n| {name} | ")), "{name}: {md}");
    }
    let json: serde_json::Value =
        serde_json::from_str(&fx.read("results/arch-matrix.json")).expect("json");
    let rows = json["rows"].as_array().expect("rows");
    assert!(rows.iter().any(|r| r["arch"] == "x86_64"), "{json}");
    let riscv = json["rows"]
        .as_array()
        .and_then(|rows| rows.iter().find(|r| r["arch"] == "riscv64"))
        .expect("a riscv64 row");
    assert_eq!(riscv["result"], "fail");

    // The matrix command reads the same results.
    let mut matrix = common::harness();
    matrix
        .arg("matrix")
        .arg("--output-dir")
        .arg(fx.output())
        .arg("--results-dir")
        .arg(fx.results());
    let out = common::Run::of(matrix);
    out.check(out.code == Some(0), "matrix exits 0");
    out.check(
        out.stdout
            .contains("| riscv64 | unknown | LLVM (clang) | virt | 3/3 | 2/2 | 2/3 | "),
        "table printed",
    );
}

#[test]
fn unknown_arch_is_a_usage_error() {
    let fx = Fixture::x86("unknown_arch");
    let run = fx.run(&["--arch", "arm64"]);
    run.check(run.code == Some(2), "exit 2");
    run.check(
        run.stderr
            .contains("unknown arch 'arm64' (known: aarch64, arm, loongarch64, "),
        "says so",
    );
}

#[test]
fn a_board_readme_without_the_tagged_command_is_an_error() {
    let fx = Fixture::x86("no_readme_line");
    fx.fake_qemu("qemu-system-x86_64", "all-pass.log", After::Exit);
    let tree = fx.root.join("tree");
    let board = tree.join("board/qemu/x86_64");
    std::fs::create_dir_all(&board).expect("board dir");
    std::fs::write(
        board.join("readme.txt"),
        "Run the emulation with: nothing\n",
    )
    .expect("readme");
    let source =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../board/qemu/x86_64/arch.toml");
    std::fs::copy(source, board.join("arch.toml")).expect("arch.toml");
    let mut args = NORMAL.to_vec();
    args.extend(["--tree", tree.to_str().expect("utf-8 path")]);
    let run = fx.run(&args);
    run.check(run.code == Some(2), "exit 2");
    run.check(
        run.stderr.contains(
            "the boot command of qemu_x86_64_rust_defconfig: \
             no line `qemu-system-... # qemu_x86_64_rust_defconfig` (or ",
        ),
        "names the defconfig and the readmes",
    );
    run.check(
        !fx.root.join("qemu-system-x86_64.args").exists(),
        "nothing booted",
    );
}
