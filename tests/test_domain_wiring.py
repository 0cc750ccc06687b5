"""The domain knowledge dimension wired into the DS review (-T domain=, issue 10): end to end
offline, a failing domain reviewer, bad -T values, recorded dedup, floors and ADVISORY, and the
two-dimension review left exactly as it was."""

from __future__ import annotations

import json

import pytest
from review_harness.core.inspect_adapter import PrerequisiteError

from review_harness.core.paths import FIXTURES_DIR, PROMPTS_DIR
from review_harness.core.member import MemberResult, MemberRun
from review_harness.domain.reviewer import FindingSource, default_reviewer_rubric, make_finding
from review_harness.domain.skill import get_domain_context
from review_harness.ds import scoring
from review_harness.ds.domain_dim import DomainInput
from review_harness.ds.models import DocumentInfo, ReviewerReport
from review_harness.ds.panel import review_from_store
from review_harness.ds.prepare import prepare_document
from review_harness.ds.prompts import render_reviewer_prompt
from review_harness.ds.rubric import default_rubric
from review_harness.ds.synthesis import synthesize
from helpers import ds_review_task, reviews, run

DOC = str(FIXTURES_DIR / "domain" / "search" / "click-eval-no-position-bias.md")
RUBRIC = default_rubric()
DRUB = default_reviewer_rubric()
HASHES = json.loads((PROMPTS_DIR / "ds" / "prefix_hashes.json").read_text())["v1"]


@pytest.fixture(scope="module")
def domain_log(tmp_path_factory):
    return run(tmp_path_factory.mktemp("domain"), document=DOC, domain="search-ranking")


def test_three_dimensions_weights_digest_versions_and_domain_findings(domain_log):
    assert domain_log.status == "success"
    [sample] = domain_log.samples
    [review] = reviews(domain_log).values()
    dims = review.dimensions
    assert set(dims) == {"analysis", "communication", "domain"} and all(d.reviewed for d in dims.values())
    weights = RUBRIC.scoring.with_domain.weights  # the design's 50/25/25 weighted mean
    assert review.domain.weights == weights == {"analysis": 0.5, "communication": 0.25, "domain": 0.25}
    expected = sum(weights[d] * dims[d].score for d in dims)
    assert review.final_score == pytest.approx(expected, abs=0.01)
    # the brief that was served, with its digest versions, is in the log (store and metadata)
    versions = get_domain_context(["search-ranking"]).versions
    assert review.domain.brief["versions"] == versions
    assert sample.metadata["domain_brief"]["versions"] == versions
    assert sample.store["domain_brief"]["record"]["versions"] == versions
    # position bias ignored on click data: the domain reviewer's CRITICAL, citing the digest
    [critical] = [f for f in review.domain.findings if f.severity == "CRITICAL"]
    assert critical.lens == "pitfall"
    assert critical.source.kind == "digest" and "search-ranking" in critical.source.ref
    assert any(f.dimension == "domain" and f.severity.value == "CRITICAL" for f in review.findings)
    assert review.verdict != "Good to Go"  # a CRITICAL anywhere caps it (or the score is already below)
    assert review.band_verdict != "Good to Go" or "CRITICAL" in (review.floor_rule or "")
    # 11-row dashboard (4 + 4 + 3), the three dimension sections and the brief's banner
    assert len(review.dashboard) == 11
    report = sample.output.completion
    for heading in ("## Analysis Dimension", "## Communication Dimension", "## Domain Knowledge Dimension"):
        assert heading in report
    assert "> **Domain knowledge warnings**" in report and "conflict" in report
    assert "search-ranking@" in report
    runs = {r.member: r for r in review.reviewer_runs}
    assert set(runs) == {"analysis-reviewer", "communication-reviewer", "domain-expert-reviewer"}
    assert runs["domain-expert-reviewer"].kind == "domain" and runs["domain-expert-reviewer"].status == "complete"
    assert all(r.status == "complete" and r.attempts == 1 for r in runs.values())


def test_guardrail_only_for_the_analysis_reviewer_with_a_domain(domain_log):
    [review] = reviews(domain_log).values()
    assert review.prompt_prefix_hashes["communication"] == HASHES["communication"]
    assert review.prompt_prefix_hashes["analysis"] != HASHES["analysis"]
    prepared = prepare_document("# T\n\nSome text.\n", source="t.md", mode="full")
    kwargs = dict(mode="full", audience="mixed", workflow="general", draft=False)
    plain = render_reviewer_prompt(RUBRIC.dimension("analysis"), RUBRIC, prepared, **kwargs)
    guarded = render_reviewer_prompt(RUBRIC.dimension("analysis"), RUBRIC, prepared, guardrail=DRUB.analysis_guardrail, **kwargs)
    assert plain.prefix_hash == HASHES["analysis"] and DRUB.analysis_guardrail not in plain.system
    assert guarded.system.startswith(plain.system.rstrip("\n")) and DRUB.analysis_guardrail.strip() in guarded.system


