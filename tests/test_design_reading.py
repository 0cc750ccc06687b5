"""The offline design reviewer reads a design as an engineer does, on documents written for these
tests (none of them is a gold fixture or a real design): figures compared by what they measure,
priorities however written, ids of any shape, words in their context, secrets, estimates against
scope, prior art with evidence, plans with relative dates, escalation only on substance, and
findings that stay apart when they only share a sentence.

Each case states the reading in general terms and checks it on more than one wording, and on a
near miss that must not be reported.
"""

from __future__ import annotations

import pytest

from review_harness.core.member import MemberResult, MemberRun
from review_harness.design.grouping import group_findings
from review_harness.design.models import PersonaFinding, PersonaReport, Severity
from review_harness.design.offline.document import document
from review_harness.design.offline.engine import review_as_persona
from review_harness.design.offline.requirements import extract_requirements, priority_from
from review_harness.design.personas import default_personas
from review_harness.design.render import render_summary
from review_harness.design.synthesis import ReviewContext, synthesize_design

CONFIG = default_personas()


def review(design: str, requirements: str, stage: str = "design", personas: list[str] | None = None):
    personas = personas or CONFIG.active(stage)
    results = {p: MemberResult(MemberRun(kind="design", member=p, status="complete"),
                               review_as_persona(p, stage, design, requirements)) for p in personas}
    context = ReviewContext(topic="t", stage=stage, personas=personas, design_path="design.md",
                            requirements_path="requirements.md", date="2026-01-01", design_text=design,
                            requirements_text=requirements, reviewed="requirements" if stage == "requirements" else "design")
    return synthesize_design(context, results, None, CONFIG)


def titles(report: PersonaReport) -> list[str]:
    return [f.title for f in report.findings]


# ------------------------------------------------------------------------------ figures by what they measure

LATENCY_REQS = "# Checkout — Requirements\n\n## Requirements\n\n- R1: The checkout API must respond within 200 ms at p99.\n- R2: Orders are kept for 7 years.\n"


@pytest.mark.parametrize("sentence", [
    "Each order is validated synchronously against the fraud service, which takes about 800 ms.",
    "Before responding, the gateway makes a blocking call to the ledger that takes 1.5 seconds.",
])
def test_a_latency_limit_against_a_slower_synchronous_step_of_the_design(sentence):
    design = f"# Checkout — Design\n\n## Flow\n\n{sentence}\n\n## Failure handling\n\nErrors are retried with backoff.\n"
    report = review_as_persona("requirement-auditor", "design", design, LATENCY_REQS)
    hit = [f for f in report.findings if f.title == "Design contradicts R1"]
    assert hit and hit[0].severity == Severity.CRITICAL, titles(report)
    assert hit[0].evidence in design and ("800 ms" in hit[0].evidence or "1.5 seconds" in hit[0].evidence)


def test_an_asynchronous_step_or_a_faster_one_breaks_no_latency_limit():
    for sentence in ("Each order is validated asynchronously against the fraud service, which takes about 800 ms.",
                     "Each order is validated synchronously against the fraud service, which takes about 40 ms."):
        design = f"# Checkout — Design\n\n## Flow\n\n{sentence}\n"
        report = review_as_persona("requirement-auditor", "design", design, LATENCY_REQS)
        assert "Design contradicts R1" not in titles(report), sentence


def test_one_requirement_that_contradicts_itself():
    reqs = ("# Payments — Requirements\n\n## Requirements\n\n- R1: The API must respond within 200 ms; every request is "
            "validated synchronously by the ledger service, which takes 800 ms.\n- R2: Every payment is logged.\n")
    report = review_as_persona("requirement-auditor", "requirements", "", reqs)
    hit = [f for f in report.findings if f.title == "Requirement R1 contradicts itself"]
    assert hit and hit[0].phase == "calibrate" and hit[0].severity == Severity.CRITICAL, titles(report)


@pytest.mark.parametrize("req,design_line", [
    ("- R2: Password reset tokens expire after 15 minutes.", "Reset tokens are valid for 24 hours."),
    ("- R2: Sessions time out after 30 minutes of inactivity.", "The session timeout is 12 hours, so users stay signed in."),
])
def test_one_measured_thing_with_two_values_across_requirements_and_design(req, design_line):
    reqs = f"# Accounts — Requirements\n\n## Requirements\n\n- R1: Users sign in with email.\n{req}\n"
    design = f"# Accounts — Design\n\n## Sign-in\n\n{design_line}\n"
    report = review_as_persona("requirement-auditor", "design", design, reqs)
    assert any(f.title == "Design contradicts R2" and f.evidence in design for f in report.findings), titles(report)


