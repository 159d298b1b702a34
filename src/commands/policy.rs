//! `kustom policy`: the user's per-plugin grants
//! (`$XDG_CONFIG_HOME/kustomize/plugin-policy.yaml`).

use crate::plugin_host::sandbox::policy::{Grants, PolicyFile};
use crate::plugin_host::sandbox::system;
use clap::{Args, Subcommand};
use kustom_api::Error;
use std::path::PathBuf;

/// `kustom policy …`.
#[derive(Subcommand, Debug)]
pub enum PolicyCommand {
    /// Grant a plugin more than the default sandbox allows (written to the policy file).
    #[command(
        after_help = "Examples:\n  kustom policy allow 'KEP sops.example.com' --read ~/.config/sops/age/keys.txt\n  kustom policy allow 'legacy example.com/v1/Stamp' --write /var/cache/stamp --env STAMP_TOKEN\n  kustom policy allow 'builtin (shipped)' --net"
    )]
    Allow(AllowArgs),
    /// Print what each plugin may do (YAML).
    #[command(after_help = "Examples:\n  kustom policy show")]
    Show,
}

/// `kustom policy allow`.
#[derive(Args, Debug)]
pub struct AllowArgs {
    /// The plugin, named as in kustom.lock and error messages: `KEP <group>`,
    /// `legacy <group>/<version>/<Kind>`, `KRM <exec path>`, `builtin (shipped)`.
    pub plugin: String,
    /// Let it read PATH (below it, for a directory). Repeatable.
    #[arg(long, value_name = "PATH")]
    pub read: Vec<PathBuf>,
    /// Let it write PATH (below it, for a directory). Repeatable.
    #[arg(long, value_name = "PATH")]
    pub write: Vec<PathBuf>,
    /// Let it use the network.
    #[arg(long)]
    pub net: bool,
    /// Pass this environment variable with --plugin-env=minimal. Repeatable.
    #[arg(long, value_name = "NAME")]
    pub env: Vec<String>,
}

/// Run `kustom policy …`.
pub fn run(cmd: &PolicyCommand) -> Result<(), Error> {
    let home = super::build_settings::config_home();
    let mut policy = PolicyFile::load(&home)?;
    match cmd {
        PolicyCommand::Allow(a) => {
            let absolute = |ps: &[PathBuf]| -> Vec<PathBuf> {
                ps.iter()
                    .map(|p| std::path::absolute(p).unwrap_or_else(|_| p.clone()))
                    .collect()
            };
            let grants = Grants {
                read: absolute(&a.read),
                write: absolute(&a.write),
                net: a.net,
                env_pass: a.env.clone(),
            };
            policy.allow(&a.plugin, &grants)?;
            policy.save()?;
            eprintln!("{}: {} updated", policy.path.display(), a.plugin);
        }
        PolicyCommand::Show => {
            print!(
                "# {}\n# Every plugin may also read the tree of the kustomization that lists it, its own\n# executable and directory, the interpreter on its #! line and that interpreter's\n# installation prefix, and these system paths: {};\n# it may write only its private TMPDIR.\n{}",
                policy.path.display(),
                system::SYSTEM_READ
                    .iter()
                    .map(|e| e.path)
                    .collect::<Vec<_>>()
                    .join(", "),
                if policy.plugins.is_empty() {
                    "plugins: []\n".to_string()
                } else {
                    policy.to_yaml()
                }
            );
        }
    }
    Ok(())
}
