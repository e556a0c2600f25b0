"""The package's shape: layers import only downwards, no cycles, no private names across modules, lazy imports marked.

Layer order, lowest first (docs/design.md): a module may import its own layer and the layers below it.
"""

from __future__ import annotations

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "transform"
LAYERS = [
    "model",
    "kubevirt",
    "yamltext",
    "validate",
    "convert",
    "formats",
    "pipeline",
    "report",
    "integrations",
    "cli",
]
TOP = {"__init__", "__main__"}
LAZY_MARK = "lazy:"  # a function-level import carries `# lazy: <why>` on its line or the line above


def _modules() -> dict[str, pathlib.Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(ROOT).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _layer(module: str) -> int | None:
    parts = module.split(".")
    if len(parts) < 2 or parts[1] in TOP:
        return None
    return LAYERS.index(parts[1]) if parts[1] in LAYERS else -1


def _imports(path: pathlib.Path) -> list[tuple[ast.stmt, str, list[str], bool]]:
    """(node, imported module, imported names, at module level) for every import of transform."""
    tree = ast.parse(path.read_text(), str(path))
    top = set(map(id, tree.body))
    for stmt in tree.body:  # imports under `if TYPE_CHECKING:` count as module level
        if isinstance(stmt, ast.If):
            top.update(map(id, stmt.body))
    found: list[tuple[ast.stmt, str, list[str], bool]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "transform":
            names = [a.name for a in node.names]
            base = node.module
            for name in names:
                target = f"{base}.{name}" if f"{base}.{name}" in MODULES else base
                found.append((node, target, [name] if target == base else [], id(node) in top))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "transform":
                    found.append((node, alias.name, [], id(node) in top))
    return found


def test_every_module_is_in_a_layer() -> None:
    stray = [m for m in MODULES if m != "transform" and _layer(m) == -1]
    assert stray == [], f"modules outside the layer packages {LAYERS}: {stray}"


def test_layers_import_only_downwards() -> None:
    bad = []
    for module, path in MODULES.items():
        mine = _layer(module)
        if mine is None:
            continue
        for node, target, _, _ in _imports(path):
            theirs = _layer(target)
            if theirs is not None and theirs > mine:
                bad.append(f"{path.relative_to(ROOT)}:{node.lineno}: {LAYERS[mine]} imports {target}")
    assert bad == []


def test_no_private_names_across_modules() -> None:
    bad = []
    for module, path in MODULES.items():
        for node, target, names, _ in _imports(path):
            if target == module:
                continue
            for name in names:
                if name.startswith("_") and not name.startswith("__"):
                    bad.append(f"{path.relative_to(ROOT)}:{node.lineno}: {name} from {target}")
    assert bad == []


def test_function_level_imports_are_marked_lazy() -> None:
    bad = []
    for path in MODULES.values():
        lines = path.read_text().splitlines()
        for node, target, _, top in _imports(path):
            if top:
                continue
            start = node.lineno - 1  # a block of imports shares the comment above its first line
            while start > 0 and lines[start - 1].strip().startswith(("from ", "import ")):
                start -= 1
            here = lines[node.lineno - 1]
            above = lines[start - 1] if start > 0 else ""
            if LAZY_MARK not in here and LAZY_MARK not in above:
                bad.append(f"{path.relative_to(ROOT)}:{node.lineno}: import of {target} inside a function")
    assert bad == [], "mark documented lazy imports with '# lazy: <why>' or move them to the top"


def _graph() -> dict[str, set[str]]:
    return {m: {t for _, t, _, top in _imports(p) if top and t in MODULES and t != m} for m, p in MODULES.items()}


def test_no_import_cycles() -> None:
    graph = _graph()
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    assert cycles == []


@pytest.mark.parametrize("package", LAYERS)
def test_each_layer_says_its_job(package: str) -> None:
    doc = ast.get_docstring(ast.parse((PACKAGE / package / "__init__.py").read_text()))
    assert doc and len(doc) > 20


def test_readme_design_names_every_module() -> None:
    text = (ROOT / "docs" / "design.md").read_text()
    design = text[: text.index("\n## Dependencies")]
    missing = []
    for module in MODULES:
        parts = module.split(".")
        if len(parts) < 3 or parts[-1] in TOP:
            continue
        if f"`{parts[-1]}`" not in design and f"`{parts[-1]}/`" not in design and f"+ `{parts[-1]}`" not in design:
            missing.append(module)
    for layer in LAYERS:
        if f"`{layer}/`" not in design:
            missing.append(layer + "/")
    assert missing == [], "docs/design.md must name every module and layer"


def test_readme_design_names_where_to_add_things() -> None:
    """The README's Design section draws the data path and names one place each for a version hop, a
    report format, an input source and an output; each place is in the package (issue 20 §4)."""
    readme = (ROOT / "README.md").read_text()
    assert "\n## Design\n" in readme
    section = readme.split("\n## Design\n", 1)[1].split("\n## ", 1)[0]
    for what in ("a version hop", "a report format", "an input source", "an output"):
        assert what in section, what
    places = {
        "STEPS": PACKAGE / "convert" / "__init__.py",
        "RENDERERS": PACKAGE / "report" / "formats.py",
        "read_sources": PACKAGE / "pipeline" / "batch.py",
        "Sink": PACKAGE / "pipeline" / "outputs.py",
        "verdict": PACKAGE / "model" / "policy.py",
    }
    for name, path in places.items():
        assert f"`{name}`" in section or name in section, name
        assert f"{name}" in path.read_text(), (name, path)
