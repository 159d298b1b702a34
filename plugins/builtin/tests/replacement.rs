//! ReplacementTransformer against kubectl kustomize (v5.5.0) on small trees.
//!
//! Each directory under `tests/replacement_cases/` holds `resources.yaml`,
//! `replacements.yaml` (a kustomization's `replacements:` list) and the
//! reference result, `expected.yaml` or `expected-error.txt`, produced by
//! `regen.sh` with kubectl kustomize.

use kustom_api::{yaml, Value};
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
    };
    let transform = transformer("ReplacementTransformer").ok_or("not registered")?;
    let result = transform(&config, &mut resources, &ctx);
    match (read("expected.yaml"), result) {
        (Ok(expected), Ok(())) => {
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
            if e.message.trim_end() == expected {
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
