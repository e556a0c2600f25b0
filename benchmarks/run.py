"""Whole-process benchmarks of instancetype-upgrade against their floors (stdlib only).

    python benchmarks/make_corpus.py --out benchmarks/corpus
    python benchmarks/run.py --corpus benchmarks/corpus [--runs 5] [--tool "CMD ..."]
    python benchmarks/run.py --corpus benchmarks/corpus --scale [--scale-sizes 1000,10000,50000]
        [--scale-parts tree,velero]

Every row is a separate process, timed from outside (wall clock) with its peak RSS taken from ``os.wait4``.
Rows run interleaved (one round = every row once), after one warm-up round; the figure is the median of
``--runs`` rounds. A subcommand the tool does not have yet is shown as ``n/a``. After the rows, the ratios
that the performance targets name are printed, each from two medians of the same run.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
FLOOR_SCAN = HERE / "floor_scan.py"
FLOOR_LIBYAML = HERE / "floor_libyaml.py"
MAKE_CORPUS = HERE / "make_corpus.py"
MEM_LIMIT_MB = 150.0

FINDINGS_CODES = (3,)  # instancetype-upgrade: "errors found in the input"; the run itself completed
NA_MARKERS = ("No such command", "No such option", "no such option", "invalid choice")


@dataclass
class Sample:
    seconds: float
    rc: int
    peak_mb: float
    stderr: str
    cpu: float = 0.0  # user + system seconds of the child and the workers it waited for (os.wait4)


@dataclass
class Row:
    key: str
    label: str
    cmd: list[str]
    ok_codes: tuple[int, ...] = (0,)
    floor: str | None = None  # key of the floor row
    max_ratio: float | None = None  # target: median <= max_ratio * floor
    max_seconds: float | None = None  # target: median <= max_seconds
    is_floor: bool = False
    out_kind: str | None = None  # "dir" or "file": a fresh output path is appended per run
    busy: bool = False  # run beside a competing CPU-bound process (as in CI or under pre-commit)
    probe: bool = False  # run with --debug: every run says how many worker processes it used (`modes`)
    samples: list[Sample] = field(default_factory=list)
    status: str = "ok"  # ok | n/a | error
    note: str = ""

    @property
    def median(self) -> float | None:
        return statistics.median(s.seconds for s in self.samples) if self.samples else None

    @property
    def cpu_median(self) -> float | None:
        return statistics.median(s.cpu for s in self.samples) if self.samples else None

    @property
    def peak_mb(self) -> float | None:
        return max(s.peak_mb for s in self.samples) if self.samples else None

    @property
    def modes(self) -> dict[str, int]:
        """How many runs used one process, or N workers (the tool's --debug line)."""
        out: dict[str, int] = {}
        for s in self.samples:
            found = re.search(r"debug: (one process|\d+ workers)", s.stderr)
            key = found.group(1) if found else "?"
            out[key] = out.get(key, 0) + 1
        return out


def run_once(cmd: list[str], cwd: Path) -> Sample:
    """Run one process; wall time from outside, peak RSS of that child from wait4 (Linux: KiB)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        stderr = err.read()[-4000:].decode(errors="replace")
    scale = 1 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes on macOS, KiB on Linux
    cpu = usage.ru_utime + usage.ru_stime
    return Sample(seconds, proc.returncode, usage.ru_maxrss * scale / 1e6, stderr, cpu)


def classify(row: Row, s: Sample) -> tuple[str, str]:
    text = s.stderr
    if any(m in text for m in NA_MARKERS):
        return "n/a", "subcommand or option not available"
    last = text.strip().splitlines()[-1] if text.strip() else ""
    if "Traceback (most recent call last)" in text:
        if "No module named" in text or "ImportError" in text:
            return "n/a", last[:80]
        return "error", last[:80]
    if s.rc in FINDINGS_CODES and not row.is_floor:
        return "ok", f"exit {s.rc}: the tool reported errors in the input"
    if s.rc not in row.ok_codes:
        return "error", f"exit {s.rc}: {last[:70]}"
    return "ok", ""


BUSY = [sys.executable, "-c", "while True: pass"]


# Two medians of the very same command differ by this much on a quiet machine (5 runs): a ratio of
# the default `-j` against `-j 1` is judged with it ("not slower" is <= 1x + NOISE).
NOISE = 0.05


@dataclass
class Ratio:
    """One of the ratios the performance targets name: median(num) / median(den)."""

    label: str
    num: str
    den: str
    max: float | None = None  # target: ratio <= max
    min: float | None = None  # target: ratio >= min (a speed-up)
    default: str | None = None  # the row run with the default -j: the ratio says what it chose; NOISE applies
    cpu: bool = False  # a ratio of CPU time (user+sys medians) instead of wall clock

    def medians(self, num: Row, den: Row) -> tuple[float | None, float | None]:
        if self.cpu:
            return num.cpu_median, den.cpu_median
        return num.median, den.median


def execute(row: Row, work: Path) -> Sample:
    if row.busy:
        busy = subprocess.Popen(BUSY, stdin=subprocess.DEVNULL)
        time.sleep(0.05)  # let it reach its loop
        try:
            return _execute(row, work)
        finally:
            busy.kill()
            busy.wait()
    return _execute(row, work)


def _execute(row: Row, work: Path) -> Sample:
    cmd = list(row.cmd)
    target: Path | None = None
    if row.out_kind is not None:
        target = Path(tempfile.mkdtemp(prefix=f"{row.key}-", dir=work))
        if row.out_kind == "file":
            target = target / "out.tar.gz"
        cmd.append(str(target))
    try:
        return run_once(cmd, REPO)
    finally:
        if target is not None:
            shutil.rmtree(target if row.out_kind == "dir" else target.parent, ignore_errors=True)


def measure(rows: list[Row], runs: int, work: Path, verbose: bool) -> None:
    for rnd in range(runs + 1):  # round 0 is the warm-up
        for row in rows:
            if row.status != "ok":
                continue
            s = execute(row, work)
            status, note = classify(row, s)
            if status != "ok":
                row.status, row.note = status, note
                row.samples.clear()
                continue
            row.note = note
            if rnd > 0:
                row.samples.append(s)
            if verbose:
                tag = "warm-up" if rnd == 0 else f"run {rnd}"
                print(f"  [{tag}] {row.key}: {s.seconds:.3f} s, {s.peak_mb:.0f} MB, rc={s.rc}", file=sys.stderr)


def fmt_s(x: float | None) -> str:
    if x is None:
        return "—"
    return f"{x * 1000:.0f} ms" if x < 1 else f"{x:.2f} s"


def evaluate(row: Row, by_key: dict[str, Row]) -> tuple[str, str, str, str]:
    """(floor, ratio, target, verdict) columns."""
    fl = by_key.get(row.floor) if row.floor else None
    floor_med = fl.median if fl is not None else None
    med = row.median
    ratio = med / floor_med if med is not None and floor_med else None
    floor_col = f"{fl.label} ({fmt_s(floor_med)})" if fl is not None else "—"
    ratio_col = f"{ratio:.1f}x" if ratio is not None else "—"
    targets: list[str] = []
    verdicts: list[bool] = []
    if row.max_ratio is not None:
        targets.append(f"≤ {row.max_ratio:g}x floor")
        if ratio is not None:
            verdicts.append(ratio <= row.max_ratio)
    if row.max_seconds is not None:
        targets.append(f"≤ {row.max_seconds:g} s")
        if med is not None:
            verdicts.append(med <= row.max_seconds)
    if not row.is_floor:
        targets.append(f"< {MEM_LIMIT_MB:g} MB")
        if row.peak_mb is not None:
            verdicts.append(row.peak_mb < MEM_LIMIT_MB)
    if row.status != "ok":
        verdict = row.status
    elif row.is_floor or not verdicts:
        verdict = ""
    else:
        verdict = "PASS" if all(verdicts) else "FAIL"
    return floor_col, ratio_col, ", ".join(targets) or "—", verdict


def print_table(headers: list[str], body: list[list[str]]) -> None:
    widths = [max(len(h), *(len(r[i]) for r in body)) for i, h in enumerate(headers)]
    print("| " + " | ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)) + " |")
    print("| " + " | ".join("-" * w for w in widths) + " |")
    for r in body:
        print("| " + " | ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) + " |")


def report(rows: list[Row]) -> list[dict[str, object]]:
    by_key = {r.key: r for r in rows}
    body: list[list[str]] = []
    out: list[dict[str, object]] = []
    for row in rows:
        floor_col, ratio_col, target_col, verdict = evaluate(row, by_key)
        if row.samples:
            lo = min(s.seconds for s in row.samples)
            hi = max(s.seconds for s in row.samples)
            med_col, rng_col = fmt_s(row.median), f"{fmt_s(lo)}–{fmt_s(hi)}"
            cpu_col = fmt_s(row.cpu_median)
            mem_col = f"{row.peak_mb:.0f} MB"
        else:
            med_col, rng_col, mem_col, cpu_col = row.status, "", "", ""
        if row.note:
            verdict = f"{verdict} ({row.note})"
        body.append([row.label, med_col, rng_col, cpu_col, mem_col, floor_col, ratio_col, target_col, verdict])
        out.append(
            {
                "key": row.key,
                "label": row.label,
                "status": row.status,
                "note": row.note,
                "median_s": row.median,
                "runs_s": [s.seconds for s in row.samples],
                "cpu_median_s": row.cpu_median,
                "peak_mb": row.peak_mb,
                "floor": row.floor,
                "ratio": ratio_col,
                "target": target_col,
                "verdict": verdict,
            }
        )
    print_table(["row", "median", "min–max", "CPU", "peak RSS", "floor", "ratio", "target", "result"], body)
    return out


def report_ratios(rows: list[Row], ratios: list[Ratio]) -> list[dict[str, object]]:
    by_key = {r.key: r for r in rows}
    body: list[list[str]] = []
    out: list[dict[str, object]] = []
    for q in ratios:
        num, den = by_key.get(q.num), by_key.get(q.den)
        if num is None or den is None:
            continue
        num_med, den_med = q.medians(num, den)
        value = num_med / den_med if num_med is not None and den_med else None
        noise = NOISE if q.default else 0.0
        target = " and ".join(
            t for t in (f"≤ {q.max:g}x" if q.max is not None else "", f"≥ {q.min:g}x" if q.min is not None else "") if t
        )
        target += f" (±{noise:.0%} noise)" if noise and target else ""
        verdict = ""
        if value is not None and target:
            ok = (q.max is None or value <= q.max + noise) and (q.min is None or value >= q.min - noise)
            verdict = "PASS" if ok else "FAIL"
        elif value is None:
            verdict = "n/a"
        chose = ""
        if q.default and q.default in by_key:
            modes = by_key[q.default].modes
            chose = ", ".join(f"{m} {n}/{sum(modes.values())}" for m, n in sorted(modes.items()))
            if set(modes) == {"one process"} and verdict:
                verdict += " (same code as -j 1: noise)"
        body.append(
            [
                q.label,
                f"{fmt_s(num_med)} / {fmt_s(den_med)}" + (" CPU" if q.cpu else ""),
                f"{value:.2f}x" if value else "—",
                target,
                chose or "—",
                verdict,
            ]
        )
        out.append(
            {
                "ratio": q.label,
                "num": q.num,
                "den": q.den,
                "value": value,
                "target": target,
                "default_chose": chose,
                "verdict": verdict,
            }
        )
    if body:
        print()
        print_table(["ratio", "medians", "value", "target", "default -j chose", "result"], body)
    return out


def load_info(corpus: Path) -> dict[str, object]:
    info_path = corpus / "corpus.json"
    if not info_path.exists():
        sys.exit(f"error: {info_path} not found; run: python {MAKE_CORPUS.relative_to(REPO)} --out {corpus}")
    info: dict[str, object] = json.loads(info_path.read_text())
    return info


def main_rows(args: argparse.Namespace, tool: list[str]) -> tuple[list[Row], list[Ratio]]:
    corpus: Path = args.corpus.resolve()
    info = load_info(corpus)
    tree_info = info.get("tree")
    if not isinstance(tree_info, dict):
        sys.exit("error: the corpus has no tree/ (generate it with --parts including tree)")
    tree = corpus / "tree"
    big = corpus / "big" / "cluster-export.yaml"
    tarball = corpus / "velero-backup.tar.gz"
    dense_info = info.get("dense")
    dense = corpus / "dense" / "tree"
    dense_export = corpus / "dense" / "export.yaml"
    irrelevant = [str(tree / p) for p in tree_info["precommit_irrelevant"]]
    relevant = [str(tree / tree_info["precommit_relevant"])]
    py = sys.executable
    chk = (0, 1)

    def floor(key: str, label: str, mode: str, path: Path) -> Row:
        return Row(key, label, [py, str(FLOOR_SCAN), mode, str(path)], is_floor=True)

    def check(key: str, label: str, path: Path, *opts: str, **kw: Any) -> Row:
        # every -j row says how many workers it used (--debug: one more line on stderr, nothing else)
        probe = "-j" not in opts or opts[opts.index("-j") + 1] != "1"
        cmd = [*tool, "check", *(("--debug",) if probe else ()), *opts, str(path)]
        return Row(key, label, cmd, ok_codes=chk, probe=probe, **kw)

    rows = [
        Row("pass", "python -c pass", [py, "-c", "pass"], is_floor=True),
        Row("click", "python -c 'import click'", [py, "-c", "import click"], is_floor=True),
        floor("scan-tree", "floor: read+search tree", "tree", tree),
        floor("scan-big", "floor: read+search 20 MB", "file", big),
        floor("scan-tar", "floor: read+search tarball", "tar", tarball),
        floor("scan-dense", "floor: read+search dense tree", "tree", dense),
        Row(
            "pre-irrelevant",
            f"check {len(irrelevant)} irrelevant files",
            [*tool, "check", *irrelevant],
            ok_codes=chk,
            floor="click",
            max_ratio=1.25,  # issue 30
        ),
        Row(
            "pre-relevant",
            "check 1 relevant file",
            [*tool, "check", *relevant],
            ok_codes=chk,
            floor="click",
            max_ratio=2.5,
        ),
        # the shipped hooks run `--context .`: the tree is read only when a passed file is relevant
        Row(
            "pre-irrelevant-ctx",
            f"check {len(irrelevant)} irrelevant files --context tree",
            [*tool, "check", "--context", str(tree), *irrelevant],
            ok_codes=chk,
            floor="click",
            max_ratio=1.5,
        ),
        Row(
            "pre-relevant-ctx",
            f"check 1 relevant file --context tree ({tree_info['files']} files)",
            [*tool, "check", "--context", str(tree), *relevant],
            ok_codes=chk,
            floor="scan-tree",
            max_ratio=4.0,
        ),
        check("check-tree", f"check tree ({tree_info['files']} files)", tree, floor="scan-tree", max_ratio=4.0),
        Row(
            "fix-tree",
            "fix tree --output-dir",
            [*tool, "fix", str(tree), "--output-dir"],
            ok_codes=chk,
            floor="scan-tree",
            max_ratio=10.0,
            out_kind="dir",
        ),
        check("check-big", "check 20 MB export", big, floor="scan-big", max_seconds=2.0),
        check("check-big-j1", "check 20 MB export -j 1", big, "-j", "1", floor="scan-big"),
        check("check-big-j2", "check 20 MB export -j 2", big, "-j", "2", floor="scan-big"),
        Row(
            "backup",
            "backup velero tarball",
            [*tool, "backup", str(tarball), "-o"],
            ok_codes=chk,
            floor="scan-tar",
            max_ratio=4.0,
            out_kind="file",
        ),
    ]
    if isinstance(dense_info, dict):
        n = dense_info["files"]
        rows += [
            check("check-dense", f"check dense tree ({n} files)", dense, floor="scan-dense", max_ratio=4.0),
            check("check-dense-j1", "check dense tree -j 1", dense, "-j", "1", floor="scan-dense"),
            check("check-dense-busy", "check dense tree, busy CPU", dense, busy=True),
            check("check-dense-j1-busy", "check dense tree -j 1, busy CPU", dense, "-j", "1", busy=True),
            check("check-dx", "check 2 MB export", dense_export),
            check("check-dx-j1", "check 2 MB export -j 1", dense_export, "-j", "1"),
            check("check-dx-j2", "check 2 MB export -j 2", dense_export, "-j", "2"),
            Row(
                "compose-dense",
                "floor: libyaml composes the dense tree's KubeVirt files",
                [py, str(FLOOR_LIBYAML), "compose-marked", str(dense)],
                is_floor=True,
            ),
        ]
    rows += issue30_rows(corpus, info, tool)
    ratios = [
        Ratio("pre-commit, nothing relevant / import click", "pre-irrelevant", "click", max=1.25),
        Ratio("pre-commit, 5 CRDs embedding VM fields / import click", "pre-embeds", "click", max=1.5),
        Ratio("pre-commit, one relevant file / import click", "pre-relevant", "click", max=2.5),
        Ratio("pre-commit, nothing relevant: --context / without", "pre-irrelevant-ctx", "pre-irrelevant", max=1.1),
        Ratio("check tree / read+search floor", "check-tree", "scan-tree", max=4.0),
        Ratio("check dense tree / read+search floor", "check-dense", "scan-dense", max=4.0),
        Ratio("check dense tree / read+search floor (CPU)", "check-dense", "scan-dense", max=3.0, cpu=True),
        Ratio(
            "check dense tree -j 1 / libyaml composing its KubeVirt files", "check-dense-j1", "compose-dense", max=2.0
        ),
        Ratio("dense tree: -j default / -j 1 (quiet)", "check-dense", "check-dense-j1", max=1.0, default="check-dense"),
        Ratio(
            "dense tree: -j default / -j 1 (busy CPU)",
            "check-dense-busy",
            "check-dense-j1-busy",
            max=1.0,
            default="check-dense-busy",
        ),
        Ratio("20 MB export: -j 1 / -j 2 (speed-up)", "check-big-j1", "check-big-j2", min=1.3),
        Ratio("20 MB export: -j 1 / -j default (speed-up)", "check-big-j1", "check-big", min=1.0, default="check-big"),
        Ratio("2 MB export: -j 1 / -j 2 (speed-up)", "check-dx-j1", "check-dx-j2", min=1.3),
        Ratio("2 MB export: -j 1 / -j default (speed-up)", "check-dx-j1", "check-dx", min=1.6, default="check-dx"),
        Ratio("backup / read+search tarball", "backup", "scan-tar", max=4.0),
        Ratio("validate the VMs / check-jsonschema", "validate-vms", "cjs-vms", max=0.1),
        Ratio("Template bundles / libyaml loading them (CPU)", "check-templates", "load-templates", max=1.0, cpu=True),
    ]
    if not big.exists():
        rows = [r for r in rows if not r.key.endswith("-big") and not r.key.startswith("check-big")]
    if not tarball.exists():
        rows = [r for r in rows if r.key not in ("scan-tar", "backup")]
    if not dense.exists():
        rows = [r for r in rows if r.key not in ("scan-dense", "compose-dense")]
    if args.rows:
        wanted = set(args.rows.split(","))
        for q in ratios:  # a ratio's two rows come together
            if q.num in wanted or q.den in wanted:
                wanted |= {q.num, q.den}
        needed = wanted | {r.floor for r in rows if r.key in wanted and r.floor}
        rows = [r for r in rows if r.key in needed]
    return rows, ratios


def issue30_rows(corpus: Path, info: dict[str, object], tool: list[str]) -> list[Row]:
    """The rows of issue 30's table that the corpus parts embeds, templates and vms feed (make_embeds.py)."""
    py, rows = sys.executable, []
    embeds, templates, vms = info.get("embeds"), info.get("templates"), info.get("vms")
    if isinstance(embeds, dict):
        crds = [str(corpus / p) for p in embeds["files"]]
        label = f"check {len(crds)} CRDs embedding VM fields"
        rows.append(Row("pre-embeds", label, [*tool, "check", *crds], ok_codes=(0, 1), floor="click", max_ratio=1.5))
    if isinstance(templates, dict):
        tpl = corpus / "templates"
        rows += [
            Row(
                "load-templates",
                "floor: libyaml loads the Template bundles",
                [py, str(FLOOR_LIBYAML), "load", str(tpl)],
                is_floor=True,
            ),
            Row(
                "check-templates",
                f"check Template bundles ({templates['objects']} Templates)",
                [*tool, "check", "--debug", str(tpl)],
                ok_codes=(0, 1),
                floor="load-templates",
                probe=True,
            ),
        ]
    if isinstance(vms, dict):
        vm_dir = corpus / str(vms["dir"])
        files = sorted(str(p) for p in vm_dir.iterdir()) if vm_dir.is_dir() else []
        peer = shutil.which("check-jsonschema")
        cjs = Row(
            "cjs-vms",
            "floor: check-jsonschema, the same VMs",
            [peer or "check-jsonschema", "--schemafile", str(corpus / str(vms["schema"])), *files],
            is_floor=True,
        )
        if peer is None:
            cjs.status, cjs.note = "n/a", "check-jsonschema is not installed"
        validate = [*tool, "validate", "-q", "--target-kubevirt", "1.9", str(vm_dir)]
        label = f"validate {vms['files']} VMs (v1.9 schema)"
        rows += [cjs, Row("validate-vms", label, validate, floor="cjs-vms", max_ratio=0.1)]
    return rows


def ensure_part(corpus: Path, part: str, n: int, seed: int) -> Path:
    """A tree of n files (part "tree") or a Velero tarball of n items (part "velero"), generated once."""
    out = corpus / "scale" / (str(n) if part == "tree" else f"{part}-{n}")
    info_path = out / "corpus.json"
    size_opt = {"tree": ("--files", "files"), "velero": ("--velero-items", "velero_items")}[part]
    if info_path.exists():
        info = json.loads(info_path.read_text())
        if info.get(size_opt[1]) == n and info.get("seed") == seed and part in info:
            return out
    print(f"generating a {n}-{'file tree' if part == 'tree' else 'item backup'} in {out} ...", file=sys.stderr)
    cmd = [sys.executable, str(MAKE_CORPUS), "--out", str(out), size_opt[0], str(n), "--parts", part]
    subprocess.run([*cmd, "--seed", str(seed), "--quiet"], check=True, stdout=subprocess.DEVNULL)
    return out


def scale_mode(args: argparse.Namespace, tool: list[str], work: Path) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for part in args.scale_parts.split(","):
        out += _scale_part(part.strip(), args, tool, work)
    return out


def _scale_part(part: str, args: argparse.Namespace, tool: list[str], work: Path) -> list[dict[str, object]]:
    corpus: Path = args.corpus.resolve()
    sizes = [int(x) for x in args.scale_sizes.split(",")]
    results: list[tuple[int, Row, Row]] = []
    py = sys.executable
    for n in sizes:
        base = ensure_part(corpus, part, n, args.seed)
        if part == "tree":
            tree = base / "tree"
            floor = Row(f"scan-{n}", f"floor {n}", [py, str(FLOOR_SCAN), "tree", str(tree)], is_floor=True)
            run = Row(f"check-{n}", f"check {n}", [*tool, "check", str(tree)], ok_codes=(0, 1), floor=floor.key)
        else:
            tarball = base / "velero-backup.tar.gz"
            floor = Row(f"scan-{n}", f"floor {n}", [py, str(FLOOR_SCAN), "tar", str(tarball)], is_floor=True)
            run = Row(
                f"backup-{n}",
                f"backup {n}",
                [*tool, "backup", str(tarball), "-o"],
                ok_codes=(0, 1),
                floor=floor.key,
                out_kind="file",
            )
        measure([floor, run], args.runs, work, args.verbose)
        results.append((n, floor, run))
    what = "check" if part == "tree" else "backup"
    headers = [
        "files" if part == "tree" else "items",
        what,
        "peak RSS",
        "floor",
        f"{what}/floor",
        "time growth",
        "size growth",
        "growth/size",
        "RSS growth",
    ]
    body: list[list[str]] = []
    out: list[dict[str, object]] = []
    prev: tuple[int, float | None, float | None] | None = None
    for n, floor, run in results:
        med, rss = run.median, run.peak_mb
        growth = files_growth = lin = rss_growth = "—"
        if prev is not None and med is not None and prev[1]:
            g = med / prev[1]
            fg = n / prev[0]
            growth, files_growth, lin = f"{g:.2f}x", f"{fg:.1f}x", f"{g / fg:.2f}"
            if rss is not None and prev[2]:
                rss_growth = f"{rss / prev[2]:.2f}x"
        ratio = f"{med / floor.median:.1f}x" if med is not None and floor.median else "—"
        body.append(
            [
                str(n),
                fmt_s(med) if run.status == "ok" else f"{run.status} {run.note}".strip(),
                f"{rss:.0f} MB" if rss is not None else "—",
                fmt_s(floor.median),
                ratio,
                growth,
                files_growth,
                lin,
                rss_growth,
            ]
        )
        out.append({"part": part, "size": n, "median_s": med, "peak_mb": rss, "floor_s": floor.median})
        prev = (n, med, rss)
    print(f"\n{what} ({part}):")
    print_table(headers, body)
    print("growth/size ≈ 1.0 means linear; well above 1 means superlinear (a finding).")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=HERE / "corpus", help="corpus directory (default: %(default)s)")
    ap.add_argument("--runs", type=int, default=5, help="measured runs per row, after one warm-up (default 5)")
    ap.add_argument("--tool", help='tool command line (default: "<python> -m transform", run from the repo root)')
    ap.add_argument("--rows", help="comma-separated row keys to run (their floors are added)")
    ap.add_argument("--scale", action="store_true", help="time check on trees of --scale-sizes files instead")
    ap.add_argument("--scale-sizes", default="1000,10000,50000", help="tree sizes for --scale (default %(default)s)")
    ap.add_argument(
        "--scale-parts",
        default="tree",
        help="what --scale grows: tree (check N files), velero (backup N items), or both (default %(default)s)",
    )
    ap.add_argument("--seed", type=int, default=20250101, help="seed for the --scale trees (default %(default)s)")
    ap.add_argument("--json", type=Path, help="also write the results as JSON to this file")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every run")
    args = ap.parse_args(argv)

    tool = shlex.split(args.tool) if args.tool else [sys.executable, "-m", "transform"]
    if not args.tool:
        # An installed tool runs from bytecode (pip compiles at install time); a checkout run under
        # PYTHONDONTWRITEBYTECODE=1 would compile every module at every start instead (~2x the start-up).
        subprocess.run([sys.executable, "-m", "compileall", "-q", "transform"], cwd=REPO, check=True)
    print(f"tool: {shlex.join(tool)}   runs: {args.runs} (+1 warm-up)   cpus: {os.cpu_count()}")
    print(f"python: {sys.version.split()[0]}   corpus: {args.corpus}\n")
    with tempfile.TemporaryDirectory(prefix="itu-bench-") as tmp:
        work = Path(tmp)
        if args.scale:
            results = scale_mode(args, tool, work)
        else:
            rows, ratios = main_rows(args, tool)
            measure(rows, args.runs, work, args.verbose)
            results = report(rows)
            results += report_ratios(rows, ratios)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
