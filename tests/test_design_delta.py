"""The iteration delta pairs findings by what they are about, so rewording changes no state.

A property over the gold pairs: each gold case's design is reviewed, then a second version with
its prose reworded (synonyms, numbering, line wrapping; no fact changed) is reviewed; in the
delta between the two, no gold issue is both resolved (through a first-round finding) and new
(through a second-round finding), and no resolved finding has a new counterpart about the same
gold issue. Then the same at the level of findings: findings reworded as another reviewer would
word them all persist, a rejected finding stays rejected, and each pair says why.
"""

from __future__ import annotations

import re

import pytest

from review_harness.core.member import MemberResult, MemberRun
from review_harness.design.dataset import gold_samples
from review_harness.design.delta import build_delta, offline_pairs
from review_harness.design.gold import load_design_gold
from review_harness.design.matching import Locator, compare_design
from review_harness.design.models import DesignFinding, Severity, SeverityVote
from review_harness.design.offline.engine import review_as_persona
from review_harness.design.personas import default_personas
from review_harness.design.synthesis import ReviewContext, synthesize_design

CONFIG = default_personas()
CASES = [s for s in gold_samples("design", "all", None, None, CONFIG) if not s.id[:2].isdigit()]

# the same words in other words: no figure, requirement id or named thing changes
REWORDINGS = [
    (r"\bbecause\b", "since"), (r"\bevery\b", "each"), (r"\bapproximately\b", "about"), (r"\balso\b", "in addition"),
    (r"\buses\b", "relies on"), (r"\bIn addition,\b", "Also,"), (r"\bhowever\b", "but"), (r"\bwhich means\b", "so"),
    (r"\bthe team\b", "our team"), (r"\bquickly\b", "fast"), (r"\bbegins\b", "starts"), (r"\bstores\b", "keeps"),
    (r"\bcan\b", "is able to"), (r"\bsends\b", "delivers"), (r"\bin order to\b", "to"), (r"\bThis document\b", "This design"),
    (r"\bdescribes\b", "explains"), (r"\bbetter\b", "stronger"), (r"\btoday\b", "at present"),
]


def reword(text: str) -> str:
    """Prose reworded line by line; headings lose their numbering; code and tables stay."""
    out, fenced = [], False
    for line in text.split("\n"):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        if fenced or line.lstrip().startswith("|"):
            out.append(line)
            continue
        if line.startswith("#"):
            out.append(re.sub(r"^(#+\s+)\d+(?:\.\d+)*\.?\s+", r"\1", line))
            continue
        for pattern, words in REWORDINGS:
            line = re.sub(pattern, words, line)
        out.append(line)
    return "\n".join(out)


def review_of(design: str, requirements: str, stage: str, iteration: int):
    personas = CONFIG.active(stage)
    results = {p: MemberResult(MemberRun(kind="design", member=p, status="complete"),
                               review_as_persona(p, stage, design, requirements)) for p in personas}
    context = ReviewContext(topic="t", stage=stage, personas=personas, design_path="d", requirements_path="r",
                            date="2026-01-01", iteration=iteration, design_text=design, requirements_text=requirements)
    return synthesize_design(context, results, None, CONFIG)


def gold_of(review, gold, design: str, requirements: str) -> dict[str, str]:
    """finding id -> the gold issue it reports (located in the documents it was made of)."""
    comparison = compare_design(review, gold, where=Locator({"design": design, "requirements": requirements}))
    return {m.finding: m.gold for m in comparison.matches}


@pytest.mark.parametrize("sample", CASES, ids=lambda s: str(s.id))
def test_a_reworded_second_version_puts_no_finding_in_two_states(sample):
    gold = load_design_gold(sample.metadata["gold"])
    design, requirements = sample.input, sample.metadata["requirements_text"]
    stage = sample.metadata["stage"]
    reviewed_first = review_of(design, requirements, stage, 1)
    v2_design, v2_requirements = reword(design), reword(requirements)
    assert v2_design != design  # the property is about a changed text
    reviewed_second = review_of(v2_design, v2_requirements, stage, 2)
    previous = [f.model_dump(mode="json") for f in reviewed_first.findings]
    delta = build_delta(previous, [], reviewed_second.findings, [], from_iteration=1, to_iteration=2)

    reworded_gold = gold.model_copy(update={"expected_findings": [
        f.model_copy(update={"evidence": reword(f.evidence)}) for f in gold.expected_findings]})
    first = gold_of(reviewed_first, gold, design, requirements)
    second = gold_of(reviewed_second, reworded_gold, v2_design, v2_requirements)
    resolved = {first[i.id] for i in delta.findings.resolved if i.id in first}
    new = {second[i.id] for i in delta.findings.new if i.id in second}
    assert not resolved & new, f"gold issues both resolved and new: {sorted(resolved & new)}"
    # and every level is a partition (each finding in exactly one state)
    states = [i.id for i in delta.findings.resolved] + [p.previous for p in delta.findings.persisting]
    assert sorted(states) == sorted(f.id for f in reviewed_first.findings)


