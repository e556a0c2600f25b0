"""The registry of finding codes (transform/model/codes.py) is the only place a code is defined.

Walks every module of `transform/`: each string that reads as a code is registered, each per-family template
(`f"{family}.upgraded"`) names a registered family code, every `error()/warning()/info()` call raises its code
with a severity the registry gives it, and every registered code is raised somewhere. Under the test suite an
unregistered code is an internal error at run time too (tests/conftest.py sets the check on).
"""

from __future__ import annotations

import ast
import pathlib
import re
from collections.abc import Iterator

import pytest

from transform.kubevirt import apis
from transform.model import codes, findings

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "transform"
REGISTRY = PACKAGE / "model" / "codes.py"
CONSTRUCTORS = {"error", "warning", "info"}
SUFFIXES = {suffix for suffix, *_ in codes.FAMILY_CODES}
_PREFIXES = "|".join(re.escape(p) for p in sorted({*codes.GROUPS, *codes.FAMILIES}, key=len, reverse=True))
CODE_SHAPED = re.compile(rf"(?:{_PREFIXES})\.[A-Za-z][A-Za-z0-9-]*")
# read as codes, but a domain (`*.cdi.io`) and a flag of kustomize's hints (not a finding code)
NOT_CODES = {"cdi.io", "kustomize.remote"}


def _modules() -> Iterator[tuple[pathlib.Path, ast.Module]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        if path != REGISTRY:
            yield path, ast.parse(path.read_text(), str(path))


MODULES = list(_modules())


def _where(path: pathlib.Path, node: ast.AST) -> str:
    return f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 0)}"


def _string_calls(tree: ast.Module, methods: tuple[str, ...]) -> set[int]:
    """ids of the string constants passed to `.startswith()`/`.endswith()` (prefixes and suffixes, not codes)."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in methods:
            for arg in node.args:
                out.update(id(n) for n in ast.walk(arg) if isinstance(n, ast.Constant))
    return out


def test_every_code_shaped_string_is_registered() -> None:
    """A literal that reads as a code (`schema.required`, compared, raised, passed on) is a registered code;
    one given to `startswith` is a prefix of a registered code."""
    bad = []
    for path, tree in MODULES:
        prefixes = _string_calls(tree, ("startswith",))
        suffixes = _string_calls(tree, ("endswith",))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
                continue
            text = node.value
            if not CODE_SHAPED.fullmatch(text) or text in codes.KNOWN or text in NOT_CODES:
                continue
            if id(node) in prefixes and codes.matching(text):
                continue
            if id(node) in suffixes and any(c.endswith(text) for c in codes.KNOWN):
                continue
            bad.append(f"{_where(path, node)}: {text!r}")
    assert bad == [], "unregistered finding codes (add them to transform/model/codes.py):\n" + "\n".join(bad)


def _functions(tree: ast.Module) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node


def _literals(expr: ast.expr) -> set[str] | None:
    """The strings an expression can be, when it is made of literals only (a constant, `a if c else b`)."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return {expr.value}
    if isinstance(expr, ast.IfExp):
        body, orelse = _literals(expr.body), _literals(expr.orelse)
        return None if body is None or orelse is None else body | orelse
    return None


