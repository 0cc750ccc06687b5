"""The domain reviewer's offline rules and dedup measured on the Search gold set."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from review_harness.core.matching import normalize_space
from review_harness.domain.config import default_index
from review_harness.core.gold import GoldError
from review_harness.domain.gold import DOMAIN_FIXTURES_DIR, evaluate, load_gold, summarize
from review_harness.domain.reviewer import default_reviewer_rubric

NOW = datetime(2026, 11, 20, tzinfo=timezone.utc)
GOLD = load_gold()


def test_gold_set_shape_and_verbatim_evidence():
    assert len(GOLD) == 8 and {g.split for g in GOLD} == {"dev", "heldout"}
    assert sum(1 for g in GOLD if g.expected_dedup) == 2  # gray-zone fixtures
    for gold in GOLD:
        text = normalize_space((DOMAIN_FIXTURES_DIR / gold.fixture).read_text())
        for finding in gold.expected_findings:
            assert normalize_space(finding.evidence) in text, (gold.fixture, finding.id)
        for finding in gold.analysis_findings:
            assert normalize_space(finding.quote) in text, (gold.fixture, finding.id)


@pytest.fixture(scope="module")
def results():
    return [evaluate(g, default_reviewer_rubric(), default_index(), NOW) for g in GOLD]


def test_dev_split(results):
    figures = summarize([r for r in results if r.split == "dev"])
    assert figures["must_catch_recall"] == 1.0 and figures["precision"] == 1.0
    assert figures["dedup_accuracy"] == 1.0


def test_clean_fixture_has_no_findings(results):
    clean = next(r for r in results if r.fixture.endswith("clean-ranking-eval.md"))
    assert clean.predicted == 0


def test_heldout_split_is_measured_not_tuned(results):
    heldout = [r for r in results if r.split == "heldout"]
    assert {r.fixture for r in heldout} == {"search/infra-latency-study.md", "search/gray-click-bias.md"}
    assert summarize(heldout)["must_catch_recall"] is not None


def test_bad_gold_file_is_one_line(tmp_path):
    (tmp_path / "x.yaml").write_text("fixture: a.md\ndomains: [search-ranking]\nsplit: dev\n")
    with pytest.raises(GoldError, match=r"^gold file .*/x.yaml is invalid: expected_findings: Field required \(and 1 more\)$"):
        load_gold(tmp_path)
