//! TERM, INT and HUP end kustom cleanly: every child ended and reaped,
//! every temporary file removed, then exit with 128 + the signal's number
//! (143 for TERM), within a second. Argo CD sends TERM when its exec
//! timeout runs out, then KILL; a terminal sends INT on Ctrl-C.
//!
//! The signals are blocked in every thread (the mask is inherited, so it
//! is set while the process has one thread) and taken by one thread of
//! their own with `sigwait`, which may then run ordinary code. Children
//! start with the default mask: the standard library's `Command` and the
//! plugin host's init reset it.

use std::time::Duration;

/// The signals that end kustom cleanly.
const ENDING: [libc::c_int; 3] = [libc::SIGTERM, libc::SIGINT, libc::SIGHUP];

fn ending_set() -> libc::sigset_t {
    // SAFETY: sigemptyset/sigaddset initialise and fill a local set.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for sig in ENDING {
            libc::sigaddset(&mut set, sig);
        }
        set
    }
}

/// Block the ending signals in this thread and every thread it starts
/// later. Call first in `main`, before any thread or child exists.
pub fn block() {
    let set = ending_set();
    // SAFETY: changes this thread's signal mask only.
    unsafe { libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) };
}

/// Start the thread that ends kustom on an ending signal (after
/// [`block`]). The process also becomes the subreaper of its descendants.
pub fn watch() {
    super::become_subreaper();
    let started = std::thread::Builder::new()
        .name("signals".into())
        .stack_size(64 * 1024)
        .spawn(|| loop {
            let set = ending_set();
            let mut sig = 0;
            // SAFETY: waits for one of the blocked signals of `set`.
            if unsafe { libc::sigwait(&set, &mut sig) } == 0 {
                end_on(sig);
            }
        });
    if let Err(e) = started {
        // Without the thread the signals stay blocked: unblock them, so
        // that TERM still ends kustom (as before, without the clean-up).
        tracing::debug!("cannot start the signal thread: {e}");
        let set = ending_set();
        // SAFETY: changes this thread's signal mask only.
        unsafe { libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut()) };
    }
}

/// End everything kustom started, then the process, as `sig` asks.
fn end_on(sig: libc::c_int) -> ! {
    tracing::debug!(signal = sig, "ending on a signal");
    // A watchdog: should the clean-up itself hang (a child stuck in the
    // kernel), the process still ends within about a second.
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(900));
        // SAFETY: ends the process.
        unsafe { libc::_exit(128 + sig) }
    });
    super::end_all();
    // SAFETY: ends the process; what it owns was ended above.
    unsafe { libc::_exit(128 + sig) }
}
