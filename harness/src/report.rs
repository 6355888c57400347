//! Results of one arch (`results.json`), their verdict and exit code, and the
//! lines printed while running.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::HarnessError;
use crate::ktap::{Counts, Status, TestNode};
use crate::verdict::{ExitReason, InfraFailure, Verdict};

/// Now as RFC 3339 UTC (`2026-12-06T16:00:00Z`).
pub fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    rfc3339(secs)
}

/// Seconds since the epoch as RFC 3339 UTC (days to civil date: Howard
/// Hinnant's algorithm).
fn rfc3339(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rest = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// The sha256 of `bytes`, in hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// An image file of a run and its sha256.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImageFile {
    pub file: String,
    pub sha256: String,
}

impl ImageFile {
    /// The file `name` of `dir`, hashed; None if it cannot be read.
    pub fn read(dir: &Path, name: &str) -> Option<ImageFile> {
        use sha2::{Digest, Sha256};
        let mut file = std::fs::File::open(dir.join(name)).ok()?;
        let mut hasher = Sha256::new();
        std::io::copy(&mut file, &mut hasher).ok()?;
        let digest = hasher.finalize();
        Some(ImageFile {
            file: name.to_string(),
            sha256: digest.iter().map(|b| format!("{b:02x}")).collect(),
        })
    }
}

/// Where an image says what it is, under Buildroot's target directory:
/// the tree's `post-build.sh` writes it into every image.
pub const RELEASE_FILE: &str = "etc/rust-qemu-release";

/// An image's own identity, `/etc/rust-qemu-release`: `KEY="value"` lines,
/// the build's facts (`RUST_QEMU_*`: defconfig, output, kernel source and
/// release, bindgen's libclang) and the kernel's compilers as its `.config`
/// recorded them (the same `CONFIG_*` lines). The harness reads "what
/// ran" from it, never from the build tree.
#[derive(Debug, Clone, PartialEq)]
pub struct ImageRelease {
    text: String,
}

impl ImageRelease {
    /// The identity of the image whose target directory is `target`, if
    /// it has one (an image built before `post-build.sh` has none).
    pub fn read(target: &Path) -> Option<ImageRelease> {
        let text = std::fs::read_to_string(target.join(RELEASE_FILE)).ok()?;
        Some(ImageRelease { text })
    }

    pub fn from_text(text: &str) -> ImageRelease {
        ImageRelease {
            text: text.to_string(),
        }
    }

    /// The whole file, whose `CONFIG_*` lines read as a kernel `.config`.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The value of `key`, unquoted; `None` if absent or empty.
    pub fn value(&self, key: &str) -> Option<String> {
        self.text.lines().find_map(|l| {
            let v = l.strip_prefix(key)?.strip_prefix('=')?.trim_matches('"');
            (!v.is_empty()).then(|| v.to_string())
        })
    }

    /// The build's facts (`RUST_QEMU_<KEY>`), keyed by `<key>` in lower case.
    pub fn facts(&self) -> BTreeMap<String, String> {
        self.text
            .lines()
            .filter_map(|l| {
                let (key, value) = l.strip_prefix("RUST_QEMU_")?.split_once('=')?;
                let value = value.trim_matches('"');
                (!value.is_empty()).then(|| (key.to_lowercase(), value.to_string()))
            })
            .collect()
    }

    /// The compilers the kernel was built with.
    pub fn toolchain(&self) -> KernelToolchain {
        KernelToolchain {
            libclang: self.value("RUST_QEMU_LIBCLANG"),
            ..KernelToolchain::from_config(&self.text)
        }
    }
}

/// The compilers a kernel was built with, as its `.config` records them
/// (`CONFIG_CC_VERSION_TEXT`, `CONFIG_RUSTC_VERSION_TEXT`,
/// `CONFIG_BINDGEN_VERSION_TEXT`), and bindgen's libclang as the build
/// recorded it ([`ImageRelease`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct KernelToolchain {
    pub cc: Option<String>,
    pub rustc: Option<String>,
    pub bindgen: Option<String>,
    #[serde(default)]
    pub libclang: Option<String>,
}

impl KernelToolchain {
    pub fn from_config(config: &str) -> KernelToolchain {
        let value = |key: &str| {
            config.lines().find_map(|l| {
                let v = l.strip_prefix(key)?.strip_prefix('=')?;
                Some(v.trim_matches('"').to_string())
            })
        };
        KernelToolchain {
            cc: value("CONFIG_CC_VERSION_TEXT"),
            rustc: value("CONFIG_RUSTC_VERSION_TEXT"),
            bindgen: value("CONFIG_BINDGEN_VERSION_TEXT"),
            libclang: None,
        }
    }
}

