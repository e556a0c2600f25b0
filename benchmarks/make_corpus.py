#!/usr/bin/env python3
"""Deterministic benchmark corpus generator for instancetype-upgrade (stdlib only).

Writes, under ``--out``:

* ``tree/``: a GitOps-style repository (default 10,000 files, about 75 MB). About 95% ordinary Kubernetes
  material (Deployments, Services, ConfigMaps with embedded config files, StatefulSets, heavily commented
  Helm values, kustomizations, app bundles, RBAC, ~100 KB CRDs with long synthesised descriptions, ...) and
  5% KubeVirt documents: v1alpha1/v1alpha2/v1beta1 instancetypes and preferences (cluster and namespaced,
  some multi-document), ControllerRevisions of every era (F1 base64 wrappers, whole v1alpha2 objects,
  unlabelled and labelled v1beta1, current F5) and ``kubevirt.io/v1`` VirtualMachines referencing them.
* ``big/cluster-export.yaml``: one ~20 MB multi-document stream shaped like ``kubectl get -o yaml``
  (sorted keys, managedFields, status): ~30% ControllerRevisions, 20% VMs, 10% instancetypes/preferences.
* ``velero-backup.tar.gz``: a Velero backup tarball (default 20,000 items) in Velero's directory layout.
* ``dense/``: issue 14's denser tree and 2 MB export (``make_dense``).
* ``embeds/crds/``, ``templates/``, ``vms/``: issue 30's parts (``make_embeds.py``): five CRDs of
  other groups embedding KubeVirt's VM fields (1.7 MB: v1.9.0's VM spec subtree alone is ~330 KB
  of YAML per file), 15 MB of OpenShift Template bundles (465 Templates), and
  520 VirtualMachine files with the schema check-jsonschema validates them against.
* ``corpus.json``: what was generated (counts, sizes, the pre-commit sample files, the digest).

Every template is the project's own; the only upstream material is KubeVirt's VirtualMachine schema in
the embeds and vms parts, read from the project's ``reference/crd-schemas.tar.xz``. The same arguments give a
byte-identical output; the sha256 digest of all generated files (``corpus.json`` excluded) is printed at
the end.
"""

from __future__ import annotations

import argparse
import base64
import gzip
import hashlib
import io
import json
import random
import re
import shutil
import sys
import tarfile
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

DEFAULT_SEED = 20250101
DEFAULT_FILES = 10_000
DEFAULT_BIG_MB = 20.0
DEFAULT_VELERO_ITEMS = 20_000
MARKER = "corpus.json"

Obj = dict[Any, Any]

# ----------------------------------------------------------------------------------------------------
# A small block-style YAML emitter (enough for the generated material; quotes conservatively).
# ----------------------------------------------------------------------------------------------------


class Comment:
    """A mapping key that is emitted as ``# text`` lines (its value is ignored)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


_PLAIN_RE = re.compile(r"[A-Za-z_./][A-Za-z0-9_ ./:=,()@+*$<>\[\]{}'\"-]*")
_QTY_RE = re.compile(r"[0-9]+(?:\.[0-9]+)?(?:Ki|Mi|Gi|Ti|m|s|ms|h|d)")
_RESERVED = frozenset(
    "y n yes no on off true false null ~ Y N Yes No On Off True False Null YES NO ON OFF TRUE FALSE NULL".split()
)


def scalar(v: Any) -> str:
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, int):
        return str(v)
    s = str(v)
    if _QTY_RE.fullmatch(s):
        return s
    if (
        _PLAIN_RE.fullmatch(s)
        and s not in _RESERVED
        and ": " not in s
        and " #" not in s
        and not s.endswith((" ", ":"))
        and s[0] not in "[]{}'\"*"
    ):
        return s
    return json.dumps(s)


def _block(s: str) -> tuple[str, list[str]] | None:
    if s.startswith((" ", "\n")) or s.endswith("\n\n"):
        return None
    lines = s.split("\n")
    if s.endswith("\n"):
        lines.pop()
        head = "|"
    else:
        head = "|-"
    if any(line.endswith((" ", "\t")) or "\t" in line for line in lines):
        return None
    return head, lines


def _emit_map(d: Obj, ind: int, out: list[str], seq_ind: bool) -> None:
    pad = " " * ind
    for k, v in d.items():
        if isinstance(k, Comment):
            out.extend(f"{pad}# {line}".rstrip() for line in k.text.split("\n"))
            continue
        key = scalar(k)
        if isinstance(v, dict) and v:
            out.append(f"{pad}{key}:")
            _emit_map(v, ind + 2, out, seq_ind)
        elif isinstance(v, list) and v:
            out.append(f"{pad}{key}:")
            _emit_seq(v, ind + 2 if seq_ind else ind, out, seq_ind)
        elif isinstance(v, str) and "\n" in v and (blk := _block(v)) is not None:
            out.append(f"{pad}{key}: {blk[0]}")
            inner = pad + "  "
            out.extend(inner + line if line else "" for line in blk[1])
        elif isinstance(v, dict):
            out.append(f"{pad}{key}: {{}}")
        elif isinstance(v, list):
            out.append(f"{pad}{key}: []")
        else:
            out.append(f"{pad}{key}: {scalar(v)}")


def _emit_seq(items: list[Any], ind: int, out: list[str], seq_ind: bool) -> None:
    pad = " " * ind
    for it in items:
        if isinstance(it, dict) and it:
            sub: list[str] = []
            _emit_map(it, ind + 2, sub, seq_ind)
            sub[0] = pad + "- " + sub[0][ind + 2 :]
            out.extend(sub)
        elif isinstance(it, dict):
            out.append(f"{pad}- {{}}")
        else:
            out.append(f"{pad}- {scalar(it)}")


def to_yaml(obj: Obj, seq_indent: bool = True) -> str:
    out: list[str] = []
    _emit_map(obj, 0, out, seq_indent)
    out.append("")
    return "\n".join(out)


def yaml_stream(docs: list[Obj], seq_indent: bool = True, header: str = "", leading_sep: bool = False) -> str:
    parts = [to_yaml(d, seq_indent) for d in docs]
    body = "---\n".join(parts)
    if leading_sep:
        body = "---\n" + body
    return header + body


def sort_keys(obj: Any) -> Any:
    """Recursively sort mapping keys (kubectl -o yaml and Go's json.Marshal of maps do this)."""
    if isinstance(obj, dict):
        return {k: sort_keys(obj[k]) for k in sorted(obj) if not isinstance(k, Comment)}
    if isinstance(obj, list):
        return [sort_keys(x) for x in obj]
    return obj


def strip_comments(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: strip_comments(v) for k, v in obj.items() if not isinstance(k, Comment)}
    if isinstance(obj, list):
        return [strip_comments(x) for x in obj]
    return obj


# ----------------------------------------------------------------------------------------------------
# Vocabulary and random helpers
# ----------------------------------------------------------------------------------------------------

WORDS = (
    "the a of to and is for in that this field specifies when if not be are by with as on an or it value "
    "resource object controller container pod node volume network cluster namespace label selector policy "
    "configuration default must should may will only used defines describes represents indicates allows "
    "required optional deprecated reference name kind version status condition replica template strategy "
    "update rolling limit request memory cpu storage class port protocol service endpoint ingress egress "
    "rule secret key certificate authority token account role binding scheduler affinity toleration taint "
    "priority preemption probe readiness liveness startup timeout period threshold failure success seconds "
    "minimum maximum number percentage string integer boolean list map array entry entries item items set "
    "empty null omitted specified unspecified populated system server client request response observed "
    "generation revision history annotation finalizer owner garbage collection propagation deletion grace "
    "phase reason message transition time last current desired available ready unavailable terminating "
    "image pull always never ifnotpresent command argument environment variable mount path read write "
    "access mode claim persistent provisioner reclaim retain recycle delete snapshot backup restore "
    "migration live eviction strategy firmware bootloader device disk interface bus virtio sata scsi "
    "machine type topology socket core thread hugepages page size dedicated placement isolation emulator "
    "guest host passthrough feature flag gate webhook admission mutating validating conversion schema"
).split()

TEAMS = (
    "payments search identity billing catalog checkout platform data ml observability security edge "
    "messaging storage networking frontend mobile analytics reporting infra"
).split()
APPS = (
    "api gateway worker scheduler indexer ingester exporter collector proxy cache broker auth ledger "
    "notifier renderer crawler sync importer backend web admin portal store queue stream"
).split()
ENVS = ("dev", "staging", "prod", "qa")
CLUSTERS = ("eu-west-1", "us-east-2", "ap-south-1", "onprem-a", "onprem-b")
IT_SERIES = ("u1", "cx1", "n1", "m1", "o1", "gn1", "rt1")
IT_SIZES = ("nano", "micro", "small", "medium", "large", "xlarge", "2xlarge", "4xlarge", "8xlarge")
PREF_NAMES = (
    "fedora",
    "rhel.8",
    "rhel.9",
    "centos.stream9",
    "ubuntu",
    "debian",
    "windows.10",
    "windows.11",
    "windows.2k22",
    "cirros",
    "alpine",
    "opensuse.leap",
    "sles",
    "oraclelinux",
)
IMAGES = (
    "registry.example.com/{team}/{app}:{ver}",
    "ghcr.io/example/{app}:{ver}",
    "quay.io/example-{team}/{app}:v{ver}",
)
EPOCH = 1_600_000_000


class Gen:
    """Random helpers bound to one seeded ``random.Random``."""

    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)
        r = self.r
        self.sentences = [" ".join(r.choices(WORDS, k=r.randint(6, 28))).capitalize() + "." for _ in range(3000)]

    def uid(self) -> str:
        return str(uuid.UUID(int=self.r.getrandbits(128), version=4))

    def ts(self) -> str:
        return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(EPOCH + self.r.randrange(150_000_000)))

    def rv(self) -> str:
        return str(self.r.randrange(1_000, 900_000_000))

    def text(self, lo: int, hi: int) -> str:
        return " ".join(self.r.choices(self.sentences, k=self.r.randint(lo, hi)))

    def ident(self, n: int = 2) -> str:
        return "-".join(self.r.choices(WORDS[60:], k=n))

    def b64(self, nbytes: int) -> str:
        return base64.b64encode(self.r.randbytes(nbytes)).decode()

    def chance(self, p: float) -> bool:
        return self.r.random() < p

    def pick(self, seq: Any) -> Any:
        return self.r.choice(seq)


