//! `kustom create`: a new kustomization.yaml in the working directory, as
//! `kustomize create` writes it.

use crate::commands::edit::kustfile::KustFile;
use crate::commands::edit::util;
use clap::Args;
use kustom_api::Error;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Flags of `kustom create`, as kustomize's.
#[derive(Args, Debug)]
#[command(after_help = "Examples:
  # Create a new overlay from the base '../base'.
  kustom create --resources ../base

  # Create a new kustomization detecting resources in the current directory.
  kustom create --autodetect

  # Create a new kustomization with multiple resources and fields set.
  kustom create --resources deployment.yaml,service.yaml,../base --namespace staging --nameprefix acme-")]
pub struct CreateArgs {
    /// Comma-separated files, directories or URLs to add to resources.
    #[arg(long, default_value = "", allow_hyphen_values = true)]
    pub resources: String,
    /// Set the value of the namespace field.
    #[arg(long, default_value = "", allow_hyphen_values = true)]
    pub namespace: String,
    /// Add one or more common annotations (`k:v,k2:v2`).
    #[arg(long, default_value = "", allow_hyphen_values = true)]
    pub annotations: String,
    /// Add one or more common labels (`k:v,k2:v2`).
    #[arg(long, default_value = "", allow_hyphen_values = true)]
    pub labels: String,
    /// Sets the value of the namePrefix field.
    #[arg(long, default_value = "", allow_hyphen_values = true)]
    pub nameprefix: String,
    /// Sets the value of the nameSuffix field.
    #[arg(long, default_value = "", allow_hyphen_values = true)]
    pub namesuffix: String,
    /// Search for Kubernetes resources in the current directory to add.
    #[arg(long)]
    pub autodetect: bool,
    /// Search directories recursively (with --autodetect); a directory with
    /// a kustomization is added as a whole.
    #[arg(long)]
    pub recursive: bool,
}

/// Run `kustom create` in the working directory.
pub fn run(args: &CreateArgs) -> Result<(), Error> {
    let mut resources = if args.resources.is_empty() {
        Vec::new()
    } else {
        let patterns: Vec<String> = args.resources.split(',').map(str::to_string).collect();
        util::glob_patterns_with_loader(&patterns, false)?
    };
    if KustFile::find(Path::new("")).is_ok() {
        return Err(Error::new("kustomization file already exists"));
    }
    if args.autodetect {
        for found in detect(Path::new("."), args.recursive)? {
            if !resources.contains(&found) {
                resources.push(found);
            }
        }
    }
    std::fs::write("kustomization.yaml", "")
        .map_err(|e| Error::new(format!("creating kustomization.yaml: {e}")))?;
    let mut file = KustFile::find(Path::new(""))?;
    let mut k = file.read()?;
    util::set_strings(&mut k, "resources", Some(resources));
    for (field, value) in [
        ("namespace", &args.namespace),
        ("namePrefix", &args.nameprefix),
        ("nameSuffix", &args.namesuffix),
    ] {
        k.insert(field.into(), Value::String(value.clone()));
    }
    for (field, input, kind) in [
        ("commonAnnotations", &args.annotations, "annotation"),
        ("commonLabels", &args.labels, "label"),
    ] {
        let pairs: Vec<String> = if input.is_empty() {
            Vec::new()
        } else {
            input.split(',').map(str::to_string).collect()
        };
        let map = util::convert_slice_to_map(&pairs, kind)?;
        k.insert(
            field.into(),
            Value::Object(
                map.into_iter()
                    .map(|(a, b)| (a, Value::String(b)))
                    .collect(),
            ),
        );
    }
    file.write(&k)
}

/// Files below `base` that hold Kubernetes resources (and, recursively,
/// directories with a kustomization), in walk order, as kustomize detects them.
fn detect(base: &Path, recursive: bool) -> Result<Vec<String>, Error> {
    let mut out = Vec::new();
    walk(base, base, recursive, &mut out)?;
    Ok(out)
}

fn walk(base: &Path, dir: &Path, recursive: bool, out: &mut Vec<String>) -> Result<(), Error> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| Error::new(format!("reading {}: {e}", dir.display())))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    // Go's filepath.Walk visits names in lexical order.
    entries.sort();
    for path in entries {
        let rel = path
            .strip_prefix(base)
            .unwrap_or(&path)
            .to_string_lossy()
            .into_owned();
        if path.is_dir() {
            if !recursive {
                continue;
            }
            if crate::commands::edit::kustfile::FILE_NAMES
                .iter()
                .any(|n| path.join(n).exists())
            {
                out.push(rel);
                continue;
            }
            walk(base, &path, recursive, out)?;
        } else if holds_resources(&path) {
            out.push(rel);
        }
    }
    Ok(())
}

/// Whether a file parses as Kubernetes objects (every document a map with a
/// kind); an empty file counts, as in kustomize.
fn holds_resources(path: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(path) else {
        return false;
    };
    match kustom_api::yaml::parse_stream(&text) {
        Ok(docs) => docs.iter().all(|d| {
            d.is_null()
                || d.get("kind")
                    .and_then(Value::as_str)
                    .is_some_and(|k| !k.is_empty())
        }),
        Err(_) => false,
    }
}
