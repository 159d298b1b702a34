//! `kustom edit add …`: append to the kustomization's lists and maps.

use super::kustfile::Kustomization;
use super::util::{self, notice, str_of};
use super::{edit, edit_if, GeneratorFlags, PatchFlags};
use clap::{Args, Subcommand};
use kustom_api::Error;
use serde_json::{Map, Value};

/// `edit add` subcommands.
#[derive(Subcommand, Debug)]
pub enum AddCommand {
    /// Add the name of a file containing a resource to the kustomization file.
    #[command(
        after_help = "Example:\n  kustom edit add resource deployment.yaml service.yaml ../base"
    )]
    Resource {
        /// Files, directories, globs or remote URLs.
        paths: Vec<String>,
        /// Skip validation for resources.
        #[arg(long)]
        no_verify: bool,
    },
    /// Adds one or more bases to the kustomization.yaml in current directory.
    #[command(after_help = "Example:\n  kustom edit add base ../base,../other")]
    Base {
        /// Comma-separated directories.
        paths: Vec<String>,
    },
    /// Add the name of a file containing a component to the kustomization file.
    #[command(after_help = "Example:\n  kustom edit add component ../components/ldap")]
    Component {
        /// Component directories or globs.
        paths: Vec<String>,
    },
    /// Add an item to patches field.
    #[command(
        long_about = "Add an item to the patches field: a strategic merge patch or a JSON patch, \
                      from a file (--path) or inline (--patch), targeting one or several resources.",
        after_help = "Example:\n  kustom edit add patch --path patch.yaml --kind Deployment --name web"
    )]
    Patch(PatchFlags),
    /// Adds one or more commonLabels to kustomization.yaml.
    #[command(
        after_help = "Example:\n  kustom edit add label env:prod,team:web\n  kustom edit add label --force --without-selector --include-templates app.kubernetes.io/part-of:shop"
    )]
    Label(MetadataArgs),
    /// Adds one or more commonAnnotations to kustomization.yaml.
    #[command(
        after_help = "Example:\n  kustom edit add annotation owner:alice,tier:\"front end\""
    )]
    Annotation(MetadataArgs),
    /// Adds a configmap to the kustomization file.
    #[command(
        after_help = "Example:\n  kustom edit add configmap my-configmap --from-file=my-key=file/path --from-literal=my-literal=12345\n  kustom edit add configmap my-configmap --behavior=merge --from-env-file=env/path.env"
    )]
    Configmap(GeneratorFlags),
    /// Adds a secret to the kustomization file.
    #[command(
        after_help = "Example:\n  kustom edit add secret my-secret --from-literal=password=s3cret --type=Opaque"
    )]
    Secret(SecretFlags),
    /// Add the name of a file containing a generator configuration to the kustomization file.
    #[command(after_help = "Example:\n  kustom edit add generator generator.yaml")]
    Generator {
        /// Files or globs.
        paths: Vec<String>,
    },
    /// Add the name of a file containing a transformer configuration to the kustomization file.
    #[command(after_help = "Example:\n  kustom edit add transformer transformer.yaml")]
    Transformer {
        /// Files or globs.
        paths: Vec<String>,
    },
    /// Adds one or more buildMetadata options to the kustomization.yaml in the current directory.
    #[command(
        long_about = "Adds one or more buildMetadata options (originAnnotations, transformerAnnotations, managedByLabel), comma-separated.",
        after_help = "Example:\n  kustom edit add buildmetadata originAnnotations,managedByLabel"
    )]
    Buildmetadata {
        /// Comma-separated options.
        options: Vec<String>,
    },
}

/// Arguments of `edit add label|annotation`.
#[derive(Args, Debug)]
pub struct MetadataArgs {
    /// `key:value` pairs (comma-separated or separate arguments).
    pub pairs: Vec<String>,
    /// Overwrite an entry that already exists.
    #[arg(short, long)]
    pub force: bool,
    /// Add the labels to `labels:` without selectors (labels only).
    #[arg(long)]
    pub without_selector: bool,
    /// Also add the labels to templates (requires --without-selector; labels only).
    #[arg(long)]
    pub include_templates: bool,
}

/// Flags of `edit add secret`.
#[derive(Args, Debug)]
pub struct SecretFlags {
    /// Shared configmap/secret flags.
    #[command(flatten)]
    pub common: GeneratorFlags,
    /// The secret type: Opaque (default) or kubernetes.io/tls.
    #[arg(long = "type", default_value = "Opaque")]
    pub secret_type: String,
}

