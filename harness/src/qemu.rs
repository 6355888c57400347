//! QEMU runner: starts QEMU in its own process group, streams the serial
//! console (QEMU's stdout) to `console.log` and to a [`Session`], and enforces
//! the boot and test timeouts of docs/test-protocol.md.

use std::fs::File;
use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStderr, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread;
use std::time::{Duration, Instant};

use crate::error::HarnessError;
use crate::session::{Session, SessionEvent, SessionOutcome};

/// Longest console line kept whole; longer ones are split.
const MAX_LINE: usize = 64 * 1024;
/// QEMU's stderr kept for error messages (its end).
const STDERR_KEPT: usize = 16 * 1024;
/// How often the child is checked while the console is quiet.
const POLL: Duration = Duration::from_millis(100);
/// How long the console may stay open once QEMU itself has exited.
const DRAIN: Duration = Duration::from_secs(1);

/// A QEMU command line, run in the images directory as start-qemu.sh does.
#[derive(Debug, Clone, PartialEq)]
pub struct QemuCommand {
    pub program: PathBuf,
    pub args: Vec<String>,
    pub cwd: PathBuf,
}

impl QemuCommand {
    /// Program and arguments.
    pub fn argv(&self) -> Vec<String> {
        let mut argv = vec![self.program.display().to_string()];
        argv.extend(self.args.iter().cloned());
        argv
    }

    /// The command as a shell line, for people to copy.
    pub fn shell_line(&self) -> String {
        let words: Vec<String> = self.argv().iter().map(|w| shell_quote(w)).collect();
        format!(
            "cd {} && {}",
            shell_quote(&self.cwd.display().to_string()),
            words.join(" ")
        )
    }
}

/// Quotes a word for a POSIX shell when it needs it.
pub fn shell_quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=,:+@%".contains(&b));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

fn is_executable(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Finds `name` in `dir` if given, else in `PATH`.
pub fn find_program(name: &str, dir: Option<&Path>) -> Option<PathBuf> {
    if let Some(dir) = dir {
        let path = dir.join(name);
        return is_executable(&path).then_some(path);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| is_executable(p))
}

/// First line of `program --version` (None if it fails or takes over 10 s).
pub fn qemu_version(program: &Path) -> Option<String> {
    let mut child = Command::new(program)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => break,
            Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(10)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
    let mut out = String::new();
    child.stdout.take()?.read_to_string(&mut out).ok()?;
    out.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(str::to_string)
}

/// The timeouts of one boot, already scaled by the multiplier.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Timeouts {
    /// QEMU start → first `KTAP version 1`.
    pub boot: Duration,
    /// First `KTAP version 1` → end sentinel.
    pub test: Duration,
    /// After the sentinel (or a panic): how long QEMU may take to exit.
    pub grace: Duration,
}

/// How the QEMU run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunEnd {
    /// The console closed (QEMU exited).
    Exited,
    /// No `KTAP version 1` before the boot timeout.
    BootTimeout,
    /// No end sentinel before the test timeout.
    TestTimeout,
    /// After the sentinel or a panic QEMU did not exit within the grace
    /// period and was killed.
    KilledAfterGrace,
}

/// Everything one QEMU run produced.
#[derive(Debug)]
pub struct QemuRun {
    pub end: RunEnd,
    pub outcome: SessionOutcome,
    /// QEMU's exit code (None if killed by a signal).
    pub exit_code: Option<i32>,
    pub stderr: String,
    /// QEMU start → first `KTAP version 1`.
    pub boot_duration: Option<Duration>,
    /// First `KTAP version 1` → sentinel (or → timeout).
    pub test_duration: Option<Duration>,
    /// The test running when the test timeout hit.
    pub running_at_timeout: Option<String>,
    /// A problem writing or reading the console.
    pub console_error: Option<String>,
}

enum ReaderMsg {
    Line(Vec<u8>),
    Failed(String),
    Eof,
}

/// Copies QEMU's stdout to `log` as it arrives and sends it on line by line.
fn read_console(mut out: ChildStdout, mut log: File, tx: Sender<ReaderMsg>) {
    let mut buf = [0u8; 8192];
    let mut pending: Vec<u8> = Vec::new();
    let mut logging = true;
    loop {
        let n = match out.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                let _ = tx.send(ReaderMsg::Failed(format!("cannot read QEMU's output: {e}")));
                break;
            }
        };
        let chunk = &buf[..n];
        if logging {
            if let Err(e) = log.write_all(chunk).and_then(|()| log.flush()) {
                logging = false;
                let _ = tx.send(ReaderMsg::Failed(format!("cannot write console.log: {e}")));
            }
        }
        for &byte in chunk {
            if byte == b'\n' {
                let _ = tx.send(ReaderMsg::Line(std::mem::take(&mut pending)));
            } else {
                pending.push(byte);
                if pending.len() >= MAX_LINE {
                    let _ = tx.send(ReaderMsg::Line(std::mem::take(&mut pending)));
                }
            }
        }
    }
    if !pending.is_empty() {
        let _ = tx.send(ReaderMsg::Line(pending));
    }
    let _ = tx.send(ReaderMsg::Eof);
}