# ----------------------------------------------------------------------------------------------------
# Ordinary Kubernetes templates
# ----------------------------------------------------------------------------------------------------


def _labels(g: Gen, team: str, app: str) -> Obj:
    lab: Obj = {
        "app.kubernetes.io/name": app,
        "app.kubernetes.io/part-of": team,
        "app.kubernetes.io/managed-by": g.pick(("argocd", "flux", "kustomize", "helm")),
    }
    if g.chance(0.5):
        lab["app.kubernetes.io/version"] = f"{g.r.randint(0, 9)}.{g.r.randint(0, 40)}.{g.r.randint(0, 9)}"
    if g.chance(0.3):
        lab["team"] = team
    return lab


def _container(g: Gen, team: str, app: str, comments: bool) -> Obj:
    r = g.r
    ver = f"{r.randint(0, 5)}.{r.randint(0, 30)}.{r.randint(0, 20)}"
    env = []
    for _ in range(r.randint(4, 30)):
        name = "_".join(g.ident(r.randint(1, 3)).split("-")).upper()
        if g.chance(0.2):
            env.append(
                {
                    "name": name,
                    "valueFrom": {"secretKeyRef": {"name": f"{app}-secrets", "key": name.lower()}},
                }
            )
        elif g.chance(0.1):
            env.append({"name": name, "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}}})
        else:
            env.append({"name": name, "value": g.pick((g.ident(), str(r.randint(1, 9999)), "true", ""))})
    c: Obj = {"name": app, "image": g.pick(IMAGES).format(team=team, app=app, ver=ver)}
    if comments:
        c[Comment("Pin the digest in production overlays.")] = None
    c["imagePullPolicy"] = g.pick(("IfNotPresent", "Always"))
    if g.chance(0.4):
        c["args"] = [f"--{g.ident()}={g.ident(1)}" for _ in range(r.randint(1, 6))]
    c["ports"] = [{"name": "http", "containerPort": g.pick((8080, 8000, 3000, 9090)), "protocol": "TCP"}]
    if g.chance(0.5):
        c["ports"].append({"name": "metrics", "containerPort": 9102, "protocol": "TCP"})
    c["env"] = env
    if comments and g.chance(0.5):
        c[Comment("Requests sized from the last load test; see the capacity dashboard.")] = None
    c["resources"] = {
        "requests": {
            "cpu": f"{r.choice((50, 100, 250, 500))}m",
            "memory": f"{r.choice((64, 128, 256, 512))}Mi",
        },
        "limits": {"cpu": f"{r.choice((1, 2, 4))}", "memory": f"{r.choice((256, 512, 1024, 2048))}Mi"},
    }
    probe = {"httpGet": {"path": "/healthz", "port": "http"}, "periodSeconds": 10, "failureThreshold": 3}
    c["livenessProbe"] = dict(probe, initialDelaySeconds=r.randint(5, 60))
    c["readinessProbe"] = {"httpGet": {"path": "/ready", "port": "http"}, "periodSeconds": 5}
    c["volumeMounts"] = [{"name": "config", "mountPath": f"/etc/{app}", "readOnly": True}]
    if g.chance(0.3):
        c["securityContext"] = {
            "runAsNonRoot": True,
            "readOnlyRootFilesystem": True,
            "allowPrivilegeEscalation": False,
            "capabilities": {"drop": ["ALL"]},
        }
    return c


def deployment(g: Gen, team: str, app: str, ns: str, comments: bool = True, kind: str = "Deployment") -> Obj:
    r = g.r
    lab = _labels(g, team, app)
    containers = [_container(g, team, app, comments)]
    if g.chance(0.3):
        containers.append(_container(g, team, f"{app}-sidecar", comments))
    obj: Obj = {}
    if comments:
        obj[Comment(f"{kind} for {team}/{app}. Owned by team {team}; changes need review.")] = None
    obj["apiVersion"] = "apps/v1"
    obj["kind"] = kind
    obj["metadata"] = {"name": app, "namespace": ns, "labels": lab}
    if g.chance(0.4):
        obj["metadata"]["annotations"] = {
            "reloader.stakater.com/auto": "true",
            "example.com/owner": f"{team}@example.com",
        }
    spec: Obj = {"replicas": r.randint(1, 12)}
    if comments and g.chance(0.5):
        spec = {Comment("Scaled by the HPA in prod; this is the floor."): None, **spec}
    if kind == "StatefulSet":
        spec["serviceName"] = f"{app}-headless"
    spec["selector"] = {"matchLabels": {"app.kubernetes.io/name": app}}
    spec["template"] = {
        "metadata": {"labels": {"app.kubernetes.io/name": app, "app.kubernetes.io/part-of": team}},
        "spec": {
            "serviceAccountName": app,
            "containers": containers,
            "volumes": [{"name": "config", "configMap": {"name": f"{app}-config"}}],
        },
    }
    if g.chance(0.3):
        spec["template"]["spec"]["affinity"] = {
            "podAntiAffinity": {
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {
                        "weight": 100,
                        "podAffinityTerm": {
                            "topologyKey": "kubernetes.io/hostname",
                            "labelSelector": {"matchLabels": {"app.kubernetes.io/name": app}},
                        },
                    }
                ]
            }
        }
    if g.chance(0.3):
        spec["template"]["spec"]["tolerations"] = [
            {"key": "dedicated", "operator": "Equal", "value": team, "effect": "NoSchedule"}
        ]
    if kind == "StatefulSet":
        spec["volumeClaimTemplates"] = [
            {
                "metadata": {"name": "data"},
                "spec": {
                    "accessModes": ["ReadWriteOnce"],
                    "storageClassName": g.pick(("fast-ssd", "standard", "ceph-rbd")),
                    "resources": {"requests": {"storage": f"{r.choice((1, 5, 10, 50, 100))}Gi"}},
                },
            }
        ]
    else:
        spec["strategy"] = {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}}
    obj["spec"] = spec
    return obj


def service(g: Gen, team: str, app: str, ns: str, comments: bool = True) -> Obj:
    obj: Obj = {}
    if comments and g.chance(0.5):
        obj[Comment("ClusterIP service; exposed through the shared ingress.")] = None
    obj.update(
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {"name": app, "namespace": ns, "labels": _labels(g, team, app)},
            "spec": {
                "type": g.pick(("ClusterIP", "ClusterIP", "LoadBalancer", "NodePort")),
                "selector": {"app.kubernetes.io/name": app},
                "ports": [{"name": "http", "port": 80, "targetPort": "http", "protocol": "TCP"}],
            },
        }
    )
    if g.chance(0.4):
        obj["spec"]["ports"].append({"name": "metrics", "port": 9102, "targetPort": "metrics"})
    return obj