/// Run one `edit add` subcommand in the working directory.
pub fn run(cmd: &AddCommand) -> Result<(), Error> {
    match cmd {
        AddCommand::Resource { paths, no_verify } => {
            if paths.is_empty() {
                return Err(Error::new("must specify a resource file"));
            }
            let found = util::glob_patterns_with_loader(paths, *no_verify)?;
            add_paths(found, "resources", "resource", true)
        }
        AddCommand::Component { paths } => {
            if paths.is_empty() {
                return Err(Error::new("must specify a component file"));
            }
            let found = util::glob_patterns_with_loader(paths, false)?;
            add_paths(found, "components", "component", true)
        }
        AddCommand::Generator { paths } | AddCommand::Transformer { paths } => {
            let (field, what) = match cmd {
                AddCommand::Generator { .. } => ("generators", "generator"),
                _ => ("transformers", "transformer"),
            };
            if paths.is_empty() {
                return Err(Error::new(format!(
                    "must specify a yaml file which contains a {what} plugin resource"
                )));
            }
            let found = util::glob_patterns(paths)?;
            add_paths(found, field, what, false)
        }
        AddCommand::Base { paths } => {
            let [arg] = paths.as_slice() else {
                return Err(Error::new("must specify a base directory"));
            };
            edit(|k, _| {
                let mut resources = util::strings(k, "resources");
                for path in arg.split(',') {
                    if !util::exists(path) {
                        return Err(Error::new(format!("{path} does not exist")));
                    }
                    if resources.iter().any(|r| r == path) {
                        return Err(Error::new(format!(
                            "base {path} already in kustomization file"
                        )));
                    }
                    resources.push(path.to_string());
                }
                util::set_strings(k, "resources", Some(resources));
                Ok(())
            })
        }
        AddCommand::Patch(flags) => {
            let patch = flags.to_patch(true)?;
            edit_if(|k, _| {
                let patches = util::objects_mut(k, "patches");
                if let Some(p) = patches.iter().find(|p| super::patch_equal(p, &patch)) {
                    notice(format!("patch {p} already in kustomization file"));
                    return Ok(false);
                }
                patches.push(patch.clone());
                Ok(true)
            })
        }
        AddCommand::Label(args) => add_metadata(args, true),
        AddCommand::Annotation(args) => add_metadata(args, false),
        AddCommand::Configmap(flags) => add_generator(flags, None),
        AddCommand::Secret(flags) => add_generator(&flags.common, Some(&flags.secret_type)),
        AddCommand::Buildmetadata { options } => {
            let options = super::validate_build_metadata(options)?;
            edit(|k, _| {
                let mut have = util::strings(k, "buildMetadata");
                for opt in &options {
                    if have.contains(opt) {
                        return Err(Error::new(format!(
                            "buildMetadata option {opt} already in kustomization file"
                        )));
                    }
                    have.push(opt.clone());
                }
                util::set_strings(k, "buildMetadata", Some(have));
                Ok(())
            })
        }
    }
}

/// Append paths to a list field, skipping those already there (and, for
/// resources and components, the kustomization file itself). Nothing to add
/// leaves the file untouched.
fn add_paths(found: Vec<String>, field: &str, what: &str, skip_self: bool) -> Result<(), Error> {
    if found.is_empty() {
        return Ok(());
    }
    edit(|k, file| {
        let mut list = util::strings(k, field);
        for path in found.iter() {
            if skip_self && path == file.name {
                continue;
            }
            if list.contains(path) {
                notice(format!("{what} {path} already in kustomization file"));
                continue;
            }
            list.push(path.clone());
        }
        util::set_strings(k, field, Some(list));
        Ok(())
    })
}

/// `edit add label|annotation`.
fn add_metadata(args: &MetadataArgs, label: bool) -> Result<(), Error> {
    let kind = if label { "label" } else { "annotation" };
    if args.pairs.is_empty() {
        return Err(Error::new(format!("must specify {kind}")));
    }
    if !args.without_selector && args.include_templates {
        return Err(Error::new(
            "--without-selector flag must be specified for --include-templates to work",
        ));
    }
    let pairs = util::convert_slice_to_map(&args.pairs, kind)?;
    // The edit commands take no build flags: the release comes from
    // KUSTOM_KUSTOMIZE_VERSION (Argo CD runs them so).
    let version = kustom_api::KustomizeVersion::choose(None)?;
    edit(|k, _| {
        let target: &mut Map<String, Value> = if label && args.without_selector {
            without_selector_pairs(k, args.include_templates, version)
        } else {
            util::map_mut(
                k,
                if label {
                    "commonLabels"
                } else {
                    "commonAnnotations"
                },
            )
        };
        for (key, value) in &pairs {
            if target.contains_key(key) && !args.force {
                return Err(Error::new(if version.is_5_8() {
                    // kustomize v5.8.0 (#5991) tells how to override it.
                    format!("{kind} {key} already in kustomization file. Use --force to override.")
                } else {
                    format!("{kind} {key} already in kustomization file")
                }));
            }
            target.insert(key.clone(), Value::String(value.clone()));
        }
        Ok(())
    })
}

