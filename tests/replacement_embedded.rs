//! Replacement target paths that go on into YAML text held in a string
//! field (kustomize v5.8.0, #5679): `data.app\.yaml.server.port` sets
//! `server.port` inside the text of `data["app.yaml"]`, which kyaml then
//! writes back with its own encoder (comments and styles kept, two-space
//! indentation, sequences flush, the first document only, trimmed).
//!
//! Each case builds a ConfigMap `dst` whose `data.t` holds a text, with one
//! replacement into `data.t.<path>`. The expected outputs are kubectl
//! 1.37.1's (kustomize v5.8.1); where `kubectl-1.37` is installed the build
//! is also compared with it, and a generated set of texts is compared case
//! by case (skipped visibly otherwise).

mod support;

use std::path::Path;
use std::process::Output;
use support::{skip, Env};

/// A ConfigMap `dst` whose `data.t` holds `text` (written double-quoted,
/// so that any text can be given).
fn holder(text: &str) -> String {
    let quoted = serde_json::to_string(text).expect("quote");
    format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dst\ndata:\n  t: {quoted}\n")
}

/// A kustomization setting `value` (a `sourceValue`) at `data.t.<path>` of
/// `dst`.
fn setting(path: &str, value: &str, create: bool) -> String {
    let q = |s: &str| serde_json::to_string(s).expect("quote");
    let options = if create {
        "    options:\n      create: true\n"
    } else {
        ""
    };
    format!(
        "resources:\n- r.yaml\nreplacements:\n- sourceValue: {}\n  targets:\n  - select:\n      \
         name: dst\n{options}    fieldPaths:\n    - {}\n",
        q(value),
        q(&format!("data.t.{path}"))
    )
}

/// What v5.8.1 builds when `dst`'s text comes out as a literal block.
fn built(text: &str) -> String {
    let mut block = String::new();
    for line in text.split('\n') {
        if !line.is_empty() {
            block.push_str("    ");
            block.push_str(line);
        }
        block.push('\n');
    }
    format!("apiVersion: v1\ndata:\n  t: |-\n{block}kind: ConfigMap\nmetadata:\n  name: dst\n")
}

/// What v5.8.1 builds when `dst`'s text comes out on one line, as `t`
/// is written (`'first: new'`).
fn built_line(t: &str) -> String {
    format!("apiVersion: v1\ndata:\n  t: {t}\nkind: ConfigMap\nmetadata:\n  name: dst\n")
}

fn kustom(env: &Env, version: Option<&str>) -> Output {
    let mut c = env.command(Path::new(env!("CARGO_BIN_EXE_kustom")));
    match version {
        Some(v) => c.env("KUSTOM_KUSTOMIZE_VERSION", v),
        None => c.env_remove("KUSTOM_KUSTOMIZE_VERSION"),
    };
    c.args(["build", "app"]).output().expect("run kustom")
}

/// `kubectl-1.37 kustomize app`, or None (with a notice) when it is not
/// installed.
fn reference(env: &Env, kubectl: &str) -> Option<Output> {
    match env
        .command(Path::new(kubectl))
        .args(["kustomize", "app"])
        .output()
    {
        Ok(o) => Some(o),
        Err(_) => {
            skip(&format!(
                "{kubectl} is not installed: kustom's output not compared with it"
            ));
            None
        }
    }
}

/// What a build must give: its output, or an error holding these parts.
enum Want<'a> {
    Yaml(String),
    Error(&'a [&'a str]),
}

