"""Start-up of the `review-harness` command against `inspect`'s: `--help` of each, and the
modules `review-harness --help` imports (none of a kind, of Inspect or pandas: its commands load
what they need when they run).

    python benchmarks/cli.py            # 7 runs of each, medians
    python benchmarks/cli.py --quick    # 2 runs of each (what .ci/run runs)

Target: `review-harness --help` no slower than `inspect --help`. Figures only: it exits 0.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

from common import bench_args

BIN = Path(sys.executable).parent


def seconds(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    return time.perf_counter() - start


def heavy_imports() -> list[str]:
    code = ("import sys, review_harness.cli as c; c.main(['--help']); "
            "print('HEAVY:' + ','.join(sorted({m.split('.')[0] for m in sys.modules} & {'inspect_ai', 'pandas', 'pydantic'})))")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    line = next(line for line in out.splitlines() if line.startswith("HEAVY:"))
    return [m for m in line.removeprefix("HEAVY:").split(",") if m]


def main() -> int:
    args = bench_args(__doc__)
    runs = 2 if args.quick else 7
    seconds([str(BIN / "review-harness"), "--help"])  # warm the file cache for both
    seconds([str(BIN / "inspect"), "--help"])
    ours = statistics.median(seconds([str(BIN / "review-harness"), "--help"]) for _ in range(runs))
    theirs = statistics.median(seconds([str(BIN / "inspect"), "--help"]) for _ in range(runs))
    heavy = heavy_imports()
    print(f"review-harness --help: {ours:.2f} s (median of {runs})")
    print(f"inspect --help:        {theirs:.2f} s (median of {runs})")
    print(f"ratio: {ours / theirs:.2f} (target <= 1.00)")
    print(f"heavy modules imported by review-harness --help: {', '.join(heavy) or 'none'} (target: none)")
    return 0  # figures only (tests/test_cli.py asserts the start-up imports)


if __name__ == "__main__":
    sys.exit(main())
