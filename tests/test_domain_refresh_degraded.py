"""A refresh that says when it is degraded: indexed pages missing, hidden or failed are counted;
above the index's threshold the previous digest stays (or the new one is published with a
warning), and the warning reaches the brief and the review; an empty digest is a warning;
external references are fetched again only past their TTL and warned about when stale; a conflict
is carried once; a password in a Confluence URL never reaches output or the refresh record."""

from __future__ import annotations

import datetime as dt
import json
import shutil
from pathlib import Path

import anyio
import pytest
import yaml

from review_harness.domain.config import load_index, load_roster
from review_harness.domain.refresh import refresh_domain
from review_harness.domain.skill import get_domain_context
from review_harness.domain.sources import FolderSource
from review_harness.domain.versions import load_current, read_status

ROOT = Path(__file__).resolve().parent.parent
KNOWLEDGE = ROOT / "knowledge" / "domain"
PAGES = KNOWLEDGE / "pages" / "search-ranking"
NOW = dt.datetime(2026, 11, 23, 12, 0, tzinfo=dt.timezone.utc)


async def _curator(page, context):
    from inspect_ai.model import get_model

    from review_harness.domain.importance import ask_curator

    return await ask_curator("search-ranking", page, context, get_model("offline/rules"))


@pytest.fixture
def kb(tmp_path):
    shutil.copytree(KNOWLEDGE, tmp_path / "kb")
    return tmp_path / "kb"


def _pages(tmp_path: Path, keep: set[str], restricted: set[str] = frozenset()) -> Path:
    """The example pages with only `keep` of them (and `restricted` marked so)."""
    folder = tmp_path / "pages"
    shutil.copytree(PAGES, folder)
    for path in folder.glob("*.md"):
        page_id = path.name.split("-")[0]
        if page_id not in keep and page_id not in restricted:
            path.unlink()
        elif page_id in restricted:
            path.write_text(path.read_text(encoding="utf-8").replace("---\n", "---\nrestricted: true\n", 1),
                            encoding="utf-8")
    return folder


def _refresh(kb: Path, folder: Path, when=NOW, **kwargs):
    index, roster = load_index(kb / "domain-index.yaml"), load_roster(kb / "team-roster.yaml")
    return anyio.run(lambda: refresh_domain("search-ranking", index, roster, FolderSource(folder), _curator, now=when,
                                            **kwargs))


def _set_refresh(kb: Path, **settings) -> None:
    path = kb / "domain-index.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["search-ranking"]["refresh"].update(settings)
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")


def test_a_refresh_with_most_pages_missing_keeps_the_previous_version_and_the_brief_says_so(kb, tmp_path):
    # 3 of the 4 indexed pages are gone (two missing, one hidden); the pages left would make a digest
    folder = _pages(tmp_path, keep={"12346", "12381", "12391"}, restricted={"12347"})
    report = _refresh(kb, folder)
    assert not report.published
    assert [(u["id"], u["reason"]) for u in report.unavailable] == [("12345", "missing"), ("12347", "hidden"),
                                                                    ("99887", "missing")]
    status = read_status(kb / "digests" / "search-ranking.md")
    assert status["status"] == "degraded" and status["version"] == "2026-11-16T09:00:00Z"
    assert status["message"].startswith("3 of 4 indexed pages unavailable (2 missing, 1 hidden: 12345")
    assert load_current(kb / "digests" / "search-ranking.md").digest.version == "2026-11-16T09:00:00Z"
    brief = get_domain_context(["search-ranking"], index=load_index(kb / "domain-index.yaml"), clock=lambda: NOW)
    [warning] = [w for w in brief.warnings if "degraded" in w]
    assert warning.startswith("search-ranking: last refresh was degraded (3 of 4 indexed pages unavailable")
    assert warning.endswith("serving the previous digest")
    # the knowledge the lost pages held is still served: the benchmark range behind a CRITICAL finding
    assert "between 0.40 and 0.55" in brief.content


def test_a_degraded_refresh_can_publish_with_a_warning_every_brief_repeats(kb, tmp_path):
    _set_refresh(kb, **{"when-degraded": "publish"})
    assert _refresh(kb, PAGES).published  # every page: the version the degraded one is compared with
    folder = _pages(tmp_path, keep={"12347", "12381", "12391"}, restricted={"99887"})
    report = _refresh(kb, folder, when=NOW + dt.timedelta(hours=1))
    assert report.published and any(w.startswith("search-ranking: refresh degraded (3 of 4") for w in report.warnings)
    brief = get_domain_context(["search-ranking"], index=load_index(kb / "domain-index.yaml"), clock=lambda: NOW)
    assert any(w.startswith(f"search-ranking: digest version {report.version} was built by a degraded refresh (3 of 4")
               for w in brief.warnings)


def test_one_page_missing_is_under_the_threshold_and_still_named_in_the_brief(kb, tmp_path):
    folder = _pages(tmp_path, keep={"12345", "12346", "12347", "12381", "12391"})
    report = _refresh(kb, folder)
    assert report.published and [u["id"] for u in report.unavailable] == ["99887"]
    brief = get_domain_context(["search-ranking"], index=load_index(kb / "domain-index.yaml"), clock=lambda: NOW)
    assert any("was built without some indexed pages (1 of 4 indexed pages unavailable (1 missing: 99887" in w
               for w in brief.warnings)


