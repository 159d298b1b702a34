//! What travels between the core and a plugin: the annotations that carry
//! identity and build state, and the stream framing.

use crate::{yaml, Error};
use serde_json::Value;

/// Identity the core puts on every resource it sends to a plugin, to match the output back.
pub const ID_ANNOTATION: &str = "config.k8s.io/id";
/// Comma-separated earlier names of a renamed resource (kustomize's build annotation).
pub const PREVIOUS_NAMES: &str = "internal.config.kubernetes.io/previousNames";
/// Comma-separated earlier kinds of a resource.
pub const PREVIOUS_KINDS: &str = "internal.config.kubernetes.io/previousKinds";
/// Comma-separated earlier namespaces of a resource.
pub const PREVIOUS_NAMESPACES: &str = "internal.config.kubernetes.io/previousNamespaces";
/// Comma-separated name prefixes applied so far.
pub const PREFIXES: &str = "internal.config.kubernetes.io/prefixes";
/// Comma-separated name suffixes applied so far.
pub const SUFFIXES: &str = "internal.config.kubernetes.io/suffixes";
/// Ids of resources that refer to this one (name-reference bookkeeping).
pub const REF_BY: &str = "internal.config.kubernetes.io/refBy";
/// JSON list of the `vars` whose objref named this resource when its
/// kustomization's vars were merged (kustomize keeps this in memory); set by
/// RefVarTransformer's `match` phase, read and removed by its resolve phase.
pub const REF_VAR_NAMES: &str = "internal.config.kubernetes.io/refVarNames";
/// Generator behavior of a generated resource: create, merge or replace.
pub const GENERATOR_BEHAVIOR: &str = "internal.config.kubernetes.io/generatorBehavior";
/// Set (to "enabled") on generated resources that get a content-hash name suffix.
pub const NEEDS_HASH_SUFFIX: &str = "internal.config.kubernetes.io/needsHashSuffix";
/// Patches may rename their target when this is set.
pub const ALLOW_NAME_CHANGE: &str = "internal.config.kubernetes.io/allowNameChange";
/// Patches may change their target's kind when this is set.
pub const ALLOW_KIND_CHANGE: &str = "internal.config.kubernetes.io/allowKindChange";
/// JSON list of the paths of a resource's values written empty (`key:`);
/// see `kustom_api::empty_nulls`.
pub const EMPTY_NULLS: &str = "internal.config.kubernetes.io/emptyNulls";
/// JSON list of the label/annotation entries that share one value, as in
/// kustomize's YAML nodes; see the builtin `shared_entries` module.
pub const SHARED_ENTRIES: &str = "internal.config.kubernetes.io/sharedEntries";
/// Set (to "true") by kustomize v5.8's HelmChartInflationGenerator on what
/// helm made; the namespace transformer leaves such resources alone and
/// the annotation is removed before output. Only the v5.8 mode knows it:
/// v5.5.0 treats it as any other annotation.
pub const HELM_GENERATED: &str = "internal.config.kubernetes.io/helm-generated";
/// Legacy exec-plugin protocol: a generated resource needs a hash suffix ("true").
pub const LEGACY_NEEDS_HASH: &str = "kustomize.config.k8s.io/needs-hash";
/// Legacy exec-plugin protocol: generator behavior.
pub const LEGACY_BEHAVIOR: &str = "kustomize.config.k8s.io/behavior";
/// Objects with this annotation are dropped from the output.
pub const LOCAL_CONFIG: &str = "config.kubernetes.io/local-config";
/// Where a resource came from (buildMetadata: [originAnnotations]).
pub const ORIGIN: &str = "config.kubernetes.io/origin";
/// Which transformers touched a resource (buildMetadata: [transformerAnnotations]).
pub const TRANSFORMATIONS: &str = "alpha.config.kubernetes.io/transformations";

/// Build annotations removed before output (kustomize's `BuildAnnotations`), plus our id.
pub const BUILD_ANNOTATIONS: &[&str] = &[
    PREVIOUS_KINDS,
    PREVIOUS_NAMES,
    PREFIXES,
    SUFFIXES,
    PREVIOUS_NAMESPACES,
    ALLOW_NAME_CHANGE,
    ALLOW_KIND_CHANGE,
    REF_BY,
    REF_VAR_NAMES,
    GENERATOR_BEHAVIOR,
    NEEDS_HASH_SUFFIX,
    ID_ANNOTATION,
    EMPTY_NULLS,
    SHARED_ENTRIES,
];

/// The error of a generated resource whose id is taken and whose generator
/// `behavior` (the [`GENERATOR_BEHAVIOR`] annotation) is neither merge nor
/// replace, in the words of the kustomize release `version`.
pub fn behavior_conflict(
    id: &crate::ResId,
    behavior: Option<&str>,
    version: crate::KustomizeVersion,
) -> Error {
    if version.is_5_8() {
        // kustomize v5.8.0 (AbsorbAll conflict error more verbose): the behavior is named.
        return Error::new(format!(
            "id {id} exists; can not use behavior: '{}', behavior must be merge or replace",
            behavior.filter(|b| !b.is_empty()).unwrap_or("unspecified")
        ));
    }
    Error::new(format!("id {id} exists; behavior must be merge or replace"))
}