/// Collects the end of QEMU's stderr.
fn read_stderr(mut err: ChildStderr, tx: Sender<String>) {
    let mut kept: Vec<u8> = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match err.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                kept.extend_from_slice(&buf[..n]);
                if kept.len() > STDERR_KEPT {
                    kept.drain(..kept.len() - STDERR_KEPT);
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    let _ = tx.send(String::from_utf8_lossy(&kept).trim().to_string());
}

/// Kills the child's whole process group (QEMU and anything it started).
pub(crate) fn kill_group(child: &Child) {
    if let Ok(pgid) = libc::pid_t::try_from(child.id()) {
        if pgid > 0 {
            // SAFETY: kill(2) with a negative pid signals the process group
            // that `process_group(0)` made for the child; it touches no memory.
            unsafe {
                libc::kill(-pgid, libc::SIGKILL);
            }
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Boot,
    Tests,
    /// Sentinel seen: waiting for QEMU to exit.
    Ending,
    /// Panic seen: waiting for QEMU to exit.
    Dying,
}

struct Loop<'a, F: FnMut(&Session, &SessionEvent)> {
    session: Session,
    on_event: &'a mut F,
    phase: Phase,
    deadline: Instant,
    timeouts: Timeouts,
    started: Instant,
    ktap_at: Option<Instant>,
    sentinel_at: Option<Instant>,
    console_error: Option<String>,
    eof: bool,
}

impl<F: FnMut(&Session, &SessionEvent)> Loop<'_, F> {
    fn handle(&mut self, msg: ReaderMsg) {
        match msg {
            ReaderMsg::Line(line) => {
                let now = Instant::now();
                for event in self.session.push_raw(&line) {
                    match event {
                        SessionEvent::TestsStarted => {
                            self.phase = Phase::Tests;
                            self.ktap_at = Some(now);
                            self.deadline = now + self.timeouts.test;
                        }
                        SessionEvent::Sentinel(_) => {
                            self.phase = Phase::Ending;
                            self.sentinel_at = Some(now);
                            self.deadline = now + self.timeouts.grace;
                        }
                        SessionEvent::Panic(_) if self.phase != Phase::Ending => {
                            self.phase = Phase::Dying;
                            self.deadline = now + self.timeouts.grace;
                        }
                        _ => {}
                    }
                    (self.on_event)(&self.session, &event);
                }
            }
            ReaderMsg::Failed(message) => {
                if self.console_error.is_none() {
                    self.console_error = Some(message);
                }
            }
            ReaderMsg::Eof => self.eof = true,
        }
    }

    fn drain_ready(&mut self, rx: &Receiver<ReaderMsg>) {
        while let Ok(msg) = rx.try_recv() {
            self.handle(msg);
        }
    }

    /// The console until it ends, QEMU has exited and its output drained,
    /// or a deadline (boot, test, grace) passes.
    fn pump(&mut self, child: &mut Child, rx: &Receiver<ReaderMsg>) -> Pumped {
        let mut exited: Option<ExitStatus> = None;
        let mut drain_until: Option<Instant> = None;
        while !self.eof {
            let now = Instant::now();
            if now >= self.deadline {
                self.drain_ready(rx);
                if self.eof || Instant::now() < self.deadline {
                    continue;
                }
                return Pumped {
                    exited,
                    timed_out: Some(self.phase),
                };
            }
            if drain_until.is_some_and(|t| now >= t) {
                break;
            }
            let mut wait = (self.deadline - now).min(POLL);
            if let Some(t) = drain_until {
                wait = wait.min(t.saturating_duration_since(now));
            }
            match rx.recv_timeout(wait) {
                Ok(msg) => self.handle(msg),
                Err(RecvTimeoutError::Timeout) => {
                    if exited.is_none() {
                        if let Ok(Some(status)) = child.try_wait() {
                            exited = Some(status);
                            drain_until = Some(Instant::now() + DRAIN);
                        }
                    }
                }
                Err(RecvTimeoutError::Disconnected) => break,
            }
        }
        Pumped {
            exited,
            timed_out: None,
        }
    }

    /// What the console printed before QEMU was killed still counts.
    fn drain_rest(&mut self, rx: &Receiver<ReaderMsg>, within: Duration) {
        let deadline = Instant::now() + within;
        while !self.eof {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok(msg) => self.handle(msg),
                Err(_) => break,
            }
        }
    }
}

/// How the console loop ended.
struct Pumped {
    exited: Option<ExitStatus>,
    /// The phase whose deadline passed.
    timed_out: Option<Phase>,
}