/// Build `files` (in `app/`) in the mode `version` (None: v5.8.1) and
/// check the result, and compare it with `kubectl` when installed.
fn check_files(files: &[(&str, &str)], version: Option<&str>, kubectl: &str, want: Want<'_>) {
    let env = Env::new();
    for (path, text) in files {
        env.write(&format!("app/{path}"), text);
    }
    let got = kustom(&env, version);
    let stdout = String::from_utf8_lossy(&got.stdout);
    let stderr = String::from_utf8_lossy(&got.stderr);
    match &want {
        Want::Yaml(yaml) => {
            assert!(got.status.success(), "failed:\n{stderr}");
            assert_eq!(stdout, *yaml);
        }
        Want::Error(parts) => {
            assert!(!got.status.success(), "built:\n{stdout}");
            for p in *parts {
                assert!(stderr.contains(p), "{p:?} not in:\n{stderr}");
            }
        }
    }
    if let Some(reference) = reference(&env, kubectl) {
        let theirs = String::from_utf8_lossy(&reference.stderr);
        assert_eq!(
            reference.status.success(),
            got.status.success(),
            "{kubectl}: {theirs}"
        );
        assert_eq!(
            String::from_utf8_lossy(&reference.stdout),
            stdout,
            "output differs from {kubectl}"
        );
        // (kubectl 1.32 wraps its errors in log records: compared as to
        // success only.)
        if let (Want::Error(parts), "kubectl-1.37") = (want, kubectl) {
            for p in parts {
                assert!(theirs.contains(p), "{p:?} not in {kubectl}'s:\n{theirs}");
            }
        }
    }
}

/// Set `value` at `data.t.<path>` of a ConfigMap holding `text`, in the
/// default mode (v5.8.1).
fn check(text: &str, path: &str, value: &str, create: bool, want: Want<'_>) {
    let kustomization = setting(path, value, create);
    check_files(
        &[
            ("kustomization.yaml", &kustomization),
            ("r.yaml", &holder(text)),
        ],
        None,
        "kubectl-1.37",
        want,
    );
}

#[test]
fn nested_block_mappings_and_sequences_are_reindented() {
    check(
        "server:\n    http:\n        port: 80\n        hosts:\n            - a.example.com\n            - b.example.com\n",
        "server.http.port",
        "8080",
        false,
        Want::Yaml(built(
            "server:\n  http:\n    port: 8080\n    hosts:\n    - a.example.com\n    - b.example.com",
        )),
    );
    // Four-space indentation and indented sequences.
    check(
        "spec:\n    containers:\n        -   name: app\n            image: old\n",
        "spec.containers.0.image",
        "nginx:1.27",
        false,
        Want::Yaml(built(
            "spec:\n  containers:\n  - name: app\n    image: nginx:1.27",
        )),
    );
}

#[test]
fn sequence_items_by_index_and_by_selector() {
    check(
        "hosts:\n- a\n- b\n",
        "hosts.1",
        "c",
        false,
        Want::Yaml(built("hosts:\n- a\n- c")),
    );
    check(
        "routes:\n- name: api\n  backend: old\n- name: web\n  backend: old\n",
        "routes.[name=web].backend",
        "svc-web",
        false,
        Want::Yaml(built(
            "routes:\n- name: api\n  backend: old\n- name: web\n  backend: svc-web",
        )),
    );
}

#[test]
fn create_adds_keys_and_items_at_the_end() {
    check(
        "app:\n  name: demo\n",
        "app.limits.memory",
        "512Mi",
        true,
        Want::Yaml(built("app:\n  name: demo\n  limits:\n    memory: 512Mi")),
    );
    // The created value is typed by its text; the existing one keeps its
    // quotes.
    check(
        "env:\n- name: A\n  value: \"1\"\n",
        "env.[name=B].value",
        "2",
        true,
        Want::Yaml(built(
            "env:\n- name: A\n  value: \"1\"\n- name: B\n  value: 2",
        )),
    );
}

#[test]
fn comments_stay_where_go_yaml_attaches_them() {
    check(
        "# document comment\n\n# head of app\napp:   # line on the key\n  port: 80  # line on the value\n  \
         # foot of port\n# foot of app, dedented\nlist:\n- x # one\n# under the list\n- y\n",
        "app.port",
        "8080",
        false,
        Want::Yaml(built(
            "# document comment\n\n# head of app\napp: # line on the key\n  port: 8080 # line on the value\n  \
             # foot of port\n# foot of app, dedented\nlist:\n- x # one\n# under the list\n- y",
        )),
    );
}

