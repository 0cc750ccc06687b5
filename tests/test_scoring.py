"""Table-driven tests of the scoring rules of the calibrated rubric (-T rubric=calibrated) and v1: DR
curve, credits, weights, bands, floors, draft. The default rubric's (the design's formulas) are
tests/test_ds_seed_scoring.py."""

import pytest

from review_harness.ds import scoring
from review_harness.ds.models import (
    DocumentInfo,
    Finding,
    LensRating,
    Positive,
    ReviewerFinding,
    ReviewerReport,
    Severity,
)
from review_harness.ds.rubric import CALIBRATED_RUBRIC, PROMPTS_DIR, load_rubric
from review_harness.ds.synthesis import synthesize

RUBRIC = load_rubric(CALIBRATED_RUBRIC)  # v3: fitted by `review-harness calibrate`
V1 = load_rubric(PROMPTS_DIR / "rubric.v1.yaml")  # v1 starting values, kept for comparison
BANDS = V1.scoring.diminishing_returns
MAJ, MIN, CRIT = Severity.MAJOR, Severity.MINOR, Severity.CRITICAL


@pytest.mark.parametrize(
    "raw, effective",
    [
        (0, 0),
        (10, 10),
        (29, 29),
        (30, 30),  # last point at 100%
        (31, 30.75),  # first point at 75%
        (40, 37.5),
        (50, 45),  # last point at 75%
        (51, 45.5),  # first point at 50%
        (70, 55),
        (130, 85),
    ],
)
def test_diminishing_returns_boundaries(raw, effective):
    assert scoring.diminishing_returns(raw, BANDS) == pytest.approx(effective)


@pytest.mark.parametrize(
    "deductions, credits, expected",
    [
        ([], [], 100.0),
        ([20, 10], [], 70.0),  # 30 points, all at full weight
        ([20, 10, 1], [], 69.25),  # 31st point at 75%
        ([20, 20, 10], [], 55.0),  # 50 points -> 45 effective
        ([20, 20, 10, 1], [], 54.5),  # 51st point at 50%
        ([20, 10], [5, 3], 78.0),  # credits add back
        ([20, 10], [10, 10, 10], 95.0),  # credits capped at +25
        ([], [10], 100.0),  # clamped at 100
        ([20] * 12, [], 0.0),  # 240 raw -> 140 effective -> clamped at 0
    ],
)
def test_dimension_score_v1(deductions, credits, expected):
    score, raw, _, credit_total = scoring.dimension_score([(d, MAJ) for d in deductions], credits, V1)
    assert score == pytest.approx(expected)
    assert raw == sum(deductions)
    assert credit_total == min(sum(credits), 25)


@pytest.mark.parametrize(
    "deductions, credits, expected, applied",
    [
        ([(10, MAJ)], [5, 5], 90.0, 0.0),  # credits never cancel a MAJOR: the dimension stays below 100
        ([(18, CRIT)], [10], 82.0, 0.0),
        ([(3, MIN)], [5], 100.0, 3.0),  # a MINOR can be offset
        ([(10, MAJ), (3, MIN), (3, MIN)], [5, 5, 3], 90.0, 6.0),  # only the MINOR share is offset
        ([(3, MIN)] * 5, [10, 10], 95.0, 10.0),  # credit cap 10
    ],
)
def test_dimension_score_v2_credits_offset_minor_only(deductions, credits, expected, applied):
    score, _, _, credit_total = scoring.dimension_score(deductions, credits, RUBRIC)
    assert score == pytest.approx(expected)
    assert credit_total == pytest.approx(applied)


@pytest.mark.parametrize(
    "score, verdict",
    [
        (100, "Good to Go"),
        (80, "Good to Go"),
        (79.9, "Minor Fix"),
        (79, "Minor Fix"),
        (60, "Minor Fix"),
        (59.9, "Major Rework"),
        (59, "Major Rework"),
        (0, "Major Rework"),
    ],
)
def test_verdict_bands(score, verdict):
    assert scoring.band_verdict(score, RUBRIC) == verdict


def _gold_like(dimension, severity):
    return Finding(
        id="x", dimension=dimension, deduction=0, lens="methodology", severity=severity, title="t",
        location="l", issue="i", suggested_fix="f",
    )


@pytest.mark.parametrize(
    "band, findings, verdict, floored",
    [
        ("Good to Go", [], "Good to Go", False),
        ("Good to Go", [("analysis", MIN)], "Good to Go", False),
        ("Good to Go", [("communication", MAJ)], "Minor Fix", True),  # any MAJOR: at most Minor Fix
        ("Good to Go", [("analysis", CRIT)], "Minor Fix", True),
        ("Minor Fix", [("communication", CRIT), ("communication", MAJ)], "Minor Fix", False),
        ("Minor Fix", [("analysis", CRIT), ("analysis", MAJ)], "Major Rework", True),  # unsupported conclusion
        ("Minor Fix", [("analysis", CRIT), ("communication", MAJ)], "Minor Fix", False),
        ("Good to Go", [("analysis", CRIT), ("communication", CRIT)], "Major Rework", True),
        ("Major Rework", [("analysis", CRIT)], "Major Rework", False),
    ],
)
def test_floor_rules(band, findings, verdict, floored):
    result, note = scoring.apply_floor_rules(band, [_gold_like(d, s) for d, s in findings], RUBRIC)
    assert result == verdict
    assert (note is not None) == floored


