//! `kustom edit set …`: set scalar fields, images, replicas and maps.

use super::kustfile::Kustomization;
use super::util::{self, str_of};
use super::{edit, edit_wrapped};
use clap::{Args, Subcommand};
use kustom_api::Error;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// `edit set` subcommands.
#[derive(Subcommand, Debug)]
pub enum SetCommand {
    /// Sets images and their new names, new tags or digests in the kustomization file.
    #[command(
        long_about = "Sets images and their new names, new tags or digests in the kustomization file. \
                      Each IMAGE is <image>=<newimage>[:<newtag>][@<digest>], <image>:<newtag>[@<digest>] \
                      or <image>@<digest>; a registry's port (registry:5000/app) belongs to the name, and the \
                      tag is whatever follows the last ':' after it. An entry of the same image name is \
                      replaced, other entries are kept, and the list is sorted by name. Passing * as the new \
                      name, tag or digest keeps the value already in the file.",
        after_help = "Examples:\n  kustom edit set image postgres=eu.gcr.io/my-project/postgres:latest\n  kustom edit set image node:8.15.0 mysql=mariadb alpine@sha256:24a0c4b4a4c0eb97a1aabb8e29f18e917d05abfe1b7a7c07857230879ce7d3d3\n  kustom edit set image app=*:v2"
    )]
    Image {
        /// `<image>=<newimage>[:<newtag>][@<digest>]`, `<image>:<newtag>[@<digest>]` or `<image>@<digest>`.
        images: Vec<String>,
    },
    /// Sets the value of the namePrefix field in the kustomization file.
    #[command(after_help = "Example:\n  kustom edit set nameprefix acme-")]
    Nameprefix {
        /// The prefix.
        values: Vec<String>,
    },
    /// Sets the value of the nameSuffix field in the kustomization file.
    #[command(after_help = "Example:\n  kustom edit set namesuffix -v2")]
    Namesuffix {
        /// The suffix.
        values: Vec<String>,
    },
    /// Sets the value of the namespace field in the kustomization file.
    #[command(after_help = "Example:\n  kustom edit set namespace staging")]
    Namespace {
        /// The namespace.
        values: Vec<String>,
    },
    /// Sets replicas count for resources in the kustomization file.
    #[command(after_help = "Example:\n  kustom edit set replicas my-app=3 other-app=1")]
    Replicas {
        /// `<name>=<count>`.
        replicas: Vec<String>,
    },
    /// Sets one or more commonLabels in kustomization.yaml.
    #[command(after_help = "Example:\n  kustom edit set label env:prod team:web")]
    Label {
        /// `key:value` pairs.
        pairs: Vec<String>,
    },
    /// Sets one or more commonAnnotations in kustomization.yaml.
    #[command(after_help = "Example:\n  kustom edit set annotation owner:alice")]
    Annotation {
        /// `key:value` pairs.
        pairs: Vec<String>,
    },
    /// Edits the value for an existing key for a ConfigMap in the kustomization.yaml file.
    #[command(
        after_help = "Examples:\n  kustom edit set configmap my-configmap --from-literal=key1=2\n  kustom edit set configmap my-configmap --namespace=current-namespace --new-namespace=new-namespace"
    )]
    Configmap(SetGeneratorFlags),
    /// Edits the value for an existing key for a Secret in the kustomization.yaml file.
    #[command(
        after_help = "Examples:\n  kustom edit set secret my-secret --from-literal=password=new\n  kustom edit set secret my-secret --namespace=old --new-namespace=new"
    )]
    Secret(SetGeneratorFlags),
    /// Sets one or more buildMetadata options to the kustomization.yaml in the current directory.
    #[command(
        after_help = "Example:\n  kustom edit set buildmetadata originAnnotations,transformerAnnotations"
    )]
    Buildmetadata {
        /// Comma-separated options.
        options: Vec<String>,
    },
}

/// Flags of `edit set configmap|secret`.
#[derive(Args, Debug)]
pub struct SetGeneratorFlags {
    /// NAME of the ConfigMap or Secret.
    pub names: Vec<String>,
    /// An existing key and its new value (`mykey=newvalue`); repeatable.
    #[arg(long, allow_hyphen_values = true)]
    pub from_literal: Vec<String>,
    /// Current namespace of the target.
    #[arg(long, default_value = "", allow_hyphen_values = true)]
    pub namespace: String,
    /// New namespace value for the target.
    #[arg(long, default_value = "", allow_hyphen_values = true)]
    pub new_namespace: String,
}

