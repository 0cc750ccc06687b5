"""The seed rubric (`-T rubric=seed-v1`, the design's formula with its starting values; the default holds
the same formula with fitted values, tests/test_ds_calibration.py) scores as the design writes it,
checked on random reviews put through the real synthesis:

- each dimension is 100 minus its deductions on the diminishing-returns curve (first 30 points in
  full, 31-50 at 75%, beyond at 50%) plus its credits (at most +25), clamped to 0..100;
- the final score is the weighted mean of the scored dimensions: analysis and communication 50/50,
  and with the domain dimension 50/25/25;
- the floor rules count every dimension alike: one CRITICAL caps the verdict at Minor Fix, two at
  Major Rework; an ADVISORY finding never counts; a dedup pair counts once and keeps its origin;
- with a domain, the recalibration keeps a document's band (and score) unless the domain reviewer
  reports a MAJOR or CRITICAL finding.

The expected numbers are computed here from those rules, not by the scoring module.
"""

from __future__ import annotations

import random

import pytest

from review_harness.core.member import MemberRun
from review_harness.domain.reviewer import FindingSource, default_reviewer_rubric, make_finding
from review_harness.domain.skill import get_domain_context
from review_harness.ds import scoring
from review_harness.ds.domain_dim import DomainInput
from review_harness.ds.models import DocumentInfo, Positive, ReviewerFinding, ReviewerReport, Severity
from review_harness.ds.rubric import CALIBRATED_RUBRIC, SEED_RUBRIC, default_rubric, load_rubric
from review_harness.ds.synthesis import synthesize

SEED = load_rubric(SEED_RUBRIC)
DEFAULT = default_rubric()
CALIBRATED = load_rubric(CALIBRATED_RUBRIC)
DRUB = default_reviewer_rubric()
BRIEF = get_domain_context(["search-ranking"])
DOC = DocumentInfo(title="T", source="t.md", word_count=900, reading_minutes=3.9, token_estimate=1170, tier=1)
AUTHORITATIVE = FindingSource(kind="digest", ref="search-ranking / Foundational Knowledge / Known Pitfalls",
                              authority="authoritative")
ADVISORY_SOURCE = FindingSource(kind="digest", ref="search-ranking / Workstream Learnings", authority="advisory")
ORDER = [scoring.GOOD_TO_GO, scoring.MINOR_FIX, scoring.MAJOR_REWORK]


def curve(raw: float) -> float:
    """The design's diminishing returns, written out."""
    return min(raw, 30) + 0.75 * max(0.0, min(raw, 50) - 30) + 0.5 * max(0.0, raw - 50)


def expected_dimension(points: list[float], credits: float, cap: float = 25) -> float:
    return max(0.0, min(100.0, 100 - curve(sum(points)) + min(credits, cap)))


def band(score: float) -> str:
    return scoring.GOOD_TO_GO if score >= 80 else scoring.MINOR_FIX if score >= 60 else scoring.MAJOR_REWORK


def floored(verdict: str, criticals: int) -> str:
    cap = scoring.MAJOR_REWORK if criticals >= 2 else scoring.MINOR_FIX if criticals == 1 else scoring.GOOD_TO_GO
    return max(verdict, cap, key=ORDER.index)


def _report(rng: random.Random, dimension: str, rubric=SEED) -> ReviewerReport:
    dim = rubric.dimension(dimension)
    findings = []
    for lens in dim.lenses:
        for _ in range(rng.choice((0, 0, 1, 1, 2, 3))):
            row = rng.choice(lens.deductions + [None])
            severity = row.severity if row else rng.choice(list(Severity))
            findings.append(ReviewerFinding(
                lens=lens.id, severity=severity, title=f"{lens.id} issue {len(findings)}", location=f"line {len(findings) + 3}",
                issue=f"Issue number {len(findings)} under {lens.title} with its own wording {rng.random():.6f}.",
                evidence="", suggested_fix=f"Fix {len(findings)}.", issue_type=row.id if row else None))
    credits = rng.sample([c.id for c in dim.credits], rng.randint(0, len(dim.credits)))
    return ReviewerReport(dimension=dimension, findings=findings,
                          positives=[Positive(title=c, detail="d", credit=c) for c in credits])