/// Host facts recorded with each run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HostInfo {
    /// 1, 5 and 15 minute load averages.
    pub load_average: Option<[f64; 3]>,
    pub cpus: Option<usize>,
}

impl HostInfo {
    pub fn current() -> HostInfo {
        let load_average = std::fs::read_to_string("/proc/loadavg")
            .ok()
            .and_then(|text| parse_loadavg(&text));
        HostInfo {
            load_average,
            cpus: std::thread::available_parallelism().ok().map(|n| n.get()),
        }
    }
}

fn parse_loadavg(text: &str) -> Option<[f64; 3]> {
    let mut fields = text.split_whitespace().map(|f| f.parse::<f64>().ok());
    Some([fields.next()??, fields.next()??, fields.next()??])
}

/// Contents of `<results-dir>/<arch>/results.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArchResult {
    pub arch: String,
    #[serde(default)]
    pub defconfig: Option<String>,
    /// `qemu` (a live run) or `console` (`parse` of a recorded console).
    pub source: String,
    /// When the run started (RFC 3339, UTC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<String>,
    #[serde(default)]
    pub qemu_command: Option<Vec<String>>,
    /// Directory QEMU ran in (the images directory).
    #[serde(default)]
    pub qemu_cwd: Option<String>,
    #[serde(default)]
    pub qemu_version: Option<String>,
    /// The image files the run booted, with their sha256.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<ImageFile>,
    /// The kernel's release, from its boot line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel_release: Option<String>,
    /// The compilers the kernel was built with (the image's [`ImageRelease`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel_toolchain: Option<KernelToolchain>,
    /// What the image says it is: its [`ImageRelease`]'s facts (defconfig,
    /// output, kernel source and release, libclang).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub image: BTreeMap<String, String>,
    #[serde(default)]
    pub qemu_exit_code: Option<i32>,
    #[serde(default)]
    pub qemu_stderr: Option<String>,
    #[serde(default)]
    pub host: HostInfo,
    #[serde(default)]
    pub timeout_multiplier: Option<f64>,
    /// Scaled timeouts, in seconds.
    #[serde(default)]
    pub boot_timeout_s: Option<f64>,
    #[serde(default)]
    pub test_timeout_s: Option<f64>,
    /// QEMU start (or, from a recorded console, kernel start) → first
    /// `KTAP version 1`, in seconds.
    #[serde(default)]
    pub boot_duration_s: Option<f64>,
    /// First `KTAP version 1` → end sentinel (or → timeout), in seconds.
    #[serde(default)]
    pub test_duration_s: Option<f64>,
    /// `host clock` or `guest printk timestamps`.
    #[serde(default)]
    pub durations_from: Option<String>,
    pub exit_reason: ExitReason,
    #[serde(default)]
    pub infrastructure_failure: Option<InfraFailure>,
    /// Exit code in the end sentinel.
    #[serde(default)]
    pub runner_exit: Option<i32>,
    pub verdict: Verdict,
    pub counts: Counts,
    #[serde(default)]
    pub console_log: Option<String>,
    #[serde(default)]
    pub console_lines: Option<usize>,
    /// The test tree: top-level tests (synthetic ones included).
    pub tests: Vec<TestNode>,
    /// The command that runs again what failed (quick mode, the failed
    /// top-level tests alone when no other failure needs the whole run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reproduce: Option<String>,
}

impl ArchResult {
    /// A result with no tests yet; fill in the rest, then [`ArchResult::settle`].
    pub fn new(arch: &str, source: &str) -> ArchResult {
        ArchResult {
            arch: arch.to_string(),
            defconfig: None,
            source: source.to_string(),
            started_at: None,
            qemu_command: None,
            qemu_cwd: None,
            qemu_version: None,
            images: Vec::new(),
            kernel_release: None,
            kernel_toolchain: None,
            image: BTreeMap::new(),
            qemu_exit_code: None,
            qemu_stderr: None,
            host: HostInfo::default(),
            timeout_multiplier: None,
            boot_timeout_s: None,
            test_timeout_s: None,
            boot_duration_s: None,
            test_duration_s: None,
            durations_from: None,
            exit_reason: ExitReason::Completed,
            infrastructure_failure: None,
            runner_exit: None,
            verdict: Verdict::Pass,
            counts: Counts::default(),
            console_log: None,
            console_lines: None,
            tests: Vec::new(),
            reproduce: None,
        }
    }

