//! The top-level tests the on-target runner must report for an arch, from
//! its manifest (`package/rust-tests/src/manifest`: `<test> <action> [arg]`
//! per line; consecutive lines of one `<test>` form one top-level test; a
//! test whose first line is `arch <name>[=<value>][,...]` runs on those
//! arches only and is reported as SKIP elsewhere; the values are the
//! runner's, for its `{}`; `arch !<name>[,...]` runs everywhere but there).

use std::path::{Path, PathBuf};

use crate::error::HarnessError;
use crate::ktap::{Status, TestNode};

/// The manifest's place in the tree.
pub const MANIFEST_PATH: &str = "package/rust-tests/src/manifest";
/// Its place in an image's root filesystem (Buildroot's `target/`).
pub const TARGET_MANIFEST: &str = "usr/share/rust-tests/manifest";

/// The first word of a line that reads a directory of manifests.
const INCLUDE: &str = "include";

/// The files of an included directory, in name order.
fn drop_ins(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let entries = match std::fs::read_dir(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        entries => entries?,
    };
    let mut files = Vec::new();
    for entry in entries {
        let path = entry?.path();
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        if !name.starts_with('.') && !name.ends_with('~') {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// The arches a test runs on (its `arch` line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Arches {
    All,
    Only(Vec<String>),
    Except(Vec<String>),
}

impl Arches {
    /// The argument of an `arch` line.
    fn parse(list: &str) -> Arches {
        let (except, list) = match list.strip_prefix('!') {
            Some(rest) => (true, rest),
            None => (false, list),
        };
        let names = list
            .split(',')
            .map(|item| item.split_once('=').map_or(item, |(arch, _)| arch))
            .filter(|a| !a.is_empty())
            .map(str::to_string)
            .collect();
        if except {
            Arches::Except(names)
        } else {
            Arches::Only(names)
        }
    }

    fn contain(&self, arch: &str) -> bool {
        let listed = |names: &[String]| names.iter().any(|a| a == arch);
        match self {
            Arches::All => true,
            Arches::Only(names) => listed(names),
            Arches::Except(names) => !listed(names),
        }
    }
}

/// One top-level test of the manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestTest {
    pub name: String,
    pub arches: Arches,
    /// Its first action (`kunit`, `config`, `load`, ...).
    pub first_action: String,
    /// Where each of its lines is, `<file>:<line>`, in the tree's terms
    /// ([`source_path`]): the runner reports line N as subtest N.
    pub lines: Vec<String>,
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

/// The runner's rules for a test's lines (its group), checked line by line.
#[derive(Debug, Default)]
struct Shape {
    /// Every test seen, and the current one's name and first action.
    seen: Vec<String>,
    first_action: String,
    last_action: String,
    /// The line just checked is its test's first.
    first: bool,
}

impl Shape {
    fn check(&mut self, name: &str, action: &str) -> Result<(), String> {
        self.first = self.seen.last().map(String::as_str) != Some(name);
        if self.first {
            if self.seen.iter().any(|s| s == name) {
                return Err(format!(
                    "a test's lines must be together (it has lines above): {name}"
                ));
            }
            self.seen.push(name.to_string());
            self.first_action = action.to_string();
            self.last_action = action.to_string();
            return Ok(());
        }
        let after_expect = self.last_action == "expect";
        self.last_action = action.to_string();
        if after_expect && action != "expect" {
            return Err(format!("expect lines end their test: {name}"));
        }
        let first = self.first_action.as_str();
        if action == "arch" {
            return Err(format!("arch must be the first line of its test: {name}"));
        }
        if first == "kunit" || action == "kunit" {
            return Err(format!("kunit must be alone in its test: {name}"));
        }
        if (first == "config") != (action == "config") {
            return Err(format!("config lines form a test of their own: {name}"));
        }
        Ok(())
    }
}

/// The tests a manifest names, in order, and its inputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Manifest {
    pub path: PathBuf,
    pub tests: Vec<ManifestTest>,
    /// The words of its `cmdline` lines, for the kernel command line: test
    /// inputs beside the expectations (the runner checks they arrived).
    pub kernel_args: Vec<String>,
}

impl Manifest {
    /// Reads the tests of a manifest text; `path` names it in messages.
    /// `include` lines are left out (see [`Manifest::load`]).
    pub fn parse(text: &str, path: &Path) -> Result<Manifest, HarnessError> {
        let mut manifest = Manifest {
            path: path.to_path_buf(),
            tests: Vec::new(),
            kernel_args: Vec::new(),
        };
        let mut shape = Shape::default();
        let source = source_path(path);
        for (number, line) in text.lines().enumerate() {
            manifest
                .add_line(line, &mut shape, format!("{source}:{}", number + 1))
                .map_err(|message| HarnessError::ManifestLine {
                    origin: format!("{}:{}", path.display(), number + 1),
                    message,
                })?;
        }
        Ok(manifest)
    }

    /// One line: a check of a test (its `arch` and `cmdline` noted), as
    /// the runner's grammar has it (manifest.c): a test's lines together,
    /// `arch` only first, `kunit` alone, `config` with `config` only,
    /// `expect` only last.
    fn add_line(&mut self, line: &str, shape: &mut Shape, origin: String) -> Result<(), String> {
        let mut fields = line.split_whitespace();
        let (Some(name), Some(action)) = (fields.next(), fields.next()) else {
            return match line.trim_start().starts_with('#') || line.trim().is_empty() {
                true => Ok(()),
                false => Err("not '<test> <action> [argument]'".to_string()),
            };
        };
        if name.starts_with('#') {
            return Ok(());
        }
        if name == INCLUDE {
            return Err("include must start its line".to_string());
        }
        shape.check(name, action)?;
        if action == "cmdline" {
            self.kernel_args.extend(fields.next().map(str::to_string));
        }
        if shape.first {
            self.tests.push(ManifestTest {
                name: name.to_string(),
                arches: match action {
                    "arch" => Arches::parse(fields.next().unwrap_or("")),
                    _ => Arches::All,
                },
                first_action: action.to_string(),
                lines: Vec::new(),
            });
        }
        if let Some(test) = self.tests.last_mut() {
            test.lines.push(origin);
        }
        Ok(())
    }

    /// Reads a manifest file and, as the runner does, the files of the
    /// directories its `include <dir>` lines name (relative to its own
    /// directory, in name order, dot files and `~` backups left out; a
    /// missing directory has none).
    pub fn load(path: &Path) -> Result<Manifest, HarnessError> {
        let mut manifest = Manifest::parse("", path)?;
        let mut shape = Shape::default();
        manifest.load_file(path, &mut shape)?;
        Ok(manifest)
    }

    fn load_file(&mut self, path: &Path, shape: &mut Shape) -> Result<(), HarnessError> {
        let text = crate::fsx::read_to_string(path)?;
        let source = source_path(path);
        for (number, line) in text.lines().enumerate() {
            let mut fields = line.split(char::is_whitespace).filter(|f| !f.is_empty());
            if line.starts_with(INCLUDE) && fields.next() == Some(INCLUDE) {
                let dir = path
                    .parent()
                    .unwrap_or(Path::new("."))
                    .join(fields.next().unwrap_or(""));
                let files = drop_ins(&dir).map_err(|source| HarnessError::Read {
                    path: dir.clone(),
                    source,
                })?;
                for file in files {
                    self.load_file(&file, shape)?;
                }
            } else {
                self.add_line(line, shape, format!("{source}:{}", number + 1))
                    .map_err(|message| HarnessError::ManifestLine {
                        origin: format!("{}:{}", path.display(), number + 1),
                        message,
                    })?;
            }
        }
        Ok(())
    }

    /// The top-level tests that must run on `arch`.
    pub fn expected_on(&self, arch: &str) -> Vec<&str> {
        self.tests
            .iter()
            .filter(|t| t.arches.contain(arch))
            .map(|t| t.name.as_str())
            .collect()
    }

    /// Sets where the reported tests are written: a top-level test at its
    /// first line, the runner's subtest N of a check group (not `kunit`:
    /// its subtests are doctests) at the group's line N.
    pub fn set_sources(&self, tests: &mut [TestNode]) {
        for test in tests.iter_mut().filter(|t| !t.synthetic) {
            let Some(m) = self.tests.iter().find(|m| m.name == test.name) else {
                continue;
            };
            test.source = m.lines.first().cloned();
            if m.first_action == "kunit" {
                continue;
            }
            for subtest in &mut test.subtests {
                let index = subtest.number.and_then(|n| (n as usize).checked_sub(1));
                if let Some(line) = index.and_then(|i| m.lines.get(i)) {
                    subtest.source = Some(line.clone());
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

    /// The tests this manifest names for `arch` that `tests` lack, or
    /// report as skipped (`name (skipped)`).
    pub fn missing_on(&self, arch: &str, tests: &[TestNode]) -> Vec<String> {
        let reported: Vec<&TestNode> = tests.iter().filter(|t| !t.synthetic).collect();
        self.expected_on(arch)
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

    const MANIFEST: &str = "\
# comment\n\
kunit_rust_doctests\tkunit\trust_doctests_kernel\n\
\n\
config\tconfig\tCONFIG_RUST=y\n\
config\tconfig\tCONFIG_SAMPLES_RUST=y\n\
rust_minimal\tload\n\
rust_minimal\tdmesg\trust_minimal: Rust minimal sample (init)\n\
rust_platform@of\tarch\triscv64,aarch64\n\
rust_platform@of\tload\n\
rust_platform@override\tarch\tx86_64=pcspkr,loongarch64=100d0100.rtc\n\
rust_platform@override\tload\n";

    fn manifest() -> Manifest {
        Manifest::parse(MANIFEST, Path::new("manifest")).expect("valid")
    }

    #[test]
    fn tests_per_arch() {
        let m = manifest();
        let common = ["kunit_rust_doctests", "config", "rust_minimal"];
        assert_eq!(m.expected_on("x86_64")[..3], common);
        assert_eq!(m.expected_on("x86_64")[3..], ["rust_platform@override"]);
        assert_eq!(m.expected_on("riscv64")[3..], ["rust_platform@of"]);
        assert_eq!(m.expected_on("aarch64")[3..], ["rust_platform@of"]);
        assert_eq!(
            m.expected_on("loongarch64")[3..],
            ["rust_platform@override"]
        );
        assert_eq!(m.expected_on("console"), common);
    }

    #[test]
    fn kernel_args_of_cmdline_lines() {
        let m = Manifest::parse(
            "a\tcmdline\ta.x=1\na\tbootlog\ta: x 1\nb\tcmdline\tb.s=\u{1f980}\n",
            Path::new("m"),
        )
        .expect("valid");
        assert_eq!(m.kernel_args, ["a.x=1", "b.s=\u{1f980}"]);
        assert_eq!(m.expected_on("x86_64"), ["a", "b"]);
    }

    #[test]
    fn excluded_arches() {
        let m = Manifest::parse("a\tarch\t!armv7l,um\na\tload\nb\tload\n", Path::new("m"))
            .expect("valid");
        assert_eq!(m.expected_on("x86_64"), ["a", "b"]);
        assert_eq!(m.expected_on("armv7"), ["a", "b"]);
        assert_eq!(m.expected_on("armv7l"), ["b"]);
        assert_eq!(m.expected_on("um"), ["b"]);
    }

    #[test]
    fn included_directories() {
        let dir = std::env::temp_dir().join(format!("rust-qemu-test-incl-{}", std::process::id()));
        let write = |name: &str, text: &str| std::fs::write(dir.join(name), text).expect("write");
        std::fs::create_dir_all(dir.join("d")).expect("mkdir");
        write("m", "a\tload\ninclude\td\ninclude none\nz\tload\n");
        write("d/20-c", "c\tarch\tx86_64\nc\tload\n");
        write("d/10-b", "# b\nb\tload\n");
        write("d/.hidden", "hidden\tload\n");
        write("d/10-b~", "backup\tload\n");
        let m = Manifest::load(&dir.join("m")).expect("load");
        std::fs::remove_dir_all(&dir).expect("clean up");
        assert_eq!(m.expected_on("x86_64"), ["a", "b", "c", "z"]);
        assert_eq!(m.expected_on("riscv64"), ["a", "b", "z"]);
    }

    /// The runner's grammar (package/rust-tests/src/manifest.c) and this
    /// reader agree on the shared fixture: the tests per machine and the
    /// kernel command-line words of `expected`, and every file of
    /// `invalid/` refused (the runner's unit tests read the same files).
    #[test]
    fn conformance_with_the_runner() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join("package/rust-tests/src/testdata/conformance");
        let m = Manifest::load(&dir.join("manifest")).expect("the fixture loads");
        let expected = std::fs::read_to_string(dir.join("expected")).expect("expected");
        let mut sections: Vec<(String, Vec<&str>, Vec<&str>)> = Vec::new();
        for line in expected.lines().filter(|l| !l.starts_with('#')) {
            if let Some(machine) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
                sections.push((machine.to_string(), Vec::new(), Vec::new()));
            } else if let Some(section) = sections.last_mut() {
                match line.split_once(' ') {
                    Some(("test", name)) => section.1.push(name),
                    Some(("cmdline", word)) => section.2.push(word),
                    _ => {}
                }
            }
        }
        assert!(sections.len() > 2, "{expected}");
        for (machine, tests, words) in &sections {
            if machine == "all" {
                let all: Vec<&str> = m.tests.iter().map(|t| t.name.as_str()).collect();
                assert_eq!(&all, tests, "all tests");
                assert_eq!(&m.kernel_args, words, "kernel arguments");
            } else {
                assert_eq!(&m.expected_on(machine), tests, "on {machine}");
            }
        }
        let invalid = std::fs::read_dir(dir.join("invalid")).expect("invalid/");
        let mut refused = 0;
        for entry in invalid {
            let path = entry.expect("entry").path();
            assert!(Manifest::load(&path).is_err(), "{} loads", path.display());
            refused += 1;
        }
        assert!(refused > 2);
    }

    #[test]
    fn the_tree_manifest_names_the_doctests() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join(MANIFEST_PATH);
        let m = Manifest::load(&path).expect("the tree's manifest");
        assert!(m.expected_on("x86_64").contains(&"kunit_rust_doctests"));
    }

    #[test]
    fn missing_and_skipped_tests() {
        let doc = parse_str(
            "KTAP version 1\n1..4\nok 1 kunit_rust_doctests\nnot ok 2 config\n\
             ok 3 rust_platform@of # SKIP only on riscv64\nok 4 rust_platform@override\n",
        );
        assert_eq!(
            manifest().missing_on("x86_64", &doc.tests),
            ["rust_minimal"]
        );
        assert_eq!(
            manifest().missing_on("riscv64", &doc.tests),
            ["rust_minimal", "rust_platform@of (skipped)"]
        );
        let complete = parse_str(
            "KTAP version 1\n1..5\nok 1 kunit_rust_doctests\nok 2 config\nok 3 rust_minimal\n\
             ok 4 rust_platform@of # SKIP only on riscv64,aarch64\nok 5 rust_platform@override\n",
        );
        assert!(manifest().missing_on("x86_64", &complete.tests).is_empty());
    }
}
