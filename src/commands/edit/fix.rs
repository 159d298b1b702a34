//! `kustom edit fix`: deprecated fields to their replacements
//! (`patchesJson6902` and `patchesStrategicMerge` → `patches`,
//! `commonLabels` → `labels`, with `--vars` `vars` → `replacements`
//! (see [`super::fixvars`]); `bases`, `imageTags` and `env` are fixed by
//! every edit), then a build before and after to warn when the output
//! changed.

use super::kustfile::KustFile;
use super::util::{self, map_mut};
use crate::commands::stdout;
use clap::Args;
use kustom_api::Error;
use serde_json::{Map, Value};
use std::path::Path;

/// Flags of `edit fix`.
#[derive(Args, Debug)]
pub struct FixArgs {
    /// If specified, kustomize will attempt to convert vars to replacements.
    /// We recommend doing this in a clean git repository where the change is
    /// easy to undo.
    #[arg(long)]
    pub vars: bool,
}

/// Run `edit fix` in the working directory.
pub fn run(args: &FixArgs) -> Result<(), Error> {
    let before = render(Path::new("."));
    let mut file = KustFile::find(Path::new(""))?;
    let mut k = file.read()?;
    fix_pre_marshalling(&mut k)?;
    if args.vars {
        super::fixvars::convert(&mut k)?;
        stdout::println(
            "\nFixed fields:\n  patchesJson6902 -> patches\n  patchesStrategicMerge -> patches\n  commonLabels -> labels\n  vars -> replacements"
        )?;
    } else {
        stdout::println(
            "\nFixed fields:\n  patchesJson6902 -> patches\n  patchesStrategicMerge -> patches\n  commonLabels -> labels\n\n\
             To convert vars -> replacements, run the command `kustomize edit fix --vars`\n\n\
             WARNING: Converting vars to replacements will potentially overwrite many resource files \n\
             and the resulting files may not produce the same output when `kustomize build` is run. \n\
             We recommend doing this in a clean git repository where the change is easy to undo."
        )?;
    }
    let written = file.write(&k);
    match render(Path::new(".")) {
        Err(e) => stdout::println(&format!(
            "Warning: 'Fixed' kustomization now produces the error when running `kustomize build`: {e}"
        ))?,
        Ok(after) if Ok(&after) != before.as_ref() => stdout::println(&format!(
            "Warning: 'Fixed' kustomization now produces different output when running `kustomize build`:\n...{after}...",
        ))?,
        Ok(_) => {}
    }
    written
}

/// kustomize's `FixKustomizationPreMarshalling`.
pub fn fix_pre_marshalling(k: &mut Map<String, Value>) -> Result<(), Error> {
    super::kustfile::move_list(k, "patchesJson6902", "patches");
    if let Some(Value::Array(smp)) = k.remove("patchesStrategicMerge") {
        let patches = util::objects_mut(k, "patches");
        for p in smp.iter().filter_map(Value::as_str) {
            // A readable file becomes `path:`, anything else inline `patch:`.
            let key = if std::fs::read(p).is_ok() {
                "path"
            } else {
                "patch"
            };
            let mut entry = Map::new();
            entry.insert(key.into(), Value::String(p.to_string()));
            patches.push(Value::Object(entry));
        }
    }
    if let Some(Value::Object(common)) = k.remove("commonLabels") {
        if !common.is_empty() {
            if let Some(Value::Array(labels)) = k.get("labels") {
                for l in labels {
                    if let Some(Value::Object(pairs)) = l.get("pairs") {
                        if let Some(name) = pairs.keys().find(|p| common.contains_key(*p)) {
                            return Err(Error::new(format!(
                                "label name '{name}' exists in both commonLabels and labels"
                            )));
                        }
                    }
                }
            }
            let mut entry = Map::new();
            entry.insert("includeSelectors".into(), Value::Bool(true));
            *map_mut(&mut entry, "pairs") = common;
            util::objects_mut(k, "labels").push(Value::Object(entry));
        }
    }
    Ok(())
}

/// The build output of a directory, as `kustom build` prints it.
fn render(dir: &Path) -> Result<String, Error> {
    let settings = crate::commands::build_settings::plugin_settings()?;
    let builder = crate::operations::builder::Builder::new(
        settings,
        crate::operations::builder::LoadRestrictor::RootOnly,
    );
    let built = builder.build(dir)?;
    let mut resources = built.resources;
    crate::operations::output::sort(
        &mut resources,
        &built.top,
        crate::operations::output::Reorder::Unspecified,
    )?;
    Ok(crate::operations::output::render(&resources, &built.top))
}
