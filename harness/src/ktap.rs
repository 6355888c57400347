//! KTAP parser.
//!
//! Parses KTAP version 1 (and the TAP 13/14 lines that the kernel's
//! `tools/testing/kunit/kunit_parser.py` accepts) one line at a time, so the
//! harness can report each top-level test as soon as its result line arrives.
//!
//! Lines (after the console prefix has been removed, indentation kept):
//! - `KTAP version 1` / `TAP version 14`: start of a test document;
//! - `# Subtest: <name>`: name of the nested test that follows;
//! - `1..N`: plan;
//! - `ok|not ok <number> [- ]<name>[ # SKIP|TODO [reason]]`: result;
//! - `# <text>` and any other line: diagnostics.
//!
//! Nesting follows indentation: a structural line (version, subtest header,
//! plan, result) indented deeper than the current test document opens a nested
//! one, and the result line at the parent's indentation closes it.
//!
//! A truncated stream never passes: a plan with fewer results than it
//! announced, a nested test without its closing result line, or a missing plan
//! make the enclosing test fail, and missing results show up as a failing
//! synthetic test so that they are counted.

use serde::{Deserialize, Serialize};

/// Outcome of one test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Pass,
    Fail,
    /// `# SKIP` directive.
    Skip,
    /// `# TODO` directive (an expected failure): counted as skipped.
    Todo,
}

impl Status {
    /// The word printed for this status (`ok`, `not ok`, `skip`, `todo`).
    pub fn word(self) -> &'static str {
        match self {
            Status::Pass => "ok",
            Status::Fail => "not ok",
            Status::Skip => "skip",
            Status::Todo => "todo",
        }
    }
}

/// Passed, failed and skipped (skip and todo) leaf test cases.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    pub passed: u64,
    pub failed: u64,
    pub skipped: u64,
}

impl Counts {
    pub fn total(&self) -> u64 {
        self.passed + self.failed + self.skipped
    }

    fn of_status(status: Status) -> Counts {
        let mut counts = Counts::default();
        match status {
            Status::Pass => counts.passed = 1,
            Status::Fail => counts.failed = 1,
            Status::Skip | Status::Todo => counts.skipped = 1,
        }
        counts
    }
}

impl std::ops::Add for Counts {
    type Output = Counts;
    fn add(self, other: Counts) -> Counts {
        Counts {
            passed: self.passed + other.passed,
            failed: self.failed + other.failed,
            skipped: self.skipped + other.skipped,
        }
    }
}

impl std::ops::AddAssign for Counts {
    fn add_assign(&mut self, other: Counts) {
        *self = *self + other;
    }
}

impl std::iter::Sum for Counts {
    fn sum<I: Iterator<Item = Counts>>(iter: I) -> Counts {
        iter.fold(Counts::default(), |a, b| a + b)
    }
}

fn is_false(value: &bool) -> bool {
    !*value
}

/// What a top-level runner test is, from the actions of its manifest
/// lines (the arch matrix's columns).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TestKind {
    /// A KUnit suite's results (`kunit`).
    Kunit,
    /// Lines of the kernel's configuration (`config`).
    Config,
    /// Checks around a module it loads (`load`, `cycle`).
    Module,
    /// Checks of the running kernel alone.
    Checks,
}

/// One test of the tree, with its nested subtests.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TestNode {
    pub name: String,
    /// Number from the result line (`None` for tests the harness made up).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub number: Option<u32>,
    pub status: Status,
    /// Reason given with `# SKIP` or `# TODO`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Plan of the nested test document, if there was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan: Option<u32>,
    /// KTAP diagnostic lines of this test (without the leading `# `).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub diagnostics: Vec<String>,
    /// Why the harness failed this test (truncation, kernel warnings, ...).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<String>,
    /// Made up by the harness (missing results, kernel log problems, ...).
    #[serde(default, skip_serializing_if = "is_false")]
    pub synthetic: bool,
    /// Where the test is written: `rust/kernel/<file>.rs:<line>` for a Rust
    /// doctest, `package/<package>/src/manifest:<line>` for a runner check.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// A top-level runner test's kind, from its manifest lines' actions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<TestKind>,
    /// A runner check's action (its manifest line's: `load`, `dmesg`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    /// The console lines (kernel and runner) printed while a top-level
    /// test that failed or was skipped ran, bounded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub log: Vec<String>,
    /// A top-level test's duration in seconds, from the guest's printk
    /// timestamps: from the end of the previous top-level test (or the
    /// KTAP header) to its own result line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub subtests: Vec<TestNode>,
}

impl TestNode {
    /// A failing test made up by the harness.
    pub fn synthetic_failure(name: impl Into<String>, error: impl Into<String>) -> TestNode {
        TestNode {
            name: name.into(),
            number: None,
            status: Status::Fail,
            reason: None,
            plan: None,
            diagnostics: Vec::new(),
            errors: vec![error.into()],
            synthetic: true,
            source: None,
            kind: None,
            action: None,
            log: Vec::new(),
            duration_s: None,
            subtests: Vec::new(),
        }
    }

    /// Marks the test failed, recording why.
    pub fn fail(&mut self, error: impl Into<String>) {
        self.errors.push(error.into());
        self.status = Status::Fail;
    }

    /// Leaf test cases by outcome. A failed test whose subtests all passed
    /// (it failed for a reason of its own, e.g. a kernel warning) counts as
    /// one more failed case, so that a failure is never lost in the counts.
    pub fn counts(&self) -> Counts {
        if self.subtests.is_empty() {
            return Counts::of_status(self.status);
        }
        let mut counts: Counts = self.subtests.iter().map(TestNode::counts).sum();
        if self.status == Status::Fail && counts.failed == 0 {
            counts.failed += 1;
        }
        counts
    }