def test_different_things_measured_are_not_one_figure():
    reqs = "# Accounts — Requirements\n\n## Requirements\n\n- R1: Password reset tokens expire after 15 minutes.\n"
    design = "# Accounts — Design\n\n## Tokens\n\nRefresh tokens are valid for 30 days.\n"
    report = review_as_persona("requirement-auditor", "design", design, reqs)
    assert "Design contradicts R1" not in titles(report)


def test_a_design_that_gives_one_limit_two_values():
    design = ("# Links — Design\n\n## Sharing\n\nShare links expire after 7 days.\n\n## Cleanup\n\n"
              "A nightly job removes share links; a share link expires after 30 days.\n")
    report = review_as_persona("requirement-auditor", "design", design, "# R\n\n## Requirements\n\n- R1: Links can be shared.\n")
    assert any(f.title == "The design gives one expiry two values" for f in report.findings), titles(report)


# ------------------------------------------------------------------------------ priorities however written

@pytest.mark.parametrize("text,expected", [
    ("R3 (Should): the export must include archived rows.", "should"),
    ("R4 [Could] Dark mode for the admin pages must be offered.", "could"),
    ("IMP-2: Priority: Must — audit every change.", "must"),
    ("R5: Weekly digest email — Won't", None),
    ("R6: Exports must finish within an hour.", "must"),
])
def test_an_inline_priority_label_outranks_the_modal_verb(text, expected):
    got = priority_from(text, "Requirements")
    assert got == (expected or got)
    if expected is None:
        assert got != "must"


def test_inline_labels_are_counted_as_written():
    items = [f"- R{n} (Must): the tool must do thing {n} for every team." for n in range(1, 7)]
    items += ["- R7 (Should): the tool must also export a weekly summary.", "- R8 (Could): the tool must offer a dark theme."]
    reqs = "# Tool — Requirements\n\n## Requirements\n\n" + "\n".join(items) + "\n"
    rs = extract_requirements(document("requirements", reqs))
    assert [r.priority for r in rs.reqs].count("must") == 6
    report = review_as_persona("product-strategist", "requirements", "", reqs)
    said = " ".join(f.issue for f in report.findings) + " ".join(report.checked_and_fine)
    assert "6 of 8" in said and "7 of 8" not in said


# ------------------------------------------------------------------------------ ids of any shape

@pytest.mark.parametrize("line", ["R1: Search must be fast.", "- IMP-4: Onboarding must be intuitive.", "- **REQ-12** The console must be user-friendly."])
def test_the_vague_word_check_reads_requirements_whose_id_has_a_digit(line):
    reqs = f"# Console — Requirements\n\n## Requirements\n\n{line}\n- R9: Exports finish within 10 minutes.\n"
    report = review_as_persona("requirement-auditor", "requirements", "", reqs)
    vague = [f for f in report.findings if f.title == "Requirement cannot be verified as written"]
    assert len(vague) == 1 and vague[0].evidence in reqs, titles(report)


# ------------------------------------------------------------------------------ words in context

FAILURES = "\n\n## Failure handling\n\nErrors are logged and alerted on.\n"


def test_a_function_call_is_not_a_remote_call():
    for sentence in ("The admission plugin will call generic PodSpec validation before it accepts the object.",
                     "The scheduler calls the plugin's Filter method for each node."):
        design = f"# Admission — Design\n\n## Flow\n\n{sentence}" + FAILURES
        report = review_as_persona("edge-case-prober", "design", design, LATENCY_REQS)
        assert "Remote calls have no timeout" not in titles(report), sentence


def test_a_call_over_the_network_that_the_caller_waits_for_needs_a_timeout():
    for sentence in ("On every request the gateway calls the payments API and waits for its answer.",
                     "Before responding, the service sends a request to the partner endpoint."):
        design = f"# Gateway — Design\n\n## Flow\n\n{sentence}" + FAILURES
        report = review_as_persona("edge-case-prober", "design", design, LATENCY_REQS)
        assert "Remote calls have no timeout" in titles(report), sentence


