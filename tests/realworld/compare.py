#!/usr/bin/env python3
"""Compare `kustom build` with `kubectl kustomize` on real kustomization trees.

Usage:
    tests/realworld/compare.py [--kustom target/release/kustom] [--timeout 60]
        [--jobs 2] [--report out.json] [--extract /tmp/realworld]
        ROOT_OR_GIT_DIR...

Each argument is a directory tree, or a bare git directory (such as the
`fetch` mirrors under /work/.mirror/*/repo) whose HEAD is extracted first.
Every directory holding a kustomization file is built by both tools with
the same flags (`--flag`, e.g. `--load-restrictor LoadRestrictionsNone`;
none by default) and classified:

    same        both succeed, byte-identical output
    different   both succeed, outputs differ
    kustom-fail kubectl succeeds, kustom fails
    kubectl-fail  kubectl fails, kustom succeeds
    both-fail   both fail (remote: a URL resource that needs the network)
    unclean     kustom failed but wrote to stdout or panicked

The fetched trees are not part of the repository; only this script is.
"""

import argparse
import concurrent.futures
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

NAMES = ("kustomization.yaml", "kustomization.yml", "Kustomization")
REMOTE = re.compile(r"(https?://|git@|github\.com/|ssh://|\.git\b|\?ref=)")


def extract(git_dir, dest_root):
    """Write HEAD's files under dest_root/<owner+name>; blobs a partial
    mirror lacks (large binaries) are skipped."""
    name = os.path.basename(os.path.dirname(git_dir.rstrip("/"))) or "repo"
    dest = os.path.join(dest_root, name)
    if os.path.isdir(dest):
        return dest
    tree = subprocess.run(["git", "--git-dir", git_dir, "ls-tree", "-r", "-z", "HEAD"],
                          stdout=subprocess.PIPE, check=True).stdout
    entries = []
    for rec in tree.split(b"\0"):
        if not rec:
            continue
        meta, path = rec.split(b"\t", 1)
        mode, kind, sha = meta.split()
        if kind == b"blob":
            entries.append((mode, sha.decode(), os.fsdecode(path)))
    batch = subprocess.Popen(["git", "--git-dir", git_dir, "cat-file", "--batch"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    for mode, sha, path in entries:
        batch.stdin.write(sha.encode() + b"\n")
        batch.stdin.flush()
        header = batch.stdout.readline().split()
        if len(header) < 3 or header[1] == b"missing":
            continue
        data = batch.stdout.read(int(header[2]))
        batch.stdout.read(1)
        target = os.path.join(dest, path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if mode == b"120000":
            try:
                os.symlink(os.fsdecode(data), target)
            except OSError:
                pass
        else:
            with open(target, "wb") as f:
                f.write(data)
            if mode == b"100755":
                os.chmod(target, 0o755)
    batch.stdin.close()
    batch.wait()
    return dest


def kustomization_dirs(root):
    for d, subdirs, files in os.walk(root):
        subdirs[:] = [s for s in subdirs if s not in (".git", "node_modules", "vendor")]
        if any(n in files for n in NAMES):
            yield d


def run(cmd, timeout, env=None):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout, env=env)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return -1, b"", b"timeout"


def mentions_remote(d):
    """Whether the kustomization (or one it reaches locally) lists a URL."""
    for n in NAMES:
        p = os.path.join(d, n)
        if os.path.isfile(p):
            try:
                text = open(p, encoding="utf-8", errors="replace").read()
            except OSError:
                return False
            return bool(REMOTE.search(text))
    return False


def compare(d, args, home):
    env = dict(os.environ, XDG_CONFIG_HOME=home)
    krc, kout, kerr = run(["kubectl", "kustomize", *args.flag, d], args.timeout)
    orc, oout, oerr = run([args.kustom, "build", *args.flag, d], args.timeout, env)
    remote = krc != 0 and mentions_remote(d)
    if krc == 0 and orc == 0:
        verdict = "same" if kout == oout else "different"
    elif krc == 0:
        verdict = "kustom-fail"
    elif orc == 0:
        verdict = "kubectl-fail"
    else:
        verdict = "both-fail-remote" if remote else "both-fail"
    if orc != 0 and (oout or b"panicked" in oerr or orc < 0 and oerr != b"timeout"):
        verdict = "unclean"
    if orc == -1:
        verdict = "kustom-timeout" if krc != -1 else "both-timeout"
    return {
        "dir": d, "verdict": verdict, "kubectl_rc": krc, "kustom_rc": orc,
        "kubectl_err": kerr.decode("utf-8", "replace")[-600:],
        "kustom_err": oerr.decode("utf-8", "replace")[-600:],
        "kubectl_sha": hashlib.sha256(kout).hexdigest()[:12],
        "kustom_sha": hashlib.sha256(oout).hexdigest()[:12],
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("roots", nargs="+")
    ap.add_argument("--kustom", default="target/release/kustom")
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--report")
    ap.add_argument("--extract", default="/tmp/realworld")
    ap.add_argument("--flag", action="append", default=[],
                    help="a flag given to both tools (repeat for more), e.g. "
                         "--flag=--load-restrictor --flag=LoadRestrictionsNone")
    ap.add_argument("--only", help="only the directories listed in this file")
    args = ap.parse_args()
    args.kustom = os.path.abspath(args.kustom)
    dirs = []
    for r in args.roots:
        if os.path.isfile(os.path.join(r, "HEAD")) and os.path.isdir(os.path.join(r, "objects")):
            r = extract(r, args.extract)
        dirs.extend(sorted(kustomization_dirs(r)))
    if args.only:
        wanted = set(open(args.only).read().split())
        dirs = [d for d in dirs if d in wanted]
    home = tempfile.mkdtemp(prefix="kustom-realworld-")
    results = []
    try:
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            for res in pool.map(lambda d: compare(d, args, home), dirs):
                results.append(res)
                if res["verdict"] not in ("same", "both-fail", "both-fail-remote"):
                    print(f"{res['verdict']:14} {res['dir']}", flush=True)
    finally:
        # The empty XDG_CONFIG_HOME both tools ran with.
        shutil.rmtree(home, ignore_errors=True)
    counts = {}
    for r in results:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    print(json.dumps({"directories": len(results), **dict(sorted(counts.items()))}))
    if args.report:
        with open(args.report, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
