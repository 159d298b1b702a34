//! `kustom plugin`: list the plugins reachable from the current
//! environment, say which executable would run a given kind, and install a
//! KEP plugin.

use crate::plugin_host::{self, legacy, Location, Settings, BUILTIN_GROUP};
use clap::Subcommand;
use kustom_api::{Error, Gvk, Value};
use std::io::Write;
use std::path::{Path, PathBuf};

/// `kustom plugin …` subcommands.
#[derive(Subcommand, Debug)]
pub enum PluginCommand {
    /// List every plugin reachable from this environment: KEP plugins, legacy
    /// kustomize exec plugins and the shipped builtin, with protocol and path.
    #[command(after_help = "Example:\n  kustom plugin list")]
    List,
    /// Say which executable would run a config object of this apiVersion and kind, and why.
    #[command(
        after_help = "Examples:\n  kustom plugin which team.example.com/v1 CommonApp\n  kustom plugin which builtin PatchTransformer"
    )]
    Which {
        /// apiVersion of the config object (`builtin`, `team.example.com/v1`, …).
        api_version: String,
        /// kind of the config object.
        kind: String,
    },
    /// Copy an executable into the KEP plugin location
    /// (`$XDG_CONFIG_HOME/kustomize/plugins/<group>`) with its executable bit set.
    #[command(
        after_help = "Examples:\n  kustom plugin install ./team.example.com\n  kustom plugin install ./my-plugin --group team.example.com --force"
    )]
    Install {
        /// The plugin executable to install.
        executable: PathBuf,
        /// API group the plugin serves (default: the executable's file name,
        /// which must then be an API group name such as team.example.com).
        #[arg(long)]
        group: Option<String>,
        /// Replace an installed plugin of the same group without asking.
        #[arg(short, long)]
        force: bool,
    },
}

/// One reachable plugin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Protocol name.
    pub protocol: &'static str,
    /// What it serves: a group (KEP, builtin) or an apiVersion and kind (legacy).
    pub serves: String,
    /// The executable.
    pub path: PathBuf,
    /// Remarks: shipped, replaced, not executable.
    pub note: String,
}

/// Run a `kustom plugin` subcommand, writing to `out`.
pub fn run(cmd: &PluginCommand, settings: &Settings, out: &mut dyn Write) -> Result<(), Error> {
    let w = |out: &mut dyn Write, s: String| {
        out.write_all(s.as_bytes())
            .map_err(|e| Error::new(format!("writing output: {e}")))
    };
    match cmd {
        PluginCommand::List => {
            let entries = list(settings);
            let width = entries
                .iter()
                .map(|e| e.protocol.len())
                .max()
                .unwrap_or(8)
                .max(8);
            let serves = entries
                .iter()
                .map(|e| e.serves.len())
                .max()
                .unwrap_or(6)
                .max(6);
            w(
                out,
                format!("{:width$}  {:serves$}  PATH\n", "PROTOCOL", "SERVES"),
            )?;
            for e in &entries {
                let note = if e.note.is_empty() {
                    String::new()
                } else {
                    format!("  ({})", e.note)
                };
                w(
                    out,
                    format!(
                        "{:width$}  {:serves$}  {}{note}\n",
                        e.protocol,
                        e.serves,
                        e.path.display()
                    ),
                )?;
            }
            w(
                out,
                "KRM exec functions are named by each config object's config.kubernetes.io/function annotation and are not listed.\n"
                    .to_string(),
            )
        }
        PluginCommand::Which { api_version, kind } => w(out, which(settings, api_version, kind)?),
        PluginCommand::Install {
            executable,
            group,
            force,
        } => {
            let (group, path, replaced) = install(
                settings,
                executable,
                group.as_deref(),
                *force,
                &mut confirm_replace,
            )?;
            w(
                out,
                format!(
                    "{} KEP plugin for group {group:?}: {}\nuse it with `kustom build --enable-alpha-plugins`{}\n",
                    if replaced { "replaced" } else { "installed" },
                    path.display(),
                    if group == BUILTIN_GROUP { " (not needed for the builtin group)" } else { "" }
                ),
            )
        }
    }
}

