"""The core pieces behind what a person sees and what a run records: epoch reduction of
figures and labels, the glob patterns that keep a label out of the metrics, recorded precision
and the gate's tolerance of it, whole-number scores in prose, verdict lines, the viewer config."""

from __future__ import annotations

import fnmatch
import math

import re

import pytest

from review_harness.core import gate
from review_harness.core.kinds import get_kind, kind_names
from review_harness.core.metrics import RECORDING_NOISE, keys_except, recorded, reduce_epoch_values
from review_harness.core.viewer import (DOLLAR, WORD_JOINER, Verdict, for_viewer, headline_metric, points, review_url,
                                        shorten, verdict_standing, viewer_config, whole)


@pytest.mark.parametrize("key", ["verdict", "overall", "verdicts", "v", "ve", "verdic", "vxyz", "estimate_plausibility",
                                 "complete", "overall_spread", "a_b", "Verdict"])
def test_keys_except_matches_every_key_but_the_one(key):
    hits = [p for p in keys_except("verdict") if fnmatch.fnmatchcase(key, p)]
    assert len(hits) == (0 if key == "verdict" else 1), hits  # patterns are disjoint: one metric per key


def test_epoch_reduction_averages_figures_and_takes_the_majority_label():
    values = [{"score": 60.0, "verdict": "Minor Fix", "recall": math.nan},
              {"score": 70.0, "verdict": "Major Rework", "recall": 0.5},
              {"score": 80.0, "verdict": "Minor Fix", "recall": 1.0}]
    assert reduce_epoch_values(values) == {"score": 70.0, "verdict": "Minor Fix", "recall": 0.75}
    tie = reduce_epoch_values([{"v": "a"}, {"v": "b"}])
    assert tie == {"v": "b"}  # a tie goes to the latest epoch
    assert math.isnan(reduce_epoch_values([{"x": math.nan}, {"x": math.nan}])["x"])


@pytest.mark.parametrize("value, shown", [(0.5714285714, 0.571), (2 / 3, 0.667), (1.0, 1.0), (0.0, 0.0)])
def test_figures_are_recorded_to_three_decimals(value, shown):
    assert recorded(value) == shown
    assert abs(recorded(value) - value) <= RECORDING_NOISE
    assert math.isnan(recorded(math.nan))


@pytest.mark.parametrize("score, text", [(79.6, "79"), (80.0, "80"), (59.99, "59"), (52.5, "52"), (100.0, "100")])
def test_scores_in_prose_are_whole_and_stay_in_their_band(score, text):
    assert whole(score) == text  # rounded down: a 79.6 (a Minor Fix below 80) never reads 80


def test_shorten_cuts_at_a_word():
    assert shorten("one two three four", 12) == "one two…"
    assert shorten("short", 12) == "short"
    assert shorten("a\nb   c", 12) == "a b c"


def test_verdict_line_and_answer():
    verdict = Verdict("Major Rework", "score 52/100", {"CRITICAL": 1, "MAJOR": 2, "MINOR": 0},
                      ["Causal claim (CRITICAL)", "No interval (MAJOR)", "Jargon (MAJOR)", "A fourth (MINOR)"], "partial")
    assert verdict.line() == "Major Rework, score 52/100 [partial], 3 findings (1 critical, 2 major)"
    assert verdict.answer() == ("Major Rework, score 52/100 [partial], 3 findings (1 critical, 2 major). Top findings: "
                                "1. Causal claim (CRITICAL); 2. No interval (MAJOR); 3. Jargon (MAJOR)")
    assert Verdict("proceed", None, {"Critical": 0}).line() == "proceed, no findings"
    assert Verdict("caution", None, {"major": 1}, noun="failed check").line() == "caution, 1 failed check (1 major)"
    capped = Verdict("Major Rework", "score 70/100", {"CRITICAL": 2}, reason="2 critical findings")
    assert capped.line() == "Major Rework (capped: 2 critical findings), score 70/100, 2 findings (2 critical)"


@pytest.mark.parametrize("value, text", [(70.75, "70/100"), (79.999, "79/100"), (100.0, "100/100"), (None, "-"),
                                         (math.nan, "-")])
def test_scores_print_the_same_way_everywhere(value, text):
    assert points(value) == text


@pytest.mark.parametrize("text", [
    "The quote costs $35 and $2M, not $x$.",
    "| a | b |\n|---|---|\n| $1 | \\(x\\) |",
])
def test_the_viewer_gets_no_tex_delimiter(text):
    shown = for_viewer(text)
    assert not re.search(r"(?<!\\)\$", shown) and "\\(" not in shown and "\\[" not in shown  # no TeX delimiter
    assert shown.replace(DOLLAR, "$").replace(WORD_JOINER, "") == text  # nothing else changes


@pytest.mark.parametrize("text, shown", [
    ("The quote costs $35 and $2M, not $x$.", "The quote costs $35 and $2M, not $x$."),
    ("| a | b |\n|---|---|\n| $1 | 2 |", "$1"),
    ("Costs `$5` in code", "$5"),
])
def test_a_dollar_renders_as_a_dollar_sign(text, shown):
    """The viewer's markdown shows '$' (the full-width sign it was given before has no glyph in a
    plain Linux machine's fonts: the quotes read '\u25a112,000'); only inside code, where markdown
    shows an escape as written, is it the full-width sign."""
    from html import unescape

    from markdown_it import MarkdownIt

    rendered = unescape(re.sub(r"<[^>]+>", "", MarkdownIt("commonmark").enable("table").render(for_viewer(text))))
    if "`" in text:
        assert "\uff04" + "5" in rendered
    else:
        assert shown in rendered and "\uff04" not in rendered


