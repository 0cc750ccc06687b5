"""Impact review: scores that order artifacts. Every flaw the plant operators define, planted into
every gold artifact that is not already unusable, lowers the overall score against its clean
original; and over the gold sets with their planted variants, no unusable result scores above a
usable one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from review_harness.core.member import MemberResult, MemberRun
from review_harness.core.plant import kind_table, plant
from review_harness.impact.artifact import read_artifact
from review_harness.impact.gold import impact_gold_files
from review_harness.impact.knowledge import EmptyKnowledgeBase
from review_harness.impact.registry import PromptRegistry
from review_harness.impact.review import ReviewerAnswer, build_review, prepare_request
from review_harness.impact.rules import review_prompt

ORIGINALS = [g for g in impact_gold_files() if g.verdict != "unusable"]


def offline_review(path: Path):
    spec = PromptRegistry().get("impact_results_review")
    request = prepare_request(read_artifact(json.loads(path.read_text()), path.name), spec, EmptyKnowledgeBase(), 1)
    run = MemberRun(kind="impact", member="impact-reviewer", model="offline/rules", status="complete", attempts=1)
    answer = ReviewerAnswer(raw_response=review_prompt(request.system + "\n\n" + request.user))
    return build_review(request, MemberResult(run=run, report=answer))


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    """(operator, original review, planted review) for every operator that applies to every
    original, over two seeds (the operators draw their numbers at random)."""
    originals = {str(g.fixture_path): offline_review(g.fixture_path) for g in ORIGINALS}
    out = []
    for seed in (0, 1):
        where = tmp_path_factory.mktemp(f"planted{seed}")
        plant("impact", [g.fixture_path for g in ORIGINALS], where, seed=seed)
        for gold in sorted((where / "gold" / "impact").glob("*.yaml")):
            record = yaml.safe_load(gold.read_text())
            copy = offline_review(where / "fixtures" / "impact" / record["fixture"])
            out.append((record["planted"]["operator"], originals[record["planted"]["source"]], copy))
    return out


def test_every_operator_plants_somewhere(planted):
    operators = {op.id for op in kind_table("impact", ()).select(None)}
    assert {op for op, _, _ in planted} == operators


def test_a_planted_flaw_always_lowers_the_overall_against_its_clean_original(planted):
    higher = [(op, original.result.initiative_id, original.result.overall_score, copy.result.overall_score)
              for op, original, copy in planted if not copy.result.overall_score < original.result.overall_score]
    assert higher == []
    order = {"usable": 0, "caution": 1, "unusable": 2}
    assert all(order[copy.verdict] >= order[original.verdict] for _, original, copy in planted)


def test_no_unusable_result_scores_above_a_usable_one_with_the_planted_variants(planted):
    reviews = [offline_review(g.fixture_path) for g in impact_gold_files()] + [copy for _, _, copy in planted]
    unusable = [r.result.overall_score for r in reviews if r.verdict == "unusable"]
    usable = [r.result.overall_score for r in reviews if r.verdict == "usable"]
    assert unusable and usable and max(unusable) < min(usable)


PLANTED_VARIANTS = {  # a planted variant of a published study -> the study
    "planted-duflo-prose-pretrend-divergence": "duflo-2001-inpres-school-construction",
    "planted-oregon-prose-split-mismatch": "baicker-2013-oregon-depression",
    "planted-oregon-interval-other-units": "baicker-2013-oregon-glycated-hemoglobin",
    "planted-oregon-p-against-interval": "baicker-2013-oregon-depression",
}


def test_the_planted_variants_of_real_studies_score_below_the_studies():
    golds = {g.id: g for g in impact_gold_files()}
    assert {g for g in golds if g.startswith("planted-")} == set(PLANTED_VARIANTS)
    for variant, study in PLANTED_VARIANTS.items():
        flawed, clean = offline_review(golds[variant].fixture_path), offline_review(golds[study].fixture_path)
        assert flawed.verdict == golds[variant].verdict != "usable" and clean.verdict == "usable"
        assert flawed.result.overall_score < clean.result.overall_score, variant
