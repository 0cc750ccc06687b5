"""The DS review's one scoring model, property by property, over every fixture (the DS set and the
Search set) and for two-dimension, three-dimension, partial and quick reviews, under both rubrics
(the default, the design's weighted mean with its recalibration, and the calibrated one):

- adding a dimension never raises the score, so a domain whose reviewer finds nothing serious
  never moves the verdict band up; with no MAJOR or CRITICAL domain finding the band does not move;
- a domain CRITICAL never raises the score (also when dedup merges it with an analysis finding);
- a partial review's score is its reviewed dimension's score, and the review says so;
- every lens rating is the worst severity among the findings listed under it, after re-routing
  and dedup (SOUND when none);
- a domain that does not fit the document says so and is not scored as a perfect dimension;
- no finding, of any severity, raises a dimension's score.

The reports come from the offline reviewers' rules on each fixture, as in a real offline run.
"""

from __future__ import annotations

import random
from functools import lru_cache
from pathlib import Path

import anyio
import pytest

from review_harness.core.member import MemberRun
from review_harness.core.paths import FIXTURES_DIR, GOLD_DIR
from review_harness.domain.dedup import dedup
from review_harness.domain.offline import offline_dedup_model
from review_harness.domain.reviewer import FindingSource, default_reviewer_rubric, make_finding
from review_harness.domain.rules import review_document
from review_harness.domain.skill import get_domain_context
from review_harness.domain.topics import domain_fit
from review_harness.ds import scoring
from review_harness.ds.domain_dim import DomainInput, analysis_refs, domain_refs
from review_harness.ds.gold import load_gold
from review_harness.ds.models import LensRating, Review, ReviewerFinding, ReviewerReport, Severity
from review_harness.ds.offline.rules import review_with_rules
from review_harness.ds.prepare import prepare_document
from review_harness.ds.render import render_report
from review_harness.ds.rubric import CALIBRATED_RUBRIC, default_rubric, load_rubric
from review_harness.ds.synthesis import synthesize

RUBRIC = default_rubric()
RUBRICS = {"default": RUBRIC, "calibrated": load_rubric(CALIBRATED_RUBRIC)}


@pytest.fixture(params=list(RUBRICS))
def rubric(request):
    return RUBRICS[request.param]
DRUB = default_reviewer_rubric()
FIXTURES = sorted((FIXTURES_DIR / "ds").glob("*.md")) + sorted((FIXTURES_DIR / "domain" / "search").glob("*.md"))
MODES = ("full", "quick")
ORDER = [scoring.GOOD_TO_GO, scoring.MINOR_FIX, scoring.MAJOR_REWORK]
IDS = [p.stem for p in FIXTURES]


def _domains(path: Path) -> list[str]:
    """The fixture's domain (its gold options), else search-ranking: every fixture is also
    reviewed against a domain it may not fit."""
    gold = GOLD_DIR / "domain" / "search" / f"{path.stem}.yaml"
    if gold.is_file():
        return str(load_gold(gold).options["domain"]).split(",")
    return ["search-ranking"]


@lru_cache(maxsize=None)
def _inputs(path: Path, mode: str):
    text = path.read_text(encoding="utf-8")
    prepared = prepare_document(text, source=path.name, mode=mode)
    reports = {d: review_with_rules(d, prepared.reviewer_content, mode=mode, tier=prepared.tier) for d in RUBRIC.dimensions}
    domains = _domains(path)
    fit = domain_fit(text, domains)
    brief = get_domain_context(domains, topic_hints=fit.hints)
    found = review_document(prepared.reviewer_content, brief.content, DRUB) if fit.applicable else None
    return prepared, reports, domains, fit, brief, found


def _domain(path: Path, mode: str, findings=None, decisions=None, fit=True) -> DomainInput:
    _, reports, domains, real_fit, brief, found = _inputs(path, mode)
    return DomainInput(
        domains=domains, brief=brief, fit=real_fit if fit else None,
        findings=list(found.findings if found and findings is None else findings or []),
        credits=list(found.credits) if found else [],
        run=MemberRun(kind="domain", member="domain-expert-reviewer", status="complete"),
        dedup=decisions or [],
    )


