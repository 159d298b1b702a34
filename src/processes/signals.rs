//! TERM, INT and HUP end kustom cleanly: every child ended and reaped,
//! every registered temporary file removed, then exit with 128 + the
//! signal's number (143 for TERM), within a second. Argo CD sends TERM
//! when its exec timeout runs out, then KILL; a terminal sends INT on
//! Ctrl-C.
//!
//! The work is done in the signal handler itself, with async-signal-safe
//! system calls only, from the lock-free copies of the register and of the
//! temporaries' paths (`super::slots`): no thread waits for signals, so a
//! build pays nothing for this until a signal comes (a thread blocked in
//! `sigwait` cost up to 13 ms per build on a loaded machine: the process's
//! exit waits for every thread to be scheduled and end). Children start
//! with default dispositions: the fork server resets them, the init
//! resets every signal, and `exec` resets handlers.

use super::slots;
use std::sync::atomic::{AtomicI32, Ordering};

/// The signals that end kustom cleanly.
const ENDING: [libc::c_int; 3] = [libc::SIGTERM, libc::SIGINT, libc::SIGHUP];

/// The signal kustom is ending on (0: none yet).
static ENDING_ON: AtomicI32 = AtomicI32::new(0);

/// Whether kustom is ending on a signal (a thread about to start a child
/// must not).
pub fn ending() -> bool {
    ENDING_ON.load(Ordering::SeqCst) != 0
}

/// Install the handlers (first thing in `main`). The process also becomes
/// the subreaper of its descendants.
pub fn install() {
    super::become_subreaper();
    // SAFETY: sigaction with a handler that only makes async-signal-safe
    // calls; the mask blocks the other ending signals while it runs.
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = on_signal as *const () as usize;
        libc::sigemptyset(&mut sa.sa_mask);
        for sig in ENDING {
            libc::sigaddset(&mut sa.sa_mask, sig);
        }
        for sig in ENDING {
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        }
    }
}

/// Put the ending signals back to their defaults (a forked process that is
/// not the core: the fork server and the builtin processes it clones).
pub fn reset_in_child() {
    for sig in ENDING {
        // SAFETY: restoring a default disposition.
        unsafe { libc::signal(sig, libc::SIG_DFL) };
    }
}

/// The handler: end everything kustom started, then the process.
extern "C" fn on_signal(sig: libc::c_int) {
    if ENDING_ON
        .compare_exchange(0, sig, Ordering::SeqCst, Ordering::SeqCst)
        .is_err()
    {
        // Already ending (on another thread): that one exits.
        return;
    }
    // SAFETY: only async-signal-safe calls follow (see `slots`); alarm
    // and a second handler bound the clean-up to about a second.
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = on_alarm as *const () as usize;
        libc::sigemptyset(&mut sa.sa_mask);
        libc::sigaction(libc::SIGALRM, &sa, std::ptr::null_mut());
        let mut unblock: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut unblock);
        libc::sigaddset(&mut unblock, libc::SIGALRM);
        libc::pthread_sigmask(libc::SIG_UNBLOCK, &unblock, std::ptr::null_mut());
        libc::alarm(1);
        slots::end_children();
        slots::remove_temporaries();
        libc::_exit(128 + sig)
    }
}

/// The clean-up took a second: end anyway.
extern "C" fn on_alarm(_: libc::c_int) {
    // SAFETY: ends the process.
    unsafe { libc::_exit(128 + ENDING_ON.load(Ordering::SeqCst)) }
}
