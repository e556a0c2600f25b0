"""Whole-process benchmarks of instancetype-upgrade against their floors (stdlib only).

    python benchmarks/make_corpus.py --out benchmarks/corpus
    python benchmarks/run.py --corpus benchmarks/corpus [--runs 5] [--tool "CMD ..."]
    python benchmarks/run.py --corpus benchmarks/corpus --scale [--scale-sizes 1000,10000,50000]

Every row is a separate process, timed from outside (wall clock) with its peak RSS taken from ``os.wait4``.
Rows run interleaved (one round = every row once), after one warm-up round; the figure is the median of
``--runs`` rounds. A subcommand the tool does not have yet is shown as ``n/a``.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
FLOOR_SCAN = HERE / "floor_scan.py"
MAKE_CORPUS = HERE / "make_corpus.py"
MEM_LIMIT_MB = 200.0

FINDINGS_CODES = (3,)  # instancetype-upgrade: "errors found in the input"; the run itself completed
NA_MARKERS = ("No such command", "No such option", "no such option", "invalid choice")


@dataclass
class Sample:
    seconds: float
    rc: int
    peak_mb: float
    stderr: str


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
    samples: list[Sample] = field(default_factory=list)
    status: str = "ok"  # ok | n/a | error
    note: str = ""

    @property
    def median(self) -> float | None:
        return statistics.median(s.seconds for s in self.samples) if self.samples else None

    @property
    def peak_mb(self) -> float | None:
        return max(s.peak_mb for s in self.samples) if self.samples else None


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
    return Sample(seconds, proc.returncode, usage.ru_maxrss * scale / 1e6, stderr)


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


def execute(row: Row, work: Path) -> Sample:
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
            mem_col = f"{row.peak_mb:.0f} MB"
        else:
            med_col, rng_col, mem_col = row.status, "", ""
        if row.note:
            verdict = f"{verdict} ({row.note})"
        body.append([row.label, med_col, rng_col, mem_col, floor_col, ratio_col, target_col, verdict])
        out.append(
            {
                "key": row.key,
                "label": row.label,
                "status": row.status,
                "note": row.note,
                "median_s": row.median,
                "runs_s": [s.seconds for s in row.samples],
                "peak_mb": row.peak_mb,
                "floor": row.floor,
                "ratio": ratio_col,
                "target": target_col,
                "verdict": verdict,
            }
        )
    print_table(["row", "median", "min–max", "peak RSS", "floor", "ratio", "target", "result"], body)
    return out


def load_info(corpus: Path) -> dict[str, object]:
    info_path = corpus / "corpus.json"
    if not info_path.exists():
        sys.exit(f"error: {info_path} not found; run: python {MAKE_CORPUS.relative_to(REPO)} --out {corpus}")
    info: dict[str, object] = json.loads(info_path.read_text())
    return info


def main_rows(args: argparse.Namespace, tool: list[str]) -> list[Row]:
    corpus: Path = args.corpus.resolve()
    info = load_info(corpus)
    tree_info = info.get("tree")
    if not isinstance(tree_info, dict):
        sys.exit("error: the corpus has no tree/ (generate it with --parts including tree)")
    tree = corpus / "tree"
    big = corpus / "big" / "cluster-export.yaml"
    tarball = corpus / "velero-backup.tar.gz"
    irrelevant = [str(tree / p) for p in tree_info["precommit_irrelevant"]]
    relevant = [str(tree / tree_info["precommit_relevant"])]
    py = sys.executable
    rows = [
        Row("pass", "python -c pass", [py, "-c", "pass"], is_floor=True),
        Row("click", "python -c 'import click'", [py, "-c", "import click"], is_floor=True),
        Row("scan-tree", "floor: read+search tree", [py, str(FLOOR_SCAN), "tree", str(tree)], is_floor=True),
        Row("scan-big", "floor: read+search 20 MB", [py, str(FLOOR_SCAN), "file", str(big)], is_floor=True),
        Row(
            "scan-tar",
            "floor: read+search tarball",
            [py, str(FLOOR_SCAN), "tar", str(tarball)],
            is_floor=True,
        ),
        Row(
            "pre-irrelevant",
            f"check {len(irrelevant)} irrelevant files",
            [*tool, "check", *irrelevant],
            ok_codes=(0, 1),
            floor="click",
            max_ratio=2.0,
        ),
        Row(
            "pre-relevant",
            "check 1 relevant file",
            [*tool, "check", *relevant],
            ok_codes=(0, 1),
            floor="click",
            max_seconds=0.25,
        ),
        Row(
            "check-tree",
            f"check tree ({tree_info['files']} files)",
            [*tool, "check", str(tree)],
            ok_codes=(0, 1),
            floor="scan-tree",
            max_ratio=6.0,
        ),
        Row(
            "fix-tree",
            "fix tree --output-dir",
            [*tool, "fix", str(tree), "--output-dir"],
            ok_codes=(0, 1),
            floor="scan-tree",
            max_ratio=10.0,
            out_kind="dir",
        ),
        Row(
            "check-big",
            "check 20 MB export",
            [*tool, "check", str(big)],
            ok_codes=(0, 1),
            floor="scan-big",
            max_seconds=5.0,
        ),
        Row(
            "backup",
            "backup velero tarball",
            [*tool, "backup", str(tarball), "-o"],
            ok_codes=(0, 1),
            floor="scan-tar",
            out_kind="file",
        ),
    ]
    if not big.exists():
        rows = [r for r in rows if r.key not in ("scan-big", "check-big")]
    if not tarball.exists():
        rows = [r for r in rows if r.key not in ("scan-tar", "backup")]
    if args.rows:
        wanted = set(args.rows.split(","))
        needed = wanted | {r.floor for r in rows if r.key in wanted and r.floor}
        rows = [r for r in rows if r.key in needed]
    return rows


def ensure_tree(corpus: Path, n: int, seed: int) -> Path:
    out = corpus / "scale" / str(n)
    info_path = out / "corpus.json"
    if info_path.exists():
        info = json.loads(info_path.read_text())
        if info.get("files") == n and info.get("seed") == seed and "tree" in info:
            return out
    print(f"generating a {n}-file tree in {out} ...", file=sys.stderr)
    cmd = [sys.executable, str(MAKE_CORPUS), "--out", str(out), "--files", str(n), "--parts", "tree"]
    subprocess.run([*cmd, "--seed", str(seed), "--quiet"], check=True, stdout=subprocess.DEVNULL)
    return out


def scale_mode(args: argparse.Namespace, tool: list[str], work: Path) -> list[dict[str, object]]:
    corpus: Path = args.corpus.resolve()
    sizes = [int(x) for x in args.scale_sizes.split(",")]
    results: list[tuple[int, Row, Row]] = []
    for n in sizes:
        tree = ensure_tree(corpus, n, args.seed) / "tree"
        floor = Row(f"scan-{n}", f"floor {n}", [sys.executable, str(FLOOR_SCAN), "tree", str(tree)], is_floor=True)
        check = Row(f"check-{n}", f"check {n}", [*tool, "check", str(tree)], ok_codes=(0, 1), floor=floor.key)
        measure([floor, check], args.runs, work, args.verbose)
        results.append((n, floor, check))
    headers = [
        "files",
        "check",
        "peak RSS",
        "floor",
        "check/floor",
        "time growth",
        "files growth",
        "growth/files",
    ]
    body: list[list[str]] = []
    out: list[dict[str, object]] = []
    prev: tuple[int, float | None] | None = None
    for n, floor, check in results:
        med = check.median
        growth = files_growth = lin = "—"
        if prev is not None and med is not None and prev[1]:
            g = med / prev[1]
            fg = n / prev[0]
            growth, files_growth, lin = f"{g:.2f}x", f"{fg:.1f}x", f"{g / fg:.2f}"
        ratio = f"{med / floor.median:.1f}x" if med is not None and floor.median else "—"
        body.append(
            [
                str(n),
                fmt_s(med) if check.status == "ok" else f"{check.status} {check.note}".strip(),
                f"{check.peak_mb:.0f} MB" if check.peak_mb is not None else "—",
                fmt_s(floor.median),
                ratio,
                growth,
                files_growth,
                lin,
            ]
        )
        out.append({"files": n, "check_s": med, "check_peak_mb": check.peak_mb, "floor_s": floor.median})
        prev = (n, med)
    print_table(headers, body)
    print("\ngrowth/files ≈ 1.0 means linear; well above 1 means superlinear (a finding).")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=HERE / "corpus", help="corpus directory (default: %(default)s)")
    ap.add_argument("--runs", type=int, default=5, help="measured runs per row, after one warm-up (default 5)")
    ap.add_argument("--tool", help='tool command line (default: "<python> -m transform", run from the repo root)')
    ap.add_argument("--rows", help="comma-separated row keys to run (their floors are added)")
    ap.add_argument("--scale", action="store_true", help="time check on trees of --scale-sizes files instead")
    ap.add_argument("--scale-sizes", default="1000,10000,50000", help="tree sizes for --scale (default %(default)s)")
    ap.add_argument("--seed", type=int, default=20250101, help="seed for the --scale trees (default %(default)s)")
    ap.add_argument("--json", type=Path, help="also write the results as JSON to this file")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every run")
    args = ap.parse_args(argv)

    tool = shlex.split(args.tool) if args.tool else [sys.executable, "-m", "transform"]
    print(f"tool: {shlex.join(tool)}   runs: {args.runs} (+1 warm-up)   cpus: {os.cpu_count()}")
    print(f"python: {sys.version.split()[0]}   corpus: {args.corpus}\n")
    with tempfile.TemporaryDirectory(prefix="itu-bench-") as tmp:
        work = Path(tmp)
        if args.scale:
            results = scale_mode(args, tool, work)
        else:
            rows = main_rows(args, tool)
            measure(rows, args.runs, work, args.verbose)
            results = report(rows)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
