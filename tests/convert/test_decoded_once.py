"""With --rename a revision's payload is decoded once (issue 20 §4): the index decodes it to plan the
revision's new name, and the upgrade of the same document takes that decoding instead of decoding the
payload again (before: `revisions.planned_name` and the upgrade each decoded it).

KubeVirt's payload decoder is wrapped where the conversion calls it (`revisions.decode`) and where the
judge does (`decoding.decode`), counting calls per payload (by its JSON text)."""

from __future__ import annotations

import collections
import json
import pathlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.support.cli import invoke
from tests.validate.test_validated_once import DOCS
from transform.convert import revisions
from transform.validate import decoding

PAYLOADS = [d["data"] for d in DOCS if d["kind"] == "ControllerRevision"]


@pytest.fixture
def decodes(monkeypatch: pytest.MonkeyPatch) -> Iterator[collections.Counter[str]]:
    calls: collections.Counter[str] = collections.Counter()
    for module in (revisions, decoding):
        original: Callable[..., Any] = module.decode

        def counting(data: Any, *args: Any, original: Callable[..., Any] = original, **kwargs: Any) -> Any:
            calls[json.dumps(data, sort_keys=True)] += 1
            return original(data, *args, **kwargs)

        monkeypatch.setattr(module, "decode", counting)
    yield calls


def _files(tmp_path: pathlib.Path) -> list[str]:
    """Every document in its own file (the index reads the revisions before the VM's file is upgraded)."""
    paths = []
    for n, doc in enumerate(DOCS):
        path = tmp_path / f"{n}.yaml"
        path.write_text(json.dumps(doc, indent=2) + "\n")
        paths.append(str(path))
    return paths


@pytest.mark.parametrize("command", ["fix", "check", "diff"])
def test_with_rename_each_payload_is_decoded_once(
    tmp_path: pathlib.Path, decodes: collections.Counter[str], command: str
) -> None:
    result = invoke(command, "--rename", "-j", "1", *_files(tmp_path))
    assert result.exit_code in (0, 1), result.output
    assert "ControllerRevision default/vm-pref-" in result.output  # renamed (or would be)
    wanted = {json.dumps(p, sort_keys=True) for p in PAYLOADS}
    assert wanted <= set(decodes), "the payloads were not decoded on the path the command takes"
    assert {p: n for p, n in decodes.items() if n > 1} == {}


def test_the_krm_function_with_rename_decodes_each_payload_once(decodes: collections.Counter[str]) -> None:
    items = "".join(
        "- " + json.dumps(d) + "\n" for d in DOCS
    )  # block style: the list is read item by item (each a document)
    rl = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + items
    rl += "functionConfig:\n  kind: C\n  spec:\n    rename: true\n"
    result = invoke("krm", input=rl)
    assert result.exit_code in (0, 1), result.output
    assert {json.dumps(p, sort_keys=True) for p in PAYLOADS} <= set(decodes)
    assert {p: n for p, n in decodes.items() if n > 1} == {}
