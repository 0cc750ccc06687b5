"""Invisible characters never move a review (issue 48, point 5): zero-width characters inside
words and text-direction controls are taken out before any reading, and the review says so.

The probe's case: zero-width spaces inside words turned a Major Rework 52.5 into a Minor Fix 62,
took away a CRITICAL and added two false findings.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval

from helpers import load_task_file
from review_harness.core.kinds import get_kind
from review_harness.core.paths import PROJECT_ROOT
from review_harness.core.text import without_invisible

DS = get_kind("ds")
FIXTURES = PROJECT_ROOT / "fixtures" / "ds"
INVISIBLE = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u202e", "\u2066"]


def sprinkled(text: str) -> str:
    """Every word of five letters or more with an invisible character inside (cycling the kinds)."""
    count = iter(range(10**9))
    return re.sub(r"\b([A-Za-z]{2})([A-Za-z]{3,})\b",
                  lambda m: m.group(1) + INVISIBLE[next(count) % len(INVISIBLE)] + m.group(2), text)


def review_of(path: Path, log_dir: Path):
    [log] = inspect_eval(load_task_file("ds_review")(document=str(path)), model="offline/rules", display="none",
                         log_dir=str(log_dir))
    [sample] = log.samples
    return DS.review_from_score(sample.scores[DS.synthesis_scorer].metadata)


@pytest.mark.parametrize("fixture", ["data-dump", "causal-without-method"])
def test_invisible_characters_inside_words_do_not_change_the_review(tmp_path, fixture):
    clean = tmp_path / "clean" / "report.md"
    dirty = tmp_path / "dirty" / "report.md"
    for path in (clean, dirty):
        path.parent.mkdir()
    text = (FIXTURES / f"{fixture}.md").read_text(encoding="utf-8")
    clean.write_text(text, encoding="utf-8")
    dirty.write_text(sprinkled(text), encoding="utf-8")
    assert without_invisible(dirty.read_text(encoding="utf-8"))[0] == text
    a, b = review_of(clean, tmp_path / "a"), review_of(dirty, tmp_path / "b")
    assert (b.verdict, b.final_score) == (a.verdict, a.final_score)
    assert sorted((f.severity, f.title) for f in b.findings) == sorted((f.severity, f.title) for f in a.findings)
    assert any("invisible character(s)" in w for w in b.warnings) and not any("invisible" in w for w in a.warnings)


def test_only_invisible_characters_are_taken_out():
    text = "caf\u00e9 \u05e9\u05dc\u05d5\u05dd 12\u00a0000 \u2014 a\u200bb \u202eevil\u202c"
    assert without_invisible(text) == ("caf\u00e9 \u05e9\u05dc\u05d5\u05dd 12\u00a0000 \u2014 ab evil", 3)
