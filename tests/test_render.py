"""Report templates: full, quick, draft, partial and deferred."""

from review_harness.ds.models import DocumentInfo, Positive, ReviewerFinding, ReviewerReport, Severity
from review_harness.ds.render import render_report
from review_harness.ds.rubric import CALIBRATED_RUBRIC, SEED_RUBRIC, load_rubric
from review_harness.ds.synthesis import synthesize

# the starting values (-T rubric=seed-v1): one CRITICAL leaves the score in Good to Go, so the floor
# rule that caps the verdict shows (with the fitted default one CRITICAL is Minor Fix by score already)
RUBRIC = load_rubric(SEED_RUBRIC)
CALIBRATED = load_rubric(CALIBRATED_RUBRIC)


def _review(reports, mode="full", draft=False, rubric=RUBRIC):
    doc = DocumentInfo(title="Churn after the price change", source="c.md", word_count=1234,
                       reading_minutes=5.4, token_estimate=1604, tier=1)
    return synthesize(doc, reports, [], rubric, requested_mode=mode, mode=mode, audience="exec",
                      workflow="general", draft=draft)


def _reports():
    finding = ReviewerFinding(lens="structure", severity=Severity.CRITICAL, title="No summary up front",
                              location="whole document", issue="The answer is at the end.",
                              suggested_fix="Add a TL;DR.", issue_type="tldr_missing")
    return {
        "analysis": ReviewerReport(dimension="analysis", positives=[Positive(title="Clean design", detail="Randomized.")]),
        "communication": ReviewerReport(dimension="communication", findings=[finding]),
    }


def test_full_report_sections_in_template_order():
    text = render_report(_review(_reports()), RUBRIC)
    order = ["# DS Analysis Review: Churn after the price change", "**Score: 91/100 -- Minor Fix**",
             "floor rule applied", "**Mode:** Full | **Audience:** exec | **Workflow:** general (default)",
             "**Processing:** Tier 1 (1,234 words, ~5.4 min read)", "### Lens Dashboard",
             "| Communication | Structure & TL;DR | CRITICAL |", "## Top 3 Priority Fixes",
             "### 1. No summary up front (CRITICAL)", "## What You Did Well", "1. **Clean design**",
             "## Analysis Dimension (Score: 100/100)", "### Methodology & Assumptions -- SOUND",
             "## Communication Dimension (Score: 82/100)",
             "- **[CRITICAL] No summary up front**: priority fix 1 above."]
    positions = [text.index(part) for part in order]
    assert positions == sorted(positions)
    # the design's auditability line: the computed score and band, the floor-adjusted verdict and why
    assert ("Computed band: Good to Go; verdict: Minor Fix (floor rule applied). 1 CRITICAL finding: a CRITICAL "
            "finding caps the verdict at Minor Fix whatever the computed score. CRITICAL: No summary up front (C1).") in text
    assert "LensRating." not in text and "Severity." not in text
    assert text.count("The answer is at the end.") == 1  # the top fix is not repeated in its lens
    assert "Deductions" not in text and "-18" not in text  # scoring internals only with details


def test_details_add_the_scoring_internals():
    text = render_report(_review(_reports()), RUBRIC, details=True)
    assert "**Deductions:** -18 | **Credits:** +0" in text
    assert "- **[CRITICAL, -18] No summary up front**: priority fix 1 above." in text


def test_dimension_section_shows_credits_that_did_not_apply():
    reports = _reports()
    reports["communication"].positives = [Positive(title="Owners", detail="d", credit="actionable_recommendations")]
    text = render_report(_review(reports, rubric=CALIBRATED), CALIBRATED, details=True)
    assert ("**Deductions:** -18 | **Credits:** +0 of 5 earned (actionable recommendations +5); "
            "credits only offset MINOR findings, never a MAJOR or CRITICAL") in text


def test_quick_report_has_status_table_only():
    text = render_report(_review(_reports(), mode="quick"), RUBRIC)
    assert "| Communication | Critical Issues |" in text and "| Analysis | Pass |" in text
    assert "Lens Dashboard" not in text and "Dimension (Score" not in text
    assert "-T mode=full" in text


def test_draft_report_has_no_score():
    text = render_report(_review(_reports(), draft=True), RUBRIC)
    assert "**Score:" not in text and "/100" not in text
    assert "Top 3 Things to Address Before Finalizing" in text
    assert "(MAJOR)" in text and "(CRITICAL)" not in text


def test_partial_report_has_capacity_notice():
    reports = _reports()
    reports["analysis"] = None
    text = render_report(_review(reports), RUBRIC)
    assert "> **[!] Capacity Notice:** Partial review: the Analysis dimension was not reviewed" in text
    assert "| Analysis | Methodology & Assumptions | Not reviewed |" in text


def test_deferred_report_explains_and_has_no_score():
    text = render_report(_review({"analysis": None, "communication": None}), RUBRIC)
    assert "could not be completed" in text
    assert "**Score:" not in text and "Top 3" not in text
