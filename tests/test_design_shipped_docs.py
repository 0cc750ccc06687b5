"""The offline design reviewer reads shipped documents that are not proposals as what they are:
an architecture overview, a reference or a migration guide says what it is for in its own words,
guarantees it makes about its own behaviour are not a dependency's reliability, an adjective that
sums up figures measured beside it is not a claim without a number, and a document that says of
itself that it is unfinished or out of date is not ready to approve.

Every document here was written for these tests. Each case checks the reading on more than one
wording and on a near miss that must still be reported.
"""

from __future__ import annotations

import pytest

from review_harness.design.offline.engine import review_as_persona
from test_design_reading import review, titles

PROBLEM = "The problem being solved is never stated"


def persona_titles(persona: str, design: str, requirements: str) -> list[str]:
    return titles(review_as_persona(persona, "design", design, requirements))


# --------------------------------------------------------------- what the document is for

@pytest.mark.parametrize("opening", [
    "This page explains how the export worker turns queued jobs into files.",
    "This guide is intended to help operators move from version 2 of the exporter to version 3.",
    "Here we describe the export worker's internals and why they are shaped this way.",
    "The exporter's two main goals are predictability and cheap recovery.",
])
def test_a_document_that_says_what_it_is_for_states_its_purpose(opening):
    design = (f"# Export worker\n\n{opening}\n\n## Flow\n\nThe worker takes a job from the table, writes the file "
              "and marks the job done.\n\n## Proposed change\n\nWe will add a size limit per job.\n")
    reqs = "# Export worker\n\nExports for customers.\n"
    assert PROBLEM not in persona_titles("first-principles", design, reqs)
    assert review(design, reqs).verdict != "escalate"


def test_a_proposal_with_no_purpose_still_lacks_a_problem_statement():
    design = ("# Export service\n\n## Components\n\nWe will build a new service that reads jobs from SQS and "
              "writes files to S3.\n\n## Storage\n\nFiles are kept for 30 days.\n")
    reqs = "# Export\n\n- The export runs nightly.\n"
    result = review(design, reqs)
    assert PROBLEM in [f.title for f in result.findings]
    assert result.verdict == "escalate" and result.escalation_target == "survey"


def test_a_reference_that_proposes_nothing_is_not_asked_for_a_problem():
    # describes how options behave today: no proposal, no plan, no purpose sentence
    design = ("# Cache options\n\n## Controlling eviction\n\n`--max-entries` caps the number of entries; the oldest "
              "entry goes first.\n\n`--ttl` drops an entry after its age passes the value.\n\n## Controlling reads\n\n"
              "`--stale-ok` returns an expired entry while a fresh one loads.\n")
    reqs = "# Cache options\n\nThe cache keeps recent answers in memory.\n"
    report = review_as_persona("first-principles", "design", design, reqs)
    assert PROBLEM not in titles(report)
    assert "problem statement" in report.blind_spot_check and "not assessed offline" in report.blind_spot_check.lower()
    assert review(design, reqs).verdict == "proceed"


# --------------------------------------------------------------- whose guarantee it is

@pytest.mark.parametrize("sentence", [
    "Each job is guaranteed to run exactly once per schedule tick.",
    "Handlers are guaranteed to see the events of one account in order.",
    "A cancelled task is guaranteed to release its lock before the scope exits.",
])
def test_a_guarantee_the_design_makes_about_itself_is_no_dependency(sentence):
    design = f"# Scheduler\n\n## Purpose\n\nThe scheduler runs jobs.\n\n## Guarantees\n\n{sentence}\n"
    assert "Dependency reliability taken as given" not in persona_titles("assumption-hunter", design, "# R\n\n- Run jobs.\n")


@pytest.mark.parametrize("sentence", [
    "The billing API is always available, so the checkout calls it inline.",
    "Messages are guaranteed by the broker to arrive once, so the consumer keeps no dedup table.",
    "The upstream service never times out.",
])
def test_a_guarantee_taken_from_another_system_is_still_found(sentence):
    design = f"# Checkout\n\n## Purpose\n\nThe checkout takes payments.\n\n## Calls\n\n{sentence}\n"
    assert "Dependency reliability taken as given" in persona_titles("assumption-hunter", design, "# R\n\n- Take payments.\n")


# --------------------------------------------------------------- adjectives and measurements

MEASURED = ("# Lookup table\n\n## Purpose\n\nThe table answers lookups.\n\n## Performance\n\n### Hashed keys\n\n"
            "A lookup by hashed key took 41 ns +- 3 ns on the benchmark machine, against 95 ns for the sorted list.\n\n"
            "### Summary\n\n{line}\n")


@pytest.mark.parametrize("line", ["Hashed lookups are much faster than the sorted list.",
                                  "Hashed keys give low-latency reads in normal code."])
def test_an_adjective_that_sums_up_figures_measured_beside_it_is_not_vague(line):
    titles_ = persona_titles("feasibility-skeptic", MEASURED.format(line=line), "# R\n\n- Answer lookups.\n")
    assert "Performance claimed without a number" not in titles_


def test_an_adjective_with_no_measurement_near_it_is_still_vague():
    design = ("# Lookup table\n\n## Purpose\n\nThe table answers lookups.\n\n## Reads\n\nHashed lookups are much faster "
              "than the sorted list.\n\n## Appendix\n\nThe nightly job takes 2 s.\n")
    assert "Performance claimed without a number" in persona_titles("feasibility-skeptic", design, "# R\n\n- Answer lookups.\n")


