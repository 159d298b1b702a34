#!/usr/bin/env python3
"""kustom render / kustom diff against the kubectl loop they replace.

For a git repository with two commits to compare (by default a synthetic
GitOps monorepo from bench/gen_monorepo.py), times, alternating and taking
medians of --runs runs:

  render   `kustom render -o OUT ROOT...` of the roots at head
           vs `for r in ROOTS; kubectl kustomize r -o OUT/r`
  diff     `kustom diff --base B --head H --format json`
           vs the kubectl loop that renders every root at both revisions
           (the CI job it replaces: `git worktree`-free, from `git archive`
           checkouts made before timing) and compares the outputs

and checks that render's files equal kubectl's, byte for byte, and that
diff's changed roots equal the loop's.

usage:
  python3 bench/review-bench.py [--repo DIR --base REV --head REV] [--apps 30]
                                [--change one-app|shared|none] [--runs 3]
                                [--kustom target/release/kustom]
"""
import argparse, filecmp, json, os, shutil, statistics, subprocess, sys, tempfile, time

ap = argparse.ArgumentParser()
ap.add_argument("--repo")
ap.add_argument("--base", default="HEAD~1")
ap.add_argument("--head", default="HEAD")
ap.add_argument("--apps", type=int, default=30)
ap.add_argument("--change", default="one-app")
ap.add_argument("--runs", type=int, default=3)
ap.add_argument("--kustom", default=os.path.join(os.path.dirname(__file__), "..", "target", "release", "kustom"))
ap.add_argument("--roots", help="file listing the roots (default: kustom's discovery at head)")
a = ap.parse_args()
KUSTOM = os.path.abspath(a.kustom)
work = tempfile.mkdtemp(prefix="review-bench-")
repo = a.repo
if not repo:
    repo = os.path.join(work, "mono")
    subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "gen_monorepo.py"), repo,
                    "--apps", str(a.apps), "--change", a.change], check=True)
repo = os.path.abspath(repo)


def sh(*args, **kw):
    return subprocess.run(args, check=True, capture_output=True, text=True, **kw).stdout


base = sh("git", "-C", repo, "rev-parse", a.base + "^{commit}").strip()
head = sh("git", "-C", repo, "rev-parse", a.head + "^{commit}").strip()
trees = {}
for name, rev in (("base", base), ("head", head)):
    d = os.path.join(work, name)
    os.makedirs(d)
    tar = subprocess.run(["git", "-C", repo, "archive", rev], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", d], input=tar, check=True)
    trees[name] = d

# The roots: given, or what kustom discovers (at both revisions).
if a.roots:
    roots = [l.strip() for l in open(a.roots) if l.strip() and not l.startswith("#")]
else:
    roots = sh(KUSTOM, "diff", "-C", repo, "--base", base, "--head", head, "--list-roots").split()
roots_file = os.path.join(work, "roots.txt")
open(roots_file, "w").write("\n".join(roots) + "\n")
print(f"repo {repo}\n{len(roots)} roots, {base[:7]}..{head[:7]}")


def kubectl_render(tree, out):
    ok = {}
    for r in roots:
        src = os.path.join(tree, r)
        if not os.path.isdir(src):
            ok[r] = None
            continue
        dst = os.path.join(out, r)
        os.makedirs(dst, exist_ok=True)
        p = subprocess.run(["kubectl", "kustomize", src, "-o", dst], capture_output=True)
        ok[r] = p.returncode == 0
    return ok


def kubectl_diff():
    outs = {}
    for name in ("base", "head"):
        o = os.path.join(work, "kd-" + name)
        shutil.rmtree(o, ignore_errors=True)
        kubectl_render(trees[name], o)
        outs[name] = o
    changed = set()
    for r in roots:
        b, h = os.path.join(outs["base"], r), os.path.join(outs["head"], r)
        if not os.path.isdir(b) or not os.path.isdir(h):
            if os.path.isdir(b) or os.path.isdir(h):
                changed.add(r)
            continue
        c = filecmp.dircmp(b, h)
        if c.left_only or c.right_only or filecmp.cmpfiles(b, h, c.common_files, shallow=False)[1]:
            changed.add(r)
    return changed


def kustom_render(out):
    shutil.rmtree(out, ignore_errors=True)
    # A root that fails is reported on STDERR; the others are written.
    subprocess.run([KUSTOM, "render", "-o", out, "--roots", roots_file], cwd=trees["head"], stderr=subprocess.DEVNULL)


def kustom_diff():
    p = subprocess.run([KUSTOM, "diff", "-C", repo, "--base", base, "--head", head, "--format", "json",
                        "--roots", roots_file], capture_output=True, text=True)
    assert p.returncode in (0, 1), p.stderr
    return {r["root"] for r in json.loads(p.stdout)["roots"] if r["status"] != "unchanged"}


def timed(f, *args):
    t = time.perf_counter()
    r = f(*args)
    return time.perf_counter() - t, r


rk, rr, dk, dr = [], [], [], []
for i in range(a.runs):
    t, _ = timed(kustom_render, os.path.join(work, "kr"))
    rk.append(t)
    t, _ = timed(kubectl_render, trees["head"], os.path.join(work, "kubectl-r"))
    rr.append(t)
    t, kchanged = timed(kustom_diff)
    dk.append(t)
    t, rchanged = timed(kubectl_diff)
    dr.append(t)

# Byte-identity of render, and the same changed roots.
mismatch = []
for r in roots:
    a_dir, b_dir = os.path.join(work, "kr", r), os.path.join(work, "kubectl-r", r)
    # A root that fails leaves its directory empty (kubectl) or absent (kustom).
    if os.path.isdir(b_dir) and os.listdir(b_dir) or os.path.isdir(a_dir):
        if not os.path.isdir(a_dir) or not os.path.isdir(b_dir):
            mismatch.append(r)
            continue
        c = filecmp.dircmp(a_dir, b_dir)
        if c.left_only or c.right_only or filecmp.cmpfiles(a_dir, b_dir, c.common_files, shallow=False)[1]:
            mismatch.append(r)
m = statistics.median
print(f"render: kustom {m(rk):.3f} s, kubectl loop {m(rr):.3f} s, ratio 1/{m(rr)/m(rk):.0f}, "
      f"files {'identical' if not mismatch else 'DIFFER in ' + ', '.join(mismatch)}")
print(f"diff:   kustom {m(dk):.3f} s, kubectl loop {m(dr):.3f} s, ratio 1/{m(dr)/m(dk):.0f}, "
      f"changed roots {'equal' if kchanged == rchanged else 'DIFFER: kustom %s, kubectl %s' % (sorted(kchanged), sorted(rchanged))} ({len(kchanged)} changed)")
shutil.rmtree(work, ignore_errors=True)