const IMAGE_FORMATS: &str = "invalid format of image, use one of the following options:
- <image>=<newimage>:<newtag>
- <image>=<newimage>@<digest>
- <image>=<newimage>:<newtag>@<digest>
- <image>=<newimage>
- <image>:<newtag>
- <image>:<newtag>@<digest>
- <image>@<digest>";

/// Run one `edit set` subcommand in the working directory.
pub fn run(cmd: &SetCommand) -> Result<(), Error> {
    match cmd {
        SetCommand::Image { images } => set_images(images),
        SetCommand::Nameprefix { values } => set_scalar(values, "namePrefix", "prefix"),
        SetCommand::Namesuffix { values } => set_scalar(values, "nameSuffix", "suffix"),
        SetCommand::Namespace { values } => set_scalar(values, "namespace", "namespace"),
        SetCommand::Replicas { replicas } => set_replicas(replicas),
        SetCommand::Label { pairs } => set_map(pairs, "label", "commonLabels"),
        SetCommand::Annotation { pairs } => set_map(pairs, "annotation", "commonAnnotations"),
        SetCommand::Configmap(flags) => set_generator(
            flags,
            "configMapGenerator",
            "ConfigMapGenerator",
            "ConfigMap",
        ),
        SetCommand::Secret(flags) => {
            set_generator(flags, "secretGenerator", "SecretGenerator", "Secret")
        }
        SetCommand::Buildmetadata { options } => {
            let options = super::validate_build_metadata(options)?;
            edit(|k, _| {
                util::set_strings(k, "buildMetadata", Some(options));
                Ok(())
            })
        }
    }
}

fn set_scalar(values: &[String], field: &str, what: &str) -> Result<(), Error> {
    let [value] = values else {
        return Err(Error::new(format!("must specify exactly one {what} value")));
    };
    edit(|k, _| {
        k.insert(field.to_string(), Value::String(value.clone()));
        Ok(())
    })
}

/// One image argument: (name, newName, newTag, digest).
#[derive(Debug, Clone, Default, PartialEq)]
struct Image {
    name: String,
    new_name: String,
    new_tag: String,
    digest: String,
}

/// kustomize's image `Split`: name, tag and digest (a registry host's port
/// is not a tag).
pub fn split_image(image: &str) -> (String, String, String) {
    let slash = image.find('/').filter(|&i| i > 0).unwrap_or(0);
    let search = &image[slash..];
    let at = search.find('@');
    let colon = search.find(':');
    match (at, colon) {
        (None, None) => (image.to_string(), String::new(), String::new()),
        (Some(a), c) if c.is_none() || a < c.unwrap_or(usize::MAX) => {
            let a = a + slash;
            (
                image[..a].to_string(),
                String::new(),
                image[a + 1..].to_string(),
            )
        }
        (Some(a), Some(c)) => {
            let (a, c) = (a + slash, c + slash);
            (
                image[..c].to_string(),
                image[c + 1..a].to_string(),
                image[a + 1..].to_string(),
            )
        }
        (None, Some(c)) => {
            let c = c + slash;
            (
                image[..c].to_string(),
                image[c + 1..].to_string(),
                String::new(),
            )
        }
        (Some(_), None) => unreachable!("covered above"),
    }
}

fn parse_image(arg: &str) -> Result<Image, Error> {
    let (key, value) = match arg.split_once('=') {
        Some((k, v)) => (k, v),
        None => ("", arg),
    };
    let (name, tag, digest) = split_image(value);
    if name == arg {
        return Err(Error::new(IMAGE_FORMATS));
    }
    let mut img = Image {
        new_tag: tag,
        digest,
        ..Image::default()
    };
    if key.is_empty() {
        img.name = name;
    } else {
        img.name = key.to_string();
        img.new_name = name;
    }
    Ok(img)
}

