"""The domain dimension, finished (issue 19 s3): topic hints from the document reach the brief,
a provider model checks claims with web_search() (a failed search costs nothing), conflicts are
carried to the next foundational refresh and matched across abbreviations, and the conflict
notice is shown only when a conflict touches the document."""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

import anyio
import pytest

from review_harness.core.member import MemberResult, MemberRun
from review_harness.core.paths import FIXTURES_DIR
from review_harness.domain.config import load_index, load_roster
from review_harness.domain.digest import Bullet, Digest, Subsection, TierSection
from review_harness.domain.drafting import conflict_with, review_conflicts
from review_harness.domain.knowledge import replaced_terms
from review_harness.domain.prompt import parse_domain_report
from review_harness.domain.refresh import refresh_domain
from review_harness.domain.reviewer import default_reviewer_rubric
from review_harness.domain.skill import get_domain_context
from review_harness.domain.sources import FolderSource
from review_harness.domain.topics import conflict_touches, domain_fit, mentions_term, same_term, topic_hints
from review_harness.ds.domain_dim import DomainInput, banner
from helpers import reviews, run

ROOT = Path(__file__).resolve().parent.parent
KNOWLEDGE = ROOT / "knowledge" / "domain"
PAGES = KNOWLEDGE / "pages" / "search-ranking"
DOC = FIXTURES_DIR / "domain" / "search" / "click-eval-no-position-bias.md"
DRUB = default_reviewer_rubric()
NOW = dt.datetime(2026, 11, 23, 12, 0, tzinfo=dt.timezone.utc)


# ------------------------------------------------------------------ topic hints


def test_topic_hints_name_the_documents_methods_and_metrics():
    hints = topic_hints("We compare NDCG@10 and MRR of two rankers with interleaving; CTR is a guardrail.")
    assert hints[:4] == ["ndcg", "mrr", "interleaving", "ctr"]
    assert topic_hints("Revenue per visitor rose after the pricing change (bootstrap interval).") == ["revenue", "bootstrap"]


def test_the_ds_review_sends_its_topic_hints_to_the_skill(tmp_path, monkeypatch):
    import solvers.ds_panel

    seen = {}
    real = solvers.ds_panel.get_domain_context

    def spy(domains, topic_hints=None, **kwargs):
        seen["hints"] = topic_hints
        return real(domains, topic_hints=topic_hints, **kwargs)

    monkeypatch.setattr(solvers.ds_panel, "get_domain_context", spy)
    log = run(tmp_path, document=str(DOC), domain="search-ranking")
    text = DOC.read_text(encoding="utf-8")
    assert seen["hints"] == domain_fit(text, ["search-ranking"]).hints and {"ndcg", "ctr", "interleaving"} <= set(seen["hints"])
    [sample] = log.samples
    assert sample.metadata["domain_brief"]["topic_hints"] == seen["hints"]
    # the brief is filtered by section: the pitfalls section (position bias) reaches the reviewer
    assert "Position bias in click data" in get_domain_context(["search-ranking"], topic_hints=seen["hints"]).content


def test_hints_keep_a_whole_section_so_an_unnamed_pitfall_still_arrives():
    brief = get_domain_context(["search-ranking"], topic_hints=["ctr"])
    # the document names CTR, never position bias; the pitfalls section it sits in comes whole
    assert "Optimizing CTR alone" in brief.content and "Position bias in click data" in brief.content


# ------------------------------------------------------------------ web_search with a provider model


class _Provider:
    def __init__(self, name: str):
        self.name = name

    def __str__(self) -> str:
        return self.name


@pytest.mark.parametrize("model, searches", [("anthropic/claude-sonnet-4-5", True), ("openai/gpt-5", True),
                                             ("offline/rules", False), ("mockllm/model", False)])
