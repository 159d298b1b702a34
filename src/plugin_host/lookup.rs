//! Where is the plugin: the lookup order of a config object's API group
//! (KEP plugin, KRM exec function, legacy exec plugin, shipped builtin) and
//! the checks on the names it is looked up by.

use super::settings::{Settings, BUILTIN_GROUP};
use super::{container, krm, legacy};
use kustom_api::{resource, Error, Gvk, Value};
use std::path::{Path, PathBuf};

/// Which plugin runs a config object, and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// A KEP plugin `$XDG_CONFIG_HOME/kustomize/plugins/<group>`.
    Kep(PathBuf),
    /// A KRM exec function named by the object's function annotation.
    Krm(krm::ExecSpec),
    /// A KRM function in a container image, run through docker or podman.
    Container(container::ContainerSpec),
    /// A legacy kustomize exec plugin `<plugin home>/<group>/<version>/<lowercase kind>/<Kind>`.
    Legacy(PathBuf),
    /// The builtin plugin shipped with kustom (this executable).
    ShippedBuiltin(PathBuf),
}

impl Location {
    /// The executable that runs.
    pub fn path(&self) -> &Path {
        match self {
            Location::Kep(p) | Location::Legacy(p) | Location::ShippedBuiltin(p) => p,
            Location::Krm(spec) => &spec.path,
            Location::Container(spec) => &spec.runtime,
        }
    }

    /// The protocol's name, for messages and `kustom plugin` listings.
    pub fn protocol(&self) -> &'static str {
        match self {
            Location::Kep(_) => "KEP",
            Location::Krm(_) => "KRM exec function",
            Location::Container(_) => "KRM container function",
            Location::Legacy(_) => "legacy exec",
            Location::ShippedBuiltin(_) => "builtin (shipped)",
        }
    }
}

/// The API group of a config object's apiVersion (`builtin` for `builtin`).
pub fn group_of(config: &Value) -> String {
    let av = resource::api_version(config);
    if av == BUILTIN_GROUP {
        return BUILTIN_GROUP.into();
    }
    Gvk::from_api_version(av, "").group
}

impl Settings {
    /// The KEP plugin path for a group.
    pub fn kep_path(&self, group: &str) -> PathBuf {
        self.config_home
            .join("kustomize")
            .join("plugins")
            .join(group)
    }

