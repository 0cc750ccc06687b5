"""The DS review with and without its domain dimension, offline:

    . .venv/bin/activate
    python benchmarks/domain_review.py [--quick]   # about a minute; --quick: the Search documents only

1. Recalibration: for each Search document, the two-dimension review (no domain) beside
   the three-dimension review with its gold file's domain, whether the band moved and whether the
   domain reviewer reported a MAJOR or CRITICAL finding; then every DS fixture reviewed with
   -T domain=search-ranking (most are not about search: not applicable, not scored). The default
   rubric's recalibration keeps a band unless the domain finds something MAJOR or CRITICAL.
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

SEARCH = sorted((ROOT / "fixtures" / "domain" / "search").glob("*.md"))
DS = sorted((ROOT / "fixtures" / "ds").glob("*.md"))
ORDER = ["Good to Go", "Minor Fix", "Major Rework"]


def run(latency: float = 0.0, **args) -> tuple[dict, list[tuple[int, int, float]]]:
    """(sample id -> review, per sample (model calls, input tokens, working seconds)), read while
    the log still exists."""
    with tempfile.TemporaryDirectory() as tmp:
        [log] = inspect_eval(load_task("ds_review")(**args), model="offline/rules",
                             model_args={"latency": latency} if latency else {}, log_dir=tmp, display="none")
        reviews = {sid: r for sid, _, r in reviews_in_log(log)}
        figures = []
        for sample in log.samples or []:
            events = [e for e in sample.events if isinstance(e, ModelEvent)]
            tokens = sum(e.output.usage.input_tokens for e in events if e.output and e.output.usage)
            figures.append((len(events), tokens, sample.working_time or 0.0))
    return reviews, figures


def serious_domain(review) -> bool:
    """Whether the domain reviewer reported a MAJOR or CRITICAL finding."""
    return bool(review.domain) and any(f.severity in ("MAJOR", "CRITICAL") for f in review.domain.findings)


def moved(before: str, after: str) -> str:
    if before == after:
        return "same"
    return "down" if ORDER.index(after) > ORDER.index(before) else "UP"


def main() -> None:
    quick = bench_args(__doc__).quick
    two, cost_two = run(document=",".join(str(d) for d in SEARCH))
    three, cost_three = run(fixtures="domain/search")  # each document with its gold file's domain
    print("1. The same documents without and with their domain, offline reviewers")
    print(f"{'document':30} {'domain':20} {'2 dimensions':>20} {'3 dimensions':>20}  band  domain MAJOR/CRITICAL")
    counts = {"same": 0, "down": 0, "UP": 0}
    unexplained = 0
    for sid in sorted(three):
        b, a = two[sid], three[sid]
        change = moved(b.verdict, a.verdict)
        counts[change] += 1
        serious = serious_domain(a)
        unexplained += change != "same" and not serious
        domain = ",".join(d for d in a.domain.domains if d in (a.domain.fit.topics if a.domain.fit else a.domain.domains)) if a.domain else "-"
        print(f"{sid:30} {domain:20} {b.final_score:7g} {b.verdict:12} {a.final_score:7g} {a.verdict:12}  {change:4}  "
              f"{'yes' if serious else 'no'}")
    print(f"bands: {counts['same']} same, {counts['down']} down, {counts['UP']} up; {unexplained} moved without a MAJOR or "
          f"CRITICAL domain finding (must be 0); mean score "
          f"{statistics.mean(r.final_score for r in two.values()):.1f} -> "
          f"{statistics.mean(r.final_score for r in three.values()):.1f}")
    if not quick:
        plain, _ = run(fixtures="ds")
        searched, _ = run(fixtures="ds", domain="search-ranking")
        counts = {"same": 0, "down": 0, "UP": 0}
        not_applicable = 0
        for sid, a in searched.items():
            b = plain[sid]
            if b.verdict and a.verdict:
                change = moved(b.verdict, a.verdict)
                counts[change] += 1
                unexplained += change != "same" and not serious_domain(a)
            not_applicable += not a.dimensions["domain"].applicable
        print(f"the {len(searched)} DS fixtures with -T domain=search-ranking: {not_applicable} not applicable (not "
              f"scored); bands {counts['same']} same, {counts['down']} down, {counts['UP']} up; in all, {unexplained} "
              "moved without a MAJOR or CRITICAL domain finding (must be 0)")

    print("\n2. Cost per review")
    for name, figures in (("without domain", cost_two), ("with domain", cost_three)):
        print(f"{name:16} model calls {statistics.mean(c for c, _, _ in figures):.1f}, "
              f"input tokens {statistics.mean(t for _, t, _ in figures):,.0f}")
    if not quick:
        _, slow = run(latency=1.0, fixtures="domain/search")
        times = [s for _, _, s in slow]
        print(f"with domain, 1 s per call: {statistics.mean(times):.1f} s per review (max {max(times):.1f}); "
              "round trips on the critical path = panel 1 (+1 with stage-2 dedup questions; budget: DS 1)")


if __name__ == "__main__":
    main()
