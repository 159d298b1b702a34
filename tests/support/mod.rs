//! Shared by the integration tests: skip notices that stay visible.

use std::io::Write;

/// Say that part of a test was skipped and why. Written to the process's
/// STDERR directly rather than with `eprintln!`, which the test harness
/// captures and hides for passing tests: a skipped check must show in
/// `cargo test`'s output.
pub fn skip(message: &str) {
    let _ = writeln!(std::io::stderr(), "SKIPPED: {message}");
}
