"""Scale as a real model sees it: N DS reviews on the replay model, beside a bare Inspect task
making the same calls.

    python benchmarks/scale_replay.py            # N = 1,000 documents
    python benchmarks/scale_replay.py --quick    # N = 64 (CI: the benchmark still runs)
    python benchmarks/scale_replay.py -n 200 --latency 0 --runs 3 --workdir /tmp/scale

N documents (the DS fixtures cycled, each copy a distinct text, a file and a sample of its own) are
reviewed once by the offline reviewer, recording its answers in a log (not timed; `--workdir` keeps
the documents and the log for the next invocation); then they run through the DS task on
`offline/replay -M log=<that log> -M latency=L --max-connections C`: every call waits L seconds
as a real model would and costs no rule-engine work, so what is measured is the harness. The bare
task sends the same two reviewer prompts per document (rendered before timing) to the same model
and scores a constant. Each run is a process of its own, so its peak RSS is its own.

Prints, per task: wall seconds, the latency floor (calls x latency / connections), wall over
floor, peak RSS, CPU milliseconds per sample (process CPU, steadier than wall on a shared machine)
and the load average before and after the run; then the harness's CPU per sample over the bare
task's (`--runs K` alternates the two tasks K times and prints medians). `--no-log-realtime` runs
both without Inspect's realtime event buffer (what `inspect eval --no-log-realtime` does). Targets
(full mode): wall within 3x the floor, peak RSS <= 1 GB, <= 20 ms CPU per sample over bare.
Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
FIXTURES = ROOT / "fixtures" / "ds"
TARGET_FLOOR_RATIO, TARGET_RSS_MB, TARGET_CPU_MS = 3.0, 1024, 20.0


def write_documents(folder: Path, n: int) -> None:
    """N distinct documents: the DS fixtures cycled, each copy ending in a comment with its number.
    Distinct texts, as in a real run: preparation keeps its reading of a text in memory, so
    repeated texts would be read once per fixture, not once per document."""
    fixtures = sorted(FIXTURES.glob("*.md"))
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        src = fixtures[i % len(fixtures)]
        text = src.read_text(encoding="utf-8").rstrip("\n") + f"\n\n<!-- copy {i} -->\n"
        (folder / f"{i:04d}-{src.name}").write_text(text, encoding="utf-8")


def record(docs: Path, log_dir: Path) -> Path:
    """One offline review of every document: the log the replays answer from."""
    from inspect_ai import eval

    sys.path.insert(0, str(HERE))
    from common import load_task

    [log] = eval(load_task("ds_review")(document=str(docs)), model="offline/rules", display="none",
                 log_dir=str(log_dir), max_connections=64)
    if log.status != "success":
        raise SystemExit(f"recording failed: {log.status}")
    return Path(log.location)


def one_run(which: str, docs: Path, log: Path, latency: float, connections: int, log_dir: Path,
            realtime: bool = True) -> dict:
    """Run one task in this process (called in a child process) and say what it cost. The replay
    model reads its log before the clocks start (a real model has no log to read); that reading's
    seconds are reported apart."""
    from inspect_ai import eval
    from inspect_ai.model import get_model

    sys.path.insert(0, str(HERE))
    from common import load_task

    if which == "harness":
        task = load_task("ds_review")(document=str(docs))
    else:
        from review_harness.ds.dataset import document_samples
        from run import baseline_tasks  # benchmarks/run.py: the bare task making the same calls

        task = baseline_tasks(document_samples(str(docs), {}))["same model calls"]
    read = time.perf_counter()
    model = get_model("offline/replay", log=str(log), latency=latency)
    read = time.perf_counter() - read
    cpu, wall = time.process_time(), time.perf_counter()
    [result] = eval(task, model=model, display="none", log_dir=str(log_dir), max_connections=connections,
                    max_samples=connections, log_realtime=realtime)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    peak_rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # before the samples are read back
    if result.status != "success":
        raise SystemExit(f"{which} run failed: {result.status} {result.error}")
    calls = sum(1 for s in result.samples for e in s.events if e.event == "model")
    return {"task": which, "samples": len(result.samples), "calls": calls, "wall_s": wall, "cpu_s": cpu,
            "log_read_s": read, "peak_rss_mb": peak_rss_mb}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="N = 64: a check that the benchmark runs (CI)")
    parser.add_argument("-n", type=int, help="documents (default 1,000; 64 with --quick)")
    parser.add_argument("--latency", type=float, default=1.0, help="seconds per model call (default 1)")
    parser.add_argument("--connections", type=int, default=200, help="--max-connections (default 200)")
    parser.add_argument("--runs", type=int, default=1,
                        help="runs of each task, alternated (medians are printed; default 1)")
    parser.add_argument("--workdir", type=Path,
                        help="keep the documents and the recorded log here and reuse them when present")
    parser.add_argument("--json", type=Path, help="also write every run's figures to this file")
    parser.add_argument("--no-log-realtime", dest="realtime", action="store_false",
                        help="run both tasks without Inspect's realtime event buffer")
    parser.add_argument("--child", nargs=3, metavar=("TASK", "DOCS", "LOG"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        which, docs, log = args.child
        with tempfile.TemporaryDirectory() as tmp:
            print(json.dumps(one_run(which, Path(docs), Path(log), args.latency, args.connections, Path(tmp),
                                     args.realtime)))
        return
    n = args.n or (64 if args.quick else 1000)
    with tempfile.TemporaryDirectory() as tmp:
        work = args.workdir / str(n) if args.workdir else Path(tmp)
        log = prepared_inputs(work, n)
        runs = []
        for _ in range(args.runs):
            for which in ("harness", "bare"):
                runs.append(child_run(which, work / "docs", log, args.latency, args.connections, args.realtime))
    report(runs, n, args.latency, args.connections)
    if args.json:
        args.json.write_text(json.dumps({"documents": n, "latency": args.latency, "connections": args.connections,
                                         "log_realtime": args.realtime, "runs": runs}, indent=2), encoding="utf-8")


def prepared_inputs(work: Path, n: int) -> Path:
    """The N documents and the log that records their reviews, made unless `work` holds them."""
    recorded = sorted((work / "recorded").glob("*.eval")) if (work / "recorded").is_dir() else []
    if recorded and len(list((work / "docs").glob("*.md"))) == n:
        return recorded[-1]
    write_documents(work / "docs", n)
    return record(work / "docs", work / "recorded")


def child_run(which: str, docs: Path, log: Path, latency: float, connections: int, realtime: bool) -> dict:
    """One run in a process of its own (its peak RSS is its own), with the load average around it."""
    load = os.getloadavg()[0]
    child = subprocess.run([sys.executable, __file__, "--latency", str(latency), "--connections", str(connections),
                            *([] if realtime else ["--no-log-realtime"]), "--child", which, str(docs), str(log)],
                           capture_output=True, text=True, check=False)
    if child.returncode:
        raise SystemExit(f"{which} run failed:\n{child.stderr[-2000:]}")
    row = json.loads(child.stdout.strip().splitlines()[-1])
    row["load_before"], row["load_after"] = load, os.getloadavg()[0]
    return row


def report(runs: list[dict], n: int, latency: float, connections: int) -> None:
    print(f"DS review at scale on the replay model: {n} documents, -M latency={latency:g}, "
          f"--max-connections {connections}")
    print(f"{'task':8} {'samples':>7} {'calls':>6} {'wall s':>8} {'floor s':>8} {'x floor':>8} "
          f"{'peak RSS MB':>12} {'CPU ms/sample':>14} {'load avg':>10}")
    for r in runs:
        floor = r["calls"] * latency / connections
        print(f"{r['task']:8} {r['samples']:>7} {r['calls']:>6} {r['wall_s']:>8.1f} {floor:>8.1f} "
              f"{over_floor(r['wall_s'], floor):>8} {r['peak_rss_mb']:>12.0f} {cpu_ms(r):>14.1f} "
              f"{r['load_before']:>4.1f}-{r['load_after']:<4.1f}")
    harness = [r for r in runs if r["task"] == "harness"]
    bare = [r for r in runs if r["task"] == "bare"]
    over = statistics.median(cpu_ms(h) - cpu_ms(b) for h, b in zip(harness, bare))
    wall = statistics.median(r["wall_s"] for r in harness)
    floor = harness[0]["calls"] * latency / connections
    print(f"harness CPU over bare: {over:+.1f} ms per sample (target <= {TARGET_CPU_MS:g}); wall "
          f"{over_floor(wall, floor)}x the floor (target <= {TARGET_FLOOR_RATIO:g}); peak RSS "
          f"{max(r['peak_rss_mb'] for r in harness):.0f} MB (target <= {TARGET_RSS_MB})"
          + (f"; medians of {len(harness)} runs each" if len(harness) > 1 else ""))


def over_floor(wall: float, floor: float) -> str:
    """Wall over the latency floor ('-' at latency 0: no floor)."""
    return f"{wall / floor:.2f}" if floor else "-"


def cpu_ms(run: dict) -> float:
    return 1000 * run["cpu_s"] / run["samples"]

if __name__ == "__main__":
    main()
