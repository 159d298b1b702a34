"""Extract the error message from kubectl's klog 'command failed' line."""
import re
import sys

text = sys.stdin.read()
m = re.search(r'"command failed" err="((?:[^"\\]|\\.)*)"', text)
if m:
    # A Go-quoted string.
    msg = m.group(1).encode().decode("unicode_escape").encode("latin-1").decode("utf-8")
else:
    m = re.search(r'"command failed" err=<\n(.*?)\n >', text, re.S)
    if not m:
        sys.exit("no error found in:\n" + text)
    msg = "\n".join(l[1:] if l.startswith("\t") else l for l in m.group(1).split("\n"))
sys.stdout.write(msg + "\n")
