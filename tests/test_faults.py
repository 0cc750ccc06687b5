"""The fault suite: a faulty offline reviewer (exceptions, timeouts, malformed, truncated and
empty output) degrades reviews as the seed says and never errors a sample."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from helpers import FIXTURES, reviews, run
from review_harness.core.member import MEMBER_STATUSES

FAULT_SIGNATURES = {
    "exception": "injected fault (provider error)",
    "timeout": "timed out",
    "malformed": "invalid JSON",
    "truncated": "cut off",
    "empty": "empty output",
}


def make_documents(folder: Path, count: int) -> Path:
    """`count` distinct documents (fixtures with a revision line), so each prompt draws its own faults."""
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(count):
        source = FIXTURES[n % len(FIXTURES)]
        text = source.read_text()
        (folder / f"{n:03d}-{source.stem}.md").write_text(text + f"\n\n_Revision {n}._\n")
    return folder


def fault_suite(tmp_path: Path, samples: int, rate: float, seed: int = 7) -> tuple[Counter, Counter]:
    docs = make_documents(tmp_path / "docs", samples)
    log = run(tmp_path, model_args={"fault_rate": rate, "fault_seed": seed}, document=str(docs))
    assert log.status == "success"
    assert len(log.samples) == samples
    assert all(sample.error is None for sample in log.samples), "no sample may end in an error"
    found = reviews(log)
    assert len(found) == samples, "every sample has a review"
    statuses = Counter(r.status for r in found.values())
    faults: Counter = Counter()
    for review in found.values():
        text = " ".join(review.warnings + [run_.reason or "" for run_ in review.reviewer_runs])
        for kind, signature in FAULT_SIGNATURES.items():
            if signature in text:
                faults[kind] += 1
        degraded = review.status != "complete" or review.degradation_level > 0
        if degraded:
            assert review.warnings, "a degraded review says why"
        if review.status == "partial":
            assert review.verdict != "Good to Go", "a partial review is never a clean pass"
        if review.status == "deferred":
            assert review.final_score is None and review.verdict is None
            assert "could not be completed" in " ".join(review.warnings)
        if review.status == "complete":
            assert all(r.status == "complete" for r in review.reviewer_runs)
        for run_ in review.reviewer_runs:
            assert run_.status in MEMBER_STATUSES and 1 <= run_.attempts
            if run_.status == "malformed":  # named in the warnings with what parsed of it
                assert any(w.startswith(f"{run_.member} returned malformed output") for w in review.warnings)
    print(f"\nfault suite: {samples} samples at fault_rate {rate}: {dict(statuses)}; faults seen {dict(faults)}")
    return statuses, faults


def test_fault_suite_small(tmp_path):
    statuses, faults = fault_suite(tmp_path, samples=30, rate=0.3)
    assert statuses["complete"] > 0 and statuses["partial"] > 0
    assert len(faults) >= 3


@pytest.mark.slow
def test_fault_suite_200_samples(tmp_path):
    statuses, faults = fault_suite(tmp_path, samples=200, rate=0.3)
    assert sum(statuses.values()) == 200
    assert statuses["complete"] > statuses["partial"] > 0
    assert set(faults) == set(FAULT_SIGNATURES), f"every fault kind exercised: {faults}"
