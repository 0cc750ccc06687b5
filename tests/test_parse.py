"""Reviewer output parsing: strict JSON, repaired truncated JSON, text fallback, failures.

A repaired or text-format answer is malformed (worth a retry, never a complete review) but keeps
what parsed; a whole JSON answer with single bad items is usable, the items named in problems."""

import json

import pytest

from review_harness.ds.models import LensRating, Severity
from review_harness.ds.parse import parse_reviewer_output
from review_harness.ds.rubric import default_rubric

ANALYSIS = default_rubric().dimension("analysis")


def _finding(n: int, severity: str = "MAJOR", lens: str = "metrics") -> dict:
    return {
        "lens": lens,
        "severity": severity,
        "title": f"Finding {n}",
        "location": f"Results, line {n}",
        "issue": "The lift has no interval.",
        "evidence": "conversion rose 4%",
        "suggested_fix": "Report a 95% CI.",
        "issue_type": "no_uncertainty",
    }


def _report(findings: list[dict]) -> dict:
    return {
        "dimension": "analysis",
        "lens_ratings": [{"lens": "metrics", "rating": "MAJOR ISSUES"}],
        "findings": findings,
        "positives": [{"title": "Clear question", "detail": "States the question up front."}],
        "score": 84,
    }


def test_strict_json_parses_ok():
    text = json.dumps(_report([_finding(1), _finding(2, "MINOR")]))
    outcome = parse_reviewer_output(text, ANALYSIS)
    assert outcome.usable and not outcome.malformed and outcome.problems == []
    assert [f.severity for f in outcome.report.findings] == [Severity.MAJOR, Severity.MINOR]
    assert outcome.report.lens_ratings[0].rating == LensRating.MAJOR_ISSUES
    assert outcome.report.score == 84


def test_json_inside_code_fence_and_prose():
    text = "Here is my review:\n```json\n" + json.dumps(_report([_finding(1)])) + "\n```\nThanks."
    outcome = parse_reviewer_output(text, ANALYSIS)
    assert outcome.usable
    assert len(outcome.report.findings) == 1


def test_truncated_json_keeps_complete_findings():
    text = json.dumps(_report([_finding(1), _finding(2), _finding(3)]))
    cut = text.index('"Finding 3"') + 5  # cut inside the third finding
    outcome = parse_reviewer_output(text[:cut], ANALYSIS)
    assert outcome.malformed and not outcome.usable
    assert outcome.problems[0] == "output was cut off; kept the complete part"
    assert [f.title for f in outcome.report.findings] == ["Finding 1", "Finding 2"]
    assert outcome.report.positives == []  # lost to truncation, as the seed expects


def test_malformed_json_keeps_what_parses_before_the_error():
    text = json.dumps(_report([_finding(1), _finding(2)]))
    cut = text.index('"Finding 2"')
    broken = text[:cut] + " <<garbage>> " + text[cut:]
    outcome = parse_reviewer_output(broken, ANALYSIS)
    assert outcome.malformed
    assert "invalid JSON" in outcome.problems[0] and "kept the part before the error" in outcome.problems[0]
    assert [f.title for f in outcome.report.findings] == ["Finding 1"]


def test_one_bad_finding_does_not_cost_the_others():
    bad = _finding(2)
    bad["severity"] = "SEVERE"
    outcome = parse_reviewer_output(json.dumps(_report([_finding(1), bad, _finding(3)])), ANALYSIS)
    assert outcome.usable  # the answer is whole: one dropped item does not make it malformed
    assert [f.title for f in outcome.report.findings] == ["Finding 1", "Finding 3"]
    assert any("finding 2" in p for p in outcome.problems)


def test_lens_titles_and_lowercase_severities_are_normalized():
    finding = _finding(1, "critical", lens="Methodology & Assumptions")
    outcome = parse_reviewer_output(json.dumps(_report([finding])), ANALYSIS)
    assert outcome.usable and outcome.problems == []
    assert outcome.report.findings[0].lens == "methodology"
    assert outcome.report.findings[0].severity == Severity.CRITICAL


def test_finding_in_another_dimensions_lens_is_reported_not_kept():
    outcome = parse_reviewer_output(json.dumps(_report([_finding(1), _finding(2, lens="structure")])), ANALYSIS)
    assert [f.title for f in outcome.report.findings] == ["Finding 1"]
    assert any("not a lens of the analysis dimension" in p for p in outcome.problems)


def test_text_format_fallback():
    text = """Methodology & Assumptions: CRITICAL
Metrics: MAJOR ISSUES

[CRITICAL] methodology: Causal claim from a before/after comparison
Where: Results, line 12
Issue: The lift is attributed to the email with no control group.
Evidence: "the email caused a 12% lift"
Fix: Compare against a holdout group.

[MAJOR] metrics: No interval on the lift
Where: Results, line 14
Issue: Point estimate only.
Fix: Add a 95% CI.
"""
    outcome = parse_reviewer_output(text, ANALYSIS)
    assert outcome.malformed  # not the JSON the prompt asks for: kept for the warnings only
    assert "read the text format" in outcome.problems[0]
    assert [(f.lens, f.severity) for f in outcome.report.findings] == [
        ("methodology", Severity.CRITICAL),
        ("metrics", Severity.MAJOR),
    ]
    assert outcome.report.findings[0].evidence == "the email caused a 12% lift"
    ratings = {r.lens: r.rating for r in outcome.report.lens_ratings}
    assert ratings == {"methodology": LensRating.CRITICAL, "metrics": LensRating.MAJOR_ISSUES}


@pytest.mark.parametrize(
    "text, problem",
    [
        ("", "empty output"),
        ("   \n ", "empty output"),
        ("I cannot review this document.", "no JSON object"),
        ('{"dimension": "analysis", "findings": "none"}', "no findings or lens ratings"),
    ],
)
def test_unusable_output_fails_with_reason(text, problem):
    outcome = parse_reviewer_output(text, ANALYSIS)
    assert outcome.malformed
    assert outcome.report is None
    assert any(problem in p for p in outcome.problems)