#[test]
fn quoted_scalars_keep_their_quotes() {
    // A value that would read as another type is quoted in a plain string.
    check(
        "single: 'old'\ndouble: \"old\"\nplain: old\n",
        "plain",
        "true",
        false,
        Want::Yaml(built("single: 'old'\ndouble: \"old\"\nplain: \"true\"")),
    );
    check(
        "single: 'old'\ndouble: \"old\"\n",
        "single",
        "it's",
        false,
        Want::Yaml(built("single: 'it''s'\ndouble: \"old\"")),
    );
}

#[test]
fn flow_collections_stay_flow() {
    check(
        "limits: {cpu: 1,   memory: 1Gi}\nports: [80,443]\n",
        "limits.memory",
        "2Gi",
        false,
        Want::Yaml(built("limits: {cpu: 1, memory: 2Gi}\nports: [80, 443]")),
    );
    check(
        "ports: [80,443]\n",
        "ports.1",
        "8443",
        false,
        Want::Yaml(built_line("'ports: [80, 8443]'")),
    );
}

#[test]
fn literal_blocks_are_kept_and_made() {
    check(
        "script: |\n  echo one\n  echo two\nnote: old\n",
        "note",
        "line one\nline two",
        false,
        Want::Yaml(built(
            "script: |\n  echo one\n  echo two\nnote: |-\n  line one\n  line two",
        )),
    );
}

#[test]
fn text_is_trimmed_with_or_without_a_final_line_break() {
    check(
        "a: 1\nb: 2",
        "b",
        "3",
        false,
        Want::Yaml(built("a: 1\nb: 3")),
    );
    check(
        "a: 1\nb: 2\n\n\n",
        "b",
        "3",
        false,
        Want::Yaml(built("a: 1\nb: 3")),
    );
}

#[test]
fn only_the_first_document_is_written_without_markers() {
    check(
        "---\nkey: old\n",
        "key",
        "new",
        false,
        Want::Yaml(built_line("'key: new'")),
    );
    check(
        "first: old\n---\nsecond: dropped\n",
        "first",
        "new",
        false,
        Want::Yaml(built_line("'first: new'")),
    );
}

#[test]
fn scalars_keep_their_tags() {
    // An integer given text that is not one keeps its tag, written out.
    check(
        "replicas: 3\n",
        "replicas",
        "many",
        false,
        Want::Yaml(built_line("'replicas: !!int many'")),
    );
    check(
        "name: demo\n",
        "name",
        "42",
        false,
        Want::Yaml(built_line("'name: \"42\"'")),
    );
    check(
        "name: demo\n",
        "replicas",
        "42",
        true,
        Want::Yaml(built("name: demo\nreplicas: 42")),
    );
}

#[test]
fn anchors_aliases_and_merge_keys() {
    check(
        "base: &base\n  image: old\nprod:\n  <<: *base\n  replicas: 2\n",
        "prod.replicas",
        "3",
        false,
        Want::Yaml(built(
            "base: &base\n  image: old\nprod:\n  !!merge <<: *base\n  replicas: 3",
        )),
    );
}

#[test]
fn text_the_path_cannot_enter_gets_the_ordinary_walk() {
    // Not YAML: the ordinary walk reads it too, and fails with go-yaml's
    // words.
    check(
        "key: [unclosed\n",
        "key.x",
        "new",
        false,
        Want::Error(&[
            "unable to find field \"data.t.key.x\" in replacement target: \
             yaml: line 1: did not find expected ',' or ']'",
        ]),
    );
    check(
        "just a sentence",
        "key",
        "new",
        false,
        Want::Error(&[
            "unable to find field \"data.t.key\" in replacement target: wrong node kind: \
             expected MappingNode but got ScalarNode: node contents:\njust a sentence\n",
        ]),
    );
    // A string inside the text is walked into in a copy: found, unchanged,
    // and the text is written back all the same.
    check(
        "inner: 'x: 1'\nother:    y\n",
        "inner.x",
        "2",
        false,
        Want::Yaml(built("inner: 'x: 1'\nother: y")),
    );
}