fn set_images(args: &[String]) -> Result<(), Error> {
    if args.is_empty() {
        return Err(Error::new("no image specified"));
    }
    let mut wanted: BTreeMap<String, Image> = BTreeMap::new();
    for arg in args {
        let img = parse_image(arg)?;
        wanted.insert(img.name.clone(), img);
    }
    edit(|k, _| {
        let existing: Vec<Value> = match k.get("images") {
            Some(Value::Array(a)) => a.clone(),
            _ => Vec::new(),
        };
        // Entries of the file not named on the command line are kept as they
        // are (tagSuffix included); named ones are replaced, `*` keeping the
        // file's value.
        let mut kept: BTreeMap<String, Value> = BTreeMap::new();
        for old in &existing {
            let name = str_of(old, "name").to_string();
            if let Some(arg) = wanted.get_mut(&name) {
                if arg.new_name == "*" {
                    arg.new_name = str_of(old, "newName").to_string();
                }
                if arg.new_tag == "*" {
                    arg.new_tag = str_of(old, "newTag").to_string();
                }
                if arg.digest == "*" {
                    arg.digest = str_of(old, "digest").to_string();
                }
                continue;
            }
            kept.insert(name, old.clone());
        }
        for (name, img) in &wanted {
            let star = |s: &str| {
                if s == "*" {
                    String::new()
                } else {
                    s.to_string()
                }
            };
            let mut o = Map::new();
            for (key, v) in [
                ("name", img.name.clone()),
                ("newName", star(&img.new_name)),
                ("newTag", star(&img.new_tag)),
                ("digest", star(&img.digest)),
            ] {
                if !v.is_empty() {
                    o.insert(key.into(), Value::String(v));
                }
            }
            kept.insert(name.clone(), Value::Object(o));
        }
        // Sorted by name, as kustomize sorts them (byte order).
        k.insert("images".into(), Value::Array(kept.into_values().collect()));
        Ok(())
    })
}

fn set_replicas(args: &[String]) -> Result<(), Error> {
    if args.is_empty() {
        return Err(Error::new("no replicas specified"));
    }
    let invalid =
        || Error::new("invalid format of replica, use the following format: <name>=<count>");
    let mut wanted: BTreeMap<String, Value> = BTreeMap::new();
    for arg in args {
        let parts: Vec<&str> = arg.split('=').collect();
        let [name, count] = parts.as_slice() else {
            return Err(invalid());
        };
        let count: i64 = parse_go_int(count).ok_or_else(invalid)?;
        let mut o = Map::new();
        if !name.is_empty() {
            o.insert("name".into(), Value::String(name.to_string()));
        }
        o.insert("count".into(), Value::from(count));
        wanted.insert(name.to_string(), Value::Object(o));
    }
    edit(|k, _| {
        if let Some(Value::Array(old)) = k.get("replicas") {
            for r in old {
                wanted
                    .entry(str_of(r, "name").to_string())
                    .or_insert_with(|| r.clone());
            }
        }
        k.insert(
            "replicas".into(),
            Value::Array(wanted.into_values().collect()),
        );
        Ok(())
    })
}

