//! What calls will be made: the configs of one kustomization phase grouped
//! into plugin calls (one per KEP executable and group, one per legacy
//! plugin or KRM function config).

use super::lookup::{group_of, Location};
use super::settings::Settings;
use kustom_api::{Error, Value};
use std::path::Path;

impl Settings {
    /// Locate the plugin of every config and group the calls: consecutive
    /// configs served by the same KEP (or shipped builtin) executable form
    /// one call; legacy plugins and KRM functions are called once per config,
    /// as kustomize does.
    pub(super) fn plan<'c>(
        &self,
        configs: &'c [Value],
        dir: &Path,
        kust_file: &Path,
    ) -> Result<Vec<(Location, &'c [Value])>, Error> {
        let mut out: Vec<(Location, &'c [Value])> = Vec::new();
        let mut start = 0;
        for i in 0..configs.len() {
            let loc = self.locate(&configs[i], dir, kust_file)?;
            let joins = matches!(loc, Location::Kep(_) | Location::ShippedBuiltin(_))
                && out.last().is_some_and(|(prev, _)| *prev == loc)
                && group_of(&configs[i]) == group_of(&configs[start]);
            if joins {
                if let Some(last) = out.last_mut() {
                    last.1 = &configs[start..=i];
                }
            } else {
                start = i;
                out.push((loc, &configs[i..=i]));
            }
        }
        Ok(out)
    }

    /// Whether [`Settings::generate_and_transform`] can run `generators`:
    /// all served by the shipped builtin, none merging into or replacing an
    /// existing resource (that merge is the core's).
    pub fn can_generate_in_transform(
        &self,
        generators: &[Value],
        dir: &Path,
        kust_file: &Path,
    ) -> Result<bool, Error> {
        // The audit log records generators as generators, one by one.
        if self.audit.is_some() {
            return Ok(false);
        }
        for g in generators {
            if !matches!(self.locate(g, dir, kust_file)?, Location::ShippedBuiltin(_))
                || matches!(
                    g.get("behavior").and_then(Value::as_str),
                    Some("merge" | "replace")
                )
            {
                return Ok(false);
            }
        }
        Ok(true)
    }
}