def _config_file(g: Gen, app: str) -> tuple[str, str]:
    r = g.r
    kind = r.randrange(5)
    if kind == 0:
        lines = ["worker_processes auto;", "events { worker_connections 1024; }", "http {"]
        for i in range(r.randint(3, 30)):
            lines += [
                f"  upstream {app}_{i} {{ server {app}-{i}.svc:8080; }}",
                f"  server {{ listen {8000 + i}; location /{g.ident(1)} {{ proxy_pass http://{app}_{i}; }} }}",
            ]
        lines.append("}")
        return "nginx.conf", "\n".join(lines) + "\n"
    if kind == 1:
        lines = [f"# {g.text(1, 2)}"]
        for _ in range(r.randint(10, 120)):
            lines.append(f"{g.ident(3).replace('-', '.')}={g.pick((g.ident(1), str(r.randint(0, 5000)), 'true'))}")
        return "application.properties", "\n".join(lines) + "\n"
    if kind == 2:
        inner: Obj = {
            Comment("Embedded application config (YAML inside YAML)."): None,
            "server": {"port": 8080, "readTimeout": "30s"},
        }
        for _ in range(r.randint(3, 20)):
            inner[g.ident(1)] = {g.ident(1): g.ident(1) for _ in range(r.randint(1, 8))}
        return "config.yaml", to_yaml(inner)
    if kind == 3:
        data = {g.ident(1): {g.ident(1): r.randint(0, 999) for _ in range(r.randint(2, 10))} for _ in range(20)}
        return "settings.json", json.dumps(data, indent=2) + "\n"
    lines = ["[global]", f"log_level = {g.pick(('info', 'debug', 'warn'))}"]
    for _ in range(r.randint(3, 25)):
        lines.append(f"\n[{g.ident(1)}]")
        lines += [f"{g.ident(1)} = {r.randint(0, 100)}" for _ in range(r.randint(2, 8))]
    return "app.ini", "\n".join(lines) + "\n"


def configmap(g: Gen, team: str, app: str, ns: str, comments: bool = True) -> Obj:
    data: Obj = {}
    for _ in range(g.r.randint(1, 4)):
        fname, body = _config_file(g, app)
        data[fname] = body
    for _ in range(g.r.randint(0, 8)):
        data[g.ident(2).upper().replace("-", "_")] = g.ident(1)
    obj: Obj = {}
    if comments:
        obj[Comment(f"Configuration for {app}.\n{g.text(1, 3)}")] = None
    obj.update(
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": f"{app}-config", "namespace": ns, "labels": _labels(g, team, app)},
            "data": data,
        }
    )
    return obj


def _helm_tree(g: Gen, depth: int, budget: list[int]) -> Obj:
    r = g.r
    out: Obj = {}
    for _ in range(r.randint(2, 7 if depth else 12)):
        if budget[0] <= 0:
            break
        key = g.ident(1) + g.pick(("", "Enabled", "Config", "Size", "Annotations"))
        if key in out:
            continue
        budget[0] -= 1
        out[Comment(f"-- {g.text(1, 3)}\n@default -- see below")] = None
        if depth < 3 and g.chance(0.45):
            out[key] = _helm_tree(g, depth + 1, budget)
        elif g.chance(0.15):
            out[key] = [g.ident(1) for _ in range(r.randint(1, 4))]
        else:
            out[key] = g.pick((True, False, r.randint(0, 65535), g.ident(1), "", None))
    return out


def helm_values(g: Gen, team: str, app: str) -> str:
    r = g.r
    header = (
        f"## Default values for {app}.\n## This is a YAML-formatted file.\n"
        "## Declare variables to be passed into your templates.\n##\n"
    )
    obj: Obj = {
        Comment("@param replicaCount Number of replicas"): None,
        "replicaCount": r.randint(1, 5),
        Comment("Image settings"): None,
        "image": {
            "repository": f"registry.example.com/{team}/{app}",
            Comment("Overrides the image tag whose default is the chart appVersion."): None,
            "tag": "",
            "pullPolicy": "IfNotPresent",
        },
    }
    budget = [int(r.lognormvariate(4.0, 0.6))]  # number of keys, median ~55
    while budget[0] > 0:
        key = g.ident(1)
        obj[Comment(f"@section {key}\n{g.text(2, 5)}")] = None
        obj[key] = _helm_tree(g, 0, budget)
    return header + to_yaml(obj)


def kustomization(g: Gen, team: str, app: str, ns: str) -> Obj:
    r = g.r
    obj: Obj = {
        "apiVersion": "kustomize.config.k8s.io/v1beta1",
        "kind": "Kustomization",
        "namespace": ns,
        Comment("Base resources; overlays patch replicas and images."): None,
        "resources": [f"{g.ident(1)}.yaml" for _ in range(r.randint(2, 12))],
        "commonLabels": {"app.kubernetes.io/part-of": team},
        "images": [{"name": app, "newName": f"registry.example.com/{team}/{app}", "newTag": f"{r.randint(1, 99)}"}],
    }
    if g.chance(0.5):
        obj["patches"] = [
            {"path": f"patches/{g.ident(1)}.yaml", "target": {"kind": "Deployment", "name": app}}
            for _ in range(r.randint(1, 4))
        ]
    if g.chance(0.4):
        obj["configMapGenerator"] = [
            {
                "name": f"{app}-env",
                "literals": [f"{g.ident(1).upper()}={g.ident(1)}" for _ in range(r.randint(1, 8))],
            }
        ]
    return obj


def ingress(g: Gen, team: str, app: str, ns: str) -> Obj:
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": {
            "name": app,
            "namespace": ns,
            "annotations": {
                "cert-manager.io/cluster-issuer": "letsencrypt",
                "nginx.ingress.kubernetes.io/proxy-body-size": "16m",
            },
        },
        "spec": {
            "ingressClassName": "nginx",
            "tls": [{"hosts": [f"{app}.{team}.example.com"], "secretName": f"{app}-tls"}],
            "rules": [
                {
                    "host": f"{app}.{team}.example.com",
                    "http": {
                        "paths": [
                            {
                                "path": "/",
                                "pathType": "Prefix",
                                "backend": {"service": {"name": app, "port": {"name": "http"}}},
                            }
                        ]
                    },
                }
            ],
        },
    }


def hpa(g: Gen, app: str, ns: str) -> Obj:
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": app, "namespace": ns},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": app},
            "minReplicas": g.r.randint(1, 3),
            "maxReplicas": g.r.randint(4, 40),
            "metrics": [
                {
                    "type": "Resource",
                    "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 70}},
                }
            ],
        },
    }


def rbac(g: Gen, team: str, app: str, ns: str) -> list[Obj]:
    rules = [
        {
            "apiGroups": [g.pick(("", "apps", "batch", "networking.k8s.io"))],
            "resources": [g.pick(("pods", "configmaps", "secrets", "deployments", "jobs", "services"))],
            "verbs": ["get", "list", "watch"],
        }
        for _ in range(g.r.randint(1, 8))
    ]
    return [
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": app, "namespace": ns}},
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "Role",
            "metadata": {"name": app, "namespace": ns},
            "rules": rules,
        },
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "RoleBinding",
            "metadata": {"name": app, "namespace": ns},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": app},
            "subjects": [{"kind": "ServiceAccount", "name": app, "namespace": ns}],
        },
    ]


def cronjob(g: Gen, team: str, app: str, ns: str) -> Obj:
    c = _container(g, team, app, False)
    c.pop("livenessProbe")
    c.pop("readinessProbe")
    return {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": f"{app}-{g.ident(1)}", "namespace": ns},
        "spec": {
            "schedule": f"{g.r.randint(0, 59)} {g.r.randint(0, 23)} * * *",
            "concurrencyPolicy": "Forbid",
            "jobTemplate": {"spec": {"template": {"spec": {"restartPolicy": "OnFailure", "containers": [c]}}}},
        },
    }


def network_policy(g: Gen, app: str, ns: str) -> Obj:
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": f"{app}-allow", "namespace": ns},
        "spec": {
            "podSelector": {"matchLabels": {"app.kubernetes.io/name": app}},
            "policyTypes": ["Ingress", "Egress"],
            "ingress": [
                {"from": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": g.pick(TEAMS)}}}]}
            ],
            "egress": [{"to": [{"ipBlock": {"cidr": f"10.{g.r.randint(0, 255)}.0.0/16"}}]}],
        },
    }


def prometheus_rule(g: Gen, app: str, ns: str) -> Obj:
    rules = []
    for _ in range(g.r.randint(2, 15)):
        rules.append(
            {
                "alert": g.ident(2).title().replace("-", ""),
                "expr": f'sum(rate(http_requests_total{{job="{app}",code=~"5.."}}[5m])) / '
                f'sum(rate(http_requests_total{{job="{app}"}}[5m])) > 0.0{g.r.randint(1, 9)}',
                "for": f"{g.r.randint(1, 30)}m",
                "labels": {"severity": g.pick(("warning", "critical"))},
                "annotations": {"summary": g.text(1, 1), "description": g.text(1, 4)},
            }
        )
    return {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "PrometheusRule",
        "metadata": {"name": f"{app}-rules", "namespace": ns},
        "spec": {"groups": [{"name": app, "rules": rules}]},
    }


