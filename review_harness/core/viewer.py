"""What a person sees of a review outside its markdown report: the one-line verdict (the terminal
after a run, the sample's ANSWER in `inspect view`) and the viewer configuration of every kind's
task (`Task(viewer=...)`, Inspect 0.3.285's `ViewerConfig`).

A kind declares two hooks in its `kind.py`:
- `verdict_line(review) -> Verdict`: the verdict (or decision), the number that goes with it,
  the finding counts by severity and the top findings;
- `columns() -> list[Column]`: the sample-list columns that matter for the kind, each a key of
  its synthesis or gold score's value, with a label and how to colour it.

In the viewer the synthesis score's answer is the verdict with the top findings (the sample
header shows it, in bold, without a click), its explanation is the whole markdown report (the
SCORING tab and the transcript's score event render it as markdown), the score panel is a grid
in the order the scorer records its keys (the verdict and score first), and the sample list
shows the kind's columns, the gold ones only when the run has gold.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from inspect_ai.viewer import ViewerConfig

    from review_harness.core.kinds import ReviewKind

TOP_FINDINGS = 3
Palette = Literal["good-high", "good-low", "neutral", "diverging"]
Role = Literal["good", "bad", "warn", "info", "muted"]


@dataclass(frozen=True)
class Verdict:
    """One review in a line. `verdict`: the kind's verdict or decision ('Major Rework',
    'escalate to calibrate', 'PRESENT_TO_HUMAN'); `figure`: the number that goes with it ('score
    70/100', 'confidence 0.6'); `counts`: findings by severity, most severe first; `top`: the top
    findings, one short line each; `status`: said when the review is not complete; `noun`: what
    the counts count."""

    verdict: str
    figure: str | None = None
    counts: Mapping[str, int] = field(default_factory=dict)
    top: Sequence[str] = ()
    status: str | None = None
    noun: str = "finding"  # what `counts` counts (impact: failed checks)

    def counts_text(self) -> str:
        total = sum(self.counts.values())
        if not total:
            return f"no {self.noun}s"
        parts = ", ".join(f"{n} {severity.lower()}" for severity, n in self.counts.items() if n)
        return f"{total} {self.noun}{'s' if total != 1 else ''} ({parts})"

    def line(self) -> str:
        """'Major Rework, score 70/100, 3 findings (1 critical, 2 major)' (and the status when
        the review is not complete)."""
        head = ", ".join(p for p in (self.verdict, self.figure) if p)
        status = f" [{self.status}]" if self.status else ""
        return f"{head}{status}, {self.counts_text()}"

    def answer(self) -> str:
        """The sample's ANSWER in the viewer: the line in bold, then the top findings."""
        text = f"**{self.line()}**"
        if self.top:
            text += ". Top findings: " + "; ".join(f"{n}. {t}" for n, t in enumerate(self.top[:TOP_FINDINGS], 1))
        return text


def severity_counts(severities: Sequence[str], order: Sequence[str]) -> dict[str, int]:
    """{severity: count} in the kind's order (most severe first), every level present."""
    return {level: sum(1 for s in severities if s == level) for level in order}


def shorten(text: str, limit: int = 90) -> str:
    """One line of at most `limit` characters (cut at a word, with an ellipsis)."""
    line = " ".join(str(text).split())
    if len(line) <= limit:
        return line
    cut = line[:limit - 1].rsplit(" ", 1)[0]
    return cut.rstrip(",;:.") + "…"


def whole(value: float) -> str:
    """A score in prose: whole points (the JSON keeps the exact value), rounded down so it
    reads in the band the exact score is in (a 79.6 below an 80 threshold reads 79)."""
    return f"{math.floor(value):d}"


@dataclass(frozen=True)
class Column:
    """A sample-list column: `key` of the synthesis score's value (or of the gold score's, with
    `gold=True`), the header `label`, and its colours: a palette name for a number, a
    `(palette, low, high)` for a number with a known range, or {label: role} for a label."""

    key: str
    label: str
    gold: bool = False
    colors: Palette | tuple[Palette, float, float] | Mapping[str, Role] | None = None
    headline: bool = False  # the log's headline figure (the log list's SCORE)


def _color_scale(colors: Any) -> Any:
    from inspect_ai.viewer import ScoreColorScale

    if isinstance(colors, tuple):
        palette, low, high = colors
        return ScoreColorScale(palette=palette, min=low, max=high)
    return colors


def viewer_config(kind: ReviewKind, gold: bool) -> ViewerConfig:
    """The kind's `ViewerConfig`: its columns (the gold ones only with gold), the sample id and
    the answer (the verdict and top findings) beside them, the task's input and empty target
    hidden, and the score panel as a grid in the scorer's order."""
    from inspect_ai.viewer import SampleScoreView, TaskSamplesColumn, TaskSamplesView, ViewerConfig

    columns = [c for c in kind_columns(kind) if gold or not c.gold]
    scorer_of = {False: kind.synthesis_scorer, True: kind.gold_scorer}
    return ViewerConfig(
        sample_score_view=SampleScoreView(default="grid"),
        task_samples_view=TaskSamplesView(
            name="review",
            columns=[TaskSamplesColumn(id="sampleId")]
            + [TaskSamplesColumn.score(scorer_of[c.gold] or "", c.key) for c in columns]
            + [TaskSamplesColumn(id="answer"), TaskSamplesColumn(id="error"),
               TaskSamplesColumn(id="input", visible=False), TaskSamplesColumn(id="target", visible=False)],
            multiline=True,
            score_labels={c.key: c.label for c in columns},
            score_color_scales={c.key: _color_scale(c.colors) for c in columns if c.colors is not None},
            color_scales_enabled=True,
        ),
    )


def headline_metric(kind: ReviewKind, gold: bool) -> str | None:
    """'<scorer>.<key>' of the figure that sums the run up: the kind's gold headline with
    gold, else its review headline (the log list shows it as the log's SCORE)."""
    columns = kind_columns(kind)
    chosen = next((c for c in columns if c.headline and c.gold == gold), None)
    chosen = chosen or next((c for c in columns if c.headline and not c.gold), None)
    if chosen is None:
        return None
    return f"{kind.gold_scorer if chosen.gold else kind.synthesis_scorer}.{chosen.key}"


def kind_columns(kind: ReviewKind) -> list[Column]:
    return list(kind.columns()) if kind.columns else []


def review_verdict(kind: ReviewKind, review: Any) -> Verdict | None:
    """The kind's verdict of one review (None for a kind without the hook)."""
    return kind.verdict_line(review) if kind.verdict_line else None


def answer_of(kind_name: str, review: Any) -> str:
    """The synthesis score's answer for one review of the kind: its verdict and top findings."""
    from review_harness.core.kinds import get_kind

    verdict = review_verdict(get_kind(kind_name), review)
    return verdict.answer() if verdict else ""
