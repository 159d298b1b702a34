#!/usr/bin/env python3
"""KEP plugin for the API group gitops.example.com (Python 3 standard library only).

Install:  kustom plugin install plugins/examples/gitops.example.com
Use:      kustom build --enable-alpha-plugins DIR

Kinds:
  Defaults (a transformer) -- fills in what an organisation requires of every
  resource, where the resource does not set it already:

    apiVersion: gitops.example.com/v1
    kind: Defaults
    metadata:
      name: org-defaults
    labels:                  # added to metadata.labels where unset
      team: payments
    annotations:             # added to metadata.annotations where unset
      owner: payments@example.com
    podDefaults:             # for the pod template of workloads
      securityContext:       # the pod's securityContext, where unset
        runAsNonRoot: true
      resources:             # each container's resources, where unset
        requests: {cpu: 100m, memory: 128Mi}

The KEP protocol, as kustom runs it:
  * `gitops.example.com transform`: STDIN holds the gitops.example.com objects
    listed in one kustomization, then every resource accumulated so far (a
    YAML stream). Write the resulting resources to STDOUT (YAML, or JSON
    documents separated by `---` lines). Resources may be changed, added or
    removed; keep each input resource's `config.k8s.io/id` annotation so
    kustom can match it back (a renamed resource keeps its identity, and
    references to it follow the new name).
  * `gitops.example.com generate`: exit 127, "not supported".
  * working directory: the kustomization's directory; a non-zero exit fails
    the build and the end of STDERR is shown.
"""
import json
import sys

EXIT_UNSUPPORTED = 127

# --- reading kustom's YAML ---------------------------------------------------
# kustom writes every document in one canonical block style (the style of
# `kustomize build`): mappings `key: value`, sequences `- item` (not indented
# under their key), scalars plain, 'single' or "double" quoted, literal blocks
# `|`, long strings folded onto more-indented lines, `{}` / `[]` when empty.
# This reader handles exactly that style, which is all a plugin receives.

def _scalar(text):
    text = text.strip()
    if text.startswith("'"):
        return text[1:-1].replace("''", "'")
    if text.startswith('"'):
        return json.loads(text)
    if text in ("null", "~", ""):
        return None
    if text in ("true", "false"):
        return text == "true"
    if text == "{}":
        return {}
    if text == "[]":
        return []
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


def _split_key(line):
    """'key: rest' -> (key, rest); the key may be quoted."""
    if line[0] in "'\"":
        q = line[0]
        end = 1
        while True:
            end = line.index(q, end)
            if q == "'" and line[end:end + 2] == "''":
                end += 2
                continue
            if q == '"' and line[end - 1] == "\\":
                end += 1
                continue
            break
        return _scalar(line[:end + 1]), line[end + 2:]
    key, _, rest = line.partition(":")
    return key, rest


