#!/usr/bin/env python3
"""Extract the structure kustom's strategic merge patch needs from the
Kubernetes OpenAPI (swagger 2.0) document kustomize v5.5.0 embeds.

kustomize ships `kyaml/openapi/kubernetesapi/v1_21_2/swagger.pb`, a protobuf
encoding (gnostic `openapi.v2.Document`) of the Kubernetes 1.21.2 swagger. This
script decodes that protobuf with the standard library only and writes
`k8s_openapi_v1_21_2.txt`, a line format read by `kustom_api::schema`:

    # comment
    D <definition name>                start of a definition (an object schema)
    G <apiVersion> <kind>              a group/version/kind the definition serves
    P <property> <expr> [<strategy> [<key>,<key>...]]
    A <expr>                           the definition's additionalProperties
    S <strategy> [<key>,...]           the definition's own patch strategy

where <expr> is `-` (a schema without structure: scalars, opaque objects),
`@<definition>` (a $ref), `[<expr>]` (an array of <expr>), `[]` (an array
without an items schema) or `{<expr>}` (a map whose values are <expr>).
<strategy> is x-kubernetes-patch-strategy; the keys are
x-kubernetes-list-map-keys when present, else x-kubernetes-patch-merge-key
(the precedence kustomize's merge uses). Descriptions, formats and every
other extension are dropped. Extensions on a schema that is a $ref are
dropped too: kustomize resolves the $ref and never sees them.

Usage: gen_k8s_openapi.py <swagger.pb> <output.txt>
"""

import sys

# Field numbers of gnostic's openapiv2 messages (OpenAPIv2.proto).
DOCUMENT_DEFINITIONS = 9
NAMED_NAME, NAMED_VALUE = 1, 2  # NamedSchema / NamedAny
LIST_ITEMS = 1  # Definitions.additional_properties, Properties.additional_properties
SCHEMA_REF = 1
SCHEMA_ADDITIONAL = 21  # AdditionalPropertiesItem
ADDITIONAL_SCHEMA = 1
SCHEMA_TYPE = 22  # TypeItem { repeated string value = 1 }
SCHEMA_ITEMS = 23  # ItemsItem { repeated Schema schema = 1 }
SCHEMA_PROPERTIES = 25
SCHEMA_VENDOR_EXTENSION = 31
ANY_YAML = 2


def varint(buf, i):
    result, shift = 0, 0
    while True:
        byte = buf[i]
        i += 1
        result |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return result, i


