"""Invisible characters never move a review, in any kind (issue 48, point 5): zero-width
characters inside words, soft hyphens, text-direction controls and look-alike letters (fullwidth,
ligatures) are read as the text displays, by one core function (`core.text.visible_text`) that
every kind's input passes: the core's document reader (DS, design) and the core's file reader
while a task reads its inputs (the code review's spec, the impact artifact).

The probe's case: zero-width spaces inside words turned a Major Rework 52.5 into a Minor Fix 62,
took away a CRITICAL and added two false findings. Each test reviews a clean input and the same
input with such characters inside its words, and asserts the same review.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval

from helpers import load_task_file
from review_harness.core.kinds import get_kind
from review_harness.core.paths import FIXTURES_DIR
from review_harness.core.text import invisible_warning, visible_text

HIDDEN = ["\u200b", "\u200c", "\u200d", "\u2060", "\u00ad", "\u202e", "\u2066", "\u200e"]


def sprinkled(text: str) -> str:
    """Every word of five letters or more with an invisible character inside (cycling the kinds)."""
    count = iter(range(10**9))
    return re.sub(r"\b([A-Za-z]{2})([A-Za-z]{3,})\b",
                  lambda m: m.group(1) + HIDDEN[next(count) % len(HIDDEN)] + m.group(2), text)


def review(kind_name: str, log_dir: Path, **task_args):
    kind = get_kind(kind_name)
    [log] = inspect_eval(load_task_file(kind.task)(**task_args), model="offline/rules", display="none",
                         log_dir=str(log_dir))
    assert log.status == "success", log.error
    [sample] = log.samples
    assert sample.error is None, sample.error
    return kind.review_from_score(sample.scores[kind.synthesis_scorer].metadata)


def untimed(value):
    """A review's record without when it was made and the seconds each call took."""
    if isinstance(value, dict):
        return {k: untimed(v) for k, v in value.items() if k not in ("seconds", "timestamp")}
    if isinstance(value, list):
        return [untimed(v) for v in value]
    return value


def clean_and_hidden(tmp_path: Path, source: Path, name: str | None = None, change=sprinkled) -> tuple[Path, Path]:
    """The same file twice, in folders of their own: as it is, and with characters hidden in it."""
    text = source.read_text(encoding="utf-8")
    paths = []
    for folder, content in (("clean", text), ("hidden", change(text))):
        path = tmp_path / folder / (name or source.name)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
        paths.append(path)
    assert paths[1].read_text(encoding="utf-8") != text and visible_text(paths[1].read_text(encoding="utf-8"))[0] == text
    return paths[0], paths[1]


def test_the_core_function_takes_out_only_what_a_reader_does_not_see():
    text = "caf\u00e9 \u05e9\u05dc\u05d5\u05dd 12\u00a0000 \u2014 x\u00b2 \u00bd a\u200bb \u202eevil\u202c \uff34\uff45\uff53\uff54 \ufb01nal"
    assert visible_text(text) == ("caf\u00e9 \u05e9\u05dc\u05d5\u05dd 12\u00a0000 \u2014 x\u00b2 \u00bd ab evil Test final",
                                  {"zero-width space": 1, "bidirectional control": 2, "fullwidth character": 4,
                                   "ligature": 1})
    assert visible_text("line one\u200b\nline two\n") == ("line one\nline two\n", {"zero-width space": 1})
    assert visible_text("plain ascii") == ("plain ascii", {})
    assert invisible_warning({"zero-width space": 2, "ligature": 1}, "a.md") == (
        "a.md contains 2 invisible characters (2 zero-width spaces), removed and 1 look-alike character "
        "(1 ligature), read as plain letters before the review, so the reviewers read (and quote) the text as it "
        "displays.")


