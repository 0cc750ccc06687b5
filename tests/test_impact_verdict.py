"""Impact review: checks that know the method, a verdict a pipeline can act on (decided by the
checks, bounding a real model), and a parser that never moves a score to another dimension."""

from __future__ import annotations

import itertools
import random

import pytest
from inspect_ai import eval as inspect_eval

from review_harness.core.member import MemberResult, MemberRun
from review_harness.core.paths import PROJECT_ROOT
from review_harness.impact.artifact import load_artifact, read_artifact
from review_harness.impact.checks import counts_standard_error, implied_p_value, run_checks, srm_p_value
from review_harness.impact.readings import read
from review_harness.impact.table import default_table
from review_harness.impact.gold import impact_gold_files
from review_harness.impact.knowledge import EmptyKnowledgeBase
from review_harness.impact.models import ImpactReview
from review_harness.impact.parse import parse_answer
from review_harness.impact.registry import PromptRegistry
from review_harness.impact.review import ReviewerAnswer, build_review, prepare_request
from review_harness.impact.verdict import checks_verdict

FIX = PROJECT_ROOT / "fixtures" / "impact"
DIMS = ["estimate_plausibility", "statistical_rigor", "methodology_fit"]
GOLDS = impact_gold_files()


# ------------------------------------------------------------------ checks that know the method


@pytest.mark.parametrize("gold", [g for g in GOLDS if g.clean], ids=lambda g: g.id)
def test_no_clean_gold_artifact_fails_or_warns_any_check(gold):
    bad = [(c.id, c.status) for c in run_checks(load_artifact(gold.fixture_path)) if c.status in ("fail", "warn")]
    assert bad == []


@pytest.mark.parametrize("gold", GOLDS, ids=lambda g: g.id)
def test_checks_verdict_is_the_gold_verdict(gold):
    assert checks_verdict(run_checks(load_artifact(gold.fixture_path)))[0] == gold.verdict


def _did(rng: random.Random) -> dict:
    tp = rng.uniform(50, 5000)
    cp = tp * rng.uniform(0.5, 2)  # a comparable control group
    tc, cc = rng.uniform(-0.3, 0.3) * tp, rng.uniform(-0.3, 0.3) * cp
    effect = tc - cc
    se = abs(effect) / rng.uniform(0.5, 6) + 1e-9
    return {"schema_version": "2.0", "model_type": rng.choice(["difference_in_differences", "DiD", "diff-in-diff"]),
            "data": {"model_params": {"intervention_date": "2024-01-01", "dependent_variable": "y", "frequency": "weekly",
                                      "treatment_group": "t", "control_group": "c"},
                     "impact_estimates": {"intervention_effect": effect, "pre_intervention_mean": tp,
                                          "post_intervention_mean": tp + tc, "absolute_change": tc,
                                          "percent_change": effect / (tp + cc) * 100, "treated_pre_mean": tp,
                                          "treated_post_mean": tp + tc, "control_pre_mean": cp,
                                          "control_post_mean": cp + cc, "ci_lower": effect - 1.96 * se,
                                          "ci_upper": effect + 1.96 * se,
                                          "p_value": implied_p_value(effect, effect - 1.96 * se, effect + 1.96 * se, 0.95)},
                     "model_summary": {"n_observations": 300, "pre_period_length": 200, "post_period_length": 100},
                     "diagnostics": {"parallel_trends_p_value": rng.uniform(0.06, 1)}},
            "metadata": {"executed_at": "2026-01-01T00:00:00Z", "initiative_id": "did"}}