def test_the_threshold_is_data(kb, tmp_path):
    folder = _pages(tmp_path, keep={"12347", "12381", "12391"}, restricted={"99887"})
    assert _refresh(kb, PAGES).published
    assert not _refresh(kb, folder, when=NOW + dt.timedelta(hours=1)).published  # 75% over the default 50%
    _set_refresh(kb, **{"max-unavailable": 0.8})
    report = _refresh(kb, folder, when=NOW + dt.timedelta(hours=2))
    assert report.published  # 75% unavailable is within an 80% allowance
    assert read_status(kb / "digests" / "search-ranking.md")["status"] == "ok"


def test_an_empty_current_digest_is_a_warning(kb):
    path = kb / "digests" / "search-infra.md"
    path.write_text("# search-infra domain digest\n# Version: 2026-11-20T09:00:00Z\n# Previous: none\n",
                    encoding="utf-8")
    brief = get_domain_context(["search-infra"], index=load_index(kb / "domain-index.yaml"), clock=lambda: NOW)
    assert "search-infra: digest version 2026-11-20T09:00:00Z is empty: the domain reviewer has no team knowledge to " \
           "apply; refresh it or roll it back" in brief.warnings


def test_the_degraded_refresh_warning_is_in_the_review(kb, tmp_path, monkeypatch):
    from helpers import reviews, run

    _refresh(kb, _pages(tmp_path, keep={"12346"}))
    monkeypatch.setenv("REVIEW_DOMAIN_INDEX", str(kb / "domain-index.yaml"))
    document = KNOWLEDGE.parent.parent / "fixtures" / "domain" / "search" / "click-eval-no-position-bias.md"
    log = run(tmp_path, document=str(document), domain="search-ranking")
    [review] = reviews(log).values()
    assert "last refresh was degraded (3 of 4 indexed pages unavailable" in review.domain.banner
    assert "last refresh was degraded" in log.samples[0].output.completion


# ------------------------------------------------------------------ external references and their TTL


def _reference_page(folder: Path, url: str, body: str) -> None:
    (folder / "external-msmarco.md").write_text(
        f"---\nid: ext-1\ntitle: MS MARCO leaderboard copy\nupdated: 2026-11-20\nexternal-url: {url}\n---\n{body}\n",
        encoding="utf-8")


def test_external_references_are_fetched_past_their_ttl_and_warned_about_when_stale(kb, tmp_path):
    url = "https://microsoft.github.io/msmarco/"
    folder = tmp_path / "pages"
    shutil.copytree(PAGES, folder)
    _reference_page(folder, url, "The leaderboard's top MRR@10 on the passage ranking task was 0.44 in 2026, "
                                 "a benchmark ranking systems should cite with its date.")
    first = _refresh(kb, folder)
    assert first.published and url in first.pages
    current = kb / "digests" / "search-ranking.md"
    assert any(f"(source: {url})" in b.text for b in load_current(current).digest.bullets())
    record = json.loads((kb / "digests" / "search-ranking.references.json").read_text(encoding="utf-8"))
    assert record[url]["status"] == "fetched" and record[url]["checked_at"].startswith("2026-11-23")
    # ten days on, within the 30-day TTL: not fetched again, its bullets carried over
    second = _refresh(kb, folder, when=NOW + dt.timedelta(days=10))
    assert url not in second.pages
    assert any(f"(source: {url})" in b.text for b in load_current(current).digest.bullets())
    index = load_index(kb / "domain-index.yaml")
    fresh = get_domain_context(["search-ranking"], index=index, clock=lambda: NOW + dt.timedelta(days=10))
    assert not any("external reference" in w for w in fresh.warnings)
    stale = get_domain_context(["search-ranking"], index=index, clock=lambda: NOW + dt.timedelta(days=45))
    assert ("search-ranking: external reference MS MARCO leaderboard (https://microsoft.github.io/msmarco/) was last "
            "fetched 45 days ago, past its 30-day TTL; figures from it may be outdated") in stale.warnings
    # past the TTL the next refresh fetches it again
    third = _refresh(kb, folder, when=NOW + dt.timedelta(days=45))
    assert url in third.pages


# ------------------------------------------------------------------ conflicts once, credentials never


def test_the_same_conflict_is_carried_once_after_a_refresh(kb):
    report = _refresh(kb, PAGES)
    conflicts = load_current(kb / "digests" / "search-ranking.md").digest.conflicts
    assert report.published and len(conflicts) == 1
    assert conflicts[0].date == dt.date(2026, 11, 6)  # the first time it was flagged
    again = _refresh(kb, PAGES, when=NOW + dt.timedelta(days=1), tier="workstream")
    assert again.published and len(load_current(kb / "digests" / "search-ranking.md").digest.conflicts) == 1


def test_a_password_in_the_confluence_url_is_never_printed_or_recorded(kb, capsys):
    from review_harness.cli import main

    code = main(["domain", "--index", str(kb / "domain-index.yaml"), "--roster", str(kb / "team-roster.yaml"),
                 "refresh", "search-infra", "--confluence", "http://user:PASSWORD@wiki.example.test/wiki",
                 "--model", "offline/rules"])
    captured = capsys.readouterr()
    assert code != 0
    assert "PASSWORD" not in captured.out + captured.err
    assert "remove the credentials from the URL" in captured.err
    for path in (kb / "digests").iterdir():
        assert "PASSWORD" not in path.read_text(encoding="utf-8")
