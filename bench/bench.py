#!/usr/bin/env python3
"""Benchmark kustom against `kubectl kustomize`, side by side, on the same trees.

usage: bench/bench.py [--bin target/release/kustom] [--sizes 100,300,600]
                      [--runs 3] [--shared ../shared] [--no-reference]

Trees: the synthetic overlays x components tree of ../shared/bench/gen_tree.py
at each --sizes N (build OUT/top), and a tiny tree (one Deployment, namePrefix,
one configMapGenerator). Each tree is built --runs times by each tool,
alternating, and the median wall time and the largest peak RSS are reported
(wall time around the process; peak RSS from wait4). Outputs are compared byte for byte: a
difference is reported and makes the exit status 1.
"""
import argparse, os, shutil, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

TINY = {
    "kustomization.yaml": "namePrefix: tiny-\nresources:\n- deployment.yaml\nconfigMapGenerator:\n- name: settings\n  literals:\n  - LOG_LEVEL=info\n",
    "deployment.yaml": """apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: web
        image: nginx:1.27
        envFrom:
        - configMapRef:
            name: settings
""",
}


def timed(cmd, out_path):
    """Run cmd with stdout to out_path; return (wall seconds, peak RSS KiB).

    Wall time is measured around the process (perf_counter); the peak is
    wait4's ru_maxrss, the largest resident set of the process and of the
    processes it waited for (kustom's plugin processes included).
    """
    with open(out_path, "wb") as out:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(p.pid, 0)
        secs = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit(f"bench: {' '.join(cmd)} failed with status {p.returncode}")
    return secs, usage.ru_maxrss


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=os.path.join(ROOT, "target/release/kustom"))
    ap.add_argument("--sizes", default="100,300,600")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--shared", default=os.path.join(ROOT, "..", "shared"))
    ap.add_argument("--no-reference", action="store_true", help="do not run kubectl kustomize")
    a = ap.parse_args()
    gen = os.path.join(a.shared, "bench", "gen_tree.py")
    kubectl = None if a.no_reference else shutil.which("kubectl")
    work = tempfile.mkdtemp(prefix="kustom-bench-")
    env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(work, "xdg"))
    os.environ.update(env)
    trees = []
    tiny = os.path.join(work, "tiny")
    os.makedirs(tiny)
    for name, text in TINY.items():
        with open(os.path.join(tiny, name), "w") as f:
            f.write(text)
    trees.append(("tiny", tiny))
    if os.path.isfile(gen):
        for n in [int(s) for s in a.sizes.split(",") if s]:
            out = os.path.join(work, f"n{n}")
            subprocess.run([sys.executable, gen, out, "--n", str(n)], check=True, stdout=subprocess.DEVNULL)
            trees.append((f"synthetic --n {n}", os.path.join(out, "top")))
    else:
        print(f"bench: {gen} not found: only the tiny tree is measured")
    print(f"{'tree':20} {'kustom s':>9} {'kustom MiB':>10} {'kubectl s':>10} {'kubectl MiB':>11} {'time ratio':>10} {'mem ratio':>9}  output")
    failed = False
    for label, path in trees:
        ks, km, rs, rm = [], [], [], []
        for i in range(a.runs):
            s, m = timed([a.bin, "build", path], os.path.join(work, "kustom.yaml"))
            ks.append(s); km.append(m)
            if kubectl:
                s, m = timed([kubectl, "kustomize", path], os.path.join(work, "ref.yaml"))
                rs.append(s); rm.append(m)
        k_s, k_m = statistics.median(ks), max(km) / 1024
        if kubectl:
            r_s, r_m = statistics.median(rs), max(rm) / 1024
            same = open(os.path.join(work, "kustom.yaml"), "rb").read() == open(os.path.join(work, "ref.yaml"), "rb").read()
            failed |= not same
            print(f"{label:20} {k_s:9.4f} {k_m:10.1f} {r_s:10.4f} {r_m:11.1f} {'1/%.0f' % (r_s / k_s) if k_s else '-':>10} {'1/%.1f' % (r_m / k_m):>9}  {'identical' if same else 'DIFFERENT'}")
        else:
            print(f"{label:20} {k_s:9.4f} {k_m:10.1f} {'-':>10} {'-':>11} {'-':>10} {'-':>9}  -")
    shutil.rmtree(work, ignore_errors=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