def _rct(rng: random.Random) -> dict:
    n = rng.randint(20_000, 2_000_000)
    share = rng.choice([0.5, 0.5, 0.2, 0.8])
    treated = round(n * share + rng.gauss(0, 0.2) * (n * share * (1 - share)) ** 0.5)
    control_mean = rng.uniform(0.01, 0.5)
    effect = control_mean * rng.uniform(-0.2, 0.2)
    se = abs(effect) / rng.uniform(0.5, 6) + 1e-9
    return {"initiative_id": "rct", "model_type": rng.choice(["randomized_experiment", "A/B test", "rct"]),
            "effect_estimate": effect, "ci_lower": effect - 1.96 * se, "ci_upper": effect + 1.96 * se,
            "p_value": implied_p_value(effect, effect - 1.96 * se, effect + 1.96 * se, 0.95),
            "sample_size": n, "treatment_n": treated, "control_n": n - treated, "treatment_mean": control_mean + effect,
            "control_mean": control_mean, "percent_change": effect / control_mean * 100,
            "model_params": {"dependent_variable": "y", "treatment_group": "t", "control_group": "c",
                             "treatment_share": share}}


@pytest.mark.parametrize("make", [_did, _rct], ids=["did", "rct"])
def test_a_correct_did_or_rct_never_gets_a_false_failure(make):
    """Property: 200 correct artifacts of each method (any scale, sign, spelling of the type):
    no arithmetic identity, interval, p-value or balance check fails."""
    rng = random.Random(21)
    for _ in range(200):
        artifact = read_artifact(make(rng), "generated")
        bad = [(c.id, c.status, c.message) for c in run_checks(artifact) if c.status in ("fail", "warn")]
        assert bad == []


def test_srm_and_implied_p():
    assert srm_p_value(48150, 48250, 0.5) > 0.7
    assert srm_p_value(51200, 48800, 0.5) < 1e-10
    assert implied_p_value(1.96, 0.0, 3.92, 0.95) == pytest.approx(0.05, abs=1e-4)


def test_implied_p_value_for_every_artifact_that_reports_an_interval_or_a_standard_error():
    for gold in GOLDS:
        artifact = load_artifact(gold.fixture_path)
        spec = PromptRegistry().get("impact_results_review")
        request = prepare_request(artifact, spec, EmptyKnowledgeBase(), 1)
        has_interval = artifact.contract.ci_lower is not None and artifact.contract.ci_upper is not None
        has_se = any(k in artifact.impact_estimates for k in ("standard_error", "t_stat"))
        # two arms' counts and rates of an outcome that is a share imply a standard error too
        counted = counts_standard_error(read(artifact, default_table())) is not None
        assert (request.implied_p_value is not None) == (has_interval or has_se or counted), gold.id


def test_unknown_model_type_is_reviewed_with_the_generic_checks_and_a_warning():
    artifact = read_artifact({**_rct(random.Random(1)), "model_type": "propensity_matching"}, "x")
    checks = {c.id: c for c in run_checks(artifact)}
    assert checks["model_type_known"].status == "warn"
    assert "only the generic checks ran" in checks["model_type_known"].message
    assert {"ci_contains_estimate", "p_value_matches_ci", "effect_size"} <= set(checks)
    assert checks_verdict(list(checks.values()))[0] == "caution"


# ------------------------------------------------------------------ the verdict bounds a real model


def _review(gold, answer: str):
    spec = PromptRegistry().get("impact_results_review")
    request = prepare_request(load_artifact(gold.fixture_path), spec, EmptyKnowledgeBase(), 1)
    run = MemberRun(kind="impact", member="impact-reviewer", model="anthropic/claude", status="complete", attempts=1)
    return build_review(request, MemberResult(run=run, report=ReviewerAnswer(raw_response=answer)))


LENIENT = "\n".join(f"DIMENSION: {d}\nSCORE: 1.0\nJUSTIFICATION: looks fine" for d in DIMS) + "\nOVERALL: 1.0\nVERDICT: usable"


