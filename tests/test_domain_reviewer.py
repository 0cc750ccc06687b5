"""Domain expert reviewer: rubric values, ADVISORY handling, offline rules, dedup stages, scoring."""

from __future__ import annotations

from datetime import datetime, timezone

import anyio
import pytest

from review_harness.core.schema import schema_dict, schema_problems
from review_harness.domain.dedup import DEDUP_SCHEMA, FindingRef, dedup, dedup_prompt, heuristic_stage, suppressed
from review_harness.core.kinds import get_kind
from review_harness.domain.reviewer import FindingSource, credit_points, default_reviewer_rubric, make_finding
from review_harness.domain.rules import brief_sections, review_document
from review_harness.domain.skill import get_domain_context

R = default_reviewer_rubric()
NOV20 = datetime(2026, 11, 20, tzinfo=timezone.utc)


def test_deduction_and_credit_tables_are_the_seed_values():
    table = {(lens.id, d.id): (d.severity, d.points) for lens in R.dimension.lenses for d in lens.deductions}
    assert [p for (l, _), (_, p) in table.items() if l == "technique"] == [20, 10, 10, 8, 7, 2]
    assert [p for (l, _), (_, p) in table.items() if l == "benchmark"] == [20, 20, 10, 10, 8, 8, 5, 3, 2]
    assert [p for (l, _), (_, p) in table.items() if l == "pitfall"] == [15, 10, 8, 8, 8, 5, 2]
    assert {s for (l, _), (s, p) in table.items() if p == 2} == {"ADVISORY"}
    credits = {lens.id: [c.points for c in lens.credits] for lens in R.dimension.lenses}
    assert credits == {"technique": [5, 3, 3], "benchmark": [5, 3, 3, 2, 2], "pitfall": [5, 3, 2]}
    assert [lens.title for lens in R.dimension.lenses] == [
        "Technique Appropriateness", "Benchmark & External Validity", "Domain Pitfall Awareness"]


def test_advisory_source_caps_any_issue_at_minus_two_and_never_counts_for_floors():
    advisory = FindingSource(kind="digest", ref="search-ranking / Workstream Learnings / Recent Post-Mortems",
                             authority="advisory")
    finding = make_finding(R, "D1", "pitfall", "critical_pitfall_ignored", advisory, "s")
    assert (finding.severity, finding.points) == ("ADVISORY", 2)
    authoritative = FindingSource(kind="digest", ref="x", authority="authoritative")
    critical = make_finding(R, "D2", "pitfall", "critical_pitfall_ignored", authoritative, "s")
    assert (critical.severity, critical.points) == ("CRITICAL", 15)
    assert critical.source.cite() == "digest: x [authoritative]"
    assert FindingSource(kind="general").cite() == "general domain knowledge"


def test_credit_cap():
    ids = [c.id for lens in R.dimension.lenses for c in lens.credits]
    assert sum(credit_points(ids, R)) == 25
    assert credit_points(["claims_cited", "claims_cited"], R) == [3]


CLICK_DOC = """# Ranking eval of model B

## Summary
We recommend we ship model B: offline NDCG@10 rose from 0.47 to 0.49 on click data.

## Method
We computed CTR and NDCG from last month's click logs, pooled over all queries.
The industry standard NDCG is 0.90, so we have headroom.
Research shows that users never scroll past the fold.
A 2023 study found mobile queries are shorter.
"""

CLEAN_DOC = """# Ranking eval of model C

## Summary
Model C wins an interleaving experiment on 14 days of traffic; we recommend an A/B test before launch.

## Method
Clicks were debiased with inverse propensity weighting from randomized result swaps; the logging policy
bias is discussed below. Results are reported for head and tail queries separately.
NDCG@10 on the judged set is 0.51, inside the range our production rankers reach.
"""


def _brief():
    return get_domain_context(["search-ranking"], clock=lambda: NOV20)


def test_offline_rules_find_pitfalls_techniques_benchmarks_and_claims():
    review = review_document(CLICK_DOC, _brief().content, R)
    got = {(f.lens, f.issue_type, f.severity) for f in review.findings}
    assert got == {
        ("pitfall", "critical_pitfall_ignored", "CRITICAL"),
        ("pitfall", "selection_bias_unacknowledged", "MAJOR"),
        ("pitfall", "edge_case_unaddressed", "MAJOR"),
        ("technique", "offline_only_validation", "MAJOR"),
        ("benchmark", "benchmark_fabricated", "CRITICAL"),
        ("benchmark", "claim_unverifiable", "MINOR"),
    }
    fabricated = next(f for f in review.findings if f.issue_type == "benchmark_fabricated")
    assert fabricated.quote == "The industry standard NDCG is 0.90, so we have headroom."
    assert fabricated.source.ref == "search-ranking / Foundational Knowledge / Evaluation Standards"
    assert "between 0.4 and 0.55" in fabricated.summary
    assert review.unverified == ["A 2023 study found mobile queries are shorter."]  # listed, no deduction


def test_clean_document_has_no_findings_and_earns_credit():
    review = review_document(CLEAN_DOC, _brief().content, R)
    assert review.findings == []
    assert "pitfalls_addressed" in review.credits