class _Reader:
    def __init__(self, text):
        self.lines = [l for l in text.split("\n")]
        self.i = 0

    def _peek(self):
        while self.i < len(self.lines) and not self.lines[self.i].strip():
            self.i += 1
        if self.i >= len(self.lines):
            return None, None
        line = self.lines[self.i]
        return len(line) - len(line.lstrip(" ")), line.strip()

    def node(self, indent):
        ind, text = self._peek()
        if text is None or ind < indent:
            return None
        if text.startswith("- ") or text == "-":
            return self._seq(ind)
        return self._map(ind)

    def _value(self, rest, indent, seq_ok):
        rest = rest.strip()
        if rest.startswith("|"):
            return self._block(rest, indent)
        if rest:
            # A folded scalar continues on more-indented lines.
            parts = [rest]
            while self.i < len(self.lines):
                nxt = self.lines[self.i]
                nind = len(nxt) - len(nxt.lstrip(" "))
                if nxt.strip() and nind > indent and not rest.startswith(("{", "[")):
                    parts.append(nxt.strip())
                    self.i += 1
                else:
                    break
            return _scalar(" ".join(parts))
        ind, text = self._peek()
        if text is None:
            return None
        if ind > indent or (seq_ok and ind == indent and text.startswith("-")):
            return self.node(ind)
        return None

    def _block(self, header, indent):
        keep = header.endswith("+")
        strip = header.endswith("-")
        body = []
        block_indent = None
        while self.i < len(self.lines):
            line = self.lines[self.i]
            if line.strip():
                ind = len(line) - len(line.lstrip(" "))
                if block_indent is None:
                    block_indent = ind
                if ind < block_indent or ind <= indent:
                    break
                body.append(line[block_indent:])
            else:
                body.append("")
            self.i += 1
        text = "\n".join(body)
        if strip:
            return text.rstrip("\n")
        text = text.rstrip("\n") + "\n"
        return text if not keep else text

    def _map(self, indent):
        out = {}
        while True:
            ind, text = self._peek()
            if text is None or ind != indent or text.startswith("- "):
                return out
            self.i += 1
            key, rest = _split_key(text)
            out[key] = self._value(rest, indent, seq_ok=True)

    def _seq(self, indent):
        out = []
        while True:
            ind, text = self._peek()
            if text is None or ind != indent or not (text.startswith("- ") or text == "-"):
                return out
            item = text[2:] if text.startswith("- ") else ""
            if item.startswith("- ") or item == "-":
                # A sequence starts on the dash line.
                self.lines[self.i] = " " * (indent + 2) + item
                out.append(self._seq(indent + 2))
            elif item and (":" in item and not item.startswith(("'", '"', "{", "["))
                         or item.startswith(("'", '"')) and ": " in item):
                # A mapping starts on the dash line: re-read it at its own indent.
                self.lines[self.i] = " " * (indent + 2) + item
                out.append(self._map(indent + 2))
            else:
                self.i += 1
                out.append(self._value(item, indent, seq_ok=False))


def read_stream(text):
    """The documents of a YAML stream written by kustom."""
    docs = []
    for chunk in ("\n" + text).split("\n---\n"):
        if not chunk.strip():
            continue
        if chunk.lstrip().startswith(("{", "[")):
            docs.append(json.loads(chunk))
        else:
            docs.append(_Reader(chunk).node(0))
    return docs


def write_stream(docs):
    """JSON documents separated by `---` lines: a YAML stream."""
    return "---\n".join(json.dumps(d) + "\n" for d in docs)


# --- the plugin ----------------------------------------------------------------

GROUP = "gitops.example.com/"
WORKLOADS = {"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job"}


def fill(target, defaults):
    """Set each key of `defaults` that `target` lacks."""
    for k, v in (defaults or {}).items():
        if k not in target:
            target[k] = v


def pod_spec(res):
    spec = res.get("spec") or {}
    if res.get("kind") == "CronJob":
        spec = ((spec.get("jobTemplate") or {}).get("spec") or {})
    elif res.get("kind") not in WORKLOADS:
        return None
    template = spec.get("template")
    if not isinstance(template, dict):
        return None
    return template.setdefault("spec", {})


def apply_defaults(cfg, res):
    meta = res.setdefault("metadata", {})
    for field in ("labels", "annotations"):
        if cfg.get(field):
            fill(meta.setdefault(field, {}), cfg[field])
    pod = cfg.get("podDefaults") or {}
    spec = pod_spec(res)
    if spec is None or not pod:
        return
    if "securityContext" in pod and "securityContext" not in spec:
        spec["securityContext"] = pod["securityContext"]
    if "resources" in pod:
        for c in spec.get("containers") or []:
            if "resources" not in c:
                c["resources"] = pod["resources"]


KINDS = {"Defaults": apply_defaults}


def main(argv):
    op = argv[1] if len(argv) > 1 else ""
    if op == "generate":
        return EXIT_UNSUPPORTED
    if op != "transform":
        print("usage: gitops.example.com generate|transform", file=sys.stderr)
        return 2
    docs = read_stream(sys.stdin.read())
    configs = [d for d in docs if str(d.get("apiVersion", "")).startswith(GROUP)]
    resources = [d for d in docs if not str(d.get("apiVersion", "")).startswith(GROUP)]
    for cfg in configs:
        fn = KINDS.get(cfg.get("kind"))
        if fn is None:
            print("gitops.example.com: unknown kind %r (known: %s)" % (cfg.get("kind"), ", ".join(KINDS)),
                  file=sys.stderr)
            return 1
        for res in resources:
            fn(cfg, res)
    sys.stdout.write(write_stream(resources))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