@pytest.mark.parametrize("fixture", ["data-dump", "causal-without-method"])
def test_ds_the_same_review_with_invisible_characters_inside_words(tmp_path, fixture):
    clean, hidden = clean_and_hidden(tmp_path, FIXTURES_DIR / "ds" / f"{fixture}.md", "report.md")
    a, b = review("ds", tmp_path / "a", document=str(clean)), review("ds", tmp_path / "b", document=str(hidden))
    assert (b.verdict, b.final_score) == (a.verdict, a.final_score)
    assert sorted((f.severity, f.title) for f in b.findings) == sorted((f.severity, f.title) for f in a.findings)
    assert any("invisible characters" in w and "zero-width space" in w for w in b.warnings)
    assert not any("invisible" in w for w in a.warnings)


def test_ds_look_alike_letters_read_as_plain_ones(tmp_path):
    """Fullwidth letters and ligatures hide a word from every rule as zero-width characters do."""
    def lookalike(text: str) -> str:
        return re.sub(r"\b(con|fi)", lambda m: "".join(chr(ord(c) + 0xFEE0) for c in m.group(1))
                      if m.group(1) == "con" else "\ufb01", text)

    clean, hidden = clean_and_hidden(tmp_path, FIXTURES_DIR / "ds" / "causal-without-method.md", "report.md", lookalike)
    a, b = review("ds", tmp_path / "a", document=str(clean)), review("ds", tmp_path / "b", document=str(hidden))
    assert (b.verdict, b.final_score) == (a.verdict, a.final_score)
    assert sorted((f.severity, f.title) for f in b.findings) == sorted((f.severity, f.title) for f in a.findings)
    assert any("look-alike characters" in w for w in b.warnings)


def test_design_the_same_review_with_invisible_characters_inside_words(tmp_path):
    case = FIXTURES_DIR / "design" / "api-rate-limiter"
    design = clean_and_hidden(tmp_path / "design", case / "design.md")
    requirements = clean_and_hidden(tmp_path / "requirements", case / "requirements.md")
    found = [review("design", tmp_path / f"logs{n}", design=str(design[n]), requirements=str(requirements[n]),
                    output_dir=str(tmp_path / f"out{n}")) for n in (0, 1)]
    a, b = found
    assert b.verdict == a.verdict
    assert sorted((f.severity, f.title) for f in b.findings) == sorted((f.severity, f.title) for f in a.findings)
    assert any("invisible characters" in w for w in b.warnings)


def test_code_the_same_review_with_invisible_characters_in_its_spec(tmp_path, capfd):
    case = FIXTURES_DIR / "code" / "go-ignored-error"
    spec = clean_and_hidden(tmp_path, case / "spec.md")
    a, b = (review("code", tmp_path / f"logs{n}", patch=str(case / "change.patch"), spec=str(spec[n]))
            for n in (0, 1))
    assert b.final_status == a.final_status
    assert untimed([i.model_dump(mode="json") for i in b.iterations]) == \
        untimed([i.model_dump(mode="json") for i in a.iterations])
    err = capfd.readouterr().err
    assert f"code_review: {spec[1]} contains " in err and "invisible characters" in err


def test_impact_the_same_review_with_invisible_characters_in_its_artifact(tmp_path, capfd):
    """Only the artifact's string values get them (a key with a hidden character is another key)."""
    def values(text: str) -> str:
        return re.sub(r'(: ")([^"]*)(")', lambda m: m.group(1) + sprinkled(m.group(2)) + m.group(3), text)

    source = FIXTURES_DIR / "impact" / "did-store-layout.json"
    clean, hidden = clean_and_hidden(tmp_path, source, change=values)
    assert json.loads(hidden.read_text())["data"]["model_params"]["frequency"] != "weekly"
    a, b = review("impact", tmp_path / "a", artifact=str(clean)), review("impact", tmp_path / "b", artifact=str(hidden))
    assert b.verdict == a.verdict
    assert untimed(b.model_dump(exclude={"warnings"}, mode="json")) == untimed(a.model_dump(exclude={"warnings"},
                                                                                          mode="json"))
    err = capfd.readouterr().err
    assert f"impact_review: {hidden} contains " in err and "invisible characters" in err