#[test]
fn values_written_empty_are_empty_text_to_the_walk() {
    // `key:` is a null whose text is empty: kyaml reads that text as YAML
    // and finds a node of no kind; `key: null` is walked as null.
    let resource = |value: &str| {
        format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dst\ndata:\n  key:{value}\n")
    };
    let kustomization = "resources:\n- r.yaml\nreplacements:\n- sourceValue: new\n  targets:\n  \
                         - select:\n      name: dst\n    options:\n      create: true\n    \
                         fieldPaths:\n    - data.key.sub\n";
    check_files(
        &[
            ("kustomization.yaml", kustomization),
            ("r.yaml", &resource("")),
        ],
        None,
        "kubectl-1.37",
        Want::Error(&[
            "unable to find or create field \"data.key.sub\" in replacement target: wrong node \
             kind: expected MappingNode but got : node contents:\nnull\n",
        ]),
    );
    check_files(
        &[
            ("kustomization.yaml", kustomization),
            ("r.yaml", &resource(" null")),
        ],
        None,
        "kubectl-1.37",
        Want::Yaml(
            "apiVersion: v1\ndata:\n  key: null\nkind: ConfigMap\nmetadata:\n  name: dst\n".into(),
        ),
    );
    // Inside the text likewise.
    check(
        "a:\n  b:\n",
        "a.b.c",
        "new",
        false,
        Want::Error(&[
            "unable to find field \"data.t.a.b.c\" in replacement target: wrong node kind: \
             expected MappingNode but got : node contents:\nnull\n",
        ]),
    );
}

const SOURCES: &str = "apiVersion: v1
kind: ConfigMap
metadata:
  name: src
data:
  port: \"8080\"
spec:
  replicas: 3
  ports: [80, 443]
";

#[test]
fn values_from_a_source_field_keep_its_tag() {
    // A scalar replaces a mapping whole, with the source's tag: the
    // string "8080" is quoted, the integer 3 is not.
    let kustomization = "resources:\n- r.yaml\n- src.yaml\nreplacements:\n- source:\n    \
                         kind: ConfigMap\n    name: src\n    fieldPath: data.port\n  targets:\n  \
                         - select:\n      name: dst\n    fieldPaths:\n    - data.t.a\n- source:\n    \
                         kind: ConfigMap\n    name: src\n    fieldPath: spec.replicas\n  targets:\n  \
                         - select:\n      name: dst\n    fieldPaths:\n    - data.t.b\n";
    let want = built("a: \"8080\"\nb: 3").replace(
        "  name: dst\n",
        "  name: dst\n---\napiVersion: v1\ndata:\n  port: \"8080\"\nkind: ConfigMap\nmetadata:\n  \
         name: src\nspec:\n  ports:\n  - 80\n  - 443\n  replicas: 3\n",
    );
    check_files(
        &[
            ("kustomization.yaml", kustomization),
            ("r.yaml", &holder("a: {x: 1}\nb: [1]\n")),
            ("src.yaml", SOURCES),
        ],
        None,
        "kubectl-1.37",
        Want::Yaml(want),
    );
}

#[test]
fn a_mapping_or_sequence_copied_into_text_is_refused() {
    // kustomize copies the source's node, with the key order, styles and
    // comments of the source file, none of which kustom keeps.
    let env = Env::new();
    env.write("app/kustomization.yaml", "resources:\n- r.yaml\n- src.yaml\nreplacements:\n- source:\n    kind: ConfigMap\n    name: src\n    fieldPath: spec.ports\n  targets:\n  - select:\n      name: dst\n    fieldPaths:\n    - data.t.ports\n");
    env.write("app/r.yaml", &holder("ports: [1]\n"));
    env.write("app/src.yaml", SOURCES);
    let got = kustom(&env, None);
    let stderr = String::from_utf8_lossy(&got.stderr);
    assert!(!got.status.success());
    for part in [
        "kustomization.yaml",
        "unable to set field \"data.t.ports\" in replacement target",
        "copy a mapping or sequence into YAML text",
    ] {
        assert!(stderr.contains(part), "{part:?} not in:\n{stderr}");
    }
    assert!(got.stdout.is_empty(), "nothing is printed on an error");
}