def test_the_viewer_gets_no_unpaired_backtick_and_no_lettered_line():
    report = "**Evidence:** \"uses `price_v2 in `x` tables\"\n**Suggested fix:** run `make`\na) first\n```\nb) `raw\n```"
    shown = for_viewer(report).split("\n")
    assert shown[0] == "**Evidence:** \"uses \\`price_v2 in \\`x\\` tables\""  # unpaired on its line: escaped
    assert shown[1] == "**Suggested fix:** run `make`"  # paired: a code span as written
    assert shown[2] == "a\\) first"  # the viewer would make raw HTML of 'a) first'
    assert shown[4] == "b) `raw"  # code blocks are shown as they are
    assert for_viewer("plain text") == "plain text"


@pytest.mark.parametrize("kind_name", ["ds", "design", "code", "impact"])
def test_every_kind_declares_its_view(kind_name):
    kind = get_kind(kind_name)
    assert kind.verdict_line is not None and kind.columns is not None
    for gold in (False, True):
        config = viewer_config(kind, gold)
        ids = [c.id for c in config.task_samples_view.columns]
        gold_ids = [i for i in ids if i.startswith(f"score__{kind.gold_scorer}__")]
        assert bool(gold_ids) == gold  # gold columns only with gold
        assert any(i.startswith(f"score__{kind.synthesis_scorer}__") for i in ids)
        scorer, _, key = headline_metric(kind, gold).partition(".")
        # a verdict figure for every kind: verdicts right with gold, the run's verdict without
        assert (scorer, key) == ((kind.gold_scorer, kind.verdict_accuracy) if gold else (kind.synthesis_scorer, kind.verdict_key))
    assert kind.verdicts and len(set(kind.verdicts)) == len(kind.verdicts)


def test_the_kinds_with_a_task_are_registered_by_name():
    from review_harness import _registry

    assert set(_registry.TASKS) == {get_kind(name).task for name in kind_names(with_task=True)}


def test_the_gate_ignores_a_move_below_the_recorded_precision():
    baseline = gate.Baseline(created="x", log="x", task="ds_review", model="m", epochs=1,
                             values={"recall": {"a": 2 / 3, "b": 1 / 3}})
    rules = gate.GateConfig(metrics={"recall": gate.MetricRule(tolerance=0.0)})

    class Log:  # the parts of an EvalLog the comparison reads
        status = "success"
        error = None

        class eval:
            class config:
                epochs = 1

        def __init__(self, a: float, b: float) -> None:
            self.reductions = [type("R", (), {"samples": [self._sample("a", a), self._sample("b", b)]})()]

        @staticmethod
        def _sample(sample_id, value):
            return type("Sample", (), {"sample_id": sample_id, "value": {"recall": value, "verdict": "x"}})()

    assert gate.compare(Log(recorded(2 / 3), recorded(1 / 3)), baseline, rules).passed
    assert not gate.compare(Log(0.665, 0.333), baseline, rules).passed


# the log list's SCORE of a run without gold, per kind: one review of each verdict reads as its own
# number, 1 for the passing verdict and 0 for the strictest, evenly between
STANDINGS = {
    "ds": {"Good to Go": 1.0, "Minor Fix": 0.5, "Major Rework": 0.0},
    "design": {"proceed": 1.0, "revise": 0.5, "escalate": 0.0},
    "code": {"auto-approve": 1.0, "human decides": 0.5, "auto-reject to the implementer": 0.0},
    "impact": {"usable": 1.0, "caution": 2 / 3, "unreviewed": 1 / 3, "unusable": 0.0},
}


@pytest.mark.parametrize("kind_name", sorted(STANDINGS))
def test_one_reviews_headline_is_named_for_its_verdict_and_tells_it_apart(kind_name):
    kind = get_kind(kind_name)
    assert tuple(STANDINGS[kind_name]) == kind.verdicts  # every verdict of the kind, in its order
    for label, value in STANDINGS[kind_name].items():
        [(name, got)] = verdict_standing(kind, [label]).items()
        assert name == label and got == pytest.approx(value)
    values = [next(iter(verdict_standing(kind, [label]).values())) for label in kind.verdicts]
    assert len({round(v, 6) for v in values}) == len(kind.verdicts)  # the number alone tells them apart


def test_a_runs_headline_names_each_verdict_with_its_count_and_averages_them():
    ds = get_kind("ds")
    labels = ["Major Rework", "Good to Go", "draft", "Good to Go", "deferred"]  # a draft and a deferred review: no verdict
    assert verdict_standing(ds, labels) == {"2 Good to Go, 1 Major Rework": pytest.approx(2 / 3)}
    assert verdict_standing(ds, ["Minor Fix", "Minor Fix"]) == {"Minor Fix": 0.5}
    [(name, value)] = verdict_standing(ds, ["draft"]).items()
    assert name == "no verdict" and math.isnan(value)
    assert list(verdict_standing(ds, [])) == ["no verdict"]  # Inspect asks an empty run for its names


def test_the_review_link_opens_the_samples_scoring_tab_in_the_default_viewer():
    url = review_url("logs/2026-01-01T00-00-00_ds-review_X.eval", "my doc", 2)
    assert url.startswith("http://127.0.0.1:7575/#/logs/")  # `inspect view` with no --host, --port
    assert url.endswith("/2026-01-01T00-00-00_ds-review_X.eval/samples/sample/my%20doc/2/scoring")
