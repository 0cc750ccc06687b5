"""Refresh pipeline: importance and tiebreaker formulas, budgets, folder refresh, Confluence discovery."""

from __future__ import annotations

import datetime as dt
import json
import shutil
from pathlib import Path

import anyio
import pytest

from review_harness.core.schema import schema_dict, schema_problems
from review_harness.domain.config import load_index, load_roster
from review_harness.core.kinds import get_kind
from review_harness.domain.importance import (
    CURATOR_SCHEMA,
    ask_curator,
    budgets,
    llm_importance,
    parse_curator_answer,
    render_curator_prompt,
    tiebreaker,
)
from review_harness.domain.refresh import refresh_domain
from review_harness.domain.sources import ConfluenceSource, FolderSource, Page, SourceError
from review_harness.domain.versions import load_current, read_status

ROOT = Path(__file__).resolve().parent.parent
KNOWLEDGE = ROOT / "knowledge" / "domain"
PAGES = KNOWLEDGE / "pages" / "search-ranking"
DATA = Path(__file__).resolve().parent / "data" / "domain"
NOW = dt.datetime(2026, 11, 23, 12, 0, tzinfo=dt.timezone.utc)


@pytest.fixture
def kb(tmp_path):
    shutil.copytree(KNOWLEDGE, tmp_path / "kb")
    return tmp_path / "kb"


def test_importance_formula_and_tiebreaker_bounds():
    assert llm_importance(review_impact=1.0, knowledge_density=0.0) == pytest.approx(0.6)
    assert llm_importance(review_impact=0.5, knowledge_density=0.5) == pytest.approx(0.5)
    assert tiebreaker(1, 1, 1) == pytest.approx(0.05)
    assert tiebreaker(0, 0, 0) == pytest.approx(-0.05)
    assert tiebreaker(1, 0, 0) == pytest.approx(0.05 * (2 * 0.40 - 1))
    assert tiebreaker(0, 1, 0) == pytest.approx(0.05 * (2 * 0.35 - 1))
    assert tiebreaker(0, 0, 1) == pytest.approx(0.05 * (2 * 0.25 - 1))


def test_budgets_are_proportional_and_sum_to_budget():
    out = budgets({"a": 0.9, "b": 0.6, "c": 0.3, "z": 0.0}, 5000)
    assert sum(out.values()) == 5000 and out["z"] == 0
    assert out == {"a": 2500, "b": 1667, "c": 833, "z": 0}
    assert sum(budgets({"a": 1 / 3, "b": 1 / 3, "c": 1 / 3}, 3500).values()) == 3500


def test_curator_schema_is_sendable_and_answers_checked():
    assert schema_problems(schema_dict(CURATOR_SCHEMA)) == []
    ok = parse_curator_answer('{"knowledge_density": 0.4, "review_impact": 0.9, "rationale": "r"}')
    assert ok.usable and ok.report.review_impact == 0.9
    out_of_range = parse_curator_answer('{"knowledge_density": 1.4, "review_impact": 0.9, "rationale": "r"}')
    assert out_of_range.malformed and out_of_range.problems == ["knowledge_density=1.4 is outside 0..1"]


def _page(body, **kw):
    return Page(id=kw.get("id", "1"), title=kw.get("title", "T"), updated=NOW, body=body, author=kw.get("author"))


def test_offline_curator_scores_from_page_features():
    rich = _page("Position bias in click data is a known pitfall: always correct with IPW. "
                 "NDCG@10 must stay between 0.40 and 0.55 on the judged set.\n\n"
                 "We found that tail queries regressed 3% when the head improved.\n")
    thin = _page("Alice is on vacation next week and Bob will cover the rotation.\n")
    scores = []
    curator = get_kind("domain").offline_answer
    for page in (rich, thin):
        _, request = render_curator_prompt("search-ranking", page, "someone")
        scores.append(json.loads(curator("curator", request)))
    assert scores[0]["knowledge_density"] > 0.5 and scores[0]["review_impact"] >= 0.3
    assert scores[1] == {"knowledge_density": 0.0, "review_impact": 0.0,
                         "rationale": "0 of 1 sentences carry domain knowledge; 0 name pitfalls, 0 state standards "
                                      "or decisions, 0 give concrete numbers."}
    assert curator("curator", "some other prompt") is None
    assert curator("not-a-domain-member", request) is None


async def _offline_curator(page, context):
    from inspect_ai.model import get_model

    return await ask_curator("search-ranking", page, context, get_model("offline/rules"))