    /// Sets the infrastructure failure (the first one set wins).
    pub fn set_infra(&mut self, failure: InfraFailure) {
        if self.infrastructure_failure.is_none() {
            self.exit_reason = failure.kind;
            self.infrastructure_failure = Some(failure);
        }
    }

    /// Computes counts and verdict. An infrastructure failure counts as one
    /// failed test.
    /// What the image of Buildroot's target directory `target` says it
    /// is ([`ImageRelease`]): its facts and its kernel's compilers.
    pub fn record_image(&mut self, target: &Path) {
        if let Some(release) = ImageRelease::read(target) {
            self.kernel_toolchain = Some(release.toolchain());
            self.image = release.facts();
        }
    }

    pub fn settle(&mut self) {
        let mut counts: Counts = self.tests.iter().map(TestNode::counts).sum();
        if self.infrastructure_failure.is_some() {
            counts.failed += 1;
            self.verdict = Verdict::InfrastructureFailure;
        } else if counts.failed > 0 {
            self.verdict = Verdict::Fail;
        } else {
            self.verdict = Verdict::Pass;
        }
        self.counts = counts;
        self.reproduce = self.reproduce_command();
    }

    /// `make retest ARCH=<arch> TESTS=<failed>` (`make retest ARCH=<arch>`
    /// when the failure is not one of the manifest's tests), if it failed.
    fn reproduce_command(&self) -> Option<String> {
        if self.verdict == Verdict::Pass {
            return None;
        }
        let failed: Vec<&str> = self
            .tests
            .iter()
            .filter(|t| t.status == Status::Fail)
            .map(|t| (!t.synthetic).then_some(t.name.as_str()))
            .collect::<Option<_>>()
            .unwrap_or_default();
        let whole = self.infrastructure_failure.is_some() || failed.is_empty();
        // a lab's run (`<arch>@lava`) of the same image: again here
        let arch = self.arch.split('@').next().unwrap_or(&self.arch);
        Some(match whole {
            true => format!("make retest ARCH={arch}"),
            false => format!("make retest ARCH={arch} TESTS={}", failed.join(",")),
        })
    }

    pub fn write_json(&self, path: &Path) -> Result<(), HarnessError> {
        let mut text = serde_json::to_string_pretty(self)?;
        text.push('\n');
        crate::fsx::write(path, &text)
    }

    pub fn read_json(path: &Path) -> Result<ArchResult, HarnessError> {
        let text = crate::fsx::read_to_string(path)?;
        serde_json::from_str(&text).map_err(|source| HarnessError::ResultsFile {
            path: path.to_path_buf(),
            source,
        })
    }

    /// `x86_64: 120 passed, 0 failed, 1 skipped (boot 3.1 s, tests 2.4 s)`.
    pub fn summary_line(&self) -> String {
        let c = self.counts;
        format!(
            "{}: {} passed, {} failed, {} skipped (boot {}, tests {})",
            self.arch,
            c.passed,
            c.failed,
            c.skipped,
            seconds(self.boot_duration_s),
            seconds(self.test_duration_s)
        )
    }

    /// What failed, as printed while running: the infrastructure failure
    /// and each failed top-level test with its failing leaves.
    pub fn failure_lines(&self) -> Vec<String> {
        let tests = self.tests.iter().filter(|t| t.status == Status::Fail);
        let reproduce = self.reproduce.iter();
        self.infra_line()
            .into_iter()
            .chain(tests.flat_map(|t| top_level_lines(&self.arch, t)))
            .chain(reproduce.map(|c| format!("{}: to run it again: {c}", self.arch)))
            .collect()
    }

    /// `x86_64: infrastructure failure (boot-timeout): ...`, if any.
    pub fn infra_line(&self) -> Option<String> {
        self.infrastructure_failure.as_ref().map(|f| {
            format!(
                "{}: infrastructure failure ({}): {}",
                self.arch,
                f.kind.as_str(),
                f.message
            )
        })
    }
}

/// `3.1 s`, or `-` when unknown.
pub fn seconds(value: Option<f64>) -> String {
    match value {
        Some(v) => format!("{v:.1} s"),
        None => "-".to_string(),
    }
}

/// Failing leaves shown under a failed top-level test, at most.
const SHOWN_FAILURES: usize = 20;
/// Diagnostics shown per failing leaf, at most.
const SHOWN_DIAGNOSTICS: usize = 6;

