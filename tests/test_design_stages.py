"""Stage gates as seed 004 intends (issue 22 s2): the requirements stage reviews the requirements
document, escalation targets per stage come from personas.yaml, and no stage rewrites a finding's
phase wholesale."""

from __future__ import annotations

import pytest

from review_harness.design.offline.engine import review_as_persona
from review_harness.design.personas import default_personas
from review_harness.design.prompts import render_persona_prompt
from review_harness.core.prompts import data_block
from review_harness.design.models import Severity
from test_design_review import (
    DESIGN_STAGE,
    PLAN_STAGE,
    REQUIREMENTS_STAGE,
    answer,
    context,
    group,
    ok_runs,
    pf,
    report,
    results,
    reviews_of,
    run,
    synthesis_result,
)
from review_harness.design.synthesis import synthesize_design

CONFIG = default_personas()
C, I, M = Severity.CRITICAL, Severity.IMPORTANT, Severity.MINOR

CONTRADICTORY_REQUIREMENTS = """# Checkout API: Requirements

## Requirements

- R1: The checkout API must respond within 200 ms at p99.
- R2: Every checkout must call the fraud service synchronously, which takes 800 ms at p99.
- R3: Order records must be kept for 7 years.
- R4: A card number must never be logged.
"""

BRIEF = """# Checkout API: Brief

## Problem

Checkout is slow: the p99 response time of the checkout API was 1.9 s in September (API gateway
metrics), and 6.1% of sessions that reach the payment step abandon it (product analytics, Q3).

## Users

Shoppers on the web and mobile apps, about 40,000 checkouts a day.

## Success

Cut payment-step abandonment from 6.1% to 4% within two quarters of launch, measured in product analytics.

## Prior art

We compared the hosted checkout of our payment provider and an off-the-shelf fraud gateway; both
were rejected because they cannot call our loyalty service during checkout.
"""


def review_at(stage: str, phase: str, severity: Severity = I, config=CONFIG):
    """One finding of `phase` from the stage's first persona, synthesized at `stage`."""
    personas = CONFIG.active(stage)
    lead = personas[0]
    reports = {p: report(p, [pf("The finding", severity, phase)] if p == lead else []) for p in personas}
    ctx = context(personas=personas)
    ctx.stage = stage
    return synthesize_design(ctx, results(reports, ok_runs(personas), personas),
                             synthesis_result(answer(group(f"{lead}-001", phase=phase))), config)


@pytest.mark.parametrize(("stage", "phase", "verdict", "target"), [
    ("requirements", "survey", "escalate", "survey"),  # a survey gap sends the requirements back to research
    ("requirements", "calibrate", "proceed", None),  # a flaw of the requirements under review: fix them here
    ("design", "survey", "escalate", "survey"),
    ("design", "calibrate", "escalate", "calibrate"),
    ("design", "design", "proceed", None),
    ("design", "plan", "proceed", None),
    ("plan", "design", "escalate", "design"),  # a design flaw found at the plan stage goes back to design
    ("plan", "calibrate", "escalate", "calibrate"),
    ("plan", "plan", "proceed", None),
])
def test_escalation_targets_follow_the_stage(stage, phase, verdict, target):
    review = review_at(stage, phase)
    assert (review.verdict, review.escalation_target) == (verdict, target)
    assert review.findings[0].primary_phase == phase  # never rewritten by the stage
    if verdict == "escalate":
        assert CONFIG.phases[target].action in review.verdict_reasoning
        assert f"the {CONFIG.stage(stage).reviewed_noun} cannot be fixed" in review.verdict_reasoning.lower()


def test_a_critical_flaw_of_the_reviewed_document_revises_at_every_stage():
    for stage in ("requirements", "design", "plan"):
        own = CONFIG.stage(stage).own_phase
        review = review_at(stage, own, C)
        assert (review.verdict, review.escalation_target) == ("revise", None), stage


def test_escalation_targets_are_read_from_personas_yaml():
    data = CONFIG.model_dump()
    data["stages"]["plan"]["escalate"] = ["survey"]  # a team that carries design flaws forward instead
    config = type(CONFIG).model_validate(data)
    assert review_at("plan", "design", config=config).verdict == "proceed"
    assert review_at("plan", "design").verdict == "escalate"
    data["stages"]["design"]["escalate"] = ["calibrate", "survey"]
    with pytest.raises(ValueError, match="escalate must list phases upstream of design, earliest first"):
        type(CONFIG).model_validate(data)
    data["stages"]["design"]["escalate"] = ["plan"]
    with pytest.raises(ValueError, match="upstream of design"):
        type(CONFIG).model_validate(data)