def test_refresh_from_folder_writes_version_logs_scores_and_candidates(kb):
    index, roster = load_index(kb / "domain-index.yaml"), load_roster(kb / "team-roster.yaml")
    report = anyio.run(lambda: refresh_domain("search-ranking", index, roster, FolderSource(PAGES),
                                              _offline_curator, now=NOW))
    assert report.published and report.version == "2026-11-23T12:00:00Z"
    current = kb / "digests" / "search-ranking.md"
    digest = load_current(current).digest
    assert digest.version == "2026-11-23T12:00:00Z" and digest.previous == "2026-11-16T09:00:00Z"
    titles = {s.title: s.authority for s in digest.sections}
    assert titles == {"Foundational Knowledge": "authoritative", "Workstream Standards": "authoritative",
                      "Workstream Learnings": "advisory"}
    assert digest.conflicts and "IPW" in digest.conflicts[0].text
    learning = digest.section("Workstream Learnings").subsections[0].bullets[0]
    assert learning.date == dt.date(2026, 11, 18) and learning.text.endswith("(source: 12391)")
    # discovered pages outside the index are candidates; the 14-day window drops nothing newer
    assert {c["id"] for c in report.candidates} == {"12381", "12391", "55501"}
    assert sum(report.budgets.values()) == 3500  # 5000 less the cross-domain share (0.3)
    log = json.loads((kb / "digests" / "search-ranking.scores.json").read_text())
    assert log["55501"]["final_importance"] == 0.0 or log["55501"]["final_importance"] < 0.05
    assert log["12347"]["rationale"].startswith("4 of 4 sentences carry domain knowledge")
    # idempotent: the same pages again give the same digest body; the latest score wins
    again = anyio.run(lambda: refresh_domain("search-ranking", index, roster, FolderSource(PAGES),
                                             _offline_curator, now=NOW + dt.timedelta(hours=1)))
    assert again.published and load_current(current).digest.sections == digest.sections
    assert json.loads((kb / "digests" / "search-ranking.scores.json").read_text())["12347"]["scored_at"].startswith(
        "2026-11-23T13:00")


def test_refresh_that_would_empty_the_digest_keeps_the_old_one(kb, tmp_path):
    empty_pages = tmp_path / "pages"
    empty_pages.mkdir()
    for page_id in ("12345", "12346", "12347", "99887"):  # every indexed page is there, with nothing to learn
        (empty_pages / f"{page_id}.md").write_text(f"---\nid: '{page_id}'\ntitle: Notes\nupdated: 2026-11-20\n---\n"
                                                   "Alice is on vacation next week.\n")
    index, roster = load_index(kb / "domain-index.yaml"), load_roster(kb / "team-roster.yaml")
    report = anyio.run(lambda: refresh_domain("search-ranking", index, roster, FolderSource(empty_pages),
                                              _offline_curator, now=NOW))
    assert not report.published
    assert any("the new digest is empty" in w for w in report.warnings)
    assert load_current(kb / "digests" / "search-ranking.md").digest.version == "2026-11-16T09:00:00Z"


def test_folder_source_bad_front_matter(tmp_path):
    (tmp_path / "p.md").write_text("---\ntitle: x\nupdated: 2026-11-20\n---\nbody\n")
    with pytest.raises(SourceError, match=r"p.md: front matter id: Input should be a valid string"):
        FolderSource(tmp_path).get_page("1")


def test_confluence_discovery_against_local_server(httpserver, kb):
    page = json.loads((DATA / "confluence_page_12360.json").read_text())
    search = json.loads((DATA / "confluence_search.json").read_text())
    httpserver.expect_request("/rest/api/content/12360").respond_with_json(page)
    httpserver.expect_request("/rest/api/search").respond_with_json(search)
    source = ConfluenceSource(httpserver.url_for("/").rstrip("/"), "bot", "secret", cloud=False)
    got = source.get_page("12360")
    assert got.space == "SEARCH-INFRA" and got.author == "rpatel" and got.comment_count == 7
    assert "set on p99, not the mean" in got.body
    since = NOW - dt.timedelta(days=14)
    found = source.discover(["SEARCH-INFRA"], ["latency-budgets"], since)
    assert [p.id for p in found] == ["12421", "12422"]
    search_request = [r for r, _ in httpserver.log if r.path == "/rest/api/search"][0]
    assert search_request.args["cql"] == ('type = page AND (space in ("SEARCH-INFRA") OR label in ("latency-budgets")) '
                                          'AND lastmodified >= "2026-11-09"')
    index, roster = load_index(kb / "domain-index.yaml"), load_roster(kb / "team-roster.yaml")
    report = anyio.run(lambda: refresh_domain("search-infra", index, roster, source, _offline_curator, now=NOW))
    assert report.pages == ["12360", "12421", "12422"]
    assert {c["id"] for c in report.candidates} == {"12421", "12422"}


def test_confluence_unavailable_records_failed_refresh(httpserver, kb):
    httpserver.expect_request("/rest/api/content/12360").respond_with_data("down", status=503)
    source = ConfluenceSource(httpserver.url_for("/").rstrip("/"), "bot", "secret", cloud=False)
    index, roster = load_index(kb / "domain-index.yaml"), load_roster(kb / "team-roster.yaml")
    report = anyio.run(lambda: refresh_domain("search-infra", index, roster, source, _offline_curator, now=NOW))
    assert not report.published and "refresh failed" in report.warnings[0]
    assert read_status(kb / "digests" / "search-infra.md")["status"] == "failed"