def argo_app(g: Gen, team: str, app: str, env: str) -> Obj:
    return {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Application",
        "metadata": {"name": f"{app}-{env}", "namespace": "argocd"},
        "spec": {
            "project": team,
            "source": {
                "repoURL": "https://git.example.com/gitops.git",
                "path": f"apps/{team}/{app}/overlays/{env}",
                "targetRevision": "main",
            },
            "destination": {"server": "https://kubernetes.default.svc", "namespace": f"{team}-{env}"},
            "syncPolicy": {
                "automated": {"prune": True, "selfHeal": True},
                "syncOptions": ["CreateNamespace=true"],
            },
        },
    }


def sealed_secret(g: Gen, app: str, ns: str) -> Obj:
    return {
        "apiVersion": "bitnami.com/v1alpha1",
        "kind": "SealedSecret",
        "metadata": {"name": f"{app}-secrets", "namespace": ns},
        "spec": {"encryptedData": {g.ident(1): g.b64(g.r.randint(200, 700)) for _ in range(g.r.randint(1, 8))}},
    }


def _schema_props(g: Gen, budget: list[int], depth: int) -> Obj:
    r = g.r
    props: Obj = {}
    while budget[0] > 0:
        name = g.ident(1) + g.pick(("", "Ref", "Spec", "Policy", "Config", "Name", "s"))
        if name in props:
            name += str(r.randint(0, 99))
        desc = g.text(1, 8)
        budget[0] -= len(desc) + 60
        if depth < 5 and budget[0] > 2_000 and g.chance(0.3):
            sub = [min(budget[0] // 2, r.randint(2_000, 20_000))]
            budget[0] -= sub[0]
            props[name] = {
                "description": desc,
                "type": "object",
                "properties": _schema_props(g, sub, depth + 1),
            }
        elif g.chance(0.15):
            props[name] = {
                "description": desc,
                "type": "array",
                "items": {"type": g.pick(("string", "integer"))},
            }
        else:
            t = g.pick(("string", "string", "integer", "boolean"))
            p: Obj = {"description": desc, "type": t}
            if t == "integer":
                p["format"] = "int32"
            props[name] = p
        if depth > 1 and len(props) > 25:
            break
    return props


def crd(g: Gen, target_bytes: int, group: str | None = None, kind: str | None = None) -> Obj:
    kind = kind or g.ident(2).title().replace("-", "")
    group = group or f"{g.ident(1)}.{g.pick(('example.com', 'example.io', 'corp.internal'))}"
    plural = kind.lower() + "s"
    schema = {
        "description": f"{kind} is the Schema for the {plural} API. {g.text(1, 3)}",
        "type": "object",
        "properties": {
            "apiVersion": {
                "description": "APIVersion defines the versioned schema of this representation of an object.",
                "type": "string",
            },
            "kind": {
                "description": "Kind is a string value representing the REST resource of this object.",
                "type": "string",
            },
            "metadata": {"type": "object"},
            "spec": {
                "description": g.text(1, 4),
                "type": "object",
                "properties": _schema_props(g, [int(target_bytes * 0.75)], 1),
            },
            "status": {
                "description": g.text(1, 3),
                "type": "object",
                "properties": _schema_props(g, [int(target_bytes * 0.2)], 1),
            },
        },
    }
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {
            "name": f"{plural}.{group}",
            "annotations": {"controller-gen.kubebuilder.io/version": "v0.16.1"},
        },
        "spec": {
            "group": group,
            "names": {"kind": kind, "listKind": f"{kind}List", "plural": plural, "singular": kind.lower()},
            "scope": g.pick(("Namespaced", "Cluster")),
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {"openAPIV3Schema": schema},
                    "subresources": {"status": {}},
                }
            ],
        },
    }


# ----------------------------------------------------------------------------------------------------
# KubeVirt templates
# ----------------------------------------------------------------------------------------------------

IT = "instancetype.kubevirt.io"
KINDS = {
    ("instancetype", True): "VirtualMachineClusterInstancetype",
    ("instancetype", False): "VirtualMachineInstancetype",
    ("preference", True): "VirtualMachineClusterPreference",
    ("preference", False): "VirtualMachinePreference",
}
ALPHA_TOPO = ("preferSockets", "preferCores", "preferThreads", "preferSpread")
BETA_TOPO = ("sockets", "cores", "threads", "spread", "any")


def it_spec(g: Gen, version: str) -> Obj:
    r = g.r
    cpu: Obj = {"guest": r.choice((1, 2, 4, 8, 16, 32))}
    if g.chance(0.2):
        cpu["dedicatedCPUPlacement"] = True
    if g.chance(0.15):
        cpu["model"] = g.pick(("host-passthrough", "Haswell-noTSX", "Skylake-Server"))
    mem: Obj = {"guest": f"{r.choice((512, 1, 2, 4, 8, 16, 32, 64))}{'Mi' if r.random() < 0.1 else 'Gi'}"}
    if g.chance(0.2):
        mem["hugepages"] = {"pageSize": g.pick(("2Mi", "1Gi"))}
    if version == "v1beta1" and "hugepages" not in mem and g.chance(0.2):  # KubeVirt rejects both together
        mem["overcommitPercent"] = r.choice((10, 25, 50))
    spec: Obj = {"cpu": cpu, "memory": mem}
    if g.chance(0.2):
        spec["ioThreadsPolicy"] = g.pick(("shared", "auto"))
    if g.chance(0.08):
        spec["gpus"] = [{"name": "gpu1", "deviceName": "nvidia.com/GA102GL_A10"}]
    return spec


def pref_spec(g: Gen, version: str) -> Obj:
    r = g.r
    beta = version == "v1beta1"
    spec: Obj = {
        "cpu": {"preferredCPUTopology": g.pick(BETA_TOPO if beta else ALPHA_TOPO)},
        "devices": {
            "preferredDiskBus": g.pick(("virtio", "sata", "scsi")),
            "preferredInterfaceModel": g.pick(("virtio", "e1000e")),
        },
    }
    if g.chance(0.5):
        spec["devices"]["preferredRng"] = {}
    if g.chance(0.4):
        spec["firmware"] = {"preferredUseEfi": True, "preferredUseSecureBoot": g.chance(0.5)}
    if g.chance(0.3):
        spec["features"] = {"preferredSmm": {}}
    if g.chance(0.3):
        spec["machine"] = {"preferredMachineType": "q35"}
    if beta and g.chance(0.5):
        spec["requirements"] = {
            "cpu": {"guest": r.choice((1, 2))},
            "memory": {"guest": g.pick(("512Mi", "1Gi", "2Gi"))},
        }
    if beta and g.chance(0.3):
        spec["preferredTerminationGracePeriodSeconds"] = 180
    return spec


def it_object(g: Gen, what: str, version: str, cluster: bool, name: str, ns: str, comments: bool) -> Obj:
    obj: Obj = {}
    if comments and g.chance(0.6):
        obj[Comment(f"{KINDS[what, cluster]} {name} ({version}). {g.text(1, 1)}")] = None
    obj["apiVersion"] = f"{IT}/{version}"
    obj["kind"] = KINDS[what, cluster]
    md: Obj = {"name": name}
    if not cluster:
        md["namespace"] = ns
    if g.chance(0.6):
        md["labels"] = {
            f"{IT}/vendor": "example.org",
            f"{IT}/{'class' if what == 'instancetype' else 'os-type'}": g.ident(1),
        }
    if g.chance(0.5):
        md["annotations"] = {f"{IT}/description": g.text(1, 2), f"{IT}/displayName": name.upper()}
    obj["metadata"] = md
    obj["spec"] = it_spec(g, version) if what == "instancetype" else pref_spec(g, version)
    return obj


