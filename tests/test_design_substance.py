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


QTY_REQS = "# Archive — Requirements\n\n## Requirements\n\n- R1: Events must be archived within one hour.\n"


@pytest.mark.parametrize("first,second", [
    ("Producers write to Kinesis Data Streams (8 shards).", "The archiver reads the Kinesis Data Streams (16 shards) with one consumer."),
    ("Nightly Postgres backups are kept for 35 days.", "Because Nightly Postgres backups are kept for 175 days, erasure waits for them."),
    ("The cluster keeps 5 replicas per range across the three regions.", "Survival goal: region failure, 15 replicas per range."),
    ("A query for one account scans about 2.6 TB of Parquet files.", "A query for one account scans about 7.8 TB; the runbook splits it."),
    ("We estimate 3 weeks for the custom sink, including failure testing.", "We estimate 6 weeks for the custom sink."),
])
def test_one_counted_thing_given_two_values_is_found(first, second):
    design = f"# Archive — Design\n\n## Ingestion\n\n{first}\n\n## Operations\n\n{second}\n"
    report = findings("requirement-auditor", design, QTY_REQS)
    hit = [f for f in report.findings if f.title.startswith("The design gives one quantity two values")]
    assert hit and hit[0].evidence in design, [f.title for f in report.findings]


@pytest.mark.parametrize("first,second", [
    ("Producers write to Kinesis Data Streams (8 shards).", "At peak the stream scales from 8 to 16 shards."),
    ("`delivery_attempts` rows older than 30 days are dropped.", "`deliveries` rows older than 7 days are dropped."),
    ("The cluster keeps 5 replicas per range across the three regions.", "The cluster runs 15 replicas of the range store in total."),
    ("The workgroup has a per-query scan limit of 2 TB.", "A query for one account scans ~3 TB."),
    ("Photos are re-encoded to an average of 2.2 MB.", "Photos are stored as files of 8 MB."),
    ("A query for one account scans about 2.6 TB of Parquet files.", "A query for one account scans 3 TB of Parquet files."),
])
def test_a_range_or_two_different_things_are_not_two_values(first, second):
    design = f"# Archive — Design\n\n## Ingestion\n\n{first}\n\n## Operations\n\n{second}\n"
    report = findings("requirement-auditor", design, QTY_REQS)
    assert not any(f.title.startswith("The design gives one quantity two values") for f in report.findings)


# ------------------------------------------------------------------------------ revisions

from review_harness.design.changes import section_changes  # noqa: E402
from review_harness.design.offline.responder import removed_lines  # noqa: E402

V1 = ARCH + ("## Failure handling\n\nIf SendGrid returns an error, the worker retries three times with backoff, "
             "then moves the job to a dead-letter queue.\n\n"
             "## Retention (R2)\n\nTokens expire after 30 minutes and are deleted (R2).\n\n"
             "## Guarantees\n\nEach reset email is sent at most once.\n")
V2 = ARCH + "## Monitoring\n\nWe count reset requests per minute.\n"


def test_a_removed_section_carries_its_lines_into_the_changes():
    changes = section_changes(V1, V2, "the previous iteration")
    assert changes is not None and "(removed)" in changes.text
    assert "-If SendGrid returns an error, the worker retries three times" in changes.text


def test_what_a_revision_removed_is_a_finding_of_the_delta_not_fewer_findings():
    changes = section_changes(V1, V2, "the previous iteration")
    prompt = f"<design>\n{V2}\n</design>\n\n<changes>\n{changes.text}\n</changes>\n"
    removed = removed_lines(prompt)
    edge = review_as_persona("edge-case-prober", "design", V2, REQS, removed=removed)
    hit = [f for f in edge.findings if f.title == "Failure handling removed since the previous version"]
    assert hit and hit[0].severity.value == "Critical" and "retries three times" in hit[0].issue
    auditor = review_as_persona("requirement-auditor", "design", V2, REQS, removed=removed)
    titles = [f.title for f in auditor.findings]
    assert "The design of R2 was removed since the previous version" in titles, titles
    assert "A guarantee was removed since the previous version" in titles


def test_a_revision_that_keeps_what_it_moved_loses_nothing():
    moved = ARCH + ("## Errors\n\nIf SendGrid returns an error, the worker retries three times with backoff, "
                    "then moves the job to a dead-letter queue.\n\n## Tokens (R2)\n\nTokens expire after 30 minutes and are deleted (R2).\n\n"
                    "## Guarantees\n\nEach reset email is sent at most once.\n")
    changes = section_changes(V1, moved, "the previous iteration")
    removed = removed_lines(f"<design>\n{moved}\n</design>\n\n<changes>\n{changes.text}\n</changes>\n")
    assert removed  # sections were renamed, so their old lines count as removed ...
    for persona in ("edge-case-prober", "requirement-auditor"):
        report = review_as_persona(persona, "design", moved, REQS, removed=removed)
        assert not any("since the previous version" in f.title for f in report.findings), persona  # ... but nothing was lost


