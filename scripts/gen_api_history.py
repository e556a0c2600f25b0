"""The API versions older than the bundled CRDs, read from the sources that served them: the kinds of
KubeVirt's 2018 kubevirt.io versions and CDI's upload.cdi.kubevirt.io (an aggregated API, no CRD).

    python scripts/gen_api_history.py --kubevirt-git DIR --cdi-git DIR   # read the tags -> reference/
    python scripts/gen_api_history.py                                    # reference/api-history.json -> module

KubeVirt: at each v0.N.0 tag up to v0.12.0 (the last before kubevirt.io/v1alpha3), `pkg/api/v1/types.go`'s
`GroupVersion` (the kubevirt.io version it served) and the types its `scheme.AddKnownTypes(GroupVersion,
...)` registers that have their List type registered beside them (a resource kind: `Spice` is none).
CDI: at each v1.N.0 tag, the versions its cdi-apiserver serves for upload.cdi.kubevirt.io
(`uploadTokenVersions` in pkg/apiserver, `uploadTokenVersion` before v1.20) and, for each version whose Go
types the tag holds (`pkg/apis/upload{,controller}/VERSION/types.go`, later under staging/), the JSON
fields of UploadTokenRequestSpec and UploadTokenRequestStatus. A hop between two versions is an
apiVersion-only upgrade when their fields are the same: the generator stops if they are not.
The second step writes transform/kubevirt/apihistory.py; tests/kubevirt/test_apihistory.py holds it to the file.
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
REFERENCE = ROOT / "reference" / "api-history.json"
MODULE = ROOT / "transform" / "kubevirt" / "apihistory.py"
KUBEVIRT_TYPES = "pkg/api/v1/types.go"
KUBEVIRT_TAGS = [f"v0.{minor}.0" for minor in range(1, 13)]  # v0.13.0 serves v1alpha3: CRDs say its kinds
CDI_TAGS = [f"v1.{minor}.0" for minor in range(1, 67)]
CDI_APIS = ("pkg/apis", "staging/src/kubevirt.io/containerized-data-importer-api/pkg/apis")
_GROUP_VERSION = re.compile(r'var GroupVersion = schema\.GroupVersion\{Group: GroupName, Version: "(\w+)"\}')
_KNOWN_TYPES = re.compile(r"scheme\.AddKnownTypes\(GroupVersion,(?P<body>[^)]*)\)")
_TYPE = re.compile(r"&(\w+)\{\}")
_VERSIONS = re.compile(
    r'uploadTokenVersions\s*=\s*\[\]string\{(?P<list>[^}]*)\}|uploadTokenVersion\s*=\s*"(?P<one>\w+)"'
)
_UPLOAD_TYPES = re.compile(r"/apis/upload(?:controller)?/(v\w+)/types\.go$")
_FIELD = re.compile(r'^\s*\w+\s+(?P<type>[\w.*\[\]]+)\s+`json:"(?P<name>[^",]+)', re.M)


def resource_kinds(types_go: str) -> tuple[str, tuple[str, ...]]:
    """(the kubevirt.io version, the resource kinds it registers) of one release's pkg/api/v1/types.go."""
    version, known = _GROUP_VERSION.search(types_go), _KNOWN_TYPES.search(types_go)
    if version is None or known is None:
        raise SystemExit("types.go: no GroupVersion or AddKnownTypes(GroupVersion, ...)")
    names = set(_TYPE.findall(known["body"]))
    return version[1], tuple(sorted(n for n in names if f"{n}List" in names))


def served_versions(sources: list[str]) -> list[str]:
    """The upload.cdi.kubevirt.io versions cdi-apiserver serves, first the preferred one."""
    for source in sources:
        match = _VERSIONS.search(source)
        if match is not None:
            return [match["one"]] if match["one"] else re.findall(r'"(\w+)"', match["list"])
    return []


def token_request_fields(types_go: str) -> dict[str, dict[str, str]]:
    """UploadTokenRequest's spec and status JSON fields (name -> Go type) in one version's types.go."""
    out = {}
    for part in ("Spec", "Status"):
        body = re.search(rf"type UploadTokenRequest{part} struct \{{(?P<body>.*?)\n\}}", types_go, re.S)
        if body is None:
            raise SystemExit(f"types.go: no UploadTokenRequest{part}")
        out[part.lower()] = {m["name"]: m["type"] for m in _FIELD.finditer(body["body"])}
    return out


def extract_kubevirt(git_dir: str) -> dict[str, Any]:
    git = git_runner(git_dir)
    out = {}
    for tag in KUBEVIRT_TAGS:
        version, kinds = resource_kinds(git("show", f"{tag}:{KUBEVIRT_TYPES}"))
        out[tag] = {"commit": git("rev-parse", f"{tag}^{{commit}}").strip(), "version": version, "kinds": list(kinds)}
    return out