def _domain_findings(rng: random.Random, serious: bool) -> list:
    rows = [(lens.id, row) for lens in DRUB.dimension.lenses for row in lens.deductions]
    allowed = [(lens, row) for lens, row in rows if serious or row.severity in ("MINOR", "ADVISORY")]
    out = []
    for n in range(rng.randint(0, 9)):
        lens, row = rng.choice(allowed)
        source = ADVISORY_SOURCE if row.severity == "ADVISORY" else AUTHORITATIVE
        out.append(make_finding(DRUB, f"D{n + 1}", lens, row.id, source, f"Domain issue {n} {rng.random():.6f} in the ranking evaluation."))
    return out


def _domain(findings, credits) -> DomainInput:
    return DomainInput(domains=["search-ranking"], brief=BRIEF, findings=findings, credits=credits,
                       run=MemberRun(kind="domain", member="domain-expert-reviewer", status="complete"))


def _synth(reports, rubric=SEED, domain=None):
    return synthesize(DOC, reports, [], rubric, requested_mode="full", mode="full", audience="mixed",
                      workflow="general", domain=domain)


def _credit_total(report: ReviewerReport, rubric=SEED) -> float:
    dim = rubric.dimension(report.dimension)
    return sum(dim.credit(p.credit).points for p in report.positives)


@pytest.mark.parametrize("seed", range(200))
def test_two_dimensions_are_the_mean_of_the_dimension_scores_with_the_seed_floors(seed):
    rng = random.Random(seed)
    reports = {d: _report(rng, d) for d in SEED.dimensions}
    review = _synth(reports)
    criticals = 0
    for dim_id, report in reports.items():
        listed = [f for f in review.findings if f.dimension == dim_id]
        points = [f.deduction for f in listed]
        assert review.dimensions[dim_id].score == pytest.approx(expected_dimension(points, _credit_total(report)), abs=0.01)
        criticals += sum(1 for f in listed if f.severity == Severity.CRITICAL and f.deduction > 0)
    a, c = review.dimensions["analysis"].score, review.dimensions["communication"].score
    assert review.final_score == pytest.approx((a + c) / 2, abs=0.01)
    assert review.band_verdict == band(review.final_score)
    assert review.verdict == floored(band(review.final_score), criticals)
    assert (review.floor_rule is not None) == (review.verdict != review.band_verdict)


@pytest.mark.parametrize("seed", range(200))
def test_with_a_domain_the_final_is_the_50_25_25_mean_and_keeps_its_band_unless_the_domain_finds_something_serious(seed):
    rng = random.Random(1000 + seed)
    reports = {d: _report(rng, d) for d in SEED.dimensions}
    two = _synth(reports)
    serious = rng.random() < 0.5
    findings = _domain_findings(rng, serious)
    credits = rng.sample([c.id for lens in DRUB.dimension.lenses for c in lens.credits], rng.randint(0, 4))
    three = _synth(reports, domain=_domain(findings, credits))
    a, c, d = (three.dimensions[k].score for k in ("analysis", "communication", "domain"))
    c_in_final = three.dimensions["communication"].score_in_final
    assert set(three.scored_dimensions) == {"analysis", "communication", "domain"}
    # the mean takes communication's value before it is shown clamped at 0 (its deductions weigh double)
    assert c == pytest.approx(max(0.0, c_in_final), abs=0.01)
    assert three.final_score == pytest.approx(max(0.0, 0.5 * a + 0.25 * c_in_final + 0.25 * d), abs=0.01)
    # floors over every dimension alike; ADVISORY never counts
    criticals = sum(1 for f in three.findings if f.severity == Severity.CRITICAL and (f.deduction > 0 or f.dimension == "domain"))
    assert three.verdict == floored(band(three.final_score), criticals)
    # the recalibration: communication's net deductions weigh double (it keeps its share of the
    # final), the domain's MINOR and ADVISORY deductions are absorbed
    assert c_in_final == pytest.approx(100 - 2 * (100 - two.dimensions["communication"].score), abs=0.02)
    if not any(f.severity in ("MAJOR", "CRITICAL") for f in findings):
        assert d == 100.0
        assert three.final_score == pytest.approx(two.final_score, abs=0.02)
        assert three.band_verdict == two.band_verdict and three.verdict == two.verdict
    assert three.final_score <= two.final_score + 0.02  # a domain never lifts a review


