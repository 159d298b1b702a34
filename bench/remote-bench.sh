#!/usr/bin/env bash
# Cold and warm build times of a remote tree, kustom against kubectl kustomize.
# github.com/kubernetes-sigs/kustomize is routed (url.<mirror>.insteadOf via
# GIT_CONFIG_*) to a local mirror of kustomize's repository, so the figures
# measure the tools, not a network. Each figure is the median of N runs.
#
# usage: bench/remote-bench.sh [--bin target/release/kustom] [--mirror DIR] [--runs N]
set -eu
BIN=target/release/kustom
MIRROR=/work/.mirror/kubernetes-sigs+kustomize/repo
RUNS=5
while [ $# -gt 0 ]; do
  case $1 in
    --bin) BIN=$2; shift 2;;
    --mirror) MIRROR=$2; shift 2;;
    --runs) RUNS=$2; shift 2;;
    *) echo "unknown argument $1" >&2; exit 2;;
  esac
done
BIN=$(readlink -f "$BIN")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/routes" "$work/app"
ln -s "$MIRROR" "$work/routes/kustomize"
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_COUNT=1
export GIT_CONFIG_KEY_0="url.$work/routes/kustomize.insteadOf"
export GIT_CONFIG_VALUE_0="https://github.com/kubernetes-sigs/kustomize"
export XDG_CACHE_HOME="$work/cache"
cat > "$work/app/kustomization.yaml" <<'K'
resources:
- https://github.com/kubernetes-sigs/kustomize//examples/multibases?ref=v3.3.1
- github.com/kubernetes-sigs/kustomize/examples/helloWorld?ref=v3.3.1
- https://github.com/kubernetes-sigs/kustomize//examples/wordpress/mysql?ref=kustomize/v4.5.7&submodules=false
K
cd "$work/app"
ms() { local s e; s=$(date +%s%N); "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; exit 1; }; e=$(date +%s%N); echo $(( (e - s) / 1000000 )); }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
kubectl kustomize . > "$work/k.out"; "$BIN" build . > "$work/m.out"
cmp -s "$work/k.out" "$work/m.out" && echo "outputs: same bytes" || { echo "outputs DIFFER"; exit 1; }
kube=$(for i in $(seq $RUNS); do ms kubectl kustomize .; done | median)
cold=$(for i in $(seq $RUNS); do rm -rf "$work/cache"; ms "$BIN" build .; done | median)
warm=$(for i in $(seq $RUNS); do ms "$BIN" build .; done | median)
"$BIN" lock . 2>/dev/null
locked=$(for i in $(seq $RUNS); do ms "$BIN" build .; done | median)
rm -f kustom.lock
export GIT_CONFIG_COUNT=0
offline=$(for i in $(seq $RUNS); do ms "$BIN" build . --offline; done | median)
echo "kubectl kustomize:            ${kube} ms"
echo "kustom cold (empty cache):    ${cold} ms"
echo "kustom warm (ls-remote x3):   ${warm} ms   ($(awk "BEGIN {printf \"%.1f\", $kube/$warm}")x faster than kubectl)"
echo "kustom warm with kustom.lock: ${locked} ms   ($(awk "BEGIN {printf \"%.1f\", $kube/$locked}")x)"
echo "kustom --offline:             ${offline} ms   ($(awk "BEGIN {printf \"%.1f\", $kube/$offline}")x)"
