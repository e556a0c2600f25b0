"""Hostile archives and hostile names (issue 15, items 1-5): built names are checked Kubernetes names,
link chains cannot leave the extraction directory, device files / FIFOs / setuid entries and colliding
renames are refused before anything is written, tar headers and the expanded size are capped while
streaming, and `scan` reads tarballs with the same checked reader as `backup`."""

from __future__ import annotations

import copy
import gzip
import re
import tarfile
from pathlib import Path

import pytest

from tests.integrations.test_backup import (
    CR_DIR,
    F1_NAME,
    IT_UID,
    NS,
    VM_DIR,
    compact,
    f1_revision,
    link,
    make_tar,
    read_tar,
    run,
    vm,
    vm_owner,
)
from transform.cli.main import main
from transform.integrations import scan_inputs, velero
from transform.integrations.tarstream import BackupError
from transform.model.findings import Finding, quote_name
from transform.model.settings import Settings

EVIL_OWNER = "../../../../etc/x"


def _evil_revision() -> dict[str, object]:
    rev = f1_revision()
    rev["metadata"]["ownerReferences"] = vm_owner(EVIL_OWNER)
    return rev


def test_backup_rename_never_builds_a_path_from_a_bad_owner_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Was: member resources/controllerrevisions.apps/namespaces/default/../../../../etc/x-....json."""
    entries = [
        ("metadata/version", b"1.1.0\n"),
        (f"{CR_DIR}/namespaces/{NS}/{F1_NAME}.json", compact(_evil_revision())),
    ]
    src = make_tar(tmp_path / "in.tar.gz", entries)
    out = tmp_path / "out.tar.gz"
    code, err = run(["backup", str(src), "-o", str(out), "--rename"], capsys)
    assert code == 3, err
    assert "not a valid Kubernetes name" in err and "revision.bad-name" in err
    names = [m.name for m, _ in read_tar(out)]
    assert names == [e[0] for e in entries]
    assert not any(".." in n.split("/") for n in names)


@pytest.mark.parametrize("owner", [EVIL_OWNER, "a/b", "UPPER", "x" * 250, "bad\nname"])
def test_fix_rename_refuses_a_bad_built_name(tmp_path: Path, owner: str, capsys: pytest.CaptureFixture[str]) -> None:
    rev = f1_revision()
    rev["metadata"]["ownerReferences"] = vm_owner(owner)
    path = tmp_path / "cr.json"
    path.write_bytes(compact(rev))
    code, err = run(["fix", "--rename", str(path)], capsys)
    assert code == 3, err
    assert "revision.bad-name" in err
    assert path.read_bytes() == compact(rev)


def test_rename_collision_is_refused_before_writing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Two revisions that --rename gives one name: two members with one path (an extractor keeps one)."""
    other = copy.deepcopy(f1_revision())
    other_name = f"vm-legacy-csmall-v1alpha2-{IT_UID}-1"  # the same object, another era's name
    other["metadata"]["name"] = other_name
    entries = [
        ("metadata/version", b"1.1.0\n"),
        (f"{CR_DIR}/namespaces/{NS}/{F1_NAME}.json", compact(f1_revision())),
        (f"{CR_DIR}/namespaces/{NS}/{other_name}.json", compact(other)),
        (f"{VM_DIR}/namespaces/{NS}/vm-legacy.json", compact(vm())),
    ]
    src = make_tar(tmp_path / "in.tar.gz", entries)
    out = tmp_path / "out.tar.gz"
    code, err = run(["backup", str(src), "-o", str(out), "--rename"], capsys)
    assert code == 3, err
    assert "would all be renamed to" in err
    assert not out.exists() and not list(tmp_path.glob(".instancetype-upgrade.*"))
    # the same two revisions as files: both refused, nothing renamed
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "a.json").write_bytes(compact(f1_revision()))
    (tree / "b.json").write_bytes(compact(other))
    code, err = run(["fix", "--rename", str(tree)], capsys)
    assert code == 3 and err.count("revision.name-collision") == 2, err
    assert (tree / "a.json").read_bytes() == compact(f1_revision())


def _special(name: str, kind: bytes, mode: int = 0o644) -> tarfile.TarInfo:
    ti = tarfile.TarInfo(name)
    ti.type, ti.mode = kind, mode
    return ti


def _setuid() -> tarfile.TarInfo:
    ti = tarfile.TarInfo("metadata/suid")
    ti.mode = 0o4755
    return ti


