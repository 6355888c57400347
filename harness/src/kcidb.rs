//! A run as one KernelCI KCIDB report (schema v5.3; `make check` validates
//! it with kcidb-io's own validator): one checkout (Debian's kernel tarball
//! and the patch series), one build per arch (its defconfig and compilers),
//! and one test per KTAP test, with its dot-separated path, status, start
//! time, log excerpt and source. A lab submits it with kcidb's tools.

use serde_json::{json, Map, Value};

use crate::ktap::{Status, TestNode};
use crate::report::ArchResult;

/// The origin of every object: the CI system that reports them.
pub const ORIGIN: &str = "rust_qemu";
/// KCIDB's limit of a log excerpt, in characters.
const EXCERPT_MAX: usize = 16384;

/// The source code every build was made from.
#[derive(Debug, Clone)]
pub struct Checkout {
    /// Names it among this origin's checkouts (e.g. the series' sha256).
    pub key: String,
    /// What it is, free-form (`misc`).
    pub misc: Value,
}

impl Checkout {
    /// The checkout the results' images say they were built from (their
    /// `image.kernel_source`: `series <sha256>` of Debian's tarball and
    /// `patches/linux/`, or `tree <dir>`), with the pinned tarball
    /// (`patches/linux/linux.hash`'s line); an error unless exactly one.
    pub fn of_results(results: &[ArchResult], tarball: Option<String>) -> Result<Checkout, String> {
        let mut sources: Vec<&str> = results
            .iter()
            .filter_map(|r| r.image.get("kernel_source").map(String::as_str))
            .collect();
        sources.sort_unstable();
        sources.dedup();
        let source = match sources[..] {
            [one] => one,
            [] => return Err("no results.json says (image.kernel_source: rebuild)".into()),
            _ => return Err(format!("built from {}", sources.join(", "))),
        };
        let key = match source.split_once(' ') {
            Some(("series", sha)) if sha.len() >= 16 => sha[..16].to_string(),
            Some(("tree", dir)) => {
                format!("tree-{}", &crate::report::sha256_hex(dir.as_bytes())[..16])
            }
            _ => return Err(format!("not 'series <sha256>' or 'tree <dir>': {source}")),
        };
        Ok(Checkout {
            key,
            misc: json!({ "kernel_tarball": tarball, "kernel_source": source }),
        })
    }
}

/// The KCIDB document of `results`, each an arch's `results.json`.
pub fn document(checkout: &Checkout, results: &[ArchResult]) -> Value {
    let checkout_id = format!("{ORIGIN}:{}", checkout.key);
    let mut builds = Vec::new();
    let mut tests = Vec::new();
    for result in results {
        // a lab's run of an arch (`<arch>@lava`) tests that arch's build
        let (arch, runtime) = match result.arch.split_once('@') {
            Some((arch, runtime)) => (arch, Some(runtime)),
            None => (result.arch.as_str(), None),
        };
        let build_id = format!("{checkout_id}:{arch}");
        if !builds.iter().any(|b: &Value| b["id"] == build_id.as_str()) {
            builds.push(build(&checkout_id, &build_id, result));
        }
        add_tests(&build_id, runtime, result, &mut tests);
    }
    json!({
        "version": {"major": 5, "minor": 3},
        "checkouts": [{
            "id": checkout_id,
            "origin": ORIGIN,
            "valid": true,
            "misc": checkout.misc,
        }],
        "builds": builds,
        "tests": tests,
    })
}

fn build(checkout_id: &str, id: &str, result: &ArchResult) -> Value {
    let mut build = Map::new();
    build.insert("id".into(), json!(id));
    build.insert("origin".into(), json!(ORIGIN));
    build.insert("checkout_id".into(), json!(checkout_id));
    build.insert("architecture".into(), json!(architecture(&result.arch)));
    // It booted: the build is there (a failed build has no results.json).
    build.insert("status".into(), json!("PASS"));
    if let Some(defconfig) = &result.defconfig {
        build.insert("config_name".into(), json!(defconfig));
    }
    let toolchain = result.kernel_toolchain.clone().unwrap_or_default();
    if let Some(cc) = &toolchain.cc {
        build.insert("compiler".into(), json!(cc));
    }
    build.insert(
        "misc".into(),
        json!({
            "rustc": toolchain.rustc,
            "bindgen": toolchain.bindgen,
            "libclang": toolchain.libclang,
            "kernel_release": result.kernel_release,
            "images": result.images,
        }),
    );
    Value::Object(build)
}

