//! ReplacementTransformer against kubectl kustomize (v5.5.0) on small trees.
//!
//! Each directory under `tests/replacement_cases/` holds `resources.yaml`,
//! `replacements.yaml` (a kustomization's `replacements:` list) and the
//! reference result, `expected.yaml` or `expected-error.txt`, produced by
//! `regen.sh` with kubectl kustomize.

use kustom_api::{protocol, resource, yaml, Value};
use kustom_builtin::{ctx::LoadRestrictor, transformer, Ctx};
use serde_json::json;
use std::path::Path;

/// kustomize wraps errors from a plugin's configuration in this; the kustom
/// core adds its own context instead.
fn strip_config_context(message: &str) -> &str {
    match message.strip_prefix("trouble configuring builtin ReplacementTransformer with config: `")
    {
        Some(rest) => rest.split_once("`: ").map_or(message, |(_, m)| m),
        None => message,
    }
}

fn run_case(dir: &Path) -> Result<(), String> {
    let read =
        |name: &str| std::fs::read_to_string(dir.join(name)).map_err(|e| format!("{name}: {e}"));
    let mut resources = yaml::parse_stream(&read("resources.yaml")?).map_err(|e| e.message)?;
    let replacements = yaml::parse_stream(&read("replacements.yaml")?)
        .map_err(|e| e.message)?
        .into_iter()
        .next()
        .unwrap_or(Value::Null);
    let config = json!({"apiVersion": "builtin", "kind": "ReplacementTransformer",
                        "metadata": {"name": "replacements"}, "replacements": replacements});
    let ctx = Ctx {
        root: dir.to_path_buf(),
        load_restrictor: LoadRestrictor::RootOnly,
        kustomization: dir.join("kustomization.yaml").display().to_string(),
        remote_files: Default::default(),
        // The oracle is kubectl kustomize v5.5.0.
        version: kustom_api::KustomizeVersion::V5_5,
    };
    let transform = transformer("ReplacementTransformer").ok_or("not registered")?;
    let result = transform(&config, &mut resources, &ctx);
    match (read("expected.yaml"), result) {
        (Ok(expected), Ok(())) => {
            // kustomize drops its build annotations from the output.
            for r in &mut resources {
                for key in protocol::BUILD_ANNOTATIONS {
                    resource::remove_annotation(r, key);
                }
            }
            let got = yaml::to_yaml_stream(&resources);
            if got == expected {
                Ok(())
            } else {
                Err(format!(
                    "output differs\n--- expected\n{expected}--- got\n{got}"
                ))
            }
        }
        (Ok(_), Err(e)) => Err(format!("unexpected error: {}", e.message)),
        (Err(_), Ok(())) => Err(format!(
            "expected an error ({}), got success",
            read("expected-error.txt")?.trim_end()
        )),
        (Err(_), Err(e)) => {
            let expected = read("expected-error.txt")?;
            let expected = strip_config_context(expected.trim_end());
            // Resources are JSON objects with sorted keys, so a node dumped
            // in an error lists its keys sorted, where kustomize keeps the
            // input's order: compare dumps as sets of lines.
            if e.message.trim_end() == expected || same_dump(e.message.trim_end(), expected) {
                Ok(())
            } else {
                Err(format!(
                    "error differs\n--- expected\n{expected}\n--- got\n{}",
                    e.message
                ))
            }
        }
    }
}

#[test]
fn replacement_cases_match_kubectl_kustomize() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/replacement_cases");
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .expect("tests/replacement_cases")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    assert!(dirs.len() > 40, "fixtures missing");
    let failures: Vec<String> = dirs
        .iter()
        .filter_map(|d| {
            run_case(d).err().map(|e| {
                format!(
                    "== {}: {e}",
                    d.file_name().unwrap_or_default().to_string_lossy()
                )
            })
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases differ:\n{}",
        failures.len(),
        dirs.len(),
        failures.join("\n")
    );
}

/// The shared conformance corpus, when this machine has it.
const CORPUS: &str = "/work/shared/conformance/cases";