    /// Find the plugin for a config object, listed by the kustomization
    /// `kust_file` in directory `dir`. Lookup order: KEP plugin for the
    /// group, KRM exec function annotation, legacy exec plugin, shipped
    /// builtin. Plugins outside the `builtin` group need
    /// `--enable-alpha-plugins`, KRM exec functions also `--enable-exec`.
    pub fn locate(&self, config: &Value, dir: &Path, kust_file: &Path) -> Result<Location, Error> {
        let group = group_of(config);
        if group != BUILTIN_GROUP {
            check_lookup_names(config, kust_file)?;
        }
        let what = || {
            format!(
                "{} {} {:?} (listed in {})",
                resource::api_version(config),
                resource::kind(config),
                resource::name(config),
                kust_file.display()
            )
        };
        let kep = self.kep_path(&group);
        // The core group ("v1") has no KEP plugin: its path would be the
        // plugins directory itself.
        let kep_found = !group.is_empty() && is_executable(&kep);
        if group == BUILTIN_GROUP {
            // kustomize never looks for builtin kinds elsewhere; an executable
            // at plugins/builtin replaces the shipped one (KEP).
            return Ok(if kep_found {
                Location::Kep(kep)
            } else {
                Location::ShippedBuiltin(self.self_exe.clone())
            });
        }
        let alpha = |loc: Location| -> Result<Location, Error> {
            if self.enable_alpha_plugins {
                Ok(loc)
            } else {
                let flags = match (&loc, self.enable_exec) {
                    (Location::Krm(_), false) => "--enable-alpha-plugins --enable-exec",
                    _ => "--enable-alpha-plugins",
                };
                Err(Error::new(format!(
                    "{} is not a builtin kind: the {} plugin {} would run it, but plugins other than the builtins are disabled; add {flags} to run it",
                    what(),
                    loc.protocol(),
                    loc.path().display()
                )))
            }
        };
        if kep_found {
            return alpha(Location::Kep(kep));
        }
        let root_only = self.load_restrictor != "LoadRestrictionsNone";
        if let Some(spec) = container::container_spec(self, config, dir, root_only)
            .map_err(|e| e.context(what()))?
        {
            return alpha(Location::Container(spec));
        }
        if let Some(spec) =
            krm::function_spec(config, dir, root_only).map_err(|e| e.context(what()))?
        {
            let loc = alpha(Location::Krm(spec))?;
            if !self.enable_exec {
                return Err(Error::new(format!(
                    "{}: KRM exec function {} needs --enable-exec (with --enable-alpha-plugins) to run",
                    what(),
                    loc.path().display()
                )));
            }
            return Ok(loc);
        }
        let legacy = self
            .legacy_home
            .as_ref()
            .map(|home| legacy::plugin_path(home, config));
        if let Some(path) = &legacy {
            match std::fs::metadata(path) {
                Ok(m) if m.is_file() && is_executable(path) => {
                    return alpha(Location::Legacy(path.clone()));
                }
                Ok(_) => {
                    return Err(Error::new(format!(
                        "{}: unexecutable plugin at: {} (set its executable bit: chmod +x)",
                        what(),
                        path.display()
                    )))
                }
                Err(_) => {}
            }
        }
        let mut looked = vec![format!("KEP plugin {}", kep.display())];
        looked
            .push("KRM function: no config.kubernetes.io/function annotation on the object".into());
        match &legacy {
            Some(p) => looked.push(format!("legacy exec plugin {}", p.display())),
            None => looked.push(format!(
                "legacy exec plugin home: none of {} exists",
                legacy::home_candidates()
                    .iter()
                    .map(|(_, p)| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
        let hint = if self.enable_alpha_plugins {
            ""
        } else {
            "; plugins other than the builtins also need --enable-alpha-plugins"
        };
        if kep.is_file() {
            // Installed by hand without its executable bit: say so rather
            // than suggest installing what is already there.
            return Err(Error::new(format!(
                "{}: the KEP plugin {} exists but is not executable; run `chmod +x {}`{hint}",
                what(),
                kep.display(),
                kep.display()
            )));
        }
        Err(Error::new(format!(
            "no plugin for {} (group {group:?}); looked for:\n  {}\ninstall one (`kustom plugin install EXECUTABLE --group {group}`){hint}",
            what(),
            looked.join("\n  ")
        )))
    }
}
/// A plugin's name as `kustom.lock` and the policy file write it (see
/// [`crate::fetch::lock`]).
pub fn plugin_name(loc: &Location, config: &Value) -> String {
    match loc {
        Location::Kep(_) if group_of(config) == BUILTIN_GROUP => "builtin override".into(),
        Location::Kep(_) => format!("KEP {}", group_of(config)),
        Location::Legacy(_) => {
            let gvk = Gvk::from_api_version(resource::api_version(config), resource::kind(config));
            let parts: Vec<&str> = [gvk.group.as_str(), gvk.version.as_str(), gvk.kind.as_str()]
                .into_iter()
                .filter(|p| !p.is_empty())
                .collect();
            format!("legacy {}", parts.join("/"))
        }
        Location::Krm(spec) => format!("KRM {}", spec.written),
        Location::Container(spec) => container::plugin_name(spec),
        Location::ShippedBuiltin(_) => "builtin (shipped)".into(),
    }
}

/// Refuse a config whose apiVersion or kind could steer the plugin lookup
/// out of the plugin directories: the group, version and kind become path
/// components, so each must be a plain name (letters, digits, `.`, `-`,
/// `_`; not `.` or `..`, no `..` inside a group).
pub(super) fn check_lookup_names(config: &Value, kust_file: &Path) -> Result<(), Error> {
    let av = resource::api_version(config);
    let kind = resource::kind(config);
    let gvk = Gvk::from_api_version(av, kind);
    let plain = |s: &str| {
        s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'))
            && !s.starts_with('.')
            && !s.contains("..")
    };
    let bad = [
        (
            "group",
            gvk.group.as_str(),
            gvk.group.is_empty() || plain(&gvk.group),
        ),
        ("version", gvk.version.as_str(), plain(&gvk.version)),
        ("kind", kind, plain(kind)),
    ]
    .into_iter()
    .find(|(_, _, ok)| !ok);
    match bad {
        None => Ok(()),
        Some((what, value, _)) => Err(Error::new(format!(
            "apiVersion {av:?} kind {kind:?} (listed in {}): the {what} {value:?} is not a plain name (letters, digits, '.', '-', '_'; no '..' or '/'); kustom refuses it because plugin lookup turns it into a path",
            kust_file.display()
        ))),
    }
}

/// Whether `p` is a regular file with an executable bit set.
pub fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p)
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}
