"""Template edits inside strings and comments (issue 32, item 5): `fix` on a chart template or a Jinja
file moves only the apiVersion lines of objects, never `apiVersion:` text inside a quoted scalar that
spans lines, a block scalar after a column-0 `{{ include }}` line, a `{{/* */}}` comment, a multi-line
action, or a Jinja `{# #}` / `{% %}` block; and counts only real objects. Helm itself (the `test`
extra) renders each chart before and after: the same objects, only apiVersions moved."""

from __future__ import annotations

import json
import pathlib

import pytest

from tests.formats.test_helm_charts import chart, cli  # noqa: F401  (the fixture, used by name)
from tests.oracles.helm_render import needs_helm, only_api_versions_moved, render

HEAD = """\
apiVersion: kubevirt.io/v1alpha3
kind: VirtualMachine
metadata:
  name: vm
  annotations:
    a: b
{meta}spec:
  runStrategy: Halted
  template:
    spec:
      domain:
        devices: {{}}
{tail}"""
SNIPPETS = {
    "double-quoted-over-lines": (
        '    note: "first line\n      apiVersion: kubevirt.io/v1alpha3\n      kind: VirtualMachine \\" end"\n',
        "",
    ),
    "single-quoted-over-lines": (
        "    note: 'it''s\n      apiVersion: pool.kubevirt.io/v1alpha1\n      kind: VirtualMachinePool'\n",
        "",
    ),
    "block-scalar-after-include": (
        "",
        "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: script\ndata:\n  script: |\n"
        '{{ include "c.script" . | indent 4 }}\n    apiVersion: kubevirt.io/v1alpha3\n    kind: VirtualMachine\n',
    ),
    "comment-action": ("", "{{/*\napiVersion: kubevirt.io/v1alpha3\nkind: VirtualMachine\n*/}}\n"),
    "trimmed-comment-action": (
        "",
        "{{- /* old:\n  apiVersion: kubevirt.io/v1alpha3\n  kind: VirtualMachine */ -}}\n",
    ),
    "multi-line-action": ("", "{{- $old := `\napiVersion: kubevirt.io/v1alpha3\nkind: VirtualMachine\n` }}\n"),
}
HELPERS = '{{- define "c.script" -}}\necho hi\n{{- end -}}\n'


def make_chart(root: pathlib.Path, template: str) -> pathlib.Path:
    c = root / "c"
    (c / "templates").mkdir(parents=True)
    (c / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    (c / "templates" / "_helpers.tpl").write_text(HELPERS)
    (c / "templates" / "vm.yaml").write_text(template)
    return c


def fixed_only_the_object(path: pathlib.Path, before: str) -> None:
    """Only line 1 (the VirtualMachine's apiVersion) moved; every other byte as it was."""
    after = path.read_text()
    old, new = before.split("\n"), after.split("\n")
    assert len(old) == len(new)
    assert [i for i, (a, b) in enumerate(zip(old, new, strict=True)) if a != b] == [0], after
    assert new[0] == "apiVersion: kubevirt.io/v1"


@pytest.mark.parametrize("case", sorted(SNIPPETS))
def test_only_object_lines_move_in_a_chart(case: str, tmp_path: pathlib.Path) -> None:
    meta, tail = SNIPPETS[case]
    text = HEAD.format(meta=meta, tail=tail)
    c = make_chart(tmp_path, text)
    code, out, _ = cli("check", "--format", "json", str(c))
    assert code == 1, out
    report = json.loads(out)
    assert report["summary"]["objects_upgraded"] == 1, report["summary"]
    assert [f["line"] for f in report["findings"] if f["code"].endswith("upgraded")] == [1], report["findings"]
    assert cli("fix", str(c))[0] == 1
    fixed_only_the_object(c / "templates" / "vm.yaml", text)
    assert cli("check", str(c))[0] == 0


@needs_helm
@pytest.mark.parametrize("case", sorted(SNIPPETS))
def test_helm_renders_the_same_objects_after_fix(case: str, tmp_path: pathlib.Path) -> None:
    meta, tail = SNIPPETS[case]
    c = make_chart(tmp_path, HEAD.format(meta=meta, tail=tail))
    before = render(c)
    assert cli("fix", str(c))[0] == 1
    assert only_api_versions_moved(before, render(c)) == [("kubevirt.io/v1alpha3", "kubevirt.io/v1")]


@needs_helm
def test_helm_renders_the_chart_tests_chart_the_same_after_fix(chart: pathlib.Path) -> None:  # noqa: F811
    """The chart of tests/formats/test_helm_charts.py (with the label helper it includes), rendered
    with two VMs: every object the same after fix, only apiVersions moved."""
    (chart / "templates" / "_labels.tpl").write_text('{{- define "vms.labels" -}}\napp: vms\n{{- end }}\n')
    values = {"vms": [{"name": "a"}, {"name": "b", "size": "u1.medium"}]}
    before = render(chart, values)
    assert cli("fix", str(chart))[0] == 1
    moved = only_api_versions_moved(before, render(chart, values))
    assert sorted(set(moved)) == [
        ("instancetype.kubevirt.io/v1alpha2", "instancetype.kubevirt.io/v1beta1"),
        ("kubevirt.io/v1alpha3", "kubevirt.io/v1"),
        ("pool.kubevirt.io/v1alpha1", "pool.kubevirt.io/v1beta1"),
    ]


JINJA = {
    "comment": "{#\napiVersion: kubevirt.io/v1alpha3\nkind: VirtualMachine\n#}\n",
    "statement": '{% set old = "\napiVersion: kubevirt.io/v1alpha3\nkind: VirtualMachine\n" %}\n',
    "quoted": "",
}


@pytest.mark.parametrize("case", sorted(JINJA))
def test_only_object_lines_move_in_a_jinja_file(case: str, tmp_path: pathlib.Path) -> None:
    meta = SNIPPETS["double-quoted-over-lines"][0] if case == "quoted" else ""
    text = HEAD.format(meta=meta, tail=JINJA[case]).replace("name: vm", "name: {{ name }}")
    path = tmp_path / "vm.yaml"
    path.write_text(text)
    code, out, _ = cli("check", "--format", "json", str(path))
    assert code == 1, out
    assert json.loads(out)["summary"]["objects_upgraded"] == 1
    assert cli("fix", str(path))[0] == 1
    fixed_only_the_object(path, text)
