//! The sandbox's command-line flags (shared by `kustom build` and `kustom lock`).

use crate::plugin_host::audit::AuditLog;
use crate::plugin_host::sandbox::policy::{Grants, PolicyFile};
use crate::plugin_host::sandbox::{EnvMode, Sandbox, DEFAULT_MEMORY_LIMIT};
use clap::{Args, ValueEnum};
use kustom_api::Error;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// `--plugin-sandbox`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SandboxSwitch {
    /// Confine every plugin process (the default).
    On,
    /// Run plugins with kustom's own rights (trusted repositories only).
    Off,
}

/// `--plugin-env`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EnvSwitch {
    /// The build's environment.
    Inherit,
    /// PATH, LANG, LC_*, TZ, TMPDIR, a private HOME, the protocol's variables
    /// and --plugin-env-pass names only.
    Minimal,
}

/// Flags that confine, limit and audit plugins.
#[derive(Args, Debug, Clone)]
pub struct SandboxArgs {
    /// Confine plugin processes (docs/security.md).
    #[arg(long, value_enum, default_value = "on")]
    pub plugin_sandbox: SandboxSwitch,
    /// Let every plugin read PATH (below it, for a directory). Repeatable.
    #[arg(long, value_name = "PATH")]
    pub plugin_allow_read: Vec<PathBuf>,
    /// Let every plugin write PATH (below it, for a directory). Repeatable.
    #[arg(long, value_name = "PATH")]
    pub plugin_allow_write: Vec<PathBuf>,
    /// Let plugins use the network.
    #[arg(long)]
    pub plugin_allow_net: bool,
    /// The environment plugins get.
    #[arg(long, value_enum, default_value = "inherit")]
    pub plugin_env: EnvSwitch,
    /// With --plugin-env=minimal, also pass this variable. Repeatable.
    #[arg(long, value_name = "NAME")]
    pub plugin_env_pass: Vec<String>,
    /// Memory (RLIMIT_DATA) per plugin process: bytes, or with K/M/G; 0 for none.
    #[arg(long, value_name = "SIZE", default_value = "1G", value_parser = parse_size)]
    pub plugin_memory_limit: u64,
    /// Write one JSON line per plugin call to FILE.
    #[arg(long, value_name = "FILE")]
    pub audit_log: Option<PathBuf>,
}

impl Default for SandboxArgs {
    fn default() -> Self {
        SandboxArgs {
            plugin_sandbox: SandboxSwitch::On,
            plugin_allow_read: Vec::new(),
            plugin_allow_write: Vec::new(),
            plugin_allow_net: false,
            plugin_env: EnvSwitch::Inherit,
            plugin_env_pass: Vec::new(),
            plugin_memory_limit: DEFAULT_MEMORY_LIMIT,
            audit_log: None,
        }
    }
}

/// `2G`, `512M`, `64K`, plain bytes; `0` means no limit.
fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let (digits, unit) = match t.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => t.split_at(i),
        None => (t, ""),
    };
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("{s:?}: want a size such as 2G, 512M or 1048576"))?;
    let shift = match unit
        .to_ascii_uppercase()
        .trim_end_matches("IB")
        .trim_end_matches('B')
    {
        "" => 0,
        "K" => 10,
        "M" => 20,
        "G" => 30,
        _ => return Err(format!("{s:?}: unknown unit (use K, M or G)")),
    };
    n.checked_mul(1 << shift)
        .ok_or_else(|| format!("{s:?}: too large"))
}

impl SandboxArgs {
    /// The build's sandbox settings; reads the user's policy file.
    pub fn sandbox(&self, config_home: &Path) -> Result<Sandbox, Error> {
        let absolute = |ps: &[PathBuf]| -> Vec<PathBuf> {
            ps.iter()
                .map(|p| std::path::absolute(p).unwrap_or_else(|_| p.clone()))
                .collect()
        };
        Ok(Sandbox {
            enabled: self.plugin_sandbox == SandboxSwitch::On,
            grants: Grants {
                read: absolute(&self.plugin_allow_read),
                write: absolute(&self.plugin_allow_write),
                net: self.plugin_allow_net,
                env_pass: self.plugin_env_pass.clone(),
            },
            policy: PolicyFile::load(config_home)?,
            env: match self.plugin_env {
                EnvSwitch::Inherit => EnvMode::Inherit,
                EnvSwitch::Minimal => EnvMode::Minimal,
            },
            memory_limit: (self.plugin_memory_limit > 0).then_some(self.plugin_memory_limit),
            ..Sandbox::default()
        })
    }

    /// The audit log, when asked for.
    pub fn audit(&self) -> Result<Option<Arc<AuditLog>>, Error> {
        self.audit_log
            .as_deref()
            .map(|p| AuditLog::create(p).map(Arc::new))
            .transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_units() {
        assert_eq!(parse_size("2G"), Ok(2 << 30));
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("64KiB"), Ok(64 << 10));
        assert_eq!(parse_size("1000"), Ok(1000));
        assert_eq!(parse_size("0"), Ok(0));
        assert!(parse_size("2X").is_err());
        assert!(parse_size("lots").is_err());
    }
}