    /// Whether this test's failure is not visible in any of its leaves
    /// (see [`TestNode::counts`]).
    pub fn fails_on_its_own(&self) -> bool {
        self.status == Status::Fail
            && !self.subtests.is_empty()
            && self
                .subtests
                .iter()
                .map(TestNode::counts)
                .sum::<Counts>()
                .failed
                == 0
    }

    /// The leaf test cases, each with its path below this test (names joined
    /// with ` / `).
    pub fn leaves(&self) -> Vec<(String, &TestNode)> {
        let mut out = Vec::new();
        for sub in &self.subtests {
            sub.collect_leaves(String::new(), &mut out);
        }
        out
    }

    fn collect_leaves<'a>(&'a self, prefix: String, out: &mut Vec<(String, &'a TestNode)>) {
        let path = if prefix.is_empty() {
            self.name.clone()
        } else {
            format!("{prefix} / {}", self.name)
        };
        if self.subtests.is_empty() {
            out.push((path, self));
        } else {
            for sub in &self.subtests {
                sub.collect_leaves(path.clone(), out);
            }
        }
    }

    /// The direct subtest called `name`.
    pub fn subtest(&self, name: &str) -> Option<&TestNode> {
        self.subtests.iter().find(|t| t.name == name)
    }

    fn from_result(result: ResultLine) -> TestNode {
        let (status, reason) = match result.directive {
            Some(Directive::Skip(reason)) => (Status::Skip, Some(reason)),
            Some(Directive::Todo(reason)) => (Status::Todo, Some(reason)),
            None if result.ok => (Status::Pass, None),
            None => (Status::Fail, None),
        };
        let reason = reason.filter(|r| !r.is_empty());
        let mut diagnostics = Vec::new();
        if let Some(comment) = result.comment {
            diagnostics.push(comment);
        }
        TestNode {
            name: result.name,
            number: Some(result.number),
            status,
            reason,
            plan: None,
            diagnostics,
            errors: Vec::new(),
            synthetic: false,
            source: None,
            kind: None,
            action: None,
            log: Vec::new(),
            duration_s: None,
            subtests: Vec::new(),
        }
    }

    /// Makes the status agree with errors and subtests: any error fails the
    /// test, and so does a failed subtest under an `ok` result line.
    fn settle(&mut self) {
        if !self.errors.is_empty() {
            self.status = Status::Fail;
        }
        if self.status == Status::Pass {
            if let Some(failed) = self.subtests.iter().find(|t| t.status == Status::Fail) {
                let name = failed.name.clone();
                self.fail(format!("result line says ok, but subtest '{name}' failed"));
            }
        }
    }
}

/// A `# SKIP` or `# TODO` directive with its reason.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Directive {
    Skip(String),
    Todo(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct ResultLine {
    ok: bool,
    number: u32,
    name: String,
    directive: Option<Directive>,
    /// Text after ` # ` that is not a directive.
    comment: Option<String>,
}

/// One line of KTAP, classified.
#[derive(Debug, Clone, PartialEq, Eq)]
enum KtapLine {
    Version,
    Header(String),
    Plan(u32),
    Result(ResultLine),
    /// A `#` line (text after `#` and one space) or any unknown line.
    Diagnostic(String),
    Blank,
}

/// Indentation (leading whitespace characters) and the rest of the line.
fn split_indent(line: &str) -> (usize, &str) {
    let body = line.trim_start();
    (line.len() - body.len(), body)
}

/// Whether `line` is a `KTAP version N` or `TAP version N` line.
pub fn is_version_line(line: &str) -> bool {
    let body = line.trim();
    let rest = body
        .strip_prefix("KTAP version ")
        .or_else(|| body.strip_prefix("TAP version "));
    matches!(rest, Some(v) if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()))
}

fn parse_directive(text: &str) -> Option<Directive> {
    let text = text.trim();
    let word = text.get(..4)?;
    let rest = &text[4..];
    if !(rest.is_empty() || rest.starts_with(char::is_whitespace)) {
        return None;
    }
    let reason = rest.trim().to_string();
    if word.eq_ignore_ascii_case("SKIP") {
        Some(Directive::Skip(reason))
    } else if word.eq_ignore_ascii_case("TODO") {
        Some(Directive::Todo(reason))
    } else {
        None
    }
}

fn parse_result(body: &str) -> Option<ResultLine> {
    let (ok, rest) = if let Some(rest) = body.strip_prefix("not ok") {
        (false, rest)
    } else if let Some(rest) = body.strip_prefix("ok") {
        (true, rest)
    } else {
        return None;
    };
    let rest = rest.strip_prefix(' ')?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let number: u32 = rest[..digits].parse().ok()?;
    let rest = &rest[digits..];
    let rest = if rest.is_empty() {
        rest
    } else {
        rest.strip_prefix(' ')?
    };
    let rest = rest.strip_prefix("- ").unwrap_or(rest);
    let (name, tail) = if let Some(tail) = rest.strip_prefix("# ") {
        ("", Some(tail))
    } else if rest == "#" {
        ("", Some(""))
    } else if let Some(pos) = rest.find(" # ") {
        (&rest[..pos], Some(&rest[pos + 3..]))
    } else {
        (rest, None)
    };
    let mut name = name.trim().to_string();
    let (directive, comment) = match tail {
        Some(tail) => match parse_directive(tail) {
            Some(directive) => (Some(directive), None),
            None => (None, Some(tail.trim().to_string())),
        },
        None => (None, None),
    };
    if name.is_empty() {
        // `ok 3 # SKIP test: some reason`: kunit_parser names the test
        // after the reason.
        name = match &directive {
            Some(Directive::Skip(r)) | Some(Directive::Todo(r)) if !r.is_empty() => r.clone(),
            _ => format!("test {number}"),
        };
    }
    Some(ResultLine {
        ok,
        number,
        name,
        directive,
        comment,
    })
}

