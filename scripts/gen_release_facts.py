"""The release facts of KubeVirt's preference and VM fields that the rewrites and the judge wait for: the
preferredCPUTopology vocabulary per release, the release from which a revision's object-name label must
match the VM, and the release that added or deprecated each field a `--modernize` rewrite or a warning
depends on.

    python scripts/gen_release_facts.py --kubevirt-git DIR   # read the Go sources at each tag
    python scripts/gen_release_facts.py                      # reference data -> the module

The first step reads a KubeVirt git directory (a clone or a bare mirror) and writes
reference/kubevirt-topologies.json: per release (v0.56.0, when preferences arrived, to v1.9.0) the
`PreferredCPUTopology` constants of its instancetype.kubevirt.io API packages
(staging/src/kubevirt.io/api/instancetype/*/types.go), the `deprecatedTopologies` map its preference
webhook warns with (old spelling -> replacement), and whether its revision lookup compares a revision's
object-name label with the VM's matcher name (`Labels[instancetypeapi.ControllerRevisionObjectNameLabel]`
in `pkg/`). The second step reads that file and the CRD schemas of reference/crd-schemas.tar.xz (which
release's schema first has a field, or first says it is deprecated) and writes
transform/kubevirt/releasefacts.py; tests/kubevirt/test_releasefacts.py holds the module to them.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _generated import git_runner, preamble  # noqa: E402
from reference_tree import open_tree  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "reference" / "kubevirt-topologies.json"
MODULE = ROOT / "transform" / "kubevirt" / "releasefacts.py"
API_DIR = "staging/src/kubevirt.io/api/instancetype"
RELEASES = [f"v0.{minor}.0" for minor in range(56, 60)] + [f"v1.{minor}.0" for minor in range(10)]
_CONSTANT = re.compile(r'^\s*(?P<name>\w+)\s+PreferredCPUTopology\s*=\s*"(?P<value>[^"]*)"', re.M)
_MAP = re.compile(r"deprecatedTopologies\s*=\s*map\[[^\]]*\][\w.]*\{(?P<body>[^}]*)\}")
OBJECT_NAME_READ = "Labels[instancetypeapi.ControllerRevisionObjectNameLabel]"
_ENTRY = re.compile(r"[\w]+\.(?P<old>\w+)\s*:\s*[\w]+\.(?P<new>\w+)")

# A field's release, read from the bundled CRD schemas: name -> (CRD, field path, "added" | "deprecated").
# "added": the first release whose schema has the field; "deprecated": the first whose description of it
# says "Deprecated". The first schema (v1.0) must not have it already: its release would be unknown.
FIELDS: dict[str, tuple[str, tuple[str, ...], str]] = {
    "RUNNING_DEPRECATED": ("virtualmachine", ("spec", "running"), "deprecated"),
    "SPREAD_OPTIONS_ADDED": ("virtualmachinepreference", ("spec", "cpu", "spreadOptions"), "added"),
    "PREFERRED_EFI_ADDED": ("virtualmachinepreference", ("spec", "firmware", "preferredEfi"), "added"),
    "USE_EFI_DEPRECATED": ("virtualmachinepreference", ("spec", "firmware", "preferredUseEfi"), "deprecated"),
    "LAUNCH_SECURITY_DEPRECATED": ("virtualmachineinstancetype", ("spec", "launchSecurity"), "deprecated"),
    "PREFERRED_LAUNCH_SECURITY_ADDED": ("virtualmachinepreference", ("spec", "preferredLaunchSecurity"), "added"),
}


def constants(sources: list[str]) -> dict[str, str]:
    """`Name PreferredCPUTopology = "value"` of Go sources: name -> value, in source order."""
    out: dict[str, str] = {}
    for source in sources:
        for m in _CONSTANT.finditer(source):
            out.setdefault(m["name"], m["value"])
    return out


def deprecated_map(sources: list[str], names: dict[str, str]) -> list[list[str]]:
    """The webhook's `deprecatedTopologies` map, as [old value, new value] pairs in source order."""
    for source in sources:
        m = _MAP.search(source)
        if m is not None:
            return [[names[e["old"]], names[e["new"]]] for e in _ENTRY.finditer(m["body"])]
    return []


def extract(git_dir: str) -> dict[str, Any]:
    git = git_runner(git_dir)
    releases = {}
    for tag in RELEASES:
        commit = git("rev-parse", f"{tag}^{{commit}}").strip()
        files = git("ls-tree", "-r", "--name-only", tag, "--", API_DIR, "pkg").split()
        api = [f for f in files if f.startswith(API_DIR) and f.endswith("/types.go")]
        names = constants([git("show", f"{tag}:{f}") for f in sorted(api)])
        found = subprocess.run(  # (git grep exits 1 when nothing matches: before v1.4)
            ["git", "--git-dir", git_dir, "grep", "-l", "deprecatedTopologies = map", tag, "--", "pkg", ":!*_test.go"],
            capture_output=True,
            text=True,
        )
        hooks = found.stdout.split()
        sources = [git("show", hit) for hit in hooks]  # (`TAG:path`, as git grep names a hit)
        label = subprocess.run(  # a revision lookup that compares the object-name label with the VM's matcher
            ["git", "--git-dir", git_dir, "grep", "-q", "-F", OBJECT_NAME_READ, tag, "--", "pkg", ":!*_test.go"],
            capture_output=True,
        )
        key = tag.removeprefix("v").rsplit(".", 1)[0]
        releases[key] = {
            "tag": tag,
            "commit": commit,
            "values": list(dict.fromkeys(names.values())),
            "deprecated": deprecated_map(sources, names),
            "matches_object_name_label": label.returncode == 0,
        }
    return {
        "about": "KubeVirt's preferredCPUTopology values per release (the PreferredCPUTopology constants of "
        f"kubevirt/kubevirt:{API_DIR}/*/types.go) and the deprecated spellings its preference webhook warns "
        "about (its deprecatedTopologies map), read by scripts/gen_release_facts.py at each tag (facts, no code)",
        "releases": releases,
    }