/// Go's `strconv.ParseInt(s, 10, 64)`: optional sign, decimal digits.
fn parse_go_int(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// Whether an annotation key is valid (kustomize's `IsValidKey`).
fn is_valid_annotation_key(key: &str) -> bool {
    let (prefix, name) = match key.split_once('/') {
        Some((p, n)) => (Some(p), n),
        None => (None, key),
    };
    if let Some(p) = prefix {
        let b = p.as_bytes();
        let ok = !b.is_empty()
            && b.len() <= 253
            && b[0].is_ascii_alphabetic()
            && b[b.len() - 1].is_ascii_alphanumeric()
            && b.iter()
                .all(|c| c.is_ascii_alphanumeric() || *c == b'-' || *c == b'.');
        if !ok {
            return false;
        }
    }
    kustom_builtin::target::is_name_part(name)
}

fn set_map(pairs: &[String], kind: &str, field: &str) -> Result<(), Error> {
    if pairs.is_empty() {
        return Err(Error::new(format!("must specify {kind}")));
    }
    let map = util::convert_slice_to_map(pairs, kind)?;
    if kind == "annotation" && !map.keys().all(|k| is_valid_annotation_key(k)) {
        return Err(Error::new("invalid annotation key: see the syntax and character set rules at https://kubernetes.io/docs/concepts/overview/working-with-objects/annotations/"));
    }
    edit(|k, _| {
        let target = util::map_mut(k, field);
        for (key, value) in map {
            target.insert(key, Value::String(value));
        }
        Ok(())
    })
}

fn set_generator(
    flags: &SetGeneratorFlags,
    field: &str,
    kind: &str,
    noun: &str,
) -> Result<(), Error> {
    let [name] = flags.names.as_slice() else {
        return Err(Error::new("name must be specified once").context("failed to validate flags"));
    };
    if flags.from_literal.is_empty() && flags.new_namespace.is_empty() {
        return Err(Error::new(
            "at least one of [--from-literal, --new-namespace] must be specified",
        )
        .context("failed to validate flags"));
    }
    let lower = noun.to_ascii_lowercase();
    edit_wrapped(|k: &mut Kustomization, _| {
        let global = k.get("generatorOptions").cloned();
        let list = util::objects_mut(k, field);
        let Some(entry) = list.iter_mut().find(|g| {
            str_of(g, "name") == name
                && util::namespace_equal(&flags.namespace, str_of(g, "namespace"))
        }) else {
            return Err(
                Error::new(format!("unable to find {noun} with name \"{name}\""))
                    .context(format!("could not set new {noun} value"))
                    .context(format!("failed to create {lower}")),
            );
        };
        let entry_obj = entry
            .as_object_mut()
            .expect("generator entries are objects");
        if !flags.from_literal.is_empty() {
            update_literals(entry_obj, &flags.from_literal).map_err(|e| {
                e.context("failed to update literal sources")
                    .context(format!("failed to create {lower}"))
            })?;
        }
        if !flags.new_namespace.is_empty() {
            entry_obj.insert(
                "namespace".into(),
                Value::String(flags.new_namespace.clone()),
            );
        }
        util::merge_global_options(entry_obj, global.as_ref());
        util::check_generator(kind, entry).map_err(|e| {
            e.context(format!("failed to validate {noun} structure"))
                .context(format!("failed to create {lower}"))
        })
    })
}

/// kustomize's `UpdateLiteralSources`: every key given must exist already.
fn update_literals(entry: &mut Map<String, Value>, updates: &[String]) -> Result<(), Error> {
    let split = |s: &str| -> Result<(String, String), Error> {
        if s.matches('=').count() != 1 {
            return Err(Error::new(
                "invalid format: literal values must be specified in the key=value format",
            )
            .context("failed to update resource"));
        }
        let (k, v) = s.split_once('=').expect("one '='");
        Ok((k.to_string(), v.to_string()))
    };
    let mut sources: Vec<(String, String)> = Vec::new();
    if let Some(Value::Array(lits)) = entry.get("literals") {
        for l in lits.iter().filter_map(Value::as_str) {
            let (k, v) = split(l)?;
            match sources.iter_mut().find(|(key, _)| *key == k) {
                Some(slot) => slot.1 = v,
                None => sources.push((k, v)),
            }
        }
    }
    for u in updates {
        let (k, v) = split(u)?;
        match sources.iter_mut().find(|(key, _)| *key == k) {
            Some(slot) => slot.1 = v,
            None => return Err(Error::new(format!("key '{k}' not found in resource"))),
        }
    }
    // kustomize rebuilds the list from a Go map (random order); the file's
    // order is kept here.
    entry.insert(
        "literals".into(),
        Value::Array(
            sources
                .into_iter()
                .map(|(k, v)| Value::String(format!("{k}={v}")))
                .collect(),
        ),
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn image_split() {
        let s = |i: &str| split_image(i);
        assert_eq!(s("nginx"), ("nginx".into(), "".into(), "".into()));
        assert_eq!(s("nginx:1.2"), ("nginx".into(), "1.2".into(), "".into()));
        assert_eq!(
            s("reg:5000/app"),
            ("reg:5000/app".into(), "".into(), "".into())
        );
        assert_eq!(
            s("reg:5000/app:v1@sha256:ab"),
            ("reg:5000/app".into(), "v1".into(), "sha256:ab".into())
        );
        assert_eq!(
            s("app@sha256:ab"),
            ("app".into(), "".into(), "sha256:ab".into())
        );
    }
}
