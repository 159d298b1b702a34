#!/usr/bin/env python3
"""Regenerate the RefVarTransformer oracle fixtures.

For every case directory (a `tree/` of kustomizations and a `case.json`):
  expected.yaml  `kubectl kustomize` of the tree (the oracle), verbatim;
  input.json     the same tree built with every `vars:` removed, i.e. the
                 resources as they stand just before var resolution, plus the
                 previous-name build annotations listed in case.json
                 ("renames": current name -> earlier names, oldest first).
                 kubectl prints an integral float such as 2500000.0 as an
                 integer, so trees avoid those where a var reads them;
  config.json    the RefVarTransformer config: the tree's vars in
                 accumulation order (deepest kustomization first) and the
                 hand-written field specs in var_reference_specs.json.
"""
import json, os, re, shutil, subprocess, sys, tempfile
import yaml

# YAML 1.2 floats such as 2e-05 (PyYAML's 1.1 rules want a dot).
yaml.SafeLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?[0-9]+(\.[0-9]*)?[eE][-+]?[0-9]+$"),
    list("-+0123456789"))

HERE = os.path.dirname(os.path.abspath(__file__))

def kustomize_text(d):
    return subprocess.run(["kubectl", "kustomize", d], check=True,
                          capture_output=True, text=True).stdout

def kustomize(d):
    return [doc for doc in yaml.safe_load_all(kustomize_text(d)) if doc is not None]

def collect_vars(d, seen):
    k = yaml.safe_load(open(os.path.join(d, "kustomization.yaml")))
    out = []
    for r in k.get("resources", []):
        sub = os.path.normpath(os.path.join(d, r))
        if os.path.isdir(sub) and sub not in seen:
            seen.add(sub)
            out += collect_vars(sub, seen)
    return out + k.get("vars", [])

def strip_vars(root):
    for dirpath, _, files in os.walk(root):
        if "kustomization.yaml" in files:
            p = os.path.join(dirpath, "kustomization.yaml")
            k = yaml.safe_load(open(p))
            k.pop("vars", None)
            yaml.safe_dump(k, open(p, "w"))

def main():
    specs = json.load(open(os.path.join(HERE, "var_reference_specs.json")))
    for case in sorted(os.listdir(HERE)):
        cdir = os.path.join(HERE, case)
        if not os.path.isfile(os.path.join(cdir, "case.json")):
            continue
        meta = json.load(open(os.path.join(cdir, "case.json")))
        build = os.path.join(cdir, meta["build"])
        with open(os.path.join(cdir, "expected.yaml"), "w") as f:
            f.write(kustomize_text(build))
        with tempfile.TemporaryDirectory() as tmp:
            shutil.copytree(os.path.join(cdir, "tree"), os.path.join(tmp, "tree"))
            strip_vars(os.path.join(tmp, "tree"))
            before = kustomize(os.path.join(tmp, meta["build"]))
        for r in before:
            prev = meta["renames"].get(r["metadata"]["name"])
            if prev:
                ns = r["metadata"].get("namespace") or "default"
                a = r["metadata"].setdefault("annotations", {})
                a["internal.config.kubernetes.io/previousNames"] = ",".join(prev)
                a["internal.config.kubernetes.io/previousNamespaces"] = ",".join([ns] * len(prev))
                a["internal.config.kubernetes.io/previousKinds"] = ",".join([r["kind"]] * len(prev))
        config = {"apiVersion": "builtin", "kind": "RefVarTransformer",
                  "metadata": {"name": "vars"},
                  "vars": collect_vars(build, set()), "fieldSpecs": specs}
        for name, doc in [("input", before), ("config", config)]:
            with open(os.path.join(cdir, name + ".json"), "w") as f:
                json.dump(doc, f, indent=1)
                f.write("\n")
        print(case, "ok", file=sys.stderr)

main()
