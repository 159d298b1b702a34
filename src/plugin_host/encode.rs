//! How configs and resources cross a KEP call: the STDIN stream, the id
//! annotation that keeps identity, the earlier ids a renamed resource keeps.

use super::settings::BUILTIN_GROUP;
use super::site::Site;
use kustom_api::doc::{self, Doc};
use kustom_api::protocol::{self, PREVIOUS_KINDS, PREVIOUS_NAMES, PREVIOUS_NAMESPACES};
use kustom_api::{resource, yaml, Error, ResId, Value};

/// Encode configs and resources for a KEP call: compact JSON for the
/// builtin group (cheap, and valid YAML), readable YAML for everyone else.
pub(super) fn encode(group: &str, configs: &[Value], resources: &[Doc]) -> Vec<u8> {
    if group == BUILTIN_GROUP {
        doc::write_json_stream(configs, resources)
    } else {
        encode_values(group, configs, &doc::to_values(resources))
    }
}

/// [`encode`] for parsed resources.
pub(super) fn encode_values(group: &str, configs: &[Value], resources: &[Value]) -> Vec<u8> {
    if group == BUILTIN_GROUP {
        let all: Vec<Value> = configs.iter().chain(resources).cloned().collect();
        protocol::write_json_stream(&all)
    } else {
        let mut out = String::new();
        for (i, v) in configs.iter().chain(resources).enumerate() {
            if i > 0 {
                out.push_str("---\n");
            }
            yaml::write_yaml(&mut out, v);
        }
        out.into_bytes()
    }
}

/// Record `old` as a previous id of `r`, as kustomize's renamers do.
pub(super) fn record_previous_id(r: &mut Value, old: &ResId) {
    for (key, value) in [
        (PREVIOUS_NAMES, old.name.as_str()),
        (PREVIOUS_NAMESPACES, old.effective_namespace()),
        (PREVIOUS_KINDS, old.gvk.kind.as_str()),
    ] {
        let joined = match resource::annotation(r, key) {
            Some(prev) => format!("{prev},{value}"),
            None => value.to_string(),
        };
        resource::set_annotation(r, key, &joined);
    }
}

/// Two resources a transformer returns may not share an id (kustomize's
/// resource map refuses that too): name the plugin and both resources.
pub(super) fn check_unique_ids(
    site: &Site<'_>,
    out: &[Value],
    sources: &[Option<&ResId>],
) -> Result<(), Error> {
    let mut seen: std::collections::HashMap<(ResId, String), usize> =
        std::collections::HashMap::with_capacity(out.len());
    let describe = |i: usize| match sources[i] {
        Some(old) if old.equals(&ResId::of(&out[i])) => format!("input resource {old}"),
        Some(old) => format!("input resource {old} (renamed)"),
        None => "a new resource".to_string(),
    };
    for (i, r) in out.iter().enumerate() {
        let id = ResId::of(r);
        let ns = id.effective_namespace().to_string();
        let key = (
            ResId {
                namespace: String::new(),
                ..id.clone()
            },
            ns,
        );
        if let Some(&j) = seen.get(&key) {
            return Err(Error::new(format!(
                "{site} returned two resources with the same id {id}: {} and {}; a transformer must keep resource ids unique (merge them, or give one another name)",
                describe(j),
                describe(i)
            )));
        }
        seen.insert(key, i);
    }
    Ok(())
}
