"""Domain knowledge skill: config validation, digest round trip, budgets, warnings, versioning."""

from __future__ import annotations

import shutil
from datetime import datetime, timezone
from pathlib import Path

import pytest

from review_harness.domain.config import DomainConfigError, load_index, load_roster, parse_domain_list
from review_harness.domain.digest import Bullet, Digest, DigestError, Subsection, TierSection, parse_digest, render_digest
from review_harness.domain.skill import get_domain_context
from review_harness.domain.versions import (
    DigestStoreError,
    anomalies,
    list_versions,
    load_current,
    publish,
    read_status,
    rollback,
)

KNOWLEDGE = Path(__file__).resolve().parent.parent / "knowledge" / "domain"
NOV20 = datetime(2026, 11, 20, tzinfo=timezone.utc)


@pytest.fixture
def kb(tmp_path):
    shutil.copytree(KNOWLEDGE, tmp_path / "kb")
    return tmp_path / "kb"


def clock(moment=NOV20):
    return lambda: moment


def test_shipped_digests_round_trip():
    for path in (KNOWLEDGE / "digests").glob("*.md"):
        text = path.read_text()
        assert render_digest(parse_digest(text, str(path))) == text


def test_shipped_index_and_roster_load():
    index = load_index(KNOWLEDGE / "domain-index.yaml")
    assert index.reviewable() == ["search-ranking", "query-understanding", "search-infra"]
    assert index.cross_domains_for(["search-infra"]) == ["search-cross-domain"]
    assert index.entry("search-ranking").refresh.retain_versions == 4
    assert load_roster(KNOWLEDGE / "team-roster.yaml").member("jchen").role == "IC9 Principal Engineer"


def test_index_error_names_key_path(tmp_path):
    bad = tmp_path / "domain-index.yaml"
    bad.write_text("search-ranking:\n  pages:\n    - {id: '1', title: T, tier: textbook}\n"
                   "  refresh: {digest-path: d.md}\n")
    with pytest.raises(DomainConfigError) as err:
        load_index(bad)
    assert str(err.value).startswith("domain-index.yaml is invalid: search-ranking.pages.0.tier: Input should be")


def test_roster_error_names_key_path(tmp_path):
    bad = tmp_path / "team-roster.yaml"
    bad.write_text("team:\n  - {confluence-username: x, role: IC8}\n")
    with pytest.raises(DomainConfigError, match=r"team-roster.yaml is invalid: team.0.primary-domain: Field required"):
        load_roster(bad)


def test_domain_param_lists_domains_in_one_line():
    with pytest.raises(DomainConfigError) as err:
        parse_domain_list("nope")
    assert str(err.value) == ("-T domain=nope: unknown domain 'nope'; choose from: "
                              "search-ranking, query-understanding, search-infra")
    assert parse_domain_list("search-ranking, query-understanding") == ["search-ranking", "query-understanding"]
    assert parse_domain_list(None) == [] and parse_domain_list("") == []


def test_brief_fields_tiers_authority_and_cross_domain_once(kb):
    index = load_index(kb / "domain-index.yaml")
    brief = get_domain_context(["search-ranking", "query-understanding"], index=index, clock=clock())
    assert brief.domains_included == ["search-ranking", "query-understanding", "search-cross-domain"]
    assert brief.content.count("### search-cross-domain / Foundational Knowledge / End-to-End Evaluation") == 1
    key = "search-ranking / Workstream Learnings / Recent Post-Mortems"
    assert brief.knowledge_tier[key] == "workstream" and brief.authority_level[key] == "advisory"
    assert brief.authority_level["search-ranking / Workstream Standards / Active Project Decisions"] == "authoritative"
    assert brief.knowledge_tier["query-understanding / Foundational Knowledge / Known Pitfalls"] == "foundational"
    assert brief.versions["search-ranking"] == "2026-11-16T09:00:00Z"
    assert "search-ranking@2026-11-16T09:00:00Z" in brief.version
    assert any("1 conflict(s)" in w for w in brief.warnings)
    assert not any("older than 14 days" in w for w in brief.warnings)


@pytest.mark.parametrize("budget", [40, 120, 300, 800])
def test_brief_stays_within_budget_with_cross_domain_sharing_it(kb, budget):
    index = load_index(kb / "domain-index.yaml")
    brief = get_domain_context(["search-ranking"], max_tokens_per_domain=budget, index=index, clock=clock())
    assert brief.tokens <= budget
    two = get_domain_context(["search-ranking", "search-infra"], max_tokens_per_domain=budget, index=index, clock=clock())
    assert two.tokens <= 2 * budget and two.budget == 2 * budget


