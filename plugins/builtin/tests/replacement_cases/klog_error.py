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
    p = re.search(r'^panic: .*$', text, re.M)
    if m:
        msg = "\n".join(l[1:] if l.startswith("\t") else l for l in m.group(1).split("\n"))
    elif p:
        # A crash: only the panic line, as in the conformance corpus.
        msg = p.group(0)
    else:
        sys.exit("no error found in:\n" + text)
sys.stdout.write(msg + "\n")
