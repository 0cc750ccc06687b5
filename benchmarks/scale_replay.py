"""Scale as a real model sees it: N DS reviews on the replay model, beside a bare Inspect task
making the same calls.

    python benchmarks/scale_replay.py            # N = 1,000 documents
    python benchmarks/scale_replay.py --quick    # N = 64 (CI: the benchmark still runs)
    python benchmarks/scale_replay.py -n 200 --latency 1 --connections 200

N documents (the DS fixtures cycled, each a file and sample of its own) are reviewed once by the
offline reviewer, recording its answers in a log (not timed); then they run through the DS task on
`offline/replay -M log=<that log> -M latency=L --max-connections C`: every call waits L seconds
as a real model would and costs no rule-engine work, so what is measured is the harness. The bare
task sends the same two reviewer prompts per document (rendered before timing) to the same model
and scores a constant. Each run is a process of its own, so its peak RSS is its own.

Prints, per task: wall seconds, the latency floor (calls x latency / connections), wall over
floor, peak RSS, and CPU seconds per sample; then the harness's CPU per sample over the bare
task's. Targets (full mode): wall within 3x the floor, peak RSS <= 1 GB, <= 20 ms CPU per sample
over bare. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import resource
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
    """N documents: the DS fixtures cycled."""
    fixtures = sorted(FIXTURES.glob("*.md"))
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        src = fixtures[i % len(fixtures)]
        (folder / f"{i:04d}-{src.name}").write_text(src.read_text(encoding="utf-8"), encoding="utf-8")


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


def one_run(which: str, docs: Path, log: Path, latency: float, connections: int, log_dir: Path) -> dict:
    """Run one task in this process (called in a child process) and say what it cost."""
    from inspect_ai import eval

    sys.path.insert(0, str(HERE))
    from common import load_task

    if which == "harness":
        task = load_task("ds_review")(document=str(docs))
    else:
        from review_harness.ds.dataset import document_samples
        from run import baseline_tasks  # benchmarks/run.py: the bare task making the same calls

        task = baseline_tasks(document_samples(str(docs), {}))["same model calls"]
    cpu, wall = time.process_time(), time.perf_counter()
    [result] = eval(task, model="offline/replay", model_args={"log": str(log), "latency": latency}, display="none",
                    log_dir=str(log_dir), max_connections=connections, max_samples=connections)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    if result.status != "success":
        raise SystemExit(f"{which} run failed: {result.status} {result.error}")
    calls = sum(1 for s in result.samples for e in s.events if e.event == "model")
    return {"task": which, "samples": len(result.samples), "calls": calls, "wall_s": wall, "cpu_s": cpu,
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="N = 64: a check that the benchmark runs (CI)")
    parser.add_argument("-n", type=int, help="documents (default 1,000; 64 with --quick)")
    parser.add_argument("--latency", type=float, default=1.0, help="seconds per model call (default 1)")
    parser.add_argument("--connections", type=int, default=200, help="--max-connections (default 200)")
    parser.add_argument("--child", nargs=3, metavar=("TASK", "DOCS", "LOG"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        which, docs, log = args.child
        with tempfile.TemporaryDirectory() as tmp:
            print(json.dumps(one_run(which, Path(docs), Path(log), args.latency, args.connections, Path(tmp))))
        return
    n = args.n or (64 if args.quick else 1000)
    with tempfile.TemporaryDirectory() as tmp:
        docs = Path(tmp) / "docs"
        write_documents(docs, n)
        log = record(docs, Path(tmp) / "recorded")
        rows = []
        for which in ("harness", "bare"):
            child = subprocess.run([sys.executable, __file__, "--latency", str(args.latency), "--connections",
                                    str(args.connections), "--child", which, str(docs), str(log)],
                                   capture_output=True, text=True, check=False)
            if child.returncode:
                raise SystemExit(f"{which} run failed:\n{child.stderr[-2000:]}")
            rows.append(json.loads(child.stdout.strip().splitlines()[-1]))
    print(f"DS review at scale on the replay model: {n} documents, -M latency={args.latency:g}, "
          f"--max-connections {args.connections}")
    print(f"{'task':8} {'samples':>7} {'calls':>6} {'wall s':>8} {'floor s':>8} {'x floor':>8} "
          f"{'peak RSS MB':>12} {'CPU ms/sample':>14}")
    for r in rows:
        floor = r["calls"] * args.latency / args.connections
        print(f"{r['task']:8} {r['samples']:>7} {r['calls']:>6} {r['wall_s']:>8.1f} {floor:>8.1f} "
              f"{r['wall_s'] / floor:>8.2f} {r['peak_rss_mb']:>12.0f} {1000 * r['cpu_s'] / r['samples']:>14.1f}")
    harness, bare = rows
    over = 1000 * (harness["cpu_s"] / harness["samples"] - bare["cpu_s"] / bare["samples"])
    floor = harness["calls"] * args.latency / args.connections
    print(f"harness CPU over bare: {over:+.1f} ms per sample (target <= {TARGET_CPU_MS:g}); wall "
          f"{harness['wall_s'] / floor:.2f}x the floor (target <= {TARGET_FLOOR_RATIO:g}); peak RSS "
          f"{harness['peak_rss_mb']:.0f} MB (target <= {TARGET_RSS_MB})")


if __name__ == "__main__":
    main()
