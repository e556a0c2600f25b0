"""Issue 22 §2 class A: the ControllerRevision itself is decoded as Kubernetes decodes it."""

from __future__ import annotations

import subprocess

from tests.support.cli import run_module

PAYLOAD = (
    '{"apiVersion":"instancetype.kubevirt.io/v1alpha2","kind":"VirtualMachineInstancetype",'
    '"metadata":{"name":"small"},"spec":{"cpu":{"guest":1},"memory":{"guest":"512Mi"}}}'
)


def _fix(meta_extra: str, revision: str) -> subprocess.CompletedProcess[str]:
    text = (
        "apiVersion: apps/v1\nkind: ControllerRevision\nmetadata:\n  name: web-small-u1-2\n"
        f"{meta_extra}revision: {revision}\ndata: {PAYLOAD}\n"
    )
    return run_module("fix", "-", input=text, text=True)


def test_unquoted_yaml11_bool_label_is_refused_not_written() -> None:
    r = _fix("  labels: {tier: on}\n", "2")
    assert r.returncode == 3, r.stderr
    assert "metadata.labels.tier" in r.stderr and "revision.cr-undecodable" in r.stderr
    assert "quote the label value" in r.stderr
    assert "v1beta1" not in r.stdout


def test_annotation_number_is_refused() -> None:
    r = _fix("  annotations:\n    note: 12\n", "2")
    assert r.returncode == 3 and "metadata.annotations.note" in r.stderr


def test_quoted_revision_is_refused() -> None:
    r = _fix("", '"2"')
    assert r.returncode == 3 and "revision must be an integer" in r.stderr


def test_plain_revision_still_upgrades() -> None:
    r = _fix('  labels: {tier: "on"}\n', "2")
    assert r.returncode == 0, r.stderr
    assert "v1beta1" in r.stdout