fn parse_plan(body: &str) -> Option<u32> {
    let rest = body.strip_prefix("1..")?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    rest[..digits].parse().ok()
}

fn classify(line: &str) -> (usize, KtapLine) {
    let line = line.trim_end();
    let (indent, body) = split_indent(line);
    if body.is_empty() {
        return (indent, KtapLine::Blank);
    }
    if is_version_line(body) {
        return (indent, KtapLine::Version);
    }
    if let Some(name) = body.strip_prefix("# Subtest:") {
        return (indent, KtapLine::Header(name.trim().to_string()));
    }
    if let Some(count) = parse_plan(body) {
        return (indent, KtapLine::Plan(count));
    }
    if let Some(result) = parse_result(body) {
        return (indent, KtapLine::Result(result));
    }
    let text = match body.strip_prefix('#') {
        Some(text) => text.strip_prefix(' ').unwrap_or(text),
        None => body,
    };
    (indent, KtapLine::Diagnostic(text.to_string()))
}

/// One open test document (the top level, or a nested test's subtests).
#[derive(Debug, Default)]
struct Level {
    indent: usize,
    name: Option<String>,
    plan: Option<u32>,
    saw_version: bool,
    tests: Vec<TestNode>,
    errors: Vec<String>,
    /// Diagnostics before the plan: they belong to the test this level is.
    header: Vec<String>,
    /// Diagnostics waiting for the next result of this level (or, when the
    /// level closes, for the test this level is).
    pending: Vec<String>,
    /// The last line was a `not ok` result: diagnostics right after it
    /// (`# expected:`, `# seen:`) are its own.
    after_failure: bool,
}

impl Level {
    fn new(indent: usize) -> Level {
        Level {
            indent,
            ..Level::default()
        }
    }

    fn next_number(&self) -> u32 {
        u32::try_from(self.tests.len())
            .unwrap_or(u32::MAX)
            .saturating_add(1)
    }
}

/// What is wrong with a test document's results against its plan.
#[derive(Debug, Clone, PartialEq, Eq)]
enum PlanProblem {
    /// Fewer results than planned: the stream was cut.
    Truncated {
        planned: u32,
        count: usize,
    },
    TooMany {
        planned: u32,
        count: usize,
    },
    NoPlan,
}

impl PlanProblem {
    fn check(plan: Option<u32>, count: usize) -> Option<PlanProblem> {
        match plan {
            Some(planned) => {
                let planned_len = usize::try_from(planned).unwrap_or(usize::MAX);
                if count < planned_len {
                    Some(PlanProblem::Truncated { planned, count })
                } else if count > planned_len {
                    Some(PlanProblem::TooMany { planned, count })
                } else {
                    None
                }
            }
            None => Some(PlanProblem::NoPlan),
        }
    }

    fn message(&self) -> String {
        match self {
            PlanProblem::Truncated { planned, count } => {
                format!("truncated: plan 1..{planned} but only {count} result(s)")
            }
            PlanProblem::TooMany { planned, count } => {
                format!("{count} results, but the plan is 1..{planned}")
            }
            PlanProblem::NoPlan => "missing plan line (1..N)".to_string(),
        }
    }

    /// For a truncated document, the failing synthetic test that stands for
    /// its missing results.
    fn missing_results(&self) -> Option<TestNode> {
        let PlanProblem::Truncated { planned, count } = self else {
            return None;
        };
        let first = count + 1;
        let name = if usize::try_from(*planned).is_ok_and(|p| p == first) {
            format!("missing result {planned}")
        } else {
            format!("missing results {first}..{planned}")
        };
        Some(TestNode::synthetic_failure(
            name,
            "no result line (output truncated)",
        ))
    }
}

/// Checks a closed nested test document's results against its plan. Missing
/// results become one failing synthetic subtest.
fn check_plan(node: &mut TestNode, plan: Option<u32>, plan_required: bool) {
    let Some(problem) = PlanProblem::check(plan, node.subtests.len()) else {
        return;
    };
    if problem == PlanProblem::NoPlan {
        let skipped_empty =
            node.subtests.is_empty() && matches!(node.status, Status::Skip | Status::Todo);
        if !plan_required || skipped_empty {
            return;
        }
    }
    node.fail(problem.message());
    if let Some(missing) = problem.missing_results() {
        node.subtests.push(missing);
    }
}

/// The whole parsed stream.
#[derive(Debug, Clone, PartialEq)]
pub struct KtapDocument {
    /// A `KTAP version` line was seen.
    pub started: bool,
    pub plan: Option<u32>,
    /// Top-level tests, including synthetic failures for missing results and
    /// for problems of the top-level document itself (test named `ktap`).
    pub tests: Vec<TestNode>,
    /// Top-level diagnostics not attached to any test.
    pub diagnostics: Vec<String>,
    /// Problems of the top-level document (also in the `ktap` test).
    pub errors: Vec<String>,
}

impl KtapDocument {
    pub fn counts(&self) -> Counts {
        self.tests.iter().map(TestNode::counts).sum()
    }
}

/// Line-by-line KTAP parser.
#[derive(Debug, Default)]
pub struct KtapParser {
    levels: Vec<Level>,
}

impl KtapParser {
    pub fn new() -> KtapParser {
        KtapParser::default()
    }

    /// The top-level tests completed so far.
    pub fn top_level(&self) -> &[TestNode] {
        self.levels.first().map_or(&[], |l| l.tests.as_slice())
    }