/// The arch's tests: a `boot` test (ERROR for an infrastructure failure),
/// then every KTAP test of the tree.
/// `runtime`: the lab that ran them (its tests' ids and environment say
/// so), or none for a direct boot.
fn add_tests(build_id: &str, runtime: Option<&str>, result: &ArchResult, out: &mut Vec<Value>) {
    let tests = Tests { build_id, runtime };
    let mut boot = tests.object(result, "boot");
    boot.insert("status".into(), json!("PASS"));
    if let Some(failure) = &result.infrastructure_failure {
        boot.insert("status".into(), json!("ERROR"));
        boot.insert("comment".into(), json!(failure.kind.as_str()));
        boot.insert("log_excerpt".into(), json!(excerpt(&failure.message)));
    }
    out.push(Value::Object(boot));
    let mut names = Vec::new();
    for test in &result.tests {
        let path = unique(&mut names, path_part(&test.name));
        add_node(&tests, result, test, &path, None, out);
    }
}

fn add_node(
    tests: &Tests,
    result: &ArchResult,
    node: &TestNode,
    path: &str,
    parent_log: Option<&[String]>,
    out: &mut Vec<Value>,
) {
    let log = if node.log.is_empty() {
        parent_log
    } else {
        Some(&node.log[..])
    };
    let mut test = tests.object(result, path);
    test.insert("status".into(), json!(status(node.status)));
    if let Some(seconds) = node.duration_s {
        test.insert("duration".into(), json!(seconds));
    }
    if let Some(excerpt) = node_excerpt(node, log) {
        test.insert("log_excerpt".into(), json!(excerpt));
    }
    let mut misc = Map::new();
    if let Some(source) = &node.source {
        misc.insert("source".into(), json!(source));
    }
    if node.status == Status::Fail {
        if let Some(command) = &result.reproduce {
            misc.insert("reproduce".into(), json!(command));
        }
    }
    if !misc.is_empty() {
        test.insert("misc".into(), Value::Object(misc));
    }
    out.push(Value::Object(test));
    let mut names = Vec::new();
    for sub in &node.subtests {
        let sub_path = format!("{path}.{}", unique(&mut names, path_part(&sub.name)));
        add_node(tests, result, sub, &sub_path, log, out);
    }
}

/// Where a run's tests go: their build, and the lab that ran them.
struct Tests<'a> {
    build_id: &'a str,
    runtime: Option<&'a str>,
}

impl Tests<'_> {
    fn object(&self, result: &ArchResult, path: &str) -> Map<String, Value> {
        let mut test = Map::new();
        let id = match self.runtime {
            Some(runtime) => format!("{}@{runtime}:{path}", self.build_id),
            None => format!("{}:{path}", self.build_id),
        };
        test.insert("id".into(), json!(id));
        test.insert("origin".into(), json!(ORIGIN));
        test.insert("build_id".into(), json!(self.build_id));
        test.insert("path".into(), json!(path));
        if let Some(start) = &result.started_at {
            test.insert("start_time".into(), json!(start));
        }
        let mut environment = Map::new();
        if let Some(version) = &result.qemu_version {
            environment.insert("comment".into(), json!(version));
        }
        if let Some(runtime) = self.runtime {
            environment.insert("misc".into(), json!({"runtime": runtime}));
        }
        if !environment.is_empty() {
            test.insert("environment".into(), Value::Object(environment));
        }
        test
    }
}

/// KCIDB's architecture (`[a-z0-9_]*`) of an arch of the table: its name
/// before a variant (`x86_64` of `x86_64-kasan`; the defconfig, the build's
/// `config_name`, tells them apart).
fn architecture(arch: &str) -> String {
    // x86_64-kasan, x86_64+rustc-1.85.0 (a cell of the toolchain axis)
    let base = arch.split(['-', '+', '@']).next().unwrap_or(arch);
    base.chars()
        .map(|c| c.to_ascii_lowercase())
        .filter(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_')
        .collect()
}

fn status(status: Status) -> &'static str {
    match status {
        Status::Pass => "PASS",
        Status::Fail => "FAIL",
        Status::Skip | Status::Todo => "SKIP",
    }
}

/// A test that did not pass: its errors, diagnostics and skip reason,
/// then the console lines of its top-level test.
fn node_excerpt(node: &TestNode, log: Option<&[String]>) -> Option<String> {
    if node.status == Status::Pass {
        return None;
    }
    let mut lines: Vec<String> = node.errors.clone();
    lines.extend(node.reason.iter().cloned());
    lines.extend(node.diagnostics.iter().map(|d| format!("# {d}")));
    lines.extend(log.unwrap_or_default().iter().cloned());
    (!lines.is_empty()).then(|| excerpt(&lines.join("\n")))
}

/// At most KCIDB's excerpt length, cut at a character boundary.
fn excerpt(text: &str) -> String {
    let cut = text.chars().take(EXCERPT_MAX).collect::<String>();
    cut.replace('\0', "")
}

/// A path component: KCIDB allows letters, digits, `_` and `-`.
fn path_part(name: &str) -> String {
    let part: String = name
        .chars()
        .map(|c| match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '_' | '-' => c,
            _ => '_',
        })
        .collect();
    if part.is_empty() {
        "_".to_string()
    } else {
        part
    }
}

