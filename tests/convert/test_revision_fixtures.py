"""Every golden revision input through the engine, held against the independent KubeVirt model."""

from __future__ import annotations

import os
import pathlib
import re

import pytest
import yaml

from tests.oracles import kubevirt_model as model
from transform.convert.index import Index
from transform.model.settings import Settings
from transform.pipeline.onefile import upgrade_file

# Where the tool deliberately does better than KubeVirt v1.6 (documented in the README).
DO_BETTER = {
    "flavor-kind": "revision.flavor",  # KubeVirt: no kind registered; we convert the pre-rename group
    "label-lies-v1beta1": "revision.label-lies",  # KubeVirt trusts the label and never reads it right
}
FIXTURES = sorted((pathlib.Path(__file__).resolve().parents[2] / "fixtures" / "revisions").glob("*.yaml"))
# The reviewed output of every upgraded fixture (UPDATE_GOLDENS=1 rewrites them; review the diff).
EXPECTED = FIXTURES[0].parent / "expected" if FIXTURES else pathlib.Path()


def _expect(text: str) -> str:
    for line in text.splitlines():
        if line.startswith("# expect:"):
            return line.split(":", 1)[1].strip()
    raise AssertionError("fixture without # expect:")


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_fixture(path: pathlib.Path) -> None:
    data = path.read_bytes()
    text = data.decode()
    expect = _expect(text)
    rename = re.search(r"^# rename: true$", text, re.M) is not None
    settings = Settings(rename=rename)
    result = upgrade_file(path.name, data, settings, Index())
    errors = [f for f in result.findings if f.severity.value == "error"]
    original = yaml.safe_load(text)
    if path.stem in DO_BETTER:
        assert result.changed and any(f.code == DO_BETTER[path.stem] for f in result.findings)
        return
    if expect.startswith("error"):
        assert errors, f"expected an error, got {result.findings}"
        assert result.new_text is None
        return
    assert not errors, [str(f) for f in errors]
    if expect.startswith("unchanged"):
        assert not result.changed
        return
    assert result.changed
    new = yaml.safe_load(result.new_text or "")
    want = model.expected_payload(original["data"])
    got = new["data"]
    if set(original["data"]) <= {"apiVersion", "spec"}:
        # a v1alpha1 wrapper: KubeVirt invents an identity; we recover the real one where we can
        assert got["spec"] == want["spec"]
        assert got["apiVersion"] == want["apiVersion"]
        assert model.FAMILY[got["kind"]] == model.FAMILY[want["kind"]] if hasattr(model, "FAMILY") else True
    else:
        assert got == want
    labels = new["metadata"]["labels"]
    assert labels["instancetype.kubevirt.io/object-version"] == "v1beta1"
    assert labels["instancetype.kubevirt.io/object-kind"] == got["kind"]
    if rename:
        want_cr = model.expected_revision(original)
        assert want_cr is not None
        assert new["metadata"]["name"] == want_cr["metadata"]["name"]
        assert new["metadata"]["ownerReferences"] == want_cr["metadata"]["ownerReferences"]
    # a second run changes nothing
    again = upgrade_file(path.name, (result.new_text or "").encode(), settings, Index())
    assert not again.changed, again.new_text
    golden = EXPECTED / path.name
    if os.environ.get("UPDATE_GOLDENS"):
        golden.parent.mkdir(exist_ok=True)
        golden.write_text(result.new_text or "")
    assert golden.exists(), f"no reviewed output {golden}: run with UPDATE_GOLDENS=1 and review it"
    assert result.new_text == golden.read_text()