    /// The top-level tests completed so far, to add harness findings to.
    pub fn top_level_mut(&mut self) -> &mut [TestNode] {
        match self.levels.first_mut() {
            Some(level) => level.tests.as_mut_slice(),
            None => &mut [],
        }
    }

    /// The top-level plan, once seen.
    pub fn top_level_plan(&self) -> Option<u32> {
        self.levels.first().and_then(|l| l.plan)
    }

    /// The top-level test running now: its number and, once its `# Subtest:`
    /// line was seen, its name.
    pub fn running(&self) -> Option<(u32, Option<String>)> {
        let top = self.levels.first()?;
        let name = self.levels.get(1).and_then(|l| l.name.clone());
        Some((top.next_number(), name))
    }

    /// Feeds one line; returns the indices (into [`KtapParser::top_level`])
    /// of the top-level tests that this line completed.
    pub fn feed(&mut self, line: &str) -> Vec<usize> {
        let (indent, kind) = classify(line);
        let mut done = Vec::new();
        if self.levels.is_empty() {
            // Lines before the first version line are not KTAP.
            if kind == KtapLine::Version {
                let mut level = Level::new(indent);
                level.saw_version = true;
                self.levels.push(level);
            }
            return done;
        }
        match kind {
            KtapLine::Blank => {}
            KtapLine::Diagnostic(text) => self.diagnostic(text),
            kind => self.structural(indent, kind, &mut done),
        }
        done
    }

    fn diagnostic(&mut self, text: String) {
        let Some(level) = self.levels.last_mut() else {
            return;
        };
        if level.after_failure {
            if let Some(last) = level.tests.last_mut() {
                last.diagnostics.push(text);
                return;
            }
        }
        if level.plan.is_none() && level.tests.is_empty() {
            level.header.push(text);
        } else {
            level.pending.push(text);
        }
    }

    /// Adds a finished test to the innermost level.
    fn push_test(&mut self, node: TestNode, done: &mut Vec<usize>) {
        let depth = self.levels.len();
        if let Some(level) = self.levels.last_mut() {
            level.after_failure = node.status == Status::Fail;
            level.tests.push(node);
            if depth == 1 {
                done.push(level.tests.len() - 1);
            }
        }
    }

    /// Closes `level` (at stack index `index`) into a test node, with its
    /// result line if there is one.
    fn close_level(
        level: Level,
        index: usize,
        result: Option<ResultLine>,
        number: u32,
    ) -> TestNode {
        let Level {
            name,
            plan,
            tests,
            errors,
            header,
            pending,
            ..
        } = level;
        let has_result = result.is_some();
        let mut node = match result {
            Some(result) => TestNode::from_result(result),
            None => {
                let mut node = TestNode::synthetic_failure(
                    name.clone().unwrap_or_else(|| format!("test {number}")),
                    "no result line: the subtest's output ends without `ok`/`not ok` (truncated)",
                );
                node.synthetic = false;
                node.number = Some(number);
                node
            }
        };
        if has_result {
            if let Some(header_name) = &name {
                if *header_name != node.name {
                    node.diagnostics
                        .push(format!("(subtest header named it '{header_name}')"));
                }
            }
        }
        let mut diagnostics = header;
        diagnostics.extend(pending);
        diagnostics.append(&mut node.diagnostics);
        node.diagnostics = diagnostics;
        node.plan = plan;
        node.subtests = tests;
        for error in errors {
            node.fail(error);
        }
        // The runner's own documents (the top level and its direct subtests)
        // always have a plan; deeper ones are copied from KUnit, which prints
        // none for parameterised tests, and are accepted without one when
        // their result line closes them.
        let plan_required = index <= 1 || !has_result;
        check_plan(&mut node, plan, plan_required);
        node.settle();
        node
    }

    fn structural(&mut self, indent: usize, kind: KtapLine, done: &mut Vec<usize>) {
        // Close the nested documents indented deeper than this line.
        let mut closing: Option<Level> = None;
        while self.levels.len() > 1 && self.levels.last().is_some_and(|l| l.indent > indent) {
            let Some(mut level) = self.levels.pop() else {
                break;
            };
            if let Some(inner) = closing.take() {
                // `inner` ended without a result line inside `level`.
                let number = level.next_number();
                let node = Self::close_level(inner, self.levels.len() + 1, None, number);
                level.after_failure = false;
                level.tests.push(node);
            }
            closing = Some(level);
        }
        if let Some(child) = closing {
            let number = self.levels.last().map_or(1, Level::next_number);
            let index = self.levels.len();
            if let KtapLine::Result(result) = kind {
                let got = result.number;
                let mut node = Self::close_level(child, index, Some(result), number);
                if got != number {
                    node.fail(format!("numbered {got}, but {number} was expected"));
                }
                self.push_test(node, done);
                return;
            }
            let node = Self::close_level(child, index, None, number);
            self.push_test(node, done);
        }

        let Some(top) = self.levels.last_mut() else {
            return;
        };
        if indent > top.indent {
            // A nested test document starts.
            top.after_failure = false;
            let mut level = Level::new(indent);
            level.header = std::mem::take(&mut top.pending);
            self.levels.push(level);
        }
        let depth = self.levels.len();
        let Some(level) = self.levels.last_mut() else {
            return;
        };
        match kind {
            KtapLine::Version => {
                level.after_failure = false;
                if level.saw_version || level.plan.is_some() || !level.tests.is_empty() {
                    level
                        .errors
                        .push("unexpected `KTAP version` line in the middle of a test".into());
                } else {
                    level.saw_version = true;
                }
            }
            KtapLine::Header(name) => {
                level.after_failure = false;
                if level.name.is_none() && level.tests.is_empty() && depth > 1 {
                    level.name = Some(name);
                } else {
                    self.diagnostic(format!("Subtest: {name}"));
                }
            }
            KtapLine::Plan(count) => {
                level.after_failure = false;
                if level.plan.is_some() {
                    level.errors.push(format!("second plan line 1..{count}"));
                } else {
                    level.plan = Some(count);
                }
            }
            KtapLine::Result(result) => {
                let expected = level.next_number();
                let got = result.number;
                let mut node = TestNode::from_result(result);
                let mut diagnostics = std::mem::take(&mut level.pending);
                diagnostics.append(&mut node.diagnostics);
                node.diagnostics = diagnostics;
                if got != expected {
                    node.fail(format!("numbered {got}, but {expected} was expected"));
                }
                self.push_test(node, done);
            }
            KtapLine::Diagnostic(_) | KtapLine::Blank => {}
        }
    }

