"""Offline figures of the domain knowledge skill and the domain reviewer's pieces (no API key, no
network), beside the project's budgets. The DS review with `-T domain=` (calls, tokens, round trips,
two- vs three-dimension scores) is measured by benchmarks/domain_review.py; here:

    . .venv/bin/activate
    python benchmarks/domain.py [--quick]   # a few seconds

1. get_domain_context: milliseconds per brief (1, 2 and 3 domains; file reads only, no model call),
   tokens against the budget (5,000 per domain).
2. The domain reviewer's prompt for each Search fixture: input tokens (words x 1.3) and the share
   that is the stable, cacheable prefix (rubric + brief). Budget: >= 50%. Round trips it adds to a
   DS review: 1 (it runs beside the other reviewers), plus stage-2 dedup questions (counted).
3. Offline rule engine: milliseconds per document.
4. Refresh of search-ranking from the example page folder with the offline curator: seconds.
5. Gold metrics of the offline rules and dedup, per split.
6. Fit decisions (is the domain about what the document does?) against gold/domain/fit/documents.yaml,
   per split; the held-out split is the real write-ups beside the repository (../shared/real/ds).
"""

from __future__ import annotations

import shutil
import statistics
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

import anyio

from review_harness.core.tokens import estimate_tokens
from review_harness.domain.config import default_index, load_index, load_roster
from review_harness.domain.dedup import FindingRef, heuristic_stage
from review_harness.domain.gold import DOMAIN_FIXTURES_DIR, evaluate, evaluate_fit, fit_summary, load_gold, summarize
from review_harness.domain.importance import parse_curator_answer, render_curator_prompt
from review_harness.domain.offline import answer_curator
from review_harness.domain.prompt import render_reviewer_prompt
from review_harness.domain.refresh import refresh_domain
from review_harness.domain.reviewer import default_reviewer_rubric
from review_harness.domain.rules import review_document
from review_harness.domain.skill import get_domain_context
from review_harness.domain.sources import FolderSource

ROOT = Path(__file__).resolve().parent.parent
NOW = datetime(2026, 11, 20, tzinfo=timezone.utc)
RUBRIC = default_reviewer_rubric()


def ms(fn, repeat=20) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main() -> None:
    from common import bench_args  # benchmarks/common.py (the script's folder is on sys.path)

    repeat = 3 if bench_args(__doc__).quick else 20
    index = default_index()
    print(f"1. get_domain_context (median of {repeat})")
    for domains in (["search-ranking"], ["search-ranking", "query-understanding"],
                    ["search-ranking", "query-understanding", "search-infra"]):
        brief = get_domain_context(domains, index=index, clock=lambda: NOW)
        took = ms(lambda: get_domain_context(domains, index=index, clock=lambda: NOW), repeat)
        print(f"   {','.join(domains):55s} {took:6.1f} ms  {brief.tokens:5d} / {brief.budget} tokens")

    print("2. domain reviewer prompt per fixture (budget: cacheable prefix >= 50%)")
    gold = load_gold()
    stage2 = 0
    for item in gold:
        document = (DOMAIN_FIXTURES_DIR / item.fixture).read_text()
        brief = get_domain_context(item.domains, index=index, clock=lambda: NOW)
        prompt = render_reviewer_prompt(RUBRIC, brief, document)
        system, request = estimate_tokens(prompt.system), estimate_tokens(prompt.request)
        print(f"   {item.fixture:42s} input {system + request:5d} tokens, prefix share {system / (system + request):.0%}")
        if item.analysis_findings:
            review = review_document(document, brief.content, RUBRIC)
            refs = [FindingRef(id=f.id, summary=f.summary, quote=f.quote, section=f.section, fix=f.fix) for f in review.findings]
            stage2 += len(heuristic_stage(item.analysis_findings, refs, RUBRIC.dedup)[1])
    print(f"   round trips added to a DS review: 1 (domain reviewer, concurrent with the others); "
          f"stage-2 dedup questions over the gray-zone fixtures: {stage2}")

    print(f"3. offline rule engine (median of {repeat})")
    brief = get_domain_context(["search-ranking"], index=index, clock=lambda: NOW)
    for item in gold[:3]:
        document = (DOMAIN_FIXTURES_DIR / item.fixture).read_text()
        print(f"   {item.fixture:42s} {ms(lambda: review_document(document, brief.content, RUBRIC), repeat):6.1f} ms")

    print("4. refresh search-ranking from knowledge/domain/pages/search-ranking (offline curator)")
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copytree(ROOT / "knowledge" / "domain", Path(tmp) / "kb")
        kb = Path(tmp) / "kb"

        async def curator(page, context):
            outcome = parse_curator_answer(answer_curator(render_curator_prompt("search-ranking", page, context)[1]))
            return outcome.report, "; ".join(outcome.problems) or None

        started = time.perf_counter()
        report = anyio.run(lambda: refresh_domain(
            "search-ranking", load_index(kb / "domain-index.yaml"), load_roster(kb / "team-roster.yaml"),
            FolderSource(ROOT / "knowledge" / "domain" / "pages" / "search-ranking"), curator,
            now=datetime.now(timezone.utc)))
        print(f"   {time.perf_counter() - started:.2f} s, {len(report.pages)} pages, published={report.published}, "
              f"{report.tokens} tokens, {len(report.candidates)} candidates")

    print("5. gold metrics (offline rules + dedup)")
    results = [evaluate(g, RUBRIC, index, NOW) for g in gold]
    for split in ("dev", "heldout"):
        figures = summarize([r for r in results if r.split == split])
        print(f"   {split:8s} " + "  ".join(f"{k} {v:.2f}" if v is not None else f"{k} -" for k, v in figures.items()))

    print("6. fit decisions (gold/domain/fit/documents.yaml)")
    fits = evaluate_fit()
    for split in ("dev", "heldout"):
        chosen = [r for r in fits if r.split == split]
        if not chosen:
            print(f"   {split:8s} no documents found")
            continue
        figures = fit_summary(chosen)
        print(f"   {split:8s} {int(figures['decisions'])} decisions  accuracy {figures['accuracy']:.2f}  "
              f"fit precision {figures['fit_precision']:.2f}  fit recall {figures['fit_recall']:.2f}")


if __name__ == "__main__":
    main()
