"""A reviewer answer cut off at the output limit keeps what parsed (issue 28 s3, seed 000 s3.4):
its findings count in the score and the floor rules, marked salvaged, in a partial review whose
warning says what was lost; nothing parsed (or nothing but noise) still defers."""

from __future__ import annotations

from helpers import FIXTURES, reviews, run
from review_harness.core.member import MemberRun
from review_harness.ds.models import DocumentInfo, ReviewerFinding, ReviewerReport, Severity
from review_harness.ds.render import render_report
from review_harness.ds.rubric import SEED_RUBRIC, load_rubric
from review_harness.ds.synthesis import synthesize

# the starting values (-T rubric=seed-v1): one CRITICAL leaves the score in Good to Go, so the floor
# rule that caps the verdict shows (with the fitted default one CRITICAL is Minor Fix by score already)
RUBRIC = load_rubric(SEED_RUBRIC)
DOC = DocumentInfo(title="T", source="t.md", word_count=900, reading_minutes=3.9, token_estimate=1170, tier=1)


def test_a_cut_off_answer_keeps_its_parsed_critical_end_to_end(tmp_path):
    leakage = next(p for p in FIXTURES if p.stem == "demand-forecast-leakage")
    log = run(tmp_path, model_args={"faults": "truncated", "fault_rate": 1.0}, document=str(leakage), rubric="seed-v1")
    [review] = reviews(log).values()
    critical = [f for f in review.findings if f.severity == Severity.CRITICAL]
    assert [f.issue_type for f in critical] == ["leakage"] and critical[0].salvaged
    assert review.status == "partial" and review.final_score is not None
    assert review.verdict != "Good to Go" and "CRITICAL" in review.floor_rule  # it counts for the floor rules
    assert review.dimensions["analysis"].score < 100  # and for the score
    warning = next(w for w in review.warnings if w.startswith("analysis-reviewer"))
    assert "cut off" in warning and "scored (marked salvaged)" in warning and "lost:" in warning
    report = render_report(review, RUBRIC)
    assert "[salvaged from a cut-off answer]" in report and "(partial: scored from what parsed" in report


def _finding(lens: str, severity: Severity, issue_type: str) -> ReviewerFinding:
    return ReviewerFinding(lens=lens, severity=severity, title=f"{issue_type} title", location="line 4",
                           issue="What is wrong.", evidence="", suggested_fix="A fix.", issue_type=issue_type)


def test_salvaged_findings_score_like_any_and_the_unreached_lenses_are_not_reviewed():
    cut = ReviewerReport(dimension="analysis", findings=[_finding("methodology", Severity.CRITICAL, "leakage")])
    whole = ReviewerReport(dimension="analysis", findings=cut.findings)
    runs = [MemberRun(kind="ds", member="analysis-reviewer", status="malformed", reason="cut off at the output limit",
                      truncated=True),
            MemberRun(kind="ds", member="communication-reviewer", status="complete")]
    comm = ReviewerReport(dimension="communication")
    salvaged = synthesize(DOC, {"analysis": None, "communication": comm}, runs, RUBRIC, salvaged={"analysis": cut},
                          requested_mode="full", mode="full", audience="mixed", workflow="general")
    complete = synthesize(DOC, {"analysis": whole, "communication": comm}, [], RUBRIC,
                          requested_mode="full", mode="full", audience="mixed", workflow="general")
    assert salvaged.final_score == complete.final_score and salvaged.dimensions["analysis"].score == 82
    assert salvaged.status == "partial" and complete.status == "complete"
    assert salvaged.dimensions["analysis"].lens_ratings == {"methodology": complete.dimensions["analysis"].lens_ratings["methodology"]}
    rows = {r.lens: r.rating for r in salvaged.dashboard if r.dimension == "Analysis"}
    assert rows["methodology"].value == "CRITICAL" and rows["metrics"] == "Not reviewed"
    assert "Metrics" in next(w for w in salvaged.warnings if w.startswith("analysis-reviewer"))


def test_a_cut_off_answer_with_nothing_parsed_is_not_reviewed():
    runs = [MemberRun(kind="ds", member="analysis-reviewer", status="malformed", reason="cut off", truncated=True),
            MemberRun(kind="ds", member="communication-reviewer", status="malformed", reason="cut off", truncated=True)]
    review = synthesize(DOC, {"analysis": None, "communication": None}, runs, RUBRIC,
                        salvaged={"analysis": ReviewerReport(dimension="analysis")},
                        requested_mode="full", mode="full", audience="mixed", workflow="general")
    assert review.status == "deferred" and review.final_score is None