@pytest.mark.parametrize(
    "band, criticals, verdict",
    [("Good to Go", 1, "Minor Fix"), ("Minor Fix", 1, "Minor Fix"), ("Good to Go", 2, "Major Rework"), ("Good to Go", 3, "Major Rework")],
)
def test_seed_floor_rules_in_v1(band, criticals, verdict):
    result, _ = scoring.apply_floor_rules(band, [_gold_like("analysis", CRIT)] * criticals, V1)
    assert result == verdict


@pytest.mark.parametrize(
    "scores, expected",
    [
        ({"analysis": 80.0, "communication": 60.0}, 70.0),
        ({"analysis": 85.0, "communication": 84.0}, 84.5),
        ({"analysis": 80.0, "communication": None}, 80.0),  # partial: the reviewed dimension's score
        ({"analysis": None, "communication": None}, None),
    ],
)
def test_final_score_equal_weights_v1(scores, expected):
    scored = [d for d, s in scores.items() if s is not None]
    assert scoring.final_score(scores, scoring.review_weights(V1, scored)) == expected


@pytest.mark.parametrize(
    "scores, expected",
    [
        ({"analysis": 80.0, "communication": 60.0}, 40.0),  # every deduction counts in full
        ({"analysis": 90.0, "communication": 100.0}, 90.0),
        ({"analysis": 90.0, "communication": None}, 90.0),  # partial: the reviewed dimension's score (seed s3.4)
        ({"analysis": 30.0, "communication": 40.0}, 0.0),  # clamped
        ({"analysis": 90.0, "communication": 95.0, "domain": 80.0}, 65.0),  # the domain adds its shortfall (weight 1)
        ({"analysis": 90.0, "communication": None, "domain": 95.0}, 85.0),  # partial with a domain
    ],
)
def test_final_score_deduction_weights_v2(scores, expected):
    scored = [d for d, s in scores.items() if s is not None]
    assert scoring.final_score(scores, scoring.review_weights(RUBRIC, scored)) == expected


def test_deduction_uses_table_row_then_severity_default():
    analysis = RUBRIC.dimension("analysis")

    def finding(severity, issue_type):
        return ReviewerFinding(
            lens="methodology", severity=severity, title="t", location="l", issue="i",
            suggested_fix="f", issue_type=issue_type,
        )

    assert scoring.finding_deduction(finding(Severity.CRITICAL, "causal_claim_without_design"), analysis, RUBRIC) == 20
    assert scoring.finding_deduction(finding(Severity.MAJOR, "selection_bias_unaddressed"), analysis, RUBRIC) == 10
    # severity disagrees with the row: the default for the stated severity applies
    assert scoring.finding_deduction(finding(Severity.MINOR, "causal_claim_without_design"), analysis, RUBRIC) == 3
    assert scoring.finding_deduction(finding(Severity.MAJOR, None), analysis, RUBRIC) == 10


@pytest.mark.parametrize(
    "severities, expected",
    [
        ([], LensRating.SOUND),
        ([Severity.MAJOR], LensRating.MAJOR_ISSUES),
        ([Severity.MINOR], LensRating.MINOR_ISSUES),
        ([Severity.MINOR, Severity.CRITICAL], LensRating.CRITICAL),
    ],
)
def test_lens_rating_is_the_worst_listed_finding(severities, expected):
    findings = [
        ReviewerFinding(lens="logic", severity=s, title="t", location="l", issue="i", suggested_fix="f")
        for s in severities
    ]
    assert scoring.lens_rating(findings) == expected


# ------------------------------------------------------------------ synthesis end to end


def _doc() -> DocumentInfo:
    return DocumentInfo(title="T", source="t.md", word_count=1000, reading_minutes=4.3, token_estimate=1300, tier=1)


_ISSUES = {"methodology": "The comparison has no control group.", "structure": "The summary is missing from the top.",
           "metrics": "Numbers have no interval.", "logic": "The conclusion does not follow."}


def _finding(lens, severity, issue_type=None, title="t"):
    return ReviewerFinding(
        lens=lens, severity=severity, title=title, location="Results, line 3", issue=_ISSUES.get(lens, "issue"),
        evidence="quoted", suggested_fix="fix", issue_type=issue_type,
    )


def _synth(reports, draft=False, mode="full"):
    return synthesize(
        _doc(), reports, [], RUBRIC, requested_mode=mode, mode=mode, audience="mixed",
        workflow="general", draft=draft,
    )


