//! `kustom edit`: kustomize v5.5.0's `kustomize edit` — the same verbs,
//! arguments, flags, validation, error texts and written file. Each verb
//! group has its module; [`kustfile`] reads and writes the kustomization
//! file as kustomize does, [`types`] knows the shape of its struct.

pub mod add;
pub mod fix;
mod fixvars;
pub mod kustfile;
pub mod remove;
pub mod set;
pub mod util;

use clap::{Args, Subcommand};
use kustfile::{KustFile, Kustomization};
use kustom_api::Error;
use serde_json::{Map, Value};
use std::path::Path;

/// `kustom edit` subcommands.
#[derive(Subcommand, Debug)]
pub enum EditCommand {
    /// Adds an item to the kustomization file.
    #[command(
        subcommand,
        after_help = "Examples:\n  kustom edit add resource deployment.yaml\n  kustom edit add configmap NAME --from-literal=k=v\n  kustom edit add label --force --without-selector app:web"
    )]
    Add(add::AddCommand),
    /// Sets the value of different fields in kustomization file.
    #[command(
        subcommand,
        after_help = "Examples:\n  kustom edit set image nginx=nginx:1.27\n  kustom edit set nameprefix acme-\n  kustom edit set replicas web=3"
    )]
    Set(set::SetCommand),
    /// Removes items from the kustomization file.
    #[command(
        subcommand,
        after_help = "Examples:\n  kustom edit remove resource old.yaml\n  kustom edit remove label env"
    )]
    Remove(remove::RemoveCommand),
    /// Fix the missing fields in kustomization file.
    #[command(
        after_help = "Examples:\n  # Fix the missing and deprecated fields in kustomization file\n  kustom edit fix\n  kustom edit fix --vars"
    )]
    Fix(fix::FixArgs),
    /// List the builtin plugins.
    #[command(
        name = "listbuiltin",
        after_help = "Example:\n  kustom edit listbuiltin"
    )]
    ListBuiltin,
}

/// Run an edit subcommand in the working directory.
pub fn run(cmd: &EditCommand) -> Result<(), Error> {
    match cmd {
        EditCommand::Add(c) => add::run(c),
        EditCommand::Set(c) => set::run(c),
        EditCommand::Remove(c) => remove::run(c),
        EditCommand::Fix(a) => fix::run(a),
        EditCommand::ListBuiltin => {
            let mut list = String::new();
            for kind in BUILTIN_KINDS {
                list.push_str(kind);
                list.push('\n');
            }
            crate::commands::stdout::print(&list)
        }
    }
}

/// kustomize's builtin plugin kinds (`kustomize edit listbuiltin`).
const BUILTIN_KINDS: [&str; 17] = [
    "AnnotationsTransformer",
    "ConfigMapGenerator",
    "IAMPolicyGenerator",
    "HashTransformer",
    "ImageTagTransformer",
    "LabelTransformer",
    "NamespaceTransformer",
    "PatchJson6902Transformer",
    "PatchStrategicMergeTransformer",
    "PatchTransformer",
    "PrefixSuffixTransformer",
    "PrefixTransformer",
    "SuffixTransformer",
    "ReplicaCountTransformer",
    "SecretGenerator",
    "ValueAddTransformer",
    "HelmChartInflationGenerator",
];

/// Read the kustomization of the working directory, change it, write it.
pub fn edit(
    change: impl FnOnce(&mut Kustomization, &KustFile) -> Result<(), Error>,
) -> Result<(), Error> {
    edit_if(|k, file| change(k, file).map(|()| true))
}

/// Like [`edit`], but the file is written only when `change` returns true
/// (kustomize leaves it untouched when there was nothing to do).
pub fn edit_if(
    change: impl FnOnce(&mut Kustomization, &KustFile) -> Result<bool, Error>,
) -> Result<(), Error> {
    let mut file = KustFile::find(Path::new(""))?;
    let mut k = file.read()?;
    if change(&mut k, &file)? {
        file.write(&k)?;
    }
    Ok(())
}

/// [`edit`] with the error contexts of kustomize's configmap/secret verbs.
pub fn edit_wrapped(
    change: impl FnOnce(&mut Kustomization, &KustFile) -> Result<(), Error>,
) -> Result<(), Error> {
    let mut file = KustFile::find(Path::new(""))
        .map_err(|e| e.context("failed to load kustomization file"))?;
    let mut k = file
        .read()
        .map_err(|e| e.context("failed to read kustomization file"))?;
    change(&mut k, &file)?;
    file.write(&k)
        .map_err(|e| e.context("failed to write kustomization file"))
}

/// Flags shared by `edit add|set configmap|secret`.
#[derive(Args, Debug, Default)]
pub struct GeneratorFlags {
    /// NAME of the ConfigMap or Secret.
    pub names: Vec<String>,
    /// File sources: `path` (key = file name) or `key=path`; comma-separated or repeated.
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
    pub from_file: Vec<String>,
    /// A key and literal value (`mykey=somevalue`); repeatable.
    #[arg(long, allow_hyphen_values = true)]
    pub from_literal: Vec<String>,
    /// A file of `key=val` lines (a Docker .env file).
    #[arg(long, allow_hyphen_values = true)]
    pub from_env_file: Option<String>,
    /// Disable the name suffix hash.
    #[arg(long = "disableNameSuffixHash")]
    pub disable_name_suffix_hash: bool,
    /// create (default), merge or replace.
    #[arg(long, allow_hyphen_values = true)]
    pub behavior: Option<String>,
    /// The namespace of the ConfigMap or Secret.
    #[arg(long, default_value = "", allow_hyphen_values = true)]
    pub namespace: String,
}

