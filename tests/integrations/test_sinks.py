"""Every output is a sink (issue 20 §4): the KRM function's ResourceList and backup's tarball take a
planned file through the one `outputs.Sink` interface (`put`, `close`) the file commands' outputs have,
so a new output is a new sink for every input kind."""

from __future__ import annotations

import gzip
import inspect
import io
import tarfile
from pathlib import Path
from typing import Any

from tests.integrations.test_backup import IT_DIR, NS, compact, instancetype_v1alpha2, link, make_tar, pod, read_tar
from transform.formats.krm import resourcelist as krmlist
from transform.integrations import krm, velero
from transform.integrations.tarsplice import Splicer
from transform.integrations.tarstream import open_stream
from transform.integrations.velerosink import MemberResult, TarballSink
from transform.model.settings import Settings
from transform.pipeline import outputs
from transform.pipeline.batch import Item, RunResult
from transform.pipeline.parts import FileResult
from transform.pipeline.upgrade import Plan
from transform.yamltext import textio

LIST = (
    "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
    "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: cm\n"
    "    annotations:\n      config.kubernetes.io/path: cm.yaml\n  data: {a: b}\n"
)


def test_the_integrations_outputs_have_the_sink_interface() -> None:
    want = {m: inspect.signature(getattr(outputs.Sink, m)) for m in ("put", "close")}
    for sink in (krm.ItemsSink, krm.WholeSink, TarballSink):
        for method, sig in want.items():
            assert list(inspect.signature(getattr(sink, method)).parameters) == list(sig.parameters), (sink, method)


def _whole_sink(text: str) -> krm.WholeSink:
    source = textio.decode(text.encode())
    _chunk, doc = krmlist.document(source)
    return krm.WholeSink(source, Settings(), [], doc)


def test_the_resource_list_sink_writes_a_planned_list_and_its_results() -> None:
    """write_plan hands the planned list to the ResourceList's sink as to a file's: it writes the new
    text with `results`, as planned (here a plan made by hand, not by the engine)."""
    new = LIST.replace("{a: b}", "{a: c}")
    source = textio.decode(LIST.encode())
    planned = FileResult(krm.NAME, source, new, upgraded=1)
    plan = Plan([Item(krm.NAME, LIST.encode())], RunResult(results=[planned]))
    sink = _whole_sink(LIST)
    assert outputs.write_plan(plan, sink, note=False) == 1
    sink.close(plan, False)
    assert sink.outcome.data.decode() == new and sink.outcome.upgraded == 1 and sink.outcome.results == []


def test_the_resource_list_sink_refuses_a_list_whose_orchestrator_annotations_move() -> None:
    new = LIST.replace("path: cm.yaml", "path: other.yaml")
    source = textio.decode(LIST.encode())
    plan = Plan([Item(krm.NAME, LIST.encode())], RunResult(results=[FileResult(krm.NAME, source, new, upgraded=1)]))
    sink = _whole_sink(LIST)
    outputs.write_plan(plan, sink, note=False)
    sink.close(plan, False)
    assert [f.code for f in sink.outcome.findings] == ["internal.krm"]
    assert sink.outcome.upgraded == 0 and "path: cm.yaml" in sink.outcome.data.decode()
    assert sink.outcome.data.decode().startswith(LIST) and "results:" in sink.outcome.data.decode()


def test_the_tarball_sink_puts_a_member_under_its_new_path_and_its_link_follows(tmp_path: Path) -> None:
    """The tarball's sink, handed the members in order, writes the planned bytes of one under a new
    path; a hard link to it follows; every other member is copied as it was."""
    old = f"{IT_DIR}/namespaces/{NS}/csmall.json"
    new_path = f"{IT_DIR}/namespaces/{NS}/cbig.json"
    linked = f"{IT_DIR}/v1alpha2-preferredversion/namespaces/{NS}/csmall.json"
    pod_path = f"resources/pods/namespaces/{NS}/p.json"
    src = make_tar(
        tmp_path / "in.tar.gz",
        [(old, compact(instancetype_v1alpha2())), (pod_path, compact(pod()))],
        [link(linked, old, tarfile.LNKTYPE)],
    )
    found = velero.scan(str(src), Settings(), RunResult())
    assert [sp.kind for sp in found.spans] == ["item", "link"]
    raw = io.BytesIO()

    class Out:
        write = raw.write

        def close(self) -> None:
            pass

    with open_stream(str(src)) as (reader, _src):
        splicer = Splicer(reader, raw, str(src), found.layout, lambda d, t: None)
        sink = TarballSink(splicer, found.fmt, found.end, Out())  # type: ignore[arg-type]
        for sp in found.spans:
            if sp.kind == "link":
                sink.link(sp)
                continue
            item = Item(sp.name, sink.member(sp))
            assert item.data == compact(instancetype_v1alpha2())
            sink.put(MemberResult(sp.name, was_changed=True, path=new_path), item, b'{"new":1}')
        sink.close(None, False)
    out = tmp_path / "out.tar.gz"
    out.write_bytes(gzip.compress(raw.getvalue()))
    got = {m.name: (m.linkname, data) for m, data in read_tar(out)}
    before = {m.name: (m.linkname, data) for m, data in read_tar(src)}
    assert got == {new_path: ("", b'{"new":1}'), pod_path: before[pod_path], linked: (new_path, None)}
    assert sink.moved == {old: new_path} and sink.taken == 1


def test_backup_second_pass_is_a_plan_handed_to_the_tarball_sink(tmp_path: Path, monkeypatch: Any) -> None:
    """backup's second pass takes each member's result from the pipeline's plan (`upgrade.LazyPlan`, the
    code `upgrade_items` plans every input with; an identical copy reuses its twin's), and the tarball's
    sink takes every changed member (before, the pass called the file engine and spliced by itself)."""
    from tests.integrations.test_backup import velero_entries
    from transform.pipeline import upgrade

    planned: list[str] = []
    put: list[str] = []
    real_plan, real_put = upgrade.LazyPlan.plan, TarballSink.put

    def plan(self: upgrade.LazyPlan, item: Item, parsed: bool = False) -> FileResult:
        planned.append(item.name)
        return real_plan(self, item, parsed)

    def take(self: TarballSink, result: FileResult, item: Item, data: bytes) -> str:
        put.append(item.name)
        return real_put(self, result, item, data)

    monkeypatch.setattr(upgrade.LazyPlan, "plan", plan)
    monkeypatch.setattr(TarballSink, "put", take)
    entries = velero_entries()
    src = make_tar(tmp_path / "in.tar.gz", entries)
    outcome = velero.upgrade_backup(str(src), str(tmp_path / "out.tar.gz"), Settings(rename=True))
    assert planned and set(planned) <= {n for n, _ in entries if n.startswith("resources/")}
    assert len(planned) == len({data for n, data in entries if n in planned})  # an identical copy: not again
    assert put == [r.name for r in outcome.run.results if r.changed] and outcome.changed == len(put) > 0
