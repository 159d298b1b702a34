//! One line on STDERR for a fetch that takes a while ("Fetching URL at
//! REF"), as cargo does: printed only once the fetch has run for a second,
//! so warm and fast builds stay silent; `kustom -q` silences it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::time::Duration;

/// How long a fetch runs before it is announced.
const ANNOUNCE_AFTER: Duration = Duration::from_secs(1);

static QUIET: AtomicBool = AtomicBool::new(false);

/// Silence the announcements (`-q`).
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

/// A fetch under way; dropping it ends the wait for its announcement.
pub struct Fetching {
    done: Option<Sender<()>>,
}

/// Announce `what` on STDERR if the returned guard is still alive a second
/// from now.
pub fn announce_if_slow(what: String) -> Fetching {
    if QUIET.load(Ordering::Relaxed) {
        return Fetching { done: None };
    }
    let (done, wait) = mpsc::channel::<()>();
    std::thread::spawn(move || {
        if let Err(RecvTimeoutError::Timeout) = wait.recv_timeout(ANNOUNCE_AFTER) {
            eprintln!("Fetching {what}");
        }
    });
    Fetching { done: Some(done) }
}

impl Drop for Fetching {
    fn drop(&mut self) {
        if let Some(done) = self.done.take() {
            let _ = done.send(());
        }
    }
}