def _release(key: str) -> tuple[int, int]:
    major, minor = key.removeprefix("v").split(".")[:2]
    return int(major), int(minor)


def _field(schema: dict[str, Any], path: tuple[str, ...]) -> dict[str, Any] | None:
    node: Any = schema
    for part in path:
        node = node.get("properties", {}).get(part) if isinstance(node, dict) else None
    return node if isinstance(node, dict) else None


def field_releases() -> dict[str, tuple[int, int]]:
    """FIELDS -> the release each fact starts at, from reference/crd-schemas.tar.xz."""
    root = open_tree("crd-schemas") / "kubevirt-releases"
    tags = sorted({row["tag"] for row in json.loads((root / "index.json").read_text())}, key=_release)
    out: dict[str, tuple[int, int]] = {}
    for name, (crd, path, event) in FIELDS.items():
        for i, tag in enumerate(tags):
            node = _field(json.loads((root / tag / f"{crd}.json").read_text()), path)
            hit = node is not None and (event == "added" or "Deprecated" in str(node.get("description", "")))
            if hit:
                if i == 0:
                    raise SystemExit(f"{name}: {crd} {'.'.join(path)} is {event} already in {tag}: since when?")
                out[name] = _release(tag)
                break
        else:
            raise SystemExit(f"{name}: {crd} {'.'.join(path)} is never {event} in {tags[0]}..{tags[-1]}")
    return out


_HEADER = (
    "# Generated by scripts/gen_release_facts.py from reference/kubevirt-topologies.json and\n"
    "# reference/crd-schemas.tar.xz: do not edit, regenerate."
)
_DOC = """\
KubeVirt's preference and VM field facts per release, as its own sources and CRD schemas say them.

TOPOLOGIES: each preferredCPUTopology value KubeVirt's instancetype.kubevirt.io API names, with the first
release naming it (v0.56, when preferences arrived, or later); no release dropped one.
DEPRECATED_TOPOLOGIES: the spellings KubeVirt's preference webhook warns are deprecated, each with its
replacement, from TOPOLOGIES_DEPRECATED on. OBJECT_NAME_MATCHED: from this release on, KubeVirt finds a VM's
revision only when its object-name label is the VM's matcher name. The `*_ADDED` and `*_DEPRECATED`
releases: the first whose CRD schema has the field, or describes it as deprecated."""


def first_releases(reference: dict[str, Any]) -> dict[str, tuple[int, int]]:
    """preferredCPUTopology value -> the first release naming it; a value must stay in every later release."""
    out: dict[str, tuple[int, int]] = {}
    for key in sorted(reference["releases"], key=_release):
        values = reference["releases"][key]["values"]
        for value in out:
            if value not in values:
                raise SystemExit(f"{value}: named from {out[value]} but not in {key}")
        for value in values:
            out.setdefault(value, _release(key))
    return out


def render(reference: dict[str, Any], fields: dict[str, tuple[int, int]]) -> str:
    order = sorted(reference["releases"], key=_release)
    renames = [(_release(k), reference["releases"][k]["deprecated"]) for k in order]
    since = next(r for r, pairs in renames if pairs)
    lines = [*preamble(_HEADER, _DOC), "TOPOLOGIES: dict[str, Release] = {"]
    lines += [f"    {json.dumps(value)}: {first!r}," for value, first in first_releases(reference).items()]
    lines += ["}", "DEPRECATED_TOPOLOGIES: dict[str, str] = {"]
    lines += [f"    {json.dumps(old)}: {json.dumps(new)}," for old, new in renames[-1][1]]
    matched = [_release(k) for k in order if reference["releases"][k]["matches_object_name_label"]]
    if matched != [_release(k) for k in order if _release(k) >= matched[0]]:
        raise SystemExit("the object-name label is compared in some releases only: not one release on")
    lines += ["}", f"TOPOLOGIES_DEPRECATED: Release = {since!r}"]
    lines += [f"OBJECT_NAME_MATCHED: Release = {matched[0]!r}", ""]
    for name, (crd, path, event) in FIELDS.items():
        lines.append(f"{name}: Release = {fields[name]!r}  # {crd} {'.'.join(path)}: {event}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kubevirt-git", help="a KubeVirt git directory: refresh reference/kubevirt-topologies.json")
    args = parser.parse_args(argv)
    if args.kubevirt_git:
        REFERENCE.write_text(json.dumps(extract(args.kubevirt_git), indent=2, sort_keys=True) + "\n")
    MODULE.write_text(render(json.loads(REFERENCE.read_text()), field_releases()))
    print(f"wrote {MODULE.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
