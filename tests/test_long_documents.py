"""Long documents keep their evidence in tier 3 (issue 19 s2): the extraction keeps numeric
tables the text interprets, every sentence with a number or a comparison in results and
conclusions, the sections the summary's figures come from, the page's own signals (space,
status, labels, audience) and the workflow, and says what it left out; the offline contradiction
and guardrail rules read it exactly as the full text; quick mode with a domain lists no finding
twice and quotes only the document."""

from __future__ import annotations

from pathlib import Path

import pytest

from review_harness.core.matching import normalize_space
from review_harness.core.paths import FIXTURES_DIR
from review_harness.ds.offline.rules import review_with_rules
from review_harness.ds.prepare import (
    EXCERPT_MARKER_RE,
    count_words,
    extraction_document_text,
    parse_extraction,
    prepare_document,
)
from helpers import reviews, run

LONG = FIXTURES_DIR / "ds" / "dynamic-delivery-fees-pilot.md"
QUICK_DOMAIN = FIXTURES_DIR / "domain" / "search" / "related-searches-ctr.md"
ALL = sorted((FIXTURES_DIR / "ds").glob("*.md")) + sorted((FIXTURES_DIR / "domain" / "search").glob("*.md"))
TEXT_RULES = {"conclusion_contradicts_results", "guardrail_contradiction", "universal_claim_contradicted",
              "arithmetic_inconsistent"}


def _extraction(path: Path, mode: str = "full"):
    text = path.read_text(encoding="utf-8")
    return text, prepare_document(text, source=path.name, mode=mode)


def test_the_long_fixture_is_tier_three_and_keeps_its_evidence():
    text, prepared = _extraction(LONG)
    assert prepared.word_count >= 6000 and prepared.tier == 3
    fields = parse_extraction(prepared.extraction)
    results = fields["RESULTS EXCERPT"]
    # the per-city table and the guardrail table, verbatim, with the rows that contradict the summary
    for row in ("| Lyon | Toulouse | 35.1 | +1.4 | +0.6 to +2.2 |",
                "| courier acceptance rate | −2.6 pts | −0.5 pts | −2.1 pts (−2.8 to −1.4) |"):
        assert row in results and row in text
    # a table outside the results and what could not be kept are named, not silently dropped
    left = fields["LEFT OUT OF THIS EXTRACTION"]
    assert "Section 'Appendix A: fee steps by city'" in left and "Section 'Why we ran this pilot'" in left
    assert count_words(prepared.extraction) <= 3800
    # the seed's missing fields: space, status, labels, audience signals, workflow context
    assert fields["Status"] == "Final" and fields["Space"] == "not stated" and fields["Labels"] == "none"
    assert "Prepared for: Marketplace leadership and city operations (document framing)" in fields["AUDIENCE SIGNALS"]
    assert fields["WORKFLOW CONTEXT"] == "general (default)"
    assert prepare_document(text, source="x", workflow="reactive").extraction.count("WORKFLOW CONTEXT:\nreactive") == 1


def test_every_excerpt_line_is_the_documents_own_words():
    for path in ALL:
        text, prepared = _extraction(path, "quick")
        flat = normalize_space(text)
        fields = parse_extraction(prepared.extraction)
        for label in ("TL;DR AS WRITTEN", "METHODOLOGY EXCERPT", "DATA SOURCES & METRICS", "RESULTS EXCERPT",
                      "RECOMMENDATIONS / CONCLUSIONS", "LIMITATIONS STATED"):
            for line in fields.get(label, "").split("\n"):
                if line.strip() and line.strip() != "ABSENT" and not EXCERPT_MARKER_RE.match(line.strip()):
                    assert normalize_space(line.removesuffix(" [...]")) in flat, (path.name, label, line)
        for line in extraction_document_text(prepared.extraction).split("\n"):
            if line.strip():
                assert normalize_space(line.removeprefix("## ")) in flat, (path.name, line)