/// The lines printed when a top-level test's result arrives:
/// `x86_64: ok rust_minimal (5/5)`, then, for a failure, what failed.
pub fn top_level_lines(arch: &str, test: &TestNode) -> Vec<String> {
    let counts = test.counts();
    let mut head = format!(
        "{arch}: {} {} ({}/{})",
        test.status.word(),
        test.name,
        counts.passed,
        counts.total()
    );
    if let Some(reason) = &test.reason {
        head.push_str(&format!(" # {reason}"));
    }
    let mut lines = vec![head];
    if test.status != Status::Fail {
        return lines;
    }
    for error in &test.errors {
        lines.push(format!("{arch}:     ! {error}"));
    }
    if test.subtests.is_empty() {
        for diagnostic in test.diagnostics.iter().take(SHOWN_DIAGNOSTICS) {
            lines.push(format!("{arch}:     # {diagnostic}"));
        }
        return lines;
    }
    let failed: Vec<(String, &TestNode)> = test
        .leaves()
        .into_iter()
        .filter(|(_, t)| t.status == Status::Fail)
        .collect();
    for (path, leaf) in failed.iter().take(SHOWN_FAILURES) {
        let number = leaf.number.map_or(String::new(), |n| format!("{n} "));
        let at = leaf
            .source
            .as_ref()
            .map_or(String::new(), |s| format!(" (at {s})"));
        lines.push(format!("{arch}:     not ok {number}{path}{at}"));
        for error in &leaf.errors {
            lines.push(format!("{arch}:         ! {error}"));
        }
        for diagnostic in leaf.diagnostics.iter().take(SHOWN_DIAGNOSTICS) {
            lines.push(format!("{arch}:         # {diagnostic}"));
        }
    }
    if failed.len() > SHOWN_FAILURES {
        lines.push(format!(
            "{arch}:     ... and {} more failures (see results.json)",
            failed.len() - SHOWN_FAILURES
        ));
    }
    lines
}