impl Pumped {
    fn end(&self) -> RunEnd {
        match self.timed_out {
            Some(Phase::Boot) => RunEnd::BootTimeout,
            Some(Phase::Tests) => RunEnd::TestTimeout,
            Some(Phase::Ending | Phase::Dying) => RunEnd::KilledAfterGrace,
            None => RunEnd::Exited,
        }
    }
}

/// Starts the command in a process group of its own; its console goes to
/// `log` and, line by line, to the first receiver; its stderr's end to the
/// second.
fn spawn(
    command: &QemuCommand,
    log: File,
) -> Result<(Child, Receiver<ReaderMsg>, Receiver<String>), HarnessError> {
    let mut child = crate::interrupt::own_group(&mut Command::new(&command.program))
        .args(&command.args)
        .current_dir(&command.cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|source| HarnessError::Spawn {
            program: command.program.display().to_string(),
            source,
        })?;
    let (tx, rx) = mpsc::channel();
    let (err_tx, err_rx) = mpsc::channel();
    if let Some(out) = child.stdout.take() {
        thread::spawn(move || read_console(out, log, tx));
    }
    if let Some(err) = child.stderr.take() {
        thread::spawn(move || read_stderr(err, err_tx));
    }
    Ok((child, rx, err_rx))
}

/// QEMU closes its console when it exits: unless it timed out or exited,
/// give it the grace period to do so, then kill its process group (which
/// also ends anything it left). Returns its exit status.
fn shut_down(child: &mut Child, pumped: &Pumped, grace: Duration) -> Option<ExitStatus> {
    let mut exited = pumped.exited;
    if exited.is_none() && pumped.timed_out.is_none() {
        let deadline = Instant::now() + grace;
        while Instant::now() < deadline {
            match child.try_wait() {
                Ok(Some(status)) => {
                    exited = Some(status);
                    break;
                }
                Ok(None) => thread::sleep(Duration::from_millis(10)),
                Err(_) => break,
            }
        }
    }
    kill_group(child);
    exited.or_else(|| child.wait().ok())
}

/// Runs QEMU: streams its console to `console_path` and `session`, calling
/// `on_event` for each session event as it happens.
pub fn run<F>(
    command: &QemuCommand,
    timeouts: Timeouts,
    console_path: &Path,
    session: Session,
    mut on_event: F,
) -> Result<QemuRun, HarnessError>
where
    F: FnMut(&Session, &SessionEvent),
{
    let log = crate::fsx::create(console_path)?;
    let started = Instant::now();
    let (mut child, rx, err_rx) = spawn(command, log)?;
    let _group = crate::interrupt::register(child.id(), crate::interrupt::Stop::Kill);
    let mut state = Loop {
        session,
        on_event: &mut on_event,
        phase: Phase::Boot,
        deadline: started + timeouts.boot,
        timeouts,
        started,
        ktap_at: None,
        sentinel_at: None,
        console_error: None,
        eof: false,
    };
    let pumped = state.pump(&mut child, &rx);
    let ended = Instant::now();
    let running = state.session.running();
    let status = shut_down(&mut child, &pumped, timeouts.grace);
    state.drain_rest(&rx, Duration::from_secs(2));
    let stderr = err_rx
        .recv_timeout(Duration::from_secs(2))
        .unwrap_or_default();

    let end = pumped.end();
    let boot_duration = state.ktap_at.map(|t| t - state.started);
    let test_duration = match (state.ktap_at, state.sentinel_at) {
        (Some(start), Some(end)) => Some(end - start),
        (Some(start), None) => Some(ended - start),
        _ => None,
    };
    let console_error = state.console_error.take();
    Ok(QemuRun {
        end,
        outcome: state.session.finish(),
        exit_code: status.and_then(|s| s.code()),
        stderr,
        boot_duration,
        test_duration,
        running_at_timeout: running.filter(|_| end == RunEnd::TestTimeout),
        console_error,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting() {
        assert_eq!(shell_quote("-drive"), "-drive");
        assert_eq!(
            shell_quote("file=rootfs.ext4,if=virtio"),
            "file=rootfs.ext4,if=virtio"
        );
        assert_eq!(shell_quote("root=/dev/vda rw"), "'root=/dev/vda rw'");
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
        assert_eq!(shell_quote(""), "''");
    }

    #[test]
    fn shell_line() {
        let cmd = QemuCommand {
            program: PathBuf::from("/usr/bin/qemu-system-x86_64"),
            args: vec!["-append".into(), "a b".into()],
            cwd: PathBuf::from("/o/images"),
        };
        assert_eq!(
            cmd.shell_line(),
            "cd /o/images && /usr/bin/qemu-system-x86_64 -append 'a b'"
        );
    }

    #[test]
    fn finds_programs() {
        assert!(find_program("sh", None).is_some());
        assert!(find_program("surely-no-such-program-here", None).is_none());
        assert_eq!(
            find_program("sh", Some(Path::new("/bin"))),
            Some(PathBuf::from("/bin/sh"))
        );
        assert!(find_program("sh", Some(Path::new("/nonexistent"))).is_none());
    }
}