def test_topic_hints_order_the_brief_and_never_cut_it(kb):
    index = load_index(kb / "domain-index.yaml")
    plain = get_domain_context(["search-ranking"], index=index, clock=clock())
    brief = get_domain_context(["search-ranking"], ["position bias"], index=index, clock=clock())
    # the subsection that names the hint comes first, and nothing that fits the budget is left out
    assert brief.content.index("Position bias in click data") < brief.content.index("MRR is preferred")
    assert brief.content.startswith("### search-ranking / Foundational Knowledge / Known Pitfalls")
    assert sorted(brief.content.splitlines()) == sorted(plain.content.splitlines())


def test_stale_and_failed_refresh_warnings(kb):
    index = load_index(kb / "domain-index.yaml")
    (kb / "digests" / "search-infra.refresh.json").write_text(
        '{"status": "failed", "message": "Confluence unavailable", "at": "2026-11-19T00:00:00+00:00"}')
    brief = get_domain_context("search-infra", index=index, clock=clock(datetime(2026, 12, 1, tzinfo=timezone.utc)))
    assert "search-infra: digest version 2026-11-16T09:00:00Z is older than 14 days (14.6 days)" in brief.warnings
    assert any(w.startswith("search-infra: last refresh failed (Confluence unavailable)") for w in brief.warnings)


def test_no_model_call(kb, monkeypatch):
    import inspect_ai.model

    monkeypatch.setattr(inspect_ai.model, "get_model", lambda *a, **k: pytest.fail("model called"))
    assert get_domain_context(["search-infra"], index=load_index(kb / "domain-index.yaml"), clock=clock()).content


def test_unknown_domain_error(kb):
    with pytest.raises(DomainConfigError, match="unknown domain 'nope'; known: search-ranking"):
        get_domain_context(["nope"], index=load_index(kb / "domain-index.yaml"))


def test_corrupt_digest_is_an_error():
    with pytest.raises(DigestError, match=r"^x.md line 3: a section heading needs '\[authority: authoritative\|advisory\]'$"):
        parse_digest("# x domain digest\n\n## Foo\n- a\n", "x.md")


def _digest(version, bullets=10, words=12):
    sub = Subsection(title="Known Pitfalls", bullets=[Bullet(text=" ".join(["word"] * words)) for _ in range(bullets)])
    return Digest(domain="search-infra", version=version,
                  sections=[TierSection(title="Foundational Knowledge", authority="authoritative", subsections=[sub])])


def test_anomaly_triggers():
    old = _digest("2026-11-01T00:00:00Z")
    assert anomalies(_digest("2026-11-02T00:00:00Z", bullets=0), old)[0] == "the new digest is empty"
    assert anomalies(_digest("2026-11-02T00:00:00Z", bullets=4), old)[0].startswith("token count dropped by more than 50%")
    assert anomalies(_digest("2026-11-02T00:00:00Z", bullets=6), old) == []
    assert anomalies(_digest("2026-11-02T00:00:00Z"), old, [0.01, 0.04])[0].startswith("all 2 importance scores are near zero")
    assert anomalies(_digest("2026-11-02T00:00:00Z"), old, [0.01, 0.3]) == []


def test_publish_keeps_previous_on_anomaly_then_rollback_and_corrupt_fallback(kb):
    current = kb / "digests" / "search-infra.md"
    at = datetime(2026, 11, 21, tzinfo=timezone.utc)
    empty = publish(current, _digest("2026-11-21T00:00:00Z", bullets=0), 4, at=at)
    assert not empty.published and empty.kept_version == "2026-11-16T09:00:00Z"
    assert "the new digest is empty" in empty.warnings[0]
    assert read_status(current)["status"] == "anomaly"
    assert load_current(current).digest.version == "2026-11-16T09:00:00Z"
    good = publish(current, _digest("2026-11-21T00:00:00Z", bullets=40), 2, at=at)
    assert good.published and load_current(current).digest.version == "2026-11-21T00:00:00Z"
    assert [v for v, _ in list_versions(current)] == ["2026-11-16T09:00:00Z", "2026-11-21T00:00:00Z"]
    publish(current, _digest("2026-11-22T00:00:00Z", bullets=40), 2, at=at)
    assert [v for v, _ in list_versions(current)] == ["2026-11-21T00:00:00Z", "2026-11-22T00:00:00Z"]  # retain 2
    assert rollback(current, at=at) == ("2026-11-22T00:00:00Z", "2026-11-21T00:00:00Z")
    with pytest.raises(DigestStoreError, match="no earlier version to roll back to"):
        rollback(current, at=at)
    current.write_text("garbage\n")
    served = load_current(current)
    assert served.digest.version == "2026-11-22T00:00:00Z"
    assert served.warnings[0].startswith("current digest unreadable")