def _review(path: Path, mode: str, *, domain: DomainInput | None = None, drop: str | None = None, reports=None,
            rubric=RUBRIC) -> Review:
    prepared, own, *_ = _inputs(path, mode)
    reports = dict(reports or own)
    if drop:
        reports[drop] = None
    runs = [MemberRun(kind="ds", member=rubric.dimension(d).reviewer, status="complete" if reports[d] else "failed",
                      reason=None if reports[d] else "provider error") for d in rubric.dimensions]
    return synthesize(prepared.info(), reports, runs, rubric, requested_mode=mode, mode=mode, audience="mixed",
                      workflow="general", domain=domain)


def _decisions(path: Path, mode: str, domain: DomainInput):
    """What the dedup step records (stage 2 answered by the offline model), as in a real run."""
    two = _review(path, mode)
    return anyio.run(lambda: dedup(analysis_refs(two.findings), domain_refs(domain.findings), DRUB.dedup,
                                   model=offline_dedup_model()))


def _three(path: Path, mode: str, findings=None, fit: bool = True, rubric=RUBRIC) -> Review:
    domain = _domain(path, mode, findings=findings, fit=fit)
    domain.dedup = _decisions(path, mode, domain)
    return _review(path, mode, domain=domain, rubric=rubric)


def _worse_or_same(a: str, b: str) -> bool:
    return ORDER.index(a) >= ORDER.index(b)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("path", FIXTURES, ids=IDS)
def test_a_domain_never_raises_the_score_nor_moves_the_band_up(path, mode, rubric):
    two, three = _review(path, mode, rubric=rubric), _three(path, mode, rubric=rubric)
    assert three.final_score <= two.final_score
    assert _worse_or_same(three.verdict, two.verdict)
    # a domain reviewer that finds nothing serious (only MINOR and ADVISORY findings, or none)
    mild = [f for f in _domain(path, mode).findings if f.severity in ("MINOR", "ADVISORY")]
    for findings in (mild, []):
        three = _three(path, mode, findings=findings, rubric=rubric)
        assert three.final_score <= two.final_score and _worse_or_same(three.verdict, two.verdict)
        assert three.band_verdict == scoring.band_verdict(three.final_score, rubric)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("path", FIXTURES, ids=IDS)
def test_no_band_moves_unless_the_domain_reports_a_major_or_critical(path, mode):
    """Seed 001's recalibration target, under the default rubric: every fixture reviewed without and
    with a domain keeps its verdict band (and its score) unless the domain reviewer reports a MAJOR
    or CRITICAL finding; the reviewer's own findings, then only its mild ones, then none."""
    two = _review(path, mode)
    found = list(_domain(path, mode).findings)
    for findings in (found, [f for f in found if f.severity in ("MINOR", "ADVISORY")], []):
        three = _three(path, mode, findings=findings, fit=False)  # scored even where the domain does not fit
        serious = any(f.severity in ("MAJOR", "CRITICAL") for f in findings)
        if not serious:
            assert three.verdict == two.verdict and three.band_verdict == two.band_verdict
            assert three.final_score == pytest.approx(two.final_score, abs=0.01)


def _critical(path: Path, quote_from=None, n: int = 9):
    """A domain CRITICAL quoting the document; with `quote_from` (an analysis finding) it quotes the
    same sentence, names the same section and proposes the same fix, so dedup merges the two."""
    source = FindingSource(kind="digest", ref="search-ranking / Foundational Knowledge / Known Pitfalls",
                           authority="authoritative")
    if quote_from is None:
        return make_finding(DRUB, f"D{n}", "pitfall", "critical_pitfall_ignored", source, "A known pitfall is ignored.")
    return make_finding(DRUB, f"D{n}", "pitfall", "critical_pitfall_ignored", source, quote_from.issue,
                        quote=quote_from.evidence or None, section=quote_from.location, fix=quote_from.suggested_fix)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("path", FIXTURES, ids=IDS)