def message(buf):
    """Decode one protobuf message into {field number: [raw values]}."""
    fields = {}
    i, n = 0, len(buf)
    while i < n:
        key, i = varint(buf, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, i = varint(buf, i)
        elif wire == 1:
            value, i = buf[i : i + 8], i + 8
        elif wire == 5:
            value, i = buf[i : i + 4], i + 4
        elif wire == 2:
            length, i = varint(buf, i)
            value, i = buf[i : i + length], i + length
        else:
            raise ValueError(f"unsupported protobuf wire type {wire}")
        fields.setdefault(number, []).append(value)
    return fields


def named(buf):
    m = message(buf)
    return m[NAMED_NAME][0].decode(), m[NAMED_VALUE][0]


def scalar_yaml(text):
    """A YAML scalar as the extensions spell them: plain or double-quoted."""
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    return text


def yaml_string_list(text):
    return [scalar_yaml(line[1:]) for line in text.splitlines() if line.startswith("-")]


def yaml_gvk_list(text):
    """`- group: apps\\n  kind: Deployment\\n  version: v1` -> [(group, version, kind)]."""
    out, cur = [], None
    for line in text.splitlines():
        if line.startswith("-"):
            cur = {}
            out.append(cur)
            line = line[1:]
        key, _, value = line.strip().partition(":")
        if cur is not None and key:
            cur[key.strip()] = scalar_yaml(value)
    return [(g.get("group", ""), g["version"], g["kind"]) for g in out]


def extensions(m):
    ext = {}
    for raw in m.get(SCHEMA_VENDOR_EXTENSION, []):
        name, value = named(raw)
        any_msg = message(value)
        ext[name] = any_msg[ANY_YAML][0].decode() if ANY_YAML in any_msg else ""
    return ext


def strategy_suffix(ext):
    """` <strategy> [<keys>]` as kustomize's PatchStrategyAndKeyList reads it."""
    if "x-kubernetes-patch-strategy" not in ext:
        return ""
    strategy = scalar_yaml(ext["x-kubernetes-patch-strategy"])
    if "x-kubernetes-list-map-keys" in ext:
        keys = yaml_string_list(ext["x-kubernetes-list-map-keys"])
    elif "x-kubernetes-patch-merge-key" in ext:
        keys = [scalar_yaml(ext["x-kubernetes-patch-merge-key"])]
    else:
        keys = []
    if not strategy or any(c.isspace() for c in strategy):
        raise ValueError(f"cannot encode patch strategy {strategy!r}")
    for key in keys:
        if not key or any(c.isspace() or c == "," for c in key):
            raise ValueError(f"cannot encode merge key {key!r}")
    return " " + strategy + (" " + ",".join(keys) if keys else "")


def expr(buf, where):
    """Encode a property/items/additionalProperties schema as an <expr>."""
    m = message(buf)
    if SCHEMA_REF in m:
        ref = m[SCHEMA_REF][0].decode()
        prefix = "#/definitions/"
        if not ref.startswith(prefix):
            raise ValueError(f"{where}: unsupported $ref {ref}")
        return "@" + ref[len(prefix) :]
    if SCHEMA_PROPERTIES in m:
        raise ValueError(f"{where}: inline object schemas are not supported")
    types = [t.decode() for raw in m.get(SCHEMA_TYPE, []) for t in message(raw).get(1, [])]
    if types == ["array"]:
        if SCHEMA_ITEMS not in m:
            return "[]"
        items = message(m[SCHEMA_ITEMS][0]).get(LIST_ITEMS, [])
        if len(items) != 1:
            raise ValueError(f"{where}: tuple arrays are not supported")
        item_ext = extensions(message(items[0]))
        if strategy_suffix(item_ext):
            raise ValueError(f"{where}: patch strategy on nested items")
        return "[" + expr(items[0], where + "[]") + "]"
    if SCHEMA_ADDITIONAL in m:
        add = message(m[SCHEMA_ADDITIONAL][0])
        if ADDITIONAL_SCHEMA in add:
            inner = add[ADDITIONAL_SCHEMA][0]
            if strategy_suffix(extensions(message(inner))):
                raise ValueError(f"{where}: patch strategy on map values")
            return "{" + expr(inner, where + "{}") + "}"
    return "-"


def main(src, dst):
    doc = message(open(src, "rb").read())
    definitions = message(doc[DOCUMENT_DEFINITIONS][0]).get(LIST_ITEMS, [])
    lines = [
        "# Generated by gen_k8s_openapi.py from kustomize v5.5.0",
        "# kyaml/openapi/kubernetesapi/v1_21_2/swagger.pb (Kubernetes v1.21.2).",
        "# Do not edit; see the script for the format.",
    ]
    for raw in definitions:
        name, body = named(raw)
        m = message(body)
        ext = extensions(m)
        lines.append(f"D {name}")
        if "x-kubernetes-group-version-kind" in ext:
            for group, version, kind in yaml_gvk_list(ext["x-kubernetes-group-version-kind"]):
                api_version = f"{group}/{version}" if group else version
                lines.append(f"G {api_version} {kind}")
        if SCHEMA_REF in m:
            raise ValueError(f"{name}: definition is a $ref")
        types = [t.decode() for r in m.get(SCHEMA_TYPE, []) for t in message(r).get(1, [])]
        if types == ["array"]:
            raise ValueError(f"{name}: array definitions are not supported")
        if SCHEMA_ADDITIONAL in m:
            shape = expr(body, name)
            if shape.startswith("{"):
                lines.append("A " + shape[1:-1])
        suffix = strategy_suffix(ext)
        if suffix:
            lines.append("S" + suffix)
        for prop_raw in message(m[SCHEMA_PROPERTIES][0]).get(LIST_ITEMS, []) if SCHEMA_PROPERTIES in m else []:
            prop, prop_body = named(prop_raw)
            if any(c.isspace() for c in prop):
                raise ValueError(f"{name}.{prop}: property names with spaces")
            pm = message(prop_body)
            # A $ref hides its siblings from kustomize (it resolves the ref).
            suffix = "" if SCHEMA_REF in pm else strategy_suffix(extensions(pm))
            lines.append(f"P {prop} {expr(prop_body, name + '.' + prop)}{suffix}")
    with open(dst, "w") as out:
        out.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