def test_finding_from_advisory_section_only_is_advisory():
    content = ("### search-ranking / Workstream Learnings / Recent Experiment Learnings [tier: workstream] "
               "[authority: advisory]\n- [2026-11-03] Tail queries showed 3x the variance of head queries.\n")
    doc = "# Eval\n\nNDCG@10 over the judged set of queries rose from 0.47 to 0.49, so we recommend the new ranking.\n"
    review = review_document(doc, content, R)
    assert [(f.issue_type, f.severity, f.points) for f in review.findings] == [("edge_case_unaddressed", "ADVISORY", 2)]
    assert brief_sections(content)[0].authority == "advisory"


# ------------------------------------------------------------------ dedup

def _a(id, summary, section=None, quote=None, fix=None):
    return FindingRef(id=id, summary=summary, section=section, quote=quote, fix=fix)


def test_dedup_stage_one_two_signals_merge_keep_domain_version():
    a = _a("A1", "NDCG comparison ignores click bias", "Method", fix="Use a randomized experiment")
    d = _a("D1", "Position bias unaddressed in NDCG from clicks", "Method", fix="Use IPW or randomized swaps")
    decisions, questions = heuristic_stage([a], [d], R.dedup)
    assert questions == [] and decisions[0].duplicate and decisions[0].kept == "D1"
    assert decisions[0].stage == "heuristic" and len(decisions[0].signals) >= 2
    assert suppressed(decisions) == {"A1"}


def test_dedup_no_signal_is_distinct_without_a_question():
    a = _a("A1", "The regression omits a multicollinearity check", "Model")
    d = _a("D1", "Tail queries are not reported separately", "Results")
    decisions, questions = heuristic_stage([a], [d], R.dedup)
    assert decisions == [] and questions == []


def test_dedup_one_signal_asks_the_model_and_records_the_answer():
    a = _a("A1", "Headline number lacks a baseline", "Results", quote="NDCG@10 rose to 0.49")
    d = _a("D1", "No interval for the uplift", "Results", quote="the uplift was large")
    decisions, questions = heuristic_stage([a], [d], R.dedup)
    assert decisions == [] and len(questions) == 1 and questions[0][2] == ["same section: Results"]

    class Fake:  # stands in for a model: records the question, answers "different"
        asked = []

        async def generate(self, messages, config=None, cache=False):
            from inspect_ai.model import ModelOutput
            Fake.asked.append(messages[0].text)
            return ModelOutput.from_content("fake", '{"same_issue": false, "reason": "different flaws"}')

    out = anyio.run(lambda: dedup([a], [d], R.dedup, model=Fake()))
    assert [(x.stage, x.duplicate, x.reason) for x in out] == [("llm", False, "different flaws")]
    assert "DOMAIN DEDUP QUESTION" in Fake.asked[0]
    replay = anyio.run(lambda: dedup([a], [d], R.dedup, model=None, recorded=out))
    assert replay == out  # re-synthesis replays the recorded answer without a model
    failed = anyio.run(lambda: dedup([a], [d], R.dedup, model=None))
    assert failed[0].stage == "llm-failed" and not failed[0].duplicate


def test_dedup_schema_and_offline_answer():
    assert schema_problems(schema_dict(DEDUP_SCHEMA)) == []
    a = _a("A1", "Click data not debiased", quote="We computed CTR from click logs")
    d = _a("D1", "Position bias ignored", quote="We computed CTR from click logs")
    import json
    assert json.loads(get_kind("domain").offline_answer("dedup", dedup_prompt(a, d)))["same_issue"] is True


# ------------------------------------------------------------------ prompt, schema, parse

def test_reviewer_prompt_separates_rubric_brief_and_document_and_schema_is_sendable():
    from review_harness.domain.prompt import render_reviewer_prompt, report_schema

    assert schema_problems(schema_dict(report_schema(R))) == []
    brief = _brief()
    prompt = render_reviewer_prompt(R, brief, CLICK_DOC, reference="Our judged set changed in October.")
    assert prompt.system.index("offline_only_validation: MAJOR -10") < prompt.system.index("\n<brief>\n")
    assert "Digest versions: search-ranking@2026-11-16T09:00:00Z" in prompt.system
    assert prompt.request.index("<reference>") < prompt.request.index("<document>")
    assert "<brief>" not in prompt.request
    # rubric and brief are the stable prefix: the same for another document, most of the prompt
    assert render_reviewer_prompt(R, _brief(), "other doc").prefix_hash == prompt.prefix_hash
    assert len(prompt.system) > len(prompt.request)


def test_offline_reviewer_round_trip_through_the_provider():
    from review_harness.core.calltag import CallTag
    from review_harness.domain.prompt import parse_domain_report, render_reviewer_prompt
    from review_harness.offline.provider import answer_prompt

    brief = _brief()
    prompt = render_reviewer_prompt(R, brief, CLICK_DOC)
    text = prompt.system + "\n\n" + prompt.request
    outcome = parse_domain_report(answer_prompt(text, CallTag("domain", "domain-expert-reviewer")), brief, R)
    review = outcome.report
    direct = review_document(CLICK_DOC, brief.content, R)
    assert outcome.usable and outcome.problems == []
    assert [(f.issue_type, f.severity, f.points, f.quote) for f in review.findings] == \
        [(f.issue_type, f.severity, f.points, f.quote) for f in direct.findings]
    assert review.unverified == direct.unverified