def test_a_provider_model_checks_claims_with_web_search(monkeypatch, model, searches):
    import review_harness.domain.member as member

    seen = {}

    async def fake_call(kind, name, messages, schema, parse, **kwargs):
        seen.update(schema=schema, tools=kwargs.get("tools"), request=messages[-1].text)
        return MemberResult(MemberRun(kind=kind, member=name, status="failed", reason="not called"))

    monkeypatch.setattr(member, "call_member", fake_call)
    brief = get_domain_context(["search-ranking"])
    from review_harness.core.member import RetryPolicy

    anyio.run(lambda: member.domain_review(DOC.read_text(), brief, DRUB, model=_Provider(model), policy=RetryPolicy()))
    assert member.can_search(_Provider(model)) is searches
    if searches:
        assert [t.__name__ if hasattr(t, "__name__") else str(t) for t in seen["tools"]] and seen["schema"] is None
        from inspect_ai.tool import ToolDef

        assert ToolDef(seen["tools"][0]).name == "web_search"
        assert "You have a web_search tool" in seen["request"]
    else:
        assert seen["tools"] is None and seen["schema"] is not None
        assert "web_search" not in seen["request"]


def test_a_claim_the_search_could_not_check_costs_nothing():
    """Seed 001 D10: claim_unverifiable needs a search that found the claim unsupported; without
    one (no source, or not a web search) the claim is listed as unverified, with no deduction."""
    brief = get_domain_context(["search-ranking"])
    quote = "Research shows that users never scroll past the first page."
    answer = {"findings": [
        {"lens": "benchmark", "issue_type": "claim_unverifiable", "summary": "Could not check the claim.",
         "quote": quote, "section": "Results", "fix": None, "source_kind": "general", "source_ref": None},
        {"lens": "benchmark", "issue_type": "claim_unverifiable", "summary": "The search found no support.",
         "quote": quote, "section": "Results", "fix": None, "source_kind": "web",
         "source_ref": "https://example.org/search?q=never+scroll"},
    ], "credits": [], "unverified_claims": []}
    import json

    outcome = parse_domain_report(json.dumps(answer), brief, DRUB)
    [finding] = outcome.report.findings
    assert finding.source.kind == "web" and finding.points == 3 and finding.id == "D1"
    assert outcome.report.unverified == [quote]
    assert any("listed as unverified, no deduction" in p for p in outcome.problems)


# ------------------------------------------------------------------ conflicts: abbreviations and carry-over


def test_abbreviations_and_long_forms_are_one_term():
    assert mentions_term("corrected with inverse propensity weighting", "IPW")
    assert mentions_term("we switched from IPW to doubly robust", "inverse propensity weighting")
    assert not mentions_term("it pays well", "IPW") and not mentions_term("in place where", "IPW")
    assert same_term("LTR", "learning to rank") and same_term("ipw", "Inverse Propensity Weighting")
    assert not same_term("IPW", "inverse propensity weighting for clicks")


@pytest.mark.parametrize("workstream, foundational", [
    ("Ranking evaluations now use the doubly-robust estimator instead of IPW.",
     "Click-based evaluation needs a correction (inverse propensity weighting with estimated propensities)."),
    ("Going forward we use randomized swaps instead of inverse propensity weighting.",
     "The standard position-bias correction is IPW."),
])
def test_a_conflict_is_found_across_an_abbreviation(workstream, foundational):
    line = conflict_with(workstream, [foundational])
    assert line is not None and line.startswith("CONFLICT: Foundational knowledge names")
    assert conflict_with("Ranking evaluations now use interleaving.", [foundational]) is None
    assert replaced_terms("the v2 decision replaces it with the doubly-robust estimator") == []


def _digest(foundational: list[str], conflicts: list[Bullet], workstream: list[str] = ()) -> Digest:
    sections = [TierSection(title="Foundational Knowledge", authority="authoritative", cadence="monthly",
                            subsections=[Subsection(title="Known Pitfalls", bullets=[Bullet(text=t) for t in foundational])])]
    if workstream:
        sections.append(TierSection(title="Workstream Standards", authority="authoritative", cadence="weekly",
                                    subsections=[Subsection(title="Active Project Decisions",
                                                            bullets=[Bullet(text=t) for t in workstream])]))
    return Digest(domain="search-ranking", version="2026-11-23T12:00:00Z", sections=sections, conflicts=conflicts)