def test_resynthesis_from_the_log_needs_no_model(domain_log):
    """What `inspect score` does: synthesis from the stored record, dedup replayed."""
    [sample] = domain_log.samples
    [review] = reviews(domain_log).values()
    again = review_from_store(sample.store, RUBRIC, sample.input)
    assert again.model_dump(mode="json") == review.model_dump(mode="json")
    assert "domain_dedup" in sample.store


def test_failing_domain_reviewer_gives_a_partial_two_dimension_review(tmp_path, monkeypatch):
    import solvers.ds_panel

    async def failing(document, brief, rubric, **kwargs):
        return MemberResult(MemberRun(kind="domain", member="domain-expert-reviewer", status="timed_out",
                                      attempts=2, reason="model call timed out after 600s"))

    monkeypatch.setattr(solvers.ds_panel, "domain_review", failing)
    log = run(tmp_path, document=DOC, domain="search-ranking")
    assert log.status == "success"
    [review] = reviews(log).values()
    assert review.status == "partial"
    assert not review.dimensions["domain"].reviewed
    assert any("Domain Knowledge dimension not reviewed: model call timed out" in w for w in review.warnings)
    domain_run = next(r for r in review.reviewer_runs if r.member == "domain-expert-reviewer")
    assert domain_run.status == "timed_out" and domain_run.kind == "domain"
    a, c = review.dimensions["analysis"].score, review.dimensions["communication"].score
    weights = RUBRIC.scoring.weights  # the same model, over the two reviewed dimensions
    shortfall = (100 - a) * weights["analysis"] + (100 - c) * weights["communication"]
    assert review.final_score == pytest.approx(max(0.0, 100 - shortfall), abs=0.01)
    assert review.domain.weights == {"analysis": weights["analysis"], "communication": weights["communication"]}
    assert review.scored_dimensions == ["analysis", "communication"]
    assert "Partial review: the Domain Knowledge dimension was not reviewed" in log.samples[0].output.completion


def test_unknown_domain_is_a_one_line_error_before_any_sample():
    with pytest.raises(PrerequisiteError) as ex:
        ds_review_task()(document=DOC, domain="nope")
    message = ex.value.message
    assert "\n" not in message
    assert message == ("-T domain=nope: unknown domain 'nope'; choose from: "
                       "search-ranking, query-understanding, search-infra")


def test_empty_domain_is_an_error_not_a_silent_two_dimension_review():
    # an empty value is the core task helper's one-line error, the same in every kind
    with pytest.raises(PrerequisiteError, match=r"^-T domain=: empty value; give a value, or leave -T domain out"):
        ds_review_task()(document=DOC, domain="")


def test_reference_needs_a_domain_and_a_readable_file(tmp_path):
    with pytest.raises(PrerequisiteError, match=r"-T reference=x\.md: a reference supplements the domain brief"):
        ds_review_task()(document=DOC, reference="x.md")
    with pytest.raises(PrerequisiteError, match=r"-T reference=.*nothere\.md: no such file"):
        ds_review_task()(document=DOC, domain="search-ranking", reference=str(tmp_path / "nothere.md"))


def test_reference_reaches_the_domain_reviewer_prompt(tmp_path, monkeypatch):
    import solvers.ds_panel

    seen = {}
    real = solvers.ds_panel.domain_review

    async def spy(document, brief, rubric, **kwargs):
        seen["reference"] = kwargs.get("reference")
        return await real(document, brief, rubric, **kwargs)

    monkeypatch.setattr(solvers.ds_panel, "domain_review", spy)
    ref = tmp_path / "ref.md"
    ref.write_text("Our team's click model is a cascade model fitted weekly.\n")
    log = run(tmp_path, document=DOC, domain="search-ranking", reference=str(ref))
    assert seen["reference"].startswith("Our team's click model")
    [review] = reviews(log).values()
    assert review.domain.reference == str(ref) and review.dimensions["domain"].reviewed


def test_no_domain_run_is_the_two_dimension_review(tmp_path):
    log = run(tmp_path, document=DOC)
    [sample] = log.samples
    [review] = reviews(log).values()
    assert set(review.dimensions) == {"analysis", "communication"}
    assert review.prompt_prefix_hashes == HASHES
    assert "domain" not in sample.scores["review_synthesis"].metadata["review"]
    assert not any(k.startswith("domain") for k in sample.store)
    assert "Domain" not in sample.output.completion and len(review.dashboard) == 8