class Ident:
    """A VM and the instancetype/preference it references (shared by CR and VM files)."""

    def __init__(self, g: Gen, i: int, ns_spread: int = 0) -> None:
        self.vm = f"{g.ident(1)}-vm-{i}"
        self.ns = f"{g.pick(TEAMS)}-{g.pick(ENVS)}"
        self.vm_uid = g.uid()
        self.it_name = f"{g.pick(IT_SERIES)}.{g.pick(IT_SIZES)}"
        self.it_cluster = g.chance(0.7)
        self.it_uid = g.uid()
        self.pref_name = g.pick(PREF_NAMES)
        self.pref_cluster = g.chance(0.7)
        self.pref_uid = g.uid()
        self.gen = g.r.randint(1, 4)
        # era of the ControllerRevision: F1 (""), F1 (v1alpha1), F2, F3, F4, F5
        self.era = g.pick(("F1", "F1a", "F2", "F2", "F3", "F4", "F5", "F5", "F5"))
        if ns_spread:  # many namespaces (drawn last: the default corpus stays byte-identical)
            self.ns = f"{self.ns}-{g.r.randrange(ns_spread):02d}"

    def cr_name(self, what: str) -> str:
        name, uid = (self.it_name, self.it_uid) if what == "instancetype" else (self.pref_name, self.pref_uid)
        if self.era == "F5":
            return f"{self.vm}-{name}-v1beta1-{uid}-{self.gen}"
        return f"{self.vm}-{name}-{uid}-{self.gen}"


