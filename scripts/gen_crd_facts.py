"""What the API server does with a KubeVirt or CDI object on a create besides its schema: the CRD's scope
and subresources, per release (KubeVirt pkg/virt-operator/resource/generate/components/crds.go, CDI
pkg/operator/resources/crds_generated.go).

    python scripts/gen_crd_facts.py --kubevirt-git DIR   # read crds.go at each v1.N.0 tag -> reference/
    python scripts/gen_crd_facts.py --cdi-git DIR        # read crds_generated.go at v1.56.0..v1.66.0
    python scripts/gen_crd_facts.py                      # reference/{kubevirt,cdi}-crds.json -> the module

The first steps read a git directory (a clone or a bare mirror) and write, per release, each CRD kind's
scope (Namespaced / Cluster), whether it has the status subresource (then a create drops `status`) and
the scale subresource's specReplicasPath (then `spec.replicas` must fit an int32). The last writes
transform/kubevirt/crdfacts.py from those files; tests/kubevirt/test_crdfacts.py holds the module to them.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "reference" / "kubevirt-crds.json"
CDI_REFERENCE = ROOT / "reference" / "cdi-crds.json"
CDI_SOURCE = "pkg/operator/resources/crds_generated.go"
CDI_RELEASES = [f"v1.{minor}.0" for minor in range(56, 67)]
_CDI_ENTRY = re.compile(r"^\t\"([a-z]+)\": `(.*?)^`,$", re.S | re.M)
MODULE = ROOT / "transform" / "kubevirt" / "crdfacts.py"
SOURCE = "pkg/virt-operator/resource/generate/components/crds.go"
RELEASES = [f"v1.{minor}.0" for minor in range(10)]
_KIND = re.compile(r'\bKind:\s*(?:"(\w+)"|[\w.]*?\.(\w+?)(?:GroupVersionKind|Kind)\.Kind\b|(\w+)\.Kind\b)')
_SCOPE = re.compile(r'\bScope:\s*(?:"(Namespaced|Cluster)"|extv1\.(NamespaceScoped|ClusterScoped))')
_REPLICAS = re.compile(r'SpecReplicasPath:\s*"([^"]+)"')


def _crds(source: str) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for body in re.split(r"\nfunc ", source)[1:]:
        if "CustomResourceDefinitionNames{" not in body:
            continue
        names = body[body.index("CustomResourceDefinitionNames{") :]
        kind_match = _KIND.search(names)
        scope_match = _SCOPE.search(body)
        if kind_match is None or scope_match is None:
            raise SystemExit(f"cannot read the kind or scope of: func {body[:60]}")
        literal, symbol, package = kind_match.groups()
        kind = literal or symbol or (package or "").capitalize()
        scope = scope_match.group(1) or ("Namespaced" if scope_match.group(2) == "NamespaceScoped" else "Cluster")
        replicas = _REPLICAS.search(body)
        out[kind] = {
            "scope": scope,
            "status": "CustomResourceSubresourceStatus{" in body,
            "specReplicasPath": replicas.group(1) if replicas else None,
        }
    return dict(sorted(out.items()))


def _cdi_crds(source: str) -> dict[str, dict[str, Any]]:
    """CDI's generated CRD YAML documents (Go raw strings, a backtick spliced in as `` ` + "`" + ` ``)."""
    from ruamel.yaml import YAML  # lazy: only the CDI extraction reads YAML

    yaml = YAML(typ="safe", pure=True)
    out: dict[str, dict[str, Any]] = {}
    for match in _CDI_ENTRY.finditer(source.replace('` + "`" + `', "`")):
        spec = yaml.load(match.group(2))["spec"]
        facts = set()
        for version in spec["versions"]:
            sub = version.get("subresources") or {}
            facts.add(("status" in sub, (sub.get("scale") or {}).get("specReplicasPath")))
        if len(facts) != 1:
            raise SystemExit(f"{spec['names']['kind']}: versions differ in subresources: {sorted(facts)}")
        [(status, replicas)] = facts
        out[spec["names"]["kind"]] = {"scope": spec["scope"], "status": status, "specReplicasPath": replicas}
    return dict(sorted(out.items()))


