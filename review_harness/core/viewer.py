r"""What a person sees of a review outside its markdown report: the one-line verdict (the terminal
after a run, the sample's ANSWER in `inspect view`) and the viewer configuration of every kind's
task (`Task(viewer=...)`, Inspect 0.3.285's `ViewerConfig`).

A kind declares two hooks in its `kind.py`:
- `verdict_line(review) -> Verdict`: the verdict (or decision), the number that goes with it,
  the finding counts by severity and the top findings;
- `columns() -> list[Column]`: the sample-list columns that matter for the kind, each a key of
  its synthesis or gold score's value, with a label and how to colour it.

In the viewer the synthesis score's answer is the verdict with the top findings (the sample
header shows it without a click), its explanation is the whole markdown report (the
SCORING tab and the transcript's score event render it as markdown), the score panel is a grid
in the order the scorer records its keys (the verdict and score first), and the sample list
shows the kind's columns, the gold ones only when the run has gold.

Everything a kind hands the viewer passes through `for_viewer` (the score's answer and
explanation through `review_score`, the final assistant message through `answer_message`), so
a review renders at once whatever its document quotes. Inspect's viewer (0.3.285) shows every
markdown block as its source text until its markdown renderer has run, and a text holding a `$`
(or `\(`, `\[`) first loads a 2.7 MB TeX renderer: a review quoting "$35" and "$2M" sat on the
page as raw markdown while it loaded, or for good when it failed to load. `for_viewer` escapes the
dollar sign for the markdown renderer (`\$`, shown as `$` and never read as math; a full-width
sign, used before, has no glyph in a plain Linux machine's fonts: "□12,000"), and inside code,
where an escape is shown as written, writes the full-width sign; it breaks `\(`/`\[` with a word
joiner, so no review text ever takes that path; it also escapes what the viewer or markdown would read as structure in a
quoted line (a line opening like a lettered list item, which the viewer turns into raw HTML; a
backtick left unpaired on its line, which would open a code span over the lines after it).
The review JSON, `review-harness show` and the review files written with `-T output_dir=` keep
the text as it is.

The headline (the log list's SCORE, the figure Inspect's progress line and results lead with)
reads a verdict for every kind: with gold, the share of cases whose verdict (or decision) is the
gold one; without gold, the verdict itself (`verdict_standing`): a score named for the verdict
the reviews got ('Minor Fix') whose value is that verdict's place on the kind's scale, from 1 for
the passing verdict (`ReviewKind.verdicts[0]`) to 0 for the strictest (DS: Good to Go 1, Minor
Fix 0.5, Major Rework 0). The log list shows one number per log, so the value alone tells a
verdict from the others; the name says which it is where Inspect shows names.

Inspect opens a sample on its transcript, whose first lines are a reviewer's instructions, and a
task cannot choose another tab: `review_url` is the address of a sample's SCORING tab, the
review rendered, which the terminal prints after a run.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from inspect_ai.scorer import Score
    from inspect_ai.solver import TaskState
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
    the counts count; `reason`: why the verdict is stricter than its figure alone would make it
    (a floor rule, a failed check), in a few words ('2 critical findings'), printed right after
    the verdict."""

    verdict: str
    figure: str | None = None
    counts: Mapping[str, int] = field(default_factory=dict)
    top: Sequence[str] = ()
    status: str | None = None
    noun: str = "finding"  # what `counts` counts (impact: failed checks)
    reason: str | None = None

    def counts_text(self) -> str:
        total = sum(self.counts.values())
        if not total:
            return f"no {self.noun}s"
        parts = ", ".join(f"{n} {severity.lower()}" for severity, n in self.counts.items() if n)
        return f"{total} {self.noun}{'s' if total != 1 else ''} ({parts})"

    def line(self) -> str:
        """'Major Rework, score 70/100, 3 findings (1 critical, 2 major)' (and the status when
        the review is not complete); with a reason: 'Major Rework (capped: 2 critical findings),
        score 70/100, ...'."""
        verdict = f"{self.verdict} (capped: {self.reason})" if self.reason else self.verdict
        head = ", ".join(p for p in (verdict, self.figure) if p)
        status = f" [{self.status}]" if self.status else ""
        return f"{head}{status}, {self.counts_text()}"

    def answer(self) -> str:
        """The sample's ANSWER in the viewer: the line, then the top findings. Plain text: the
        sample header renders it as markdown, the SCORING tab's table and the sample list show
        it as it is (a bold line read '**Major Rework...**' there)."""
        text = self.line()
        if self.top:
            text += ". Top findings: " + "; ".join(f"{n}. {t}" for n, t in enumerate(self.top[:TOP_FINDINGS], 1))
        return for_viewer(text).replace(DOLLAR, CODE_DOLLAR)  # the list shows it as written: no escape there


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