def _go_json(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"))


def controller_revision(g: Gen, ident: Ident, what: str, export: bool) -> Obj:
    era = ident.era
    cluster = ident.it_cluster if what == "instancetype" else ident.pref_cluster
    name = ident.it_name if what == "instancetype" else ident.pref_name
    uid = ident.it_uid if what == "instancetype" else ident.pref_uid
    kind = KINDS[what, cluster]
    data: Obj
    if era in ("F1", "F1a"):
        spec = it_spec(g, "v1alpha1") if what == "instancetype" else pref_spec(g, "v1alpha1")
        data = {
            "apiVersion": "" if era == "F1" else f"{IT}/v1alpha1",
            "spec": base64.b64encode(_go_json(spec).encode()).decode(),
        }
    else:
        version = "v1alpha2" if era == "F2" else "v1beta1"
        md: Obj = {"creationTimestamp": g.ts(), "generation": ident.gen, "name": name}
        if not cluster:
            md["namespace"] = ident.ns
        md["resourceVersion"] = g.rv()
        md["uid"] = uid
        data = {
            "apiVersion": f"{IT}/{version}",
            "kind": kind,
            "metadata": md,
            "spec": it_spec(g, version) if what == "instancetype" else pref_spec(g, version),
        }
    meta: Obj = {"name": ident.cr_name(what), "namespace": ident.ns}
    if era in ("F4", "F5"):
        meta["labels"] = {
            f"{IT}/object-generation": str(ident.gen),
            f"{IT}/object-kind": kind,
            f"{IT}/object-name": name,
            f"{IT}/object-uid": uid,
            f"{IT}/object-version": "v1beta1",
        }
    meta["ownerReferences"] = [
        {
            "apiVersion": "kubevirt.io/v1",
            "blockOwnerDeletion": True,
            "controller": True,
            "kind": "VirtualMachine",
            "name": ident.vm,
            "uid": ident.vm_uid,
        }
    ]
    obj: Obj = {
        "apiVersion": "apps/v1",
        "data": data,
        "kind": "ControllerRevision",
        "metadata": meta,
        "revision": 0,
    }
    if export:
        _exportify(g, obj)
    return obj


def virtual_machine(g: Gen, ident: Ident, export: bool, comments: bool) -> Obj:
    r = g.r
    it_ref: Obj = {"name": ident.it_name}
    pref_ref: Obj = {"name": ident.pref_name}
    if not ident.it_cluster:
        it_ref["kind"] = "VirtualMachineInstancetype"
    elif g.chance(0.5):
        it_ref["kind"] = "VirtualMachineClusterInstancetype"
    if not ident.pref_cluster:
        pref_ref["kind"] = "VirtualMachinePreference"
    elif g.chance(0.5):
        pref_ref["kind"] = "VirtualMachineClusterPreference"
    exported_old = ident.era != "F5" and (export or g.chance(0.5))
    if exported_old:
        it_ref["revisionName"] = ident.cr_name("instancetype")
        pref_ref["revisionName"] = ident.cr_name("preference")
    disk = "rootdisk"
    volumes: list[Obj] = [
        {"name": disk, "dataVolume": {"name": f"{ident.vm}-root"}}
        if g.chance(0.5)
        else {
            "name": disk,
            "containerDisk": {"image": f"quay.io/containerdisks/{ident.pref_name.split('.')[0]}:latest"},
        },
        {
            "name": "cloudinit",
            "cloudInitNoCloud": {
                "userData": "#cloud-config\nuser: cloud-user\nssh_authorized_keys:\n"
                + "".join(f"  - ssh-ed25519 {g.b64(48)} {g.ident(1)}@example.com\n" for _ in range(r.randint(1, 3)))
                + "packages:\n"
                + "".join(f"  - {g.ident(1)}\n" for _ in range(r.randint(0, 6)))
            },
        },
    ]
    spec: Obj = {}
    if comments:
        spec[Comment("Sizing comes from the instancetype; do not set domain.cpu/memory here.")] = None
    spec["instancetype"] = it_ref
    spec["preference"] = pref_ref
    spec["runStrategy"] = g.pick(("Always", "Halted", "RerunOnFailure"))
    if volumes[0].get("dataVolume"):
        spec["dataVolumeTemplates"] = [
            {
                "metadata": {"name": f"{ident.vm}-root"},
                "spec": {
                    "sourceRef": {
                        "kind": "DataSource",
                        "name": ident.pref_name.split(".")[0],
                        "namespace": "kubevirt-os-images",
                    },
                    "storage": {"resources": {"requests": {"storage": f"{r.choice((20, 30, 50, 100))}Gi"}}},
                },
            }
        ]
    spec["template"] = {
        "metadata": {"labels": {"kubevirt.io/domain": ident.vm, "app": ident.vm.split("-")[0]}},
        "spec": {
            "domain": {
                "devices": {
                    "disks": [{"name": disk}, {"name": "cloudinit"}],
                    "interfaces": [{"name": "default", "masquerade": {}}],
                }
            },
            "networks": [{"name": "default", "pod": {}}],
            "volumes": volumes,
        },
    }
    obj: Obj = {
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachine",
        "metadata": {"name": ident.vm, "namespace": ident.ns, "labels": {"app": ident.vm.split("-")[0]}},
        "spec": spec,
    }
    if export or ident.era == "F5":
        status: Obj = {
            "conditions": [
                {"type": "Ready", "status": "True", "lastProbeTime": None, "lastTransitionTime": g.ts()},
                {
                    "type": "LiveMigratable",
                    "status": "True",
                    "lastProbeTime": None,
                    "lastTransitionTime": g.ts(),
                },
            ],
            "created": True,
            "desiredGeneration": ident.gen,
            "observedGeneration": ident.gen,
            "printableStatus": "Running",
            "ready": True,
            "runStrategy": spec["runStrategy"],
        }
        if ident.era == "F5" or g.chance(0.5):
            status["instancetypeRef"] = {
                "name": ident.it_name,
                "kind": KINDS["instancetype", ident.it_cluster],
                "controllerRevisionRef": {"name": ident.cr_name("instancetype")},
            }
            status["preferenceRef"] = {
                "name": ident.pref_name,
                "kind": KINDS["preference", ident.pref_cluster],
                "controllerRevisionRef": {"name": ident.cr_name("preference")},
            }
        obj["status"] = status
    if export:
        _exportify(g, obj)
    return obj


# ----------------------------------------------------------------------------------------------------
# Export shaping (kubectl get -o yaml)
# ----------------------------------------------------------------------------------------------------


def _fields(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {f"f:{k}": _fields(v) for k, v in obj.items() if not isinstance(k, Comment)}
    if isinstance(obj, list) and obj and isinstance(obj[0], dict) and "name" in obj[0]:
        return {f'k:{{"name":"{it.get("name")}"}}': _fields(it) for it in obj if isinstance(it, dict)}
    return {}


def _exportify(g: Gen, obj: Obj) -> None:
    md = obj["metadata"]
    md.setdefault("creationTimestamp", g.ts())
    if obj["kind"] not in ("ConfigMap", "Service", "ControllerRevision", "Secret"):
        md.setdefault("generation", g.r.randint(1, 30))
    md["resourceVersion"] = g.rv()
    md["uid"] = g.uid()
    body = {k: v for k, v in obj.items() if k not in ("apiVersion", "kind", "metadata", "status")}
    mf: list[Obj] = [
        {
            "apiVersion": obj["apiVersion"],
            "fieldsType": "FieldsV1",
            "fieldsV1": _fields(body),
            "manager": g.pick(
                (
                    "kubectl-client-side-apply",
                    "argocd-controller",
                    "virt-controller",
                    "kube-controller-manager",
                )
            ),
            "operation": "Update",
            "time": g.ts(),
        }
    ]
    if "status" in obj:
        mf.append(
            {
                "apiVersion": obj["apiVersion"],
                "fieldsType": "FieldsV1",
                "fieldsV1": {"f:status": _fields(obj["status"])},
                "manager": "virt-controller" if "kubevirt" in obj["apiVersion"] else "kube-controller-manager",
                "operation": "Update",
                "subresource": "status",
                "time": g.ts(),
            }
        )
    md["managedFields"] = mf
    if g.chance(0.25):
        md.setdefault("annotations", {})["kubectl.kubernetes.io/last-applied-configuration"] = (
            _go_json(sort_keys(strip_comments(body))) + "\n"
        )


def _deployment_status(g: Gen, obj: Obj) -> None:
    n = obj["spec"].get("replicas", 1)
    obj["status"] = {
        "availableReplicas": n,
        "conditions": [
            {
                "type": "Available",
                "status": "True",
                "reason": "MinimumReplicasAvailable",
                "message": "Deployment has minimum availability.",
                "lastTransitionTime": g.ts(),
                "lastUpdateTime": g.ts(),
            },
            {
                "type": "Progressing",
                "status": "True",
                "reason": "NewReplicaSetAvailable",
                "message": f'ReplicaSet "{obj["metadata"]["name"]}-{g.b64(6)[:10].lower()}" '
                "has successfully progressed.",
                "lastTransitionTime": g.ts(),
                "lastUpdateTime": g.ts(),
            },
        ],
        "observedGeneration": g.r.randint(1, 30),
        "readyReplicas": n,
        "replicas": n,
        "updatedReplicas": n,
    }


def ordinary_export(g: Gen, k: int | None = None) -> Obj:
    team, app = g.pick(TEAMS), g.pick(APPS)
    ns = f"{team}-{g.pick(ENVS)}"
    if k is None:
        k = g.r.randrange(10)
    if k < 4:
        obj = deployment(g, team, app, ns, comments=False, kind="StatefulSet" if k == 0 else "Deployment")
        _deployment_status(g, obj)
    elif k < 6:
        obj = configmap(g, team, app, ns, comments=False)
    elif k < 8:
        obj = service(g, team, app, ns, comments=False)
        obj["spec"]["clusterIP"] = f"10.96.{g.r.randint(0, 255)}.{g.r.randint(1, 254)}"
        obj["status"] = {"loadBalancer": {}}
    elif k == 8:
        obj = {
            "apiVersion": "apps/v1",
            "kind": "ControllerRevision",
            "metadata": {"name": f"{app}-{g.b64(6)[:10].lower()}", "namespace": ns},
            "data": {
                "spec": {"template": strip_comments(deployment(g, team, app, ns, comments=False))["spec"]["template"]}
            },
            "revision": g.r.randint(1, 20),
        }
    else:
        obj = {
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {"name": f"{app}-secrets", "namespace": ns},
            "type": "Opaque",
            "data": {g.ident(1): g.b64(g.r.randint(16, 400)) for _ in range(g.r.randint(1, 6))},
        }
    _exportify(g, obj)
    return obj


def kubevirt_export(g: Gen, kind: str, ident: Ident) -> Obj:
    if kind == "cr":
        return controller_revision(g, ident, g.pick(("instancetype", "preference")), export=True)
    if kind == "vm":
        return virtual_machine(g, ident, export=True, comments=False)
    what = g.pick(("instancetype", "preference"))
    cluster = g.chance(0.5)
    name = ident.it_name if what == "instancetype" else ident.pref_name
    obj = it_object(g, what, g.pick(("v1alpha1", "v1alpha2", "v1beta1", "v1beta1")), cluster, name, ident.ns, False)
    _exportify(g, obj)
    return obj


# ----------------------------------------------------------------------------------------------------
# Output
# ----------------------------------------------------------------------------------------------------


class Writer:
    def __init__(self, out: Path) -> None:
        self.out = out
        self.digests: dict[str, str] = {}
        self.bytes = 0
        self.made_dirs: set[Path] = set()

    def write(self, rel: str, data: bytes) -> None:
        p = self.out / rel
        if p.parent not in self.made_dirs:
            p.parent.mkdir(parents=True, exist_ok=True)
            self.made_dirs.add(p.parent)
        p.write_bytes(data)
        self.digests[rel] = hashlib.sha256(data).hexdigest()
        self.bytes += len(data)

    def digest(self) -> str:
        h = hashlib.sha256()
        for rel in sorted(self.digests):
            h.update(f"{rel}\0{self.digests[rel]}\n".encode())
        return h.hexdigest()


def _weighted(g: Gen, table: list[tuple[str, int]], n: int) -> list[str]:
    total = sum(w for _, w in table)
    counts = [(k, n * w // total) for k, w in table]
    rest = n - sum(c for _, c in counts)
    out = [k for k, c in counts for _ in range(c)] + [table[0][0]] * rest
    g.r.shuffle(out)
    return out


ORDINARY = [
    ("deployment", 20),
    ("configmap", 15),
    ("service", 10),
    ("bundle", 10),
    ("helm", 9),
    ("kustomization", 8),
    ("statefulset", 6),
    ("rbac", 5),
    ("ingress", 4),
    ("cronjob", 4),
    ("netpol", 3),
    ("promrule", 3),
    ("argo", 2),
    ("sealed", 2),
    ("hpa", 2),
]
KUBEVIRT = [("vm", 40), ("itpref", 32), ("cr", 28)]
# The "dense" tree: VMs and their revisions dominate, across many namespaces (issue 14's second corpus).
KUBEVIRT_DENSE = [("vm", 45), ("itpref", 15), ("cr", 40)]
DENSE_FILES = 3_000
DENSE_KV_SHARE = 0.17
DENSE_NAMESPACES = 40
DENSE_EXPORT_MB = 2.0


def _unique(used: set[str], rel: str) -> str:
    if rel not in used:
        used.add(rel)
        return rel
    stem, dot, ext = rel.rpartition(".")
    i = 2
    while f"{stem}-{i}{dot}{ext}" in used:
        i += 1
    rel = f"{stem}-{i}{dot}{ext}"
    used.add(rel)
    return rel


def make_tree(
    g: Gen,
    w: Writer,
    n_files: int,
    info: dict[str, Any],
    *,
    prefix: str = "tree",
    kv_share: float = 0.05,
    kv_mix: list[tuple[str, int]] = KUBEVIRT,
    ns_spread: int = 0,
    key: str = "tree",
) -> None:
    r = g.r
    n_kv = round(n_files * kv_share)
    n_crd = max(1, round(n_files * 0.02)) if n_files >= 50 else 0
    n_ord = n_files - n_kv - n_crd
    used: set[str] = set()
    kinds = Counter[str]()
    relevant: list[str] = []
    precommit_irrelevant: list[str] = []
    precommit_relevant: str | None = None
    precommit_kinds: dict[str, str] = {}

    def note(kind: str, rel: str, text: str) -> None:
        # one small file of each of five common kinds: the "pre-commit, nothing relevant staged" sample
        if kind in ("deployment", "configmap", "service", "bundle", "helm") and kind not in precommit_kinds:
            if 300 < len(text) < 8000:
                precommit_kinds[kind] = rel
                precommit_irrelevant.append(rel)

    idents = [Ident(g, i, ns_spread) for i in range(max(1, n_kv))]

    # ordinary files
    for kind in _weighted(g, ORDINARY, n_ord):
        team, app, env = g.pick(TEAMS), g.pick(APPS), g.pick(ENVS)
        ns = f"{team}-{env}"
        base = f"apps/{team}/{app}/" + (g.pick(("base", f"overlays/{env}")))
        seq_ind = g.chance(0.7)
        if kind in ("deployment", "statefulset"):
            text = to_yaml(
                deployment(g, team, app, ns, kind="StatefulSet" if kind == "statefulset" else "Deployment"),
                seq_ind,
            )
        elif kind == "configmap":
            text = to_yaml(configmap(g, team, app, ns), seq_ind)
        elif kind == "service":
            text = to_yaml(service(g, team, app, ns), seq_ind)
        elif kind == "bundle":
            docs = [deployment(g, team, app, ns), service(g, team, app, ns), configmap(g, team, app, ns)]
            if g.chance(0.6):
                docs.append(ingress(g, team, app, ns))
            if g.chance(0.5):
                docs.append(hpa(g, app, ns))
            text = yaml_stream(docs, seq_ind, leading_sep=g.chance(0.3))
        elif kind == "helm":
            text = helm_values(g, team, app)
            base = f"charts/{team}/{app}"
            kind_file = f"values-{env}.yaml" if g.chance(0.6) else "values.yaml"
            rel = _unique(used, f"{base}/{kind_file}")
            w.write(f"{prefix}/{rel}", text.encode())
            kinds[kind] += 1
            note(kind, rel, text)
            continue
        elif kind == "kustomization":
            text = to_yaml(kustomization(g, team, app, ns), seq_ind)
            rel = _unique(used, f"{base}/kustomization.yaml")
            w.write(f"{prefix}/{rel}", text.encode())
            kinds[kind] += 1
            continue
        elif kind == "rbac":
            text = yaml_stream(rbac(g, team, app, ns), seq_ind)
        elif kind == "ingress":
            text = to_yaml(ingress(g, team, app, ns), seq_ind)
        elif kind == "cronjob":
            text = to_yaml(cronjob(g, team, app, ns), seq_ind)
        elif kind == "netpol":
            text = to_yaml(network_policy(g, app, ns), seq_ind)
        elif kind == "promrule":
            text = to_yaml(prometheus_rule(g, app, ns), seq_ind)
        elif kind == "argo":
            base = f"clusters/{g.pick(CLUSTERS)}/argocd"
            text = to_yaml(argo_app(g, team, app, env), seq_ind)
        elif kind == "sealed":
            text = to_yaml(sealed_secret(g, app, ns), seq_ind)
        else:
            text = to_yaml(hpa(g, app, ns), seq_ind)
        rel = _unique(used, f"{base}/{kind}-{app}.yaml")
        w.write(f"{prefix}/{rel}", text.encode())
        kinds[kind] += 1
        note(kind, rel, text)

    # CRDs, ~100 KB median (lognormal), two of them look like KubeVirt's own (pre-filter false positives)
    for i in range(n_crd):
        size = int(min(600_000, max(30_000, r.lognormvariate(11.6, 0.5))))
        if i < 2:
            obj = crd(
                g,
                size,
                group=IT if i == 0 else "kubevirt.io",
                kind="VirtualMachineInstancetype" if i == 0 else "VirtualMachine",
            )
            rel = _unique(used, f"infra/crds/kubevirt/{obj['metadata']['name']}.yaml")
        else:
            obj = crd(g, size)
            rel = _unique(used, f"infra/crds/{obj['spec']['group']}/{obj['metadata']['name']}.yaml")
        text = "# Generated by controller-gen. DO NOT EDIT.\n---\n" + to_yaml(obj, seq_indent=False)
        w.write(f"{prefix}/{rel}", text.encode())
        kinds["crd"] += 1

    # KubeVirt documents
    for j, kind in enumerate(_weighted(g, kv_mix, n_kv)):
        ident = idents[j % len(idents)]
        cluster = g.pick(CLUSTERS)
        seq_ind = g.chance(0.5)
        if kind == "vm":
            text = to_yaml(virtual_machine(g, ident, export=False, comments=g.chance(0.5)), seq_ind)
            rel = _unique(used, f"virtualization/{cluster}/{ident.ns}/vms/{ident.vm}.yaml")
            kinds[f"vm({'rev' if ident.era != 'F5' else 'status'})"] += 1
        elif kind == "cr":
            docs = [controller_revision(g, ident, "instancetype", export=g.chance(0.6))]
            if g.chance(0.5):
                docs.append(controller_revision(g, ident, "preference", export=g.chance(0.6)))
            text = yaml_stream(docs, seq_ind)
            rel = _unique(used, f"virtualization/{cluster}/{ident.ns}/revisions/{docs[0]['metadata']['name']}.yaml")
            kinds[f"cr-{ident.era}"] += 1
        else:
            what = g.pick(("instancetype", "preference"))
            version = g.pick(
                ("v1alpha1", "v1alpha1", "v1alpha2", "v1alpha2", "v1beta1", "v1beta1", "v1beta1", "v1beta1")
            )
            cl = g.chance(0.5)
            if g.chance(0.25):
                if what == "instancetype":
                    series = g.pick(IT_SERIES)
                    names = [f"{series}.{s}" for s in IT_SIZES[: r.randint(2, 6)]]
                else:
                    names = list(r.sample(PREF_NAMES, r.randint(2, 6)))
                docs = [it_object(g, what, version, cl, n, ident.ns, True) for n in names]
                if g.chance(0.3):  # mixed-version bundle
                    docs.append(it_object(g, what, "v1beta1", cl, names[0] + "-next", ident.ns, True))
                text = yaml_stream(docs, seq_ind, header=f"# {what} bundle\n", leading_sep=g.chance(0.5))
                fname = f"{what}s-{names[0].split('.')[0]}"
            else:
                name = ident.it_name if what == "instancetype" else ident.pref_name
                text = to_yaml(it_object(g, what, version, cl, name, ident.ns, True), seq_ind)
                fname = name
            sub = "cluster" if cl else ident.ns
            rel = _unique(used, f"virtualization/{cluster}/{sub}/{what}s/{fname}.yaml")
            kinds[f"{what}-{version}"] += 1
            if precommit_relevant is None and version != "v1beta1" and len(text) < 4000:
                precommit_relevant = rel
        w.write(f"{prefix}/{rel}", text.encode())
        relevant.append(rel)

    info[key] = {
        "files": len(used),
        "kubevirt_files": len(relevant),
        "kinds": dict(sorted(kinds.items())),
        "precommit_irrelevant": precommit_irrelevant,
        "precommit_relevant": precommit_relevant,
    }


def make_big(
    g: Gen,
    w: Writer,
    target: int,
    info: dict[str, Any],
    *,
    rel: str = "big/cluster-export.yaml",
    key: str = "big",
    mix: tuple[float, float, float] = (0.30, 0.50, 0.60),
    ns_spread: int = 0,
) -> None:
    """A `kubectl get -o yaml` stream; `mix` = cumulative shares of KubeVirt revisions, VMs, instancetypes."""
    idents = [Ident(g, 100_000 + i, ns_spread) for i in range(2000)]
    parts: list[str] = []
    size = 0
    kinds = Counter[str]()
    n = 0
    while size < target:
        x = g.r.random()
        ident = idents[n % len(idents)]
        if x < mix[0]:
            obj, k = kubevirt_export(g, "cr", ident), "ControllerRevision(kubevirt)"
        elif x < mix[1]:
            obj, k = kubevirt_export(g, "vm", ident), "VirtualMachine"
        elif x < mix[2]:
            obj, k = kubevirt_export(g, "it", ident), "instancetype/preference"
        else:
            obj = ordinary_export(g)
            k = obj["kind"]
        text = to_yaml(sort_keys(obj), seq_indent=False)
        parts.append(text)
        size += len(text) + 4
        kinds[k] += 1
        n += 1
    data = "---\n".join(parts).encode()
    w.write(rel, data)
    info[key] = {
        "path": rel,
        "bytes": len(data),
        "documents": n,
        "kinds": dict(sorted(kinds.items())),
    }


VELERO_RES: dict[str, tuple[str, str, bool]] = {
    # kind -> (resource dir, preferred version, namespaced)
    "Pod": ("pods", "v1", True),
    "ConfigMap": ("configmaps", "v1", True),
    "Secret": ("secrets", "v1", True),
    "Service": ("services", "v1", True),
    "Deployment": ("deployments.apps", "v1", True),
    "StatefulSet": ("statefulsets.apps", "v1", True),
    "ControllerRevision": ("controllerrevisions.apps", "v1", True),
    "VirtualMachine": ("virtualmachines.kubevirt.io", "v1", True),
    "VirtualMachineInstancetype": (f"virtualmachineinstancetypes.{IT}", "v1beta1", True),
    "VirtualMachineClusterInstancetype": (f"virtualmachineclusterinstancetypes.{IT}", "v1beta1", False),
    "VirtualMachinePreference": (f"virtualmachinepreferences.{IT}", "v1beta1", True),
    "VirtualMachineClusterPreference": (f"virtualmachineclusterpreferences.{IT}", "v1beta1", False),
    "Namespace": ("namespaces", "v1", False),
}


def _pod(g: Gen) -> Obj:
    team, app = g.pick(TEAMS), g.pick(APPS)
    ns = f"{team}-{g.pick(ENVS)}"
    c = strip_comments(_container(g, team, app, False))
    obj: Obj = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": f"{app}-{g.b64(6)[:10].lower().replace('/', 'x').replace('+', 'z')}",
            "namespace": ns,
            "labels": {"app.kubernetes.io/name": app},
        },
        "spec": {"containers": [c], "nodeName": f"node-{g.r.randint(1, 60)}", "restartPolicy": "Always"},
        "status": {
            "phase": "Running",
            "podIP": f"10.244.{g.r.randint(0, 255)}.{g.r.randint(1, 254)}",
            "qosClass": "Burstable",
        },
    }
    _exportify(g, obj)
    return obj


def _velero_items(g: Gen, n: int) -> Iterator[Obj]:
    idents = [Ident(g, 200_000 + i) for i in range(max(1, n // 4))]
    seen_ns: set[str] = set()
    i = 0
    while True:
        i += 1
        x = g.r.random()
        ident = idents[i % len(idents)]
        if x < 0.22:
            obj = _pod(g)
        elif x < 0.34:
            obj = kubevirt_export(g, "cr", ident)
        elif x < 0.40:  # ordinary ControllerRevisions (StatefulSets, DaemonSets) share the resource dir
            obj = ordinary_export(g, 8)
        elif x < 0.52:
            obj = kubevirt_export(g, "vm", ident)
        elif x < 0.58:
            obj = kubevirt_export(g, "it", ident)
        else:
            obj = ordinary_export(g)
        ns = obj["metadata"].get("namespace")
        if ns and ns not in seen_ns and g.chance(0.5):
            seen_ns.add(ns)
            yield {
                "apiVersion": "v1",
                "kind": "Namespace",
                "metadata": {"name": ns, "uid": g.uid()},
                "spec": {"finalizers": ["kubernetes"]},
                "status": {"phase": "Active"},
            }
        yield obj


def _tar_add(tf: tarfile.TarFile, name: str, data: bytes, mtime: int) -> None:
    ti = tarfile.TarInfo(name)
    ti.size = len(data)
    ti.mtime = mtime
    ti.mode = 0o644
    ti.uid = ti.gid = 0
    ti.uname = ti.gname = ""
    tf.addfile(ti, io.BytesIO(data))


def make_velero(g: Gen, w: Writer, n_items: int, info: dict[str, Any]) -> None:
    buf = io.BytesIO()
    mtime = EPOCH + 100_000_000
    kinds = Counter[str]()
    used: set[str] = set()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, compresslevel=6, mtime=mtime) as gz:
        with tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tf:
            _tar_add(tf, "metadata/version", b"1.1.0", mtime)
            count = 0
            for obj in _velero_items(g, n_items):
                if count >= n_items:
                    break
                res, pref, namespaced = VELERO_RES[obj["kind"]]
                md = obj["metadata"]
                if not namespaced:
                    md.pop("namespace", None)
                loc = f"namespaces/{md['namespace']}" if namespaced else "cluster"
                key = f"{res}/{loc}/{md['name']}"
                if key in used:
                    continue
                used.add(key)
                data = json.dumps(obj, separators=(",", ":"), sort_keys=True).encode()
                _tar_add(tf, f"resources/{res}/{loc}/{md['name']}.json", data, mtime)
                _tar_add(tf, f"resources/{res}/{pref}-preferredversion/{loc}/{md['name']}.json", data, mtime)
                kinds[res] += 1
                count += 1
    w.write("velero-backup.tar.gz", buf.getvalue())
    info["velero"] = {
        "path": "velero-backup.tar.gz",
        "items": count,
        "bytes": len(buf.getvalue()),
        "resources": dict(sorted(kinds.items())),
    }


def make_dense(g: Gen, w: Writer, n_files: int, export_bytes: int, info: dict[str, Any]) -> None:
    """Issue 14's second corpus: a 3,000-file, ~23 MB tree where 17% of the files are KubeVirt (VMs and
    revisions first) across ~200 namespaces, and a ~2 MB export of ~630 mostly-KubeVirt documents."""
    make_tree(
        g,
        w,
        n_files,
        info,
        prefix="dense/tree",
        kv_share=DENSE_KV_SHARE,
        kv_mix=KUBEVIRT_DENSE,
        ns_spread=DENSE_NAMESPACES,
        key="dense",
    )
    make_big(
        g,
        w,
        export_bytes,
        info,
        rel="dense/export.yaml",
        key="dense_export",
        mix=(0.38, 0.60, 0.81),
        ns_spread=DENSE_NAMESPACES,
    )


PARTS = ("tree", "big", "velero", "dense", "embeds", "templates", "vms")

# ----------------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED, help="random seed (default %(default)s)")
    ap.add_argument("--out", type=Path, required=True, help="output directory (replaced if it holds a previous corpus)")
    ap.add_argument("--files", type=int, default=DEFAULT_FILES, help="files in the GitOps tree (default %(default)s)")
    ap.add_argument(
        "--big-mb",
        type=float,
        default=DEFAULT_BIG_MB,
        help="size of big/cluster-export.yaml in MB (default %(default)s)",
    )
    ap.add_argument(
        "--velero-items",
        type=int,
        default=DEFAULT_VELERO_ITEMS,
        help="items in the Velero tarball (default %(default)s)",
    )
    ap.add_argument(
        "--dense-files",
        type=int,
        default=DENSE_FILES,
        help="files in the dense tree dense/tree/ (default %(default)s)",
    )
    ap.add_argument(
        "--dense-export-mb",
        type=float,
        default=DENSE_EXPORT_MB,
        help="size of dense/export.yaml in MB (default %(default)s)",
    )
    ap.add_argument(
        "--scale",
        type=float,
        default=1.0,
        help="multiply --files, --big-mb, --velero-items, --dense-files and --dense-export-mb (and the sizes of "
        "the embeds, templates and vms parts) by this factor",
    )
    ap.add_argument(
        "--parts",
        default=",".join(PARTS),
        help="comma-separated subset of " + ",".join(PARTS) + " (default: all)",
    )
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)

    parts = {p.strip() for p in args.parts.split(",") if p.strip()}
    if not parts <= set(PARTS):
        ap.error(f"unknown part(s): {', '.join(sorted(parts - set(PARTS)))}")
    n_files = max(1, round(args.files * args.scale))
    n_dense = max(1, round(args.dense_files * args.scale))
    dense_bytes = int(args.dense_export_mb * args.scale * 1_000_000)
    big_bytes = int(args.big_mb * args.scale * 1_000_000)
    n_items = max(1, round(args.velero_items * args.scale))

    out: Path = args.out
    if out.exists():
        if (out / MARKER).exists():
            shutil.rmtree(out)
        elif any(out.iterdir()):
            print(f"error: {out} is not empty and holds no {MARKER}; refusing to overwrite", file=sys.stderr)
            return 2
    out.mkdir(parents=True, exist_ok=True)

    t0 = time.perf_counter()
    w = Writer(out)
    info: dict[str, Any] = {
        "generator": "benchmarks/make_corpus.py",
        "seed": args.seed,
        "files": n_files,
        "big_bytes_target": big_bytes,
        "velero_items": n_items,
        "dense_files": n_dense,
        "parts": sorted(parts),
    }
    timings: dict[str, float] = {}
    import make_embeds as me  # issue 30's parts (a sibling module: it imports this one)

    embeds_bytes = int(me.EMBED_MB * args.scale * 1_000_000)
    n_tpl = max(1, round(me.TEMPLATE_OBJECTS * args.scale))
    tpl_bytes = int(me.TEMPLATES_MB * args.scale * 1_000_000)
    n_vms = max(1, round(me.VM_FILES * args.scale))
    steps: list[tuple[str, Callable[[], None]]] = [
        ("tree", lambda: make_tree(Gen(args.seed), w, n_files, info)),
        ("big", lambda: make_big(Gen(args.seed + 1), w, big_bytes, info)),
        ("velero", lambda: make_velero(Gen(args.seed + 2), w, n_items, info)),
        ("dense", lambda: make_dense(Gen(args.seed + 3), w, n_dense, dense_bytes, info)),
        ("embeds", lambda: me.make_embeds(Gen(args.seed + 4), w, me.EMBED_FILES, embeds_bytes, info)),
        ("templates", lambda: me.make_templates(Gen(args.seed + 5), w, n_tpl, tpl_bytes, me.TEMPLATE_BUNDLES, info)),
        ("vms", lambda: me.make_vms(args.seed + 6, w, n_vms, info)),
    ]
    for name, fn in steps:
        if name in parts:
            t = time.perf_counter()
            before = w.bytes
            fn()
            timings[name] = time.perf_counter() - t
            if not args.quiet:
                print(
                    f"{name:>6}: {(w.bytes - before) / 1e6:8.1f} MB in {timings[name]:6.2f} s",
                    file=sys.stderr,
                )
    info["digest"] = w.digest()
    info["bytes"] = w.bytes
    info["generated_files"] = len(w.digests)
    (out / MARKER).write_text(json.dumps(info, indent=2) + "\n")
    total = time.perf_counter() - t0
    if not args.quiet:
        for key in ("tree", "dense"):
            tree = info.get(key, {})
            if tree:
                print(f"{key:>6}: {tree['files']} files, {tree['kubevirt_files']} KubeVirt files", file=sys.stderr)
        print(f" total: {w.bytes / 1e6:.1f} MB, {len(w.digests)} files, {total:.2f} s", file=sys.stderr)
    print(f"sha256 {info['digest']}  {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
