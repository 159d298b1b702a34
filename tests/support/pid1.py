"""PID 1 of a new PID namespace that waits only for its own children, as
Argo CD's argocd-cmp-server does: runs the calls of a plan, then counts what
is left in the namespace (zombies and live processes other than itself).

usage: pid1.py PLAN.json RESULT.json

PLAN: {"calls": [{"argv": [...], "cwd": DIR, "env": {...},
                  "term_after": SECONDS or null}]}
RESULT: {"codes": [...], "term_seconds": [...], "zombies": N, "live": [...]}
"""
import json
import os
import signal
import subprocess
import sys
import time

plan = json.load(open(sys.argv[1]))
codes, term_seconds = [], []
for call in plan["calls"]:
    env = dict(os.environ)
    env.update(call.get("env", {}))
    p = subprocess.Popen(call["argv"], cwd=call["cwd"], env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = call.get("term_after")
    if after is not None:
        time.sleep(after)
        sent = time.monotonic()
        p.send_signal(signal.SIGTERM)
        try:
            code = p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
            code = p.wait()
        term_seconds.append(time.monotonic() - sent)
    else:
        code = p.wait()
    codes.append(code)

# Whatever kustom killed on its way out has had time to die.
time.sleep(0.3)
zombies, live = 0, []
for entry in os.listdir("/proc"):
    if not entry.isdigit() or int(entry) == os.getpid():
        continue
    try:
        stat = open(f"/proc/{entry}/stat").read()
        cmd = open(f"/proc/{entry}/cmdline", "rb").read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        continue
    state = stat[stat.rfind(")") + 2]
    if state == "Z":
        zombies += 1
    else:
        live.append(f"{entry} {state} {cmd}")
json.dump({"codes": codes, "term_seconds": term_seconds,
           "zombies": zombies, "live": live}, open(sys.argv[2], "w"))
