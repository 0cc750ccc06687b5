"""The DS review with and without `-T domain=search-ranking` on the Search fixtures, offline:

    . .venv/bin/activate
    python benchmarks/domain_review.py [--quick]   # about half a minute

1. Calibration (seed 001 s8): per document, today's two-dimension score and band (the run without
   a domain) beside the three-dimension score and band (50/25/25), and whether the band moved.
2. Cost: model calls and input tokens per review, and the round trips on the critical path at
   1 s per call (`-M latency=1`): the panel is one round trip; stage-2 dedup questions, when a
   document has any, add one more after it (asked at once; budget DS 1, DESIGN.md 7b).
"""

from __future__ import annotations

import statistics
import tempfile

from inspect_ai import eval as inspect_eval
from inspect_ai.event import ModelEvent

from common import ROOT, bench_args, load_task
from review_harness.core.logs import reviews_in_log
from review_harness.ds.rubric import default_rubric
from review_harness.ds.scoring import band_verdict

DOCS = sorted((ROOT / "fixtures" / "domain" / "search").glob("*.md"))


def run(domain: str | None, latency: float = 0.0):
    args = {"document": ",".join(str(d) for d in DOCS)} | ({"domain": domain} if domain else {})
    with tempfile.TemporaryDirectory() as tmp:
        [log] = inspect_eval(load_task("ds_review")(**args), model="offline/rules",
                             model_args={"latency": latency} if latency else {}, log_dir=tmp, display="none")
    return log


def calls(sample) -> tuple[int, int]:
    events = [e for e in sample.events if isinstance(e, ModelEvent)]
    return len(events), sum((e.output.usage.input_tokens if e.output and e.output.usage else 0) for e in events)


def main() -> None:
    bench_args(__doc__)  # --quick: this script is quick already (three offline runs)
    rubric = default_rubric()
    two, three = run(None), run("search-ranking")
    before = {sid: r for sid, _, r in reviews_in_log(two)}
    after = {sid: r for sid, _, r in reviews_in_log(three)}
    print("1. Two- vs three-dimension scores on the Search fixtures (offline reviewers)")
    print(f"{'document':30} {'A':>5} {'C':>5} {'D':>5} {'2-dim':>7} {'band':13} {'3-dim':>7} {'band':13} moved")
    moved = 0
    for sid in sorted(after):
        b, a = before[sid], after[sid]
        d = a.dimensions
        b2, b3 = band_verdict(b.final_score, rubric), band_verdict(a.final_score, rubric)
        moved += b2 != b3
        print(f"{sid:30} {d['analysis'].score:5g} {d['communication'].score:5g} {d['domain'].score:5g} "
              f"{b.final_score:7g} {b2:13} {a.final_score:7g} {b3:13} {'yes' if b2 != b3 else ''}")
        print(f"{'':30} verdict {b.verdict} -> {a.verdict}")
    print(f"bands moved: {moved} of {len(after)}; mean score {statistics.mean(r.final_score for r in before.values()):.1f}"
          f" -> {statistics.mean(r.final_score for r in after.values()):.1f}")

    print("\n2. Cost per review")
    for name, log in (("without domain", two), ("with domain", three)):
        figures = [calls(s) for s in log.samples]
        print(f"{name:16} model calls {statistics.mean(c for c, _ in figures):.1f}, "
              f"input tokens {statistics.mean(t for _, t in figures):,.0f}")
    slow = run("search-ranking", latency=1.0)
    times = [s.working_time for s in slow.samples]
    print(f"with domain, 1 s per call: {statistics.mean(times):.1f} s per review (max {max(times):.1f}); "
          "round trips on the critical path = panel 1 (+1 with stage-2 dedup questions; budget: DS 1)")


if __name__ == "__main__":
    main()
