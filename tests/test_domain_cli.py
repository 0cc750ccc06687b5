"""`review-harness domain list|show|refresh|rollback` through the real CLI entry point."""

from __future__ import annotations

import shutil
from datetime import datetime, timezone
from pathlib import Path

import pytest

from review_harness.cli import main

ROOT = Path(__file__).resolve().parent.parent
KNOWLEDGE = ROOT / "knowledge" / "domain"


@pytest.fixture
def kb(tmp_path):
    shutil.copytree(KNOWLEDGE, tmp_path / "kb")
    return tmp_path / "kb"


def run(kb, *args):
    return main(["domain", "--index", str(kb / "domain-index.yaml"), "--roster", str(kb / "team-roster.yaml"), *args])


def test_list_and_show(kb, capsys):
    assert run(kb, "list") == 0
    out = capsys.readouterr().out
    assert "search-ranking       domain        2026-11-16T09:00:00Z" in out
    assert "search-cross-domain  cross-domain" in out
    assert run(kb, "show", "search-infra", "--tokens", "400") == 0
    out = capsys.readouterr().out
    assert "domains: search-infra, search-cross-domain" in out
    assert "version: search-infra@2026-11-16T09:00:00Z; search-cross-domain@2026-11-16T09:00:00Z" in out


def test_refresh_from_folder_then_rollback(kb, capsys, monkeypatch):
    import review_harness.domain.cli as domain_cli

    # the example pages are dated November 2026: discovery looks back 14 days from "now"
    monkeypatch.setattr(domain_cli, "_now", lambda: datetime(2026, 11, 23, 12, 0, tzinfo=timezone.utc))
    assert run(kb, "refresh", "search-ranking", "--source", str(KNOWLEDGE / "pages" / "search-ranking"),
               "--model", "offline/rules") == 0
    out = capsys.readouterr().out
    assert "search-ranking: published version" in out
    assert 'candidate for inclusion: 55501 "Ranking standup notes"' in out
    assert "page 12347: importance" in out
    assert run(kb, "rollback", "search-ranking") == 0
    assert "to 2026-11-16T09:00:00Z" in capsys.readouterr().out
    assert (kb / "digests" / "search-ranking.md").read_text().startswith(
        "# search-ranking domain digest\n# Version: 2026-11-16T09:00:00Z")


def test_refresh_that_would_empty_keeps_old_and_warns(kb, tmp_path, capsys):
    pages = tmp_path / "pages"
    pages.mkdir()
    (pages / "a.md").write_text("---\nid: '12360'\ntitle: Notes\nupdated: 2026-11-20\n---\nLunch is at noon today.\n")
    assert run(kb, "refresh", "search-infra", "--source", str(pages), "--model", "offline/rules") == 1
    out = capsys.readouterr().out
    assert "warning: search-infra refresh: the new digest is empty; token count dropped by more than 50%" in out
    assert "kept version 2026-11-16T09:00:00Z" in out
    assert "no new version published" in out


@pytest.mark.parametrize("args, message", [
    (("show", "nope"), "review-harness domain: unknown domain 'nope'; known: search-ranking"),
    (("rollback", "search-infra"), "review-harness domain: search-infra: no earlier version to roll back to"),
    (("refresh", "search-infra", "--source", "/no/such/folder"), "review-harness domain: page folder /no/such/folder: not a folder"),
])
def test_bad_input_is_one_line(kb, capsys, args, message):
    assert run(kb, *args) == 2
    err = capsys.readouterr().err
    assert err.startswith(message) and err.count("\n") == 1
