//! `kustom version`: kustomize's version command, readable by kustomize's
//! callers. The version is the kustomize release kustom reproduces (the
//! selected one: `--kustomize-version`, else `KUSTOM_KUSTOMIZE_VERSION`,
//! else v5.8.1), with kustom's own version as semver build metadata
//! (`v5.8.1+kustom.0.1.0`), so that a caller taking the first semantic
//! version (Argo CD reads `version --short` so) reads 5.8.1.

use clap::Args;
use kustom_api::{Error, KustomizeVersion};
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
    /// The kustomize release to report: 5.8 (the default) or 5.5 [env: KUSTOM_KUSTOMIZE_VERSION].
    #[arg(long)]
    pub kustomize_version: Option<String>,
}

/// The version in clap's `--version`: the default release, then kustom's.
pub const SEMVER_STATIC: &str = concat!("v5.8.1+kustom.", env!("CARGO_PKG_VERSION"));

/// The version string of a release: kustomize's, then kustom's as build
/// metadata.
pub fn semver(version: KustomizeVersion) -> String {
    format!("{}+kustom.{}", version.release(), env!("CARGO_PKG_VERSION"))
}

/// kustomize's provenance fields that kustom can fill, in its order.
fn provenance(version: KustomizeVersion) -> Map<String, Value> {
    let arch = match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        "x86" => "386",
        other => other,
    };
    let mut m = Map::new();
    m.insert("version".into(), Value::String(semver(version)));
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
    let p = provenance(KustomizeVersion::choose(args.kustomize_version.as_deref())?);
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

    fn args(short: bool, output: &str, version: Option<&str>) -> VersionArgs {
        VersionArgs {
            short,
            output: output.into(),
            kustomize_version: version.map(Into::into),
        }
    }

    #[test]
    fn forms() {
        let v = Some("5.8");
        assert!(render(&args(false, "", v))
            .unwrap()
            .starts_with("v5.8.1+kustom."));
        assert!(render(&args(true, "", v))
            .unwrap()
            .starts_with("{v5.8.1+kustom."));
        let j: Value = serde_json::from_str(&render(&args(false, "json", v)).unwrap()).unwrap();
        assert_eq!(j["gitCommit"], "unknown");
        assert!(render(&args(true, "json", v)).is_err());
    }

    #[test]
    fn the_selected_version_is_reported() {
        assert!(render(&args(true, "", Some("5.5")))
            .unwrap()
            .starts_with("{v5.5.0+kustom."));
        assert!(render(&args(false, "", Some("4")))
            .unwrap_err()
            .message
            .contains("unknown kustomize version"));
        assert!(SEMVER_STATIC.starts_with(KustomizeVersion::default().release()));
    }
}