#[test]
fn v5_5_does_not_go_into_text() {
    // (v5.5.0 has no `sourceValue`: the value comes from a field.)
    let kustomization = "resources:\n- r.yaml\n- src.yaml\nreplacements:\n- source:\n    \
                         kind: ConfigMap\n    name: src\n    fieldPath: data.port\n  targets:\n  \
                         - select:\n      name: dst\n    fieldPaths:\n    - data.t.a.b\n";
    check_files(
        &[
            ("kustomization.yaml", kustomization),
            ("r.yaml", &holder("a:\n  b: old\n")),
            ("src.yaml", SOURCES),
        ],
        Some("5.5"),
        "kubectl",
        Want::Error(&[
            "unable to find field \"data.t.a.b\" in replacement target: wrong node kind: \
             expected MappingNode but got ScalarNode",
        ]),
    );
}

// ---------------------------------------------------------------------------
// Generated texts, compared with kubectl-1.37

/// A small deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

const KEYS: &[&str] = &[
    "app",
    "name",
    "host",
    "port",
    "image",
    "level",
    "db",
    "x.y",
    "two words",
];
const TEXTS: &[&str] = &[
    "hello",
    "8080",
    "1.5",
    "true",
    "yes",
    "null",
    "~",
    "0x1F",
    "2001-12-14",
    "with space",
    "a: b",
    "x # y",
    "-dash",
    "it's",
    "say \"hi\"",
    "ünï",
    "",
    " lead",
    "trail ",
    "[x]",
    "*star",
    "tab\there",
    "multi\nline",
    "multi\nline\n",
];
const VALUES: &[&str] = &[
    "new",
    "42",
    "true",
    "yes",
    "a: b",
    "with # hash",
    "",
    "multi\nline",
    "it's",
    "-x",
    "~",
    "0x10",
    "2020-01-01",
];
const COMMENTS: &[&str] = &["# c", "#c", "# c: d", "#", "# - x", "# ünï"];

