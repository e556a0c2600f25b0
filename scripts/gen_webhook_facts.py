"""KubeVirt's admission-webhook facts the tool models per release that no schema holds: the interface
bindings whose creation KubeVirt refuses outright ("discontinued"), read from its network admitter, and the
preference topologies its preference admitter warns of as deprecated (with the value to use instead).

    python scripts/gen_webhook_facts.py --kubevirt-git DIR   # read pkg/network/admitter/*.go at each v1.N.0 tag
    python scripts/gen_webhook_facts.py                      # reference/kubevirt-webhooks.json -> the module

The first step reads a git directory (a clone or a bare mirror) and writes reference/kubevirt-webhooks.json:
per release, each binding (`slirp`, `macvtap`, `passt`: the field of `domain.devices.interfaces[]`) that a
`StatusCause` refuses with a message saying it is discontinued, and that message (VM and VMI creation,
`Validator.ValidateCreation`). A refusal that depends on the cluster's configuration (a feature gate) says
"not enabled", not "discontinued", and is not taken: offline, the configuration is unknown. Also per
release: the preference admitter's `deprecatedTopologies` map (old -> new `preferredCPUTopology`, the Go
constants resolved from the instancetype v1beta1 API types) and its `deprecatedPreferredCPUTopologyErrFmt`
warning, in whichever non-test file under pkg/ holds them (none before v1.4.0). The second step
writes transform/kubevirt/webhookfacts.py; tests/kubevirt/test_webhookfacts.py holds the module to the file.
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

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "reference" / "kubevirt-webhooks.json"
MODULE = ROOT / "transform" / "kubevirt" / "webhookfacts.py"
SOURCE_DIR = "pkg/network/admitter"
RELEASES = [f"v1.{minor}.0" for minor in range(10)]
TOPOLOGY_TYPES = "staging/src/kubevirt.io/api/instancetype/v1beta1/types.go"
_TOPOLOGY_FMT = re.compile(r'deprecatedPreferredCPUTopologyErrFmt\s*=\s*"(?P<fmt>[^"]*)"')
_TOPOLOGY_MAP = re.compile(r"deprecatedTopologies\s*=\s*map\[[\w.]+\][\w.]+\s*\{(?P<body>[^}]*)\}")
_TOPOLOGY_ENTRY = re.compile(r"(?:\w+\.)?(?P<old>\w+)\s*:\s*(?:\w+\.)?(?P<new>\w+)\s*,")
_TOPOLOGY_CONST = re.compile(r'(?P<name>\w+)\s+PreferredCPUTopology\s*=\s*"(?P<value>[^"]*)"')
_CAUSE = re.compile(
    r'Message:\s*"(?P<message>[^"]*discontinued[^"]*)",\s*'
    r'Field:\s*[^\n]*?Child\("domain", "devices", "interfaces"\)\.Index\(\w+\)\.Child\("(?P<binding>\w+)"\)'
)


def discontinued(sources: list[str]) -> dict[str, str]:
    """Binding -> the message of the StatusCause refusing it, in the non-test Go sources of one release."""
    out: dict[str, str] = {}
    for source in sources:
        for match in _CAUSE.finditer(source):
            out[match["binding"]] = match["message"]
    return dict(sorted(out.items()))


def deprecated_topologies(admitter: str, types: str) -> dict[str, Any]:
    """The preference admitter's deprecated topologies (old value -> new value) and its warning format, from
    its source and the API types' constants; {} when the release has neither."""
    fmt, table = _TOPOLOGY_FMT.search(admitter), _TOPOLOGY_MAP.search(admitter)
    if fmt is None or table is None:
        return {}
    constants = {m["name"]: m["value"] for m in _TOPOLOGY_CONST.finditer(types)}
    pairs = {constants[m["old"]]: constants[m["new"]] for m in _TOPOLOGY_ENTRY.finditer(table["body"])}
    return {"message": fmt["fmt"], "replacements": dict(sorted(pairs.items()))}


