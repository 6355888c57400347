//! Console scanner: turns raw serial console lines into normalised text
//! (docs/test-protocol.md, "Console stream"), picks out the runner's lines
//! and recognises kernel problem reports.

use std::sync::LazyLock;

/// Prefix of every line that the on-target runner and the init script write
/// to `/dev/kmsg`.
pub const RESULT_PREFIX: &str = "rust-tests: ";

/// One console line, normalised.
#[derive(Debug, Clone, PartialEq)]
pub struct ConsoleLine {
    /// 1-based line number in `console.log`.
    pub number: usize,
    /// The line with `\r` dropped and the printk timestamp removed.
    pub text: String,
    /// The printk timestamp (seconds since boot), when the line had one.
    pub timestamp: Option<f64>,
}

impl ConsoleLine {
    /// Normalises raw console bytes (without the `\n`).
    pub fn new(number: usize, raw: &[u8]) -> ConsoleLine {
        let bytes: Vec<u8> = raw.iter().copied().filter(|&b| b != b'\r').collect();
        let line = String::from_utf8_lossy(&bytes);
        let (timestamp, text) = strip_timestamp(&line);
        ConsoleLine {
            number,
            text: text.to_string(),
            timestamp,
        }
    }

    /// The runner's KTAP line carried by this console line, without the
    /// `rust-tests: ` prefix (indentation kept).
    pub fn result_payload(&self) -> Option<&str> {
        if let Some(payload) = self.text.strip_prefix(RESULT_PREFIX) {
            return Some(payload);
        }
        if self.text == RESULT_PREFIX.trim_end() {
            return Some("");
        }
        // A kernel record that began in the middle of a line, after console
        // output that had no newline yet (e.g. `Starting foo: ` from an init
        // script): `...[    3.14] rust-tests: ok 1 load`.
        let marker = format!("] {RESULT_PREFIX}");
        let at = self.text.find(&marker)?;
        let open = self.text[..at].rfind('[')?;
        let stamp = &self.text[open..at + 2];
        let (ts, rest) = strip_timestamp(stamp);
        if ts.is_some() && rest.is_empty() {
            Some(&self.text[at + marker.len()..])
        } else {
            None
        }
    }
}

/// Splits off a printk timestamp prefix `[ *[0-9]+\.[0-9]+\] ` (and a
/// following printk caller id such as `[    T1] `, printed with
/// CONFIG_PRINTK_CALLER).
pub fn strip_timestamp(line: &str) -> (Option<f64>, &str) {
    let Some((stamp, rest)) = bracketed(line) else {
        return (None, line);
    };
    let stamp = stamp.trim_start_matches(' ');
    let Some((secs, frac)) = stamp.split_once('.') else {
        return (None, line);
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(secs) || !digits(frac) {
        return (None, line);
    }
    let timestamp = stamp.parse::<f64>().ok();
    // Optional caller id, right after the timestamp.
    let rest = match bracketed(rest) {
        Some((caller, after)) if is_caller_id(caller) => after,
        _ => rest,
    };
    let rest = match rest.strip_prefix(' ') {
        Some(rest) => rest,
        None if rest.is_empty() => rest,
        None => return (None, line),
    };
    (timestamp, rest)
}

/// A printk caller id (`T<pid>` or `C<cpu>`, right-aligned).
fn is_caller_id(text: &str) -> bool {
    let id = text.trim_start_matches(' ');
    let mut chars = id.chars();
    matches!(chars.next(), Some('T' | 'C')) && id.len() > 1 && chars.all(|c| c.is_ascii_digit())
}

/// `[inside]rest` → `(inside, rest)`.
fn bracketed(line: &str) -> Option<(&str, &str)> {
    let inner = line.strip_prefix('[')?;
    let close = inner.find(']')?;
    Some((&inner[..close], &inner[close + 1..]))
}

/// A kind of kernel problem report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ProblemKind {
    Panic,
    Oops,
    Bug,
    Lockdep,
    Warning,
    /// RCU stalls, soft lockups, hung tasks.
    Stall,
    /// kmemleak's `N new suspected memory leaks` (its periodic scan).
    Leak,
    /// `Call Trace:` without a report head near it (e.g. `dump_stack()`).
    CallTrace,
    /// A lockdep `=====` banner.
    Banner,
}

impl ProblemKind {
    /// The kind's name in `kernel-problems`.
    fn from_name(name: &str) -> Option<ProblemKind> {
        Some(match name {
            "panic" => ProblemKind::Panic,
            "oops" => ProblemKind::Oops,
            "bug" => ProblemKind::Bug,
            "lockdep" => ProblemKind::Lockdep,
            "warning" => ProblemKind::Warning,
            "stall" => ProblemKind::Stall,
            "leak" => ProblemKind::Leak,
            "call-trace" => ProblemKind::CallTrace,
            _ => return None,
        })
    }

