"""Inline ignores (issue 24 §3): `# instancetype-upgrade: ignore=CODE` silences one finding where it is written.

Each row: the file's text (a directive written somewhere in it), and the findings `check` reports and
suppresses, as (doc, code, field path). The file without any directive reports every one of them.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

import pytest

from tests.support.cli import invoke as cli_invoke
from transform.pipeline import results
from transform.yamltext import ignores

PREF = """\
apiVersion: instancetype.kubevirt.io/v1alpha2{api}
kind: VirtualMachinePreference
metadata:
  name: p
spec:
  cpu:
    preferredCPUTopology: preferSockets{topology}
{before_devices}  devices:
    preferredDiskBus: virtio
    bogus: 1
---
apiVersion: instancetype.kubevirt.io/v1alpha2
kind: VirtualMachineInstancetype
metadata:
  name: it
spec:
  cpu:
    guest: 1
  memory:
    guest: 1Gi
    bogus: 2
"""
TOPOLOGY = (0, "webhook.deprecated-topology", "spec.cpu.preferredCPUTopology")
UNKNOWN_0 = (0, "schema.unknown-field", "spec.devices.bogus")  # one finding per field, one code (issue 20)
UNKNOWN_1 = (1, "schema.unknown-field", "spec.memory.bogus")
EVERY = [TOPOLOGY, UNKNOWN_0, UNKNOWN_1]


def text(api: str = "", topology: str = "", before_devices: str = "") -> str:
    return PREF.format(api=api, topology=topology, before_devices=before_devices)


def invoke(tmp_path: pathlib.Path, body: str, *args: str, command: str = "check") -> tuple[int, dict, str]:
    path = tmp_path / "it.yaml"
    path.write_text(body)
    result = cli_invoke(command, str(path), "--format", "json", *args)
    report = json.loads(result.stdout)
    stats = cli_invoke(command, str(path), "--statistics", *args).stdout
    return result.exit_code, report, stats


def rows(report: dict) -> list[tuple[int, str, str]]:
    return sorted((f["doc"], f["code"], f["path"]) for f in report["findings"] if f["severity"] != "info")


D = "  # instancetype-upgrade: ignore="


@pytest.mark.parametrize(
    ("body", "reported", "suppressed"),
    [
        pytest.param(text(), EVERY, 0, id="no directive"),
        pytest.param(  # the apiVersion line: the whole document, no other
            text(api=D + "schema.unknown-field,target."),
            [TOPOLOGY, UNKNOWN_1],
            1,
            id="apiVersion line",
        ),
        pytest.param(  # code prefixes, as --ignore takes them
            text(api=D + "webhook.,schema"), [UNKNOWN_1], 2, id="prefixes"
        ),
        pytest.param(  # the end of a field's line: that field only
            text(topology=D + "webhook.deprecated-topology"),
            [UNKNOWN_0, UNKNOWN_1],
            1,
            id="field line",
        ),
        pytest.param(  # the line before a field: that field and below
            text(before_devices="  # instancetype-upgrade: ignore=schema.unknown-field,target.unknown-field\n"),
            [TOPOLOGY, UNKNOWN_1],
            1,
            id="line before a field",
        ),
        pytest.param(  # a code the field does not have silences nothing
            text(topology=D + "schema.unknown-field"), EVERY, 0, id="other code"
        ),
    ],
)
def test_a_directive_silences_what_it_covers(
    tmp_path: pathlib.Path, body: str, reported: list[tuple[int, str, str]], suppressed: int
) -> None:
    code, report, stats = invoke(tmp_path, body)
    assert code == 1 and rows(report) == sorted(reported)
    gone = [c for c in EVERY if c not in reported]
    assert len(gone) == suppressed
    assert stats.count(", suppressed inline)") == len({c for _, c, _ in gone})  # a row per code
    assert stats.splitlines()[-1].endswith(f"; {suppressed} suppressed by inline ignores") == bool(suppressed)


def test_statistics_rows_name_the_suppressed_codes(tmp_path: pathlib.Path) -> None:
    _, _, stats = invoke(tmp_path, text(api=D + "schema.unknown-field,target."))
    assert "1  schema.unknown-field  (warning, suppressed inline)" in stats
    assert "target.unknown-field" not in stats  # the typo is said once, as schema.unknown-field
    assert "1  schema.unknown-field  (warning)\n" in stats  # document 1's stays


@pytest.mark.parametrize("off", [("--no-inline-ignores",), ()])
def test_no_inline_ignores_sees_everything(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, off: tuple[str, ...]
) -> None:
    if not off:  # the configuration key does the same
        (tmp_path / ".git").mkdir()
        (tmp_path / ".instancetype-upgrade.toml").write_text("inline-ignores = false\n")
        monkeypatch.chdir(tmp_path)
    _, report, stats = invoke(tmp_path, text(api=D + "schema.unknown-field,target.,webhook."), *off)
    assert rows(report) == sorted(EVERY) and "suppressed" not in stats


def test_errors_are_never_silenced(tmp_path: pathlib.Path) -> None:
    """validate: a missing required field is an error of the document (it would block the upgrade)."""
    body = text().split("---\n")[1].replace("  memory:\n    guest: 1Gi\n    bogus: 2\n", "")
    body = body.replace(
        "VirtualMachineInstancetype\n", "VirtualMachineInstancetype  # instancetype-upgrade: ignore=schema\n"
    )
    body = body.replace("v1alpha2\n", "v1alpha2" + D + "schema\n", 1)
    code, report, _ = invoke(tmp_path, body, command="validate")
    assert code == 3 and [(f["code"], f["severity"]) for f in report["findings"] if f["code"] == "schema.required"] == [
        ("schema.required", "error")
    ]


def test_strict_does_not_fail_what_a_directive_silenced(tmp_path: pathlib.Path) -> None:
    """A suppressed warning is not made an error by --strict: the file is written (exit 1, not 3)."""
    path = tmp_path / "it.yaml"
    body = text(topology=D + "webhook.").split("---\n")[0].replace("    bogus: 1\n", "")
    path.write_text(body)
    assert cli_invoke("fix", str(path), "--strict", "--no-inline-ignores").exit_code == 3
    result = cli_invoke("fix", str(path), "--strict")
    assert result.exit_code == 1, result.stdout
    assert path.read_text() == body.replace("v1alpha2", "v1beta1", 1)  # the directive is kept, byte for byte
    again = cli_invoke("fix", str(path), "--strict")
    assert again.exit_code == 0 and path.read_text() == body.replace("v1alpha2", "v1beta1", 1)


def test_an_error_that_blocks_the_upgrade_stays(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """fix --strict: the upgraded object would be invalid (an unknown field the upgrade introduces): the
    file is not written, and the directive naming the code does not hide why. (Issue 21 §1: the field
    must be new on the upgraded object; one the input had already is an `input:` warning, which the
    directive silences, so a stand-in validator reports it on the upgraded object only.)"""
    from transform.model.findings import Finding, error
    from transform.validate import documents

    real = documents.validate_document

    def introduced(obj: dict[str, Any], **kw: Any) -> list[Finding]:
        found = real(obj, **kw)
        found = [f for f in found if f.code != "schema.unknown-field"]
        if str(obj.get("apiVersion")).endswith("/v1beta1"):
            found.append(
                error("schema.unknown-field", 'unknown field "spec.devices.bogus"', ("spec", "devices", "bogus"))
            )
        return found

    monkeypatch.setattr(documents, "validate_document", introduced)
    path = tmp_path / "it.yaml"
    body = text(api=D + "schema.unknown-field,target.,webhook.").split("---\n")[0]
    path.write_text(body)
    result = cli_invoke("fix", str(path), "--strict")
    assert (
        result.exit_code == 3
        and "error: doc 0: spec.devices.bogus: the upgraded object would be invalid" in result.stdout
    ), result.stdout
    assert path.read_text() == body


def test_scan_suppresses_what_would_break(tmp_path: pathlib.Path) -> None:
    """scan: a warning is suppressed, the error that the target cannot serve the version stays."""
    path = tmp_path / "it.yaml"
    path.write_text(text())
    plain = cli_invoke("scan", str(tmp_path), "--statistics").stdout
    path.write_text(text(api=D + "schema.unknown-field,target."))
    silenced = cli_invoke("scan", str(tmp_path), "--statistics").stdout
    assert "2  schema.unknown-field  (warning)" in plain and "suppressed" not in plain
    assert "1  schema.unknown-field  (warning)" in silenced
    assert "1  schema.unknown-field  (warning, suppressed inline)" in silenced
    assert "2  target.api-version  (error)" in silenced  # errors are never suppressed


@pytest.mark.parametrize(
    ("body", "paths"),
    [
        ("a:\n  b: 1  # instancetype-upgrade: ignore=schema\n", [("a", "b")]),
        ("a:\n  # instancetype-upgrade: ignore=schema\n\n  # another comment\n  b:\n    c: 1\n", [("a", "b")]),
        ("items:\n- apiVersion: v1  # instancetype-upgrade: ignore=schema\n  kind: A\n", [("items", 0)]),
        ("# instancetype-upgrade: ignore=schema\napiVersion: v1\nkind: A\n", [()]),
        ("a: 'q # instancetype-upgrade: ignore=schema'\n", []),  # inside a scalar: text, not a comment
        ("a: |\n  # instancetype-upgrade: ignore=schema\n", []),
        ("a: 1\n---\nb: 1  # instancetype-upgrade: ignore=schema\n", [("b",)]),
    ],
)
def test_what_a_directive_covers(body: str, paths: list[tuple[object, ...]]) -> None:
    directives, problems = ignores.find(body)
    assert [d.path for d in directives] == paths and not problems
    assert all(d.codes == ("schema",) for d in directives)


@pytest.mark.parametrize(
    "body",
    [
        "a: 1\n# instancetype-upgrade: ignore=schema\n",  # nothing after it
        "a: 1  # instancetype-upgrade: ignore=\n",  # no code
        "a: 1  # instancetype-upgrade: ignored=x\n",  # not the directive's spelling
    ],
)
def test_a_directive_that_covers_nothing_is_a_warning(body: str) -> None:
    directives, problems = ignores.find(body)
    assert not directives and [(p.code, p.line) for p in problems] == [("inline-ignore.invalid", body.count("\n"))]


def test_the_cheap_check_looks_for_the_directive_marker() -> None:
    assert results.MARKER == ignores.MARKER


def test_the_documented_example_means_what_docs_say() -> None:
    usage = (pathlib.Path(__file__).resolve().parents[2] / "docs" / "usage.md").read_text()
    example = usage.split("### Inline ignores", 1)[1].split("```yaml\n", 1)[1].split("```", 1)[0]
    directives, problems = ignores.find(example)
    assert not problems
    assert [(d.codes, d.path) for d in directives] == [
        (("schema.unknown-field",), ()),
        (("webhook.deprecated-topology",), ("spec", "cpu")),
        (("target.",), ("spec", "devices", "preferredDiskBus")),
    ]


def test_krm_items_keep_their_directives() -> None:
    """The KRM function reads each item as a document: a directive in one item covers that item only."""
    import yaml

    item = (
        "- apiVersion: instancetype.kubevirt.io/v1alpha2{api}\n  kind: VirtualMachinePreference\n  metadata:\n"
        "    name: {name}\n  spec:\n    cpu:\n{before}      preferredCPUTopology: preferSockets\n"
    )
    rl = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + "".join(
        [
            item.format(api="", name="a", before="      # instancetype-upgrade: ignore=webhook.\n"),
            item.format(api=D + "webhook.deprecated-topology", name="b", before=""),
            item.format(api="", name="c", before=""),
        ]
    )
    out = cli_invoke("krm", input=rl).stdout
    warned = [r["resourceRef"]["name"] for r in yaml.safe_load(out)["results"] if r["severity"] == "warning"]
    assert warned == ["c"]
    assert out.count("# instancetype-upgrade: ignore=") == 2  # kept, as every comment is