def _arguments(tree: ast.Module, function: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> set[str] | None:
    """The literal values every call of `function` in its module passes for its parameter `name`."""
    params = [a.arg for a in function.args.args]
    if name not in params:
        return None
    index = params.index(name)
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == function.name:
            given = [kw.value for kw in node.keywords if kw.arg == name] or node.args[index : index + 1]
            values = _literals(given[0]) if given else None
            if values is None:
                return None
            out |= values
    return out


def _family_templates() -> Iterator[tuple[str, str, set[str] | None]]:
    """(where, template, the suffixes it can build) of every `f"{...family...}.suffix"` in transform/."""
    for path, tree in MODULES:
        owner = {id(n): f for f in _functions(tree) for n in ast.walk(f)}
        for node in ast.walk(tree):
            if not isinstance(node, ast.JoinedStr) or len(node.values) < 2:
                continue
            head, rest = node.values[0], node.values[1:]
            if not (isinstance(head, ast.FormattedValue) and "fam" in ast.unparse(head.value)):
                continue
            first = rest[0]
            if not (isinstance(first, ast.Constant) and isinstance(first.value, str) and first.value.startswith(".")):
                continue
            suffixes: set[str] | None
            if len(rest) == 1:
                suffixes = {first.value[1:]}
            elif len(rest) == 2 and first.value == "." and isinstance(rest[1], ast.FormattedValue):
                value = rest[1].value
                suffixes = _literals(value)
                function = owner.get(id(node))
                if suffixes is None and isinstance(value, ast.Name) and function is not None:
                    suffixes = _arguments(tree, function, value.id)
            else:
                suffixes = None
            yield _where(path, node), ast.unparse(node), suffixes


TEMPLATES = list(_family_templates())


def test_family_templates_build_registered_codes() -> None:
    """Every per-family template names a registered family code (a row of `codes.FAMILY_CODES`); a template
    whose suffix is a parameter is checked against every literal its callers pass."""
    assert len(TEMPLATES) >= 16, TEMPLATES  # the walk finds them (`f"{fam}.upgraded"`, ...)
    bad = [
        f"{where}: {text}: {sorted(s) if s else 'cannot tell'}" for where, text, s in TEMPLATES if not s or s - SUFFIXES
    ]
    assert bad == [], "per-family codes not in transform/model/codes.py FAMILY_CODES:\n" + "\n".join(bad)


def test_every_constructor_call_raises_a_registered_code_at_a_registered_severity() -> None:
    """`error(CODE, ...)`, `warning(...)`, `info(...)` (and `(error if x else warning)(...)`): a literal CODE is
    registered with that severity; anything else is a template, a name or a call (checked where it is built)."""
    bad = []
    for path, tree in MODULES:
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            callee = node.func
            options = [callee.body, callee.orelse] if isinstance(callee, ast.IfExp) else [callee]
            names = {n.id if isinstance(n, ast.Name) else getattr(n, "attr", "") for n in options}
            if not names or not names <= CONSTRUCTORS:
                continue
            code = node.args[0]
            if isinstance(code, ast.Constant):
                known = codes.CODES.get(str(code.value))
                if known is None or not names <= set(known.severities):
                    bad.append(f"{_where(path, node)}: {'|'.join(sorted(names))}({code.value!r})")
            elif not isinstance(code, (ast.JoinedStr, ast.Name, ast.Attribute, ast.Call)):
                bad.append(f"{_where(path, node)}: a code built as {ast.unparse(code)} (use a literal or a template)")
    assert bad == [], "codes raised unregistered or at a severity the registry does not give:\n" + "\n".join(bad)


def test_every_registered_code_is_raised_somewhere() -> None:
    """The table holds no dead code: each literal code appears in transform/, each family suffix in a template."""
    strings = {n.value for _, tree in MODULES for n in ast.walk(tree) if isinstance(n, ast.Constant)}
    built = {s for _, _, suffixes in TEMPLATES for s in suffixes or ()}
    family = {c for c in codes.KNOWN if codes.family_of(c)}
    assert sorted(c for c in codes.KNOWN - family if c not in strings) == []
    assert sorted(SUFFIXES - built) == []


def test_families_are_the_api_tables() -> None:
    assert codes.FAMILIES == apis.FAMILIES


def test_groups_and_docs() -> None:
    """Every code sits in a group; every page a code points at exists, with the anchor it names."""
    for code in codes.KNOWN:
        assert code.split(".", 1)[0] in {*codes.GROUPS, *codes.FAMILIES}, code
    for doc in {c.doc for c in codes.CODES.values()}:
        page, _, anchor = doc.partition("#")
        text = (ROOT / page).read_text()
        slugs = {_slug(line.lstrip("#")) for line in text.splitlines() if line.startswith("#")}
        assert not anchor or anchor in slugs, (doc, sorted(slugs))


def _slug(heading: str) -> str:
    """GitHub's anchor of a heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_an_unregistered_code_is_an_internal_error_under_the_suite() -> None:
    assert findings.CHECK_CODES
    findings.error("schema.required", "fine")
    with pytest.raises(AssertionError, match="not registered"):
        findings.error("schema.requird", "a typo")
    with pytest.raises(AssertionError, match="not registered"):
        findings.warning("schema.required", "x").at(code="nonsense")


@pytest.mark.parametrize(
    ("selector", "known"),
    [
        ("schema.required", True),
        ("schema", True),
        ("schema.", True),
        ("webhook.", True),
        ("webhook.deprecated", True),
        ("export", True),  # an API family
        ("cdi.upgraded", True),
        ("upgraded", True),
        ("shema.requird", False),
        ("nonsense.code", False),
        ("", True),  # (every code starts with "": the option parser drops empty values first)
        ("schema.required.x", False),
    ],
)
def test_selectors(selector: str, known: bool) -> None:
    assert (codes.unknown_selector(selector) is None) is known


def test_a_typo_is_answered_with_the_closest_codes() -> None:
    assert "did you mean 'schema.required'" in (codes.unknown_selector("shema.requird") or "")
