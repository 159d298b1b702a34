//! Which kustomize release a build reproduces: v5.8.1 by default, v5.5.0
//! on request (`--kustomize-version 5.5`, `KUSTOM_KUSTOMIZE_VERSION=5.5`).
//!
//! The choice is made once, by the command layer, and travels as one
//! value: in the core's plugin settings, and to the builtin plugin (a
//! separate process) in [`ENV`] of every call. Each place where the two
//! releases differ tests it and names the kustomize change in a comment.

use crate::Error;

/// The environment variable a user sets to pick a version, and the one the
/// core sets (to the canonical form, [`KustomizeVersion::env_value`]) on
/// every plugin call.
pub const ENV: &str = "KUSTOM_KUSTOMIZE_VERSION";

/// A kustomize release kustom reproduces byte for byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum KustomizeVersion {
    /// kustomize v5.5.0 (kubectl 1.32).
    V5_5,
    /// kustomize v5.8.1 (kubectl 1.37), the default.
    #[default]
    V5_8,
}

/// The spellings each version answers to, the canonical one first.
const NAMES: &[(KustomizeVersion, &[&str])] = &[
    (KustomizeVersion::V5_5, &["5.5.0", "5.5", "v5.5.0", "v5.5"]),
    (KustomizeVersion::V5_8, &["5.8.1", "5.8", "v5.8.1", "v5.8"]),
];

impl KustomizeVersion {
    /// Read a version as a user writes it (`5.5`, `5.8.1`, `v5.8`); an
    /// unknown one is an error listing the known ones.
    pub fn parse(text: &str) -> Result<KustomizeVersion, Error> {
        let text = text.trim();
        NAMES
            .iter()
            .find(|(_, names)| names.contains(&text))
            .map(|(v, _)| *v)
            .ok_or_else(|| {
                Error::new(format!(
                    "unknown kustomize version {text:?}: kustom reproduces {} (the default is {}); pick one with --kustomize-version or {ENV}",
                    NAMES
                        .iter()
                        .map(|(_, names)| format!("{} ({})", names[0], names[1]))
                        .collect::<Vec<_>>()
                        .join(", "),
                    KustomizeVersion::default().env_value()
                ))
            })
    }

    /// The version `flag` names, else [`ENV`], else the default.
    pub fn choose(flag: Option<&str>) -> Result<KustomizeVersion, Error> {
        match flag {
            Some(f) => KustomizeVersion::parse(f)
                .map_err(|e| Error::new(format!("--kustomize-version: {}", e.message))),
            None => match std::env::var(ENV) {
                Ok(v) if !v.trim().is_empty() => KustomizeVersion::parse(&v)
                    .map_err(|e| Error::new(format!("{ENV}: {}", e.message))),
                _ => Ok(KustomizeVersion::default()),
            },
        }
    }

    /// The version a plugin call carries in [`ENV`] (set by the core; the
    /// default when absent or unreadable, which only a hand-run call sees).
    pub fn from_call_env() -> KustomizeVersion {
        std::env::var(ENV)
            .ok()
            .and_then(|v| KustomizeVersion::parse(&v).ok())
            .unwrap_or_default()
    }

    /// The canonical spelling (`5.8.1`), as passed to plugin calls.
    pub fn env_value(self) -> &'static str {
        NAMES
            .iter()
            .find(|(v, _)| *v == self)
            .map_or("", |(_, names)| names[0])
    }

    /// The release tag as kustomize's `version` command prints it (`v5.8.1`).
    pub fn release(self) -> &'static str {
        match self {
            KustomizeVersion::V5_5 => "v5.5.0",
            KustomizeVersion::V5_8 => "v5.8.1",
        }
    }

    /// Whether this is v5.8 or later: the changes of v5.6.0 to v5.8.1 apply.
    pub fn is_5_8(self) -> bool {
        self >= KustomizeVersion::V5_8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_and_errors() {
        for s in ["5.5", "5.5.0", "v5.5.0", " 5.5 "] {
            assert_eq!(KustomizeVersion::parse(s).unwrap(), KustomizeVersion::V5_5);
        }
        for s in ["5.8", "5.8.1", "v5.8"] {
            assert_eq!(KustomizeVersion::parse(s).unwrap(), KustomizeVersion::V5_8);
        }
        let e = KustomizeVersion::parse("5.7").unwrap_err().message;
        assert!(
            e.contains("\"5.7\"") && e.contains("5.5.0 (5.5)") && e.contains("5.8.1 (5.8)"),
            "{e}"
        );
        assert_eq!(KustomizeVersion::default().release(), "v5.8.1");
        assert_eq!(KustomizeVersion::V5_5.env_value(), "5.5.0");
        assert!(KustomizeVersion::V5_8.is_5_8() && !KustomizeVersion::V5_5.is_5_8());
    }

    #[test]
    fn the_flag_wins_over_the_environment() {
        assert_eq!(
            KustomizeVersion::choose(Some("5.5")).unwrap(),
            KustomizeVersion::V5_5
        );
        assert!(KustomizeVersion::choose(Some("6"))
            .unwrap_err()
            .message
            .starts_with("--kustomize-version: unknown kustomize version"));
    }
}