def test_a_work_queue_is_not_a_message_broker():
    design = ("# Controller — Design\n\n## Reconcile\n\nThe controller adds each changed Job to its work queue; "
              "failed items are returned to the queue and retried.\n")
    report = review_as_persona("edge-case-prober", "design", design, LATENCY_REQS)
    assert "Queue consumers have no poison-message or backlog handling" not in titles(report)
    broker = "# Billing — Design\n\n## Flow\n\nOrders are published to a Kafka topic, and the billing worker consumes the topic.\n"
    report = review_as_persona("edge-case-prober", "design", broker, LATENCY_REQS)
    assert "Queue consumers have no poison-message or backlog handling" in titles(report)


def test_a_component_depending_on_another_is_not_a_team_dependency():
    design = "# Jobs — Design\n\n## Model\n\nThe Job controller depends on Pods, and the status depends on which pods finished.\n"
    report = review_as_persona("assumption-hunter", "design", design, LATENCY_REQS)
    assert "Dependency on another team or system taken as given" not in titles(report)
    team = "# Jobs — Design\n\n## Tokens\n\nWe rely on the Identity team to provide the token exchange API by March.\n"
    report = review_as_persona("assumption-hunter", "design", team, LATENCY_REQS)
    assert "Dependency on another team or system taken as given" in titles(report)


# ------------------------------------------------------------------------------ secrets

@pytest.mark.parametrize("sentence,kind", [
    ("Reset tokens are stored in plain text in the users table so support can read them.", "plain text"),
    ("The reset token is the user id concatenated with the current timestamp.", "guessable"),
    ("Session tokens are generated from an incrementing counter per account.", "guessable"),
])
def test_a_plaintext_or_predictable_token_is_critical(sentence, kind):
    design = f"# Accounts — Design\n\n## Password reset\n\n{sentence}\n"
    report = review_as_persona("edge-case-prober", "design", design, LATENCY_REQS)
    hit = [f for f in report.findings if f.title.startswith("The ") and kind in f.title]
    assert hit and hit[0].severity == Severity.CRITICAL and hit[0].evidence in design, titles(report)


def test_a_random_hashed_token_is_fine():
    design = ("# Accounts — Design\n\n## Password reset\n\nReset tokens are 256-bit values from a cryptographically secure "
              "random generator; we store only their SHA-256 hash in the users table.\n")
    report = review_as_persona("edge-case-prober", "design", design, LATENCY_REQS)
    assert not [f for f in report.findings if "token" in f.title.lower()], titles(report)


# ------------------------------------------------------------------------------ estimates, prior art, plans

SCOPE_REQS = "# Notify — Requirements\n\n## Requirements\n\n" + "\n".join(
    f"- R{n}: Notifications must support channel {n} with delivery receipts." for n in range(1, 7)) + "\n"


def test_an_estimate_below_its_scope():
    design = ("# Notify — Design\n\n## Components\n\nA new delivery service and a new template service.\n\n"
              "## Plan\n\nOne engineer, two days, to build and ship it.\n")
    report = review_as_persona("feasibility-skeptic", "design", design, SCOPE_REQS)
    hit = [f for f in report.findings if f.title == "Estimate is far below the scope it covers"]
    assert hit and "2 person-days" in hit[0].issue, titles(report)
    ample = design.replace("One engineer, two days", "Two engineers for six weeks")
    assert "Estimate is far below the scope it covers" not in titles(review_as_persona("feasibility-skeptic", "design", ample, SCOPE_REQS))


def test_a_home_built_relay_needs_named_alternatives():
    claim = "# Notify — Design\n\n## Email\n\nWe will build our own mail relay to send notifications. We weighed it against the alternatives.\n"
    report = review_as_persona("prior-art-scout", "design", claim, SCOPE_REQS)
    assert "Custom build chosen with no alternatives weighed" in titles(report)
    assert not any("weighed against" in c for c in report.checked_and_fine)
    named = claim.replace("We weighed it against the alternatives.", "We chose it instead of SendGrid or Amazon SES for cost.")
    report = review_as_persona("prior-art-scout", "design", named, SCOPE_REQS)
    assert "Custom build chosen with no alternatives weighed" not in titles(report)
    assert any("SendGrid" in c for c in report.checked_and_fine)