@pytest.mark.parametrize(
    "criticals, expected_score, expected_verdict, expected_floor",
    [(0, 100.0, "Good to Go", False), (1, 80.0, "Minor Fix", True), (2, 62.0, "Major Rework", True)],
)
def test_synthesis_floor_keeps_number(criticals, expected_score, expected_verdict, expected_floor):
    # generous credits no longer cancel a CRITICAL: each one costs its 20 points
    analysis = ReviewerReport(
        dimension="analysis",
        findings=[_finding("methodology", Severity.CRITICAL, "causal_claim_without_design")][:criticals >= 1],
        positives=[Positive(title="p", detail="d", credit=c) for c in ("sound_design", "uncertainty_reported", "assumptions_explicit", "baselines_given", "traceable_reasoning")],
    )
    communication = ReviewerReport(
        dimension="communication",
        findings=[_finding("structure", Severity.CRITICAL, "tldr_missing")][: criticals >= 2],
        positives=[Positive(title="p", detail="d", credit=c) for c in ("tldr_effective", "actionable_recommendations", "limitations_clear", "signpost_headings", "audience_calibrated")],
    )
    review = _synth({"analysis": analysis, "communication": communication})
    assert review.final_score == expected_score
    assert review.verdict == expected_verdict
    assert (review.floor_rule is not None) == expected_floor
    if criticals:
        assert review.dimensions["analysis"].score < 100


def test_no_dimension_at_100_with_a_major_finding():
    analysis = ReviewerReport(
        dimension="analysis", findings=[_finding("metrics", Severity.MAJOR, "no_uncertainty")],
        positives=[Positive(title="p", detail="d", credit=c) for c in ("sound_design", "uncertainty_reported", "baselines_given")],
    )
    review = _synth({"analysis": analysis, "communication": ReviewerReport(dimension="communication")})
    assert review.dimensions["analysis"].score == 90.0
    assert review.dimensions["analysis"].credits == 0.0
    assert review.verdict == "Minor Fix"


def test_synthesis_partial_when_one_reviewer_missing():
    analysis = ReviewerReport(dimension="analysis", findings=[_finding("metrics", Severity.MINOR, "metric_undefined")])
    review = _synth({"analysis": analysis, "communication": None})
    assert review.status == "partial"
    assert review.dimensions["communication"].reviewed is False
    assert review.final_score == 95.0  # the analysis dimension's score (seed 000 s3.4)
    assert review.scored_dimensions == ["analysis"]
    assert review.band_verdict == "Good to Go"
    assert review.verdict == "Minor Fix"  # a partial review is never a clean pass
    assert "Partial review" in review.floor_rule
    assert any("Communication dimension not reviewed" in w for w in review.warnings)
    assert {row.rating for row in review.dashboard if row.dimension == "Communication"} == {"Not reviewed"}


def test_synthesis_deferred_when_no_reviewer():
    review = _synth({"analysis": None, "communication": None})
    assert review.status == "deferred"
    assert review.degradation_level == 2
    assert review.final_score is None and review.verdict is None


def test_draft_caps_severity_and_drops_score():
    analysis = ReviewerReport(dimension="analysis", findings=[_finding("methodology", Severity.CRITICAL)])
    review = _synth({"analysis": analysis, "communication": ReviewerReport(dimension="communication")}, draft=True)
    assert review.final_score is None and review.verdict is None
    assert [f.severity for f in review.findings] == [Severity.MAJOR]
    assert all(d.score is None for d in review.dimensions.values())


@pytest.mark.parametrize("mode, cap", [("full", 3), ("quick", 2)])
def test_finding_caps_per_lens(mode, cap):
    findings = [_finding("metrics", s) for s in (Severity.MINOR, Severity.MAJOR, Severity.MINOR, Severity.CRITICAL, Severity.MAJOR)]
    review = _synth({"analysis": ReviewerReport(dimension="analysis", findings=findings), "communication": ReviewerReport(dimension="communication")}, mode=mode)
    kept = [f.severity for f in review.findings]
    assert len(kept) == cap
    assert kept[0] == Severity.CRITICAL  # most severe kept first
    assert any("cap per lens" in w for w in review.warnings)


def test_top_fixes_by_severity_then_impact():
    analysis = ReviewerReport(dimension="analysis", findings=[
        _finding("metrics", Severity.MINOR, title="minor"),
        _finding("metrics", Severity.MAJOR, "metric_without_baseline", title="major-8"),
        _finding("logic", Severity.MAJOR, "unsupported_conclusion", title="major-10"),
    ])
    communication = ReviewerReport(dimension="communication", findings=[_finding("structure", Severity.CRITICAL, "tldr_missing", title="critical")])
    review = _synth({"analysis": analysis, "communication": communication})
    assert [review.finding(i).title for i in review.top_fixes] == ["critical", "major-10", "major-8"]


def test_positives_one_per_dimension_first():
    analysis = ReviewerReport(dimension="analysis", positives=[Positive(title=f"a{i}", detail="d") for i in range(3)])
    communication = ReviewerReport(dimension="communication", positives=[Positive(title="c0", detail="d")])
    review = _synth({"analysis": analysis, "communication": communication})
    assert [p.title for p in review.positives] == ["a0", "c0", "a1"]
    assert [p.dimension for p in review.positives] == ["analysis", "communication", "analysis"]