def test_a_conflict_waits_for_the_next_foundational_refresh_as_a_review_item():
    flagged = Bullet(date=dt.date(2026, 11, 6), text=conflict_with(
        "Ranking evaluations use the doubly-robust estimator instead of IPW.",
        ["Clicks need inverse propensity weighting (IPW)."]))
    previous = _digest(["Clicks need inverse propensity weighting (IPW)."], [flagged])
    # a workstream refresh that no longer sees the decision page keeps the conflict
    kept, items = review_conflicts(previous, _digest(["Clicks need inverse propensity weighting (IPW)."], []), "workstream")
    assert kept == [flagged] and items == []
    # the next foundational refresh reviews it: still open while the foundational tier names IPW...
    kept, items = review_conflicts(previous, _digest(["Clicks need inverse propensity weighting."], []), "foundational")
    assert kept == [flagged] and items[0].startswith("open (flagged 2026-11-06): the foundational tier still names IPW")
    # ...resolved once the foundational page was updated
    kept, items = review_conflicts(previous, _digest(["Clicks need the doubly-robust estimator."], []), "foundational")
    assert kept == [] and items[0].startswith("resolved (flagged 2026-11-06): the foundational tier no longer names IPW")


def test_refreshes_carry_the_conflict_to_the_foundational_review(tmp_path):
    kb = tmp_path / "kb"
    shutil.copytree(KNOWLEDGE, kb)
    index, roster = load_index(kb / "domain-index.yaml"), load_roster(kb / "team-roster.yaml")

    async def curator(page, context):
        from inspect_ai.model import get_model

        from review_harness.domain.importance import ask_curator

        return await ask_curator("search-ranking", page, context, get_model("offline/rules"))

    first = anyio.run(lambda: refresh_domain("search-ranking", index, roster, FolderSource(PAGES), curator, now=NOW))
    assert first.published and first.review_items and first.review_items[0].startswith("open")
    monthly = anyio.run(lambda: refresh_domain("search-ranking", index, roster, FolderSource(PAGES), curator,
                                               now=NOW + dt.timedelta(days=30), tier="foundational"))
    assert any("IPW" in item and item.startswith("open") for item in monthly.review_items)
    from review_harness.domain.versions import load_current

    assert any("IPW" in b.text for b in load_current(kb / "digests" / "search-ranking.md").digest.conflicts)


# ------------------------------------------------------------------ the banner


def _banner(text: str, findings=()) -> str | None:
    brief = get_domain_context(["search-ranking"])
    domain = DomainInput(domains=["search-ranking"], brief=brief, findings=list(findings),
                         fit=domain_fit(text, ["search-ranking"]))
    return banner(domain)


def test_the_conflict_notice_shows_only_when_the_conflict_touches_the_document():
    brief = get_domain_context(["search-ranking"])
    assert brief.conflicts and any("conflict(s)" in w for w in brief.warnings)
    about = "We rank results by clicks corrected with inverse propensity weighting, then compare NDCG of the rankers."
    shown = _banner(about)
    assert shown is not None and "conflict(s)" in shown
    unrelated = "The new ranker lifts NDCG@10 on the judged set of queries; the ranking team ships it next sprint."
    hidden = _banner(unrelated)
    assert hidden is None or "conflict(s)" not in hidden
    # a domain finding about the conflict's subject brings the notice back
    from review_harness.domain.reviewer import FindingSource, make_finding

    finding = make_finding(DRUB, "D1", "pitfall", "critical_pitfall_ignored", FindingSource(kind="general"),
                           "Click-based evaluation without position-bias correction")
    assert "conflict(s)" in (_banner(unrelated, [finding]) or "")
    assert conflict_touches(brief.conflicts[0].split(": ", 1)[1], ["ipw"])


def test_the_review_shows_the_banner_for_a_click_evaluation(tmp_path):
    log = run(tmp_path, document=str(DOC), domain="search-ranking")
    [review] = reviews(log).values()
    assert review.domain.banner and "conflict(s)" in review.domain.banner
    assert "> **Domain knowledge warnings**" in log.samples[0].output.completion