# --------------------------------------------------------------- a document that says it is unfinished

@pytest.mark.parametrize("note", [
    "> **Note:** This page is out of date and is being revised for the new importer.",
    "> This section of the documentation is currently being written; help is welcome.",
    "> This document needs to be updated after the storage change.",
])
def test_a_document_that_says_at_its_top_it_is_unfinished_is_not_ready(note):
    design = (f"{note}\n\n# Importer\n\nThis page explains how the importer reads files.\n\n## Flow\n\n"
              "The importer reads each file, checks its header and stores the rows.\n")
    result = review(design, "# Importer\n\nThe importer loads customer files.\n")
    unfinished = [f for f in result.findings if f.title == "The document says it is unfinished or out of date"]
    assert unfinished and unfinished[0].severity == "Critical"
    assert result.verdict == "revise"


def test_an_unfinished_section_inside_a_document_is_important_not_critical():
    design = ("# Importer\n\nThis page explains how the importer reads files.\n\n## Flow\n\nThe importer reads each file "
              "and stores the rows.\n\n## Retries\n\nThis section is still a draft.\n")
    findings = review_as_persona("first-principles", "design", design, "# Importer\n\nLoads files.\n").findings
    assert [f.severity for f in findings if f.title == "The document says it is unfinished or out of date"] == ["Important"]


def test_drafts_and_updates_the_design_is_about_are_not_the_document_being_unfinished():
    design = ("# Orders\n\nThis page explains how orders move between states.\n\n## States\n\nAn order is a draft until "
              "it is paid. The draft state is kept for 30 days. The order page is updated when the payment clears.\n")
    titles_ = persona_titles("first-principles", design, "# Orders\n\nOrders are paid online.\n")
    assert "The document says it is unfinished or out of date" not in titles_


# --------------------------------------------------------------- alternatives set side by side

PROPOSAL = ("# Proposal: shared retry budgets\n\n## Problem\n\nEach client retries on its own, so an outage multiplies "
            "the load.\n\n## Proposed solution\n\nClients draw retries from a budget shared per host.\n\n"
            "## {heading}\n\nEach request carries a retry count and the server rejects requests past three tries.\n{extra}")


@pytest.mark.parametrize("heading", ["Alternative approach", "Option B: server-side limits", "Alternatives"])
def test_an_alternative_set_beside_the_proposal_with_no_comparison_is_found(heading):
    design = PROPOSAL.format(heading=heading, extra="")
    assert "Alternatives are listed but never weighed" in persona_titles("prior-art-scout", design, "# R\n\n- Limit retries.\n")


@pytest.mark.parametrize("extra", [
    "\nWe prefer the shared budget because it needs no server change.\n",
    "\nThis was rejected: old servers ignore the count.\n",
    "\nThe trade-off is a second counter on every client.\n",
    "\n- **A retry proxy:** one more hop on every request, and old clients bypass it.\n",
])
def test_an_alternative_weighed_against_the_proposal_is_fine(extra):
    design = PROPOSAL.format(heading="Alternative approach", extra=extra)
    assert "Alternatives are listed but never weighed" not in persona_titles("prior-art-scout", design, "# R\n\n- Limit retries.\n")


def test_options_of_a_reference_are_not_alternatives():
    design = ("# Client options\n\nThis page explains the client's options.\n\n## Options that control retries\n\n"
              "`--retries` sets how many times a request is sent again.\n")
    assert "Alternatives are listed but never weighed" not in persona_titles("prior-art-scout", design, "# R\n\n- Retry.\n")


# --------------------------------------------------------------- a lifecycle and its failures

LIFECYCLE = ("# Upload session\n\nThis page explains the states an upload session goes through.\n\n## States\n\n"
             "A new session starts in the **open** state. The first chunk moves the session to the **receiving** state. "
             "The last chunk moves it to the **verifying** state. A matching checksum moves it to the **stored** state. "
             "{extra}\n")
DIAGRAM = ("# Upload session\n\nThis page explains the states of an upload session.\n\n```mermaid\nstateDiagram-v2\n"
           "  [*] --> open\n  open --> receiving : chunk\n  receiving --> verifying : last chunk\n"
           "  verifying --> stored : checksum ok\n{extra}```\n")


@pytest.mark.parametrize("design", [LIFECYCLE.format(extra=""), DIAGRAM.format(extra="")])
def test_a_lifecycle_with_no_failure_path_is_found(design):
    assert "The lifecycle has no path for failure" in persona_titles("edge-case-prober", design, "# R\n\n- Store uploads.\n")


@pytest.mark.parametrize("design", [
    LIFECYCLE.format(extra="A lost connection moves the session back to the **open** state."),
    LIFECYCLE.format(extra="A checksum error moves it to the **rejected** state and the chunks are deleted."),
    DIAGRAM.format(extra="  verifying --> rejected : checksum error\n"),
])
def test_a_lifecycle_that_says_what_failure_does_is_fine(design):
    assert "The lifecycle has no path for failure" not in persona_titles("edge-case-prober", design, "# R\n\n- Store uploads.\n")


def test_two_state_changes_are_no_lifecycle():
    design = ("# Flags\n\nThis page explains flags.\n\n## Use\n\nSaving a flag moves it to the live state. "
              "Archiving moves it to the archived state.\n")
    assert "The lifecycle has no path for failure" not in persona_titles("edge-case-prober", design, "# R\n\n- Flags.\n")
