#!/usr/bin/env bash
# Run the conformance corpus's network cases offline: github.com/kubernetes-sigs/kustomize
# is routed (url.<mirror>.insteadOf, through GIT_CONFIG_*) to a local mirror of
# kustomize's repository, then each case is built by `kubectl kustomize` and by
# kustom under the same routing and the outputs compared byte for byte.
# http(s) files from raw.githubusercontent.com and github.com/…/raw/… go
# through HTTPS_PROXY to bench/github-file-proxy.py, which serves them from
# the same mirror with certificates of a local CA (SSL_CERT_FILE). Files from
# other hosts cannot be routed: both tools fail on them here (no network),
# which is reported as such.
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
mkdir -p "$work/proxy"
python3 "$(dirname "$0")/github-file-proxy.py" "$work/proxy" "$MIRROR" >"$work/proxy/port" 2>/dev/null &
proxy_pid=$!
trap 'kill $proxy_pid 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 50); do [ -s "$work/proxy/port" ] && break; sleep 0.2; done
port=$(cat "$work/proxy/port")
export HTTPS_PROXY="http://127.0.0.1:$port" HTTP_PROXY="http://127.0.0.1:$port" NO_PROXY=127.0.0.1
export SSL_CERT_FILE="$work/proxy/ca.pem"
same=0; differ=0; bothfail=0
for c in $(awk -F'\t' '$4 ~ /network/ && $4 !~ /helm/ && $1 !~ /goGetter/ {print $1}' "$CORPUS/INDEX.tsv"); do
  dir="$work/cases/$c"; mkdir -p "$dir/input"; cp -r "$CORPUS/cases/$c/input/." "$dir/input/" 2>/dev/null
  build=$(sed -n 's/^build: *"\(.*\)"/\1/p' "$CORPUS/cases/$c/case.yaml")
  flags=$(sed -n 's/^flags: *\[\(.*\)\]/\1/p' "$CORPUS/cases/$c/case.yaml" | tr -d '",')
  case $build in *://*|github.com/*) target=$build;; *) target=input/$build;; esac
  (cd "$dir" && timeout 300 kubectl kustomize $flags "$target" >k.out 2>k.err </dev/null); krc=$?
  (cd "$dir" && timeout 300 "$BIN" build $flags "$target" >m.out 2>m.err </dev/null); mrc=$?
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