/// `part`, or `part-N` if a sibling has it already.
fn unique(seen: &mut Vec<String>, part: String) -> String {
    let mut candidate = part.clone();
    let mut n = 1;
    while seen.contains(&candidate) {
        n += 1;
        candidate = format!("{part}-{n}");
    }
    seen.push(candidate.clone());
    candidate
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ktap::parse_str;

    fn result() -> ArchResult {
        let mut r = ArchResult::new("x86_64", "qemu");
        r.defconfig = Some("qemu_x86_64_rust_defconfig".into());
        r.started_at = Some("2026-12-06T16:00:00Z".into());
        r.tests = parse_str(
            "KTAP version 1\n1..2\n    KTAP version 1\n    1..2\n    ok 1 load\n    \
             not ok 2 dmesg: m: x\n    # expected: x\nnot ok 1 m@of\nok 2 c # SKIP not here\n",
        )
        .tests;
        r.tests[0].log = vec!["m: y".into()];
        r.tests[0].duration_s = Some(1.25);
        r.settle();
        r
    }

    #[test]
    fn one_build_per_arch_one_test_per_ktap_test() {
        let checkout = Checkout {
            key: "abc".into(),
            misc: json!({}),
        };
        let doc = document(&checkout, &[result()]);
        assert_eq!(doc["checkouts"][0]["id"], "rust_qemu:abc");
        assert_eq!(doc["builds"][0]["id"], "rust_qemu:abc:x86_64");
        assert_eq!(
            doc["builds"][0]["config_name"],
            "qemu_x86_64_rust_defconfig"
        );
        let tests = doc["tests"].as_array().expect("tests");
        let paths: Vec<&str> = tests.iter().filter_map(|t| t["path"].as_str()).collect();
        assert_eq!(
            paths,
            ["boot", "m_of", "m_of.load", "m_of.dmesg__m__x", "c"]
        );
        let failed = &tests[3];
        assert_eq!(failed["status"], "FAIL");
        assert_eq!(failed["log_excerpt"], "# expected: x\nm: y");
        assert_eq!(
            failed["misc"]["reproduce"],
            "make retest ARCH=x86_64 TESTS=m@of"
        );
        assert_eq!(tests[4]["status"], "SKIP");
        assert_eq!(tests[0]["start_time"], "2026-12-06T16:00:00Z");
        // a top-level test's guest duration
        assert_eq!(tests[1]["duration"], 1.25);
        assert!(tests[4].get("duration").is_none());
    }

    #[test]
    fn the_checkout_is_what_the_images_say() {
        let with = |source: &str| {
            let mut r = result();
            r.image.insert("kernel_source".into(), source.into());
            r
        };
        let series = format!("series {}", "ab".repeat(32));
        let one = Checkout::of_results(&[with(&series), with(&series), result()], None)
            .expect("one source");
        assert_eq!(one.key, "abababababababab");
        assert_eq!(one.misc["kernel_source"], series);
        let tree = Checkout::of_results(&[with("tree /t")], None).expect("a tree");
        assert!(tree.key.starts_with("tree-"), "{}", tree.key);
        let two = Checkout::of_results(&[with(&series), with("tree /t")], None);
        assert!(two.expect_err("two").starts_with("built from "));
        assert!(Checkout::of_results(&[result()], None).is_err());
    }

    #[test]
    fn a_lab_run_tests_the_arch_build() {
        let checkout = Checkout {
            key: "abc".into(),
            misc: json!({}),
        };
        let mut lava = result();
        lava.arch = "x86_64@lava".into();
        let doc = document(&checkout, &[result(), lava]);
        assert_eq!(doc["builds"].as_array().map(Vec::len), Some(1));
        let tests = doc["tests"].as_array().expect("tests");
        assert_eq!(tests.len(), 10);
        let lab = &tests[5];
        assert_eq!(lab["id"], "rust_qemu:abc:x86_64@lava:boot");
        assert_eq!(lab["build_id"], "rust_qemu:abc:x86_64");
        assert_eq!(lab["environment"]["misc"]["runtime"], "lava");
        assert!(tests[0].get("environment").is_none());
    }

    #[test]
    fn architectures_are_kcidb_architectures() {
        assert_eq!(architecture("x86_64-kasan"), "x86_64");
        assert_eq!(architecture("aarch64+rustc-1.85.0"), "aarch64");
        assert_eq!(architecture("ppc64le"), "ppc64le");
        assert_eq!(architecture("arm"), "arm");
        assert_eq!(architecture("riscv64@lava"), "riscv64");
    }

    #[test]
    fn paths_are_kcidb_paths_and_unique() {
        let mut seen = Vec::new();
        assert_eq!(unique(&mut seen, path_part("dmesg: a.b")), "dmesg__a_b");
        assert_eq!(unique(&mut seen, path_part("dmesg: a b")), "dmesg__a_b-2");
        assert_eq!(path_part(""), "_");
        assert_eq!(excerpt(&"x".repeat(EXCERPT_MAX + 5)).len(), EXCERPT_MAX);
    }
}
