//! `kustom edit remove …`: drop entries from the kustomization.

use super::util::{self, notice, str_of};
use super::{edit, edit_if, edit_wrapped, PatchFlags};
use clap::{Args, Subcommand};
use kustom_api::Error;

/// `edit remove` subcommands.
#[derive(Subcommand, Debug)]
pub enum RemoveCommand {
    /// Removes one or more resource file paths from the kustomization file.
    #[command(after_help = "Example:\n  kustom edit remove resource old.yaml 'legacy/*.yaml'")]
    Resource {
        /// Entries or glob patterns matched against the entries.
        patterns: Vec<String>,
    },
    /// Removes a patch from the kustomization file.
    #[command(
        after_help = "Example:\n  kustom edit remove patch --path patch.yaml --kind Deployment --name web"
    )]
    Patch(PatchFlags),
    /// Removes one or more commonLabels from kustomization.yaml.
    #[command(after_help = "Example:\n  kustom edit remove label env,team")]
    Label(RemoveMetadataArgs),
    /// Removes one or more commonAnnotations from kustomization.yaml.
    #[command(after_help = "Example:\n  kustom edit remove annotation owner,tier")]
    Annotation(RemoveMetadataArgs),
    /// Removes the specified configmap(s) from the kustomization file.
    #[command(
        after_help = "Example:\n  kustom edit remove configmap my-configmap,other --namespace=prod"
    )]
    Configmap(RemoveGeneratorArgs),
    /// Removes the specified secret(s) from the kustomization file.
    #[command(after_help = "Example:\n  kustom edit remove secret my-secret")]
    Secret(RemoveGeneratorArgs),
    /// Removes one or more transformer file paths from the kustomization file.
    #[command(after_help = "Example:\n  kustom edit remove transformer transformer.yaml")]
    Transformer {
        /// Entries or glob patterns matched against the entries.
        patterns: Vec<String>,
    },
    /// Removes one or more buildMetadata options from the kustomization.yaml in the current directory.
    #[command(after_help = "Example:\n  kustom edit remove buildmetadata originAnnotations")]
    Buildmetadata {
        /// Comma-separated options.
        options: Vec<String>,
    },
}

/// Arguments of `edit remove label|annotation`.
#[derive(Args, Debug)]
pub struct RemoveMetadataArgs {
    /// Comma-separated keys.
    pub keys: Vec<String>,
    /// Ignore error if the given key doesn't exist.
    #[arg(short, long = "ignore-non-existence")]
    pub ignore: bool,
}

/// Arguments of `edit remove configmap|secret`.
#[derive(Args, Debug)]
pub struct RemoveGeneratorArgs {
    /// Comma-separated names.
    pub names: Vec<String>,
    /// The namespace of the entries.
    #[arg(long, default_value = "", allow_hyphen_values = true)]
    pub namespace: String,
}

/// Run one `edit remove` subcommand in the working directory.
pub fn run(cmd: &RemoveCommand) -> Result<(), Error> {
    match cmd {
        RemoveCommand::Resource { patterns } => remove_paths(patterns, "resources", "resource"),
        RemoveCommand::Transformer { patterns } => {
            remove_paths(patterns, "transformers", "transformer")
        }
        RemoveCommand::Patch(flags) => {
            let patch = flags.to_patch(false)?;
            edit_if(|k, _| {
                let patches = util::objects_mut(k, "patches");
                let before = patches.len();
                patches.retain(|p| !super::patch_equal(p, &patch));
                if patches.len() == before {
                    notice(format!(
                        "patch {} doesn't exist in kustomization file",
                        flags.patch
                    ));
                    return Ok(false);
                }
                Ok(true)
            })
        }
        RemoveCommand::Label(args) => remove_metadata(args, "commonLabels"),
        RemoveCommand::Annotation(args) => remove_metadata(args, "commonAnnotations"),
        RemoveCommand::Configmap(args) => {
            remove_generators(args, "configMapGenerator", "configmap")
        }
        RemoveCommand::Secret(args) => remove_generators(args, "secretGenerator", "secret"),
        RemoveCommand::Buildmetadata { options } => {
            let options = super::validate_build_metadata(options)?;
            edit(|k, _| {
                let left: Vec<String> = util::strings(k, "buildMetadata")
                    .into_iter()
                    .filter(|o| !options.contains(o))
                    .collect();
                util::set_strings(k, "buildMetadata", (!left.is_empty()).then_some(left));
                Ok(())
            })
        }
    }
}