class _Scripted:
    """A stand-in model answering every call with one text (or raising)."""

    def __init__(self, text=None, error=None):
        self.text, self.error, self.calls = text, error, 0

    async def generate(self, messages, config=None, cache=False):
        from inspect_ai.model import ModelOutput

        self.calls += 1
        if self.error:
            raise self.error
        return ModelOutput.from_content("scripted", self.text)


def test_model_synthesis_through_the_offline_provider(kb):
    from inspect_ai.model import get_model

    from review_harness.domain.synthesis import SYNTHESIS_SCHEMA

    assert schema_problems(schema_dict(SYNTHESIS_SCHEMA)) == []
    index, roster = load_index(kb / "domain-index.yaml"), load_roster(kb / "team-roster.yaml")
    report = anyio.run(lambda: refresh_domain("search-ranking", index, roster, FolderSource(PAGES), _offline_curator,
                                              now=NOW, synthesis_model=get_model("offline/rules")))
    assert report.published and report.warnings == []
    digest = load_current(kb / "digests" / "search-ranking.md").digest
    assert digest.conflicts and digest.conflicts[0].text.startswith("CONFLICT: Foundational knowledge names IPW")
    assert digest.section("Workstream Learnings").authority == "advisory"


def test_model_synthesis_is_checked_and_falls_back(kb):
    index, roster = load_index(kb / "domain-index.yaml"), load_roster(kb / "team-roster.yaml")
    long = " ".join(["word"] * 2000)
    answer = json.dumps({"bullets": [
        {"page_id": "12347", "subsection": "Known Pitfalls", "text": "Position bias needs IPW or randomization."},
        {"page_id": "99999", "subsection": "Made up", "text": "A page that was not given."},
        {"page_id": "12391", "subsection": "Recent Experiment Learnings", "text": long},
    ], "conflicts": [{"page_id": "12381", "text": "IPW is replaced by doubly-robust."}]})
    model = _Scripted(answer)
    report = anyio.run(lambda: refresh_domain("search-ranking", index, roster, FolderSource(PAGES), _offline_curator,
                                              now=NOW, synthesis_model=model))
    assert model.calls == 1
    assert "synthesis: dropped a bullet citing page '99999', not a page of this refresh" in report.warnings
    assert any(w.startswith("synthesis: dropped a bullet of page 12391 over its") for w in report.warnings)
    # the one bullet kept is less than half the old digest: the anomaly check keeps the old version
    assert not report.published
    assert any("token count dropped by more than 50%" in w for w in report.warnings)
    assert load_current(kb / "digests" / "search-ranking.md").digest.version == "2026-11-16T09:00:00Z"
    failing = _Scripted(error=RuntimeError("provider down"))
    report = anyio.run(lambda: refresh_domain("search-ranking", index, roster, FolderSource(PAGES), _offline_curator,
                                              now=NOW, synthesis_model=failing))
    assert report.published
    assert failing.calls == 2  # a failed call is tried once more
    assert ("search-ranking synthesis: the model failed (model call failed: RuntimeError: provider down); "
            "used the extractive synthesis") in report.warnings


def test_missing_indexed_page_is_a_warning_and_cli_refresh_from_confluence(httpserver, kb, monkeypatch, capsys):
    from review_harness.cli import main

    page = json.loads((DATA / "confluence_page_12360.json").read_text())
    search = json.loads((DATA / "confluence_search.json").read_text())
    httpserver.expect_request("/rest/api/content/12360").respond_with_json(page)
    httpserver.expect_request("/rest/api/content/12370").respond_with_data("", status=404)
    httpserver.expect_request("/rest/api/search").respond_with_json(search)
    source = ConfluenceSource(httpserver.url_for("/").rstrip("/"), "bot", "secret", cloud=False)
    assert source.get_page("12370") is None
    monkeypatch.setenv("CONFLUENCE_USERNAME", "bot")
    monkeypatch.setenv("CONFLUENCE_API_TOKEN", "secret")
    code = main(["domain", "--index", str(kb / "domain-index.yaml"), "--roster", str(kb / "team-roster.yaml"),
                 "refresh", "search-cross-domain", "--confluence", httpserver.url_for("/").rstrip("/"),
                 "--model", "offline/rules"])
    out = capsys.readouterr().out
    assert code == 1  # the one indexed page is gone: a degraded refresh, the current digest stays
    assert "warning: search-cross-domain: indexed page 12370 (End-to-End Search Evaluation Guide) not found" in out
    assert ("warning: search-cross-domain: refresh degraded (1 of 1 indexed pages unavailable (1 missing: 12370 "
            "(End-to-End Search Evaluation Guide) missing), over the 50% allowed); kept version 2026-11-16T09:00:00Z") in out
    auth = [r for r, _ in httpserver.log][-1].headers.get("Authorization", "")
    assert auth.startswith("Basic ")