def test_a_plan_with_sprints_and_weekdays_has_dates():
    plan = ("# Rollout — Plan\n\n## Task 1: Schema\n\nAdd the table in the first sprint.\n\n## Task 2: Backfill\n\n"
            "Run the backfill on Monday.\n\n## Task 3: Cutover\n\nSwitch reads at the end of the second sprint.\n")
    report = review_as_persona("feasibility-skeptic", "plan", plan, SCOPE_REQS)
    assert "Plan has no estimates or dates" not in titles(report)
    undated = "# Rollout — Plan\n\n## Task 1: Schema\n\nAdd the table.\n\n## Task 2: Backfill\n\nRun the backfill.\n\n## Task 3: Cutover\n\nSwitch reads.\n"
    assert "Plan has no estimates or dates" in titles(review_as_persona("feasibility-skeptic", "plan", undated, SCOPE_REQS))


# ------------------------------------------------------------------------------ escalation on substance

PROSE_REQS = ("# Summary\n\nThe scheduler gains a plugin framework.\n\n# Motivation\n\nFeatures keep making the scheduler "
              "harder to maintain, and extenders are slow because every call marshals JSON.\n\n## Goals\n\n"
              "- Make the scheduler more extendable.\n- Keep the core simple.\n\n## Non-Goals\n\n- Solve every limitation.\n")


def test_prose_requirements_and_a_short_design_do_not_escalate():
    design = "# Framework\n\n## Extension points\n\nPlugins register at Filter and Score; the scheduler runs them in order.\n"
    result = review(design, PROSE_REQS)
    assert result.verdict != "escalate", result.verdict_reasoning
    reports = result.persona_reports
    assert "not assessed offline" in reports["requirement-auditor"].blind_spot_check.lower()


def test_form_problems_never_escalate():
    reqs = ("# Requirements\n\n## Problem\n\nToday each team runs three deploy scripts by hand.\n\n## Requirements\n\n"
            "The tool is nice to have for the team and helps with deploys.\n")
    design = "# Deploy tool — Design\n\n## Flow\n\nThe CLI wraps the three existing deploy scripts.\n"
    result = review(design, reqs)
    assert result.verdict != "escalate", result.verdict_reasoning
    form = [f for f in result.findings if f.hygiene]
    assert form and all(f.primary_phase == "calibrate" for f in form)
    assert "form only" in result.verdict_reasoning


def test_a_requirements_review_speaks_of_the_requirements():
    reqs = ("# Payments — Requirements\n\n## Problem\n\nToday refunds are reconciled by hand, which costs two days a month.\n\n"
            "## Requirements\n\n- R1: The API must respond within 200 ms; every request is "
            "validated synchronously by the ledger service, which takes 800 ms.\n- R2: Every payment is logged.\n")
    result = review("", reqs, stage="requirements")
    assert result.verdict == "revise"
    assert "Fix the requirements document" in result.verdict_reasoning and "Fix the design" not in result.verdict_reasoning
    assert "R1 contradicts itself" in result.verdict_reasoning  # the findings that carried the verdict are named


# ------------------------------------------------------------------------------ nothing hidden

def _finding(title: str, section: str, evidence: str, issue: str, severity: Severity = Severity.IMPORTANT) -> PersonaFinding:
    return PersonaFinding(title=title, severity=severity, phase="plan", contributing_phase=None, section=section,
                          issue=issue, why_it_matters="It breaks the plan.", suggestion="Change the plan.", evidence=evidence)


QUOTE = "T1 publishes orders to the queue that T3 creates, and the worker in T2 reads them."


def test_two_problems_that_quote_one_sentence_stay_two_findings():
    reports = {
        "code-realist": PersonaReport(persona="code-realist", findings=[_finding(
            "T1 uses the queue that T3 creates", "Tasks > T1", QUOTE, "T1 publishes to a queue that only exists after T3 runs.")],
            checked_and_fine=[], blind_spot_check="x"),
        "edge-case-prober": PersonaReport(persona="edge-case-prober", findings=[_finding(
            "No failure handling for the order queue", "Tasks > T1", QUOTE,
            "Nothing says what happens when publishing to the queue fails or the worker crashes.")],
            checked_and_fine=[], blind_spot_check="x"),
    }
    answer = group_findings(reports)
    assert sorted(len(g.members) for g in answer.groups) == [1, 1]
    # the same problem in other words still groups
    reports["edge-case-prober"].findings.append(_finding(
        "T1 depends on the queue T3 creates", "Tasks > T1", QUOTE, "T1 uses the queue before T3 creates it."))
    assert sorted(len(g.members) for g in group_findings(reports).groups) == [1, 2]