# ---------------------------------------------------------------------------- findings reworded directly


def finding(fid: str, title: str, section: str, issue: str, evidence: str | None = None,
            disposition: str | None = None) -> DesignFinding:
    persona = re.match(r"v\d+-(.+)-\d+$", fid).group(1)
    return DesignFinding(id=fid, title=title, section=section, issue=issue, why_it_matters="It breaks.",
                         suggestion="Fix it.", evidence=evidence, severity=Severity.IMPORTANT,
                         severity_range=[SeverityVote(persona=persona, severity=Severity.IMPORTANT)],
                         reviewers=[persona], primary_phase="design", member_ids=[fid], disposition=disposition)


FIRST = [
    finding("v1-edge-case-prober-001", "Remote calls have no timeout", "Design > Delivery",
            "The design makes remote calls ('the worker posts each event to the customer URL') and never states a timeout.",
            "The worker posts each event to the customer URL."),
    finding("v1-requirement-auditor-001", "Scope creep: a reporting dashboard no requirement asks for", "Design > Extras",
            "The design adds a reporting dashboard, and no requirement asks for it.", "We will also build a reporting dashboard."),
    finding("v1-assumption-hunter-001", "Load ceiling asserted without evidence", "Design > Capacity",
            "The design states 'traffic will stay under 500 events per second' as settled fact.",
            "Traffic will stay under 500 events per second."),
    finding("v1-prior-art-scout-001", "Custom build chosen with no alternatives weighed", "Design > Email",
            "The design builds its own mail relay.", "We will build our own mail relay.", disposition="rejected"),
]
# the second version: the design's sentences changed a little, the findings are worded anew
SECOND = [
    finding("v2-edge-case-prober-001", "Remote calls have no timeout", "Design > Delivery",
            "The design calls out to customer endpoints ('each event is posted to the URL the customer registered') and no deadline is given.",
            "Each event is posted to the URL the customer registered."),
    finding("v2-requirement-auditor-001", "Unrequested scope: the design adds a reporting dashboard", "Design > Extras",
            "A reporting dashboard is added although no requirement calls for it.", "In addition, we will build a reporting dashboard."),
    finding("v2-assumption-hunter-001", "Traffic ceiling claimed without evidence", "Design > Capacity",
            "The design takes 'traffic stays below 500 events per second' as given, with nothing to support it.",
            "Traffic stays below 500 events per second."),
    finding("v2-edge-case-prober-002", "No dead-letter path for poison events", "Design > Delivery",
            "An event that always fails is retried for ever.", "Failed events are retried."),
]


def test_reworded_findings_persist_and_say_why():
    previous = [f.model_dump(mode="json") for f in FIRST]
    delta = build_delta(previous, [], SECOND, [], from_iteration=1, to_iteration=2)
    pairs = {(p.previous, p.current) for p in delta.findings.persisting}
    assert pairs == {("v1-edge-case-prober-001", "v2-edge-case-prober-001"),
                     ("v1-requirement-auditor-001", "v2-requirement-auditor-001"),
                     ("v1-assumption-hunter-001", "v2-assumption-hunter-001")}
    assert all(p.reason.startswith("Paired offline:") and "section" in p.reason for p in delta.findings.persisting)
    # rejected and not reported again: still rejected, not resolved
    assert [i.id for i in delta.findings.rejected] == ["v1-prior-art-scout-001"] and not delta.findings.resolved
    assert [i.id for i in delta.findings.new] == ["v2-edge-case-prober-002"]
    assert "closest" in delta.findings.new[0].note or "no finding" in delta.findings.new[0].note


def test_same_section_and_title_with_another_quote_is_one_finding():
    before = [FIRST[0].model_dump(mode="json")]
    after = [FIRST[0].model_copy(update={"id": "v2-edge-case-prober-001", "evidence": "Delivery happens over HTTPS.",
                                         "issue": "Outbound delivery has no deadline."}).model_dump(mode="json")]
    assert [(i, j) for i, j, _ in offline_pairs(before, after)] == [(0, 0)]


def test_two_problems_in_one_section_are_not_paired():
    before = [FIRST[0].model_dump(mode="json")]
    other = SECOND[3].model_dump(mode="json")
    assert offline_pairs(before, [other]) == []
