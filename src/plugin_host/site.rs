//! Where a plugin call comes from, for error messages: the protocol, the
//! executable, the config's apiVersion and kind, the operation and the
//! kustomization that listed it.

use super::exec;
use kustom_api::Error;
use kustom_api::{resource, Value};
use std::path::Path;

/// Where a plugin call comes from, for error messages: the protocol, the
/// executable, the config object's apiVersion and kind, the operation and
/// the kustomization file that listed the object.
#[derive(Debug, Clone)]
pub struct Site<'a> {
    /// Protocol name (`lookup::Location::protocol`).
    pub protocol: &'static str,
    /// The executable.
    pub path: &'a Path,
    /// apiVersion of the (first) config object.
    pub api_version: &'a str,
    /// Kind of the (first) config object.
    pub kind: &'a str,
    /// Kinds of every config object of the call, comma-separated (for `-v`).
    pub kinds: String,
    /// `generate` or `transform`.
    pub op: &'a str,
    /// The kustomization file that listed the config object.
    pub kust_file: &'a Path,
}

impl<'a> Site<'a> {
    /// The site of one call: `op` of the config objects `batch` (the first
    /// names it) run by `path` of `protocol`, listed in `kust_file`.
    pub fn of_batch(
        (protocol, path): (&'static str, &'a Path),
        batch: &'a [Value],
        op: &'a str,
        kust_file: &'a Path,
    ) -> Site<'a> {
        let first = &batch[0];
        Site {
            protocol,
            path,
            api_version: resource::api_version(first),
            kind: resource::kind(first),
            kinds: kinds_of(batch),
            op,
            kust_file,
        }
    }
}

impl std::fmt::Display for Site<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} plugin {} ({} {}, {}, configured in {})",
            self.protocol,
            self.path.display(),
            self.api_version,
            self.kind,
            self.op,
            self.kust_file.display()
        )
    }
}

impl Site<'_> {
    /// The error for a finished process whose status is not success.
    pub fn status_error(&self, out: &exec::Output, extra: &str) -> Error {
        let note = if shows_denial(&out.stderr) {
            out.note.as_str()
        } else {
            ""
        };
        // The shipped builtin fails on the kustomization's own mistakes (a
        // file that does not exist, a patch that matches nothing): its
        // message already names the field; say where it came from.
        if self.protocol == "builtin (shipped)" && out.status == Some(1) {
            let text = String::from_utf8_lossy(&out.stderr);
            let text = text.trim();
            if !text.is_empty() {
                return Error::new(format!("{}: {text}{note}", self.kust_file.display()));
            }
        }
        let status = match out.status {
            Some(code) => format!("failed with exit status {code}"),
            None => "was killed by a signal".to_string(),
        };
        Error::new(format!(
            "{self} {status}{extra}{}{note}",
            exec::stderr_tail(&out.stderr),
        ))
    }

    /// The error for STDOUT that does not parse.
    pub fn junk_error(&self, out: &exec::Output, why: &str) -> Error {
        Error::new(format!(
            "{self} wrote output that is not YAML (exit status {}): {why}{}{}{}",
            out.status
                .map(|c| c.to_string())
                .unwrap_or_else(|| "none".into()),
            stdout_head(&out.stdout),
            exec::stderr_tail(&out.stderr),
            if shows_denial(&out.stderr) {
                out.note.as_str()
            } else {
                ""
            }
        ))
    }
}

/// Whether a plugin's STDERR shows a denial the sandbox may have caused
/// (`EACCES`, `EPERM`, `EROFS`, a refused socket) or its memory limit
/// (`ENOMEM`, `MemoryError`): only then does an error carry the sandbox's
/// note and its grants.
pub fn shows_denial(stderr: &[u8]) -> bool {
    let text = String::from_utf8_lossy(stderr).to_ascii_lowercase();
    [
        "permission denied",
        "operation not permitted",
        "read-only file system",
        "eacces",
        "eperm",
        "erofs",
        "errno 13",
        "errno 1]",
        "errno 30",
        "os error 13",
        "os error 1)",
        "os error 30",
        "cannot allocate memory",
        "out of memory",
        "memoryerror",
        "enomem",
        "file too large",
    ]
    .iter()
    .any(|w| text.contains(w))
}

/// The first bytes of a plugin's STDOUT, for a "not YAML" message.
fn stdout_head(stdout: &[u8]) -> String {
    let text = String::from_utf8_lossy(&stdout[..stdout.len().min(400)]);
    let text = text.trim_end();
    if text.is_empty() {
        String::new()
    } else {
        format!(
            "\nstdout begins:\n  {}",
            text.lines().take(8).collect::<Vec<_>>().join("\n  ")
        )
    }
}

/// The kinds of a batch of config objects, in order (`A, B, A`).
fn kinds_of(batch: &[Value]) -> String {
    batch
        .iter()
        .map(resource::kind)
        .collect::<Vec<_>>()
        .join(", ")
}
