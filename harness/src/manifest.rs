//! The top-level tests the on-target runner must report for an image, and
//! the lines of each, as the runner's own reader of its manifest lists them
//! (`manifest-list`, package/rust-tests/src/manifest.c: the one grammar):
//! an image carries the listing for its machine
//! (`usr/share/rust-tests/manifest.list`, written by its build); a manifest
//! file given to the harness is listed by the same reader, built for this
//! host with the harness (build.rs). The listing's items (manifest.h,
//! `manifest_list`): `machine M`; `test NAME` (runs there) or `skip NAME`
//! (its `arch` line skips it there); `line N ACTION ORIGIN` for each of
//! its lines (the runner's subtest N); `module NAME`; `cmdline WORD`.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::HarnessError;
use crate::ktap::{Status, TestKind, TestNode};

/// The manifest's place in the tree.
pub const MANIFEST_PATH: &str = "package/rust-tests/src/manifest";
/// Its place in an image's root filesystem (Buildroot's `target/`).
pub const TARGET_MANIFEST: &str = "usr/share/rust-tests/manifest";
/// The listing of an image's manifest for its machine, beside it.
pub const TARGET_LISTING: &str = "usr/share/rust-tests/manifest.list";
/// The runner's manifest reader, built for this host (build.rs).
const READER: &str = env!("RUST_QEMU_MANIFEST_LIST");

/// One line of a test: the runner's subtest `number`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestLine {
    pub number: u32,
    pub action: String,
    /// `<file>:<line>` in the tree's terms ([`source_path`]).
    pub origin: String,
}

/// One top-level test of the manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestTest {
    pub name: String,
    /// It runs on the listing's machine (else its `arch` line skips it).
    pub runs: bool,
    pub lines: Vec<ManifestLine>,
}

impl ManifestTest {
    /// What it is, from the actions of its lines.
    pub fn kind(&self) -> TestKind {
        let has = |action: &str| self.lines.iter().any(|l| l.action == action);
        if has("kunit") {
            TestKind::Kunit
        } else if has("config") {
            TestKind::Config
        } else if has("load") || has("cycle") {
            TestKind::Module
        } else {
            TestKind::Checks
        }
    }
}

/// The tree's file of an image's manifest: `package/rust-tests/src/manifest`
/// for `<target>/usr/share/rust-tests/manifest`, and
/// `package/<package>/src/manifest` for a drop-in `manifest.d/<package>`
/// (as the packages install them); any other path as it is.
pub fn source_path(path: &Path) -> String {
    let text = path.display().to_string();
    if text.ends_with(TARGET_MANIFEST) {
        return MANIFEST_PATH.to_string();
    }
    match (path.parent(), path.file_name()) {
        (Some(dir), Some(name)) if dir.ends_with("usr/share/rust-tests/manifest.d") => {
            format!("package/{}/src/manifest", name.to_string_lossy())
        }
        _ => text,
    }
}

/// An origin `<file>:<line>` with its file in the tree's terms.
fn source_origin(origin: &str) -> String {
    match origin.rsplit_once(':') {
        Some((file, line)) => format!("{}:{line}", source_path(Path::new(file))),
        None => origin.to_string(),
    }
}

/// The tests a manifest names, in order, and its inputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Manifest {
    /// The listing read, or the manifest listed.
    pub path: PathBuf,
    /// The machine it was listed for (None: every test runs).
    pub machine: Option<String>,
    pub tests: Vec<ManifestTest>,
    /// The words of its `cmdline` lines, for the kernel command line: test
    /// inputs beside the expectations (the runner checks they arrived).
    pub kernel_args: Vec<String>,
}

impl Manifest {
    /// Reads a listing; `path` names it in messages.
    pub fn from_listing(text: &str, path: &Path) -> Result<Manifest, HarnessError> {
        let mut manifest = Manifest {
            path: path.to_path_buf(),
            machine: None,
            tests: Vec::new(),
            kernel_args: Vec::new(),
        };
        for (number, line) in text.lines().enumerate() {
            manifest
                .add_item(line)
                .map_err(|message| HarnessError::ManifestLine {
                    origin: format!("{}:{}", path.display(), number + 1),
                    message,
                })?;
        }
        Ok(manifest)
    }

