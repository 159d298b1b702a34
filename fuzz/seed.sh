#!/bin/sh
# Regenerate the checked-in seed corpus (fuzz/seeds/) from examples/ and, when
# it sits beside the repository, ../shared/conformance: every YAML file up to
# 16 KiB for yaml_roundtrip, every kustomization file for kustomization.
# Files are named by their sha1, so duplicates collapse.
set -eu
cd "$(dirname "$0")/.."
for t in yaml_roundtrip kustomization; do rm -rf "fuzz/seeds/$t"; mkdir -p "fuzz/seeds/$t"; done
dirs="examples"
[ -d ../shared/conformance/cases ] && dirs="$dirs ../shared/conformance/cases"
# shellcheck disable=SC2086
find $dirs -type f \( -name '*.yaml' -o -name '*.yml' -o -name Kustomization \) -size -16k |
while IFS= read -r f; do
    sum=$(sha1sum "$f" | cut -c1-16)
    cp "$f" "fuzz/seeds/yaml_roundtrip/$sum"
    case "$(basename "$f")" in
        kustomization.yaml|kustomization.yml|Kustomization) cp "$f" "fuzz/seeds/kustomization/$sum" ;;
    esac
done
ls fuzz/seeds/yaml_roundtrip | wc -l
ls fuzz/seeds/kustomization | wc -l
