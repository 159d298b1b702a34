#!/usr/bin/env bash
# Install a `helm` for kustom's Helm tests and print its path.
#
# No registry this project can reach ships a helm executable, but PyPI's
# helm-python-sdk ships Helm's engine (Helm v4, the Go SDK behind a C ABI).
# plugins/helm/helm-shim/helm drives it as `helm template` / `helm version`.
# The virtualenv is cached under $KUSTOM_HELM_PREFIX (default
# ~/.cache/kustom/helm); the tests find $KUSTOM_HELM_PREFIX/bin/helm.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
prefix="${KUSTOM_HELM_PREFIX:-$HOME/.cache/kustom/helm}"
version="0.2.2"
if ! "$prefix/venv/bin/python" -c "import helm_python, sys; sys.exit(helm_python.EXPECTED_HELM_C_VERSION != '$version')" 2>/dev/null; then
  rm -rf "$prefix/venv"
  mkdir -p "$prefix"
  python3 -m venv "$prefix/venv"
  "$prefix/venv/bin/pip" install --quiet --disable-pip-version-check "helm-python-sdk==$version"
fi
mkdir -p "$prefix/bin"
# A copy of the front end, so the installed helm does not depend on this clone.
cp "$repo/plugins/helm/helm-shim/helm" "$prefix/bin/helm-shim.py"
cat > "$prefix/bin/helm" <<SH
#!/bin/sh
exec "$prefix/venv/bin/python" "$prefix/bin/helm-shim.py" "\$@"
SH
chmod +x "$prefix/bin/helm"
"$prefix/bin/helm" version --short >/dev/null
echo "$prefix/bin/helm"
