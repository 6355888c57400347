//! Dialogues with a console (make check's interactive checks): a command
//! started in a process group of its own, lines typed when its output
//! says so, and a verdict on how it ended. `shell` is the README's promise
//! (images/start-qemu.sh boots to a root shell that answers, `poweroff`
//! there ends QEMU with exit 0); `menuconfig` leaves a configuration menu
//! with Escape until it ends.

use std::io::{Read, Write};
use std::process::{ChildStdin, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use crate::error::HarnessError;

/// When a cue types, or when it is done.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expect {
    /// At once.
    Now,
    /// The output so far ends with this (a prompt).
    EndsWith(&'static str),
    /// A line of the output starts with this.
    Line(&'static str),
    /// The command has exited.
    Exit,
}

/// Something to type, and when.
#[derive(Debug, Clone)]
pub struct Cue {
    /// First typed once this holds.
    pub when: Expect,
    pub text: &'static str,
    /// Typed again every this long until `until` holds (None: once).
    pub again: Option<Duration>,
    /// The cue is done once this holds.
    pub until: Expect,
    /// How long the cue may take, from the end of the one before.
    pub limit: Duration,
}

/// A dialogue: its cues in order, and what the whole output must contain.
#[derive(Debug, Clone)]
pub struct Script {
    pub cues: Vec<Cue>,
    pub must_contain: &'static str,
}

impl Script {
    /// start-qemu.sh to a shell that answers, then `poweroff`. The line is
    /// first typed once the prompt ends the console (input before it can
    /// stall an ARM PL011 for good), then every second until the shell
    /// answers (its output, not the echo of the line typed).
    pub fn shell() -> Script {
        Script {
            cues: vec![
                Cue {
                    when: Expect::EndsWith("# "),
                    text: "echo $((6 * 7))answer\n",
                    again: Some(Duration::from_secs(1)),
                    until: Expect::Line("42answer"),
                    limit: Duration::from_secs(300),
                },
                Cue {
                    when: Expect::Now,
                    text: "poweroff\n",
                    again: None,
                    until: Expect::Exit,
                    limit: Duration::from_secs(120),
                },
            ],
            must_contain: "42answer",
        }
    }

    /// A configuration menu left with Escape twice, every 2 s, until it
    /// ends (nothing changed, nothing saved).
    pub fn menuconfig() -> Script {
        Script {
            cues: vec![Cue {
                when: Expect::Now,
                text: "\x1b\x1b",
                again: Some(Duration::from_secs(2)),
                until: Expect::Exit,
                limit: Duration::from_secs(600),
            }],
            must_contain: "End of the configuration",
        }
    }
}

/// What the dialogue does next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    Type(&'static str),
    /// Nothing until this much time has passed (or output came).
    Wait(Duration),
    /// Every cue is done.
    Done,
    /// A cue's limit passed, or the program ended before a cue was done: why.
    Failed(String),
}

/// The state of a dialogue: which cue, and when it last typed.
#[derive(Debug)]
pub struct Dialogue {
    script: Script,
    cue: usize,
    cue_start: Instant,
    typed_at: Option<Instant>,
}

fn holds(expect: &Expect, output: &[u8], exited: bool) -> bool {
    match expect {
        Expect::Now => true,
        Expect::EndsWith(tail) => output.ends_with(tail.as_bytes()),
        Expect::Line(start) => output
            .split(|&b| b == b'\n')
            .any(|line| line.trim_ascii_start().starts_with(start.as_bytes())),
        Expect::Exit => exited,
    }
}

/// How often the driver looks when a cue has nothing to type.
const POLL: Duration = Duration::from_millis(200);

impl Dialogue {
    pub fn new(script: Script, now: Instant) -> Dialogue {
        Dialogue {
            script,
            cue: 0,
            cue_start: now,
            typed_at: None,
        }
    }

    /// The next action, given the output so far and whether the command
    /// has exited.
    pub fn next(&mut self, output: &[u8], exited: bool, now: Instant) -> Action {
        loop {
            let Some(cue) = self.script.cues.get(self.cue) else {
                return Action::Done;
            };
            if self.typed_at.is_some() && holds(&cue.until, output, exited) {
                self.cue += 1;
                self.cue_start = now;
                self.typed_at = None;
                continue;
            }
            if now >= self.cue_start + cue.limit {
                return Action::Failed(format!(
                    "{:?} not done after {} s (typing {:?})",
                    cue.until,
                    cue.limit.as_secs(),
                    cue.text
                ));
            }
            if exited {
                return Action::Failed(format!("the program ended before {:?}", cue.until));
            }
            return match self.typed_at {
                None if holds(&cue.when, output, exited) => {
                    self.typed_at = Some(now);
                    Action::Type(cue.text)
                }
                None => Action::Wait(POLL),
                Some(at) => match cue.again {
                    Some(every) if now >= at + every => {
                        self.typed_at = Some(now);
                        Action::Type(cue.text)
                    }
                    Some(every) => Action::Wait((at + every - now).min(POLL)),
                    None => Action::Wait(POLL),
                },
            };
        }
    }

    /// What the whole output must contain.
    pub fn must_contain(&self) -> &'static str {
        self.script.must_contain
    }
}