    /// Ends the stream: closes what is still open (as truncated) and checks
    /// the top-level plan.
    pub fn finish(mut self) -> KtapDocument {
        let mut ignored = Vec::new();
        while self.levels.len() > 1 {
            let Some(level) = self.levels.pop() else {
                break;
            };
            let index = self.levels.len();
            let number = self.levels.last().map_or(1, Level::next_number);
            let node = Self::close_level(level, index, None, number);
            self.push_test(node, &mut ignored);
        }
        let Some(top) = self.levels.pop() else {
            return KtapDocument {
                started: false,
                plan: None,
                tests: Vec::new(),
                diagnostics: Vec::new(),
                errors: vec!["no `KTAP version` line".into()],
            };
        };
        let Level {
            plan,
            mut tests,
            mut errors,
            header,
            pending,
            ..
        } = top;
        // Errors that no other test stands for go to a synthetic `ktap` test.
        let mut own_errors = errors.clone();
        if let Some(problem) = PlanProblem::check(plan, tests.len()) {
            errors.push(problem.message());
            match problem.missing_results() {
                Some(missing) => tests.push(missing),
                None => own_errors.push(problem.message()),
            }
        }
        if !own_errors.is_empty() {
            let mut node = TestNode::synthetic_failure("ktap", "");
            node.errors = own_errors;
            tests.push(node);
        }
        let mut diagnostics = header;
        diagnostics.extend(pending);
        KtapDocument {
            started: true,
            plan,
            tests,
            diagnostics,
            errors,
        }
    }
}

