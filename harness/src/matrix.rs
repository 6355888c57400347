//! The arch support matrix (`arch-matrix.md`, `arch-matrix.json`): per arch,
//! whether the kernel was built with Rust, doctest and sample results, and
//! boot time.

use serde::{Deserialize, Serialize};

use crate::arch_table::OtherArch;
use crate::ktap::{Status, TestKind, TestNode};
use crate::report::{seconds, ArchResult, KernelToolchain};
use crate::verdict::Verdict;

/// Passed out of total.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ratio {
    pub passed: u64,
    pub total: u64,
}

impl Ratio {
    fn show(ratio: Option<Ratio>) -> String {
        ratio.map_or("-".to_string(), |r| format!("{}/{}", r.passed, r.total))
    }
}

/// One row of the matrix.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MatrixRow {
    pub arch: String,
    /// `yes` / `no` (CONFIG_RUST=y in the build's .config) or `unknown`.
    pub rust_kernel: String,
    /// What builds the kernel's C (`gcc 12`, `LLVM (clang-22)`), from the
    /// defconfig.
    #[serde(default)]
    pub toolchain: Option<String>,
    /// QEMU's `-M` machine, from the board readme's command.
    #[serde(default)]
    pub qemu_machine: Option<String>,
    pub doctests: Option<Ratio>,
    /// Sample modules whose `load` checks all passed, out of the modules
    /// the tests load (a module's `<module>@<variant>` tests count once).
    pub samples_loaded: Option<Ratio>,
    /// Sample behaviour checks (per-module checks other than load, unload
    /// and kernel clean) that ran: a check this kernel cannot run (SKIP)
    /// does not count.
    pub sample_behaviour: Option<Ratio>,
    pub boot_time_s: Option<f64>,
    /// Top-level tests skipped on this arch (e.g. `arch`-only tests).
    #[serde(default)]
    pub skipped: Vec<String>,
    /// `pass`, `fail`, `infrastructure failure (<reason>)` or `not run`.
    pub result: String,
}

/// `yes`/`no` from a kernel `.config`, `unknown` without one.
pub fn rust_in_config(config: Option<&str>) -> String {
    match config {
        None => "unknown".to_string(),
        Some(text) => {
            if text.lines().any(|l| l.trim() == "CONFIG_RUST=y") {
                "yes".to_string()
            } else {
                "no".to_string()
            }
        }
    }
}

/// The toolchain that built a kernel, from its `.config` and its build's
/// records (`tools`): the C compiler ([`compiler_of_config`]), then rustc's
/// and bindgen's versions as Kconfig recorded them and bindgen's libclang,
/// e.g. `gcc 12, rustc 1.96.0, bindgen 0.72.1 (libclang 22.1.8)`.
pub fn toolchain_of_config(config: &str, tools: &KernelToolchain) -> Option<String> {
    let mut out = compiler_of_config(config)?;
    let version = |text: &Option<String>| {
        text.as_deref()?
            .split_whitespace()
            .nth(1)
            .map(str::to_string)
    };
    for (tool, text) in [("rustc", &tools.rustc), ("bindgen", &tools.bindgen)] {
        if let Some(v) = version(text) {
            out.push_str(&format!(", {tool} {v}"));
        }
    }
    if let Some(libclang) = &tools.libclang {
        out.push_str(&format!(" (libclang {libclang})"));
    }
    Some(out)
}

/// The C compiler that built a kernel, from its `.config`:
/// `LLVM (clang-22)` for `CONFIG_CC_IS_CLANG` with `CONFIG_CLANG_VERSION=220108`,
/// `gcc 12` for `CONFIG_CC_IS_GCC` with `CONFIG_GCC_VERSION=120200`.
pub fn compiler_of_config(config: &str) -> Option<String> {
    let value = |key: &str| {
        config.lines().find_map(|l| {
            l.trim()
                .strip_prefix(key)?
                .strip_prefix('=')?
                .parse::<u32>()
                .ok()
        })
    };
    let has = |key: &str| config.lines().any(|l| l.trim() == key);
    if has("CONFIG_CC_IS_CLANG=y") {
        value("CONFIG_CLANG_VERSION").map(|v| format!("LLVM (clang-{})", v / 10000))
    } else if has("CONFIG_CC_IS_GCC=y") {
        value("CONFIG_GCC_VERSION").map(|v| format!("gcc {}", v / 10000))
    } else {
        None
    }
}