/// The last line: `N passed, N failed[, N skipped]`.
pub fn final_line(counts: Counts) -> String {
    let mut line = format!("{} passed, {} failed", counts.passed, counts.failed);
    if counts.skipped > 0 {
        line.push_str(&format!(", {} skipped", counts.skipped));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ktap::parse_str;

    #[test]
    fn final_line_format() {
        let mut c = Counts {
            passed: 3,
            failed: 0,
            skipped: 0,
        };
        assert_eq!(final_line(c), "3 passed, 0 failed");
        c.skipped = 2;
        assert_eq!(final_line(c), "3 passed, 0 failed, 2 skipped");
    }

    #[test]
    fn loadavg() {
        assert_eq!(
            parse_loadavg("0.50 1.25 2.00 1/123 4567\n"),
            Some([0.5, 1.25, 2.0])
        );
        assert_eq!(parse_loadavg("garbage"), None);
        let host = HostInfo::current();
        assert!(host.cpus.is_some_and(|n| n > 0));
    }

    #[test]
    fn verdicts_and_counts() {
        let mut r = ArchResult::new("x86_64", "console");
        r.tests = parse_str("KTAP version 1\n1..2\nok 1 a\nok 2 b # SKIP no\n").tests;
        r.settle();
        assert_eq!(r.verdict, Verdict::Pass);
        assert_eq!(r.verdict.exit_code(), 0);
        assert_eq!(
            r.summary_line(),
            "x86_64: 1 passed, 0 failed, 1 skipped (boot -, tests -)"
        );
        r.tests = parse_str("KTAP version 1\n1..1\nnot ok 1 a\n").tests;
        r.settle();
        assert_eq!(r.verdict.exit_code(), 1);
        r.set_infra(InfraFailure::new(ExitReason::BootTimeout, "boot timeout"));
        r.set_infra(InfraFailure::new(ExitReason::KernelPanic, "later"));
        r.settle();
        assert_eq!(r.exit_reason, ExitReason::BootTimeout);
        assert_eq!(r.verdict.exit_code(), 2);
        assert_eq!(r.counts.failed, 2);
        assert_eq!(
            r.infra_line().as_deref(),
            Some("x86_64: infrastructure failure (boot-timeout): boot timeout")
        );
    }

    #[test]
    fn lines_for_a_failed_module() {
        let doc = parse_str(
            "KTAP version 1\n1..1\n    KTAP version 1\n    # Subtest: rust_minimal\n    1..2\n\
             \x20   ok 1 load\n    not ok 2 dmesg: rust_minimal: Am I built-in? false\n\
             \x20   # expected: a line\n    # seen: (no such line)\nnot ok 1 rust_minimal\n",
        );
        let lines = top_level_lines("x86_64", &doc.tests[0]);
        assert_eq!(
            lines,
            [
                "x86_64: not ok rust_minimal (1/2)",
                "x86_64:     not ok 2 dmesg: rust_minimal: Am I built-in? false",
                "x86_64:         # expected: a line",
                "x86_64:         # seen: (no such line)",
            ]
        );
        let doc = parse_str("KTAP version 1\n1..1\nok 1 rust_print # SKIP not built\n");
        assert_eq!(
            top_level_lines("riscv64", &doc.tests[0]),
            ["riscv64: skip rust_print (0/1) # not built"]
        );
    }

    #[test]
    fn rfc3339_dates() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_796_515_200 + 3661), "2026-12-06T01:01:01Z");
    }

    #[test]
    fn kernel_toolchain_of_a_config() {
        let config = "CONFIG_CC_VERSION_TEXT=\"clang version 22.1.8\"\n\
                      CONFIG_RUSTC_VERSION_TEXT=\"rustc 1.96.0\"\n\
                      CONFIG_BINDGEN_VERSION_TEXT=\"bindgen 0.72.1\"\n";
        let t = KernelToolchain::from_config(config);
        assert_eq!(t.cc.as_deref(), Some("clang version 22.1.8"));
        assert_eq!(t.rustc.as_deref(), Some("rustc 1.96.0"));
        assert_eq!(t.bindgen.as_deref(), Some("bindgen 0.72.1"));
        assert_eq!(KernelToolchain::from_config(""), KernelToolchain::default());
    }

    #[test]
    fn an_image_says_what_it_is() {
        let release = ImageRelease::from_text(
            "RUST_QEMU_DEFCONFIG=\"qemu_x86_64_rust_defconfig\"\n\
             RUST_QEMU_KERNEL_SOURCE=\"series 60a3\"\n\
             RUST_QEMU_LIBCLANG=\"22.1.8\"\n\
             RUST_QEMU_EMPTY=\"\"\n\
             CONFIG_CC_IS_GCC=y\n\
             CONFIG_BINDGEN_VERSION_TEXT=\"bindgen 0.65.1\"\n",
        );
        let tools = release.toolchain();
        assert_eq!(tools.bindgen.as_deref(), Some("bindgen 0.65.1"));
        assert_eq!(tools.libclang.as_deref(), Some("22.1.8"));
        assert_eq!(tools.rustc, None);
        let facts = release.facts();
        assert_eq!(facts.len(), 3, "{facts:?}");
        assert_eq!(facts["kernel_source"], "series 60a3");
        assert_eq!(facts["defconfig"], "qemu_x86_64_rust_defconfig");
        let none = ImageRelease::from_text("CONFIG_RUST=y\n").toolchain();
        assert_eq!(none.libclang, None);
        assert!(ImageRelease::read(Path::new("/nonexistent")).is_none());
    }

    #[test]
    fn failure_lines_name_what_failed() {
        let mut r = ArchResult::new("arm", "qemu");
        r.tests = parse_str("KTAP version 1\n1..2\nok 1 a\nnot ok 2 b\n").tests;
        r.settle();
        assert_eq!(
            r.failure_lines(),
            [
                "arm: not ok b (0/1)",
                "arm: to run it again: make retest ARCH=arm TESTS=b"
            ]
        );
        r.set_infra(InfraFailure::new(ExitReason::TestTimeout, "test timeout"));
        r.settle();
        assert_eq!(
            r.failure_lines(),
            [
                "arm: infrastructure failure (test-timeout): test timeout",
                "arm: not ok b (0/1)",
                "arm: to run it again: make retest ARCH=arm"
            ]
        );
        r.tests.truncate(1);
        r.infrastructure_failure = None;
        r.settle();
        assert!(r.failure_lines().is_empty());
        assert_eq!(r.reproduce, None);
    }

    #[test]
    fn json_round_trip() {
        let mut r = ArchResult::new("riscv64", "qemu");
        r.tests = parse_str("KTAP version 1\n1..1\nok 1 a\n").tests;
        r.boot_duration_s = Some(3.125);
        r.settle();
        let json = serde_json::to_string(&r).expect("json");
        assert!(json.contains("\"exit_reason\":\"completed\""), "{json}");
        assert!(json.contains("\"verdict\":\"pass\""), "{json}");
        let back: ArchResult = serde_json::from_str(&json).expect("parse");
        assert_eq!(back, r);
    }
}