    /// Heads of reports; `Call Trace:` and banners only accompany them.
    pub fn is_primary(self) -> bool {
        !matches!(self, ProblemKind::CallTrace | ProblemKind::Banner)
    }

    pub fn label(self) -> &'static str {
        match self {
            ProblemKind::Panic => "kernel panic",
            ProblemKind::Oops => "kernel Oops",
            ProblemKind::Bug => "kernel BUG",
            ProblemKind::Lockdep => "lockdep report",
            ProblemKind::Warning => "kernel WARNING",
            ProblemKind::Stall => "kernel stall report",
            ProblemKind::Leak => "kmemleak report",
            ProblemKind::CallTrace => "kernel call trace",
            ProblemKind::Banner => "kernel report banner",
        }
    }
}

/// The kernel-problem patterns, the same data the on-target runner is
/// built with (`<kind> <pattern>` lines, first match wins; `^` anchors a
/// pattern at the start of the line).
const PROBLEMS: &str = include_str!("../../package/rust-tests/src/kernel-problems");

#[derive(Debug)]
struct Pattern {
    kind: ProblemKind,
    text: &'static str,
    at_start: bool,
}

impl Pattern {
    fn matches(&self, text: &str) -> bool {
        if self.at_start {
            text.trim_start().starts_with(self.text)
        } else {
            text.contains(self.text)
        }
    }
}

/// `kernel-problems` read: the patterns in order, or the first bad line.
fn parse_patterns(data: &'static str) -> Result<Vec<Pattern>, String> {
    let lines = data.lines().enumerate();
    let lines = lines.filter(|(_, l)| !l.starts_with('#') && !l.trim().is_empty());
    lines
        .map(|(n, line)| {
            let bad = || format!("kernel-problems:{}: not '<kind> <pattern>': {line}", n + 1);
            let (name, pattern) = line.split_once(char::is_whitespace).ok_or_else(bad)?;
            let kind = ProblemKind::from_name(name).ok_or_else(bad)?;
            let pattern = pattern.trim();
            let (text, at_start) = match pattern.strip_prefix('^') {
                Some(rest) => (rest, true),
                None => (pattern, false),
            };
            Ok(Pattern {
                kind,
                text,
                at_start,
            })
        })
        .collect()
}

fn patterns() -> &'static [Pattern] {
    static PATTERNS: LazyLock<Vec<Pattern>> = LazyLock::new(|| {
        parse_patterns(PROBLEMS).expect("kernel-problems is valid (its unit test)")
    });
    &PATTERNS
}