/// The kernel's toolchain from a defconfig of Buildroot's linux package
/// (before a build, or without one): `LLVM (clang)` for
/// `BR2_LINUX_KERNEL_RUST_LLVM=y` (`LLVM (clang-22)` for the string
/// `"-22"` of older trees), else the external toolchain's gcc
/// (with its version where the defconfig states it: Buildroot's custom
/// toolchain; the tree's own toolchain package states it in its Config.in).
pub fn kernel_toolchain(defconfig: &str) -> String {
    let value = |key: &str| {
        defconfig.lines().find_map(|l| {
            l.trim()
                .strip_prefix(key)
                .and_then(|v| v.strip_prefix('='))
                .map(|v| v.trim_matches('"').to_string())
        })
    };
    match value("BR2_LINUX_KERNEL_RUST_LLVM").filter(|v| !v.is_empty()) {
        Some(suffix) if suffix.starts_with('-') => format!("LLVM (clang{suffix})"),
        Some(_) => "LLVM (clang)".to_string(),
        None => defconfig
            .lines()
            .find_map(|l| {
                l.trim()
                    .strip_prefix("BR2_TOOLCHAIN_EXTERNAL_GCC_")?
                    .strip_suffix("=y")
            })
            .map_or("gcc".to_string(), |v| {
                format!("gcc {}", v.replace('_', "."))
            }),
    }
}

/// A runner test of checks (around a module it loads, or of the kernel
/// alone), by its manifest lines' actions: not KUnit, not configuration.
fn is_check_test(test: &TestNode) -> bool {
    matches!(test.kind, Some(TestKind::Module | TestKind::Checks))
}

/// `rust_platform` for `rust_platform@of`.
fn module_name(test: &str) -> &str {
    test.split('@').next().unwrap_or(test)
}

/// Modules the tests load (a `load` line), and how many of them loaded
/// every time.
fn loaded_modules(modules: &[&TestNode]) -> Option<Ratio> {
    let mut loaded: Vec<(&str, bool)> = Vec::new();
    for module in modules {
        let Some(load) = module
            .subtests
            .iter()
            .find(|s| s.action.as_deref() == Some("load"))
        else {
            continue;
        };
        let ok = load.status == Status::Pass;
        let name = module_name(&module.name);
        match loaded.iter_mut().find(|(n, _)| *n == name) {
            Some((_, all_ok)) => *all_ok &= ok,
            None => loaded.push((name, ok)),
        }
    }
    (!loaded.is_empty()).then(|| Ratio {
        passed: loaded.iter().filter(|(_, ok)| *ok).count() as u64,
        total: loaded.len() as u64,
    })
}

/// A check of behaviour: a manifest line's that neither loads nor unloads
/// (the runner's own "kernel clean" has no line).
fn is_behaviour_check(check: &TestNode) -> bool {
    check
        .action
        .as_deref()
        .is_some_and(|a| a != "load" && a != "unload")
}

impl MatrixRow {
    pub fn new(arch: &str, result: Option<&ArchResult>, config: Option<&str>) -> MatrixRow {
        let rust_kernel = rust_in_config(config);
        let Some(result) = result else {
            return MatrixRow {
                arch: arch.to_string(),
                rust_kernel,
                toolchain: None,
                qemu_machine: None,
                doctests: None,
                samples_loaded: None,
                sample_behaviour: None,
                boot_time_s: None,
                skipped: Vec::new(),
                result: "not run".to_string(),
            };
        };
        let kunit: Vec<&TestNode> = result
            .tests
            .iter()
            .filter(|t| t.kind == Some(TestKind::Kunit))
            .collect();
        let doctests = (!kunit.is_empty()).then(|| {
            kunit.iter().fold(
                Ratio {
                    passed: 0,
                    total: 0,
                },
                |r, t| {
                    let c = t.counts();
                    Ratio {
                        passed: r.passed + c.passed,
                        total: r.total + c.total(),
                    }
                },
            )
        });
        let modules: Vec<&TestNode> = result.tests.iter().filter(|t| is_check_test(t)).collect();
        let samples_loaded = loaded_modules(&modules);
        let skipped = result
            .tests
            .iter()
            .filter(|t| t.status == Status::Skip)
            .map(|t| t.name.clone())
            .collect();
        let mut behaviour = Ratio {
            passed: 0,
            total: 0,
        };
        for module in &modules {
            for check in module.subtests.iter().filter(|c| is_behaviour_check(c)) {
                // a check this kernel cannot run (SKIP) is left out
                let c = check.counts();
                behaviour.passed += c.passed;
                behaviour.total += c.passed + c.failed;
            }
        }
        let result_word = match (result.verdict, &result.infrastructure_failure) {
            (Verdict::Pass, _) => "pass".to_string(),
            (Verdict::Fail, _) => "fail".to_string(),
            (Verdict::InfrastructureFailure, Some(f)) => {
                format!("infrastructure failure ({})", f.kind.as_str())
            }
            (Verdict::InfrastructureFailure, None) => "infrastructure failure".to_string(),
        };
        MatrixRow {
            arch: arch.to_string(),
            rust_kernel,
            toolchain: None,
            qemu_machine: None,
            doctests,
            samples_loaded,
            sample_behaviour: (behaviour.total > 0 || !modules.is_empty()).then_some(behaviour),
            boot_time_s: result.boot_duration_s,
            skipped,
            result: result_word,
        }
    }
}

