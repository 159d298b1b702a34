#!/usr/bin/env python3
"""Benchmark kustom against `kubectl kustomize`, side by side, on the same trees.

usage: bench/bench.py [--bin target/release/kustom] [--sizes 100,300,600]
                      [--runs 3] [--shared ../shared] [--no-reference]
                      [DIR ...]

DIR: more kustomization directories to measure, built in place (real trees
you fetched yourself, e.g. argo-workflows' manifests/namespace-install; they
stay out of the repository). The row is named after the directory's last
two path components.

Trees: the synthetic overlays x components tree of ../shared/bench/gen_tree.py
at each --sizes N (build OUT/top), and a tiny tree (one Deployment, namePrefix,
one configMapGenerator). Per tree, each tool first runs once untimed, outside
any cgroup (page cache of tree and binaries warmed alike for both tools), then
--runs times for wall time, alternating, then once more for memory: 2 + --runs
runs per tool and tree. Outputs are read through a pipe (no output file whose
page cache a memory cgroup would charge) and compared byte for byte: a
difference is reported and makes the exit status 1.

Wall time: median over the timing runs, perf_counter around the process.
Peak memory: the peak of the total memory charged to a fresh memory cgroup
holding the whole process tree, so kustom's core and its plugin processes,
alive at the same time, add up. It is measured in one extra run per tool in
that cgroup (cgroup v1 memory.max_usage_in_bytes, or v2 memory.peak): the
anonymous memory of all the tree's processes plus kernel memory charged to the
group (page tables, stacks, slab). Pages of files already in the page cache
(the executables, warmed by the untimed run) are not charged to it, so unlike
ru_maxrss it leaves out a process's resident executable pages (here about 33 MiB
of kubectl's, 4.5 MiB of kustom's); a note is printed if page cache was charged.
The timing runs stay outside any cgroup: moving the child into the cgroup
before exec roughly doubled the tiny tree's wall time here. Below the table,
wait4's ru_maxrss over all runs (the largest single process of the tree) is
printed for comparison. Without a writable memory cgroup, the memory column
is that ru_maxrss instead, which understates kustom. The line before the
table says which was measured.
"""
import argparse, itertools, os, shutil, statistics, subprocess, sys, tempfile, time

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


def run(cmd, cgroup=None):
    """Run cmd; return (stdout bytes, wall seconds, wait4 ru_maxrss KiB).

    stdout is read through a pipe. With cgroup, the child joins it before
    exec, so the plugin processes it starts are in it too.
    """
    join = None
    if cgroup:
        def join():
            with open(os.path.join(cgroup, "cgroup.procs"), "w") as f:
                f.write(str(os.getpid()))
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, preexec_fn=join)
    try:
        out = p.stdout.read()
        _, status, usage = os.wait4(p.pid, 0)  # wait4, not wait(): for ru_maxrss
    except BaseException:  # e.g. ^C: do not leave the child running (or its cgroup busy)
        p.kill(); p.wait()
        raise
    secs = time.perf_counter() - t0
    p.stdout.close()
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit(f"bench: {' '.join(cmd)} failed with status {p.returncode}")
    return out, secs, usage.ru_maxrss


def memory_cgroup():
    """Return (parent dir for per-run cgroups, peak file, method), or (None, None, method).

    Tries below our own cgroup first (keeps the runs inside whatever limits
    apply to us), then the hierarchy's root; probes by creating one.
    """
    mounts = [l.split() for l in open("/proc/self/mounts")]
    own = [l.rstrip("\n").split(":", 2) for l in open("/proc/self/cgroup")]
    hierarchies = []
    for dev, mnt, fstype, opts, *_ in mounts:
        if fstype == "cgroup" and "memory" in opts.split(","):
            path = next((p for _, c, p in own if "memory" in c.split(",")), "/")
            hierarchies.append((mnt, path, "memory.max_usage_in_bytes", "cgroup v1 memory.max_usage_in_bytes"))
        elif fstype == "cgroup2":
            path = next((p for i, c, p in own if i == "0"), "/")
            hierarchies.append((mnt, path, "memory.peak", "cgroup v2 memory.peak"))
    for mnt, path, peak, method in hierarchies:
        for parent in dict.fromkeys([mnt + path.rstrip("/"), mnt]):
            probe = os.path.join(parent, f"kustom-bench-{os.getpid()}-probe")
            try:
                os.mkdir(probe)
            except OSError:
                continue
            try:
                if peak == "memory.peak" and not os.path.exists(os.path.join(probe, peak)):
                    try:  # v2: the memory controller must be enabled in the parent
                        with open(os.path.join(parent, "cgroup.subtree_control"), "w") as f:
                            f.write("+memory")
                    except OSError:
                        pass
                if os.path.exists(os.path.join(probe, peak)):
                    return parent, peak, f"whole process tree ({method})"
            finally:
                os.rmdir(probe)
    return None, None, "largest single process (wait4 ru_maxrss; no writable memory cgroup)"


