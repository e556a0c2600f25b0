"""What the API server does with a KubeVirt or CDI object on a create besides its schema: the CRD's scope
and subresources, per release (KubeVirt pkg/virt-operator/resource/generate/components/crds.go, CDI
pkg/operator/resources/crds_generated.go).

    python scripts/gen_crd_facts.py --kubevirt-git DIR   # read crds.go at each v1.N.0 tag -> reference/
    python scripts/gen_crd_facts.py --cdi-git DIR        # read crds_generated.go at v1.56.0..v1.66.0
    python scripts/gen_crd_facts.py                      # reference/{kubevirt,cdi}-crds.json -> the module

The first steps read a git directory (a clone or a bare mirror) and write, per release, each CRD kind's
scope (Namespaced / Cluster), whether it has the status subresource (then a create drops `status`) and
the scale subresource's specReplicasPath (then `spec.replicas` must fit an int32); for KubeVirt also each
CRD's group and versions with their served, storage and deprecated flags as virt-operator installs them
(scripts/go_literals.py reads the Go literals; `newCRDVersions()` is core/v1's ApiSupportedVersions) and,
from v1.8, the virt-template CRDs of its bundled YAML (tests/kubevirt/test_apis_kubevirt.py holds the API
table to them). The last writes
transform/kubevirt/crdfacts.py from those files; tests/kubevirt/test_crdfacts.py holds the module to them.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _generated import git_runner, preamble  # noqa: E402
from go_literals import FLAGS, VERSION_TYPE, GoSource, close_bracket, imports_of, pairs, versions_literal  # noqa: E402

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


def _crds(source: str, go: GoSource | None = None) -> dict[str, dict[str, Any]]:
    """Each CRD kind's scope and subresources; with `go` (the tag's packages) also its group and versions."""
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
        if go is not None:
            out[kind]["group"], out[kind]["versions"] = _crd_versions(source, body, go)
    return dict(sorted(out.items()))


_TEMPLATE_DIR = "pkg/virt-operator/resource/generate/components/data/virt-template"


def _crd_versions(source: str, body: str, go: GoSource) -> tuple[str, list[dict[str, Any]]]:
    """One CRD function's group and versions (crds.go's own text is `source`)."""
    here = SOURCE.rsplit("/", 1)[0]
    imports = imports_of(source)
    spec = body.index("CustomResourceDefinitionSpec{")
    fields = dict(
        pairs(
            body[
                spec + len("CustomResourceDefinitionSpec{") : close_bracket(
                    body, spec + len("CustomResourceDefinitionSpec{") - 1
                )
                - 1
            ]
        )
    )
    if "Group" not in fields or "Versions" not in fields:
        raise SystemExit(f"a CRD spec without Group or Versions: {body[:60]!r}")
    group = go.resolve(here, fields["Group"], imports)
    value = fields["Versions"]
    if value == "newCRDVersions()":
        helper = re.search(
            r"\nfunc newCRDVersions\(\) \[\]extv1\.CustomResourceDefinitionVersion \{\n(.*?)\n\}\n", source, re.S
        )
        lines = [line.strip() for line in helper.group(1).splitlines()] if helper else []
        copied = re.fullmatch(r"copy\(versions, (\w+)\.ApiSupportedVersions\)", lines[1]) if len(lines) == 3 else None
        if copied is None or lines[2] != "return versions" or copied.group(1) not in imports:
            raise SystemExit("newCRDVersions() is not the copy of <pkg>.ApiSupportedVersions this reader knows")
        directory = imports[copied.group(1)]
        text, own = go.package(directory)
        at = re.search(r"\bApiSupportedVersions\s*=\s*", text)
        if at is None:
            raise SystemExit(f"{directory}: no ApiSupportedVersions")
        return group, versions_literal(text, at.end(), go, directory, own)
    if value.startswith(VERSION_TYPE):
        return group, versions_literal(value, 0, go, here, imports)
    if re.fullmatch(r"[A-Za-z_]\w*", value):  # a package-level var of crds.go
        at = re.search(rf"^\s*(?:var )?{value}\s*=\s*", source, re.M)
        if at is None:
            raise SystemExit(f"no package-level {value} in crds.go")
        return group, versions_literal(source, at.end(), go, here, imports)
    raise SystemExit(f"a CRD's Versions this reader does not know: {value[:60]!r}")


def _template_crds(go: GoSource) -> dict[str, dict[str, Any]]:
    """The virt-template CRDs virt-operator installs from its bundled YAML (v1.8 on)."""
    from ruamel.yaml import YAML  # lazy: only the extraction reads YAML

    yaml = YAML(typ="safe", pure=True)
    out: dict[str, dict[str, Any]] = {}
    for path in go.ls(_TEMPLATE_DIR):
        if not path.endswith(".yaml"):
            continue
        for doc in yaml.load_all(go.show(path)):
            if not doc or doc.get("kind") != "CustomResourceDefinition":
                continue
            spec = doc["spec"]
            versions = [
                {"name": v["name"], **{f.lower(): bool(v.get(f.lower(), False)) for f in FLAGS}}
                for v in spec["versions"]
            ]
            out[spec["names"]["kind"]] = {"group": spec["group"], "versions": versions}
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


def _shower(git: Callable[..., str], tag: str) -> Callable[[str], str]:
    return lambda path: git("show", f"{tag}:{path}")


def _lister(git: Callable[..., str], tag: str) -> Callable[[str], list[str]]:
    return lambda directory: git("ls-tree", "--name-only", tag, f"{directory}/").split()


def extract(git_dir: str, cdi: bool = False) -> dict[str, Any]:
    git = git_runner(git_dir)

    source, tags = (CDI_SOURCE, CDI_RELEASES) if cdi else (SOURCE, RELEASES)
    releases = {}
    for tag in tags:
        commit = git("rev-parse", f"{tag}^{{commit}}").strip()
        key = tag.removeprefix("v").rsplit(".", 1)[0]
        text = git("show", f"{tag}:{source}")
        if cdi:
            releases[key] = {"tag": tag, "commit": commit, "crds": _cdi_crds(text)}
            continue
        go = GoSource(_shower(git, tag), _lister(git, tag))
        crds = _crds(text, go)
        releases[key] = {"tag": tag, "commit": commit, "crds": crds, "virtTemplateCrds": _template_crds(go)}
    repo = "kubevirt/containerized-data-importer" if cdi else "kubevirt/kubevirt"
    about = (
        f"{'CDI' if cdi else 'KubeVirt'} CRD scope and subresources per release, read by "
        f"scripts/gen_crd_facts.py from {repo}:{source} at each tag (facts, no code)"
    )
    if not cdi:
        about += (
            "; each CRD's group and versions (name, served, storage, deprecated) as virt-operator installs them, "
            "read from the same file's Go literals (newCRDVersions(): core/v1 ApiSupportedVersions); "
            f"virtTemplateCrds: the same for the CRDs virt-operator installs from {_TEMPLATE_DIR}/*.yaml (v1.8 on)"
        )
    return {"about": about, "releases": releases}


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


_HEADER = (
    "# Generated by scripts/gen_crd_facts.py from reference/kubevirt-crds.json and reference/cdi-crds.json:\n"
    "# do not edit, regenerate."
)
_DOC = """\
What a KubeVirt or CDI CRD tells the API server besides its schema, per release (KubeVirt crds.go,
CDI crds_generated.go).

CRDS (KubeVirt releases) and CDI_CRDS (CDI releases) map a kind to rows (first release, cluster-scoped,
status subresource, scale specReplicasPath or ""), each holding from its release until the next
row's; a kind is absent before its first row."""


def render(reference: dict[str, Any], cdi: dict[str, Any]) -> str:
    lines = [
        *preamble(_HEADER, _DOC),
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