def test_a_domain_critical_never_raises_the_score(path, mode, rubric):
    two = _review(path, mode, rubric=rubric)
    base = list(_domain(path, mode).findings)
    without = _three(path, mode, findings=base, fit=False, rubric=rubric)  # (scored even where the domain does not fit)
    with_critical = _three(path, mode, findings=base + [_critical(path)], fit=False, rubric=rubric)
    assert with_critical.final_score <= without.final_score <= two.final_score
    assert _worse_or_same(with_critical.verdict, scoring.MINOR_FIX)  # a CRITICAL anywhere caps the verdict
    # the same issue raised by both reviewers: merged by dedup, deducted once, never a lift
    for finding in [f for f in two.findings if f.dimension == "analysis"][:3]:
        merged = _three(path, mode, findings=base + [_critical(path, quote_from=finding)], fit=False, rubric=rubric)
        assert merged.final_score <= without.final_score <= two.final_score
        mark = next(f for f in merged.findings if f.id == finding.id)
        if mark.merged_into:
            assert mark.merged_into in merged.domain.charged and finding.id not in merged.top_fixes
            charged = merged.domain.charged[mark.merged_into]
            assert (mark.deduction == 0) == (charged == "domain")  # deducted exactly once
            assert charged == "domain" or finding.id in charged


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("missing", ["analysis", "communication"])
@pytest.mark.parametrize("path", FIXTURES, ids=IDS)
def test_a_partial_review_scores_its_reviewed_dimension_and_says_so(path, mode, missing, rubric):
    review = _review(path, mode, drop=missing, rubric=rubric)
    kept = next(d for d in rubric.dimensions if d != missing)
    assert review.status == "partial" and review.scored_dimensions == [kept]
    assert review.final_score == review.dimensions[kept].score
    assert review.verdict != scoring.GOOD_TO_GO
    title = rubric.dimension(kept).title
    assert f"covers only the {title} dimension" in " ".join(review.warnings)
    report = render_report(review, rubric)
    assert f"(partial: covers the {title} dimension only)" in report
    domain = _domain(path, mode)
    three = _review(path, mode, domain=domain, drop=missing, rubric=rubric)
    if three.dimensions["domain"].reviewed:
        kept_score, domain_score = three.dimensions[kept].score, three.dimensions["domain"].score
        if rubric.scoring.combine == "weighted_mean":
            # the mean of what was reviewed, at the with-domain weights
            w = rubric.scoring.with_domain.weights
            expected = (w[kept] * kept_score + w["domain"] * domain_score) / (w[kept] + w["domain"])
        else:
            # the reviewed DS dimension at weight 1, plus the domain's shortfall at its weight
            expected = 100 - (100 - kept_score) - rubric.weight("domain") * (100 - domain_score)
        assert three.final_score == pytest.approx(max(0.0, expected), abs=0.01)
        assert set(three.scored_dimensions) == {kept, "domain"}


def _rerouted(path: Path, mode: str) -> dict[str, ReviewerReport]:
    """The communication reviewer files one finding under an analysis lens (it is re-routed)."""
    _, reports, *_ = _inputs(path, mode)
    stray = ReviewerFinding(lens="analysis.logic", severity=Severity.MAJOR, title="Conclusion outruns the results",
                            location="Summary", issue="The summary claims more than the results show.",
                            suggested_fix="Say only what the results show.", issue_type="unsupported_conclusion")
    communication = reports["communication"].model_copy(update={"findings": [*reports["communication"].findings, stray]})
    return {**reports, "communication": communication}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("path", FIXTURES, ids=IDS)
