"""A revision payload's JSON is read once, and checked in memory that grows with its depth, not its size
(issue 15, item 8: a payload of 300,000 list entries was read twice and its every entry stacked with its path)."""

from __future__ import annotations

import base64
import json
import random
import tracemalloc
from typing import Any

import pytest

from transform.convert import payloads
from transform.convert.payloads import RevisionError
from transform.model import plain


def _reference(value: Any, limit: int = plain.MAX_DEPTH) -> tuple[Any, ...] | None:
    """The earlier first_unrepresentable: the answer must not change, only its memory."""
    stack: list[tuple[Any, tuple[Any, ...]]] = [(value, ())]
    while stack:
        v, path = stack.pop()
        if isinstance(v, float):
            if v != v or v in (float("inf"), float("-inf")):
                return path
        elif isinstance(v, (dict, list)):
            if len(path) >= limit:
                return path
            items = v.items() if isinstance(v, dict) else enumerate(v)
            stack.extend((x, (*path, k)) for k, x in items if isinstance(x, (dict, list, float)))
    return None


def _random_value(rng: random.Random, depth: int) -> Any:
    roll = rng.random()
    if depth > 6 or roll < 0.3:
        return rng.choice([1, 1.5, "s", None, True, float("nan"), float("inf"), -float("inf"), 2.0])
    if roll < 0.65:
        return [_random_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {f"k{i}": _random_value(rng, depth + 1) for i in range(rng.randrange(4))}


def test_first_unrepresentable_finds_what_it_found_before() -> None:
    rng = random.Random(8)
    for _ in range(3000):
        value = _random_value(rng, 0)
        for limit in (0, 1, 2, 3, 5, 200):
            assert plain.first_unrepresentable(value, limit) == _reference(value, limit), (value, limit)


def test_first_unrepresentable_memory_grows_with_depth_not_size() -> None:
    value = {"spec": {"gpus": [{"name": f"g{i}", "deviceName": "n/g", "n": 1.5} for i in range(100_000)]}}
    tracemalloc.start()
    try:
        assert plain.first_unrepresentable(value) is None
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 100_000, peak  # every entry with its path: 20 MB


def test_loads_json_unique_keys() -> None:
    assert plain.loads_json('{"a": {"b": 1, "c": [1, {"d": 2}]}}', unique_keys=True) == json.loads(
        '{"a": {"b": 1, "c": [1, {"d": 2}]}}'
    )
    with pytest.raises(ValueError, match='duplicate field "b"'):
        plain.loads_json('{"a": {"c": 0, "b": 1, "b": 2}}', unique_keys=True)
    assert plain.loads_json('{"b": 1, "b": 2}') == {"b": 2}  # without: the last one, as json.loads
    # the limits are refused first, as before (a PayloadError, a revision.payload-limit)
    with pytest.raises(plain.PayloadError, match="not a finite number"):
        plain.loads_json('{"b": 1, "b": 2, "c": 1e999}', unique_keys=True)


def _wrapper(spec: str) -> dict[str, Any]:
    return {"apiVersion": "instancetype.kubevirt.io/v1alpha1", "spec": base64.b64encode(spec.encode()).decode()}


def test_a_wrapper_payload_is_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real = json.loads

    def loads(data: str | bytes | bytearray, **kw: Any) -> Any:
        calls.append(1)
        return real(data, **kw)

    monkeypatch.setattr(json, "loads", loads)
    decoded = payloads.decode(_wrapper('{"cpu": {"guest": 1}, "memory": {"guest": "1Gi"}}'))
    assert decoded.fmt == "F1"
    assert len(calls) == 1


def test_a_wrapper_payload_with_a_duplicate_key_is_refused() -> None:
    with pytest.raises(RevisionError) as info:
        payloads.decode(_wrapper('{"cpu": {"guest": 1, "guest": 2}, "memory": {"guest": "1Gi"}}'))
    assert info.value.code == "revision.bad-wrapper"


def test_upgrading_a_revision_holds_at_most_two_copies_of_its_payload() -> None:
    # the payload read, its Go encoding, and a sorted copy of that were 2.3 copies at the peak
    from tests.pipeline.test_scale import payload_file
    from transform.convert import revisions
    from transform.yamltext import nodes

    parsed = nodes.parse(payload_file(20_000).decode())
    assert parsed is not None
    doc = parsed.value
    raw = base64.b64decode(doc["data"]["spec"])
    tracemalloc.start()
    try:
        value = json.loads(raw)
        one = tracemalloc.get_traced_memory()[0]
        del value
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        upgraded = revisions.upgrade_revision(doc)
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    assert upgraded is not None and len(upgraded.doc["data"]["spec"]["gpus"]) == 20_000
    assert list(upgraded.doc["data"]["spec"]) == sorted(upgraded.doc["data"]["spec"])  # keys sorted, as kubectl
    assert list(upgraded.doc["data"]["spec"]["gpus"][0]) == ["deviceName", "name"]
    assert peak < 2.0 * one, peak / one