def test_every_reviewer_finding_can_be_read_from_the_summary():
    plan = ("# Orders — Plan\n\n## T1: Publish orders\n\nT1 publishes orders to `orders_queue` for the worker.\n\n"
            "## T2: Worker\n\nThe worker reads `orders_queue`.\n\n## T3: Queue\n\nCreate `orders_queue` in SQS.\n")
    result = review(plan, SCOPE_REQS, stage="plan")
    summary = render_summary(result)
    for persona, report in result.persona_reports.items():
        for f in report.findings:
            assert f.title in summary, (persona, f.title)


# ------------------------------------------------------------------------------ outages, waits, keys, other components

def test_an_outage_that_stops_everything_with_no_fallback():
    design = ("# Registry — Design\n\n## Lookups\n\nIf the registry is unavailable, the build fails loudly and stops.\n")
    report = review_as_persona("edge-case-prober", "design", design, LATENCY_REQS)
    assert "An outage of a dependency stops the work outright" in titles(report)
    degraded = design.replace("and stops.", "and stops; until it is back, builds fall back to the last known versions.")
    assert "An outage of a dependency stops the work outright" not in titles(review_as_persona("edge-case-prober", "design", degraded, LATENCY_REQS))


def test_a_wait_without_a_bound():
    design = "# Gang — Design\n\n## Admission\n\nA job waits with a timeout until every member arrives; if a timeout occurs, it is rejected.\n"
    report = review_as_persona("edge-case-prober", "design", design, LATENCY_REQS)
    assert "A wait with no stated bound" in titles(report)
    sized = design.replace("if a timeout occurs", "the timeout defaults to 30 seconds; if a timeout occurs")
    assert "A wait with no stated bound" not in titles(review_as_persona("edge-case-prober", "design", sized, LATENCY_REQS))


def test_keys_need_a_rotation_plan_and_an_idempotency_key_is_no_key():
    design = "# Log — Design\n\n## Trust\n\nClients verify every answer with the server's public key, built into the client.\n"
    assert "No rotation or compromise plan for its keys" in titles(review_as_persona("edge-case-prober", "design", design, LATENCY_REQS))
    rotated = design + "\nThe key is rotated yearly; clients accept the old and the new key for a month, and a compromised key is revoked.\n"
    assert "No rotation or compromise plan for its keys" not in titles(review_as_persona("edge-case-prober", "design", rotated, LATENCY_REQS))
    idem = "# Pay — Design\n\n## Charges\n\nCalls the processor with `Idempotency-Key: {invoice_id}`.\n"
    assert "No rotation or compromise plan for its keys" not in titles(review_as_persona("edge-case-prober", "design", idem, LATENCY_REQS))


def test_a_change_another_component_needs_is_a_finding_when_it_is_a_passing_remark():
    design = "# Plugins — Design\n\n## Capacity\n\nThe Cluster Autoscaler will have to be changed to run the new filters.\n"
    report = review_as_persona("assumption-hunter", "design", design, LATENCY_REQS)
    assert any(t.startswith("Needs a change to Cluster Autoscaler") for t in titles(report)), titles(report)


def test_hopes_are_assumptions_and_small_trials_do_not_generalise():
    design = ("# Mirror — Design\n\n## Audit\n\nWe hope that mirrors run by other companies will also audit the log.\n\n"
              "## Evidence\n\nOn a single page with a small number of users the bundle shrank by 30%.\n")
    report = review_as_persona("assumption-hunter", "design", design, LATENCY_REQS)
    assert "Assumption stated but never validated" in titles(report)
    assert "A benefit rests on a small trial" in titles(report)


def test_a_persona_that_reports_part_of_what_it_found_says_what_it_left_out():
    from review_harness.design.offline.registry import default_offline_rules

    cap = default_offline_rules().limits.findings
    reqs = "# R\n\n## Requirements\n\n" + "\n".join(f"- R{n}: The export must include the {w} field." for n, w in enumerate(
        ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima"], 1)) + "\n"
    design = "# D\n\n## Export\n\nThe export writes one CSV file per day.\n"
    report = review_as_persona("requirement-auditor", "design", design, reqs)
    assert len(report.findings) == cap
    assert "left out of its report" in report.blind_spot_check
    result = review(design, reqs)
    assert any("Requirement Auditor reports only part of what it found" in w for w in result.warnings)
