#!/usr/bin/env python3
"""KEP plugin for the API group team.example.com (Python 3 standard library only).

Install:  kustom plugin install plugins/examples/team.example.com
Use:      kustom build --enable-alpha-plugins DIR

Kinds:
  CommonApp (a generator) -- one config object becomes a Deployment and a
  Service, and a ConfigMap of settings when `spec.env` is given:

    apiVersion: team.example.com/v1
    kind: CommonApp
    metadata:
      name: shop
    spec:
      image: registry.example.com/shop:1.4   # required
      port: 8080                             # default 8080
      replicas: 2                            # default 1
      env: {LOG_LEVEL: info}                 # optional: a ConfigMap, name hash-suffixed

The KEP protocol, as kustom runs it:
  * `team.example.com generate`: STDIN holds the team.example.com objects
    listed in one kustomization (a YAML stream); write the generated
    resources to STDOUT (YAML, or JSON documents separated by `---` lines;
    JSON is YAML).
  * `team.example.com transform`: asked of every generator too; exit 127
    means "not supported", which is what a pure generator answers.
  * working directory: the directory of the kustomization listing the object;
    any other exit status fails the build and the end of STDERR is shown.
  * `kustomize.config.k8s.io/needs-hash: "true"` on a generated object asks
    for a content-hash name suffix (references to it follow the new name).
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

def common_app(cfg):
    meta = cfg.get("metadata") or {}
    name = meta.get("name")
    spec = cfg.get("spec") or {}
    if not name:
        raise ValueError("CommonApp needs metadata.name")
    if not spec.get("image"):
        raise ValueError("CommonApp %s needs spec.image" % name)
    port = int(spec.get("port", 8080))
    labels = {"app": name}
    container = {
        "name": name,
        "image": spec["image"],
        "ports": [{"containerPort": port, "name": "http"}],
    }
    out = []
    env = spec.get("env") or {}
    if env:
        settings = {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {
                "name": name + "-settings",
                "labels": labels,
                "annotations": {"kustomize.config.k8s.io/needs-hash": "true"},
            },
            "data": {k: str(v) for k, v in sorted(env.items())},
        }
        out.append(settings)
        container["envFrom"] = [{"configMapRef": {"name": name + "-settings"}}]
    out.append({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "labels": labels},
        "spec": {
            "replicas": int(spec.get("replicas", 1)),
            "selector": {"matchLabels": labels},
            "template": {"metadata": {"labels": labels}, "spec": {"containers": [container]}},
        },
    })
    out.append({
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name, "labels": labels},
        "spec": {"selector": labels, "ports": [{"name": "http", "port": port, "targetPort": "http"}]},
    })
    return out


GENERATORS = {"CommonApp": common_app}


def main(argv):
    op = argv[1] if len(argv) > 1 else ""
    if op == "transform":
        return EXIT_UNSUPPORTED
    if op != "generate":
        print("usage: team.example.com generate|transform", file=sys.stderr)
        return 2
    out = []
    for doc in read_stream(sys.stdin.read()):
        if not str(doc.get("apiVersion", "")).startswith("team.example.com/"):
            continue  # (a transform call would list resources after the configs)
        kind = doc.get("kind")
        gen = GENERATORS.get(kind)
        if gen is None:
            print("team.example.com: unknown kind %r (known: %s)" % (kind, ", ".join(GENERATORS)), file=sys.stderr)
            return 1
        try:
            out.extend(gen(doc))
        except (ValueError, TypeError) as e:
            print("team.example.com: %s" % e, file=sys.stderr)
            return 1
    sys.stdout.write(write_stream(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