def extract(git_dir: str, cdi: bool = False) -> dict[str, Any]:
    def git(*args: str) -> str:
        return subprocess.run(["git", "--git-dir", git_dir, *args], capture_output=True, text=True, check=True).stdout

    source, tags, read = (CDI_SOURCE, CDI_RELEASES, _cdi_crds) if cdi else (SOURCE, RELEASES, _crds)
    releases = {}
    for tag in tags:
        commit = git("rev-parse", f"{tag}^{{commit}}").strip()
        key = tag.removeprefix("v").rsplit(".", 1)[0]
        releases[key] = {"tag": tag, "commit": commit, "crds": read(git("show", f"{tag}:{source}"))}
    repo = "kubevirt/containerized-data-importer" if cdi else "kubevirt/kubevirt"
    return {
        "about": f"{'CDI' if cdi else 'KubeVirt'} CRD scope and subresources per release, read by "
        f"scripts/gen_crd_facts.py from {repo}:{source} at each tag (facts, no code)",
        "releases": releases,
    }


def _rows(reference: dict[str, Any]) -> dict[str, list[tuple[tuple[int, ...], bool, bool, str]]]:
    rows: dict[str, list[tuple[tuple[int, ...], bool, bool, str]]] = {}
    for key in sorted(reference["releases"], key=lambda k: tuple(int(p) for p in k.split("."))):
        release = tuple(int(p) for p in key.split("."))
        for kind, facts in reference["releases"][key]["crds"].items():
            row = (release, facts["scope"] == "Cluster", facts["status"], facts["specReplicasPath"] or "")
            if not rows.get(kind) or rows[kind][-1][1:] != row[1:]:
                rows.setdefault(kind, []).append(row)
    return rows


def _table(name: str, rows: dict[str, list[tuple[tuple[int, ...], bool, bool, str]]]) -> list[str]:
    lines = [f"{name}: dict[str, tuple[tuple[Release, bool, bool, str], ...]] = {{"]
    for kind, kind_rows in sorted(rows.items()):
        cells = [f"({r[0]!r}, {r[1]!r}, {r[2]!r}, {json.dumps(r[3])})" for r in kind_rows]
        if len(cells) == 1:  # as ruff format writes it
            lines.append(f"    {json.dumps(kind)}: ({cells[0]},),")
        else:
            lines += [f"    {json.dumps(kind)}: (", *(f"        {c}," for c in cells), "    ),"]
    return [*lines, "}"]


def render(reference: dict[str, Any], cdi: dict[str, Any]) -> str:
    lines = [
        "# Generated by scripts/gen_crd_facts.py from reference/kubevirt-crds.json and reference/cdi-crds.json:",
        "# do not edit, regenerate.",
        '"""What a KubeVirt or CDI CRD tells the API server besides its schema, per release (KubeVirt crds.go,',
        "CDI crds_generated.go).",
        "",
        "CRDS (KubeVirt releases) and CDI_CRDS (CDI releases) map a kind to rows (first release, cluster-scoped,",
        'status subresource, scale specReplicasPath or ""), each holding from its release until the next',
        "row's; a kind is absent before its first row.",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "Release = tuple[int, int]",
        "",
        *_table("CRDS", _rows(reference)),
        "",
        *_table("CDI_CRDS", _rows(cdi)),
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kubevirt-git", help="a KubeVirt git directory: refresh reference/kubevirt-crds.json first")
    parser.add_argument("--cdi-git", help="a CDI git directory: refresh reference/cdi-crds.json first")
    args = parser.parse_args(argv)
    for git_dir, path, cdi in ((args.kubevirt_git, REFERENCE, False), (args.cdi_git, CDI_REFERENCE, True)):
        if git_dir:
            path.parent.mkdir(exist_ok=True)
            path.write_text(json.dumps(extract(git_dir, cdi), indent=2, sort_keys=True) + "\n")
    MODULE.write_text(render(json.loads(REFERENCE.read_text()), json.loads(CDI_REFERENCE.read_text())))
    print(f"wrote {MODULE.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
