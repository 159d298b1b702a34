//! `kustom version`: kustomize's version command, readable by kustomize's
//! callers. The version is kustomize's release kustom reproduces, with
//! kustom's own version as semver build metadata (`v5.5.0+kustom.0.1.0`),
//! so that a caller taking the first semantic version reads 5.5.0.

use clap::Args;
use kustom_api::Error;
use serde_json::{Map, Value};

/// Flags of `kustom version`, as kustomize's.
#[derive(Args, Debug)]
#[command(after_help = "Examples:\n  kustom version\n  kustom version -o json")]
pub struct VersionArgs {
    /// Short form (deprecated in kustomize; printed as kustomize prints it).
    #[arg(long)]
    pub short: bool,
    /// One of 'yaml' or 'json'.
    #[arg(short, long, default_value = "")]
    pub output: String,
}

/// kustomize's version that kustom reproduces.
pub const KUSTOMIZE_VERSION: &str = "v5.5.0";

/// The version string: kustomize's, then kustom's as build metadata.
pub const SEMVER_STATIC: &str = concat!("v5.5.0+kustom.", env!("CARGO_PKG_VERSION"));

/// [`SEMVER_STATIC`] as a String; its kustomize part is [`KUSTOMIZE_VERSION`].
pub fn semver() -> String {
    debug_assert!(SEMVER_STATIC.starts_with(KUSTOMIZE_VERSION));
    SEMVER_STATIC.to_string()
}

/// kustomize's provenance fields that kustom can fill, in its order.
fn provenance() -> Map<String, Value> {
    let arch = match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        "x86" => "386",
        other => other,
    };
    let mut m = Map::new();
    m.insert("version".into(), Value::String(semver()));
    m.insert("gitCommit".into(), Value::String("unknown".into()));
    m.insert("goOs".into(), Value::String(std::env::consts::OS.into()));
    m.insert("goArch".into(), Value::String(arch.into()));
    m
}

/// The text `kustom version` prints for these flags.
pub fn render(args: &VersionArgs) -> Result<String, Error> {
    if args.short && !args.output.is_empty() {
        return Err(Error::new("--short and --output are mutually exclusive"));
    }
    let p = provenance();
    let s = |k: &str| p[k].as_str().unwrap_or("").to_string();
    Ok(match args.output.as_str() {
        // Go's `%v` of the provenance struct with only version and build
        // date set: six fields separated by spaces.
        "" if args.short => format!("{{{}     }}\n", s("version")),
        "" => format!("{}\n", s("version")),
        "yaml" => {
            let mut out = String::new();
            for key in ["version", "gitCommit", "goOs", "goArch"] {
                out.push_str(&format!("{key}: {}\n", s(key)));
            }
            out + "\n"
        }
        "json" => {
            let lines: Vec<String> = ["version", "gitCommit", "goOs", "goArch"]
                .iter()
                .map(|k| format!("  \"{k}\": {}", Value::String(s(k))))
                .collect();
            format!("{{\n{}\n}}\n", lines.join(",\n"))
        }
        // kustomize prints nothing for another value.
        _ => String::new(),
    })
}

/// Run `kustom version`.
pub fn run(args: &VersionArgs) -> Result<(), Error> {
    if args.short {
        eprintln!("Flag --short has been deprecated, and will be removed in the future.");
    }
    super::stdout::print(&render(args)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms() {
        let a = |short, output: &str| VersionArgs {
            short,
            output: output.into(),
        };
        assert!(render(&a(false, "")).unwrap().starts_with("v5.5.0+kustom."));
        assert!(render(&a(true, "")).unwrap().starts_with("{v5.5.0+kustom."));
        let j: Value = serde_json::from_str(&render(&a(false, "json")).unwrap()).unwrap();
        assert_eq!(j["gitCommit"], "unknown");
        assert!(render(&a(true, "json")).is_err());
    }
}
