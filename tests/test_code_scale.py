"""The merge at scale: candidate pairs and the "checked and fine" index give the same results as
the exhaustive comparison, in work that grows with the findings, not their product (issue 24:
a 10,000-line spec on a 300-file change). Timings live in benchmarks/code.py."""

from __future__ import annotations

import random

import pytest

from review_harness.code import merge
from review_harness.code.merge import EXACT_GROUP, FineIndex, candidate_pairs, merge_stage, similarity
from review_harness.code.models import CheckedFine, CodeFinding, ReviewerAnswer
from review_harness.core.matching import one_to_one

WORDS = "alpha beta gamma delta query search export report missing field handler rows".split()


def finding(rng: random.Random, files: str = "ab", lines: int = 40) -> CodeFinding:
    return CodeFinding(
        severity=rng.choice(["Critical", "Important", "Minor"]), category=rng.choice(["bug", "security", "missing-requirement"]),
        file=rng.choice(files), line=rng.choice([None, rng.randint(1, lines)]),
        description=" ".join(rng.choices(WORDS, k=5)), suggested_fix=None,
        quote=" ".join(rng.choices(WORDS, k=3)) if rng.random() < 0.7 else None)


@pytest.mark.parametrize("seed", range(4))
def test_candidate_pairs_match_exactly_what_every_pair_matches(seed):
    rng = random.Random(seed)
    for _ in range(150):
        a = [finding(rng) for _ in range(rng.randint(0, 14))]
        b = [finding(rng) for _ in range(rng.randint(0, 14))]
        assert one_to_one(a, b, similarity, merge.MATCH_THRESHOLD, candidate_pairs(a, b)) == \
            one_to_one(a, b, similarity, merge.MATCH_THRESHOLD)


def test_every_pair_left_out_scores_under_the_threshold():
    rng = random.Random(7)
    a = [finding(rng, lines=400) for _ in range(60)]
    b = [finding(rng, lines=400) for _ in range(60)]
    kept = candidate_pairs(a, b)
    assert len(kept) < 60 * 60
    for i in range(60):
        for j in range(60):
            if (i, j) not in kept:
                assert similarity(a[i], b[j]) < merge.MATCH_THRESHOLD


@pytest.mark.parametrize("seed", range(3))
def test_the_fine_index_finds_the_first_covering_place(seed):
    rng = random.Random(seed)
    for _ in range(400):
        places = []
        for _ in range(rng.randint(0, 12)):
            line = rng.choice([None, rng.randint(1, 30)])
            end = None if line is None or rng.random() < 0.4 else line + rng.randint(-2, 10)
            places.append(CheckedFine(file=rng.choice("ab"), line=line, end_line=end, note="x"))
        index = FineIndex(places)
        for file in "abc":
            for line in [None, *range(0, 45)]:
                assert index.first_covering(file, line) is next((c for c in places if c.covers(file, line)), None)


def test_a_long_spec_pairs_its_twin_findings_without_comparing_every_pair(monkeypatch):
    """10,000 missing requirements reported by both models: each pairs with its twin, and the
    similarity is computed for a number of pairs linear in the findings."""
    items = [f"- The service must provide `handler_{n}(conn, value)` for table t{n % 7}." for n in range(10_000)]
    report = ReviewerAnswer(findings=[CodeFinding(
        severity="Critical", category="missing-requirement", file="spec", line=None,
        description=f"The spec asks for `handler_{n}(conn, value)`; the change does not provide it.",
        suggested_fix=None, quote=item) for n, item in enumerate(items)], checked_fine=[], summary="")
    assert len(report.findings) ** 2 > 100 * EXACT_GROUP
    calls = 0
    original = merge.similarity

    def counted(a, b):
        nonlocal calls
        calls += 1
        return original(a, b)

    monkeypatch.setattr(merge, "similarity", counted)
    merged = merge_stage("spec", {"A": report, "B": report}, ("A", "B"))
    assert len(merged.findings) == 10_000 and all(m.category == "agreed" for m in merged.findings)
    assert merged.findings[0].finding.quote == merged.findings[0].other.quote
    assert calls <= 3 * 10_000