def points(value: float | None, scale: int = 100) -> str:
    """A 0-100 score as every command prints it: '70/100' (whole points, see `whole`), '-' for none."""
    return "-" if value is None or math.isnan(value) else f"{whole(value)}/{scale}"


def fraction(value: float | None) -> str:
    """A 0-1 figure (a rate, a confidence, an impact score) as every command prints it: '0.63'."""
    return "-" if value is None or math.isnan(value) else f"{value:.2f}"


# ---------------------------------------------------------------------------- text for the viewer

DOLLAR = "\\$"  # the dollar sign escaped for the markdown renderer: shown as "$", no TeX delimiter
CODE_DOLLAR = "\uff04"  # inside code an escape is shown as written: the full-width sign there
WORD_JOINER = "\u2060"  # invisible, unbreakable: '\\(' and '\\[' stop opening TeX math
_LETTERED_LINE = re.compile(r"^([A-Za-z])([.)])(?=\s)")
_BACKTICKS = re.compile(r"(?<!\\)`+")


def for_viewer(markdown: str) -> str:
    """The markdown as inspect view should be given it (see the module docstring): no `$`, no
    TeX opener, no line the viewer turns into raw HTML, no backtick unpaired on its line
    (outside fenced and indented code, whose text is shown as it is but for the dollar sign)."""
    if not markdown:
        return markdown
    text = markdown.replace("\\(", "\\" + WORD_JOINER + "(").replace("\\[", "\\" + WORD_JOINER + "[")
    lines = text.split("\n")
    changed = {n: _pair_backticks(_LETTERED_LINE.sub(r"\1\\\2", line)) for n, line in enumerate(lines)}
    changed = {n: line for n, line in changed.items() if line != lines[n]}
    code = _code_lines(text) if changed or "$" in text else frozenset()
    for n, line in changed.items():
        if n not in code:
            lines[n] = line
    if "$" in text:
        lines = [line.replace("$", CODE_DOLLAR) if n in code else _dollars(line) for n, line in enumerate(lines)]
    return "\n".join(lines)


def _dollars(line: str) -> str:
    """The line's dollar signs escaped, but inside a code span (shown as written) full-width."""
    parts = re.split(r"((?<!\\)`+[^`]*?(?<!\\)`+)", line)
    return "".join(part.replace("$", CODE_DOLLAR) if n % 2 else part.replace("$", DOLLAR) for n, part in enumerate(parts))


@lru_cache(maxsize=8)
def _code_lines(text: str) -> frozenset[int]:
    """The line numbers of fenced and indented code blocks (markdown-it's reading). A review's
    report goes through here twice (its answer message and its score's explanation): the
    last few texts are remembered."""
    if not any(mark in text for mark in ("```", "~~~", "    ", "\t")):
        return frozenset()  # a code block opens with a fence or is indented four columns: none here
    lines: set[int] = set()
    for token in _commonmark().parse(text):
        if token.type in ("fence", "code_block") and token.map:
            lines.update(range(*token.map))
    return frozenset(lines)


