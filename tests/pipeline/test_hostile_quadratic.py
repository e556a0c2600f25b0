"""Quadratic readers (issue 32, item 4): a Helm release record of many empty gzip members, a chart or
Jinja template line of many unclosed `{{`, an apiVersion value of many `{{/*`, a mapping of many
`apiVersion:` lines. Work is counted where it can be (bytes fed to zlib, lines looked at); the
template actions are run at a size where the quadratic readers took many minutes (measured: 20,000
`{{` 6 s, so 200,000 about 10 minutes; 20,000 `{{/*` 61 s) and the linear ones a fraction of a
second, with a guard far above the linear time (no timed assertion: the outcome is asserted)."""

from __future__ import annotations

import base64
import gzip
import json
import pathlib
import zlib
from types import SimpleNamespace
from typing import Any

import pytest

from tests.integrations.test_helm_releases import UPGRADED, decoded, go_json, record, release, run
from tests.support.cli import run_module
from transform.formats.helm_chart import template as helmtemplate
from transform.formats.helm_release import record as helmrelease
from transform.kubevirt import apis

ROOT = pathlib.Path(__file__).resolve().parents[2]
GUARD = 300  # seconds: a hang guard, far above the linear run (under 1 s), far below the quadratic one


def _members(n: int) -> bytes:
    return gzip.compress(go_json(release(1, "deployed")).encode(), 9) + gzip.compress(b"") * n


def _fed(raw: bytes, monkeypatch: pytest.MonkeyPatch) -> int:
    """Bytes handed to zlib while the record's gzip members are read."""
    fed = [0]

    class Counting:
        def __init__(self, wbits: int) -> None:
            self.d = zlib.decompressobj(wbits)

        def decompress(self, data: Any, max_length: int = 0) -> bytes:
            fed[0] += len(data)
            return self.d.decompress(data, max_length)

        def __getattr__(self, name: str) -> Any:
            return getattr(self.d, name)

    fake = SimpleNamespace(**{k: getattr(zlib, k) for k in dir(zlib) if not k.startswith("__")})
    fake.decompressobj = Counting
    monkeypatch.setattr(helmrelease, "zlib", fake)
    helmrelease.decode("ConfigMap", base64.b64encode(raw).decode(), 1 << 24)
    monkeypatch.undo()
    return fed[0]


def test_gzip_members_are_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Was: every member handed the rest of the record to zlib again (160,000 members: a minute)."""
    for n in (2_000, 8_000):
        raw = _members(n)
        assert _fed(raw, monkeypatch) <= 4 * len(raw), n  # at most 64 bytes for a member of 20


def test_a_record_of_160000_empty_members_is_upgraded(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    obj = record(1, "deployed")
    helm = base64.b64encode(_members(160_000)).decode()
    obj["data"]["release"] = base64.b64encode(helm.encode()).decode()
    (tmp_path / "rec.json").write_text(json.dumps(obj))
    code, out = run(["fix", str(tmp_path)], capsys)
    assert code == 1, out
    assert json.loads(decoded(json.loads((tmp_path / "rec.json").read_text())))["manifest"] == UPGRADED


class _Counted(list[Any]):
    """The structure lines of a template, counting every look-up by index."""

    looked = 0

    def __getitem__(self, i: Any) -> Any:
        _Counted.looked += 1
        return super().__getitem__(i)


def _lookups(text: str, monkeypatch: pytest.MonkeyPatch) -> int:
    real = helmtemplate.structure
    monkeypatch.setattr(helmtemplate, "structure", lambda raw: _Counted(real(raw)))
    _Counted.looked = 0
    helmtemplate.upgrade(text, _targets())
    monkeypatch.undo()
    return _Counted.looked


def _targets() -> apis.Targets:
    from transform.model.settings import Settings

    s = Settings()
    return apis.Targets(s.target, s.target_cdi)


@pytest.mark.parametrize(
    "line",
    [
        pytest.param("  apiVersion: kubevirt.io/v1alpha3\n", id="apiVersion-lines-of-one-mapping"),
        pytest.param(
            "  - apiVersion: kubevirt.io/v1alpha3\n    kind: VirtualMachine\n    metadata: {name: x}\n",
            id="items-of-a-List",
        ),
    ],
)
def test_the_kind_beside_each_apiversion_is_found_without_a_walk(line: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Was: every apiVersion line walked its whole mapping for the kind beside it (10,000: 17 s)."""
    head = "apiVersion: v1\nkind: List\nitems:\n" if line.startswith("  -") else "kind: VirtualMachine\nspec:\n"
    small, large = (_lookups(head + line * n, monkeypatch) for n in (2_000, 4_000))
    assert large <= 2.1 * small, (small, large)


N = 200_000
CHART = {"Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\n"}
VM = "apiVersion: kubevirt.io/v1alpha3\nkind: VirtualMachine\nmetadata:\n  name: x\n"
CASES = {
    "unclosed-actions-line": (VM + "{{ " * N + "\n", "core.upgraded"),
    "comment-openings-value": ("kind: VirtualMachine\napiVersion: " + "{{/* " * N + "\n", "helm.templated-apiversion"),
}


@pytest.mark.parametrize("where", ["chart", "jinja"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_template_lines_of_many_actions(case: str, where: str, tmp_path: pathlib.Path) -> None:
    text, code = CASES[case]
    if where == "chart":
        for name, body in CHART.items():
            (tmp_path / name).write_text(body)
        (tmp_path / "templates").mkdir()
        path = tmp_path / "templates" / "t.yaml"
    else:
        path = tmp_path / "t.yaml"
        text = "{% if vm %}\n" + text + "{% endif %}\n"
    path.write_text(text)
    done = run_module("check", "--format", "json", path, text=True, timeout=GUARD)
    assert done.returncode in (0, 1), done.stderr[-2000:]
    found = json.loads(done.stdout)["findings"]
    assert code in {f["code"] for f in found}, found
    assert all(len(f["message"]) < 1000 for f in found)  # a 1 MB line is not quoted whole