def extract(git_dir: str) -> dict[str, Any]:
    git = git_runner(git_dir)

    releases = {}
    for tag in RELEASES:
        commit = git("rev-parse", f"{tag}^{{commit}}").strip()
        listed = subprocess.run(
            ["git", "--git-dir", git_dir, "ls-tree", "--name-only", f"{tag}:{SOURCE_DIR}"],
            capture_output=True,
            text=True,
        )
        names = listed.stdout.split() if listed.returncode == 0 else []  # no network admitter before v1.3
        go = [n for n in names if n.endswith(".go") and not n.endswith("_test.go")]
        sources = [git("show", f"{tag}:{SOURCE_DIR}/{n}") for n in go]
        key = tag.removeprefix("v").rsplit(".", 1)[0]
        found = subprocess.run(
            ["git", "--git-dir", git_dir, "grep", "-l", "deprecatedPreferredCPUTopologyErrFmt", tag, "--", "pkg/"],
            capture_output=True,
            text=True,
        ).stdout.split()
        admitters = [n.split(":", 1)[1] for n in found if not n.endswith("_test.go")]
        topologies = (
            deprecated_topologies(git("show", f"{tag}:{admitters[0]}"), git("show", f"{tag}:{TOPOLOGY_TYPES}"))
            if admitters
            else {}
        )
        releases[key] = {
            "tag": tag,
            "commit": commit,
            "discontinued": discontinued(sources),
            "deprecated_topologies": topologies,
        }
    return {
        "about": "KubeVirt interface bindings refused on creation as discontinued, per release, read by "
        f"scripts/gen_webhook_facts.py from kubevirt/kubevirt:{SOURCE_DIR}/*.go at each tag, and the preferred "
        "CPU topologies its preference admitter warns of as deprecated (facts, no code)",
        "releases": releases,
    }


def first_releases(reference: dict[str, Any]) -> dict[str, tuple[tuple[int, int], str]]:
    """Binding -> (first release refusing it, its message); a refusal must hold in every later release."""
    order = sorted(reference["releases"], key=lambda k: tuple(int(p) for p in k.split(".")))
    out: dict[str, tuple[tuple[int, int], str]] = {}
    for key in order:
        found = reference["releases"][key]["discontinued"]
        for binding in out:
            if binding not in found:
                raise SystemExit(f"{binding}: refused from {out[binding][0]} but not in {key}")
        for binding, message in found.items():
            major, minor = (int(p) for p in key.split("."))
            out.setdefault(binding, ((major, minor), message))
    return dict(sorted(out.items()))


def topology_releases(reference: dict[str, Any]) -> tuple[str, dict[str, tuple[tuple[int, int], str]]]:
    """(the warning's format, deprecated topology -> (first release warning of it, its replacement)); a
    warning must hold, with the same replacement and format, in every later release."""
    order = sorted(reference["releases"], key=lambda k: tuple(int(p) for p in k.split(".")))
    out: dict[str, tuple[tuple[int, int], str]] = {}
    message = ""
    for key in order:
        found = reference["releases"][key].get("deprecated_topologies") or {}
        if out and found.get("message") != message:
            raise SystemExit(f"{key}: the deprecated-topology warning changed or vanished")
        message = found.get("message", message)
        replacements = found.get("replacements", {})
        for old, (since, new) in out.items():
            if replacements.get(old) != new:
                raise SystemExit(f"{old}: deprecated for {new} from {since} but not so in {key}")
        for old, new in replacements.items():
            major, minor = (int(p) for p in key.split("."))
            out.setdefault(old, ((major, minor), new))
    return message, dict(sorted(out.items()))


_HEADER = "# Generated by scripts/gen_webhook_facts.py from reference/kubevirt-webhooks.json: do not edit, regenerate."
_DOC = """\
KubeVirt admission facts per release that no schema holds (its network admitter).

DISCONTINUED_BINDINGS: an interface binding (the field of `domain.devices.interfaces[]`) that KubeVirt
refuses when a VM or VMI is created, from the first release that refuses it, with the webhook's message.
DEPRECATED_TOPOLOGIES: a preference's `cpu.preferredCPUTopology` that the preference admitter warns of as
deprecated, from the first release warning (which also brought the replacement value), with the value to
use instead; DEPRECATED_TOPOLOGY_MESSAGE: the warning's Go format (old value, new value)."""


def render(reference: dict[str, Any]) -> str:
    message, topologies = topology_releases(reference)
    lines = [
        *preamble(_HEADER, _DOC),
        "DISCONTINUED_BINDINGS: dict[str, tuple[Release, str]] = {",
        *(f"    {json.dumps(b)}: ({r!r}, {json.dumps(m)})," for b, (r, m) in first_releases(reference).items()),
        "}",
        "",
        "DEPRECATED_TOPOLOGIES: dict[str, tuple[Release, str]] = {",
        *(f"    {json.dumps(old)}: ({r!r}, {json.dumps(new)})," for old, (r, new) in topologies.items()),
        "}",
        "DEPRECATED_TOPOLOGY_MESSAGE = (",
        f"    {json.dumps(message)}",
        ")",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kubevirt-git", help="a KubeVirt git directory: refresh reference/kubevirt-webhooks.json")
    args = parser.parse_args(argv)
    if args.kubevirt_git:
        REFERENCE.write_text(json.dumps(extract(args.kubevirt_git), indent=2, sort_keys=True) + "\n")
    MODULE.write_text(render(json.loads(REFERENCE.read_text())))
    print(f"wrote {MODULE.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