/// Every plugin reachable from `settings`: the builtin first, then KEP
/// plugins by group, then legacy exec plugins by apiVersion and kind.
pub fn list(settings: &Settings) -> Vec<Entry> {
    let mut out = Vec::new();
    let kep_builtin = settings.kep_path(BUILTIN_GROUP);
    let replaced = plugin_host::is_executable(&kep_builtin);
    out.push(Entry {
        protocol: "builtin",
        serves: BUILTIN_GROUP.into(),
        path: settings.self_exe.clone(),
        note: if replaced {
            format!("shipped; replaced by {}", kep_builtin.display())
        } else {
            "shipped, runs as `kustom builtin-plugin`".into()
        },
    });
    let kep_dir = settings.config_home.join("kustomize").join("plugins");
    for path in sorted_dir(&kep_dir) {
        if !path.is_file() {
            continue;
        }
        let group = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if group.starts_with('.') {
            continue; // an install in progress, or editor litter
        }
        out.push(Entry {
            protocol: "KEP",
            serves: group.clone(),
            note: note_for(&path, group == BUILTIN_GROUP),
            path,
        });
    }
    if let Some(home) = &settings.legacy_home {
        for (gvk, path) in legacy_plugins(home) {
            out.push(Entry {
                protocol: "legacy exec",
                serves: format!("{} {}", gvk.api_version(), gvk.kind),
                note: note_for(&path, false),
                path,
            });
        }
    }
    out
}

fn note_for(path: &Path, replaces_builtin: bool) -> String {
    let mut notes = Vec::new();
    if !plugin_host::is_executable(path) {
        notes.push("not executable: chmod +x it");
    }
    if replaces_builtin {
        notes.push("replaces the shipped builtin");
    }
    notes.join("; ")
}

fn sorted_dir(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    v.sort();
    v
}

/// Legacy plugins under `home`: files `G/V/k/K` (or `V/k/K` for the core
/// group) whose name, lowercased, is their directory's name.
pub fn legacy_plugins(home: &Path) -> Vec<(Gvk, PathBuf)> {
    let mut out = Vec::new();
    let mut walk = |prefix: Vec<String>, dir: &Path| {
        for kind_dir in sorted_dir(dir) {
            let Some(lower) = kind_dir
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
            else {
                continue;
            };
            for file in sorted_dir(&kind_dir) {
                let name = file
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                if file.is_file() && name.to_lowercase() == lower {
                    let (group, version) = match prefix.as_slice() {
                        [g, v] => (g.clone(), v.clone()),
                        [v] => (String::new(), v.clone()),
                        _ => continue,
                    };
                    out.push((
                        Gvk {
                            group,
                            version,
                            kind: name,
                        },
                        file,
                    ));
                }
            }
        }
    };
    for first in sorted_dir(home) {
        if !first.is_dir() {
            continue;
        }
        let a = first
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        // V/kind/Kind for the core group, G/V/kind/Kind otherwise.
        walk(vec![a.clone()], &first);
        for second in sorted_dir(&first) {
            if !second.is_dir() {
                continue;
            }
            let b = second
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            walk(vec![a.clone(), b], &second);
        }
    }
    out.sort_by(|x, y| x.1.cmp(&y.1));
    out.dedup_by(|x, y| x.1 == y.1);
    out
}