/// The `pairs` of the `labels:` entry that `edit add label
/// --without-selector` writes to: kustomize v5.8.0 (#5991) takes the first
/// entry without selectors whose `includeTemplates` is what was asked
/// (other settings, such as `fields`, are not compared); v5.5.0, and
/// v5.8 when there is none, appends a new entry.
fn without_selector_pairs(
    k: &mut Kustomization,
    include_templates: bool,
    version: kustom_api::KustomizeVersion,
) -> &mut Map<String, Value> {
    let flag = |entry: &Value, name: &str| entry.get(name).and_then(Value::as_bool) == Some(true);
    let labels = util::objects_mut(k, "labels");
    let existing = version
        .is_5_8()
        .then(|| {
            labels.iter().position(|l| {
                l.is_object()
                    && !flag(l, "includeSelectors")
                    && flag(l, "includeTemplates") == include_templates
            })
        })
        .flatten();
    let at = match existing {
        Some(i) => i,
        None => {
            let mut entry = Map::new();
            entry.insert("pairs".into(), Value::Object(Map::new()));
            if include_templates {
                entry.insert("includeTemplates".into(), Value::Bool(true));
            }
            labels.push(Value::Object(entry));
            labels.len() - 1
        }
    };
    match &mut labels[at] {
        // An entry written without `pairs` gets them (kustomize v5.8.1
        // would crash writing to its nil map).
        Value::Object(entry) => util::map_mut(entry, "pairs"),
        _ => unreachable!("only mappings are chosen or added"),
    }
}

/// `edit add configmap|secret`.
fn add_generator(flags: &GeneratorFlags, secret_type: Option<&String>) -> Result<(), Error> {
    let (field, kind, noun) = match secret_type {
        Some(_) => ("secretGenerator", "SecretGenerator", "secret"),
        None => ("configMapGenerator", "ConfigMapGenerator", "configmap"),
    };
    let files = flags
        .expand_file_sources()
        .map_err(|e| e.context("failed to expand file source"))?;
    let name = flags
        .validate_add(&files)
        .map_err(|e| e.context("failed to validate flags"))?;
    super::edit_wrapped(|k: &mut Kustomization, _| {
        let global = k.get("generatorOptions").cloned();
        let list = util::objects_mut(k, field);
        let index = match list.iter().position(|g| {
            str_of(g, "name") == name
                && util::namespace_equal(str_of(g, "namespace"), &flags.namespace)
        }) {
            Some(i) => i,
            None => {
                let mut entry = Map::new();
                entry.insert("name".into(), Value::String(name.clone()));
                if !flags.namespace.is_empty() {
                    entry.insert("namespace".into(), Value::String(flags.namespace.clone()));
                }
                if let Some(t) = secret_type {
                    if !t.is_empty() {
                        entry.insert("type".into(), Value::String(t.clone()));
                    }
                }
                list.push(Value::Object(entry));
                list.len() - 1
            }
        };
        let entry = list[index]
            .as_object_mut()
            .expect("generator entries are objects");
        let mut append = |key: &str, items: &[String]| {
            if items.is_empty() {
                return;
            }
            let v = entry
                .entry(key.to_string())
                .or_insert_with(|| Value::Array(Vec::new()));
            if let Value::Array(a) = v {
                a.extend(items.iter().cloned().map(Value::String));
            }
        };
        append("literals", &flags.from_literal);
        append("files", &files);
        if let Some(env) = flags.from_env_file.as_ref().filter(|e| !e.is_empty()) {
            append("envs", std::slice::from_ref(env));
        }
        if flags.disable_name_suffix_hash {
            let mut options = Map::new();
            options.insert("disableNameSuffixHash".into(), Value::Bool(true));
            entry.insert("options".into(), Value::Object(options));
        }
        if let Some(b) = flags.behavior.as_ref().filter(|b| !b.is_empty()) {
            entry.insert("behavior".into(), Value::String(b.clone()));
        }
        util::merge_global_options(entry, global.as_ref());
        util::check_generator(kind, &list[index])
            .map_err(|e| e.context(format!("failed to create {noun}")))
    })
}
