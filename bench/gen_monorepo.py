#!/usr/bin/env python3
"""Generate a synthetic GitOps monorepo with a two-commit history, for
`bench/review-bench.sh` and by hand.

usage: gen_monorepo.py OUT [--apps 30] [--envs dev,staging,prod] [--change one-app|shared|none]
                        [--history N] [--gc]

Layout:
  platform/base/          namespace-wide objects every app includes (a shared base)
  components/monitoring/  a Component (ServiceMonitor-like ConfigMap + annotation patch), used by prod
  apps/appN/base/         Deployment, Service, ConfigMap, HPA, ServiceAccount (+ ../../../platform/base? no:
                          the overlays include platform/base directly)
  apps/appN/overlays/ENV/ resources: ../../base + ../../../../platform/base-ENV? (see below);
                          namespace, namePrefix-free, images, replicas, a strategic-merge patch,
                          configMapGenerator and secretGenerator; prod adds the component.
  argocd/                 an ApplicationSet with a git directory generator over apps/*/overlays/*
                          when --argocd is given (else roots are found from the kustomizations).

Commit 1 is the tree; commit 2 changes it per --change:
  one-app  an image tag and a replica count in apps/app1 (base and prod overlay)
  shared   the shared platform base (every root is affected)
  none     only a README outside every root

--history N then adds N more commits, each a typical GitOps change picked
at random (seeded): mostly an image bump of one app in one environment,
else a replica count, a ConfigMap literal, a resource request, the shared
platform base, the monitoring component, or a new app. `HEAD~N..HEAD` is
then a wide range. --gc packs the objects, as a clone has them.
"""
import argparse, os, random, re, subprocess

ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("--apps", type=int, default=30)
ap.add_argument("--envs", default="dev,staging,prod")
ap.add_argument("--change", default="one-app", choices=["one-app", "shared", "none"])
ap.add_argument("--argocd", action="store_true")
ap.add_argument("--history", type=int, default=0)
ap.add_argument("--gc", action="store_true")
a = ap.parse_args()
OUT = a.out
ENVS = a.envs.split(",")


def w(path, text):
    p = os.path.join(OUT, path)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w") as f:
        f.write(text)


def git(*args):
    subprocess.run(["git", "-C", OUT, *args], check=True, stdout=subprocess.DEVNULL)


w("README.md", "GitOps monorepo (synthetic)\n")
w("platform/base/kustomization.yaml", "resources:\n- limits.yaml\n- netpol.yaml\n")
w("platform/base/limits.yaml", """apiVersion: v1
kind: LimitRange
metadata:
  name: defaults
spec:
  limits:
  - type: Container
    default:
      cpu: 500m
      memory: 256Mi
""")
w("platform/base/netpol.yaml", """apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: default-deny
spec:
  podSelector: {}
  policyTypes: [Ingress]
""")
w("components/monitoring/kustomization.yaml", """apiVersion: kustomize.config.k8s.io/v1alpha1
kind: Component
resources:
- monitor.yaml
patches:
- target:
    kind: Deployment
  patch: |-
    - op: add
      path: /metadata/annotations/prometheus.io~1scrape
      value: "true"
""")
w("components/monitoring/monitor.yaml", """apiVersion: v1
kind: ConfigMap
metadata:
  name: monitor
data:
  scrape: "30s"
""")
for i in range(1, a.apps + 1):
    app = f"app{i}"
    b = f"apps/{app}/base"
    w(f"{b}/kustomization.yaml", """resources:
- deployment.yaml
- service.yaml
- config.yaml
- hpa.yaml
- sa.yaml
labels:
- pairs:
    app.kubernetes.io/name: %s
  includeSelectors: true
""" % app)
    w(f"{b}/deployment.yaml", f"""apiVersion: apps/v1
kind: Deployment
metadata:
  name: {app}
spec:
  replicas: 1
  template:
    spec:
      serviceAccountName: {app}
      containers:
      - name: {app}
        image: registry.example.com/{app}:1.0.0
        ports:
        - containerPort: 8080
        envFrom:
        - configMapRef:
            name: {app}-config
        - secretRef:
            name: {app}-secret
""")
    w(f"{b}/service.yaml", f"""apiVersion: v1
kind: Service
metadata:
  name: {app}
spec:
  ports:
  - port: 80
    targetPort: 8080
""")
    w(f"{b}/config.yaml", f"""apiVersion: v1
kind: ConfigMap
metadata:
  name: {app}-static
data:
  LOG_LEVEL: info
""")
    w(f"{b}/hpa.yaml", f"""apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: {app}
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: {app}
  minReplicas: 1
  maxReplicas: 5
""")
    w(f"{b}/sa.yaml", f"""apiVersion: v1
kind: ServiceAccount
metadata:
  name: {app}
""")
    for env in ENVS:
        o = f"apps/{app}/overlays/{env}"
        comps = "components:\n- ../../../../components/monitoring\n" if env == "prod" else ""
        w(f"{o}/kustomization.yaml", f"""namespace: {app}-{env}
resources:
- ../../base
- ../../../../platform/base
{comps}images:
- name: registry.example.com/{app}
  newTag: 1.0.0-{env}
replicas:
- name: {app}
  count: {3 if env == 'prod' else 1}
patches:
- path: resources.yaml
configMapGenerator:
- name: {app}-config
  literals:
  - ENV={env}
  - FEATURE_X=false
secretGenerator:
- name: {app}-secret
  literals:
  - TOKEN={app}-{env}-token
""")
        w(f"{o}/resources.yaml", f"""apiVersion: apps/v1
kind: Deployment
metadata:
  name: {app}
spec:
  template:
    spec:
      containers:
      - name: {app}
        resources:
          requests:
            cpu: 100m
            memory: {128 if env != 'prod' else 256}Mi
""")
if a.argocd:
    w("argocd/apps.yaml", """apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: apps
spec:
  generators:
  - git:
      repoURL: https://git.example.com/monorepo.git
      revision: HEAD
      directories:
      - path: apps/*/overlays/*
  template:
    metadata:
      name: '{{path[1]}}-{{path.basename}}'
    spec:
      project: default
      source:
        repoURL: https://git.example.com/monorepo.git
        targetRevision: HEAD
        path: '{{path}}'
      destination:
        server: https://kubernetes.default.svc
""")