impl GeneratorFlags {
    /// kustomize's `ExpandFileSource`: glob each source (`key=` kept).
    pub fn expand_file_sources(&self) -> Result<Vec<String>, Error> {
        let mut out = Vec::new();
        for source in &self.from_file {
            let parts: Vec<&str> = source.split('=').collect();
            let (key, pattern) = match parts.as_slice() {
                [k, p] => (Some(*k), *p),
                _ => (None, parts[0]),
            };
            let found = util::glob_patterns(&[pattern.to_string()])?;
            match key {
                Some(k) => {
                    if found.len() != 1 {
                        return Err(Error::new(format!(
                            "'pattern '{source}' catches files [{}], should catch only one",
                            found.join(" ")
                        )));
                    }
                    out.push(format!("{k}={}", found[0]));
                }
                None => out.extend(found),
            }
        }
        Ok(out)
    }

    /// kustomize's `ValidateAdd` (with the file sources as expanded); gives the name.
    pub fn validate_add(&self, files: &[String]) -> Result<String, Error> {
        let [name] = self.names.as_slice() else {
            return Err(Error::new("name must be specified once"));
        };
        let env = self.from_env_file.as_deref().unwrap_or("");
        if env.is_empty() && files.is_empty() && self.from_literal.is_empty() {
            return Err(Error::new(
                "at least from-env-file, or from-file or from-literal must be set",
            ));
        }
        if !env.is_empty() && (!files.is_empty() || !self.from_literal.is_empty()) {
            return Err(Error::new(
                "from-env-file cannot be combined with from-file or from-literal",
            ));
        }
        if let Some(b) = self.behavior.as_deref() {
            if !b.is_empty() && !matches!(b, "create" | "merge" | "replace") {
                return Err(Error::new(
                    "invalid behavior: must be one of \"create\", \"merge\", or \"replace\"",
                ));
            }
        }
        Ok(name.clone())
    }
}

/// Flags of `edit add|remove patch`.
#[derive(Args, Debug)]
pub struct PatchFlags {
    /// Path to the patch file. Cannot be used with --patch at the same time.
    #[arg(long, default_value = "", allow_hyphen_values = true)]
    pub path: String,
    /// Literal string of patch content. Cannot be used with --path at the same time.
    #[arg(long, default_value = "", allow_hyphen_values = true)]
    pub patch: String,
    /// API group in patch target.
    #[arg(long, default_value = "", allow_hyphen_values = true)]
    pub group: String,
    /// API version in patch target.
    #[arg(long, default_value = "", allow_hyphen_values = true)]
    pub version: String,
    /// Resource kind in patch target.
    #[arg(long, default_value = "", allow_hyphen_values = true)]
    pub kind: String,
    /// Resource name in patch target.
    #[arg(long, default_value = "", allow_hyphen_values = true)]
    pub name: String,
    /// Resource namespace in patch target.
    #[arg(long, default_value = "", allow_hyphen_values = true)]
    pub namespace: String,
    /// annotationSelector in patch target.
    #[arg(long, default_value = "", allow_hyphen_values = true)]
    pub annotation_selector: String,
    /// labelSelector in patch target.
    #[arg(long, default_value = "", allow_hyphen_values = true)]
    pub label_selector: String,
}

impl PatchFlags {
    /// The patch entry these flags describe (validated; `require` = one of
    /// path and patch must be given, as for `add`).
    pub fn to_patch(&self, require: bool) -> Result<Value, Error> {
        if !self.patch.is_empty() && !self.path.is_empty() {
            return Err(Error::new("patch and path can't be set at the same time"));
        }
        if require && self.patch.is_empty() && self.path.is_empty() {
            return Err(Error::new("must provide either patch or path"));
        }
        let mut p = Map::new();
        let put = |m: &mut Map<String, Value>, k: &str, v: &str| {
            if !v.is_empty() {
                m.insert(k.into(), Value::String(v.into()));
            }
        };
        put(&mut p, "path", &self.path);
        put(&mut p, "patch", &self.patch);
        let mut target = Map::new();
        put(&mut target, "group", &self.group);
        put(&mut target, "version", &self.version);
        put(&mut target, "kind", &self.kind);
        put(&mut target, "name", &self.name);
        put(&mut target, "namespace", &self.namespace);
        put(&mut target, "annotationSelector", &self.annotation_selector);
        put(&mut target, "labelSelector", &self.label_selector);
        if !target.is_empty() {
            p.insert("target".into(), Value::Object(target));
        }
        Ok(Value::Object(p))
    }
}

/// kustomize's `Patch.Equals`: same path, patch, target and options.
pub fn patch_equal(a: &Value, b: &Value) -> bool {
    let get = |v: &Value, k: &str| v.get(k).cloned().unwrap_or(Value::Null);
    ["path", "patch", "target", "options"]
        .iter()
        .all(|k| get(a, k) == get(b, k))
}

/// kustomize's `BuildMetadataValidator`.
pub fn validate_build_metadata(args: &[String]) -> Result<Vec<String>, Error> {
    match args {
        [] => Err(Error::new("must specify a buildMetadata option")),
        [one] => {
            let opts: Vec<String> = one.split(',').map(str::to_string).collect();
            for opt in &opts {
                if !matches!(
                    opt.as_str(),
                    "originAnnotations" | "transformerAnnotations" | "managedByLabel"
                ) {
                    return Err(Error::new(format!("invalid buildMetadata option: {opt}")));
                }
            }
            Ok(opts)
        }
        many => Err(Error::new(format!(
            "too many arguments: [{}]; to provide multiple buildMetadata options, please separate options by comma",
            many.join(" ")
        ))),
    }
}