impl MatrixRow {
    /// The row of an arch this tree does not test: its status as result.
    pub fn other(arch: &OtherArch) -> MatrixRow {
        MatrixRow {
            result: arch.status.clone(),
            rust_kernel: "-".to_string(),
            ..MatrixRow::new(&arch.matrix_name, None, None)
        }
    }
}

/// The whole matrix, as written to `arch-matrix.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Matrix {
    pub rows: Vec<MatrixRow>,
}

impl Matrix {
    pub fn markdown(&self) -> String {
        let mut out = String::from(
            "# Rust-for-Linux boot tests by architecture\n\n\
             Written by `rust-qemu-test matrix` from each arch's `results.json` and what its \
             image says of its kernel (`/etc/rust-qemu-release`).\n\n\
             | arch | kernel built with Rust | kernel toolchain | QEMU machine | \
             doctests pass/total | samples loaded | sample behaviour pass/total | boot time | \
             skipped here | result |\n\
             | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n",
        );
        for row in &self.rows {
            out.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                row.arch,
                row.rust_kernel,
                row.toolchain.as_deref().unwrap_or("-"),
                row.qemu_machine.as_deref().unwrap_or("-"),
                Ratio::show(row.doctests),
                Ratio::show(row.samples_loaded),
                Ratio::show(row.sample_behaviour),
                seconds(row.boot_time_s),
                if row.skipped.is_empty() {
                    "-".to_string()
                } else {
                    row.skipped.join(", ")
                },
                row.result
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ktap::parse_str;

    const RESULTS: &str = "\
KTAP version 1
1..7
    KTAP version 1
    # Subtest: kunit_rust_doctests
    1..3
    ok 1 a
    ok 2 b
    not ok 3 c
not ok 1 kunit_rust_doctests
    KTAP version 1
    # Subtest: config
    1..1
    ok 1 CONFIG_RUST=y
ok 2 config
    KTAP version 1
    # Subtest: rust_minimal
    1..4
    ok 1 load
    ok 2 dmesg: rust_minimal: Rust minimal sample (init)
    ok 3 unload
    ok 4 kernel clean (no new WARN/BUG/Oops/lockdep, taint unchanged)
ok 3 rust_minimal
    KTAP version 1
    # Subtest: rust_print
    1..3
    not ok 1 load
    not ok 2 dmesg: rust_print: Emergency message (level 0) without args
    ok 3 kernel clean
not ok 4 rust_print
    KTAP version 1
    # Subtest: rust_minimal@again
    1..2
    ok 1 load
    ok 2 unload
ok 5 rust_minimal@again
    KTAP version 1
    # Subtest: rust_print@invalid
    1..2
    ok 1 run: ! modprobe rust_print bad=1
    ok 2 check: kmemleak report # SKIP this kernel has no /sys/kernel/debug/kmemleak
ok 6 rust_print@invalid
ok 7 rust_platform@of # SKIP only on riscv64
";

    /// What the runner lists for the tests of RESULTS (kinds, actions).
    const LISTING: &str = "\
test kunit_rust_doctests\nline 1 kunit m:1\ntest config\nline 1 config m:2\n\
test rust_minimal\nline 1 load m:3\nline 2 dmesg m:4\nline 3 unload m:5\n\
test rust_print\nline 1 load m:6\nline 2 dmesg m:7\n\
test rust_minimal@again\nline 1 load m:8\nline 2 unload m:9\n\
test rust_print@invalid\nline 1 run m:10\nline 2 check m:11\n\
skip rust_platform@of\nline 1 arch m:12\nline 2 load m:13\n";

    #[test]
    fn row_from_results() {
        let mut result = ArchResult::new("x86_64", "qemu");
        result.tests = parse_str(RESULTS).tests;
        crate::manifest::Manifest::from_listing(LISTING, std::path::Path::new("l"))
            .expect("a listing")
            .set_sources(&mut result.tests);
        result
            .tests
            .push(TestNode::synthetic_failure("kernel-log", "x"));
        result.boot_duration_s = Some(3.125);
        result.settle();
        let row = MatrixRow::new("x86_64", Some(&result), Some("# c\nCONFIG_RUST=y\n"));
        assert_eq!(row.rust_kernel, "yes");
        assert_eq!(
            row.doctests,
            Some(Ratio {
                passed: 2,
                total: 3
            })
        );
        assert_eq!(
            row.samples_loaded,
            Some(Ratio {
                passed: 1,
                total: 2
            })
        );
        assert_eq!(
            row.sample_behaviour,
            Some(Ratio {
                passed: 2,
                total: 3
            })
        );
        assert_eq!(row.skipped, ["rust_platform@of"]);
        assert_eq!(row.result, "fail");
        let row = MatrixRow {
            toolchain: Some("gcc 12".into()),
            qemu_machine: Some("pc".into()),
            ..row
        };
        let other = OtherArch {
            matrix_name: "ppc64le".into(),
            status: "not supported by 6.12".into(),
        };
        let md = Matrix {
            rows: vec![
                row,
                MatrixRow::new("riscv64", None, None),
                MatrixRow::other(&other),
            ],
        }
        .markdown();
        assert!(
            md.contains(
                "| x86_64 | yes | gcc 12 | pc | 2/3 | 1/2 | 2/3 | 3.1 s | rust_platform@of | fail |"
            ),
            "{md}"
        );
        assert!(
            md.contains("| riscv64 | unknown | - | - | - | - | - | - | - | not run |"),
            "{md}"
        );
        assert!(
            md.contains("| ppc64le | - | - | - | - | - | - | - | - | not supported by 6.12 |"),
            "{md}"
        );
    }

    #[test]
    fn toolchains() {
        for (defconfig, toolchain) in [
            (
                "BR2_TOOLCHAIN_EXTERNAL_GCC_12=y\nBR2_LINUX_KERNEL_RUST_LLVM=\"-22\"\n",
                "LLVM (clang-22)",
            ),
            ("BR2_LINUX_KERNEL_RUST_LLVM=\"1\"\n", "LLVM (clang)"),
            (
                "BR2_TOOLCHAIN_EXTERNAL_GCC_12=y\nBR2_LINUX_KERNEL_RUST_LLVM=y\n",
                "LLVM (clang)",
            ),
            (
                "BR2_TOOLCHAIN_EXTERNAL_GCC_12=y\nBR2_LINUX_KERNEL_RUST_LLVM=\"\"\n",
                "gcc 12",
            ),
            ("BR2_TOOLCHAIN_EXTERNAL_GCC_12=y\n", "gcc 12"),
            ("", "gcc"),
        ] {
            assert_eq!(kernel_toolchain(defconfig), toolchain, "{defconfig}");
        }
    }

    #[test]
    fn toolchain_versions_of_built_kernels() {
        let config = "CONFIG_CC_IS_GCC=y\nCONFIG_GCC_VERSION=120200\n\
            CONFIG_RUSTC_VERSION_TEXT=\"rustc 1.85.0 (4d91de4e4 2025-02-17) (built from a source tarball)\"\n\
            CONFIG_BINDGEN_VERSION_TEXT=\"bindgen 0.65.1\"\n";
        let mut tools = KernelToolchain::from_config(config);
        assert_eq!(
            toolchain_of_config(config, &tools).as_deref(),
            Some("gcc 12, rustc 1.85.0, bindgen 0.65.1")
        );
        tools.libclang = Some("22.1.8".into());
        assert_eq!(
            toolchain_of_config(config, &tools).as_deref(),
            Some("gcc 12, rustc 1.85.0, bindgen 0.65.1 (libclang 22.1.8)")
        );
    }

    #[test]
    fn toolchains_of_built_kernels() {
        for (config, toolchain) in [
            (
                "CONFIG_CC_IS_CLANG=y\nCONFIG_CLANG_VERSION=220108\nCONFIG_GCC_VERSION=0\n",
                Some("LLVM (clang-22)"),
            ),
            (
                "CONFIG_CC_IS_GCC=y\nCONFIG_GCC_VERSION=120200\nCONFIG_CLANG_VERSION=0\n",
                Some("gcc 12"),
            ),
            ("CONFIG_CC_IS_GCC=y\n", None),
            ("CONFIG_RUST=y\n", None),
        ] {
            assert_eq!(compiler_of_config(config).as_deref(), toolchain, "{config}");
        }
    }

    #[test]
    fn rust_config_detection() {
        assert_eq!(rust_in_config(None), "unknown");
        assert_eq!(rust_in_config(Some("CONFIG_RUST=y\n")), "yes");
        assert_eq!(rust_in_config(Some("# CONFIG_RUST is not set\n")), "no");
        assert_eq!(rust_in_config(Some("CONFIG_RUSTC_VERSION=108500\n")), "no");
    }

    #[test]
    fn empty_results() {
        let mut result = ArchResult::new("riscv64", "qemu");
        result.set_infra(crate::verdict::InfraFailure::new(
            crate::verdict::ExitReason::BootTimeout,
            "x",
        ));
        result.settle();
        let row = MatrixRow::new("riscv64", Some(&result), None);
        assert_eq!(row.doctests, None);
        assert_eq!(row.samples_loaded, None);
        assert_eq!(row.sample_behaviour, None);
        assert_eq!(row.result, "infrastructure failure (boot-timeout)");
    }
}
