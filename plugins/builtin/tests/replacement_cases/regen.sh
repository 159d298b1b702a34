#!/bin/bash
# Regenerate the expected outputs of the replacement fixtures with the
# reference implementation (kubectl kustomize, kustomize v5.5.0).
# Each fixture directory holds resources.yaml and replacements.yaml (a list,
# the kustomization's `replacements:` field) and possibly files they name.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
for dir in "$here"/*/; do
  dir=${dir%/}
  tmp=$(mktemp -d)
  cp -r "$dir"/. "$tmp"/
  rm -f "$tmp"/expected.yaml "$tmp"/expected-error.txt
  {
    echo "resources: [resources.yaml]"
    echo "replacements:"
    sed 's/^/  /' "$dir/replacements.yaml"
  } > "$tmp/kustomization.yaml"
  rm -f "$dir"/expected.yaml "$dir"/expected-error.txt
  if kubectl kustomize --reorder=none "$tmp" > "$tmp/out" 2> "$tmp/err"; then
    cp "$tmp/out" "$dir/expected.yaml"
  else
    python3 "$here/klog_error.py" < "$tmp/err" > "$dir/expected-error.txt"
  fi
  rm -rf "$tmp"
done
