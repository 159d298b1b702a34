#!/usr/bin/env python3
"""A local HTTPS proxy that answers for raw.githubusercontent.com and
github.com/…/raw/… from a local mirror of kustomize's repository, so the
conformance corpus's http network cases can run offline.

usage: github-file-proxy.py WORKDIR MIRROR   (prints the port, then serves)

Clients reach it through HTTPS_PROXY (CONNECT). For each host it makes a
certificate signed by a CA in WORKDIR/ca.pem (created on start; give it to
the clients as SSL_CERT_FILE). Paths served:
  raw.githubusercontent.com/kubernetes-sigs/kustomize/<ref>/<path>
  github.com/kubernetes-sigs/kustomize/raw/<ref>/<path>
Anything else is a 404. Only 127.0.0.1 is listened on.
"""
import os, socket, ssl, subprocess, sys, threading

WORK, MIRROR = sys.argv[1], sys.argv[2]
CA_KEY, CA_CRT = os.path.join(WORK, "ca.key"), os.path.join(WORK, "ca.pem")


def openssl(*args):
    subprocess.run(["openssl", *args], check=True, capture_output=True)


openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", CA_KEY,
        "-out", CA_CRT, "-days", "2", "-subj", "/CN=kustom offline test CA")
contexts, lock = {}, threading.Lock()


def context_for(host):
    with lock:
        if host in contexts:
            return contexts[host]
        base = os.path.join(WORK, host)
        openssl("req", "-new", "-newkey", "rsa:2048", "-nodes", "-keyout", base + ".key",
                "-subj", "/CN=" + host, "-out", base + ".csr")
        with open(base + ".ext", "w") as f:
            f.write("subjectAltName=DNS:%s\n" % host)
        openssl("x509", "-req", "-in", base + ".csr", "-CA", CA_CRT, "-CAkey", CA_KEY,
                "-CAcreateserial", "-out", base + ".crt", "-days", "2", "-extfile", base + ".ext")
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(base + ".crt", base + ".key")
        contexts[host] = ctx
        return ctx


def content(host, path):
    if "://" in path:  # absolute-form request target
        path = "/" + path.split("://", 1)[1].partition("/")[2]
    parts = path.split("?")[0].lstrip("/").split("/")
    if host == "raw.githubusercontent.com" and parts[:2] == ["kubernetes-sigs", "kustomize"]:
        ref, rest = parts[2], parts[3:]
    elif host == "github.com" and parts[:3] == ["kubernetes-sigs", "kustomize", "raw"]:
        ref, rest = parts[3], parts[4:]
    else:
        return None
    out = subprocess.run(["git", "--git-dir", MIRROR, "show", "%s:%s" % (ref, "/".join(rest))],
                         capture_output=True)
    return out.stdout if out.returncode == 0 else None


def read_head(f):
    first = f.readline().decode("latin-1")
    while f.readline() not in (b"\r\n", b"\n", b""):
        pass
    return first.split()


def handle(conn):
    try:
        head = read_head(conn.makefile("rb"))
        if len(head) < 2 or head[0] != "CONNECT":
            conn.sendall(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
            return
        host = head[1].split(":")[0]
        conn.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
        tls = context_for(host).wrap_socket(conn, server_side=True)
        req = read_head(tls.makefile("rb"))
        body = content(host, req[1]) if len(req) > 1 else None
        status = b"200 OK" if body is not None else b"404 Not Found"
        body = body if body is not None else b"404: Not Found"
        tls.sendall(b"HTTP/1.1 " + status + b"\r\nConnection: close\r\nContent-Length: "
                    + str(len(body)).encode() + b"\r\n\r\n" + body)
        tls.close()
    except (OSError, ssl.SSLError):
        pass
    finally:
        conn.close()


server = socket.socket()
server.bind(("127.0.0.1", 0))
server.listen(16)
print(server.getsockname()[1], flush=True)
while True:
    c, _ = server.accept()
    threading.Thread(target=handle, args=(c,), daemon=True).start()
