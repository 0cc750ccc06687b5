"""Requirements read as items however they are written (ids of any style, goals and non-goals,
priorities in words, in parentheses or as headings, numbered lists), a document's own number or
title never read as a requirement, and coverage claimed only with a quoted design passage that does
the requirement. Documents written for these tests.
"""

from __future__ import annotations

import pytest

from review_harness.design.offline.document import document
from review_harness.design.offline.engine import review_as_persona
from review_harness.design.offline.requirements import extract_requirements

# (how the requirements are written, the document, [(id or None, priority, words of its text)])
WAYS = [
    ("goal ids with a priority in parentheses under Goals",
     "# Flags — Requirements\n\n## Goals\n\n- G1 (Must): Flags are evaluated locally in under 5 ms.\n"
     "- G2 (Should): Operators can roll a flag back within one minute.\n- G3 (May): Flags carry an owner.\n\n"
     "## Non-goals\n\n- NG1: Experimentation analytics.\n",
     [("G1", "must", "evaluated locally"), ("G2", "should", "roll a flag back"), ("G3", "could", "carry an owner")]),
    ("R ids under Requirements",
     "# Export — Requirements\n\n## Requirements\n\n- R1: The export must include every invoice.\n"
     "- R2: The export should run nightly.\n",
     [("R1", "must", "every invoice"), ("R2", "should", "run nightly")]),
    ("REQ- ids",
     "# Export — Requirements\n\n## Functional requirements\n\n- REQ-1: The export must include every invoice.\n"
     "- REQ-2: Finance may download a CSV copy.\n",
     [("REQ-1", "must", "every invoice"), ("REQ-2", "could", "CSV copy")]),
    ("a numbered list with modal verbs",
     "# Search — Requirements\n\n## Requirements\n\n1. Results must appear within 300 ms.\n"
     "2. Deleted documents must disappear from results within one hour.\n3. Admins should be able to pin results.\n",
     [(None, "must", "within 300 ms"), (None, "must", "disappear from results"), (None, "should", "pin results")]),
    ("priority headings Must / Should / May without modal verbs",
     "# Alerts — Requirements\n\n## Must\n\n- Alerts reach on-call within 1 minute.\n\n## Should\n\n"
     "- Alerts link to the runbook.\n\n## May\n\n- Alerts can be snoozed.\n",
     [(None, "must", "reach on-call"), (None, "should", "link to the runbook"), (None, "could", "snoozed")]),
    ("P0 / P1 labels",
     "# Upload — Requirements\n\n## Requirements\n\n- [P0] Uploads up to 5 GB resume after a dropped connection.\n"
     "- [P1] Users see upload progress.\n",
     [(None, "must", "resume after a dropped"), (None, "should", "upload progress")]),
]


@pytest.mark.parametrize("how,text,expected", WAYS, ids=[w[0] for w in WAYS])
def test_requirements_are_items_however_they_are_written(how, text, expected):
    rs = extract_requirements(document(f"reqs-{how}", text))
    assert not rs.narrative
    got = [(r.rid, r.priority, r.text) for r in rs.reqs]
    assert len(got) == len(expected), got
    for (rid, prio, text_got), (want_id, want_prio, words) in zip(got, expected):
        assert rid == want_id and prio == want_prio and words in text_got, got


def test_non_goals_with_ids_are_non_goals_not_requirements():
    rs = extract_requirements(document("reqs-ng", WAYS[0][1]))
    assert [n.rid for n in rs.nongoals] == ["NG1"] and "NG1" not in [r.rid for r in rs.reqs]


@pytest.mark.parametrize("title", ["# KEP-1234: Volume snapshots", "# RFC-42: Volume snapshots"])
def test_a_documents_own_number_or_title_is_never_a_requirement(title):
    text = f"{title}\n\n## Summary\n\nThis proposal adds snapshots.\n\n## Goals\n\n- Users can snapshot a volume.\n"
    rs = extract_requirements(document(f"title-{title}", text))
    assert rs.reqs == [] and [g.text for g in rs.goals][-1] == "Users can snapshot a volume."
    design = "# Snapshots — Design\n\n## API\n\nA VolumeSnapshot object records a point-in-time copy of a volume.\n"
    report = review_as_persona("requirement-auditor", "design", design, text)
    assert not any("1 of 1 requirements" in ok or "KEP-1234" in ok for ok in report.checked_and_fine)
    assert not any("KEP-1234" in f.title or "RFC-42" in f.title for f in report.findings)


REQS = ("# Notifications — Requirements\n\n## Requirements\n\n"
        "- R1: Users must be able to mute notifications per channel.\n"
        "- R2: Notifications must be delivered within 10 seconds of the triggering event.\n"
        "- R3: Every notification must be stored for 90 days for audit.\n"
        "- R4: Users must be able to export their notification history as CSV.\n")
DESIGN = ("# Notifications — Design\n\n## Delivery\n\nEvents land on a Kafka topic; the fan-out worker delivers each "
          "notification to the user's devices, usually\nwithin 2 seconds and always within 10 seconds of the event.\n\n"
          "## Preferences\n\nEach user has a per-channel mute flag; the fan-out worker skips channels the user muted.\n\n"
          "## Storage\n\nNotifications are written to the audit table and kept for 90 days, then deleted by a nightly job.\n\n"
          "## History page\n\nThe history page lists a user's notifications. Users can filter by channel.\n\n"
          "## Admin reports\n\nExported reports for admins are generated as PDF.\n")


def test_covered_requirements_are_traced_to_a_quoted_passage_and_the_dropped_one_is_found():
    report = review_as_persona("requirement-auditor", "design", DESIGN, REQS)
    untraced = [f.title for f in report.findings if "is not addressed" in f.title]
    assert untraced == ["R4 is not addressed by design"], untraced
    covered = {ok.split(" ")[0]: ok for ok in report.checked_and_fine if " is covered by '" in ok}
    assert set(covered) == {"R1", "R2", "R3"}
    assert "per-channel mute flag" in covered["R1"] and "delivers each notification" in covered["R2"]


def test_words_scattered_over_the_design_do_not_cover_a_requirement():
    # 'export', 'history' and 'notification' all occur, but no passage exports the history as CSV
    report = review_as_persona("requirement-auditor", "design", DESIGN, REQS)
    assert not any(ok.startswith("R4") for ok in report.checked_and_fine)
