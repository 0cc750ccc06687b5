"""The offline DS reviewer's own cost: CPU per call on the DS gold set and on the real write-ups.

One call is what the offline model does for one reviewer of one document: it reads the document
(the view is built once per call) and runs every check of that reviewer's dimension. The figures
are process CPU time, not wall time, so another process on the machine moves them less. Printed:
calls, median, 90th percentile and worst call (with its document), and the checks that cost most
in all and in one call. Targets: median <= 100 ms and worst <= 1 s per call; the last line says
whether this run met them. Nothing is asserted: this is a measure, not a test.

    python benchmarks/offline_engines.py [--quick]
"""

from __future__ import annotations

import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ROOT, bench_args  # noqa: E402

from review_harness.core.paths import shared_dir  # noqa: E402
from review_harness.ds.offline import rules  # noqa: E402

MEDIAN_TARGET_MS = 100.0
WORST_TARGET_MS = 1000.0
DIMENSIONS = ("analysis", "communication")


def documents(quick: bool) -> list[Path]:
    """The DS gold set's documents, then the real write-ups beside the checkout (longest first in
    quick mode, where a few of each are enough to see that the benchmark works)."""
    gold = sorted((ROOT / "fixtures" / "ds").glob("*.md"))
    shared = shared_dir()
    real = sorted((shared / "real" / "ds").glob("*.md")) if shared else []
    if quick:
        gold = gold[:4]
        real = sorted(real, key=lambda p: -p.stat().st_size)[:3]
    return gold + real


def main() -> None:
    args = bench_args(__doc__)
    per_check: dict[str, list[float]] = defaultdict(list)
    original = rules._run

    def timed(detector, check_id, ctx):
        start = time.process_time()
        try:
            return original(detector, check_id, ctx)
        finally:
            per_check[check_id].append((time.process_time() - start) * 1000)

    original_view = rules.build_view

    def timed_view(text):
        start = time.process_time()
        try:
            return original_view(text)
        finally:
            per_check["(reading the document: build_view)"].append((time.process_time() - start) * 1000)

    rules._run = timed
    rules.build_view = timed_view
    calls: list[tuple[float, str]] = []
    try:
        docs = documents(args.quick)
        for path in docs:
            text = path.read_text(encoding="utf-8", errors="replace")
            for dim in DIMENSIONS:
                start = time.process_time()
                rules.review_with_rules(dim, text)
                calls.append(((time.process_time() - start) * 1000, f"{path.name} ({dim})"))
    finally:
        rules._run = original
        rules.build_view = original_view

    times = sorted(ms for ms, _ in calls)
    median = statistics.median(times)
    p90 = times[int(0.9 * (len(times) - 1))]
    worst_ms, worst_doc = max(calls)
    words = {p.name: len(p.read_text(encoding="utf-8", errors="replace").split()) for p in docs}
    print(f"offline DS reviewer: {len(calls)} calls over {len(docs)} documents "
          f"({'quick' if args.quick else 'full'}; real write-ups {'present' if shared_dir() else 'absent'})")
    print(f"  CPU per call: median {median:.1f} ms, p90 {p90:.1f} ms, worst {worst_ms:.1f} ms ({worst_doc}, "
          f"{words[worst_doc.split(' (')[0]]} words)")
    print("  reading and checks costing most in all (total ms, calls, worst single ms):")
    ranked = sorted(per_check.items(), key=lambda kv: -sum(kv[1]))[:8]
    for check_id, spent in ranked:
        print(f"    {check_id:<34} {sum(spent):8.1f} {len(spent):5d} {max(spent):8.1f}")
    met = median <= MEDIAN_TARGET_MS and worst_ms <= WORST_TARGET_MS
    print(f"  targets (median <= {MEDIAN_TARGET_MS:.0f} ms, worst <= {WORST_TARGET_MS:.0f} ms): "
          f"{'met' if met else 'NOT met'}")


if __name__ == "__main__":
    main()
