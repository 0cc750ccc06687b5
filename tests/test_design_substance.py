"""Substance checks of the offline design reviewer (prompts/design/substance_checks.yaml), on
documents written for these tests: every claim that a dependency is always there is checked for
its failure path; a failure path that loses the work is found and never called sound; a
compatibility claim beside a change callers see. Each real problem is checked beside the near miss
that must not be reported.
"""

from __future__ import annotations

import pytest

from review_harness.design.offline.engine import review_as_persona

REQS = ("# Password reset — Requirements\n\n## Requirements\n\n"
        "- R1: A user must be able to request a password reset link by email.\n"
        "- R2: Reset links must expire after 30 minutes.\n")

ARCH = ("# Password reset — Design\n\n## Architecture\n\n"
        "The reset API creates a token that expires after 30 minutes and publishes an email job to a RabbitMQ queue. "
        "An email worker consumes the queue and calls the mail provider (SendGrid) API to send the email.\n\n")


def findings(persona: str, design: str, requirements: str = REQS):
    return review_as_persona(persona, "design", design, requirements)


def test_every_always_available_claim_is_reported_even_two_in_one_paragraph_line():
    design = ARCH + ("## Dependencies\n\nThe mail provider is always available, so we do not need a fallback provider. "
                     "Redis is always available in our platform, so the API does not handle Redis errors.\n")
    report = findings("assumption-hunter", design)
    quoted = [f.evidence for f in report.findings if "always available" in (f.evidence or "")]
    assert any("mail provider" in q for q in quoted) and any("Redis" in q for q in quoted), [f.title for f in report.findings]


def test_an_always_claim_is_checked_against_the_designs_own_failure_path():
    contradicted = ARCH + ("## Dependencies\n\nThe mail provider is always available, so there is no fallback provider.\n\n"
                           "## Failure handling\n\nIf SendGrid returns an error, the worker retries three times with backoff "
                           "and then moves the job to a dead-letter queue with an alert.\n")
    report = findings("assumption-hunter", contradicted)
    hit = [f for f in report.findings if "yet the design handles it failing" in f.title]
    assert hit and "mail provider" in hit[0].evidence and "SendGrid" in hit[0].issue
    silent = ARCH + "## Dependencies\n\nThe mail provider is always available, so there is no fallback provider.\n"
    report = findings("assumption-hunter", silent)
    hit = [f for f in report.findings if f.title == "Dependency reliability taken as given"]
    assert hit and "no passage says what happens when mail provider is down" in hit[0].issue


@pytest.mark.parametrize("sentence", [
    "The worker guarantees that every job is attempted.",
    "Our scheduler is always available to callers because it runs in every process.",
])
def test_a_guarantee_about_the_design_itself_is_no_dependency_claim(sentence):
    report = findings("assumption-hunter", ARCH + f"## Guarantees\n\n{sentence}\n")
    assert not any("always available" in f.title or "reliability" in f.title for f in report.findings), [f.title for f in report.findings]


@pytest.mark.parametrize("path", [
    "If SendGrid returns an error, the worker logs it and acknowledges the message.",
    "When the send fails, the worker drops the email and moves on to the next job.",
])
def test_a_failure_path_that_loses_the_work_is_a_finding_and_is_never_called_sound(path):
    design = ARCH + f"## Failure handling\n\n{path} Users who get no email can ask again.\n"
    report = findings("edge-case-prober", design)
    titles = [f.title for f in report.findings]
    assert "Failure handling loses the work it failed on" in titles, titles
    assert not any("Failure handling is described" in ok for ok in report.checked_and_fine)
    queue = next(f for f in report.findings if f.title.startswith("Queue consumers have no poison-message"))
    assert queue.severity.value == "Important"


def test_a_failure_path_that_retries_and_parks_the_work_is_sound():
    design = ARCH + ("## Failure handling\n\nIf SendGrid returns an error, the worker retries up to 5 times with "
                     "exponential backoff, then moves the message to a dead-letter queue and alerts on-call.\n")
    report = findings("edge-case-prober", design)
    assert "Failure handling loses the work it failed on" not in [f.title for f in report.findings]
    assert any("Failure handling is described" in ok for ok in report.checked_and_fine)


def test_a_negated_fallback_is_no_failure_handling():
    design = ARCH + "## Email delivery\n\nThere is no fallback path; the worker sends each email once.\n"
    report = findings("edge-case-prober", design)
    assert "No failure handling for remote dependencies" in [f.title for f in report.findings]


@pytest.mark.parametrize("change", [
    "Because the function is public, all callers of the library will need to update their call sites.",
    "The export endpoint now returns timestamps in UTC instead of local time.",
])
def test_compatibility_claimed_beside_a_change_callers_see(change):
    design = ("# Export — Design\n\n## Approach\n\nThe export keeps its endpoint. " + change + "\n\n"
              "## Compatibility\n\nThe change is fully backwards compatible.\n")
    report = findings("requirement-auditor", design, "# Export — Requirements\n\n## Requirements\n\n- R1: Exports must keep working for existing clients.\n")
    hit = [f for f in report.findings if f.title == "Compatibility claimed beside a change callers or users see"]
    assert hit and hit[0].evidence in design


def test_compatibility_claimed_beside_no_change_is_not_reported():
    design = ("# Export — Design\n\n## Approach\n\nThe export adds an optional `format` parameter; without it the "
              "response is the same as today.\n\n## Compatibility\n\nThe change is fully backwards compatible.\n")
    report = findings("requirement-auditor", design, "# Export — Requirements\n\n## Requirements\n\n- R1: Exports must keep working for existing clients.\n")
    assert "Compatibility claimed beside a change callers or users see" not in [f.title for f in report.findings]