/// Parses a whole KTAP text.
pub fn parse_str(text: &str) -> KtapDocument {
    let mut parser = KtapParser::new();
    for line in text.lines() {
        parser.feed(line);
    }
    parser.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The example of docs/test-protocol.md, with the doctest list cut to
    /// three and the plan adjusted.
    const PROTOCOL_EXAMPLE: &str = "\
KTAP version 1
1..3
    KTAP version 1
    # Subtest: kunit_rust_doctests
    1..3
    ok 1 rust_doctest_kernel_alloc_kbox_rs_0
    ok 2 rust_doctest_kernel_alloc_kbox_rs_1
    ok 3 rust_doctest_kernel_alloc_kbox_rs_2
ok 1 kunit_rust_doctests
    KTAP version 1
    # Subtest: config
    1..2
    ok 1 CONFIG_RUST=y
    ok 2 CONFIG_SAMPLES_RUST=y
ok 2 config
    KTAP version 1
    # Subtest: rust_minimal
    1..5
    ok 1 load
    ok 2 dmesg: rust_minimal: Rust minimal sample (init)
    not ok 3 dmesg: rust_minimal: Am I built-in? false
    # expected: a kernel log line containing 'rust_minimal: Am I built-in? false'
    # seen: (no such line)
    ok 4 unload
    ok 5 kernel clean (no new WARN/BUG/Oops/lockdep, taint unchanged)
not ok 3 rust_minimal
";

    #[test]
    fn protocol_example() {
        let doc = parse_str(PROTOCOL_EXAMPLE);
        assert!(doc.started);
        assert_eq!(doc.plan, Some(3));
        assert!(doc.errors.is_empty(), "{:?}", doc.errors);
        let names: Vec<_> = doc.tests.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["kunit_rust_doctests", "config", "rust_minimal"]);
        assert_eq!(doc.tests[0].status, Status::Pass);
        assert_eq!(doc.tests[0].plan, Some(3));
        assert_eq!(doc.tests[0].subtests.len(), 3);
        assert_eq!(doc.tests[1].status, Status::Pass);
        let minimal = &doc.tests[2];
        assert_eq!(minimal.status, Status::Fail);
        assert!(minimal.errors.is_empty());
        let check = &minimal.subtests[2];
        assert_eq!(check.name, "dmesg: rust_minimal: Am I built-in? false");
        assert_eq!(check.status, Status::Fail);
        assert_eq!(
            check.diagnostics,
            [
                "expected: a kernel log line containing 'rust_minimal: Am I built-in? false'",
                "seen: (no such line)"
            ]
        );
        assert!(minimal.subtests[3].diagnostics.is_empty());
        assert_eq!(
            minimal.subtests[4].name,
            "kernel clean (no new WARN/BUG/Oops/lockdep, taint unchanged)"
        );
        assert_eq!(
            doc.counts(),
            Counts {
                passed: 9,
                failed: 1,
                skipped: 0
            }
        );
    }

    #[test]
    fn top_level_results_are_reported_as_they_complete() {
        let mut parser = KtapParser::new();
        let mut completed = Vec::new();
        for (n, line) in PROTOCOL_EXAMPLE.lines().enumerate() {
            for index in parser.feed(line) {
                completed.push((n, index, parser.top_level()[index].name.clone()));
            }
        }
        assert_eq!(
            completed,
            [
                (8, 0, "kunit_rust_doctests".to_string()),
                (14, 1, "config".to_string()),
                (25, 2, "rust_minimal".to_string())
            ]
        );
    }

    #[test]
    fn running_test_is_known() {
        let mut parser = KtapParser::new();
        for line in PROTOCOL_EXAMPLE.lines().take(18) {
            parser.feed(line);
        }
        assert_eq!(parser.running(), Some((3, Some("rust_minimal".into()))));
    }

    /// A KUnit run of the Rust doctests as the kernel prints it (and as
    /// debugfs keeps it), nested once more inside the runner's document.
    #[test]
    fn kunit_doctest_excerpt() {
        let text = "\
KTAP version 1
1..1
    KTAP version 1
    # Subtest: kunit_rust_doctests
    # module: kernel
    1..4
        # rust_doctest_kernel_alloc_kbox_rs_0.location: rust/kernel/alloc/kbox.rs:123
    ok 1 rust_doctest_kernel_alloc_kbox_rs_0
        # rust_doctest_kernel_alloc_kbox_rs_1.location: rust/kernel/alloc/kbox.rs:140
    ok 2 rust_doctest_kernel_alloc_kbox_rs_1
        # rust_doctest_kernel_sync_arc_rs_3.location: rust/kernel/sync/arc.rs:88
        # rust_doctest_kernel_sync_arc_rs_3: ASSERTION FAILED at rust/kernel/sync/arc.rs:95
        Expected left == right, but
            left == 1
            right == 2
    not ok 3 rust_doctest_kernel_sync_arc_rs_3
        # rust_doctest_kernel_workqueue_rs_0.location: rust/kernel/workqueue.rs:22
    ok 4 rust_doctest_kernel_workqueue_rs_0 # SKIP needs a workqueue
# kunit_rust_doctests: pass:2 fail:1 skip:1 total:4
# Totals: pass:2 fail:1 skip:1 total:4
not ok 1 kunit_rust_doctests
";
        let doc = parse_str(text);
        assert!(doc.errors.is_empty(), "{:?}", doc.errors);
        let suite = &doc.tests[0];
        assert_eq!(suite.name, "kunit_rust_doctests");
        assert_eq!(suite.status, Status::Fail);
        assert!(suite.errors.is_empty(), "{:?}", suite.errors);
        assert_eq!(suite.diagnostics[0], "module: kernel");
        assert_eq!(suite.subtests.len(), 4);
        let failed = &suite.subtests[2];
        assert_eq!(failed.status, Status::Fail);
        assert!(failed
            .diagnostics
            .iter()
            .any(|d| d.contains("ASSERTION FAILED")));
        assert!(failed.diagnostics.iter().any(|d| d == "right == 2"));
        let skipped = &suite.subtests[3];
        assert_eq!(skipped.status, Status::Skip);
        assert_eq!(skipped.reason.as_deref(), Some("needs a workqueue"));
        assert_eq!(skipped.name, "rust_doctest_kernel_workqueue_rs_0");
        assert_eq!(
            doc.counts(),
            Counts {
                passed: 2,
                failed: 1,
                skipped: 1
            }
        );
    }

    /// The runner's lines as the console shows them: with printk timestamps,
    /// `\r`, and kernel lines of the modules under test in between. The
    /// console scanner picks the KTAP lines out; nesting survives.
    #[test]
    fn interleaved_kernel_lines_with_timestamps() {
        let console = "\
[    2.000000] rust-tests: KTAP version 1\r
[    2.000100] rust-tests: 1..1\r
[    2.000200] rust-tests:     KTAP version 1\r
[    2.000300] rust-tests:     # Subtest: rust_print\r
[    2.000400] rust-tests:     1..3\r
[    2.100000] rust_print: Rust printing macros sample (init)\r
[    2.100001] rust_print: Emergency message (level 0) without args\r
[    2.100100] rust-tests:     ok 1 load\r
[    2.100200] rust-tests:     not ok 2 dmesg: rust_print: Alert message (level 1) with args\r
[    2.100300] rust-tests:     # expected: a kernel log line containing 'rust_print: Alert message (level 1) with args'\r
[    2.100400] rust_print: Rust printing macros sample (exit)\r
[    2.100500] rust-tests:     # seen: (no such line)\r
[    2.100600] rust-tests:     ok 3 unload\r
[    2.100700] rust-tests: not ok 1 rust_print\r
";
        let mut parser = KtapParser::new();
        let mut done = Vec::new();
        for (n, raw) in console.lines().enumerate() {
            let line = crate::console::ConsoleLine::new(n + 1, raw.as_bytes());
            if let Some(payload) = line.result_payload() {
                done.extend(parser.feed(payload));
            }
        }
        assert_eq!(done, [0]);
        let doc = parser.finish();
        assert!(doc.errors.is_empty(), "{:?}", doc.errors);
        let print = &doc.tests[0];
        assert_eq!(print.name, "rust_print");
        assert_eq!(print.status, Status::Fail);
        assert_eq!(print.subtests.len(), 3);
        assert_eq!(print.subtests[1].diagnostics.len(), 2);
        assert_eq!(print.subtests[2].status, Status::Pass);
    }

    #[test]
    fn tap13_with_dashes_and_no_version_nesting() {
        let text = "\
TAP version 14
1..1
    # Subtest: example
    1..2
    ok 1 - example_simple_test
    ok 2 - example_skip_test # SKIP this test should be skipped
ok 1 - example
";
        let doc = parse_str(text);
        assert!(doc.errors.is_empty(), "{:?}", doc.errors);
        let example = &doc.tests[0];
        assert_eq!(example.name, "example");
        assert_eq!(example.status, Status::Pass);
        assert_eq!(example.subtests[0].name, "example_simple_test");
        assert_eq!(example.subtests[1].status, Status::Skip);
        assert_eq!(
            example.subtests[1].reason.as_deref(),
            Some("this test should be skipped")
        );
    }

    #[test]
    fn skip_and_todo_directives() {
        let text = "\
KTAP version 1
1..6
ok 1 plain
ok 2 skipped # SKIP not on this arch
not ok 3 skipped too # skip lowercase works
not ok 4 expected failure # TODO fix later
ok 5 # SKIP test: nameless
ok 6 commented # just a comment
";
        let doc = parse_str(text);
        assert!(doc.errors.is_empty(), "{:?}", doc.errors);
        let t = &doc.tests;
        assert_eq!(t[0].status, Status::Pass);
        assert_eq!(t[1].status, Status::Skip);
        assert_eq!(t[1].name, "skipped");
        assert_eq!(t[1].reason.as_deref(), Some("not on this arch"));
        assert_eq!(t[2].status, Status::Skip);
        assert_eq!(t[3].status, Status::Todo);
        assert_eq!(t[3].reason.as_deref(), Some("fix later"));
        assert_eq!(t[4].name, "test: nameless");
        assert_eq!(t[4].status, Status::Skip);
        assert_eq!(t[5].status, Status::Pass);
        assert_eq!(t[5].name, "commented");
        assert_eq!(t[5].diagnostics, ["just a comment"]);
        assert_eq!(
            doc.counts(),
            Counts {
                passed: 2,
                failed: 0,
                skipped: 4
            }
        );
    }

    #[test]
    fn skipped_module_without_plan() {
        let text = "\
KTAP version 1
1..1
    KTAP version 1
    # Subtest: rust_print
ok 1 rust_print # SKIP module not built
";
        let doc = parse_str(text);
        assert!(doc.errors.is_empty(), "{:?}", doc.errors);
        assert_eq!(doc.tests[0].status, Status::Skip);
        assert!(doc.tests[0].errors.is_empty());
    }

    #[test]
    fn truncated_plan_fails() {
        let text = "\
KTAP version 1
1..1
    KTAP version 1
    # Subtest: rust_minimal
    1..5
    ok 1 load
    ok 2 dmesg: rust_minimal: Rust minimal sample (init)
ok 1 rust_minimal
";
        let doc = parse_str(text);
        let t = &doc.tests[0];
        assert_eq!(t.status, Status::Fail);
        assert!(
            t.errors.iter().any(|e| e.contains("plan 1..5 but only 2")),
            "{:?}",
            t.errors
        );
        let missing = &t.subtests[2];
        assert!(missing.synthetic);
        assert_eq!(missing.name, "missing results 3..5");
        assert_eq!(
            doc.counts(),
            Counts {
                passed: 2,
                failed: 1,
                skipped: 0
            }
        );
    }

    #[test]
    fn stream_cut_inside_a_nested_test_fails() {
        let text = "\
KTAP version 1
1..3
    KTAP version 1
    # Subtest: config
    1..1
    ok 1 CONFIG_RUST=y
ok 1 config
    KTAP version 1
    # Subtest: rust_minimal
    1..5
    ok 1 load
";
        let doc = parse_str(text);
        assert_eq!(doc.tests.len(), 3, "{:#?}", doc.tests);
        assert_eq!(doc.tests[0].status, Status::Pass);
        let cut = &doc.tests[1];
        assert_eq!(cut.name, "rust_minimal");
        assert_eq!(cut.number, Some(2));
        assert_eq!(cut.status, Status::Fail);
        assert!(cut.errors.iter().any(|e| e.contains("no result line")));
        assert!(cut
            .errors
            .iter()
            .any(|e| e.contains("plan 1..5 but only 1")));
        // The top-level plan promised three tests.
        assert_eq!(doc.tests[2].name, "missing result 3");
        assert!(doc.tests[2].synthetic);
        assert!(doc
            .errors
            .iter()
            .any(|e| e.contains("plan 1..3 but only 2")));
        assert_eq!(
            doc.counts(),
            Counts {
                passed: 2,
                failed: 2,
                skipped: 0
            }
        );
    }

    #[test]
    fn nested_test_without_result_before_the_next_one() {
        let text = "\
KTAP version 1
1..2
    KTAP version 1
    # Subtest: first
    1..1
    ok 1 a
        KTAP version 1
        # Subtest: deeper
        1..1
ok 1 first
    KTAP version 1
    # Subtest: second
    1..1
    ok 1 b
ok 2 second
";
        let doc = parse_str(text);
        let first = &doc.tests[0];
        assert_eq!(first.status, Status::Fail);
        let deeper = &first.subtests[1];
        assert_eq!(deeper.name, "deeper");
        assert!(deeper.errors.iter().any(|e| e.contains("no result line")));
        assert_eq!(doc.tests[1].status, Status::Pass);
        assert_eq!(doc.tests.len(), 2);
    }

    #[test]
    fn missing_top_level_plan_fails() {
        let doc = parse_str("KTAP version 1\nok 1 a\nok 2 b\n");
        assert_eq!(doc.tests.len(), 3);
        assert_eq!(doc.tests[2].name, "ktap");
        assert_eq!(doc.tests[2].status, Status::Fail);
        assert!(doc.errors.iter().any(|e| e.contains("missing plan")));
        assert_eq!(doc.counts().failed, 1);
    }

    #[test]
    fn missing_plan_in_a_module_fails() {
        let text = "\
KTAP version 1
1..1
    KTAP version 1
    # Subtest: rust_minimal
    ok 1 load
ok 1 rust_minimal
";
        let doc = parse_str(text);
        let t = &doc.tests[0];
        assert_eq!(t.status, Status::Fail);
        assert!(t.errors.iter().any(|e| e.contains("missing plan")));
        assert_eq!(doc.counts().failed, 1);
    }

    #[test]
    fn kunit_parameterised_tests_need_no_plan() {
        let text = "\
KTAP version 1
1..1
    KTAP version 1
    # Subtest: suite
    1..1
        KTAP version 1
        # Subtest: param_test
        ok 1 param-0
        ok 2 param-1
    # param_test: pass:2 fail:0 skip:0 total:2
    ok 1 param_test
ok 1 suite
";
        let doc = parse_str(text);
        assert!(doc.errors.is_empty(), "{:?}", doc.errors);
        assert_eq!(doc.tests[0].status, Status::Pass, "{:#?}", doc.tests[0]);
        let leaves: Vec<_> = doc.tests[0].leaves().into_iter().map(|(p, _)| p).collect();
        assert_eq!(leaves, ["param_test / param-0", "param_test / param-1"]);
    }

    #[test]
    fn ok_suite_with_failed_subtest_fails() {
        let text = "\
KTAP version 1
1..1
    KTAP version 1
    # Subtest: s
    1..2
    ok 1 a
    not ok 2 b
ok 1 s
";
        let doc = parse_str(text);
        assert_eq!(doc.tests[0].status, Status::Fail);
        assert!(doc.tests[0].errors[0].contains("subtest 'b' failed"));
        assert_eq!(doc.counts().failed, 1);
    }

    #[test]
    fn wrong_numbers_fail() {
        let doc = parse_str("KTAP version 1\n1..2\nok 1 a\nok 3 b\n");
        assert_eq!(doc.tests[1].status, Status::Fail);
        assert!(doc.tests[1].errors[0].contains("numbered 3, but 2 was expected"));
    }

    #[test]
    fn more_results_than_planned_fail() {
        let doc = parse_str("KTAP version 1\n1..1\nok 1 a\nok 2 b\n");
        assert!(doc.errors.iter().any(|e| e.contains("2 results")));
        assert_eq!(doc.tests.last().map(|t| t.status), Some(Status::Fail));
    }

    #[test]
    fn empty_and_unstarted_streams() {
        let doc = parse_str("");
        assert!(!doc.started);
        assert!(doc.tests.is_empty());
        let doc = parse_str("some noise\nok 1 not ktap yet\n");
        assert!(!doc.started);
        let doc = parse_str("KTAP version 1\n");
        assert!(doc.started);
        assert_eq!(doc.counts().failed, 1);
        let doc = parse_str("KTAP version 1\n1..0\n");
        assert!(doc.errors.is_empty());
        assert_eq!(doc.counts(), Counts::default());
    }

    #[test]
    fn second_version_line_at_top_level_fails() {
        let doc = parse_str("KTAP version 1\n1..1\nok 1 a\nKTAP version 1\n");
        assert!(doc
            .errors
            .iter()
            .any(|e| e.contains("unexpected `KTAP version`")));
        assert_eq!(doc.counts().failed, 1);
    }

    #[test]
    fn header_name_mismatch_is_noted() {
        let text = "\
KTAP version 1
1..1
    KTAP version 1
    # Subtest: rust_doctests_kernel
    1..1
    ok 1 t
ok 1 kunit_rust_doctests
";
        let doc = parse_str(text);
        assert_eq!(doc.tests[0].status, Status::Pass);
        assert!(doc.tests[0].diagnostics[0].contains("rust_doctests_kernel"));
    }

    #[test]
    fn line_classification() {
        assert!(is_version_line("KTAP version 1"));
        assert!(is_version_line("    TAP version 13 "));
        assert!(!is_version_line("KTAP version"));
        assert!(!is_version_line("KTAP version 1x"));
        assert_eq!(classify("    1..114").1, KtapLine::Plan(114));
        assert_eq!(classify("1..").1, KtapLine::Diagnostic("1..".into()));
        assert_eq!(
            classify("okay 1 x").1,
            KtapLine::Diagnostic("okay 1 x".into())
        );
        assert_eq!(classify("ok x").1, KtapLine::Diagnostic("ok x".into()));
        assert_eq!(
            classify("#no space").1,
            KtapLine::Diagnostic("no space".into())
        );
        match classify("  not ok 12 - a b c # TODO later").1 {
            KtapLine::Result(r) => {
                assert!(!r.ok);
                assert_eq!(r.number, 12);
                assert_eq!(r.name, "a b c");
                assert_eq!(r.directive, Some(Directive::Todo("later".into())));
            }
            other => panic!("{other:?}"),
        }
        match classify("ok 7").1 {
            KtapLine::Result(r) => assert_eq!(r.name, "test 7"),
            other => panic!("{other:?}"),
        }
        assert_eq!(classify("   ").1, KtapLine::Blank);
        assert_eq!(split_indent("    x"), (4, "x"));
    }

    #[test]
    fn leaves_and_counts_of_a_failing_suite_with_passing_leaves() {
        let mut node = parse_str(PROTOCOL_EXAMPLE).tests[1].clone();
        assert_eq!(node.counts().passed, 2);
        node.fail("kernel WARNING");
        assert!(node.fails_on_its_own());
        assert_eq!(
            node.counts(),
            Counts {
                passed: 2,
                failed: 1,
                skipped: 0
            }
        );
        assert_eq!(node.leaves().len(), 2);
        assert!(node.subtest("CONFIG_RUST=y").is_some());
    }

    #[test]
    fn serde_round_trip() {
        let doc = parse_str(PROTOCOL_EXAMPLE);
        let json = serde_json::to_string(&doc.tests).expect("serialize");
        let back: Vec<TestNode> = serde_json::from_str(&json).expect("deserialize");
        assert_eq!(back, doc.tests);
        assert!(json.contains("\"status\":\"fail\""));
    }
}
