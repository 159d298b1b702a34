//! The result of `kustom diff`: per root and per resource what changed,
//! as the JSON tools read (and `--merge` joins).

use serde::{Deserialize, Serialize};

/// A whole diff.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// The base commit.
    pub base: String,
    /// The head commit, or `worktree`.
    pub head: String,
    /// The roots, sorted by name (unchanged roots left out).
    pub roots: Vec<RootReport>,
}

/// What happened to a root.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Built at both revisions, with different output.
    Changed,
    /// A root at head only.
    Added,
    /// A root at base only.
    Removed,
    /// The same output (or the same failure) at both revisions.
    Unchanged,
    /// It fails at head (or fails differently at both).
    Failed,
}

/// One root.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RootReport {
    /// The root directory, relative to the repository's top (`.` for it).
    pub root: String,
    /// What happened.
    pub status: Status,
    /// Why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Resources added, removed, renamed or modified, sorted by id.
    #[serde(default)]
    pub resources: Vec<ResourceChange>,
    /// Lines added and removed over the resources' diffs.
    #[serde(default)]
    pub lines: Lines,
    /// Container images whose tag or digest changed (each pair once).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<ImageChange>,
    /// Changes a reviewer should look at twice.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub risks: Vec<Risk>,
    /// Changes hidden by `--ignore` rules (resources and fields).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub hidden: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Lines added and removed in a root's diffs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lines {
    /// `+` lines.
    pub added: usize,
    /// `-` lines.
    pub removed: usize,
}

/// One image changed in a container: `old` at base, `new` at head.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ImageChange {
    /// The image at base.
    pub old: String,
    /// The image at head.
    pub new: String,
}

/// A risky change to one resource.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Risk {
    /// The resource, as shown (`apps/v1 Deployment prod/web`).
    pub resource: String,
    /// What makes it risky.
    pub flag: String,
}

/// What happened to a resource.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Change {
    /// In head's output only.
    Added,
    /// In base's output only.
    Removed,
    /// The same id, different YAML text.
    Modified,
    /// A generated ConfigMap or Secret whose hash suffix changed (`from`
    /// names it at base).
    Renamed,
}

/// One resource of a root.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResourceChange {
    /// `apiVersion`.
    #[serde(rename = "apiVersion")]
    pub api_version: String,
    /// `kind`.
    pub kind: String,
    /// `metadata.namespace`, `""` when none.
    pub namespace: String,
    /// `metadata.name`.
    pub name: String,
    /// What happened.
    pub change: Change,
    /// For a rename: the name at base.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// The unified YAML diff (Secrets' values masked unless `--show-secrets`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub diff: String,
    /// With `--explain`: which kustomization entry set each changed field.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub explain: Vec<Credit>,
}

/// A changed field and the entry that set it at head.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Credit {
    /// A JSON pointer into the resource.
    pub field: String,
    /// The kustomization file (relative to the repository's top); empty
    /// when no entry set the field (it comes from a resource file as read).
    #[serde(default)]
    pub kustomization: String,
    /// The entry: `patches[0] (path: p.yaml)`, `images[1] (name: app)`,
    /// `resources: deployment.yaml`, …
    pub entry: String,
}

impl Report {
    /// Changes hidden by rules, over all roots.
    pub fn hidden(&self) -> usize {
        self.roots.iter().map(|r| r.hidden).sum()
    }

    /// The changed images over all roots, each pair once.
    pub fn images(&self) -> Vec<ImageChange> {
        let set: std::collections::BTreeSet<&ImageChange> =
            self.roots.iter().flat_map(|r| &r.images).collect();
        set.into_iter().cloned().collect()
    }

    /// 0 nothing differs, 1 something differs, 2 a root failed.
    pub fn exit_status(&self) -> i32 {
        if self.roots.iter().any(|r| r.status == Status::Failed) {
            2
        } else if self.roots.iter().any(|r| r.status != Status::Unchanged) {
            1
        } else {
            0
        }
    }

    /// Join the reports of several shards of one diff.
    pub fn merge(reports: Vec<(String, Report)>) -> Result<Report, kustom_api::Error> {
        let mut iter = reports.into_iter();
        let Some((first_name, mut all)) = iter.next() else {
            return Err(kustom_api::Error::new(
                "--merge needs at least one JSON report",
            ));
        };
        for (name, r) in iter {
            if r.base != all.base || r.head != all.head {
                return Err(kustom_api::Error::new(format!(
                    "{name} compares {}..{}, but {first_name} compares {}..{}; merge reports of one diff only",
                    r.base, r.head, all.base, all.head
                )));
            }
            for root in r.roots {
                if all.roots.iter().any(|x| x.root == root.root) {
                    return Err(kustom_api::Error::new(format!(
                        "root {} is in more than one report ({name} and an earlier one); give each shard's report once",
                        root.root
                    )));
                }
                all.roots.push(root);
            }
        }
        all.roots.sort_by(|a, b| a.root.cmp(&b.root));
        Ok(all)
    }
}