    fn add_item(&mut self, item: &str) -> Result<(), String> {
        let (word, rest) = item.split_once(' ').unwrap_or((item, ""));
        match word {
            "machine" => self.machine = Some(rest.to_string()),
            "test" | "skip" => self.tests.push(ManifestTest {
                name: rest.to_string(),
                runs: word == "test",
                lines: Vec::new(),
            }),
            "line" => {
                let mut fields = rest.splitn(3, ' ');
                let (Some(number), Some(action), Some(origin)) =
                    (fields.next(), fields.next(), fields.next())
                else {
                    return Err(format!("not 'line N ACTION ORIGIN': {item}"));
                };
                let number = number
                    .parse()
                    .map_err(|_| format!("not a line number: {item}"))?;
                let test = self
                    .tests
                    .last_mut()
                    .ok_or_else(|| format!("a line before any test: {item}"))?;
                test.lines.push(ManifestLine {
                    number,
                    action: action.to_string(),
                    origin: source_origin(origin),
                });
            }
            "cmdline" => self.kernel_args.push(rest.to_string()),
            "module" => {}
            _ => return Err(format!("not an item of the runner's listing: {item}")),
        }
        Ok(())
    }

    /// Reads a listing file (an image's).
    pub fn load(path: &Path) -> Result<Manifest, HarnessError> {
        Manifest::from_listing(&crate::fsx::read_to_string(path)?, path)
    }

    /// Lists a manifest file (and its `include`d drop-ins) with the runner's
    /// reader, for `machine`: an invalid manifest is refused with the
    /// runner's message (`<file>:<line>: why`).
    pub fn list(path: &Path, machine: &str) -> Result<Manifest, HarnessError> {
        let output = Command::new(READER)
            .arg(path)
            .arg(machine)
            .output()
            .map_err(|source| HarnessError::Spawn {
                program: READER.to_string(),
                source,
            })?;
        if !output.status.success() {
            let message = String::from_utf8_lossy(&output.stderr).trim().to_string();
            return Err(HarnessError::ManifestLine {
                origin: path.display().to_string(),
                message: format!("refused by the runner's reader: {message}"),
            });
        }
        Manifest::from_listing(&String::from_utf8_lossy(&output.stdout), path)
    }

    /// The top-level tests that must run.
    pub fn expected(&self) -> Vec<&str> {
        self.tests
            .iter()
            .filter(|t| t.runs)
            .map(|t| t.name.as_str())
            .collect()
    }

    /// Sets where the reported tests are written and what they are: a
    /// top-level test at its first line, with its kind; the runner's
    /// subtest N of a check group (not `kunit`: its subtests are
    /// doctests) at the group's line N, with its action.
    pub fn set_sources(&self, tests: &mut [TestNode]) {
        for test in tests.iter_mut().filter(|t| !t.synthetic) {
            let Some(m) = self.tests.iter().find(|m| m.name == test.name) else {
                continue;
            };
            test.source = m.lines.first().map(|l| l.origin.clone());
            test.kind = Some(m.kind());
            if m.kind() == TestKind::Kunit {
                continue;
            }
            for subtest in &mut test.subtests {
                let line = subtest
                    .number
                    .and_then(|n| m.lines.iter().find(|l| l.number == n));
                if let Some(line) = line {
                    subtest.source = Some(line.origin.clone());
                    subtest.action = Some(line.action.clone());
                }
            }
        }
    }

    /// This manifest with only the top-level tests `names` (in its order),
    /// or the names it does not have.
    pub fn only(mut self, names: &[String]) -> Result<Manifest, String> {
        let unknown: Vec<&str> = names
            .iter()
            .filter(|n| !self.tests.iter().any(|t| &&t.name == n))
            .map(String::as_str)
            .collect();
        if !unknown.is_empty() {
            return Err(unknown.join(", "));
        }
        self.tests.retain(|t| names.contains(&t.name));
        Ok(self)
    }