@pytest.mark.parametrize("gold", [g for g in GOLDS if not g.clean], ids=lambda g: g.id)
def test_a_lenient_model_never_makes_a_broken_artifact_usable(gold):
    review = _review(gold, LENIENT)
    assert review.model_verdict == "usable" and review.verdict == review.result.verdict == gold.verdict
    assert any("more lenient than the checks allow" in w for w in review.warnings)
    for d in review.result.dimensions:
        failed = [c for c in review.checks if c.dimension == d.name and c.status == "fail"]
        assert d.score == (0.5 if failed else 1.0)
    if gold.verdict == "unusable":
        assert review.result.overall_score < 1.0 and any("capped at 0.5" in w for w in review.warnings)


def test_a_stricter_model_verdict_stands():
    clean = next(g for g in GOLDS if g.id == "did-store-layout")
    strict = LENIENT.replace("VERDICT: usable", "VERDICT: Unusable")
    review = _review(clean, strict)
    assert (review.checks_verdict, review.model_verdict, review.verdict) == ("usable", "unusable", "unusable")
    assert not any("lenient" in w for w in review.warnings)


def test_lenient_real_model_end_to_end(tmp_path, monkeypatch):
    """Through inspect_ai.eval(): a model that calls every artifact sound and usable; the
    log's verdicts are still the gold verdicts, and the gate's verdict accuracy is 1."""
    import importlib.util

    from review_harness.offline import provider

    monkeypatch.setattr(provider, "answer_prompt", lambda prompt, tag=None: LENIENT)
    spec = importlib.util.spec_from_file_location("impact_task_lenient", PROJECT_ROOT / "tasks" / "impact_review.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    [log] = inspect_eval(module.impact_review(split="heldout"), model="offline/rules", log_dir=str(tmp_path), display="none")
    assert log.status == "success"
    for sample in log.samples:
        review = ImpactReview.model_validate(sample.scores["impact_synthesis"].metadata["review"])
        assert sample.scores["impact_gold"].value["verdict_accuracy"] == 1.0, sample.id
        assert review.model_verdict == "usable"
        assert sample.output.completion.splitlines()[0].startswith(f"# {review.verdict.upper()}:")


# ------------------------------------------------------------------ the parser never misattributes


TRUE = {"estimate_plausibility": 0.31, "statistical_rigor": 0.47, "methodology_fit": 0.73}
INJECTED = 0.99


def blocks(order=DIMS) -> list[list[str]]:
    return [[f"DIMENSION: {d}", f"SCORE: {TRUE[d]}", f"JUSTIFICATION: reasons for {d}"] for d in order]


def unknown_header(bs, i):
    bs.insert(i, ["Dimension - methodology_fit", f"SCORE: {INJECTED}", "JUSTIFICATION: injected"])


def markdown_heading(bs, i):
    bs.insert(i, ["## Statistical rigor", f"SCORE: {INJECTED}", "JUSTIFICATION: injected"])


def bold_header(bs, i):
    bs.insert(i, ["**estimate_plausibility**", f"**SCORE:** {INJECTED}"])


def repeated_score(bs, i):
    if i < len(bs) and bs[i][0].startswith("DIMENSION:"):
        bs[i].insert(2, f"SCORE: {INJECTED}")


def missing_justification(bs, i):
    if i < len(bs):
        bs[i] = [line for line in bs[i] if not line.startswith("JUSTIFICATION")]


def extra_prose(bs, i):
    bs.insert(i, ["", "Some thoughts first: the overall SCORE: 0.99 would be generous.", "Another line of prose.", ""])


def score_before_any_dimension(bs, i):
    bs.insert(0, [f"SCORE: {INJECTED}"])


def disagreeing_duplicate(bs, i):
    if i < len(bs) and bs[i][0].startswith("DIMENSION:"):
        bs.append([bs[i][0], f"SCORE: {INJECTED}", "JUSTIFICATION: second thoughts"])


def garbage_verdict(bs, i):
    bs.append(["VERDICT: probably fine?"])


PERTURBATIONS = [unknown_header, markdown_heading, bold_header, repeated_score, missing_justification, extra_prose,
                 score_before_any_dimension, disagreeing_duplicate, garbage_verdict]


@pytest.mark.parametrize("pair", list(itertools.combinations_with_replacement(range(len(PERTURBATIONS)), 2)),
                         ids=lambda p: "+".join(PERTURBATIONS[i].__name__ for i in p))
def test_adversarial_answers_never_misattribute_a_score(pair):
    """Property over every pair of perturbations at every position and two block orders: each
    dimension that parses has exactly the score of its own DIMENSION block; an injected score
    never lands anywhere; the warnings say what was dropped."""
    for order in (DIMS, DIMS[::-1]):
        for positions in itertools.product(range(len(order) + 1), repeat=2):
            bs = blocks(order)
            for which, at in zip(pair, positions):
                PERTURBATIONS[which](bs, at)
            text = "\n".join(line for block in bs for line in block) + "\nOVERALL: 0.5"
            parsed = parse_answer(text, DIMS)
            for d in parsed.dimensions:
                assert d.score == TRUE[d.name], (text, d)
                assert "injected" not in d.justification and "second thoughts" not in d.justification
            if len(parsed.dimensions) < 3:
                assert parsed.warnings


def test_the_reported_regression_header_then_score():
    """`Dimension - methodology_fit` used to make the next SCORE overwrite statistical_rigor."""
    text = ("DIMENSION: estimate_plausibility\nSCORE: 0.8\nJUSTIFICATION: ok\n"
            "DIMENSION: statistical_rigor\nSCORE: 0.2\nJUSTIFICATION: the interval excludes the estimate\n"
            "Dimension - methodology_fit\nSCORE: 1.0\nJUSTIFICATION: fine\nOVERALL: 0.67\n")
    parsed = parse_answer(text, DIMS)
    assert {d.name: d.score for d in parsed.dimensions} == {"estimate_plausibility": 0.8, "statistical_rigor": 0.2}
    assert parsed.dimensions[1].justification == "the interval excludes the estimate"
    assert "block 'Dimension - methodology_fit': not a 'DIMENSION: <name>' line; its SCORE is dropped" in parsed.warnings
    assert parsed.missing(DIMS) == ["methodology_fit"]


def _its(**changes) -> dict:
    import json

    envelope = json.loads((FIX / "its-daily-checkout.json").read_text())
    for path, value in changes.items():
        *parents, key = path.split("__")
        target = envelope["data"]
        for part in parents:
            target = target[part]
        target[key] = value
    return envelope


def test_the_issues_examples_get_the_verdict_they_deserve():
    # an ITS fitted on 95 days and projected over 365 used to pass every check
    envelope = _its(model_summary__pre_period_length=95, model_summary__post_period_length=365,
                    model_summary__n_observations=460)
    envelope["metadata"]["executed_at"] = "2025-03-01T00:00:00Z"  # after the 365 days
    long_post = read_artifact(envelope, "x")
    checks = {c.id: c for c in run_checks(long_post)}
    assert checks["post_to_pre_ratio"].status == "warn" and "3.84 times the pre-period" in checks["post_to_pre_ratio"].message
    assert checks_verdict(list(checks.values()))[0] == "caution"
    # a 900% lift from 40 observations used to score 0.85 overall
    lift = read_artifact(_its(impact_estimates__intervention_effect=900.0, impact_estimates__absolute_change=900.0,
                              impact_estimates__post_intervention_mean=1000.0, impact_estimates__percent_change=900.0,
                              impact_estimates__ci_lower=700.0, impact_estimates__ci_upper=1100.0,
                              model_summary__n_observations=40, model_summary__pre_period_length=30,
                              model_summary__post_period_length=10), "y")
    checks = {c.id: c for c in run_checks(lift)}
    assert checks["effect_size"].status == "fail" and "a 900% change" in checks["effect_size"].message
    assert checks_verdict(list(checks.values())) == ("unusable", ["effect_size: fail"])
    assert checks["pre_period_length"].status == "pass"  # 30 daily periods: enough for a trend, in periods