/// Build a corpus case that needs nothing but resource files, replacements
/// and `transformers:` configs of kind ReplacementTransformer; `None` when
/// the case needs more of kustomize than that.
fn mini_build(case: &Path) -> Option<Result<String, String>> {
    let case_yaml = std::fs::read_to_string(case.join("case.yaml")).ok()?;
    let case_doc = yaml::parse_stream(&case_yaml).ok()?.into_iter().next()?;
    let dir = case.join("input").join(case_doc.get("build")?.as_str()?);
    let k_text = std::fs::read_to_string(dir.join("kustomization.yaml")).ok()?;
    let k = yaml::parse_stream(&k_text).ok()?.into_iter().next()?;
    let supported = [
        "apiVersion",
        "kind",
        "resources",
        "replacements",
        "transformers",
    ];
    if k.as_object()?
        .keys()
        .any(|key| !supported.contains(&key.as_str()))
    {
        return None;
    }
    let mut resources = Vec::new();
    for file in k
        .get("resources")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let path = dir.join(file.as_str()?);
        if !path.is_file() {
            return None;
        }
        resources.extend(yaml::parse_stream(&std::fs::read_to_string(path).ok()?).ok()?);
    }
    let mut configs = Vec::new();
    if let Some(replacements) = k.get("replacements") {
        configs.push(
            json!({"apiVersion": "builtin", "kind": "ReplacementTransformer",
                            "replacements": replacements}),
        );
    }
    for file in k
        .get("transformers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let text = std::fs::read_to_string(dir.join(file.as_str()?)).ok()?;
        for config in yaml::parse_stream(&text).ok()? {
            if config.get("kind")?.as_str()? != "ReplacementTransformer" {
                return None;
            }
            configs.push(config);
        }
    }
    let ctx = Ctx {
        root: dir.clone(),
        load_restrictor: LoadRestrictor::RootOnly,
        kustomization: dir.join("kustomization.yaml").display().to_string(),
        remote_files: Default::default(),
        // The oracle is kubectl kustomize v5.5.0.
        version: kustom_api::KustomizeVersion::V5_5,
    };
    let transform = transformer("ReplacementTransformer")?;
    for config in &configs {
        if let Err(e) = transform(config, &mut resources, &ctx) {
            return Some(Err(e.message));
        }
    }
    resources.retain(|r| resource::annotation(r, protocol::LOCAL_CONFIG).is_none());
    Some(Ok(yaml::to_yaml_stream(&resources)))
}

#[test]
fn conformance_cases_needing_only_replacements() {
    let Ok(entries) = std::fs::read_dir(CORPUS) else {
        eprintln!("{CORPUS} not present; skipped");
        return;
    };
    let mut cases: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    cases.sort();
    let mut ran = 0;
    let mut failures = Vec::new();
    for case in &cases {
        let uses_replacements = walk_files(&case.join("input")).iter().any(|f| {
            std::fs::read_to_string(f)
                .is_ok_and(|t| t.contains("replacements:") || t.contains("ReplacementTransformer"))
        });
        if !uses_replacements {
            continue;
        }
        let Some(result) = mini_build(case) else {
            continue;
        };
        ran += 1;
        let name = case
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        match (std::fs::read_to_string(case.join("expected.yaml")), result) {
            (Ok(expected), Ok(got)) if expected == got => {}
            (Ok(expected), Ok(got)) => {
                failures.push(format!("== {name}\n--- expected\n{expected}--- got\n{got}"))
            }
            (Ok(_), Err(e)) => failures.push(format!("== {name}: unexpected error {e}")),
            (Err(_), got) => {
                let expected =
                    std::fs::read_to_string(case.join("expected-error.txt")).unwrap_or_default();
                match got {
                    Err(e) if e.trim_end() == strip_config_context(expected.trim_end()) => {}
                    other => failures.push(format!(
                        "== {name}: expected error {expected}, got {other:?}"
                    )),
                }
            }
        }
    }
    eprintln!("{ran} conformance cases built with replacements only");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn walk_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk_files(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// Whether two "… node contents:\n<yaml>" errors agree but for the order of lines in the dump.
fn same_dump(got: &str, want: &str) -> bool {
    let split = |s: &str| {
        s.split_once("node contents:")
            .map(|(h, d)| (h.to_string(), d.to_string()))
    };
    match (split(got), split(want)) {
        (Some((gh, gd)), Some((wh, wd))) => {
            let mut g: Vec<&str> = gd
                .lines()
                .map(|l| l.trim().trim_start_matches("- "))
                .collect();
            let mut w: Vec<&str> = wd
                .lines()
                .map(|l| l.trim().trim_start_matches("- "))
                .collect();
            g.sort_unstable();
            w.sort_unstable();
            gh == wh && g == w
        }
        _ => false,
    }
}
