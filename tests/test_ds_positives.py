"""Positives are the reviewers' when they gave some: the lead's filler only stands in for positives
that were lost (a cut-off or malformed answer), never for positives a finding set aside."""

from __future__ import annotations

from review_harness.core.member import MemberRun
from review_harness.ds.models import DocumentInfo, Positive, ReviewerFinding, ReviewerReport, Severity
from review_harness.ds.render import render_report
from review_harness.ds.rubric import default_rubric
from review_harness.ds.synthesis import synthesize

SUMMARY = "The new checkout flow caused a 4% rise in orders across every market we sell in"
OWNER = "Payments owns the rollout and reports back on 15 March with the refund figures"


def _synth(reports, runs):
    info = DocumentInfo(title="T", source="t.md", word_count=900, reading_minutes=3.9, token_estimate=1170, tier=1)
    return synthesize(info, reports, runs, default_rubric(), requested_mode="full", mode="full", audience="mixed",
                      workflow="general")


def _complete():
    return [MemberRun(kind="ds", member="analysis-reviewer", status="complete"),
            MemberRun(kind="ds", member="communication-reviewer", status="complete")]


def _reports(comm_positives):
    analysis = ReviewerReport(dimension="analysis", findings=[ReviewerFinding(
        lens="methodology", severity=Severity.MAJOR, title="Causal claim without a comparison", location="TL;DR",
        issue="The rise is attributed to the flow with no comparison group.", evidence=SUMMARY,
        suggested_fix="Say what the rise is compared with.")])
    return {"analysis": analysis, "communication": ReviewerReport(dimension="communication", positives=comm_positives)}


def test_positives_the_reviewers_gave_are_never_replaced_by_the_leads_filler():
    praise = [Positive(title="Answer first", detail=f'The summary opens with its answer: "{SUMMARY}".', lens="structure"),
              Positive(title="Clear headline", detail=f'The headline is one sentence: "{SUMMARY}".', lens="conciseness")]
    review = _synth(_reports(praise), _complete())
    assert not any("Written by the lead" in p.detail for p in review.positives)
    assert review.positives == []  # both praise the sentence the analysis finding faults
    assert any("gave 2 positive(s), each praising a sentence a finding faults" in n for n in review.notes)
    assert "positives were lost" not in render_report(review, default_rubric())


def test_a_reviewer_positive_about_another_sentence_is_kept():
    praise = [Positive(title="Answer first", detail=f'The summary opens with its answer: "{SUMMARY}".', lens="structure"),
              Positive(title="Owned next step", detail=f'The recommendation has an owner and a date: "{OWNER}".',
                       lens="actionability")]
    review = _synth(_reports(praise), _complete())
    assert [p.title for p in review.positives] == ["Owned next step"]
    assert not any("gave" in n and "positive(s)" in n for n in review.notes)


def test_the_lead_still_writes_positives_when_a_cut_off_answer_lost_them():
    runs = [MemberRun(kind="ds", member="analysis-reviewer", status="complete"),
            MemberRun(kind="ds", member="communication-reviewer", status="malformed", truncated=True)]
    review = _synth(_reports([]), runs)
    assert review.positives and all("Written by the lead" in p.detail for p in review.positives)


def test_a_complete_run_with_no_positives_gets_no_claim_that_they_were_lost():
    review = _synth(_reports([]), _complete())
    assert review.positives == []
    assert "positives were lost" not in render_report(review, default_rubric())