    /// The tests that must run that `tests` lack, or report as skipped
    /// (`name (skipped)`).
    pub fn missing(&self, tests: &[TestNode]) -> Vec<String> {
        let reported: Vec<&TestNode> = tests.iter().filter(|t| !t.synthetic).collect();
        self.expected()
            .into_iter()
            .filter_map(|name| match reported.iter().find(|t| t.name == name) {
                None => Some(name.to_string()),
                Some(t) if matches!(t.status, Status::Skip) => Some(format!("{name} (skipped)")),
                Some(_) => None,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ktap::parse_str;

    /// The listing of a manifest for x86_64 (`manifest-list manifest x86_64`).
    const LISTING: &str = "\
machine x86_64\n\
test kunit_rust_doctests\n\
line 1 kunit manifest:2\n\
test config\n\
line 1 config manifest:4\n\
line 2 config manifest:5\n\
test rust_minimal\n\
line 1 load /o/target/usr/share/rust-tests/manifest:6\n\
module rust_minimal\n\
line 2 dmesg /o/target/usr/share/rust-tests/manifest:7\n\
line 3 cmdline /o/target/usr/share/rust-tests/manifest.d/rust-module-example:1\n\
cmdline rust_minimal.x=1\n\
skip rust_platform@of\n\
line 1 arch manifest:8\n\
line 2 load manifest:9\n\
test rust_platform@override\n\
line 1 arch manifest:10\n\
line 2 load manifest:11\n\
module rust_platform\n\
test kmemleak\n\
line 1 check manifest:12\n";

    fn manifest() -> Manifest {
        Manifest::from_listing(LISTING, Path::new("manifest.list")).expect("valid")
    }

    #[test]
    fn tests_that_must_run_and_their_inputs() {
        let m = manifest();
        assert_eq!(m.machine.as_deref(), Some("x86_64"));
        assert_eq!(
            m.expected(),
            [
                "kunit_rust_doctests",
                "config",
                "rust_minimal",
                "rust_platform@override",
                "kmemleak"
            ]
        );
        assert_eq!(m.kernel_args, ["rust_minimal.x=1"]);
        let kinds: Vec<TestKind> = m.tests.iter().map(ManifestTest::kind).collect();
        use TestKind::*;
        assert_eq!(kinds, [Kunit, Config, Module, Module, Module, Checks]);
    }

    #[test]
    fn origins_in_the_trees_terms() {
        let m = manifest();
        let origins: Vec<&str> = m.tests[2].lines.iter().map(|l| l.origin.as_str()).collect();
        assert_eq!(
            origins,
            [
                "package/rust-tests/src/manifest:6",
                "package/rust-tests/src/manifest:7",
                "package/rust-module-example/src/manifest:1"
            ]
        );
    }

    #[test]
    fn refuses_what_is_no_listing() {
        for bad in [
            "line 1 load m:1\n",
            "test a\nline x load m:1\n",
            "test a\nload\n",
        ] {
            assert!(
                Manifest::from_listing(bad, Path::new("l")).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn sources_kinds_and_actions_of_results() {
        let mut doc = parse_str(
            "KTAP version 1\n1..2\n    KTAP version 1\n    # Subtest: rust_minimal\n    1..4\n\
             \x20   ok 1 load\n    ok 2 dmesg: x\n    ok 3 cmdline: rust_minimal.x=1\n\
             \x20   ok 4 kernel clean\nok 1 rust_minimal\n    KTAP version 1\n\
             \x20   # Subtest: rust_doctests_kernel\n    1..1\n    ok 1 doctest\n\
             ok 2 kunit_rust_doctests\n",
        );
        manifest().set_sources(&mut doc.tests);
        let minimal = &doc.tests[0];
        assert_eq!(minimal.kind, Some(TestKind::Module));
        assert_eq!(
            minimal.source.as_deref(),
            Some("package/rust-tests/src/manifest:6")
        );
        let actions: Vec<Option<&str>> = minimal
            .subtests
            .iter()
            .map(|s| s.action.as_deref())
            .collect();
        assert_eq!(
            actions,
            [Some("load"), Some("dmesg"), Some("cmdline"), None]
        );
        let doctests = &doc.tests[1];
        assert_eq!(doctests.kind, Some(TestKind::Kunit));
        assert_eq!(doctests.subtests[0].source, None);
    }

    /// The conformance fixture (package/rust-tests/src/testdata/conformance):
    /// the runner's reader, built with the harness, lists `manifest` for
    /// each machine of `expected` as `expected` says, and this reader
    /// reads each section alike; every file of `invalid/` is refused.
    #[test]
    fn the_runners_listing_of_the_fixture() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join("package/rust-tests/src/testdata/conformance");
        let expected = std::fs::read_to_string(dir.join("expected")).expect("expected");
        let mut sections: Vec<(String, String)> = Vec::new();
        for line in expected.lines().filter(|l| !l.starts_with('#')) {
            if let Some(machine) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
                sections.push((machine.to_string(), String::new()));
            } else if let Some((_, text)) = sections.last_mut() {
                text.push_str(line);
                text.push('\n');
            }
        }
        assert!(sections.len() > 2, "{expected}");
        for (machine, text) in sections.iter().filter(|(m, _)| m != "all") {
            let want = Manifest::from_listing(text, Path::new("expected")).expect("a listing");
            let got = Manifest::list(&dir.join("manifest"), machine).expect("the fixture lists");
            assert_eq!(got.machine.as_deref(), Some(machine.as_str()));
            assert_eq!(got.expected(), want.expected(), "on {machine}");
            assert_eq!(got.kernel_args, want.kernel_args, "on {machine}");
            assert_eq!(got.tests.len(), want.tests.len(), "on {machine}");
            for (g, w) in got.tests.iter().zip(&want.tests) {
                assert_eq!((&g.name, g.runs, g.kind()), (&w.name, w.runs, w.kind()));
                assert_eq!(g.lines.len(), w.lines.len(), "{}", g.name);
                for (gl, wl) in g.lines.iter().zip(&w.lines) {
                    assert_eq!((gl.number, &gl.action), (wl.number, &wl.action));
                    assert!(
                        gl.origin.ends_with(&wl.origin),
                        "{} {}",
                        gl.origin,
                        wl.origin
                    );
                }
            }
        }
        let mut refused = 0;
        for entry in std::fs::read_dir(dir.join("invalid")).expect("invalid/") {
            let path = entry.expect("entry").path();
            let error = Manifest::list(&path, "x86_64").expect_err("refused");
            assert!(
                error.to_string().contains("refused by the runner's reader"),
                "{error}"
            );
            refused += 1;
        }
        assert!(refused >= 11, "{refused} invalid manifests");
    }

    #[test]
    fn the_tree_manifest_names_the_doctests() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join(MANIFEST_PATH);
        let m = Manifest::list(&path, "x86_64").expect("the tree's manifest");
        assert!(m.expected().contains(&"kunit_rust_doctests"));
    }

    #[test]
    fn missing_and_skipped_tests() {
        let doc = parse_str(
            "KTAP version 1\n1..4\nok 1 kunit_rust_doctests\nnot ok 2 config\n\
             ok 3 rust_platform@of # SKIP only on riscv64\nok 4 rust_platform@override # SKIP x\n",
        );
        assert_eq!(
            manifest().missing(&doc.tests),
            [
                "rust_minimal",
                "rust_platform@override (skipped)",
                "kmemleak"
            ]
        );
        let complete = parse_str(
            "KTAP version 1\n1..6\nok 1 kunit_rust_doctests\nok 2 config\nok 3 rust_minimal\n\
             ok 4 rust_platform@of # SKIP only on riscv64,aarch64\nok 5 rust_platform@override\n\
             ok 6 kmemleak\n",
        );
        assert!(manifest().missing(&complete.tests).is_empty());
    }
}
