"""A bounded, seeded fuzz run over the fixtures (flipped bytes, cut files, shuffled indentation, tabs,
duplicated lines): only findings come out, never an exception; a rewritten file re-parses. Plus the
internal-error path of the CLI (exit 123, one line; --debug shows the traceback)."""

from __future__ import annotations

import pathlib
import random
import subprocess
import sys
import time

import pytest
import yaml

from tests.support.cli import run_module
from transform.cli import main as cli
from transform.convert.index import Index
from transform.model.settings import Settings
from transform.pipeline import onefile as engine
from transform.pipeline.onefile import upgrade_file

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = sorted(p for p in (ROOT / "fixtures").rglob("*") if p.suffix in (".yaml", ".json"))
MUTATIONS = 2000
BUDGET_SECONDS = 30


def _lines(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True)


def flip(rng: random.Random, data: bytes) -> bytes:
    b = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        if b:
            b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
    return bytes(b)


def cut(rng: random.Random, data: bytes) -> bytes:
    return data[: rng.randrange(len(data) + 1)]


def reindent(rng: random.Random, data: bytes) -> bytes:
    lines = _lines(data)
    for _ in range(rng.randint(1, 3)):
        if lines:
            i = rng.randrange(len(lines))
            lines[i] = b" " * rng.randint(0, 6) + lines[i].lstrip(b" ")
    return b"".join(lines)


def tabs(rng: random.Random, data: bytes) -> bytes:
    lines = _lines(data)
    if lines:
        i = rng.randrange(len(lines))
        j = rng.randrange(len(lines[i]) + 1)
        lines[i] = lines[i][:j] + b"\t" + lines[i][j:]
    return b"".join(lines)


def duplicate(rng: random.Random, data: bytes) -> bytes:
    lines = _lines(data)
    if lines:
        i = rng.randrange(len(lines))
        lines.insert(i, lines[i])
    return b"".join(lines)


def swap(rng: random.Random, data: bytes) -> bytes:
    lines = _lines(data)
    if len(lines) > 1:
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    return b"".join(lines)


def splice(rng: random.Random, data: bytes) -> bytes:
    tokens = [b"&a ", b"*a", b"{", b"[", b'"', b"'", b"---\n", b"...\n", b"? ", b"!!binary ", b"<<: *a\n", b"\r"]
    i = rng.randrange(len(data) + 1)
    return data[:i] + rng.choice(tokens) + data[i:]


def _parses(text: str, loader: type) -> bool:
    try:
        list(yaml.load_all(text, Loader=loader))
    except yaml.YAMLError:
        return False
    return True


OPS = [flip, cut, reindent, tabs, duplicate, swap, splice]


def mutants(seed: int, count: int) -> list[tuple[str, bytes]]:
    rng = random.Random(seed)
    out = []
    for n in range(count):
        src = rng.choice(FIXTURES)
        data = src.read_bytes()
        for _ in range(rng.randint(1, 3)):
            data = rng.choice(OPS)(rng, data)
        out.append((f"{n:04d}-{src.name}", data))
    return out


def test_fuzz_upgrade_file_only_reports() -> None:
    start = time.monotonic()
    changed = 0
    for name, data in mutants(1337, MUTATIONS):
        try:
            result = upgrade_file(name, data, Settings(), Index())
        except Exception as exc:  # pragma: no cover - the failure message is the point
            pytest.fail(f"{name}: {type(exc).__name__}: {exc}\n{data!r}")
        if result.new_text is not None and result.changed:
            changed += 1
            assert not result.failed
            assert result.source is not None
            # the rewritten file re-parses whenever the input did (documents without a KubeVirt marker
            # are never parsed and pass through as they are, broken or not)
            for loader in (yaml.CSafeLoader, yaml.SafeLoader):
                if _parses(result.source.text, loader):
                    assert _parses(result.new_text, loader), (name, result.new_text)
            again = upgrade_file(name, result.source.encode(result.new_text), Settings(), Index())
            assert not again.changed, name
        if result.new_text is None or not result.changed:
            assert result.new_text in (None, result.source.text if result.source else None)
    assert changed > MUTATIONS // 20, "mutations too destructive: nothing was ever upgraded"
    assert time.monotonic() - start < BUDGET_SECONDS * 2


def test_fuzz_through_the_cli(tmp_path: pathlib.Path) -> None:
    for name, data in mutants(4242, 40):
        (tmp_path / name).write_bytes(data)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    proc = run_module("fix", str(tmp_path), text=True)
    assert proc.returncode in (0, 1, 3), proc.stderr
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr
    errored = {ln.split(":", 1)[0].rsplit("/", 1)[-1] for ln in proc.stderr.splitlines() if ": error:" in ln}
    for name, data in before.items():
        if name in errored:
            assert (tmp_path / name).read_bytes() == data, name  # a failed file is never written
    for name, data in mutants(4242, 40)[:8]:
        single = tmp_path / "single"
        single.mkdir(exist_ok=True)
        (single / name).write_bytes(data)
        proc = run_module("check", str(single / name), text=True, timeout=60)
        assert proc.returncode in (0, 1, 3), proc.stderr
        (single / name).unlink()


# --- internal errors -----------------------------------------------------------------------------


def _boom(*args: object, **kwargs: object) -> None:
    raise RuntimeError("synthetic engine failure")


def test_internal_error_exits_123_with_one_line(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a.yaml").write_bytes((ROOT / "fixtures/objects/instancetype-v1alpha1.yaml").read_bytes())
    monkeypatch.setattr(engine, "upgrade_file", _boom)
    monkeypatch.delenv("INSTANCETYPE_UPGRADE_DEBUG", raising=False)
    assert cli.main(["fix", str(tmp_path)]) == 123
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, err
    assert "internal error" in lines[0] and "synthetic engine failure" in lines[0] and "report" in lines[0]
    assert "Traceback" not in err
    assert (tmp_path / "a.yaml").read_bytes() == (ROOT / "fixtures/objects/instancetype-v1alpha1.yaml").read_bytes()


def test_internal_error_with_debug_shows_the_traceback(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a.yaml").write_bytes((ROOT / "fixtures/objects/instancetype-v1alpha1.yaml").read_bytes())
    monkeypatch.setattr(engine, "upgrade_file", _boom)
    with pytest.raises(RuntimeError, match="synthetic engine failure") as info:
        cli.main(["fix", "--debug", str(tmp_path)])
    assert any(entry.name == "_boom" for entry in info.traceback)


def test_internal_error_debug_traceback_in_a_subprocess(tmp_path: pathlib.Path) -> None:
    (tmp_path / "a.yaml").write_bytes((ROOT / "fixtures/objects/instancetype-v1alpha1.yaml").read_bytes())
    code = (
        "import sys, transform.pipeline.onefile as e\n"
        "def boom(*a, **k): raise RuntimeError('synthetic engine failure')\n"
        "e.upgrade_file = boom\n"
        "from transform.cli.main import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    plain = subprocess.run(
        [sys.executable, "-c", code, "fix", str(tmp_path)], capture_output=True, text=True, timeout=60, cwd=ROOT
    )
    assert plain.returncode == 123 and "Traceback" not in plain.stderr, plain.stderr
    debug = subprocess.run(
        [sys.executable, "-c", code, "fix", "--debug", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert "Traceback" in debug.stderr and "synthetic engine failure" in debug.stderr, debug.stderr
    assert debug.returncode != 0