@pytest.mark.parametrize(
    "extra,why",
    [
        ([link("resources/b", ".."), link("resources/s", "b/../../etc")], "outside the archive"),
        ([link("resources/s", "x/../../etc")], "outside the archive"),
        ([link("resources/up", "..")], "outside the archive"),
        ([_special("resources/dev", tarfile.CHRTYPE)], "device file or FIFO"),
        ([_special("resources/blk", tarfile.BLKTYPE)], "device file or FIFO"),
        ([_special("resources/fifo", tarfile.FIFOTYPE)], "device file or FIFO"),
        ([_setuid()], "setuid"),
    ],
)
def test_unsafe_entries_refused_by_backup_and_scan(
    tmp_path: Path, extra: list[tarfile.TarInfo], why: str, capsys: pytest.CaptureFixture[str]
) -> None:
    src = make_tar(tmp_path / "in.tar.gz", [("metadata/version", b"1.1.0\n")], extra)
    out = tmp_path / "out.tar.gz"
    code, err = run(["backup", str(src), "-o", str(out)], capsys)
    assert code == 3 and why in err and extra[-1].name in err, err
    assert not out.exists()
    code = main(["scan", str(src)])
    captured = capsys.readouterr()
    assert code == 3 and why in captured.out + captured.err
    errors: list[Finding] = []
    assert list(scan_inputs.iter_tarball(str(src), errors)) == [] and errors


def _raw_header(name: bytes, kind: bytes, size: int) -> bytes:
    """A ustar header block with a correct checksum (tarfile cannot write a lying size)."""
    h = bytearray(512)
    h[0 : len(name)] = name
    h[100:108] = b"0000644\0"
    h[108:116] = h[116:124] = b"0000000\0"
    h[124:136] = b"%011o\0" % size
    h[136:148] = b"00000000000\0"
    h[156:157] = kind
    h[257:265] = b"ustar\x0000"
    h[148:156] = b"        "
    h[148:156] = b"%06o\0 " % sum(h)
    return bytes(h)


@pytest.mark.parametrize("kind", [tarfile.GNUTYPE_LONGNAME, tarfile.XHDTYPE])
def test_huge_long_name_or_pax_header_is_refused_while_streaming(tmp_path: Path, kind: bytes) -> None:
    """Was: a 256 MiB-1.5 GiB header in a 1.5 MB tarball read into memory (backup 7.7 GB, scan 545 MB)."""
    size = 64 * 1024 * 1024
    path = tmp_path / "bomb.tar.gz"
    with gzip.open(path, "wb", compresslevel=1) as gz:
        gz.write(_raw_header(b"././@LongLink", kind, size))
        zeros = b"0" * (1 << 20)
        for _ in range(size >> 20):
            gz.write(zeros)
        gz.write(b"\0" * 1024)
    assert path.stat().st_size < 2 * 1024 * 1024
    with pytest.raises(BackupError, match=r"header of 67108864 bytes .*limit"):
        velero.upgrade_backup(str(path), None, Settings())
    errors: list[Finding] = []
    assert list(scan_inputs.iter_tarball(str(path), errors)) == []
    assert errors and "header" in str(errors[0])


def test_expanded_size_is_capped_while_decompressing(tmp_path: Path) -> None:
    entries = [("metadata/version", b"1.1.0\n"), ("resources/pods/big.bin", b"\0" * (4 << 20))]
    src = make_tar(tmp_path / "in.tar.gz", entries)
    small = Settings(max_archive_bytes=1 << 20)
    with pytest.raises(BackupError, match="expands to more than 1048576 bytes.*--max-archive-size"):
        velero.upgrade_backup(str(src), str(tmp_path / "out.tar.gz"), small)
    assert not (tmp_path / "out.tar.gz").exists()
    errors: list[Finding] = []
    list(scan_inputs.iter_tarball(str(src), errors, small))
    assert errors and "expands to more than" in str(errors[0])
    velero.upgrade_backup(str(src), str(tmp_path / "out.tar.gz"), Settings())  # the default is generous


def test_scan_and_backup_accept_the_same_archives(tmp_path: Path) -> None:
    """A plain (uncompressed) tar: scan read it and backup refused it; both read it now."""
    entries = [("metadata/version", b"1.1.0\n"), (f"{CR_DIR}/namespaces/{NS}/{F1_NAME}.json", compact(f1_revision()))]
    gz = make_tar(tmp_path / "in.tar.gz", entries)
    plain = tmp_path / "in.tar"
    plain.write_bytes(gzip.decompress(gz.read_bytes()))
    for path in (gz, plain):
        outcome = velero.upgrade_backup(str(path), None, Settings())
        assert outcome.changed == 1
        errors: list[Finding] = []
        assert [n for n, _ in scan_inputs.iter_tarball(str(path), errors)] == [f"{path}:{name}" for name, _ in entries]
        assert not errors