def extract_cdi(git_dir: str) -> dict[str, Any]:
    git = git_runner(git_dir)
    out = {}
    for tag in CDI_TAGS:
        listed = subprocess.run(
            ["git", "--git-dir", git_dir, "grep", "-h", "-E", "uploadTokenVersions? *=", tag, "--", "pkg/apiserver"],
            capture_output=True,
            text=True,
        ).stdout
        names = git("ls-tree", "-r", "--name-only", tag, "--", *CDI_APIS).split()
        types = {}
        for name in names:
            match = _UPLOAD_TYPES.search(name)
            if match is not None and "UploadTokenRequestSpec" in (text := git("show", f"{tag}:{name}")):
                types[match[1]] = token_request_fields(text)
        out[tag] = {
            "commit": git("rev-parse", f"{tag}^{{commit}}").strip(),
            "served": served_versions([listed]),
            "types": types,
        }
    return out


def _release(tag: str) -> tuple[int, int]:
    major, minor, _ = (int(p) for p in tag.removeprefix("v").split("."))
    return major, minor


def kubevirt_kinds(reference: dict[str, Any]) -> dict[str, tuple[str, ...]]:
    """kubevirt.io version -> every resource kind any release registered under it."""
    out: dict[str, set[str]] = {}
    for release in reference["kubevirt"].values():
        out.setdefault(release["version"], set()).update(release["kinds"])
    return {version: tuple(sorted(kinds)) for version, kinds in sorted(out.items())}


def upload_versions(reference: dict[str, Any]) -> dict[str, tuple[tuple[int, int], tuple[int, int] | None]]:
    """upload.cdi.kubevirt.io version -> (first CDI release serving it, first release no longer serving it or
    None); stops when two versions' UploadTokenRequest fields differ (not an apiVersion-only hop)."""
    order = sorted(reference["cdi"], key=_release)
    spans: dict[str, list[Any]] = {}
    shapes: dict[str, Any] = {}
    for tag in order:
        release = reference["cdi"][tag]
        for version in release["served"]:
            spans.setdefault(version, [_release(tag), None])
        for version, span in spans.items():
            if version not in release["served"] and span[1] is None:
                span[1] = _release(tag)
        for version, fields in release["types"].items():
            if shapes.setdefault(version, fields) != fields:
                raise SystemExit(f"upload {version}: UploadTokenRequest changed at {tag}")
    if len({json.dumps(s, sort_keys=True) for s in shapes.values()}) > 1:
        raise SystemExit(f"upload versions differ in UploadTokenRequest's fields: {shapes}")
    return {version: (span[0], span[1]) for version, span in sorted(spans.items())}


_HEADER = "# Generated by scripts/gen_api_history.py from reference/api-history.json: do not edit, regenerate."
_DOC = """\
API versions older than the bundled CRDs, from the sources that served them.

KUBEVIRT_KINDS: each kubevirt.io version of KubeVirt v0.1-v0.12 and every resource kind a release registered
under it (pkg/api/v1/types.go): a kind not listed under its version is no KubeVirt object.
UPLOAD_TOKEN_VERSIONS: each upload.cdi.kubevirt.io version (UploadTokenRequest, cdi-apiserver's aggregated
API) with the first CDI release serving it and the first no longer serving it (None: still served); every
version's UploadTokenRequest has the same fields (the generator checks it), so a hop rewrites apiVersion only."""


def render(reference: dict[str, Any]) -> str:
    lines = [
        *preamble(_HEADER, _DOC),
        "KUBEVIRT_KINDS: dict[str, tuple[str, ...]] = {",
        *(
            line
            for v, kinds in kubevirt_kinds(reference).items()
            for line in (f"    {json.dumps(v)}: (", *(f"        {json.dumps(k)}," for k in kinds), "    ),")
        ),
        "}",
        "",
        "UPLOAD_TOKEN_VERSIONS: dict[str, tuple[Release, Release | None]] = {",
        *(f"    {json.dumps(v)}: ({first!r}, {gone!r})," for v, (first, gone) in upload_versions(reference).items()),
        "}",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kubevirt-git", help="a KubeVirt git directory (with --cdi-git: refresh the reference)")
    parser.add_argument("--cdi-git", help="a CDI git directory")
    args = parser.parse_args(argv)
    if args.kubevirt_git and args.cdi_git:
        reference = {
            "about": "kubevirt: kubevirt/kubevirt pkg/api/v1/types.go at each tag (served version, resource kinds); "
            "cdi: kubevirt/containerized-data-importer pkg/apiserver (upload versions served) and the upload "
            "API's types.go (UploadTokenRequest spec/status fields) at each tag, read by scripts/gen_api_history.py",
            "kubevirt": extract_kubevirt(args.kubevirt_git),
            "cdi": extract_cdi(args.cdi_git),
        }
        REFERENCE.write_text(json.dumps(reference, indent=2, sort_keys=True) + "\n")
    elif args.kubevirt_git or args.cdi_git:
        parser.error("--kubevirt-git and --cdi-git go together")
    MODULE.write_text(render(json.loads(REFERENCE.read_text())))
    print(f"wrote {MODULE.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
