//! Converts the embedded field-spec tables (src/data/fieldspecs/*.yaml, kept
//! in YAML to read alongside kustomize's) to JSON at build time: every build
//! loads them, and JSON parses about ten times faster than YAML. A unit test
//! checks the JSON against the crate's own YAML reader.

use std::path::Path;

fn main() {
    let src = Path::new("src/data/fieldspecs");
    let out = Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("fieldspecs");
    std::fs::create_dir_all(&out).expect("create OUT_DIR/fieldspecs");
    println!("cargo:rerun-if-changed={}", src.display());
    for entry in std::fs::read_dir(src).expect("read src/data/fieldspecs") {
        let path = entry.expect("list src/data/fieldspecs").path();
        if path.extension().and_then(|e| e.to_str()) != Some("yaml") {
            continue;
        }
        println!("cargo:rerun-if-changed={}", path.display());
        let text = std::fs::read_to_string(&path).expect("read a field-spec table");
        let value: serde_json::Value =
            serde_yaml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let name = path.file_stem().expect("a file name").to_string_lossy();
        std::fs::write(
            out.join(format!("{name}.json")),
            serde_json::to_string(&value).expect("JSON values serialise"),
        )
        .expect("write a converted table");
    }
}
