"""The engine names no container format: outside `transform/formats/` (and the shell, `integrations/` and
`cli/`, which drive Velero's two passes, the KRM function and the options), the code that mentions Helm,
kustomize, ResourceLists or Velero is exactly the lines below, each with its reason. Comments and
docstrings may explain the domain; code may not branch on a format. A new mention fails here: put it in
the format's package, behind `formats.base.Format`, or add it below with its reason. The registry of finding
codes (`model/codes.py`) lists the formats' codes as data and is not read here.
"""

from __future__ import annotations

import ast
import io
import pathlib
import re
import tokenize

ROOT = pathlib.Path(__file__).resolve().parents[2]
WORDS = re.compile(r"helm|kustomiz|resourcelist|velero", re.IGNORECASE)
SHELL = ("transform/formats/", "transform/integrations/", "transform/cli/")
# the registry of finding codes names every code, the formats' own families (`helm.*`, `kustomize.*`) too:
# data, read by the report and the options, never a branch of the engine
REGISTRIES = ("transform/model/codes.py",)

ALLOWED: dict[str, list[str]] = {
    # user-facing words of a rule: what kustomize or Velero does with the object (domain, not a branch)
    "transform/convert/apiversion.py": [
        'f"a {kind} is an action: creating it again (kubectl apply, a Velero restore) runs the {verb} again; "',
    ],
    "transform/pipeline/verify.py": [
        'message=f"{f.message} (a partial object such as a kustomize patch? pass the "',
        '"kustomization that lists it, as an input or under --context, to have it judged as one)"',
    ],
    "transform/convert/wronggroup.py": [
        '"kustomize.wrong-group",',
        'f"{m.message}: a patch applied by `target` (kustomize ignores its group, version and kind): "',
        '+ "? (if it is a kustomize patch applied by `target`, `fix` on the tree holding its kustomization "',
        'f"patches, so kustomize still applies it; {m.advice}",',
    ],
    # the option --helm-releases, as the engine reads it (model/settings: the one record of the options)
    "transform/model/settings.py": [
        'helm_releases: str = "latest"  # Helm release records rewritten: latest (deployed) | all | none',
    ],
    # the pre-filter's needle of a Helm release record (a document the engine must parse)
    "transform/yamltext/textio.py": [
        'HELM_NEEDLE = "release.v1"',
        'NEEDLES_STR = ("ControllerRevision", "VirtualMachine", *apis.needles(), HELM_NEEDLE)',
    ],
    # the hint of a YAML error in a document that holds template markers
    "transform/pipeline/onefile.py": [
        'return " (this looks like a Helm or Jinja template: run the tool on rendered manifests)"',
    ],
    # report formats: a KRM result's field path is written as kustomize writes one; the peer tools' files
    "transform/report/formats.py": [
        '"kustomize_path",',
        "def kustomize_path(path: Sequence[Any]) -> str:",
        'result["field"] = {"path": kustomize_path(f.path)}',
    ],
    "transform/report/peers.py": [
        '"# helm-mapkubeapis Map file for the KubeVirt and CDI APIs, made by `instancetype-upgrade export mapkubeapis`",',
        "\"# deprecatedInVersion/removedInVersion are KubeVirt's (or CDI's) releases; helm-mapkubeapis applies a\",",
    ],
}


def _code_lines(path: pathlib.Path) -> list[str]:
    """The lines of `path` whose code (not a comment, not a docstring) names a format."""
    text = path.read_text()
    docstrings: set[int] = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                docstrings.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    hits: set[int] = set()
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type != tokenize.COMMENT and tok.start[0] not in docstrings and WORDS.search(tok.string):
            hits.add(tok.start[0])
    lines = text.splitlines()
    return [lines[n - 1].strip() for n in sorted(hits)]


def test_the_engine_names_no_format_outside_its_allowed_lines() -> None:
    found: dict[str, list[str]] = {}
    for path in sorted((ROOT / "transform").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if not rel.startswith(SHELL) and rel not in REGISTRIES and (lines := _code_lines(path)):
            found[rel] = lines
    assert found == ALLOWED


def test_the_scanner_sees_code_and_skips_comments_and_docstrings(tmp_path: pathlib.Path) -> None:
    module = tmp_path / "m.py"
    module.write_text('"""Helm in a docstring."""\n# kustomize in a comment\nx = 1  # Velero\ny = "ResourceList"\n')
    assert _code_lines(module) == ['y = "ResourceList"']
