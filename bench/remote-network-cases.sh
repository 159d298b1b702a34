#!/usr/bin/env bash
# Run the conformance corpus's network cases offline: github.com/kubernetes-sigs/kustomize
# is routed (url.<mirror>.insteadOf, through GIT_CONFIG_*) to a local mirror of
# kustomize's repository, then each case is built by `kubectl kustomize` and by
# kustom under the same routing and the outputs compared byte for byte.
# Cases that fetch http(s) files from other hosts cannot be routed this way:
# both tools fail on them here (no network), which is reported as such.
#
# usage: bench/remote-network-cases.sh [--bin target/release/kustom] [--mirror DIR]
set -u
BIN=target/release/kustom
MIRROR=/work/.mirror/kubernetes-sigs+kustomize/repo
CORPUS=${CORPUS:-../shared/conformance}
while [ $# -gt 0 ]; do
  case $1 in
    --bin) BIN=$2; shift 2;;
    --mirror) MIRROR=$2; shift 2;;
    *) echo "unknown argument $1" >&2; exit 2;;
  esac
done
BIN=$(readlink -f "$BIN")
CORPUS=$(readlink -f "$CORPUS")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/routes"
ln -s "$MIRROR" "$work/routes/kustomize"
ln -s "$MIRROR" "$work/routes/kustomize.git"
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
export GIT_CONFIG_COUNT=1
export GIT_CONFIG_KEY_0="url.$work/routes/kustomize.insteadOf"
export GIT_CONFIG_VALUE_0="https://github.com/kubernetes-sigs/kustomize"
export XDG_CACHE_HOME="$work/cache"
same=0; differ=0; bothfail=0
for c in $(awk -F'\t' '$4 ~ /network/ && $4 !~ /helm/ && $1 !~ /goGetter/ {print $1}' "$CORPUS/INDEX.tsv"); do
  dir="$work/cases/$c"; mkdir -p "$dir/input"; cp -r "$CORPUS/cases/$c/input/." "$dir/input/" 2>/dev/null
  build=$(sed -n 's/^build: *"\(.*\)"/\1/p' "$CORPUS/cases/$c/case.yaml")
  flags=$(sed -n 's/^flags: *\[\(.*\)\]/\1/p' "$CORPUS/cases/$c/case.yaml" | tr -d '",')
  case $build in *://*|github.com/*) target=$build;; *) target=input/$build;; esac
  (cd "$dir" && kubectl kustomize $flags "$target" >k.out 2>k.err); krc=$?
  (cd "$dir" && "$BIN" build $flags "$target" >m.out 2>m.err); mrc=$?
  if [ $krc -eq 0 ] && [ $mrc -eq 0 ] && cmp -s "$dir/k.out" "$dir/m.out"; then
    verdict="same bytes"; same=$((same+1))
  elif [ $krc -ne 0 ] && [ $mrc -ne 0 ]; then
    verdict="both fail: $(tail -c 160 "$dir/m.err" | tr '\n' ' ')"; bothfail=$((bothfail+1))
  else
    verdict="DIFFER (kubectl rc=$krc, kustom rc=$mrc)"; differ=$((differ+1))
    diff "$dir/k.out" "$dir/m.out" | head -20; head -c 600 "$dir/m.err" "$dir/k.err"
  fi
  printf '%-70s %s\n' "$c" "$verdict"
done
echo "network cases: $same same bytes, $bothfail both fail (unroutable here), $differ differ"
[ $differ -eq 0 ]
