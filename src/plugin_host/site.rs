//! Where a plugin call comes from, for error messages: the protocol, the
//! executable, the config's apiVersion and kind, the operation and the
//! kustomization that listed it.

use super::exec;
use kustom_api::Error;
use std::path::Path;

/// Where a plugin call comes from, for error messages: the protocol, the
/// executable, the config object's apiVersion and kind, the operation and
/// the kustomization file that listed the object.
#[derive(Debug, Clone)]
pub struct Site<'a> {
    /// Protocol name ([`Location::protocol`]).
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
        let status = match out.status {
            Some(code) => format!("failed with exit status {code}"),
            None => "was killed by a signal".to_string(),
        };
        Error::new(format!(
            "{self} {status}{extra}{}{}",
            exec::stderr_tail(&out.stderr),
            out.note
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
            out.note
        ))
    }
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
