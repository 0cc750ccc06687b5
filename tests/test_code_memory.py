"""Code review memory: the service-patterns file, updates, pruning, false positives, locking."""

from __future__ import annotations

import datetime
import threading
from pathlib import Path

from review_harness.code.memory import (
    FalsePositive, parse_patterns, pattern_of, prompt_block, read_patterns, render_patterns, update_service,
)

SEED = """# billing Review Patterns

## Common Issues

| Pattern | Frequency | Last Seen | Severity | Example |
|---|---|---|---|---|
| SQL passed to execute() is built from strings | 2 | 2026-11-20 | Critical | billing/db.py:10 |
| Old pattern | 1 | 2026-09-01 | Minor | billing/x.py:1 |

## Service-Specific Rules

- Money is always in integer cents.
- Never call the payment API without an idempotency key.

## False Positives to Avoid

| Pattern | Why It's Not an Issue |
|---|---|
| Broad `except Exception` handler | handlers log and re-raise |
"""


def day(text: str):
    return lambda: datetime.date.fromisoformat(text)


def test_parse_and_render_round_trip():
    patterns = parse_patterns(SEED, "billing")
    assert patterns.issues[0].frequency == 2 and patterns.false_positives[0].pattern == "Broad `except Exception` handler"
    assert not patterns.false_positives[0].placed  # a hand-written row of the seed's two columns
    assert parse_patterns(render_patterns(patterns), "billing") == patterns


def test_update_increments_adds_prunes_and_keeps_rules(tmp_path: Path):
    folder = tmp_path / "project-orchestrator-quality-reviewer" / "service-patterns"
    folder.mkdir(parents=True)
    (folder / "billing.md").write_text(SEED)
    update_service(tmp_path, "quality", "billing", today=day("2026-11-23"), review_note="# r", slug="task-3", findings=[
        ("SQL passed to execute() is built from strings", "Critical", "billing/db.py:40"),
        ("mutable default argument", "Important", "billing/tags.py:4"),
    ])
    patterns = read_patterns(tmp_path, "quality", "billing")
    rows = {r.pattern: r for r in patterns.issues}
    assert rows["SQL passed to execute() is built from strings"].frequency == 3
    assert rows["SQL passed to execute() is built from strings"].last_seen == "2026-11-23"
    assert rows["mutable default argument"].frequency == 1
    assert [r.pattern for r in patterns.archive] == ["Old pattern"]  # not seen for over 30 days
    assert "integer cents" in patterns.rules and "idempotency key" in patterns.rules
    assert (tmp_path / "project-orchestrator-quality-reviewer" / "reviews" / "2026-11-23-task-3.md").exists()
    assert "Reviews: 1" in (tmp_path / "project-orchestrator-quality-reviewer" / "MEMORY.md").read_text()


def test_dismissed_findings_become_false_positives_at_their_place(tmp_path: Path):
    update_service(tmp_path, "quality", "svc", today=day("2026-11-23"),
                   findings=[("print() left in library code", "Minor", "a.py:3")])
    entry = FalsePositive("print() left in library code", "CLI module prints on purpose", "maintainability", "cli/run.py",
                          "print(f'{name} | {count}')")
    update_service(tmp_path, "quality", "svc", today=day("2026-11-24"), false_positives=[entry, entry])
    patterns = read_patterns(tmp_path, "quality", "svc")
    # the pattern stays a known issue elsewhere; the dismissal is kept once, with its place (a pipe in the code survives)
    assert [r.pattern for r in patterns.issues] == ["print() left in library code"]
    assert patterns.false_positives == [entry]


def test_prompt_block_lists_known_issues_and_false_positives():
    block = prompt_block(parse_patterns(SEED, "billing"))
    assert block.index("SQL passed") < block.index("Old pattern")
    assert "- Broad `except Exception` handler -- at anywhere in the service -- handlers log and re-raise" in block
    assert "Report every issue you find" in block
    assert pattern_of("Broad `except Exception` handler: it may hide errors.") == "Broad `except Exception` handler"


NAMES = ["SQL built from strings", "mutable default argument", "file never closed", "coroutine not awaited",
         "bare except swallows errors", "print left in code", "shell command from input", "eval of user data"]


def test_concurrent_updates_lose_nothing(tmp_path: Path):
    threads = [threading.Thread(target=update_service, args=(tmp_path, "spec", "svc"),
                                kwargs={"findings": [(name, "Minor", f"f.py:{i}")], "today": day("2026-11-23")})
               for i, name in enumerate(NAMES)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(read_patterns(tmp_path, "spec", "svc").issues) == 8