# --- item 4: names in human-readable output ----------------------------------------------------


def test_quote_name_as_git_does() -> None:
    assert quote_name("plain/file.yaml") == "plain/file.yaml"
    assert quote_name("a\nb.yaml") == '"a\\nb.yaml"'
    assert quote_name("\x1b[31mred.yaml") == '"\\033[31mred.yaml"'
    assert quote_name('say "hi".yaml') == '"say \\"hi\\".yaml"'
    assert quote_name("café.yaml") == "café.yaml"


def test_escape_sequences_in_file_names_never_reach_the_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.pipeline.test_bad_input import OBJECTS

    evil = "x\n\x1b[2J\x1b[31mevil.yaml"
    (tmp_path / evil).write_bytes((OBJECTS / "instancetype-v1alpha1.yaml").read_bytes())
    (tmp_path / "bad\x1b]0;t\x07.yaml").write_bytes(b"apiVersion: instancetype.kubevirt.io/v1alpha1\nkind: [\n")
    code = main(["diff", str(tmp_path)])
    captured = capsys.readouterr()
    assert code == 3
    for stream in (captured.out, captured.err):
        assert "\x1b" not in stream and "\x07" not in stream, stream
    assert re.search(r'^--- "a/.*x\\n\\033\[2J\\033\[31mevil\.yaml"$', captured.out, re.M), captured.out
    assert all(ln.startswith(("---", "+++", "@@", " ", "-", "+")) for ln in captured.out.splitlines())
    assert '\\033]0;t\\a.yaml"' in captured.err
    code = main(["fix", str(tmp_path)])
    err = capsys.readouterr().err
    assert "\x1b" not in err and re.search(r'Rewriting ".*\\033\[31mevil\.yaml"', err), err


def test_tar_member_names_quoted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = make_tar(tmp_path / "in.tar.gz", [("metadata/version", b"1.1.0\n")], [link("res\x1b[31m/x", "/etc")])
    code, err = run(["backup", str(src), "--check"], capsys)
    assert code == 3 and "\x1b" not in err and '"res\\033[31m/x"' in err, err


def test_max_archive_size_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = make_tar(
        tmp_path / "in.tar.gz", [("metadata/version", b"1.1.0\n"), ("resources/pods/x.bin", b"\0" * (2 << 20))]
    )
    code, err = run(["backup", str(src), "--check", "--max-archive-size", "1MiB"], capsys)
    assert code == 3 and "expands to more than 1048576 bytes" in err, err
    code = main(["scan", "--max-archive-size", "1MiB", str(src)])
    captured = capsys.readouterr()
    assert code == 3 and "expands to more than" in captured.out + captured.err
    code, err = run(["backup", str(src), "--check", "--max-archive-size", "8MiB"], capsys)
    assert code == 0, err


def test_a_deep_payload_inside_a_backup_fails_only_its_item(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Was: RecursionError on one item aborted the whole backup (exit 123)."""
    import base64

    from tests.integrations.test_backup import f2_revision

    deep = copy.deepcopy(f1_revision())
    payload = '{"cpu":{"guest":1},"memory":{"guest":"1Gi"},"x":' + "[" * 100_000 + "]" * 100_000 + "}"
    deep["data"]["spec"] = base64.b64encode(payload.encode()).decode()
    entries = [
        ("metadata/version", b"1.1.0\n"),
        (f"{CR_DIR}/namespaces/{NS}/{F1_NAME}.json", compact(deep)),
        (f"{CR_DIR}/namespaces/{NS}/other.json", compact(f2_revision())),
    ]
    src = make_tar(tmp_path / "in.tar.gz", entries)
    out = tmp_path / "out.tar.gz"
    code, err = run(["backup", str(src), "-o", str(out)], capsys)
    assert code == 3 and "nesting deeper than 200" in err, err
    after = {m.name: data for m, data in read_tar(out)}
    assert after[entries[1][0]] == entries[1][1]  # the deep item copied unchanged
    assert b"v1beta1" in (after[entries[2][0]] or b"")  # the other one upgraded