def test_the_stages_and_their_documents_match_the_seed():
    assert CONFIG.active("requirements") == REQUIREMENTS_STAGE
    assert CONFIG.active("design") == DESIGN_STAGE and CONFIG.active("plan") == PLAN_STAGE
    assert [CONFIG.stage(s).reviews for s in ("requirements", "design", "plan")] == ["requirements", "design", "design"]
    assert [CONFIG.stage(s).escalate for s in ("requirements", "design", "plan")] == [
        ["survey"], ["survey", "calibrate"], ["survey", "calibrate", "design"]]


def test_the_requirements_stage_prompt_reviews_the_requirements_document_against_the_brief():
    brief = "# Brief\n\nCustomers abandon slow checkouts.\n"
    prompt = render_persona_prompt("requirement-auditor", CONFIG, stage="requirements", design=brief,
                                   requirements=CONTRADICTORY_REQUIREMENTS, topic="t")
    assert "Under review: the requirements document (<requirements>), against its brief (<brief>)." in prompt.documents
    assert data_block(prompt.text, "<requirements>", "</requirements>").strip() == CONTRADICTORY_REQUIREMENTS.strip()
    assert data_block(prompt.text, "<brief>", "</brief>").strip() == brief.strip()
    assert prompt.documents.index("\n<brief>\n") < prompt.documents.index("\n<requirements>\n")  # reviewed last
    assert "a problem in it is a calibrate gap (calibrate)" in prompt.system
    assert "- survey: Survey gap. Go back to research. This is upstream of the requirements document" in prompt.system
    plan = render_persona_prompt("edge-case-prober", CONFIG, stage="plan", design="# Plan\n", requirements="# R\n",
                                 topic="t")
    assert "- design: Design flaw. Revise the design. This is upstream of the implementation plan" in plan.system


def test_offline_findings_keep_their_own_phase_at_the_requirements_stage():
    from test_design_review import GOLD_FIXTURES

    case = GOLD_FIXTURES / "deploy-cli-brief"
    brief, moscow = (case / "design.md").read_text(), (case / "requirements.md").read_text()
    phases = {f.title: f.phase for p in REQUIREMENTS_STAGE for f in review_as_persona(p, "requirements", brief, moscow).findings}
    assert phases["Problem rests on anecdotes, not data"] == "survey"
    assert phases["No look at existing tools before deciding to build"] == "survey"
    assert phases["Scope is not prioritised"] == "calibrate"
    assert set(phases.values()) <= {"survey", "calibrate"}  # no design flaws in a requirements review


def test_a_requirements_stage_review_reports_a_numeric_contradiction_as_a_calibrate_gap(tmp_path):
    requirements = tmp_path / "checkout-requirements.md"
    requirements.write_text(CONTRADICTORY_REQUIREMENTS)
    brief = tmp_path / "brief.md"
    brief.write_text(BRIEF)
    log = run(tmp_path / "logs", stage="requirements", requirements=str(requirements), design=str(brief))
    assert log.status == "success" and log.samples[0].error is None
    review = reviews_of(log)["checkout-requirements"]
    assert review.stage == "requirements" and review.reviewed == "requirements"
    assert review.personas == REQUIREMENTS_STAGE
    [conflict] = [f for f in review.findings if f.title == "Requirements R1 and R2 cannot both hold"]
    assert conflict.primary_phase == "calibrate" and conflict.severity == C
    assert "requirement-auditor" in conflict.reviewers
    assert "200 ms" in conflict.issue and "800 ms" in conflict.issue
    assert conflict.evidence_verified is True
    # a flaw of the requirements under review: revise them, nothing upstream to escalate to
    assert (review.verdict, review.escalation_target) == ("revise", None)
    summary = log.samples[0].output.completion
    assert f"**Requirements document:** {requirements} (under review)" in summary
    assert f"**Brief:** {brief}" in summary


def test_without_a_brief_a_requirements_review_still_runs_and_asks_for_the_problem(tmp_path):
    requirements = tmp_path / "checkout-requirements.md"
    requirements.write_text(CONTRADICTORY_REQUIREMENTS)
    review = reviews_of(run(tmp_path / "logs", stage="requirements", requirements=str(requirements)))[
        "checkout-requirements"]
    titles = {f.title: f.primary_phase for f in review.findings}
    assert titles["Requirements R1 and R2 cannot both hold"] == "calibrate"
    assert titles["The problem being solved is never stated"] == "survey"  # nothing says why: back to research
    assert (review.verdict, review.escalation_target) == ("escalate", "survey")


def test_at_the_requirements_stage_the_requirements_document_is_required(tmp_path):
    from review_harness.core.inspect_adapter import PrerequisiteError
    from test_design_review import design_review_task

    brief = tmp_path / "brief.md"
    brief.write_text("# Brief\n\nSlow checkouts.\n")
    with pytest.raises(PrerequisiteError, match=r"^-T requirements=PATH is required at the requirements stage: it is "
                                                r"the requirements document under review$"):
        design_review_task()(stage="requirements", design=str(brief), output_dir=str(tmp_path))
