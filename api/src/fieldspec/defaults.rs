//! kustomize's default field-spec tables, made into Rust constants by
//! `api/build.rs` from `src/data/fieldspecs/*.yaml`.

use super::*;

/// One embedded field spec: group, version, kind, path, create.
pub(super) type SpecRow = (&'static str, &'static str, &'static str, &'static str, bool);

/// One embedded name back-reference: group, version, kind, referrers.
pub(super) type BackReferenceRow = (&'static str, &'static str, &'static str, &'static [SpecRow]);

// The tables as constants, from src/data/fieldspecs/*.yaml by build.rs:
// NAME_PREFIX, NAMESPACE, COMMON_LABELS, TEMPLATE_LABELS,
// COMMON_ANNOTATIONS, IMAGES, REPLICAS, VAR_REFERENCE, NAME_REFERENCE.
include!(concat!(env!("OUT_DIR"), "/fieldspecs.rs"));

pub(super) fn specs(rows: &[SpecRow]) -> Vec<FieldSpec> {
    rows.iter()
        .map(|&(group, version, kind, path, create)| FieldSpec {
            group: group.into(),
            version: version.into(),
            kind: kind.into(),
            path: path.into(),
            create,
        })
        .collect()
}

/// Build the default config from the embedded tables.
pub(super) fn load_defaults() -> TransformerConfig {
    let name = specs(NAME_PREFIX);
    let template_labels = specs(TEMPLATE_LABELS);
    let mut common_labels = specs(COMMON_LABELS);
    common_labels.extend(template_labels.iter().cloned());
    let name_reference = NAME_REFERENCE
        .iter()
        .map(|&(group, version, kind, referrers)| NameBackReference {
            group: group.into(),
            version: version.into(),
            kind: kind.into(),
            field_specs: specs(referrers),
        })
        .collect();
    let mut tc = TransformerConfig {
        name_prefix: name.clone(),
        name_suffix: name,
        namespace: specs(NAMESPACE),
        common_labels,
        labels: Vec::new(),
        template_labels,
        common_annotations: specs(COMMON_ANNOTATIONS),
        name_reference,
        var_reference: specs(VAR_REFERENCE),
        images: specs(IMAGES),
        replicas: specs(REPLICAS),
    };
    tc.sort_fields();
    tc
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The constants build.rs made hold what the YAML files say, read by
    /// the crate's own YAML reader and the strict `configurations:` parser.
    #[test]
    fn generated_tables_equal_the_yaml() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src/data/fieldspecs");
        let read = |name: &str| {
            let yaml = std::fs::read_to_string(format!("{dir}/{name}.yaml")).unwrap();
            let parsed = crate::yaml::parse_stream(&yaml).unwrap();
            assert_eq!(parsed.len(), 1, "{name}");
            parsed.into_iter().next().unwrap()
        };
        for (name, key, rows) in [
            ("nameprefix", "namePrefix", NAME_PREFIX),
            ("namespace", "namespace", NAMESPACE),
            ("commonlabels", "commonLabels", COMMON_LABELS),
            ("templatelabels", "templateLabels", TEMPLATE_LABELS),
            ("commonannotations", "commonAnnotations", COMMON_ANNOTATIONS),
            ("images", "images", IMAGES),
            ("replicas", "replicas", REPLICAS),
            ("varreference", "varReference", VAR_REFERENCE),
        ] {
            let doc = read(name);
            let list = match &doc {
                Value::Object(map) => map.get(key).cloned().unwrap_or(Value::Null),
                other => other.clone(),
            };
            let strict = parse_list(&list, key, parse_field_spec).unwrap();
            assert!(!strict.is_empty(), "{name}");
            assert_eq!(specs(rows), strict, "{name}");
        }
        let strict = TransformerConfig::from_value(&read("namereference")).unwrap();
        let mut generated = TransformerConfig {
            name_reference: load_defaults().name_reference,
            ..Default::default()
        };
        generated.sort_fields();
        assert_eq!(generated.name_reference, strict.name_reference);
        assert!(!strict.name_reference.is_empty());
    }
}