def test_an_advisory_finding_never_triggers_a_floor_rule():
    reports = {d: ReviewerReport(dimension=d) for d in SEED.dimensions}
    advisory = [make_finding(DRUB, f"D{n}", "pitfall", "recent_learning_pitfall", ADVISORY_SOURCE, "A recent learning.")
                for n in range(3)]
    review = _synth(reports, domain=_domain(advisory, []))
    assert review.verdict == scoring.GOOD_TO_GO and review.floor_rule is None and review.final_score == 100


def _merged_pair(rubric):
    """An analysis CRITICAL and an analysis MAJOR; the MAJOR is also raised by the domain reviewer
    (same quote, section and fix), so dedup merges the two into one issue."""
    quote = "Position bias was not corrected in the click-based evaluation of the ranker."
    analysis = ReviewerReport(dimension="analysis", findings=[
        ReviewerFinding(lens="methodology", severity=Severity.CRITICAL, title="Causal claim from a before/after",
                        location="Results, line 12", issue="The lift is attributed to the ranker from a before/after comparison.",
                        evidence="", suggested_fix="Run a controlled test.", issue_type="causal_claim_without_design"),
        ReviewerFinding(lens="methodology", severity=Severity.MAJOR, title="Clicks used as labels without position bias correction",
                        location="Method, line 7", issue="Clicks are biased by position and were used as relevance labels.",
                        evidence=quote, suggested_fix="Correct for position bias with inverse propensity weighting.",
                        issue_type="assumption_unstated"),
    ])
    domain_finding = make_finding(DRUB, "D1", "pitfall", "selection_bias_unacknowledged", AUTHORITATIVE,
                                  "Clicks are biased by position and were used as relevance labels.", quote=quote,
                                  section="Method, line 7", fix="Correct for position bias with inverse propensity weighting.")
    reports = {"analysis": analysis, "communication": ReviewerReport(dimension="communication")}
    return reports, domain_finding


@pytest.mark.parametrize("rubric", [SEED, DEFAULT, CALIBRATED], ids=["seed-v1", "default", "calibrated"])
def test_a_dedup_pair_keeps_its_origin_for_the_floor_rules(rubric):
    reports, domain_finding = _merged_pair(rubric)
    two = _synth(reports, rubric)
    three = _synth(reports, rubric, domain=_domain([domain_finding], []))
    merged = next(f for f in three.findings if f.dimension == "analysis" and f.severity == Severity.MAJOR)
    assert merged.merged_into == "D1"
    # adding the domain never lifts the verdict: the merged MAJOR still counts for a rule limited to
    # the analysis dimension (the calibrated rubric's CRITICAL-with-serious rule), and once
    assert ORDER.index(three.verdict) >= ORDER.index(two.verdict)
    if rubric is CALIBRATED:
        assert two.verdict == three.verdict == scoring.MAJOR_REWORK
        assert "analysis" in three.floor_rule
    else:
        assert two.verdict == three.verdict == scoring.MINOR_FIX  # one CRITICAL in all


def test_the_calibrated_rubric_is_the_shortfall_sum_and_selectable_by_name():
    from review_harness.ds.dataset import task_rubric

    path, rubric = task_rubric("calibrated")
    assert path.endswith("rubric.calibrated.yaml") and rubric.scoring.combine == "shortfall"
    assert task_rubric(None)[1].scoring.combine == "weighted_mean"
    rng = random.Random(7)
    reports = {d: _report(rng, d, CALIBRATED) for d in CALIBRATED.dimensions}
    review = _synth(reports, CALIBRATED)
    a, c = review.dimensions["analysis"].score, review.dimensions["communication"].score
    assert review.final_score == pytest.approx(max(0.0, 100 - (100 - a) - (100 - c)), abs=0.01)