def test_every_lens_rating_is_the_worst_finding_listed_under_it(path, mode):
    """The worst finding listed under a lens sets its rating; with none listed, a lens its reviewer said it
    could not judge is NOT ASSESSED, any other is SOUND."""
    domain = _domain(path, mode)
    domain.dedup = _decisions(path, mode, domain)
    _, own, *_ = _inputs(path, mode)
    for reports, review in ((own, _review(path, mode)), (own, _review(path, mode, domain=domain)),
                            (rerouted := _rerouted(path, mode), _review(path, mode, domain=domain, reports=rerouted))):
        for dim_id, dim in RUBRIC.dimensions.items():
            unjudged = {r.lens for r in reports[dim_id].lens_ratings if r.rating == LensRating.NOT_ASSESSED}
            for lens in dim.lenses:
                listed = [f.severity for f in review.findings if f.dimension == dim_id and f.lens == lens.id]
                worst = min(listed, key=lambda s: s.rank) if listed else None
                expected = LensRating.NOT_ASSESSED if not listed and lens.id in unjudged else LensRating.for_severity(worst)
                assert review.dimensions[dim_id].lens_ratings[lens.id] == expected
                row = next(r for r in review.dashboard if r.dimension == dim.title and r.lens == lens.id)
                assert row.rating == expected
        if review.domain is not None and review.dimensions["domain"].reviewed:
            for lens in DRUB.dimension.lenses:
                listed = [f.severity for f in review.domain.findings if f.lens == lens.id]
                serious = [s for s in listed if s != "ADVISORY"]
                row = next(r for r in review.dashboard if r.dimension == DRUB.dimension.title and r.lens == lens.id)
                expected = (LensRating.for_severity(min((Severity(s) for s in serious), key=lambda s: s.rank))
                            if serious else ("ADVISORY" if listed else LensRating.SOUND))
                assert row.rating == expected


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("path", [p for p in FIXTURES if not domain_fit(p.read_text(encoding="utf-8"), _domains(p)).applicable],
                         ids=lambda p: p.stem)
def test_a_domain_that_does_not_fit_says_so_and_is_not_scored(path, mode):
    two = _review(path, mode)
    three = _review(path, mode, domain=_domain(path, mode))
    result = three.dimensions["domain"]
    assert not result.applicable and not result.reviewed and result.score is None
    assert result.status_label == "Not applicable"
    assert three.status == two.status and "domain" not in three.scored_dimensions
    assert three.final_score == two.final_score and three.verdict == two.verdict
    assert {r.rating for r in three.dashboard if r.dimension == DRUB.dimension.title} == {"Not applicable"}
    report = render_report(three, RUBRIC)
    title = DRUB.dimension.title
    shown = f"## {title} Dimension (Score: not applicable)" if mode == "full" else f"| {title} | Not applicable |"
    assert shown in report and "(not applicable to this document: not scored)" in report
    assert any("not applicable and not scored" in w for w in three.warnings)


def test_the_fit_check_sorts_the_fixtures_as_a_reader_would():
    fits = {p.stem for p in FIXTURES if domain_fit(p.read_text(encoding="utf-8"), ["search-ranking"]).applicable}
    search = {p.stem for p in (FIXTURES_DIR / "domain" / "search").glob("*.md")}
    assert search - {"infra-latency-study", "query-intent-classifier"} <= fits  # every ranking write-up fits
    for off_topic in ("checkout-button-early-stop", "dark-mode-retention", "demand-forecast-leakage", "jargon-for-execs",
                      "newsletter-subject-lines", "strong-pricing-test", "wrong-audience"):
        assert off_topic not in fits


def test_no_finding_raises_a_dimension_score(rubric):
    """Random deduction lists, credit totals and one more finding of each severity, on the curve
    and credit rules of the rubric (and its with-domain recalibration)."""
    rng = random.Random(19)
    severities = list(Severity)
    settings = [{}] + [scoring.recalibration(rubric, d, True) for d in ("communication", "domain")]
    for _ in range(3000):
        deductions = [(rng.choice((2, 3, 5, 7, 8, 10, 15, 18, 20)), rng.choice(severities)) for _ in range(rng.randint(0, 9))]
        credits = [rng.choice((2, 3, 5)) for _ in range(rng.randint(0, 6))]
        for kw in settings:
            before = scoring.dimension_score(deductions, credits, rubric, **kw)[0]
            for severity in severities:
                extra = (rng.choice((3, 10, 20)), severity)
                assert scoring.dimension_score(deductions + [extra], credits, rubric, **kw)[0] <= before
                assert scoring.dimension_score(deductions + [extra], credits, rubric, credit_cap=25, **kw)[0] <= \
                    scoring.dimension_score(deductions, credits, rubric, credit_cap=25, **kw)[0]