def test_confluence_signals_reach_the_extraction():
    page = ("# Churn drivers\n\nLast updated: 2024-11-02 by Ana · Space: DSA (Data Science) · Labels: exec-readout, churn\n\n"
            "[status: IN REVIEW]\n\n## Summary\n\nChurn fell by 2.1 points after the price change.\n")
    fields = parse_extraction(prepare_document(page, source="p", mode="quick").extraction)
    assert fields["Space"] == "DSA (Data Science)" and fields["Status"] == "IN REVIEW"
    assert fields["Labels"] == "exec-readout, churn" and "label 'exec-readout'" in fields["AUDIENCE SIGNALS"]


def test_the_long_fixtures_contradictions_are_found_in_tier_three_offline():
    text, prepared = _extraction(LONG)
    findings = review_with_rules("analysis", prepared.extraction, tier=3).findings
    by_type = {f.issue_type: f for f in findings}
    city = by_type["universal_claim_contradicted"]
    assert "Lyon: +1.4" in city.issue and "every city" in city.evidence
    assert "courier acceptance rate: −2.1 pts (−2.8 to −1.4)" in by_type["guardrail_contradiction"].issue
    for f in findings:
        assert normalize_space(f.evidence) in normalize_space(text)


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.stem)
def test_contradiction_and_guardrail_rules_read_the_extraction_as_the_full_text(path):
    text, prepared = _extraction(path, "quick")
    full = {f.issue_type for f in review_with_rules("analysis", text, tier=1).findings} & TEXT_RULES
    tier3 = {f.issue_type for f in review_with_rules("analysis", prepared.extraction, tier=3, mode="quick").findings}
    assert tier3 & TEXT_RULES == full


def test_universal_claims_need_an_exception_in_a_table_of_that_unit():
    base = ("# Rollout\n\n## Summary\n\nConversion improved in every region after the change.\n\n## Results\n\n"
            "| region | change in conversion |\n|---|---|\n| North | +0.8 pts |\n| South | +0.6 pts |\n"
            "| East | {east} |\n| West | +0.9 pts |\n")
    def found(doc):
        return [f for f in review_with_rules("analysis", doc).findings if f.issue_type == "universal_claim_contradicted"]
    [hit] = found(base.format(east="−0.4 pts"))
    assert "East: −0.4 pts" in hit.issue and hit.title == "Claimed in every region, but the table shows an exception"
    assert found(base.format(east="+0.2 pts")) == []  # every region did improve
    assert found(base.format(east="−0.4 pts").replace("in every region", "in most regions")) == []
    assert found(base.format(east="−0.4 pts").replace("| region |", "| channel |")) == []  # another breakdown


@pytest.fixture(scope="module")
def quick_domain_log(tmp_path_factory):
    return run(tmp_path_factory.mktemp("quickdomain"), document=str(QUICK_DOMAIN), domain="search-ranking", mode="quick")


def test_quick_mode_with_a_domain_lists_no_finding_twice_and_quotes_only_the_document(quick_domain_log):
    [review] = reviews(quick_domain_log).values()
    text = QUICK_DOMAIN.read_text(encoding="utf-8")
    assert review.mode == "quick" and review.tier == 3 and review.dimensions["domain"].reviewed
    shown = [f for f in review.findings if not f.merged_into]
    # one finding per issue: no two shown findings share a title, or an issue type and a quote
    assert len({f.title for f in shown}) == len(shown)
    assert len({(f.issue_type, f.evidence) for f in shown}) == len(shown)
    assert len(review.top_fixes) == len(set(review.top_fixes)) and all(not review.finding(i).merged_into for i in review.top_fixes)
    [sample] = quick_domain_log.samples
    assert sample.scores["review_synthesis"].value["findings"] == len(shown)  # a merged pair is counted once
    assert "WORKFLOW CONTEXT:\ngeneral (default)" in sample.store["prepared_document"]["extraction"]
    quotes = [f.evidence for f in review.findings if f.evidence] + [f.quote for f in review.domain.findings if f.quote]
    assert quotes
    for quote in quotes:
        assert normalize_space(quote) in normalize_space(text), quote
        for frame in ("DOCUMENT EXTRACTION", "EXCERPT", "[Section:", "Word count:", "TL;DR AS WRITTEN", "KEY CLAIMS"):
            assert frame not in quote
    assert all(f.evidence_verified for f in review.findings if f.evidence)