@pytest.mark.parametrize("operation", [
    "Each sidecar sends its counter deltas to the other 11 peers every 500 ms.",
    "The export job writes the daily file to the customer's S3 bucket.",
])
def test_an_operation_on_another_system_with_no_failure_path_is_found(operation):
    design = f"# Limits — Design\n\n## Approach\n\n{operation}\n\n## Monitoring\n\nA dashboard shows the request rate.\n"
    report = findings("edge-case-prober", design, "# Limits — Requirements\n\n## Requirements\n\n- R1: Limits must hold across instances.\n")
    assert "No failure handling for remote dependencies" in [f.title for f in report.findings]
    handled = design + "\n## Failures\n\nIf a peer is unreachable, the sidecar keeps its local view and retries on the next round.\n"
    report = findings("edge-case-prober", handled, "# Limits — Requirements\n\n## Requirements\n\n- R1: Limits must hold across instances.\n")
    assert "No failure handling for remote dependencies" not in [f.title for f in report.findings]


DELIVERY_REQS = ("# Webhooks — Requirements\n\n## Requirements\n\n"
                 "- R1 (Must): Failed deliveries (connection errors, timeouts, 5xx) are retried with exponential backoff for up to 72 hours.\n"
                 "- R2 (Should): Per-attempt timeout of 10 s.\n"
                 "- R3 (Must): Over-limit callers get HTTP 429 with a Retry-After header.\n")
DELIVERY = ("# Webhooks — Design\n\n## Delivery\n\nWorkers post each event to the customer's endpoint and record the attempt; "
            "over-limit callers get a 429 with a Retry-After header.\n\n"
            "## Circuit breaker\n\nAfter 20 consecutive failed attempts the endpoint is disabled and its owner emailed.\n")


def test_failure_behaviour_the_requirements_count_on_and_the_design_lacks_is_found():
    found = [f for f in findings("edge-case-prober", DELIVERY, DELIVERY_REQS).findings if f.title.startswith("Failure handling that")]
    assert len(found) == 1 and "R1 and R2" in found[0].title and "retries, timeout" in found[0].title, found
    assert found[0].severity.value == "Critical" and "exponential backoff" in found[0].evidence  # R1 is a Must
    assert "R3" not in found[0].title  # a Retry-After header asks for no retries of the design's own


def test_failure_behaviour_the_design_provides_in_its_own_words_is_not_reported():
    handled = DELIVERY + ("\n## Retries\n\nOn failure the worker sets the next attempt time by the backoff (1 min, 5 min, 30 min, "
                          "then every 2 h) until 72 hours have passed; each attempt times out after 10 s.\n")
    assert not any(f.title.startswith("Failure handling that") for f in findings("edge-case-prober", handled, DELIVERY_REQS).findings)
    no_failure_words = ("# Wallet — Requirements\n\n## Requirements\n\n"
                        "- R1 (Must): A retried request with the same idempotency key returns the original result.\n")
    assert not any(f.title.startswith("Failure handling that") for f in findings("edge-case-prober", DELIVERY, no_failure_words).findings)


DIAGRAM = ("# Indexing — Design\n\n## Architecture\n\n```\nPostgres ──> Kafka ──> indexer ──> OpenSearch\n"
           "                              └──> dead-letter topic\n```\n\nThe indexer consumes the Kafka topic and writes "
           "each document to OpenSearch.\n\n## Operations\n\nAlerts on consumer lag and indexer failures page the on-call engineer.\n")


def test_a_failure_path_drawn_in_a_diagram_and_never_described_is_found():
    found = [f for f in findings("edge-case-prober", DIAGRAM).findings if f.title.startswith("Failure handling drawn but never described")]
    assert found and found[0].evidence == "└──> dead-letter topic", [f.title for f in findings("edge-case-prober", DIAGRAM).findings]


def test_a_drawn_failure_path_the_text_describes_is_not_reported():
    described = DIAGRAM + ("\n## Failure handling\n\nDocuments OpenSearch rejects go to the dead-letter topic with the error; "
                           "a weekly job reports them.\n")
    assert not any(f.title.startswith("Failure handling drawn") for f in findings("edge-case-prober", described).findings)