/// How a dialogue ended.
#[derive(Debug)]
pub struct Ending {
    pub output: Vec<u8>,
    pub exit_code: Option<i32>,
    /// Why it failed, if it did.
    pub failure: Option<String>,
}

/// Copies what `from` writes into `output` until it closes.
fn collect(mut from: impl Read + Send + 'static, output: Arc<Mutex<Vec<u8>>>) {
    thread::spawn(move || {
        let mut buf = [0u8; 4096];
        loop {
            match from.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => match output.lock() {
                    Ok(mut o) => o.extend_from_slice(&buf[..n]),
                    Err(_) => break,
                },
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
    });
}

fn type_text(stdin: &mut Option<ChildStdin>, text: &str) {
    if let Some(input) = stdin.as_mut() {
        if input
            .write_all(text.as_bytes())
            .and_then(|()| input.flush())
            .is_err()
        {
            *stdin = None;
        }
    }
}

/// Runs `argv` through `script`'s cues: its stdout and stderr together are
/// the output; killed (its process group) when a cue's limit passes.
pub fn run(argv: &[String], script: Script) -> Result<Ending, HarnessError> {
    let (program, args) = argv.split_first().ok_or_else(|| HarnessError::Spawn {
        program: String::new(),
        source: std::io::Error::other("no command given"),
    })?;
    let spawn_error = |source| HarnessError::Spawn {
        program: program.clone(),
        source,
    };
    let (reader, writer) = std::io::pipe().map_err(spawn_error)?;
    let mut child = crate::interrupt::own_group(&mut Command::new(program))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(writer.try_clone().map_err(spawn_error)?)
        .stderr(writer)
        .spawn()
        .map_err(spawn_error)?;
    let _group = crate::interrupt::register(child.id(), crate::interrupt::Stop::Kill);
    let output = Arc::new(Mutex::new(Vec::new()));
    collect(reader, Arc::clone(&output));
    let mut stdin = child.stdin.take();
    let mut dialogue = Dialogue::new(script, Instant::now());
    let mut exit_code = None;
    let mut exited = false;
    let failure = loop {
        if !exited {
            if let Ok(Some(status)) = child.try_wait() {
                exited = true;
                exit_code = status.code();
                // what it printed last
                thread::sleep(Duration::from_millis(100));
            }
        }
        let seen = output.lock().map(|o| o.clone()).unwrap_or_default();
        match dialogue.next(&seen, exited, Instant::now()) {
            Action::Type(text) => type_text(&mut stdin, text),
            Action::Wait(pause) => thread::sleep(pause),
            Action::Done => break None,
            Action::Failed(why) => break Some(why),
        }
    };
    drop(stdin);
    if !exited {
        crate::qemu::kill_group(&child);
        let _ = child.wait();
    }
    let output = output.lock().map(|o| o.clone()).unwrap_or_default();
    let failure = failure
        .or_else(|| (exit_code != Some(0)).then(|| format!("exit status {exit_code:?}, not 0")))
        .or_else(|| {
            let want = dialogue.must_contain();
            (!String::from_utf8_lossy(&output).contains(want))
                .then(|| format!("no '{want}' in the output"))
        });
    Ok(Ending {
        output,
        exit_code,
        failure,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(start: Instant, secs: u64) -> Instant {
        start + Duration::from_secs(secs)
    }

    #[test]
    fn shell_types_after_the_prompt_then_again_until_it_answers() {
        let t0 = Instant::now();
        let mut d = Dialogue::new(Script::shell(), t0);
        assert_eq!(d.next(b"Booting\n", false, t0), Action::Wait(POLL));
        let typed = Action::Type("echo $((6 * 7))answer\n");
        assert_eq!(d.next(b"Booting\n# ", false, at(t0, 5)), typed);
        // the echo of the line is no answer
        let echo = b"Booting\n# echo $((6 * 7))answer\n";
        assert!(matches!(d.next(echo, false, at(t0, 5)), Action::Wait(_)));
        assert_eq!(d.next(echo, false, at(t0, 6)), typed);
        let answered = b"# echo $((6 * 7))answer\n42answer\n# ";
        assert_eq!(
            d.next(answered, false, at(t0, 7)),
            Action::Type("poweroff\n")
        );
        assert_eq!(d.next(answered, false, at(t0, 8)), Action::Wait(POLL));
        assert_eq!(d.next(answered, true, at(t0, 9)), Action::Done);
    }

    #[test]
    fn shell_times_out_without_a_prompt_and_after_poweroff() {
        let t0 = Instant::now();
        let mut d = Dialogue::new(Script::shell(), t0);
        assert!(matches!(d.next(b"", false, at(t0, 300)), Action::Failed(_)));
        let mut d = Dialogue::new(Script::shell(), t0);
        assert!(matches!(d.next(b"# ", false, t0), Action::Type(_)));
        assert!(matches!(
            d.next(b"42answer\n", false, t0),
            Action::Type("poweroff\n")
        ));
        assert!(matches!(
            d.next(b"42answer\n", false, at(t0, 119)),
            Action::Wait(_)
        ));
        let late = d.next(b"42answer\n", false, at(t0, 120));
        assert!(
            matches!(late, Action::Failed(ref why) if why.contains("Exit")),
            "{late:?}"
        );
    }

    #[test]
    fn an_early_end_fails() {
        let t0 = Instant::now();
        let mut d = Dialogue::new(Script::shell(), t0);
        assert!(matches!(
            d.next(b"Kernel panic\n", true, t0),
            Action::Failed(_)
        ));
    }

    #[test]
    fn menuconfig_types_escape_every_two_seconds_until_it_ends() {
        let t0 = Instant::now();
        let mut d = Dialogue::new(Script::menuconfig(), t0);
        assert_eq!(d.next(b"", false, t0), Action::Type("\x1b\x1b"));
        assert!(matches!(d.next(b"menu", false, at(t0, 1)), Action::Wait(_)));
        assert_eq!(d.next(b"menu", false, at(t0, 2)), Action::Type("\x1b\x1b"));
        assert_eq!(d.next(b"menu", true, at(t0, 3)), Action::Done);
    }

    #[test]
    fn runs_a_program_through_its_cues() {
        // a stand-in shell: prints a prompt, echoes the line typed (as a
        // terminal does), answers, ends on poweroff
        let shell = "printf 'booted\\n# '; read -r line; echo \"$line\"; echo 42answer; \
                     read -r off; [ \"$off\" = poweroff ] && exit 0; exit 3";
        let argv = ["sh", "-c", shell].map(String::from);
        let ending = run(&argv, Script::shell()).unwrap();
        assert_eq!(
            ending.failure,
            None,
            "{}",
            String::from_utf8_lossy(&ending.output)
        );
        assert_eq!(ending.exit_code, Some(0));

        let argv = [
            "sh",
            "-c",
            "printf '# '; read -r l; echo; echo 42answer; read -r o; exit 3",
        ]
        .map(String::from);
        let ending = run(&argv, Script::shell()).unwrap();
        assert!(ending.failure.unwrap().contains("exit status"));
    }
}