def test_parser_salvages_items_and_caps_advisory_sources():
    from review_harness.domain.prompt import parse_domain_report

    brief = _brief()
    advisory_key = "search-ranking / Workstream Learnings / Recent Post-Mortems"
    text = ('{"findings": [{"lens": "pitfall", "issue_type": "anti_pattern_present", "summary": "CTR only", '
            '"quote": "q", "section": null, "fix": null, "source_kind": "digest", "source_ref": "' + advisory_key + '"}, '
            '{"lens": "pitfall", "issue_type": "made_up", "summary": "x"}, '
            '{"lens": "technique", "issue_type": "key_claim_false", "summary": "wrong lens", "quote": null, '
            '"section": null, "fix": null, "source_kind": "digest", "source_ref": "no such section"}], '
            '"credits": ["claims_cited", "bogus"], "unverified_claims": ["A 2023 study"]}')
    outcome = parse_domain_report(text, brief, R)
    review, problems = outcome.report, outcome.problems
    assert outcome.usable  # whole JSON: single bad items do not make the answer malformed
    assert [(f.issue_type, f.lens, f.severity, f.points, f.source.kind) for f in review.findings] == [
        ("anti_pattern_present", "pitfall", "ADVISORY", 2, "digest"),
        ("key_claim_false", "benchmark", "CRITICAL", 20, "general"),
    ]
    assert problems == ["finding 2: unknown issue type 'made_up'",
                        "finding D2: source 'no such section' is not a section of the brief; cited as general knowledge",
                        "credit 'bogus' is not in the rubric"]
    assert review.credits == ["claims_cited"] and review.unverified == ["A 2023 study"]
    empty = parse_domain_report("", brief, R)
    assert empty.malformed and empty.report is None and empty.problems == ["empty answer"]
    cut = parse_domain_report(text[: text.index('"credits"')], brief, R)  # cut off after the findings
    assert cut.malformed and [f.issue_type for f in cut.report.findings] == ["anti_pattern_present", "key_claim_false"]


def test_domain_task_param_is_a_one_line_prerequisite_error():
    from review_harness.core.inspect_adapter import PrerequisiteError

    from review_harness.domain.config import domain_task_param

    with pytest.raises(PrerequisiteError) as err:
        domain_task_param("search-ranking,nope")
    assert str(err.value) == ("-T domain=search-ranking,nope: unknown domain 'nope'; choose from: "
                              "search-ranking, query-understanding, search-infra")
    assert domain_task_param("search-infra") == ["search-infra"]


def test_domain_prompt_lint_passes_with_recorded_hashes():
    from review_harness.core.lint import lint_prefixes
    from review_harness.domain.lint import lint_domain_prompts

    report = lint_prefixes("domain", lint_domain_prompts(R))
    assert report.problems == [] and [p.key for p in report.prompts] == ["domain-reviewer", "curator", "synthesis"]
    assert next(p for p in report.prompts if p.key == "domain-reviewer").instructions <= 150


def test_lens_rows_banner_and_log_record():
    from review_harness.domain.reviewer import lens_worst

    review = review_document(CLICK_DOC, _brief().content, R)
    assert lens_worst(review.findings, R) == {"technique": "MAJOR", "benchmark": "CRITICAL", "pitfall": "CRITICAL"}
    brief = _brief()
    assert brief.banner().startswith("> **Domain knowledge warnings**\n> - search-ranking: 1 conflict(s)")
    assert brief.log_record()["versions"]["search-ranking"] == "2026-11-16T09:00:00Z"


def test_domain_member_call_offline_and_degraded():
    from inspect_ai.model import get_model

    from review_harness.domain.member import domain_review

    from review_harness.core.member import RetryPolicy

    brief = _brief()
    policy = RetryPolicy(attempts=2, backoff_seconds=0, timeout_seconds=30)
    result = anyio.run(lambda: domain_review(CLICK_DOC, brief, R, model=get_model("offline/rules"), policy=policy))
    run = result.run
    assert (run.kind, run.member, run.status, run.attempts) == ("domain", "domain-expert-reviewer", "complete", 1)
    assert run.reason is None and run.problems == [] and run.prompt_version == "domain-reviewer.v1"
    assert {f.issue_type for f in result.report.findings} >= {"critical_pitfall_ignored", "benchmark_fabricated"}
    assert run.input_tokens > 0

    class Down:
        calls = 0

        async def generate(self, messages, config=None, cache=False):
            Down.calls += 1
            raise RuntimeError("provider down")

    failed = anyio.run(lambda: domain_review(CLICK_DOC, brief, R, model=Down(), policy=policy, search=False))
    assert failed.report is None and failed.run.status == "failed" and failed.run.attempts == 2 == Down.calls
    assert failed.run.reason == "model call failed: RuntimeError: provider down"