enum Tree {
    Text(&'static str),
    Map(Vec<(&'static str, Tree)>),
    Seq(Vec<Tree>),
}

fn tree(rng: &mut Rng, depth: usize) -> Tree {
    match rng.below(10) {
        _ if depth > 3 => Tree::Text(rng.pick(TEXTS)),
        0..=2 => Tree::Text(rng.pick(TEXTS)),
        3..=6 => {
            let mut entries: Vec<(&str, Tree)> = Vec::new();
            for _ in 0..1 + rng.below(4) {
                let key = rng.pick(KEYS);
                if entries.iter().all(|(k, _)| *k != key) {
                    entries.push((key, tree(rng, depth + 1)));
                }
            }
            Tree::Map(entries)
        }
        _ => Tree::Seq(
            (0..1 + rng.below(3))
                .map(|_| tree(rng, depth + 1))
                .collect(),
        ),
    }
}

/// A scalar written plain, single- or double-quoted, as the text allows.
fn scalar(rng: &mut Rng, text: &str) -> String {
    let plain_ok = !text.is_empty()
        && text.trim() == text
        && !text.contains(['\n', '\t', '#', ':', '"', '\''])
        && !text.starts_with(['-', '[', '*', '~']);
    match rng.below(6) {
        0 if !text.contains(['\n', '\t']) => format!("'{}'", text.replace('\'', "''")),
        1..=3 if plain_ok => text.to_string(),
        _ => serde_json::to_string(text).expect("quote"),
    }
}

fn flow(rng: &mut Rng, t: &Tree) -> String {
    match t {
        Tree::Text(s) => scalar(rng, s),
        Tree::Map(entries) => {
            let items: Vec<String> = entries
                .iter()
                .map(|(k, v)| format!("{}: {}", scalar(rng, k), flow(rng, v)))
                .collect();
            format!("{{{}}}", items.join(", "))
        }
        Tree::Seq(items) => {
            let items: Vec<String> = items.iter().map(|v| flow(rng, v)).collect();
            format!("[{}]", items.join(", "))
        }
    }
}

/// Lines of `t` at `indent`, the first one starting with `lead` (a key
/// or a `-`), with comments, blank lines and styles sprinkled in.
fn render(rng: &mut Rng, t: &Tree, indent: usize, step: usize, lead: &str, out: &mut Vec<String>) {
    let pad = " ".repeat(indent);
    let comment = |rng: &mut Rng| {
        if rng.chance(15) {
            format!(" {}", rng.pick(COMMENTS))
        } else {
            String::new()
        }
    };
    match t {
        Tree::Text(s) if s.contains('\n') && rng.chance(60) => {
            let c = comment(rng);
            out.push(format!(
                "{lead} |{}{c}",
                if s.ends_with('\n') { "" } else { "-" }
            ));
            for line in s.trim_end_matches('\n').split('\n') {
                out.push(format!("{pad}{}{line}", " ".repeat(step)));
            }
        }
        Tree::Text(s) => {
            let c = comment(rng);
            out.push(format!("{lead} {}{c}", scalar(rng, s)));
        }
        _ if rng.chance(10) => {
            let c = comment(rng);
            out.push(format!("{lead} {}{c}", flow(rng, t)));
        }
        Tree::Map(entries) => {
            let c = comment(rng);
            out.push(format!("{lead}{c}"));
            for (k, v) in entries {
                if rng.chance(12) {
                    out.push(format!("{pad}{}{}", " ".repeat(step), rng.pick(COMMENTS)));
                }
                let key = format!("{pad}{}{}:", " ".repeat(step), scalar(rng, k));
                render(rng, v, indent + step, step, &key, out);
            }
        }
        Tree::Seq(items) => {
            let c = comment(rng);
            out.push(format!("{lead}{c}"));
            let inner = if rng.chance(50) {
                indent + step
            } else {
                indent
            };
            for v in items {
                let dash = format!("{}-", " ".repeat(inner));
                render(rng, v, inner + 2, step, &dash, out);
            }
        }
    }
}

/// The paths of the scalars in `t`.
fn leaves(t: &Tree, prefix: &str, out: &mut Vec<String>) {
    let join = |part: &str| {
        if prefix.is_empty() {
            part.to_string()
        } else {
            format!("{prefix}.{part}")
        }
    };
    match t {
        Tree::Text(_) => out.push(prefix.to_string()),
        Tree::Map(entries) => {
            for (k, v) in entries {
                leaves(v, &join(&k.replace('.', "\\.")), out);
            }
        }
        Tree::Seq(items) => {
            for (i, v) in items.iter().enumerate() {
                leaves(v, &join(&i.to_string()), out);
            }
        }
    }
}

struct Generated {
    text: String,
    path: String,
    value: &'static str,
    create: bool,
}

fn generate(rng: &mut Rng) -> Generated {
    let root = match tree(rng, 0) {
        t @ Tree::Map(_) => t,
        other => Tree::Map(vec![("root", other)]),
    };
    let step = [2, 2, 3, 4][rng.below(4)];
    let mut lines = Vec::new();
    if rng.chance(15) {
        lines.push(rng.pick(COMMENTS).to_string());
        lines.push(String::new());
    }
    if rng.chance(10) {
        lines.push("---".to_string());
    }
    let Tree::Map(entries) = &root else {
        unreachable!("the root is a mapping")
    };
    for (k, v) in entries {
        let key = format!("{}:", scalar(rng, k));
        render(rng, v, 0, step, &key, &mut lines);
    }
    // Stray comments and blank lines anywhere, at any indentation.
    for _ in 0..rng.below(4) {
        let at = rng.below(lines.len() + 1);
        let line = if rng.chance(70) {
            format!("{}{}", " ".repeat(rng.below(6)), rng.pick(COMMENTS))
        } else {
            String::new()
        };
        lines.insert(at, line);
    }
    let mut text = lines.join("\n");
    if rng.chance(70) {
        text.push('\n');
    }
    let mut paths = Vec::new();
    leaves(&root, "", &mut paths);
    let (path, create) = if rng.chance(80) && !paths.is_empty() {
        (paths[rng.below(paths.len())].clone(), rng.chance(10))
    } else {
        (
            format!("{}.added", rng.pick(KEYS).replace('.', "\\.")),
            true,
        )
    };
    Generated {
        text,
        path,
        value: rng.pick(VALUES),
        create,
    }
}

/// Each built ConfigMap's document, by name.
fn documents(output: &str) -> std::collections::BTreeMap<String, String> {
    output
        .split("\n---\n")
        .filter_map(|doc| {
            let name = doc.lines().find_map(|l| l.strip_prefix("  name: "))?;
            Some((name.to_string(), doc.trim_end().to_string()))
        })
        .collect()
}

#[test]
fn generated_texts_match_kubectl() {
    const CASES: usize = 240;
    const BATCH: usize = 40;
    let mut rng = Rng(0x5eed_cafe_f00d_d00d);
    let cases: Vec<Generated> = (0..CASES).map(|_| generate(&mut rng)).collect();
    let mut compared = 0;
    let mut differences = Vec::new();
    for (b, batch) in cases.chunks(BATCH).enumerate() {
        // A batch in one build; when either side fails, case by case.
        let build = |cases: &[&Generated]| {
            let env = Env::new();
            let mut resources = Vec::new();
            let mut replacements = String::new();
            for (i, c) in cases.iter().enumerate() {
                resources.push(holder(&c.text).replace("name: dst", &format!("name: c{i}")));
                let one = setting(&c.path, c.value, c.create);
                let start = one.find("- sourceValue").expect("a replacement");
                replacements.push_str(&one[start..].replace("name: dst", &format!("name: c{i}")));
            }
            env.write("app/r.yaml", &resources.join("---\n"));
            env.write(
                "app/kustomization.yaml",
                &format!("resources:\n- r.yaml\nreplacements:\n{replacements}"),
            );
            let ours = kustom(&env, None);
            let theirs = reference(&env, "kubectl-1.37")?;
            Some((ours, theirs))
        };
        let all: Vec<&Generated> = batch.iter().collect();
        let Some((ours, theirs)) = build(&all) else {
            return;
        };
        let singles: Vec<usize> = if ours.status.success() && theirs.status.success() {
            let (a, b) = (
                documents(&String::from_utf8_lossy(&ours.stdout)),
                documents(&String::from_utf8_lossy(&theirs.stdout)),
            );
            (0..batch.len())
                .filter(|i| a.get(&format!("c{i}")) != b.get(&format!("c{i}")))
                .collect()
        } else {
            (0..batch.len()).collect()
        };
        compared += batch.len() - singles.len();
        for i in singles {
            let Some((ours, theirs)) = build(&[&batch[i]]) else {
                return;
            };
            compared += 1;
            // Failing both, kustom's error holds kubectl's (after its own
            // context).
            let their_error = String::from_utf8_lossy(&theirs.stderr);
            let their_error = their_error.trim().trim_start_matches("error: ");
            let same = ours.status.success() == theirs.status.success()
                && ours.stdout == theirs.stdout
                && (ours.status.success()
                    || String::from_utf8_lossy(&ours.stderr).contains(their_error));
            if !same {
                let c = &batch[i];
                differences.push(format!(
                    "case {}: path {:?} value {:?} create {}\n{}\n--- kustom:\n{}{}\n--- kubectl-1.37:\n{}{}",
                    b * BATCH + i,
                    c.path,
                    c.value,
                    c.create,
                    c.text,
                    String::from_utf8_lossy(&ours.stdout),
                    String::from_utf8_lossy(&ours.stderr),
                    String::from_utf8_lossy(&theirs.stdout),
                    String::from_utf8_lossy(&theirs.stderr),
                ));
            }
        }
    }
    eprintln!(
        "{compared} generated cases compared with kubectl-1.37, {} differences",
        differences.len()
    );
    assert!(differences.is_empty(), "{}", differences.join("\n\n"));
}
