//! `kustom edit` and `kustom create`, case by case: an input tree, a command
//! line, and the kustomization file kustomize writes (byte for byte) or the
//! error it gives. After every successful edit the tree is built by
//! `kustom build` and, when kubectl is installed, by `kubectl kustomize`:
//! both must agree (or both fail), so the edited file means to kustomize
//! what it means to kustom.

mod support;

use std::path::Path;
use std::process::Command;
use support::{DEPLOY, REPLICAS_PATCH as PATCH, SVC};

/// kustomize's default header.
macro_rules! h {
    () => {
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
    };
}

const COMPONENT: &str = "apiVersion: kustomize.config.k8s.io/v1alpha1
kind: Component
commonAnnotations:
  from-component: \"yes\"
";

/// What a case expects.
enum Want {
    /// The kustomization file afterwards, exactly.
    File(&'static str),
    /// Failure with this text in STDERR (and the file unchanged).
    Error(&'static str),
}

struct Case {
    name: &'static str,
    /// The kustomization file's content (None: no kustomization file).
    given: Option<&'static str>,
    /// The command line after `kustom`.
    args: &'static [&'static str],
    want: Want,
}

use Want::{Error, File};

const BASE: &str = concat!(h!(), "resources:\n- deploy.yaml\n");

fn cases() -> Vec<Case> {
    vec![
        // ---- set nameprefix / namesuffix / namespace ----
        Case {
            name: "set nameprefix",
            given: Some(BASE),
            args: &["edit", "set", "nameprefix", "acme-"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\nnamePrefix: acme-\n")),
        },
        Case {
            name: "set nameprefix replaces in place",
            given: Some(concat!(h!(), "namePrefix: old-\nresources:\n- deploy.yaml\n")),
            args: &["edit", "set", "nameprefix", "new-"],
            want: File(concat!(h!(), "namePrefix: new-\nresources:\n- deploy.yaml\n")),
        },
        Case {
            name: "set nameprefix after -- (Argo CD's form)",
            given: Some(BASE),
            args: &["edit", "set", "nameprefix", "--", "-dash"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\nnamePrefix: -dash\n")),
        },
        Case {
            name: "set nameprefix needs one value",
            given: Some(BASE),
            args: &["edit", "set", "nameprefix"],
            want: Error("must specify exactly one prefix value"),
        },
        Case {
            name: "set nameprefix rejects two values",
            given: Some(BASE),
            args: &["edit", "set", "nameprefix", "a-", "b-"],
            want: Error("must specify exactly one prefix value"),
        },
        Case {
            name: "set namesuffix",
            given: Some(BASE),
            args: &["edit", "set", "namesuffix", "--", "-v2"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\nnameSuffix: -v2\n")),
        },
        Case {
            name: "set namesuffix needs one value",
            given: Some(BASE),
            args: &["edit", "set", "namesuffix"],
            want: Error("must specify exactly one suffix value"),
        },
        Case {
            name: "set namespace",
            given: Some(BASE),
            args: &["edit", "set", "namespace", "staging"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\nnamespace: staging\n")),
        },
        Case {
            name: "set namespace that reads as a bool is quoted",
            given: Some(BASE),
            args: &["edit", "set", "namespace", "yes"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\nnamespace: \"yes\"\n")),
        },
        Case {
            name: "set namespace twice in a row",
            given: Some(concat!(h!(), "namespace: a\nresources:\n- deploy.yaml\n")),
            args: &["edit", "set", "namespace", "b"],
            want: File(concat!(h!(), "namespace: b\nresources:\n- deploy.yaml\n")),
        },
        Case {
            name: "set namespace needs one value",
            given: Some(BASE),
            args: &["edit", "set", "namespace", "a", "b"],
            want: Error("must specify exactly one namespace value"),
        },
        Case {
            name: "no kustomization file",
            given: None,
            args: &["edit", "set", "namespace", "a"],
            want: Error("Missing kustomization file 'kustomization.yaml'."),
        },
        // ---- header handling ----
        Case {
            name: "missing apiVersion and kind are appended",
            given: Some("resources:\n- deploy.yaml\n"),
            args: &["edit", "set", "nameprefix", "p-"],
            want: File(concat!("resources:\n- deploy.yaml\n", h!(), "namePrefix: p-\n")),
        },
        Case {
            name: "empty kustomization file",
            given: Some(""),
            args: &["edit", "add", "resource", "deploy.yaml"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\n")),
        },
        Case {
            name: "a Component keeps its apiVersion",
            given: Some("kind: Component\ncommonLabels:\n  a: b\n"),
            args: &["edit", "set", "namesuffix", "--", "-c"],
            want: File("kind: Component\ncommonLabels:\n  a: b\napiVersion: kustomize.config.k8s.io/v1alpha1\nnameSuffix: -c\n"),
        },
        Case {
            name: "comments stay above their field",
            given: Some(concat!("# the app\n", h!(), "# what we deploy\nresources:\n- deploy.yaml\n\n# prefix\nnamePrefix: a-\n")),
            args: &["edit", "set", "nameprefix", "b-"],
            want: File(concat!("# the app\n", h!(), "# what we deploy\nresources:\n- deploy.yaml\n\n# prefix\nnamePrefix: b-\n")),
        },
        Case {
            name: "a comment inside a list moves above its field",
            given: Some(concat!(h!(), "resources:\n# the deployment\n- deploy.yaml\n")),
            args: &["edit", "add", "resource", "svc.yaml"],
            want: File(concat!(h!(), "# the deployment\nresources:\n- deploy.yaml\n- svc.yaml\n")),
        },
        Case {
            name: "trailing comments are dropped",
            given: Some(concat!(h!(), "resources:\n- deploy.yaml\n# the end\n")),
            args: &["edit", "set", "namespace", "x"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\nnamespace: x\n")),
        },
        Case {
            name: "field names match case-insensitively",
            given: Some(concat!(h!(), "RESOURCES:\n- deploy.yaml\n")),
            args: &["edit", "set", "namespace", "x"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\nnamespace: x\n")),
        },
        Case {
            name: "indentation of lists is normalised",
            given: Some(concat!(h!(), "resources:\n  - deploy.yaml\n")),
            args: &["edit", "set", "namespace", "x"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\nnamespace: x\n")),
        },
        Case {
            name: "a leading document separator is dropped",
            given: Some(concat!("# c\n---\n", h!(), "resources:\n- deploy.yaml\n")),
            args: &["edit", "set", "namespace", "x"],
            want: File(concat!("# c\n", h!(), "resources:\n- deploy.yaml\nnamespace: x\n")),
        },
        Case {
            name: "bases become resources",
            given: Some(concat!(h!(), "bases:\n- base\nresources:\n- deploy.yaml\n")),
            args: &["edit", "set", "namespace", "x"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\n- base\nnamespace: x\n")),
        },
        Case {
            name: "imageTags become images",
            given: Some(concat!(h!(), "resources:\n- deploy.yaml\nimageTags:\n- name: nginx\n  newTag: \"1.26\"\n")),
            args: &["edit", "set", "namespace", "x"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\nnamespace: x\nimages:\n- name: nginx\n  newTag: \"1.26\"\n")),
        },
        Case {
            name: "env becomes envs",
            given: Some(concat!(h!(), "configMapGenerator:\n- name: c\n  env: a.env\n")),
            args: &["edit", "set", "namespace", "x"],
            want: File(concat!(h!(), "configMapGenerator:\n- envs:\n  - a.env\n  name: c\nnamespace: x\n")),
        },
        Case {
            name: "replicas without count get count 0",
            given: Some(concat!(h!(), "resources:\n- deploy.yaml\nreplicas:\n- name: web\n")),
            args: &["edit", "set", "namespace", "x"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\nreplicas:\n- count: 0\n  name: web\nnamespace: x\n")),
        },
        Case {
            name: "empty lists and maps disappear",
            given: Some(concat!(h!(), "resources: []\ncommonLabels: {}\nnamePrefix: \"\"\n")),
            args: &["edit", "add", "resource", "deploy.yaml"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\n")),
        },
        Case {
            name: "unknown field",
            given: Some(concat!(h!(), "resourcse:\n- deploy.yaml\n")),
            args: &["edit", "set", "namespace", "x"],
            want: Error("invalid Kustomization: json: unknown field \"resourcse\""),
        },
        Case {
            name: "unknown nested field",
            given: Some(concat!(h!(), "images:\n- name: nginx\n  newtag: \"1\"\n")),
            args: &["edit", "set", "namespace", "x"],
            want: File(concat!(h!(), "images:\n- name: nginx\n  newTag: \"1\"\nnamespace: x\n")),
        },
        Case {
            name: "unknown nested field that matches no field",
            given: Some(concat!(h!(), "images:\n- name: nginx\n  tag: \"1\"\n")),
            args: &["edit", "set", "namespace", "x"],
            want: Error("unknown field \"tag\""),
        },
        Case {
            name: "wrong scalar type",
            given: Some(concat!(h!(), "namePrefix: [a]\n")),
            args: &["edit", "set", "namespace", "x"],
            want: Error("cannot unmarshal array into Go struct field"),
        },
        Case {
            name: "long strings are folded as go-yaml v2 folds them",
            given: Some(BASE),
            args: &["edit", "add", "annotation", "note:this is a rather long annotation value that goes on and on past the eightieth column"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\ncommonAnnotations:\n  note: this is a rather long annotation value that goes on and on past the eightieth\n    column\n")),
        },
        // ---- set image ----
        Case {
            name: "set image new name and tag",
            given: Some(BASE),
            args: &["edit", "set", "image", "nginx=registry.local/nginx:1.26"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\nimages:\n- name: nginx\n  newName: registry.local/nginx\n  newTag: \"1.26\"\n")),
        },
        Case {
            name: "set image tag only",
            given: Some(BASE),
            args: &["edit", "set", "image", "nginx:1.27-alpine"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\nimages:\n- name: nginx\n  newTag: 1.27-alpine\n")),
        },
        Case {
            name: "set image numeric tag is quoted",
            given: Some(BASE),
            args: &["edit", "set", "image", "nginx:1234"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\nimages:\n- name: nginx\n  newTag: \"1234\"\n")),
        },
        Case {
            name: "set image float-like tag is quoted",
            given: Some(BASE),
            args: &["edit", "set", "image", "nginx:2e3"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\nimages:\n- name: nginx\n  newTag: \"2e3\"\n")),
        },
        Case {
            name: "set image digest only",
            given: Some(BASE),
            args: &["edit", "set", "image", "redis@sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\nimages:\n- digest: sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n  name: redis\n")),
        },
        Case {
            name: "set image name, tag and digest",
            given: Some(BASE),
            args: &["edit", "set", "image", "redis=cache/redis:7@sha256:bbbb"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\nimages:\n- digest: sha256:bbbb\n  name: redis\n  newName: cache/redis\n  newTag: \"7\"\n")),
        },
        Case {
            name: "set image name only",
            given: Some(BASE),
            args: &["edit", "set", "image", "nginx=mirror/nginx"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\nimages:\n- name: nginx\n  newName: mirror/nginx\n")),
        },
        Case {
            name: "set image registry with port is not a tag",
            given: Some(BASE),
            args: &["edit", "set", "image", "nginx=localhost:5000/nginx"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\nimages:\n- name: nginx\n  newName: localhost:5000/nginx\n")),
        },
        Case {
            name: "set image registry with port and tag",
            given: Some(BASE),
            args: &["edit", "set", "image", "nginx=localhost:5000/nginx:dev"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\nimages:\n- name: nginx\n  newName: localhost:5000/nginx\n  newTag: dev\n")),
        },
        Case {
            name: "set image several, sorted by name",
            given: Some(BASE),
            args: &["edit", "set", "image", "redis:7", "nginx:1.26"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\nimages:\n- name: nginx\n  newTag: \"1.26\"\n- name: redis\n  newTag: \"7\"\n")),
        },
        Case {
            name: "set image replaces an entry, keeps others",
            given: Some(concat!(h!(), "resources:\n- deploy.yaml\nimages:\n- name: redis\n  newTag: \"6\"\n- name: nginx\n  newName: old/nginx\n  newTag: \"1.0\"\n")),
            args: &["edit", "set", "image", "nginx:1.26"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\nimages:\n- name: nginx\n  newTag: \"1.26\"\n- name: redis\n  newTag: \"6\"\n")),
        },
        Case {
            name: "set image * keeps the new name",
            given: Some(concat!(h!(), "resources:\n- deploy.yaml\nimages:\n- name: nginx\n  newName: mirror/nginx\n  newTag: \"1.0\"\n")),
            args: &["edit", "set", "image", "nginx=*:1.26"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\nimages:\n- name: nginx\n  newName: mirror/nginx\n  newTag: \"1.26\"\n")),
        },
        Case {
            name: "set image * keeps the tag",
            given: Some(concat!(h!(), "resources:\n- deploy.yaml\nimages:\n- name: nginx\n  newTag: \"1.0\"\n")),
            args: &["edit", "set", "image", "nginx=mirror/nginx:*"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\nimages:\n- name: nginx\n  newName: mirror/nginx\n  newTag: \"1.0\"\n")),
        },
        Case {
            name: "set image * keeps the digest",
            given: Some(concat!(h!(), "resources:\n- deploy.yaml\nimages:\n- digest: sha256:cc\n  name: nginx\n")),
            args: &["edit", "set", "image", "nginx=mirror/nginx@*"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\nimages:\n- digest: sha256:cc\n  name: nginx\n  newName: mirror/nginx\n")),
        },
        Case {
            name: "set image * with nothing to keep is dropped",
            given: Some(BASE),
            args: &["edit", "set", "image", "nginx=*:1.26"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\nimages:\n- name: nginx\n  newTag: \"1.26\"\n")),
        },
        Case {
            name: "set image drops tagSuffix of a replaced entry",
            given: Some(concat!(h!(), "resources:\n- deploy.yaml\nimages:\n- name: nginx\n  tagSuffix: -x\n- name: redis\n  tagSuffix: -y\n")),
            args: &["edit", "set", "image", "nginx:1.26"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\nimages:\n- name: nginx\n  newTag: \"1.26\"\n- name: redis\n  tagSuffix: -y\n")),
        },
        Case {
            name: "set image without arguments",
            given: Some(BASE),
            args: &["edit", "set", "image"],
            want: Error("no image specified"),
        },
        Case {
            name: "set image bare name is invalid",
            given: Some(BASE),
            args: &["edit", "set", "image", "nginx"],
            want: Error("invalid format of image, use one of the following options:\n- <image>=<newimage>:<newtag>"),
        },
        Case {
            name: "set image keeps field position",
            given: Some(concat!(h!(), "images:\n- name: a\n  newTag: \"1\"\nresources:\n- deploy.yaml\n")),
            args: &["edit", "set", "image", "nginx:2.0"],
            want: File(concat!(h!(), "images:\n- name: a\n  newTag: \"1\"\n- name: nginx\n  newTag: \"2.0\"\nresources:\n- deploy.yaml\n")),
        },
        // ---- set replicas ----
        Case {
            name: "set replicas",
            given: Some(BASE),
            args: &["edit", "set", "replicas", "web=3"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\nreplicas:\n- count: 3\n  name: web\n")),
        },
        Case {
            name: "set replicas several sorted",
            given: Some(BASE),
            args: &["edit", "set", "replicas", "web=3", "api=1"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\nreplicas:\n- count: 1\n  name: api\n- count: 3\n  name: web\n")),
        },
        Case {
            name: "set replicas replaces existing",
            given: Some(concat!(h!(), "resources:\n- deploy.yaml\nreplicas:\n- name: web\n  count: 2\n- name: other\n  count: 9\n")),
            args: &["edit", "set", "replicas", "web=0"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\nreplicas:\n- count: 9\n  name: other\n- count: 0\n  name: web\n")),
        },
        Case {
            name: "set replicas invalid count",
            given: Some(BASE),
            args: &["edit", "set", "replicas", "web=three"],
            want: Error("invalid format of replica, use the following format: <name>=<count>"),
        },
        Case {
            name: "set replicas missing count",
            given: Some(BASE),
            args: &["edit", "set", "replicas", "web"],
            want: Error("invalid format of replica"),
        },
        Case {
            name: "set replicas without arguments",
            given: Some(BASE),
            args: &["edit", "set", "replicas"],
            want: Error("no replicas specified"),
        },
        // ---- set label / annotation ----
        Case {
            name: "set label",
            given: Some(BASE),
            args: &["edit", "set", "label", "env:prod"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\ncommonLabels:\n  env: prod\n")),
        },
        Case {
            name: "set label overwrites",
            given: Some(concat!(h!(), "resources:\n- deploy.yaml\ncommonLabels:\n  env: dev\n  team: a\n")),
            args: &["edit", "set", "label", "env:prod", "tier:web"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\ncommonLabels:\n  env: prod\n  team: a\n  tier: web\n")),
        },
        Case {
            name: "set label value without colon is empty",
            given: Some(BASE),
            args: &["edit", "set", "label", "flag"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\ncommonLabels:\n  flag: \"\"\n")),
        },
        Case {
            name: "set label without key",
            given: Some(BASE),
            args: &["edit", "set", "label", ":x"],
            want: Error("invalid label: ':x' (need k:v pair where v may be quoted)"),
        },
        Case {
            name: "set label needs an argument",
            given: Some(BASE),
            args: &["edit", "set", "label"],
            want: Error("must specify label"),
        },
        Case {
            name: "set annotation with quoted value",
            given: Some(BASE),
            args: &["edit", "set", "annotation", "desc:\"a: b\""],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\ncommonAnnotations:\n  desc: 'a: b'\n")),
        },
        Case {
            name: "set annotation with a prefix key",
            given: Some(BASE),
            args: &["edit", "set", "annotation", "example.com/owner:team-a"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\ncommonAnnotations:\n  example.com/owner: team-a\n")),
        },
        Case {
            name: "set annotation invalid key",
            given: Some(BASE),
            args: &["edit", "set", "annotation", "bad key:x"],
            want: Error("invalid annotation key: see the syntax and character set rules"),
        },
        Case {
            name: "set annotation needs an argument",
            given: Some(BASE),
            args: &["edit", "set", "annotation"],
            want: Error("must specify annotation"),
        },
        // ---- add label / annotation ----
        Case {
            name: "add label",
            given: Some(BASE),
            args: &["edit", "add", "label", "env:prod"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\ncommonLabels:\n  env: prod\n")),
        },
        Case {
            name: "add label several",
            given: Some(BASE),
            args: &["edit", "add", "label", "b:2", "a:1"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\ncommonLabels:\n  a: \"1\"\n  b: \"2\"\n")),
        },
        Case {
            name: "add label existing without force",
            given: Some(concat!(h!(), "resources:\n- deploy.yaml\ncommonLabels:\n  env: dev\n")),
            args: &["edit", "add", "label", "env:prod"],
            want: Error("label env already in kustomization file"),
        },
        Case {
            name: "add label existing with --force",
            given: Some(concat!(h!(), "resources:\n- deploy.yaml\ncommonLabels:\n  env: dev\n")),
            args: &["edit", "add", "label", "--force", "env:prod"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\ncommonLabels:\n  env: prod\n")),
        },
        Case {
            name: "add label existing with -f",
            given: Some(concat!(h!(), "resources:\n- deploy.yaml\ncommonLabels:\n  env: dev\n")),
            args: &["edit", "add", "label", "-f", "env:prod"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\ncommonLabels:\n  env: prod\n")),
        },
        Case {
            name: "add label --without-selector",
            given: Some(BASE),
            args: &["edit", "add", "label", "--without-selector", "env:prod"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\nlabels:\n- pairs:\n    env: prod\n")),
        },
        Case {
            name: "add label --without-selector --include-templates",
            given: Some(BASE),
            args: &["edit", "add", "label", "--force", "--without-selector", "--include-templates", "env:prod", "team:web"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\nlabels:\n- includeTemplates: true\n  pairs:\n    env: prod\n    team: web\n")),
        },
        Case {
            name: "add label --without-selector appends a new entry",
            given: Some(concat!(h!(), "resources:\n- deploy.yaml\nlabels:\n- pairs:\n    a: b\n  includeSelectors: true\n")),
            args: &["edit", "add", "label", "--without-selector", "c:d"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\nlabels:\n- includeSelectors: true\n  pairs:\n    a: b\n- pairs:\n    c: d\n")),
        },
        Case {
            name: "add label --include-templates needs --without-selector",
            given: Some(BASE),
            args: &["edit", "add", "label", "--include-templates", "env:prod"],
            want: Error("--without-selector flag must be specified for --include-templates to work"),
        },
        Case {
            name: "add label needs an argument",
            given: Some(BASE),
            args: &["edit", "add", "label"],
            want: Error("must specify label"),
        },
        Case {
            name: "add label empty key",
            given: Some(BASE),
            args: &["edit", "add", "label", ":v"],
            want: Error("invalid label: ':v' (need k:v pair where v may be quoted)"),
        },
        Case {
            name: "add annotation",
            given: Some(BASE),
            args: &["edit", "add", "annotation", "owner:alice"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\ncommonAnnotations:\n  owner: alice\n")),
        },
        Case {
            name: "add annotation value with colons",
            given: Some(BASE),
            args: &["edit", "add", "annotation", "url:http://x.example:8080/"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\ncommonAnnotations:\n  url: http://x.example:8080/\n")),
        },
        Case {
            name: "add annotation existing without force",
            given: Some(concat!(h!(), "resources:\n- deploy.yaml\ncommonAnnotations:\n  owner: bob\n")),
            args: &["edit", "add", "annotation", "owner:alice"],
            want: Error("annotation owner already in kustomization file"),
        },
        Case {
            name: "add annotation existing with force",
            given: Some(concat!(h!(), "resources:\n- deploy.yaml\ncommonAnnotations:\n  owner: bob\n")),
            args: &["edit", "add", "annotation", "--force", "owner:alice"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\ncommonAnnotations:\n  owner: alice\n")),
        },
        Case {
            name: "add annotation numeric value is quoted",
            given: Some(BASE),
            args: &["edit", "add", "annotation", "rev:42"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\ncommonAnnotations:\n  rev: \"42\"\n")),
        },
        // ---- add resource / component / base ----
        Case {
            name: "add resource",
            given: Some(BASE),
            args: &["edit", "add", "resource", "svc.yaml"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\n- svc.yaml\n")),
        },
        Case {
            name: "add resource already there",
            given: Some(BASE),
            args: &["edit", "add", "resource", "deploy.yaml"],
            want: File(BASE),
        },
        Case {
            name: "add resource glob",
            given: Some(h!()),
            args: &["edit", "add", "resource", "*.yaml"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\n- patch.yaml\n- svc.yaml\n")),
        },
        Case {
            name: "add resource missing file",
            given: Some(BASE),
            args: &["edit", "add", "resource", "nope.yaml"],
            want: Error("nope.yaml has no match: must build at directory: not a valid directory: 'nope.yaml' doesn't exist"),
        },
        Case {
            name: "add resource missing file with --no-verify",
            given: Some(h!()),
            args: &["edit", "add", "resource", "--no-verify", "deploy.yaml"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\n")),
        },
        Case {
            name: "add resource remote URL",
            given: Some(BASE),
            args: &["edit", "add", "resource", "https://github.com/example/repo//base?ref=v1"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\n- https://github.com/example/repo//base?ref=v1\n")),
        },
        Case {
            name: "add resource needs an argument",
            given: Some(BASE),
            args: &["edit", "add", "resource"],
            want: Error("must specify a resource file"),
        },
        Case {
            name: "add resource directory",
            given: Some(BASE),
            args: &["edit", "add", "resource", "base"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\n- base\n")),
        },
        Case {
            name: "add component",
            given: Some(BASE),
            args: &["edit", "add", "component", "comp"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\ncomponents:\n- comp\n")),
        },
        Case {
            name: "add component already there",
            given: Some(concat!(h!(), "resources:\n- deploy.yaml\ncomponents:\n- comp\n")),
            args: &["edit", "add", "component", "comp"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\ncomponents:\n- comp\n")),
        },
        Case {
            name: "add component missing",
            given: Some(BASE),
            args: &["edit", "add", "component", "nocomp"],
            want: Error("nocomp has no match"),
        },
        Case {
            name: "add component needs an argument",
            given: Some(BASE),
            args: &["edit", "add", "component"],
            want: Error("must specify a component file"),
        },
        Case {
            name: "add base",
            given: Some(h!()),
            args: &["edit", "add", "base", "base"],
            want: File(concat!(h!(), "resources:\n- base\n")),
        },
        Case {
            name: "add base comma separated",
            given: Some(h!()),
            args: &["edit", "add", "base", "base,comp"],
            want: File(concat!(h!(), "resources:\n- base\n- comp\n")),
        },
        Case {
            name: "add base missing",
            given: Some(h!()),
            args: &["edit", "add", "base", "nobase"],
            want: Error("nobase does not exist"),
        },
        Case {
            name: "add base already there",
            given: Some(concat!(h!(), "resources:\n- base\n")),
            args: &["edit", "add", "base", "base"],
            want: Error("base base already in kustomization file"),
        },
        Case {
            name: "add base needs exactly one argument",
            given: Some(h!()),
            args: &["edit", "add", "base", "base", "comp"],
            want: Error("must specify a base directory"),
        },
        // ---- add/remove patch ----
        Case {
            name: "add patch path with target",
            given: Some(BASE),
            args: &["edit", "add", "patch", "--path", "patch.yaml", "--kind", "Deployment", "--name", "web"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\npatches:\n- path: patch.yaml\n  target:\n    kind: Deployment\n    name: web\n")),
        },
        Case {
            name: "add patch path without target",
            given: Some(BASE),
            args: &["edit", "add", "patch", "--path", "patch.yaml"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\npatches:\n- path: patch.yaml\n")),
        },
        Case {
            name: "add patch inline with selectors",
            given: Some(BASE),
            args: &["edit", "add", "patch", "--patch", "[{\"op\": \"replace\", \"path\": \"/spec/replicas\", \"value\": 4}]", "--group", "apps", "--version", "v1", "--kind", "Deployment", "--label-selector", "app=web", "--annotation-selector", "a=b", "--namespace", "default"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\npatches:\n- patch: '[{\"op\": \"replace\", \"path\": \"/spec/replicas\", \"value\": 4}]'\n  target:\n    annotationSelector: a=b\n    group: apps\n    kind: Deployment\n    labelSelector: app=web\n    namespace: default\n    version: v1\n")),
        },
        Case {
            name: "add patch already there leaves the file alone",
            given: Some(concat!(h!(), "resources:\n  - deploy.yaml\npatches:\n- path: patch.yaml\n")),
            args: &["edit", "add", "patch", "--path", "patch.yaml"],
            want: File(concat!(h!(), "resources:\n  - deploy.yaml\npatches:\n- path: patch.yaml\n")),
        },
        Case {
            name: "add patch needs path or patch",
            given: Some(BASE),
            args: &["edit", "add", "patch", "--kind", "Deployment"],
            want: Error("must provide either patch or path"),
        },
        Case {
            name: "add patch not both",
            given: Some(BASE),
            args: &["edit", "add", "patch", "--path", "patch.yaml", "--patch", "x"],
            want: Error("patch and path can't be set at the same time"),
        },
        Case {
            name: "remove patch",
            given: Some(concat!(h!(), "resources:\n- deploy.yaml\npatches:\n- path: patch.yaml\n- path: patch.yaml\n  target:\n    kind: Deployment\n")),
            args: &["edit", "remove", "patch", "--path", "patch.yaml"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\npatches:\n- path: patch.yaml\n  target:\n    kind: Deployment\n")),
        },
        Case {
            name: "remove patch with target",
            given: Some(concat!(h!(), "resources:\n- deploy.yaml\npatches:\n- path: patch.yaml\n- path: patch.yaml\n  target:\n    kind: Deployment\n")),
            args: &["edit", "remove", "patch", "--path", "patch.yaml", "--kind", "Deployment"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\npatches:\n- path: patch.yaml\n")),
        },
        Case {
            name: "remove last patch removes the field",
            given: Some(concat!(h!(), "resources:\n- deploy.yaml\npatches:\n- path: patch.yaml\n")),
            args: &["edit", "remove", "patch", "--path", "patch.yaml"],
            want: File(BASE),
        },
        Case {
            name: "remove patch that is not there leaves the file alone",
            given: Some(concat!(h!(), "resources:\n  - deploy.yaml\n")),
            args: &["edit", "remove", "patch", "--path", "patch.yaml"],
            want: File(concat!(h!(), "resources:\n  - deploy.yaml\n")),
        },
        Case {
            name: "remove patch not both",
            given: Some(BASE),
            args: &["edit", "remove", "patch", "--path", "a", "--patch", "b"],
            want: Error("patch and path can't be set at the same time"),
        },
        // ---- configmap / secret ----
        Case {
            name: "add configmap literal",
            given: Some(BASE),
            args: &["edit", "add", "configmap", "cfg", "--from-literal=a=1", "--from-literal=b=two"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\nconfigMapGenerator:\n- literals:\n  - a=1\n  - b=two\n  name: cfg\n")),
        },
        Case {
            name: "add configmap from file with key",
            given: Some(BASE),
            args: &["edit", "add", "configmap", "cfg", "--from-file=conf=app.properties"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\nconfigMapGenerator:\n- files:\n  - conf=app.properties\n  name: cfg\n")),
        },
        Case {
            name: "add configmap from files comma separated",
            given: Some(BASE),
            args: &["edit", "add", "configmap", "cfg", "--from-file=app.properties,app.env"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\nconfigMapGenerator:\n- files:\n  - app.properties\n  - app.env\n  name: cfg\n")),
        },
        Case {
            name: "add configmap from env file with behavior",
            given: Some(BASE),
            args: &["edit", "add", "configmap", "cfg", "--from-env-file=app.env", "--behavior=create"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\nconfigMapGenerator:\n- behavior: create\n  envs:\n  - app.env\n  name: cfg\n")),
        },
        Case {
            name: "add configmap with namespace and no hash",
            given: Some(BASE),
            args: &["edit", "add", "configmap", "cfg", "--from-literal=a=b", "--namespace", "ns1", "--disableNameSuffixHash"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\nconfigMapGenerator:\n- literals:\n  - a=b\n  name: cfg\n  namespace: ns1\n  options:\n    disableNameSuffixHash: true\n")),
        },
        Case {
            name: "add configmap merges into an existing entry",
            given: Some(concat!(h!(), "resources:\n- deploy.yaml\nconfigMapGenerator:\n- name: cfg\n  literals:\n  - a=1\n")),
            args: &["edit", "add", "configmap", "cfg", "--from-literal=b=2"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\nconfigMapGenerator:\n- literals:\n  - a=1\n  - b=2\n  name: cfg\n")),
        },
        Case {
            name: "add configmap in another namespace is a new entry",
            given: Some(concat!(h!(), "resources:\n- deploy.yaml\nconfigMapGenerator:\n- name: cfg\n  literals:\n  - a=1\n")),
            args: &["edit", "add", "configmap", "cfg", "--from-literal=b=2", "--namespace=other"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\nconfigMapGenerator:\n- literals:\n  - a=1\n  name: cfg\n- literals:\n  - b=2\n  name: cfg\n  namespace: other\n")),
        },
        Case {
            name: "add configmap default namespace matches an entry without one",
            given: Some(concat!(h!(), "resources:\n- deploy.yaml\nconfigMapGenerator:\n- name: cfg\n  literals:\n  - a=1\n")),
            args: &["edit", "add", "configmap", "cfg", "--from-literal=b=2", "--namespace=default"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\nconfigMapGenerator:\n- literals:\n  - a=1\n  - b=2\n  name: cfg\n")),
        },
        Case {
            name: "add configmap takes generatorOptions into the entry",
            given: Some(concat!(h!(), "resources:\n- deploy.yaml\ngeneratorOptions:\n  disableNameSuffixHash: true\n  labels:\n    g: \"1\"\n")),
            args: &["edit", "add", "configmap", "cfg", "--from-literal=b=2"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\ngeneratorOptions:\n  disableNameSuffixHash: true\n  labels:\n    g: \"1\"\nconfigMapGenerator:\n- literals:\n  - b=2\n  name: cfg\n  options:\n    disableNameSuffixHash: true\n    labels:\n      g: \"1\"\n")),
        },
        Case {
            name: "add configmap needs a source",
            given: Some(BASE),
            args: &["edit", "add", "configmap", "cfg"],
            want: Error("failed to validate flags: at least from-env-file, or from-file or from-literal must be set"),
        },
        Case {
            name: "add configmap needs one name",
            given: Some(BASE),
            args: &["edit", "add", "configmap", "--from-literal=a=b"],
            want: Error("failed to validate flags: name must be specified once"),
        },
        Case {
            name: "add configmap env file with literals",
            given: Some(BASE),
            args: &["edit", "add", "configmap", "cfg", "--from-env-file=app.env", "--from-literal=a=b"],
            want: Error("from-env-file cannot be combined with from-file or from-literal"),
        },
        Case {
            name: "add configmap bad behavior",
            given: Some(BASE),
            args: &["edit", "add", "configmap", "cfg", "--from-literal=a=b", "--behavior=upsert"],
            want: Error("invalid behavior: must be one of \"create\", \"merge\", or \"replace\""),
        },
        Case {
            name: "add configmap bad literal",
            given: Some(BASE),
            args: &["edit", "add", "configmap", "cfg", "--from-literal=novalue"],
            want: Error("failed to create configmap"),
        },
        Case {
            name: "add configmap key glob catching two files",
            given: Some(BASE),
            args: &["edit", "add", "configmap", "cfg", "--from-file=k=app.*"],
            want: Error("failed to expand file source: 'pattern 'k=app.*' catches files [app.env app.properties], should catch only one"),
        },
        Case {
            name: "add configmap missing file matches nothing",
            given: Some(BASE),
            args: &["edit", "add", "configmap", "cfg", "--from-file=missing.txt"],
            want: Error("at least from-env-file, or from-file or from-literal must be set"),
        },
        Case {
            name: "add secret literal with type",
            given: Some(BASE),
            args: &["edit", "add", "secret", "creds", "--from-literal=password=s3cret"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\nsecretGenerator:\n- literals:\n  - password=s3cret\n  name: creds\n  type: Opaque\n")),
        },
        Case {
            name: "add secret tls type and namespace",
            given: Some(BASE),
            args: &["edit", "add", "secret", "tls", "--from-literal=tls.crt=x", "--from-literal=tls.key=y", "--type=kubernetes.io/tls", "--namespace=web"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\nsecretGenerator:\n- literals:\n  - tls.crt=x\n  - tls.key=y\n  name: tls\n  namespace: web\n  type: kubernetes.io/tls\n")),
        },
        Case {
            name: "add secret from env file",
            given: Some(BASE),
            args: &["edit", "add", "secret", "env", "--from-env-file=app.env"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\nsecretGenerator:\n- envs:\n  - app.env\n  name: env\n  type: Opaque\n")),
        },
        Case {
            name: "set configmap literal",
            given: Some(concat!(h!(), "resources:\n- deploy.yaml\nconfigMapGenerator:\n- name: cfg\n  literals:\n  - a=1\n  - b=2\n")),
            args: &["edit", "set", "configmap", "cfg", "--from-literal=b=3"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\nconfigMapGenerator:\n- literals:\n  - a=1\n  - b=3\n  name: cfg\n")),
        },
        Case {
            name: "set configmap unknown key",
            given: Some(concat!(h!(), "resources:\n- deploy.yaml\nconfigMapGenerator:\n- name: cfg\n  literals:\n  - a=1\n")),
            args: &["edit", "set", "configmap", "cfg", "--from-literal=z=3"],
            want: Error("key 'z' not found in resource"),
        },
        Case {
            name: "set configmap new namespace",
            given: Some(concat!(h!(), "resources:\n- deploy.yaml\nconfigMapGenerator:\n- name: cfg\n  namespace: a\n  literals:\n  - a=1\n")),
            args: &["edit", "set", "configmap", "cfg", "--namespace=a", "--new-namespace=b"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\nconfigMapGenerator:\n- literals:\n  - a=1\n  name: cfg\n  namespace: b\n")),
        },
        Case {
            name: "set configmap not found",
            given: Some(BASE),
            args: &["edit", "set", "configmap", "cfg", "--from-literal=a=1"],
            want: Error("unable to find ConfigMap with name \"cfg\""),
        },
        Case {
            name: "set configmap needs literal or namespace",
            given: Some(BASE),
            args: &["edit", "set", "configmap", "cfg"],
            want: Error("at least one of [--from-literal, --new-namespace] must be specified"),
        },
        Case {
            name: "set secret literal",
            given: Some(concat!(h!(), "resources:\n- deploy.yaml\nsecretGenerator:\n- name: s\n  literals:\n  - p=1\n")),
            args: &["edit", "set", "secret", "s", "--from-literal=p=2"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\nsecretGenerator:\n- literals:\n  - p=2\n  name: s\n")),
        },
        Case {
            name: "set secret not found",
            given: Some(BASE),
            args: &["edit", "set", "secret", "s", "--from-literal=p=2"],
            want: Error("unable to find Secret with name \"s\""),
        },
        Case {
            name: "remove configmap",
            given: Some(concat!(h!(), "resources:\n- deploy.yaml\nconfigMapGenerator:\n- name: a\n  literals:\n  - x=1\n- name: b\n  literals:\n  - y=1\n")),
            args: &["edit", "remove", "configmap", "a"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\nconfigMapGenerator:\n- literals:\n  - y=1\n  name: b\n")),
        },
        Case {
            name: "remove configmaps comma separated",
            given: Some(concat!(h!(), "resources:\n- deploy.yaml\nconfigMapGenerator:\n- name: a\n  literals:\n  - x=1\n- name: b\n  literals:\n  - y=1\n")),
            args: &["edit", "remove", "configmap", "a,b"],
            want: File(BASE),
        },
        Case {
            name: "remove configmap in another namespace is not found",
            given: Some(concat!(h!(), "resources:\n- deploy.yaml\nconfigMapGenerator:\n- name: a\n  literals:\n  - x=1\n")),
            args: &["edit", "remove", "configmap", "a", "--namespace", "other"],
            want: Error("no specified configmap(s) were found in the kustomization.yaml file"),
        },
        Case {
            name: "remove configmap too many arguments",
            given: Some(BASE),
            args: &["edit", "remove", "configmap", "a", "b"],
            want: Error("too many arguments: [a b]; to provide multiple configmaps to remove, please separate configmap names by commas"),
        },
        Case {
            name: "remove configmap needs a name",
            given: Some(BASE),
            args: &["edit", "remove", "configmap"],
            want: Error("at least one configmap name must be specified"),
        },
        Case {
            name: "remove secret",
            given: Some(concat!(h!(), "resources:\n- deploy.yaml\nsecretGenerator:\n- name: s\n  namespace: ns\n  literals:\n  - p=1\n")),
            args: &["edit", "remove", "secret", "s", "--namespace=ns"],
            want: File(BASE),
        },
        Case {
            name: "remove secret not found",
            given: Some(BASE),
            args: &["edit", "remove", "secret", "s"],
            want: Error("no specified secret(s) were found in the kustomization.yaml file"),
        },
        // ---- remove resource / transformer / label / annotation ----
        Case {
            name: "remove resource",
            given: Some(concat!(h!(), "resources:\n- deploy.yaml\n- svc.yaml\n")),
            args: &["edit", "remove", "resource", "svc.yaml"],
            want: File(BASE),
        },
        Case {
            name: "remove resource glob",
            given: Some(concat!(h!(), "resources:\n- deploy.yaml\n- svc.yaml\n- base\n")),
            args: &["edit", "remove", "resource", "*.yaml"],
            want: File(concat!(h!(), "resources:\n- base\n")),
        },
        Case {
            name: "remove resource star does not cross a slash",
            given: Some(concat!(h!(), "resources:\n- deploy.yaml\n- base/x.yaml\n")),
            args: &["edit", "remove", "resource", "*"],
            want: File(concat!(h!(), "resources:\n- base/x.yaml\n")),
        },
        Case {
            name: "remove resource not there leaves the file alone",
            given: Some(concat!(h!(), "resources:\n  - deploy.yaml\n")),
            args: &["edit", "remove", "resource", "svc.yaml"],
            want: File(concat!(h!(), "resources:\n  - deploy.yaml\n")),
        },
        Case {
            name: "remove resource needs an argument",
            given: Some(BASE),
            args: &["edit", "remove", "resource"],
            want: Error("must specify a resource file"),
        },
        Case {
            name: "remove transformer",
            given: Some(concat!(h!(), "resources:\n- deploy.yaml\ntransformers:\n- t1.yaml\n- t2.yaml\n")),
            args: &["edit", "remove", "transformer", "t1.yaml"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\ntransformers:\n- t2.yaml\n")),
        },
        Case {
            name: "remove transformer needs an argument",
            given: Some(BASE),
            args: &["edit", "remove", "transformer"],
            want: Error("must specify a transformer file"),
        },
        Case {
            name: "remove label",
            given: Some(concat!(h!(), "resources:\n- deploy.yaml\ncommonLabels:\n  a: \"1\"\n  b: \"2\"\n")),
            args: &["edit", "remove", "label", "a"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\ncommonLabels:\n  b: \"2\"\n")),
        },
        Case {
            name: "remove labels comma separated, last removes the field",
            given: Some(concat!(h!(), "resources:\n- deploy.yaml\ncommonLabels:\n  a: \"1\"\n  b: \"2\"\n")),
            args: &["edit", "remove", "label", "a,b"],
            want: File(BASE),
        },
        Case {
            name: "remove label missing",
            given: Some(concat!(h!(), "resources:\n- deploy.yaml\ncommonLabels:\n  a: \"1\"\n")),
            args: &["edit", "remove", "label", "z"],
            want: Error("label z is not defined in kustomization file"),
        },
        Case {
            name: "remove label missing ignored",
            given: Some(concat!(h!(), "resources:\n- deploy.yaml\ncommonLabels:\n  a: \"1\"\n")),
            args: &["edit", "remove", "label", "-i", "z"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\ncommonLabels:\n  a: \"1\"\n")),
        },
        Case {
            name: "remove label without commonLabels",
            given: Some(BASE),
            args: &["edit", "remove", "label", "a"],
            want: Error("commonLabels is not defined in kustomization file"),
        },
        Case {
            name: "remove label with spaces",
            given: Some(BASE),
            args: &["edit", "remove", "label", "a,", "b"],
            want: Error("labels must be comma-separated, with no spaces"),
        },
        Case {
            name: "remove label empty name",
            given: Some(BASE),
            args: &["edit", "remove", "label", "a,,b"],
            want: Error("invalid label: '' (name is empty)"),
        },
        Case {
            name: "remove annotation",
            given: Some(concat!(h!(), "resources:\n- deploy.yaml\ncommonAnnotations:\n  a: x1\n  b: y1\n")),
            args: &["edit", "remove", "annotation", "b"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\ncommonAnnotations:\n  a: x1\n")),
        },
        Case {
            name: "a YAML 1.1 bool where a string belongs fails as in kustomize",
            given: Some(concat!(h!(), "resources:\n- deploy.yaml\ncommonAnnotations:\n  a: y\n")),
            args: &["edit", "remove", "annotation", "a"],
            want: Error("cannot unmarshal bool into Go struct field"),
        },
        Case {
            name: "remove a missing annotation names it an annotation, as kustomize's removeFromMap does",
            given: Some(concat!(h!(), "resources:\n- deploy.yaml\ncommonAnnotations:\n  a: x1\n")),
            args: &["edit", "remove", "annotation", "z"],
            want: Error("annotation z is not defined in kustomization file"),
        },
        Case {
            name: "remove annotation without commonAnnotations",
            given: Some(BASE),
            args: &["edit", "remove", "annotation", "a"],
            want: Error("commonAnnotations is not defined in kustomization file"),
        },
        Case {
            name: "remove annotation --ignore-non-existence",
            given: Some(BASE),
            args: &["edit", "remove", "annotation", "--ignore-non-existence", "a"],
            want: File(BASE),
        },
        // ---- generators / transformers ----
        Case {
            name: "add transformer",
            given: Some(BASE),
            args: &["edit", "add", "transformer", "patch.yaml"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\ntransformers:\n- patch.yaml\n")),
        },
        Case {
            name: "add transformer missing file is skipped",
            given: Some(concat!(h!(), "resources:\n  - deploy.yaml\n")),
            args: &["edit", "add", "transformer", "missing.yaml"],
            want: File(concat!(h!(), "resources:\n  - deploy.yaml\n")),
        },
        Case {
            name: "add transformer needs an argument",
            given: Some(BASE),
            args: &["edit", "add", "transformer"],
            want: Error("must specify a yaml file which contains a transformer plugin resource"),
        },
        Case {
            name: "add generator",
            given: Some(BASE),
            args: &["edit", "add", "generator", "app.env"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\ngenerators:\n- app.env\n")),
        },
        Case {
            name: "add generator needs an argument",
            given: Some(BASE),
            args: &["edit", "add", "generator"],
            want: Error("must specify a yaml file which contains a generator plugin resource"),
        },
        // ---- buildmetadata ----
        Case {
            name: "add buildmetadata",
            given: Some(BASE),
            args: &["edit", "add", "buildmetadata", "originAnnotations,managedByLabel"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\nbuildMetadata:\n- originAnnotations\n- managedByLabel\n")),
        },
        Case {
            name: "add buildmetadata duplicate",
            given: Some(concat!(h!(), "resources:\n- deploy.yaml\nbuildMetadata:\n- originAnnotations\n")),
            args: &["edit", "add", "buildmetadata", "originAnnotations"],
            want: Error("buildMetadata option originAnnotations already in kustomization file"),
        },
        Case {
            name: "add buildmetadata invalid",
            given: Some(BASE),
            args: &["edit", "add", "buildmetadata", "origins"],
            want: Error("invalid buildMetadata option: origins"),
        },
        Case {
            name: "add buildmetadata too many arguments",
            given: Some(BASE),
            args: &["edit", "add", "buildmetadata", "originAnnotations", "managedByLabel"],
            want: Error("too many arguments: [originAnnotations managedByLabel]; to provide multiple buildMetadata options, please separate options by comma"),
        },
        Case {
            name: "add buildmetadata needs an argument",
            given: Some(BASE),
            args: &["edit", "add", "buildmetadata"],
            want: Error("must specify a buildMetadata option"),
        },
        Case {
            name: "set buildmetadata replaces",
            given: Some(concat!(h!(), "resources:\n- deploy.yaml\nbuildMetadata:\n- originAnnotations\n")),
            args: &["edit", "set", "buildmetadata", "transformerAnnotations"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\nbuildMetadata:\n- transformerAnnotations\n")),
        },
        Case {
            name: "remove buildmetadata",
            given: Some(concat!(h!(), "resources:\n- deploy.yaml\nbuildMetadata:\n- originAnnotations\n- managedByLabel\n")),
            args: &["edit", "remove", "buildmetadata", "originAnnotations"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\nbuildMetadata:\n- managedByLabel\n")),
        },
        Case {
            name: "remove all buildmetadata removes the field",
            given: Some(concat!(h!(), "resources:\n- deploy.yaml\nbuildMetadata:\n- managedByLabel\n")),
            args: &["edit", "remove", "buildmetadata", "managedByLabel"],
            want: File(BASE),
        },
        // ---- fix ----
        Case {
            name: "fix commonLabels",
            given: Some(concat!(h!(), "resources:\n- deploy.yaml\ncommonLabels:\n  app: web\n")),
            args: &["edit", "fix"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\nlabels:\n- includeSelectors: true\n  pairs:\n    app: web\n")),
        },
        Case {
            name: "fix patchesStrategicMerge file and inline",
            given: Some(concat!(h!(), "resources:\n- deploy.yaml\npatchesStrategicMerge:\n- patch.yaml\n- |-\n  apiVersion: apps/v1\n  kind: Deployment\n  metadata:\n    name: web\n  spec:\n    replicas: 2\n")),
            args: &["edit", "fix"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\npatches:\n- path: patch.yaml\n- patch: |-\n    apiVersion: apps/v1\n    kind: Deployment\n    metadata:\n      name: web\n    spec:\n      replicas: 2\n")),
        },
        Case {
            name: "fix patchesJson6902",
            given: Some(concat!(h!(), "resources:\n- deploy.yaml\npatchesJson6902:\n- target:\n    group: apps\n    version: v1\n    kind: Deployment\n    name: web\n  patch: '[{\"op\": \"replace\", \"path\": \"/spec/replicas\", \"value\": 3}]'\n")),
            args: &["edit", "fix"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\npatches:\n- patch: '[{\"op\": \"replace\", \"path\": \"/spec/replicas\", \"value\": 3}]'\n  target:\n    group: apps\n    kind: Deployment\n    name: web\n    version: v1\n")),
        },
        Case {
            name: "fix bases",
            given: Some(concat!(h!(), "bases:\n- base\n")),
            args: &["edit", "fix"],
            want: File(concat!(h!(), "resources:\n- base\n")),
        },
        Case {
            name: "fix label conflict",
            given: Some(concat!(h!(), "resources:\n- deploy.yaml\ncommonLabels:\n  app: web\nlabels:\n- pairs:\n    app: x\n")),
            args: &["edit", "fix"],
            want: Error("label name 'app' exists in both commonLabels and labels"),
        },
        // ---- create ----
        Case {
            name: "create with resources",
            given: None,
            args: &["create", "--resources", "deploy.yaml,svc.yaml"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\n- svc.yaml\n")),
        },
        Case {
            name: "create with every field",
            given: None,
            args: &["create", "--resources", "deploy.yaml", "--namespace", "prod", "--nameprefix", "p-", "--namesuffix", "-s", "--labels", "app:web,env:prod", "--annotations", "owner:me"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\nnamePrefix: p-\nnameSuffix: -s\nnamespace: prod\ncommonLabels:\n  app: web\n  env: prod\ncommonAnnotations:\n  owner: me\n")),
        },
        Case {
            name: "create empty",
            given: None,
            args: &["create"],
            want: File(h!()),
        },
        Case {
            name: "create init alias",
            given: None,
            args: &["init", "--namespace", "x"],
            want: File(concat!(h!(), "namespace: x\n")),
        },
        Case {
            name: "create autodetect",
            given: None,
            args: &["create", "--autodetect"],
            want: File(concat!(h!(), "resources:\n- deploy.yaml\n- patch.yaml\n- svc.yaml\n")),
        },
        Case {
            name: "create autodetect recursive adds kustomization dirs",
            given: None,
            args: &["create", "--autodetect", "--recursive"],
            want: File(concat!(h!(), "resources:\n- base\n- comp\n- deploy.yaml\n- patch.yaml\n- svc.yaml\n")),
        },
        Case {
            name: "create autodetect keeps --resources first",
            given: None,
            args: &["create", "--resources", "svc.yaml", "--autodetect"],
            want: File(concat!(h!(), "resources:\n- svc.yaml\n- deploy.yaml\n- patch.yaml\n")),
        },
        Case {
            name: "create when a kustomization exists",
            given: Some(BASE),
            args: &["create", "--resources", "deploy.yaml"],
            want: Error("kustomization file already exists"),
        },
        Case {
            name: "create with a missing resource",
            given: None,
            args: &["create", "--resources", "nope.yaml"],
            want: Error("nope.yaml has no match"),
        },
        Case {
            name: "create with an invalid label",
            given: None,
            args: &["create", "--labels", ":x"],
            want: Error("invalid label: ':x'"),
        },
    ]
}

/// Lay out the case's tree: the shared resource files, a base and a
/// component, and the kustomization file when given.
fn setup(dir: &Path, given: Option<&str>) {
    let write = |rel: &str, content: &str| {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, content).expect("write");
    };
    write("deploy.yaml", DEPLOY);
    write("svc.yaml", SVC);
    write("patch.yaml", PATCH);
    write("app.env", "A=1\nB=2\n");
    write("app.properties", "x=1\n");
    write("base/kustomization.yaml", "resources:\n- svc.yaml\n");
    write("base/svc.yaml", SVC);
    write("comp/kustomization.yaml", COMPONENT);
    if let Some(k) = given {
        write("kustomization.yaml", k);
    }
}

fn kustom(dir: &Path, args: &[&str]) -> std::process::Output {
    let home = dir.join(".config-home");
    Command::new(env!("CARGO_BIN_EXE_kustom"))
        .args(args)
        .current_dir(dir)
        .env("XDG_CONFIG_HOME", home)
        .output()
        .expect("run kustom")
}

fn kubectl_available() -> bool {
    Command::new("kubectl")
        .args(["version", "--client"])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// `kustom build` and `kubectl kustomize` of the edited tree agree (in the
/// v5.5 mode: `kubectl` here is kustomize v5.5.0, whose managed-by label
/// differs from v5.8.1's).
fn same_build(dir: &Path) -> Result<(), String> {
    let ours = kustom(dir, &["build", "--kustomize-version", "5.5", "."]);
    let theirs = Command::new("kubectl")
        .args(["kustomize", "."])
        .current_dir(dir)
        .output()
        .map_err(|e| e.to_string())?;
    match (ours.status.success(), theirs.status.success()) {
        (true, true) if ours.stdout == theirs.stdout => Ok(()),
        (false, false) => Ok(()),
        _ => Err(format!(
            "kustom build (ok={}):\n{}{}\nkubectl kustomize (ok={}):\n{}{}",
            ours.status.success(),
            String::from_utf8_lossy(&ours.stdout),
            String::from_utf8_lossy(&ours.stderr),
            theirs.status.success(),
            String::from_utf8_lossy(&theirs.stdout),
            String::from_utf8_lossy(&theirs.stderr)
        )),
    }
}

#[test]
fn edit_and_create_cases() {
    let cases = cases();
    assert!(cases.len() >= 100, "only {} cases", cases.len());
    let kubectl = kubectl_available();
    if !kubectl {
        support::skip("kubectl not installed: edited trees are not built with kubectl kustomize");
    }
    let mut failures = Vec::new();
    let mut built = 0;
    for case in &cases {
        let tmp = tempfile::tempdir().expect("temp dir");
        let dir = tmp.path();
        setup(dir, case.given);
        let before = std::fs::read(dir.join("kustomization.yaml")).ok();
        let out = kustom(dir, case.args);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let after = std::fs::read_to_string(dir.join("kustomization.yaml")).ok();
        match &case.want {
            File(want) => {
                if !out.status.success() {
                    failures.push(format!("{}: failed: {stderr}", case.name));
                } else if after.as_deref() != Some(*want) {
                    failures.push(format!(
                        "{}: file differs\n--- want\n{want}--- got\n{}",
                        case.name,
                        after.unwrap_or_default()
                    ));
                } else if kubectl {
                    built += 1;
                    if let Err(e) = same_build(dir) {
                        failures.push(format!("{}: builds differ\n{e}", case.name));
                    }
                }
            }
            Error(text) => {
                if out.status.success() {
                    failures.push(format!("{}: succeeded, wanted error {text:?}", case.name));
                } else if !stderr.contains(text) {
                    failures.push(format!("{}: error {stderr:?} lacks {text:?}", case.name));
                } else if case.args[0] == "edit"
                    && std::fs::read(dir.join("kustomization.yaml")).ok() != before
                {
                    // (`create` leaves the empty file it made, as kustomize does.)
                    failures.push(format!("{}: failed but changed the file", case.name));
                }
            }
        }
    }
    eprintln!(
        "{} edit/create cases; {built} edited trees built with both kustom and kubectl kustomize",
        cases.len()
    );
    assert!(
        failures.is_empty(),
        "{} failing:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