fn remove_paths(patterns: &[String], field: &str, what: &str) -> Result<(), Error> {
    if patterns.is_empty() {
        return Err(Error::new(format!("must specify a {what} file")));
    }
    edit_if(|k, _| {
        let entries = util::strings(k, field);
        let mut matched = Vec::new();
        for pattern in patterns {
            for entry in &entries {
                if util::path_match(pattern, entry)? {
                    matched.push(entry.clone());
                }
            }
        }
        if matched.is_empty() {
            return Ok(false);
        }
        let left = entries
            .into_iter()
            .filter(|e| !matched.contains(e))
            .collect();
        util::set_strings(k, field, Some(left));
        Ok(true)
    })
}

fn remove_metadata(args: &RemoveMetadataArgs, field: &str) -> Result<(), Error> {
    // kustomize names both kinds "label" when checking the arguments, but
    // its missing-key message names the field's own kind.
    let kind = "label";
    let entry_kind = if field == "commonAnnotations" {
        "annotation"
    } else {
        "label"
    };
    let arg = match args.keys.as_slice() {
        [] => return Err(Error::new(format!("must specify {kind}"))),
        [one] => one,
        _ => {
            return Err(Error::new(format!(
                "{kind}s must be comma-separated, with no spaces"
            )))
        }
    };
    let keys: Vec<&str> = arg.split(',').collect();
    if keys.iter().any(|k| k.is_empty()) {
        return Err(Error::new(format!("invalid {kind}: '' (name is empty)")));
    }
    edit(|k, _| {
        if !k.contains_key(field) && !args.ignore {
            return Err(Error::new(format!(
                "{field} is not defined in kustomization file"
            )));
        }
        let map = util::map_mut(k, field);
        for key in &keys {
            if map.remove(*key).is_none() && !args.ignore {
                return Err(Error::new(format!(
                    "{entry_kind} {key} is not defined in kustomization file"
                )));
            }
        }
        Ok(())
    })
}

fn remove_generators(args: &RemoveGeneratorArgs, field: &str, what: &str) -> Result<(), Error> {
    let names: Vec<String> = match args.names.as_slice() {
        [] => {
            return Err(Error::new(format!(
                "at least one {what} name must be specified"
            )))
        }
        [one] => one.split(',').map(str::to_string).collect(),
        many => {
            return Err(Error::new(format!(
                "too many arguments: [{}]; to provide multiple {what}s to remove, please separate {what} names by commas",
                many.join(" ")
            )))
        }
    };
    let result = edit_wrapped(|k, _| {
        let list = util::objects_mut(k, field);
        let mut found: Vec<String> = Vec::new();
        list.retain(|g| {
            let name = str_of(g, "name");
            let hit = names.iter().any(|n| n == name)
                && util::namespace_equal(str_of(g, "namespace"), &args.namespace);
            if hit {
                found.push(name.to_string());
            }
            !hit
        });
        if found.is_empty() {
            return Err(Error::new(format!(
                "no specified {what}(s) were found in the kustomization.yaml file"
            )));
        }
        for name in &names {
            if !found.contains(name) {
                notice(format!("{what} {name} doesn't exist in kustomization file"));
            }
        }
        Ok(())
    });
    // kustomize's wording for these two verbs.
    result.map_err(|e| {
        Error::new(
            e.message
                .replace(
                    "failed to load kustomization file",
                    "could not read kustomization file",
                )
                .replace(
                    "failed to read kustomization file",
                    "could not read kustomization file contents",
                ),
        )
    })
}