@lru_cache(maxsize=1)
def _commonmark() -> Any:
    """One markdown-it parser per process (making one compiles its rules)."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark")


def _pair_backticks(line: str) -> str:
    """The line, with every backtick escaped when some run of backticks has no partner of its
    length on the line (a quoted '`price_v2' would otherwise open a code span that runs on into
    the next lines, swallowing their bold labels)."""
    runs = [m.group(0) for m in _BACKTICKS.finditer(line)]
    if all(runs.count(run) % 2 == 0 for run in set(runs)):
        return line
    return _BACKTICKS.sub(lambda m: "".join("\\`" for _ in m.group(0)), line)


def table_cell(text: str) -> str:
    """Text from an input as one cell of a markdown table row: on one line, its pipes escaped
    (an unescaped `|` in a task title splits the cell and shifts the row's other cells)."""
    return " ".join(str(text).split()).replace("|", "\\|")


def review_score(kind_name: str, review: Any, value: dict[str, Any], explanation: str, **fields: Any) -> Score:
    """A kind's synthesis score: `value` with the headline's `passed` added, the verdict line as
    the answer and the report as the explanation, both as the viewer should be given them;
    `fields`: the rest of the Score (its metadata)."""
    from inspect_ai.scorer import Score

    from review_harness.core.kinds import get_kind

    kind = get_kind(kind_name)
    verdict = value.get(kind.verdict_key)
    return Score(value={**value, PASSED: passed(kind, verdict)}, answer=answer_of(kind_name, review),
                 explanation=for_viewer(explanation), **fields)


def answer_message(state: TaskState, report: str) -> TaskState:
    """The report as the sample's answer: its final assistant message and its output (the
    messages tab and the transcript show it as the viewer should be given it)."""
    from inspect_ai.model import ChatMessageAssistant

    shown = for_viewer(report)
    state.messages.append(ChatMessageAssistant(content=shown, source="generate"))
    state.output.completion = shown
    return state


PASSED = "passed"


def passed(kind: ReviewKind, verdict: Any) -> float:
    """1.0 when the verdict is the kind's best, 0.0 for another of its verdicts, NaN for none
    (a draft, a deferred or failed review: no verdict to count)."""
    if not kind.verdicts or verdict not in kind.verdicts:
        return math.nan
    return float(verdict == kind.verdicts[0])


@dataclass(frozen=True)
class Column:
    """A sample-list column: `key` of the synthesis score's value (or of the gold score's, with
    `gold=True`), the header `label`, and its colours: a palette name for a number, a
    `(palette, low, high)` for a number with a known range, or {label: role} for a label."""

    key: str
    label: str
    gold: bool = False
    colors: Palette | tuple[Palette, float, float] | Mapping[str, Role] | None = None


def _color_scale(colors: Any) -> Any:
    from inspect_ai.viewer import ScoreColorScale

    if isinstance(colors, tuple):
        palette, low, high = colors
        return ScoreColorScale(palette=palette, min=low, max=high)
    return colors


# Inspect's sample list sizes a score column by its header (about 6 px a character, 120 px at
# most): a label column's header is padded with no-break spaces to that width, so 'Major Rework'
# or 'escalate' is read whole instead of 'Major Re…'
LABEL_HEADER = 13


def header(column: Column) -> str:
    if isinstance(column.colors, Mapping):
        return column.label + "\u00a0" * max(0, LABEL_HEADER - len(column.label))
    return column.label


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
            score_labels={c.key: header(c) for c in columns},
            score_color_scales={c.key: _color_scale(c.colors) for c in columns if c.colors is not None},
            color_scales_enabled=True,
        ),
    )


def headline_metric(kind: ReviewKind, gold: bool) -> str | None:
    """'<scorer>.<key>' of the figure that sums the run up (the log list shows it as the log's
    SCORE), a verdict figure for every kind: with gold, the share of cases whose verdict is the
    gold one; without, the synthesis score's verdict key, whose metric is `verdict_standing`
    (see the module docstring)."""
    if gold and kind.gold_scorer and kind.verdict_accuracy:
        return f"{kind.gold_scorer}.{kind.verdict_accuracy}"
    if kind.synthesis_scorer and kind.verdicts:
        return f"{kind.synthesis_scorer}.{kind.verdict_key}"
    return None


NO_VERDICT = "no verdict"


def standing(kind: ReviewKind, verdict: str) -> float:
    """The verdict's place on the kind's scale: 1 for the passing verdict, 0 for the strictest,
    evenly between (DS Minor Fix 0.5; impact caution 0.67, unreviewed 0.33)."""
    steps = len(kind.verdicts) - 1
    return 1.0 - kind.verdicts.index(verdict) / steps if steps else 1.0


def verdict_standing(kind: ReviewKind, labels: Sequence[Any]) -> dict[str, float]:
    """The run's verdict as one named figure, {name: value} (a mapping-valued metric: Inspect
    keeps the name): the name is the verdict every review got ('Minor Fix'), or each verdict
    with its count, passing first ('2 Good to Go, 1 Major Rework'); the value the mean of their
    `standing`. Labels that are no verdict of the kind (a draft, a deferred or failed review) are
    left out; with none left, {'no verdict': NaN}."""
    given = [label for label in labels if label in kind.verdicts]
    if not given:
        return {NO_VERDICT: math.nan}
    seen = [v for v in kind.verdicts if v in given]
    name = seen[0] if len(seen) == 1 else ", ".join(f"{given.count(v)} {v}" for v in seen)
    return {name: sum(standing(kind, v) for v in given) / len(given)}


REVIEW_TAB = "scoring"


def review_url(log: str | Path, sample_id: str, epoch: int = 1) -> str:
    """The address of one sample's review in `inspect view --log-dir <the log's folder>` (on the
    viewer's default host and port): its
    SCORING tab, where the review is rendered. Inspect opens a sample on its transcript, whose
    first lines are a reviewer's instructions, and a task cannot choose the tab; a link can."""
    from urllib.parse import quote

    from review_harness.core.inspect_adapter import VIEW_ADDRESS

    return (f"{VIEW_ADDRESS}/#/logs/{quote(Path(log).name)}/samples/sample/{quote(str(sample_id), safe='')}"
            f"/{epoch}/{REVIEW_TAB}")


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