/// Environment variable telling the builtin plugin the load restrictor in force.
pub const ENV_LOAD_RESTRICTOR: &str = "KUSTOM_LOAD_RESTRICTOR";
/// Environment variable telling plugins whether `--enable-helm` is set ("true" / "false").
pub const ENV_ENABLE_HELM: &str = "KUSTOM_ENABLE_HELM";
/// Environment variable naming the helm executable (`--helm-command`).
pub const ENV_HELM_COMMAND: &str = "KUSTOM_HELM_COMMAND";
/// Environment variable carrying `--helm-kube-version` (empty when unset):
/// it replaces every chart's `kubeVersion`, as in kustomize.
pub const ENV_HELM_KUBE_VERSION: &str = "KUSTOM_HELM_KUBE_VERSION";
/// Environment variable carrying `--helm-api-versions`, one per line: when
/// any is given they replace every chart's `apiVersions`.
pub const ENV_HELM_API_VERSIONS: &str = "KUSTOM_HELM_API_VERSIONS";
/// Environment variable set to "true" by `--helm-debug` (every chart gets `debug`).
pub const ENV_HELM_DEBUG: &str = "KUSTOM_HELM_DEBUG";
/// Environment variable naming the kustomization file that listed the virtual resources.
pub const ENV_KUSTOMIZATION: &str = "KUSTOM_KUSTOMIZATION";
/// Environment variable the core sets on a `transform` call to its shipped
/// builtin plugin only: the first N configs are generators to run first,
/// their resources added to the input as created (behavior `create`), so a
/// kustomization with generators and transformers costs one process, not two.
pub const ENV_GENERATE_FIRST: &str = "KUSTOM_GENERATE_FIRST";
/// Local copies of the remote files a kustomization names, for the shipped
/// builtin (JSON object: URL → path).
pub const ENV_REMOTE_FILES: &str = "KUSTOM_REMOTE_FILES";

/// The version constraint `helm pull --devel` uses when no version is
/// given: any version, prereleases included.
pub const DEVEL_CHART_VERSION: &str = ">0.0.0-0";

/// The version a chart of a repository is pulled at: `version`, or with
/// `devel` (kustomize v5.8's `helmCharts[].devel`) and no version, helm's
/// [`DEVEL_CHART_VERSION`].
pub fn chart_pull_version(version: &str, devel: bool) -> &str {
    if devel && version.is_empty() {
        DEVEL_CHART_VERSION
    } else {
        version
    }
}

/// The key under which [`ENV_REMOTE_FILES`] hands the builtin a Helm chart
/// the core pulled from a repository (value: the chart's directory).
pub fn chart_key(repo: &str, name: &str, version: &str) -> String {
    format!("helm-chart:{repo}#{name}@{version}")
}

/// Write documents as a YAML stream of compact JSON documents separated by
/// `---` lines: valid YAML for any reader, and fast to write and parse.
pub fn write_json_stream(docs: &[Value]) -> Vec<u8> {
    let mut out = Vec::with_capacity(docs.len() * 1024);
    write_json_stream_to(&mut out, docs).expect("writing to memory cannot fail");
    out
}

/// [`write_json_stream`] into `out` as it goes, without holding the whole
/// text.
pub fn write_json_stream_to(out: &mut impl std::io::Write, docs: &[Value]) -> std::io::Result<()> {
    for (i, d) in docs.iter().enumerate() {
        if i > 0 {
            out.write_all(b"---\n")?;
        }
        serde_json::to_writer(&mut *out, d)?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// Read a stream a plugin wrote: YAML in general, with a fast path for the
/// JSON-documents framing of [`write_json_stream`].
pub fn read_stream(bytes: &[u8]) -> Result<Vec<Value>, Error> {
    let text = std::str::from_utf8(bytes).map_err(|e| Error::new(format!("not UTF-8: {e}")))?;
    if let Some(docs) = try_json_stream(text) {
        return Ok(docs);
    }
    yaml::parse_stream(text)
}

/// [`read_stream`], handing each document to `f` as soon as it is read, so
/// that a large answer is never held as values all at once.
pub fn for_each_in_stream(
    bytes: &[u8],
    mut f: impl FnMut(Value) -> Result<(), Error>,
) -> Result<(), Error> {
    let text = std::str::from_utf8(bytes).map_err(|e| Error::new(format!("not UTF-8: {e}")))?;
    if let Some(chunks) = json_stream_chunks(text) {
        // All chunks must be JSON for the fast path, as in read_stream.
        if chunks
            .iter()
            .all(|c| serde_json::from_str::<serde::de::IgnoredAny>(c).is_ok())
        {
            for chunk in chunks {
                f(serde_json::from_str(chunk).map_err(|e| Error::new(e.to_string()))?)?;
            }
            return Ok(());
        }
    }
    yaml::for_each_document(text, |v, _| f(v))
}

/// Parse `text` as JSON documents separated by `---` lines; None when it is not in that form.
fn try_json_stream(text: &str) -> Option<Vec<Value>> {
    json_stream_chunks(text)?
        .into_iter()
        .map(|chunk| crate::json::from_str(chunk).ok())
        .collect()
}

/// The documents of `text` when it looks like the JSON-documents framing
/// (each one starts with `{`; whether each is valid JSON is not checked);
/// None when it is not in that form.
pub fn json_stream_chunks(text: &str) -> Option<Vec<&str>> {
    let trimmed = text.trim_start();
    if !(trimmed.starts_with('{') || trimmed.is_empty()) {
        return None;
    }
    let mut docs = Vec::new();
    for chunk in text.split("\n---\n") {
        let chunk = chunk.trim();
        if chunk.is_empty() {
            continue;
        }
        if !chunk.starts_with('{') {
            return None;
        }
        docs.push(chunk);
    }
    Some(docs)
}

/// Whether a file field names an http(s) URL (kustomize's loader rule: the
/// scheme, case-insensitive, and no white space), shared by the core's
/// fetcher and the builtin plugin that reads the fetched copies.
pub fn is_remote_file(s: &str) -> bool {
    let head = s.get(..8).unwrap_or(s).to_ascii_lowercase();
    (head.starts_with("http://") || head.starts_with("https://"))
        && !s.contains(char::is_whitespace)
}