/// Which executable would run a config object of `api_version` / `kind`,
/// and the lookup that led there.
pub fn which(settings: &Settings, api_version: &str, kind: &str) -> Result<String, Error> {
    let config: Value = serde_json::json!({
        "apiVersion": api_version,
        "kind": kind,
        "metadata": {"name": "which"},
    });
    let group = plugin_host::group_of(&config);
    let mut s = settings.clone();
    s.enable_alpha_plugins = true;
    s.enable_exec = true;
    let mut text = format!("{api_version} {kind} (group {group:?}); lookup order:\n");
    let kep = s.kep_path(&group);
    text.push_str(&format!(
        "  1. KEP plugin {}: {}\n",
        kep.display(),
        presence(&kep)
    ));
    text.push_str("  2. KRM exec function: named by a config.kubernetes.io/function annotation on the object itself\n");
    if group == BUILTIN_GROUP {
        text.push_str("  3. legacy exec plugin: not used for the builtin group\n");
        text.push_str(&format!(
            "  4. shipped builtin: {} builtin-plugin\n",
            s.self_exe.display()
        ));
    } else {
        match &s.legacy_home {
            Some(home) => {
                let p = legacy::plugin_path(home, &config);
                text.push_str(&format!(
                    "  3. legacy exec plugin {}: {}\n",
                    p.display(),
                    presence(&p)
                ));
            }
            None => text.push_str(&format!(
                "  3. legacy exec plugin: no plugin home (none of {} exists)\n",
                legacy::home_candidates()
                    .iter()
                    .map(|(note, p)| format!("{note} = {}", p.display()))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
        text.push_str("  4. shipped builtin: only for apiVersion `builtin`\n");
    }
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    match s.locate(&config, &cwd, Path::new("(kustom plugin which)")) {
        Ok(loc) => {
            let how = match &loc {
                Location::ShippedBuiltin(p) => {
                    format!("{} builtin-plugin generate|transform", p.display())
                }
                Location::Kep(p) => format!("{} generate|transform", p.display()),
                Location::Legacy(p) => format!("{} CONFIG-FILE [args]", p.display()),
                Location::Krm(spec) => spec.path.display().to_string(),
                Location::Container(spec) => {
                    format!("{} (image {})", spec.runtime.display(), spec.image)
                }
            };
            text.push_str(&format!("runs: {} plugin: {how}\n", loc.protocol()));
            if group != BUILTIN_GROUP {
                text.push_str("needs: kustom build --enable-alpha-plugins\n");
            }
            Ok(text)
        }
        Err(e) => {
            let kep_present = kep.is_file() && !plugin_host::is_executable(&kep);
            let why = if kep_present {
                format!(
                    "the KEP plugin {} is there but not executable; run `chmod +x {}`",
                    kep.display(),
                    kep.display()
                )
            } else if e.message.starts_with("no plugin for") {
                format!("install one with `kustom plugin install EXECUTABLE --group {group}`")
            } else {
                e.message.clone()
            };
            Err(Error::new(format!(
                "{text}No plugin would run {api_version} {kind}: {why}."
            )))
        }
    }
}

/// Whether a name is an API group as kustomize's plugin lookup uses them:
/// `builtin`, or a lowercase DNS subdomain with at least one dot.
pub fn is_api_group(name: &str) -> bool {
    if name == BUILTIN_GROUP {
        return true;
    }
    name.contains('.') && kustom_builtin::target::is_dns_subdomain(name)
}

/// Ask on the terminal whether to replace an installed plugin; without a
/// terminal the answer is no (use `--force`).
fn confirm_replace(dest: &Path) -> bool {
    use std::io::{BufRead, IsTerminal};
    if !std::io::stdin().is_terminal() {
        return false;
    }
    eprint!("{} exists; replace it? [y/N] ", dest.display());
    let mut answer = String::new();
    let _ = std::io::stdin().lock().read_line(&mut answer);
    matches!(answer.trim(), "y" | "Y" | "yes")
}

fn presence(p: &Path) -> &'static str {
    match std::fs::metadata(p) {
        Ok(m) if m.is_file() && plugin_host::is_executable(p) => "found",
        Ok(m) if m.is_file() => "present but not executable",
        Ok(_) => "not a file",
        Err(_) => "absent",
    }
}

/// Copy `executable` to the KEP location of `group` (default: its file
/// name), executable bit set. Returns the group, the installed path and
/// whether an earlier plugin was replaced.
pub fn install(
    settings: &Settings,
    executable: &Path,
    group: Option<&str>,
    force: bool,
    confirm: &mut dyn FnMut(&Path) -> bool,
) -> Result<(String, PathBuf, bool), Error> {
    use std::os::unix::fs::PermissionsExt;
    let meta = std::fs::metadata(executable)
        .map_err(|e| Error::new(format!("cannot install {}: {e}", executable.display())))?;
    if !meta.is_file() {
        return Err(Error::new(format!(
            "cannot install {}: not a file",
            executable.display()
        )));
    }
    let group = match group {
        Some(g) => g.to_string(),
        None => {
            let name = executable
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            if !is_api_group(&name) {
                return Err(Error::new(format!(
                    "the file name {name:?} of {} is not an API group name (like team.example.com); \
                     pass the group the plugin serves with --group GROUP",
                    executable.display()
                )));
            }
            name
        }
    };
    if group.is_empty() || group.contains('/') || group == "." || group == ".." {
        return Err(Error::new(format!(
            "{group:?} is not an API group name; pass --group GROUP (e.g. team.example.com)"
        )));
    }
    let dest = settings.kep_path(&group);
    if dest.exists() && !force && !confirm(&dest) {
        return Err(Error::new(format!(
            "a plugin for group {group:?} is already installed at {}; pass --force to replace it",
            dest.display()
        )));
    }
    let dir = dest
        .parent()
        .ok_or_else(|| Error::new(format!("no parent directory for {}", dest.display())))?;
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::new(format!("creating {}: {e}", dir.display())))?;
    let replaced = dest.exists();
    // Copy beside the destination, then rename: a build running meanwhile
    // never sees a half-written plugin.
    let tmp = dir.join(format!(".{group}.installing.{}", std::process::id()));
    std::fs::copy(executable, &tmp).map_err(|e| {
        Error::new(format!(
            "copying {} to {}: {e}",
            executable.display(),
            tmp.display()
        ))
    })?;
    let mode = meta.permissions().mode() | 0o755;
    let finish = std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(mode))
        .and_then(|_| std::fs::rename(&tmp, &dest));
    if let Err(e) = finish {
        let _ = std::fs::remove_file(&tmp);
        return Err(Error::new(format!("installing {}: {e}", dest.display())));
    }
    Ok((group, dest, replaced))
}