_serial = itertools.count()


def peak_run(cmd, parent, peak):
    """Run cmd in a fresh memory cgroup; return (stdout, peak bytes, ru_maxrss KiB)."""
    cg = os.path.join(parent, f"kustom-bench-{os.getpid()}-{next(_serial)}")
    os.mkdir(cg)
    try:
        out, _, maxrss = run(cmd, cg)
        with open(os.path.join(cg, peak)) as f:
            bytes_ = int(f.read())
        # Page cache still charged after exit (v1 "cache", v2 "file") would be in the peak.
        stat = dict(l.split() for l in open(os.path.join(cg, "memory.stat")))
        cache = int(stat.get("cache", stat.get("file", 0)))
        if cache > 2**20:
            print(f"bench: note: {cache / 2**20:.1f} MiB page cache charged to the memory run of {' '.join(cmd)}", file=sys.stderr)
        return out, bytes_, maxrss
    finally:
        # Empty once the tree has exited; a helper killed by its parent-death
        # signal (kustom's fork server) may take a moment to go.
        for attempt in range(100):
            try:
                os.rmdir(cg)
                break
            except OSError as e:
                if attempt == 99:
                    print(f"bench: could not remove cgroup {cg}: {e}", file=sys.stderr)
                time.sleep(0.01)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=os.path.join(ROOT, "target/release/kustom"))
    ap.add_argument("--sizes", default="100,300,600")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--shared", default=os.path.join(ROOT, "..", "shared"))
    ap.add_argument("--no-reference", action="store_true", help="do not run kubectl kustomize")
    ap.add_argument("--kustom-flag", action="append", default=[], help="extra flag for kustom build (repeatable), e.g. --kustom-flag=--plugin-sandbox=off")
    ap.add_argument("dirs", nargs="*", metavar="DIR", help="kustomization directories to measure too")
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
    for d in a.dirs:
        d = os.path.abspath(d)
        if not os.path.isdir(d):
            sys.exit(f"bench: {d} is not a directory")
        trees.append(("/".join(d.rstrip("/").split("/")[-2:]), d))
    parent, peak, method = memory_cgroup()
    print(f"peak memory: {method}")
    width = max([20] + [len(label) for label, _ in trees])
    print(f"{'tree':{width}} {'kustom s':>9} {'kustom MiB':>10} {'kubectl s':>10} {'kubectl MiB':>11} {'time ratio':>10} {'mem ratio':>9}  output")
    failed, single = False, []
    for label, path in trees:
        tools = [[a.bin, "build", *a.kustom_flag, path]] + ([[kubectl, "kustomize", path]] if kubectl else [])
        outs = [{run(cmd)[0]} for cmd in tools]  # warm-up, outside any cgroup
        secs, rss = [[] for _ in tools], [[] for _ in tools]
        for _ in range(a.runs):  # alternating; no cgroup, so nothing added to wall time
            for i, cmd in enumerate(tools):
                out, s, m = run(cmd)
                outs[i].add(out); secs[i].append(s); rss[i].append(m * 1024)
        if parent:  # one run per tool in a fresh cgroup, for the whole tree's peak
            mib = []
            for i, cmd in enumerate(tools):
                out, p, m = peak_run(cmd, parent, peak)
                outs[i].add(out); rss[i].append(m * 1024); mib.append(p / 2**20)
            single.append((label, [max(r) / 2**20 for r in rss]))
        else:
            mib = [max(r) / 2**20 for r in rss]
        t = [statistics.median(s) for s in secs]
        if kubectl:
            same = len(outs[0]) == 1 and outs[0] == outs[1]
            failed |= not same
            print(f"{label:{width}} {t[0]:9.4f} {mib[0]:10.1f} {t[1]:10.4f} {mib[1]:11.1f} {'1/%.0f' % (t[1] / t[0]) if t[0] else '-':>10} {'1/%.1f' % (mib[1] / mib[0]):>9}  {'identical' if same else 'DIFFERENT'}")
        else:
            print(f"{label:{width}} {t[0]:9.4f} {mib[0]:10.1f} {'-':>10} {'-':>11} {'-':>10} {'-':>9}  -")
    for label, m in single:  # for comparison: what wait4 alone would have reported
        print(f"largest single process (wait4 ru_maxrss, all runs), {label}: kustom {m[0]:.1f} MiB" + (f", kubectl {m[1]:.1f} MiB" if kubectl else ""))
    shutil.rmtree(work, ignore_errors=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
