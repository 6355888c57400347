//! Ctrl-C and SIGTERM: the harness's children (QEMU, Buildroot's make)
//! run in process groups of their own, so the terminal's signal reaches
//! the harness alone; one thread waits for it, stops every child group
//! still registered (make gets SIGTERM first, so it removes the target it
//! was making and the output stays usable) and exits with 130. Without
//! [`install`] (the tests) children are still registered, never signalled.

use std::os::unix::process::CommandExt;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::thread;
use std::time::{Duration, Instant};

/// How a registered group is stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// SIGTERM, then SIGKILL after the grace period (make).
    Term,
    /// SIGKILL at once (QEMU, UML: nothing to save).
    Kill,
}

static GROUPS: Mutex<Vec<(libc::pid_t, Stop)>> = Mutex::new(Vec::new());
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// True once SIGINT or SIGTERM came: start nothing new.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// The end of `main`: after an interrupt the signal thread exits (130)
/// once the children are gone, whatever the lanes returned meanwhile.
pub fn settle() {
    while interrupted() {
        thread::park();
    }
}

/// How long make may take to clean up after SIGTERM.
const GRACE: Duration = Duration::from_secs(10);

fn signal_set() -> libc::sigset_t {
    // SAFETY: sigemptyset/sigaddset only write the set passed to them,
    // a valid local.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGINT);
        libc::sigaddset(&mut set, libc::SIGTERM);
        set
    }
}

/// Blocks SIGINT and SIGTERM in this thread (and the threads it starts
/// later) and starts the thread that takes them. Call first in `main`.
pub fn install() {
    let set = signal_set();
    // SAFETY: pthread_sigmask changes this thread's mask from a valid set.
    if unsafe { libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) } != 0 {
        return;
    }
    thread::spawn(move || {
        let mut signal: libc::c_int = 0;
        // SAFETY: sigwait reads the valid set and writes the local.
        if unsafe { libc::sigwait(&set, &mut signal) } == 0 {
            INTERRUPTED.store(true, Ordering::SeqCst);
            eprintln!("rust-qemu-test: interrupted: stopping the builds and boots it started");
            stop_all();
            std::process::exit(130);
        }
    });
}

/// Prepares `command` to run in a process group of its own, with SIGINT
/// and SIGTERM unblocked (a blocked mask is inherited across exec).
pub fn own_group(command: &mut Command) -> &mut Command {
    let set = signal_set();
    command.process_group(0);
    // SAFETY: the closure runs in the child between fork and exec and
    // calls only pthread_sigmask, which is async-signal-safe, on a copy
    // of a valid set.
    unsafe {
        command.pre_exec(move || {
            libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
            Ok(())
        })
    }
}

/// Registers a child's process group (its pid: [`own_group`]) until the
/// guard is dropped.
pub fn register(pid: u32, stop: Stop) -> Registered {
    let pid = libc::pid_t::try_from(pid).unwrap_or(0);
    if pid > 0 {
        if let Ok(mut groups) = GROUPS.lock() {
            groups.push((pid, stop));
        }
        // started while the others were being stopped
        if interrupted() {
            signal_group(pid, libc::SIGKILL);
        }
    }
    Registered(pid)
}

/// A registered process group; dropped once the child has been waited for.
pub struct Registered(libc::pid_t);

impl Drop for Registered {
    fn drop(&mut self) {
        if let Ok(mut groups) = GROUPS.lock() {
            groups.retain(|(pid, _)| *pid != self.0);
        }
    }
}

fn signal_group(pid: libc::pid_t, signal: libc::c_int) -> bool {
    // SAFETY: kill(2) on a process group we started; touches no memory.
    unsafe { libc::kill(-pid, signal) == 0 }
}

/// Stops every registered group: SIGKILL or SIGTERM now, SIGKILL to what
/// is left after the grace period.
fn stop_all() {
    let groups = GROUPS.lock().map(|g| g.clone()).unwrap_or_default();
    for &(pid, stop) in &groups {
        let signal = match stop {
            Stop::Term => libc::SIGTERM,
            Stop::Kill => libc::SIGKILL,
        };
        signal_group(pid, signal);
    }
    let deadline = Instant::now() + GRACE;
    while Instant::now() < deadline && groups.iter().any(|&(pid, _)| signal_group(pid, 0)) {
        // reap what exited, so the check above sees it gone
        // SAFETY: waitpid on any child, without blocking; no memory shared.
        while unsafe { libc::waitpid(-1, std::ptr::null_mut(), libc::WNOHANG) } > 0 {}
        thread::sleep(Duration::from_millis(100));
    }
    for &(pid, _) in &groups {
        signal_group(pid, libc::SIGKILL);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_group_is_registered_until_dropped() {
        let guard = register(4_000_000, Stop::Term);
        assert!(GROUPS
            .lock()
            .expect("lock")
            .contains(&(4_000_000, Stop::Term)));
        drop(guard);
        assert!(!GROUPS
            .lock()
            .expect("lock")
            .iter()
            .any(|g| g.0 == 4_000_000));
    }

    #[test]
    fn a_child_runs_in_its_own_group() {
        let mut command = Command::new("sh");
        command.args(["-c", "cut -d' ' -f5 /proc/$$/stat"]);
        let out = own_group(&mut command).output().expect("sh runs");
        let pgid: u32 = String::from_utf8_lossy(&out.stdout)
            .trim()
            .parse()
            .expect("a pgid");
        // SAFETY: getpgrp has no arguments and cannot fail.
        let ours = unsafe { libc::getpgrp() };
        assert_ne!(i64::from(pgid), i64::from(ours));
    }
}