git("init", "-q", "-b", "main")
git("-c", "user.email=b@example.com", "-c", "user.name=bench", "add", "-A")
git("-c", "user.email=b@example.com", "-c", "user.name=bench", "commit", "-q", "-m", "tree")
if a.change == "one-app":
    p = os.path.join(OUT, "apps/app1/base/deployment.yaml")
    s = open(p).read().replace("replicas: 1", "replicas: 2")
    open(p, "w").write(s)
    p = os.path.join(OUT, "apps/app1/overlays/prod/kustomization.yaml")
    s = open(p).read().replace("newTag: 1.0.0-prod", "newTag: 1.1.0-prod")
    open(p, "w").write(s)
elif a.change == "shared":
    p = os.path.join(OUT, "platform/base/limits.yaml")
    s = open(p).read().replace("memory: 256Mi", "memory: 512Mi")
    open(p, "w").write(s)
else:
    w("README.md", "GitOps monorepo (synthetic), edited\n")
git("-c", "user.email=b@example.com", "-c", "user.name=bench", "commit", "-q", "-am", "change")


def edit(path, pattern, repl):
    p = os.path.join(OUT, path)
    s = open(p).read()
    open(p, "w").write(re.sub(pattern, repl, s, count=1))


rng = random.Random(7)
apps = a.apps
for n in range(a.history):
    app, env = f"app{rng.randint(1, apps)}", rng.choice(ENVS)
    o = f"apps/{app}/overlays/{env}"
    r = rng.random()
    if r < 0.6:
        edit(f"{o}/kustomization.yaml", r"newTag: \S+", f"newTag: 1.{n}.0-{env}")
        msg = f"{app} {env}: image 1.{n}.0"
    elif r < 0.7:
        edit(f"{o}/kustomization.yaml", r"count: \d+", f"count: {rng.randint(1, 6)}")
        msg = f"{app} {env}: replicas"
    elif r < 0.8:
        edit(f"{o}/kustomization.yaml", r"FEATURE_X=\w+", f"FEATURE_X={rng.choice(['true', 'false', 'beta'])}")
        msg = f"{app} {env}: feature flag"
    elif r < 0.88:
        edit(f"{o}/resources.yaml", r"cpu: \w+", f"cpu: {rng.choice([50, 100, 200, 250])}m")
        msg = f"{app} {env}: cpu request"
    elif r < 0.92:
        edit("platform/base/limits.yaml", r"cpu: \w+", f"cpu: {rng.choice([250, 500, 750, 1000])}m")
        msg = "platform: default cpu limit"
    elif r < 0.95:
        edit("components/monitoring/monitor.yaml", r'scrape: "\w+"', f'scrape: "{rng.choice([15, 30, 60])}s"')
        msg = "monitoring: scrape interval"
    else:
        apps += 1
        new = f"app{apps}"
        for root, _, files in os.walk(os.path.join(OUT, "apps/app1")):
            for f in files:
                src = os.path.join(root, f)
                rel = os.path.relpath(src, os.path.join(OUT, "apps/app1"))
                w(f"apps/{new}/{rel}", re.sub(r"\bapp1\b", new, open(src).read()))
        msg = f"add {new}"
    git("add", "-A")
    git("-c", "user.email=b@example.com", "-c", "user.name=bench", "commit", "-q", "--allow-empty", "-m", msg)
if a.gc:
    git("gc", "-q")