/// Recognises a kernel problem report line. `text` is the normalised line;
/// `kernel_record` tells whether it had a printk timestamp (a lockdep
/// banner only counts then, to leave userspace `=====` lines alone).
pub fn classify(text: &str, kernel_record: bool) -> Option<ProblemKind> {
    if let Some(pattern) = patterns().iter().find(|p| p.matches(text)) {
        return Some(pattern.kind);
    }
    let trimmed = text.trim();
    if kernel_record && trimmed.len() >= 8 && trimmed.bytes().all(|b| b == b'=') {
        return Some(ProblemKind::Banner);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalises_cr_and_timestamps() {
        let line = ConsoleLine::new(7, b"[    1.234567] rust-tests: KTAP version 1\r");
        assert_eq!(line.number, 7);
        assert_eq!(line.text, "rust-tests: KTAP version 1");
        assert_eq!(line.timestamp, Some(1.234567));
        assert_eq!(line.result_payload(), Some("KTAP version 1"));

        let line = ConsoleLine::new(1, b"[12345.000001] rust-tests:     ok 1 load");
        assert_eq!(line.result_payload(), Some("    ok 1 load"));
        assert_eq!(line.timestamp, Some(12345.000001));

        let line = ConsoleLine::new(1, b"rust-tests: 1..3");
        assert_eq!(line.timestamp, None);
        assert_eq!(line.result_payload(), Some("1..3"));
    }

    #[test]
    fn keeps_lines_that_only_look_like_timestamps() {
        assert_eq!(strip_timestamp("[ok] x"), (None, "[ok] x"));
        assert_eq!(strip_timestamp("[1.] x"), (None, "[1.] x"));
        assert_eq!(strip_timestamp("[ 1.5]x"), (None, "[ 1.5]x"));
        assert_eq!(strip_timestamp("[    0.000000]"), (Some(0.0), ""));
        assert_eq!(strip_timestamp("no stamp"), (None, "no stamp"));
    }

    #[test]
    fn strips_printk_caller_id() {
        assert_eq!(
            strip_timestamp("[    2.500000][    T1] rust-tests: 1..2"),
            (Some(2.5), "rust-tests: 1..2")
        );
        assert_eq!(
            strip_timestamp("[    2.500000][     C0] hello"),
            (Some(2.5), "hello")
        );
        assert_eq!(
            strip_timestamp("[    2.500000] [x] keep"),
            (Some(2.5), "[x] keep")
        );
    }

    #[test]
    fn other_lines_are_not_results() {
        for raw in [
            "[    1.0] rust_minimal: Rust minimal sample (init)",
            "rust-tests:no space",
            "    rust-tests: indented",
            "echo rust-tests: ok 1 fake",
        ] {
            assert_eq!(
                ConsoleLine::new(1, raw.as_bytes()).result_payload(),
                None,
                "{raw}"
            );
        }
        assert_eq!(
            ConsoleLine::new(1, b"rust-tests:").result_payload(),
            Some("")
        );
    }

    #[test]
    fn finds_a_record_that_began_mid_line() {
        let line = ConsoleLine::new(1, b"Starting network: [    3.140000] rust-tests: ok 1 load");
        assert_eq!(line.result_payload(), Some("ok 1 load"));
        let line = ConsoleLine::new(1, b"x [not a stamp] rust-tests: ok 1 load");
        assert_eq!(line.result_payload(), None);
    }

    #[test]
    fn classifies_kernel_reports() {
        use ProblemKind::*;
        let cases: &[(&str, Option<ProblemKind>)] = &[
            ("Kernel panic - not syncing: Attempted to kill init! exitcode=0x0000000b", Some(Panic)),
            ("---[ end Kernel panic - not syncing: Fatal exception ]---", Some(Panic)),
            ("Oops: general protection fault, probably for non-canonical address", Some(Oops)),
            ("Oops: 0002 [#1] PREEMPT SMP NOPTI", Some(Oops)),
            ("Oops - load access fault [#1]", Some(Oops)),
            ("Unable to handle kernel NULL pointer dereference at virtual address 0000000000000000", Some(Oops)),
            ("BUG: kernel NULL pointer dereference, address: 0000000000000000", Some(Bug)),
            ("kernel BUG at rust/helpers/bug.c:7!", Some(Bug)),
            ("Kernel BUG [#1]", Some(Bug)),
            ("rust_kernel: panicked at samples/rust/rust_minimal.rs:30:9:", Some(Bug)),
            ("BUG: sleeping function called from invalid context at kernel/locking/mutex.c:580", Some(Bug)),
            ("UBSAN: array-index-out-of-bounds in lib/foo.c:12:3", Some(Bug)),
            ("WARNING: CPU: 0 PID: 1 at samples/rust/rust_print.rs:10 init+0x1/0x2", Some(Warning)),
            ("WARNING: possible recursive locking detected", Some(Lockdep)),
            ("WARNING: possible circular locking dependency detected", Some(Lockdep)),
            ("INFO: possible circular locking dependency detected", Some(Lockdep)),
            ("WARNING: inconsistent lock state", Some(Lockdep)),
            ("WARNING: suspicious RCU usage", Some(Lockdep)),
            ("rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:", Some(Stall)),
            ("INFO: task insmod:80 blocked for more than 120 seconds.", Some(Stall)),
            ("watchdog: BUG: soft lockup - CPU#0 stuck for 22s!", Some(Bug)),
            ("Call Trace:", Some(CallTrace)),
            ("kmemleak: 2 new suspected memory leaks (see /sys/kernel/debug/kmemleak)", Some(Leak)),
            ("kmemleak: Automatic memory scanning thread ended", None),
            ("list_del corruption. next->prev should be ffff888003c1a0e8", Some(Bug)),
            ("refcount_t: underflow; use-after-free.", Some(Warning)),
            ("  Oops[#1] SMP", Some(Oops)),
            ("rust_oops: Oops[#1] is a name here", None),
            (" <TASK>", None),
            ("rust_minimal: Rust minimal sample (init)", None),
            ("Run /sbin/init as init process", None),
            ("Kernel command line: root=/dev/vda rw rootwait console=ttyS0 rusttest panic=-1", None),
            ("Booting the kernel.", None),
        ];
        for (text, kind) in cases {
            assert_eq!(classify(text, true), *kind, "{text}");
        }
    }

    #[test]
    fn the_shared_patterns_parse() {
        let patterns = parse_patterns(PROBLEMS).expect("parses");
        assert!(patterns.len() > 20);
        assert!(patterns.iter().any(|p| p.at_start && p.text == "Oops"));
        let bad = parse_patterns("nosuchkind some text").expect_err("refused");
        assert!(bad.contains("kernel-problems:1:"), "{bad}");
        assert!(parse_patterns("bug").is_err());
    }

    #[test]
    fn banners_only_from_kernel_records() {
        let banner = "============================================";
        assert_eq!(classify(banner, true), Some(ProblemKind::Banner));
        assert_eq!(classify(banner, false), None);
        assert_eq!(classify("====", true), None);
        assert!(!ProblemKind::Banner.is_primary());
        assert!(ProblemKind::Warning.is_primary());
    }
}