def _synth(domain_findings):
    reports = {d: ReviewerReport(dimension=d) for d in RUBRIC.dimensions}
    runs = [MemberRun(kind="ds", member=RUBRIC.dimension(d).reviewer, status="complete") for d in RUBRIC.dimensions]
    brief = get_domain_context(["search-ranking"])
    domain = DomainInput(domains=["search-ranking"], brief=brief, findings=domain_findings,
                         run=MemberRun(kind="domain", member="domain-expert-reviewer", status="complete"))
    doc = DocumentInfo(title="t", source="t.md", word_count=900, reading_minutes=4, token_estimate=1200, tier=1)
    return synthesize(doc, reports, runs, RUBRIC, requested_mode="full", mode="full", audience="mixed",
                      workflow="general", domain=domain)


def test_advisory_never_triggers_a_floor_and_a_domain_critical_does():
    advisory_source = FindingSource(kind="digest", ref="search-ranking / Workstream Learnings / x", authority="advisory")
    authoritative = FindingSource(kind="digest", ref="search-ranking / Foundational Knowledge / y", authority="authoritative")
    lens = DRUB.dimension.lenses[0].id
    worst = DRUB.dimension.lenses[0].deductions[0]  # a CRITICAL row
    advisory = make_finding(DRUB, "D1", lens, worst.id, advisory_source, "Recent learning says otherwise.")
    review = _synth([advisory])
    # an ADVISORY finding is shown and rated but absorbed by the recalibration: nothing moves
    assert advisory.severity == "ADVISORY" and review.dimensions["domain"].score == 100
    assert review.final_score == 100
    assert review.verdict == "Good to Go" and review.floor_rule is None
    assert [f for f in review.findings if f.dimension == "domain"] == []
    assert [r.rating for r in review.dashboard if r.lens == lens] == ["ADVISORY"]
    critical = make_finding(DRUB, "D1", lens, worst.id, authoritative, "Wrong technique for ranking.")
    review = _synth([critical])
    cost = scoring.diminishing_returns(20, RUBRIC.scoring.diminishing_returns)  # 20 points on the rubric's curve
    assert review.final_score == pytest.approx(100 - cost * RUBRIC.scoring.with_domain.weights["domain"], abs=0.01)  # at its weight
    assert review.band_verdict == "Good to Go" and review.verdict == "Minor Fix"  # capped whatever the weight
    two = make_finding(DRUB, "D2", lens, worst.id, authoritative, "Another wrong technique.")
    assert _synth([critical, two]).verdict == "Major Rework"


def test_domain_alone_is_no_review_it_defers():
    doc = DocumentInfo(title="t", source="t.md", word_count=900, reading_minutes=4, token_estimate=1200, tier=1)
    runs = [MemberRun(kind="ds", member=RUBRIC.dimension(d).reviewer, status="timed_out", reason="timeout")
            for d in RUBRIC.dimensions]
    domain = DomainInput(domains=["search-ranking"], brief=get_domain_context(["search-ranking"]),
                         run=MemberRun(kind="domain", member="domain-expert-reviewer", status="complete"))
    review = synthesize(doc, {d: None for d in RUBRIC.dimensions}, runs, RUBRIC, requested_mode="full",
                        mode="full", audience="mixed", workflow="general", domain=domain)
    assert review.status == "deferred" and review.final_score is None
    assert any(w.startswith("analysis-reviewer timed out (timeout)") for w in review.warnings)
    assert not any(w.startswith("domain-expert-reviewer") for w in review.warnings)


def test_stage_two_questions_go_out_at_once_and_apply_in_pair_order():
    import anyio
    from inspect_ai.model import ModelOutput

    from review_harness.domain.dedup import FindingRef, dedup, replay_dedup

    a = FindingRef(id="A1", summary="Headline number lacks a baseline", section="Results")
    d1 = FindingRef(id="D1", summary="No interval for the uplift", section="Results")
    d2 = FindingRef(id="D2", summary="Tail queries not split out", section="Results")
    in_flight, peak = 0, 0

    class Fake:  # says "same issue" to every question; notes how many were in flight at once
        async def generate(self, messages, config=None, cache=False):
            nonlocal in_flight, peak
            in_flight += 1
            peak = max(peak, in_flight)
            await anyio.sleep(0)
            in_flight -= 1
            return ModelOutput.from_content("fake", '{"same_issue": true, "reason": "same"}')

    out = anyio.run(lambda: dedup([a], [d1, d2], DRUB.dedup, model=Fake()))
    assert peak == 2  # both questions asked together
    assert [(x.domain_id, x.duplicate) for x in out] == [("D1", True)]  # A1 merges into its first match
    assert replay_dedup([a], [d1, d2], DRUB.dedup, out) == out
