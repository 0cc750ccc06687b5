"""The registry of review kinds. A kind is declared once, in `review_harness/<kind>/kind.py`: its
facts as `KIND = ReviewKind(...)`, and its hooks as functions of that module with fixed names
(`offline_answer`, and `render`, `verdict_line`, `columns` and `log_summary` where the kind has them). Two hooks live by convention
elsewhere in the kind's package: `summary_row` in `<kind>/cli.py` (kinds with a task) and `lint` in
`<kind>/lint.py`. The CLI, the offline provider, the task helper and the gold scorers look a kind up
here instead of guessing it from a log's rows or a prompt's text.

The core names the kinds' declaration modules but imports one only when it is asked for, so the
core never depends on a kind at import time and `review-harness --help` loads none of them.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from review_harness.core.paths import PROMPTS_DIR

if TYPE_CHECKING:
    from inspect_ai.log import EvalLog

# kind name -> the module that declares it. `domain` is the DS review's third dimension, but its
# expert reviewer, curator and digest synthesis are members of their own with their own prompts
KIND_MODULES: dict[str, str] = {
    "ds": "review_harness.ds.kind",
    "design": "review_harness.design.kind",
    "code": "review_harness.code.kind",
    "impact": "review_harness.impact.kind",
    "domain": "review_harness.domain.kind",
}


class KindError(ValueError):
    """An unknown kind, or a log whose kind cannot be told from its task."""


@dataclass(frozen=True)
class OfflineCost:
    """What the offline reviewer of a kind takes for a long input on the 2-core machine
    (docs/robustness.md): seconds (of CPU: a busy machine takes longer, and the progress lines say
    so) and memory per MB of text, and per table cell on top (each cell is read as a token of the
    markdown model). The defaults are the DS review's: 3.5 MB of prose took 11 s of CPU, one table
    of 100,000 rows x 5 columns (3.5 MB) 17 s and 1.0 GB, 200,000 x 5 (7.2 MB) 33 s and 1.9 GB. A
    kind whose reviewers read their input otherwise declares its own (`ReviewKind.offline_cost`):
    one whose reviewers compare parts of the input with each other takes time with the square of
    the words read (`seconds_per_word_squared`), and one whose reviewers read at most so many
    words of it (an input budget) says how many: the time then counts that share of the input
    (the memory, which holds the whole input, does not)."""

    seconds_per_mb: float = 3.0
    seconds_per_cell: float = 1.4e-5
    memory_mb_per_mb: float = 22.0
    memory_mb_per_cell: float = 1.5e-3
    base_memory_mb: float = 215.0
    seconds_per_word_squared: float = 0.0
    read_at_most_words: int | None = None


@dataclass(frozen=True)
class ReviewKind:
    """What the core needs to know of a kind; everything else stays in the kind's package.

    - `task`: the Inspect task name (`ds_review`); None for a kind whose members serve another
      kind's task (domain).
    - `review_model` / `gold_model`: the pydantic models of the log contract's review and of a
      gold file.
    - `synthesis_scorer` / `gold_scorer`: the scorer names that hold the review (in
      `Score.metadata["review"]`) and the gold comparison.
    - `prompts`: the kind's prompt folder (default `prompts/<name>`).
    - `render(review) -> str`: the markdown report.
    - `summary_row(review) -> dict`: the columns of `review-harness summary` (after sample, epoch).
    - `offline_answer(member, prompt) -> str | None`: the offline provider's answer for one of the
      kind's members (None: the member is not the kind's).
    - `log_summary(log) -> list[str]`: lines `review-harness summary` prints after the rows (the
      code review's analytics summary); optional.
    - `lint(options) -> PromptPrefixes`: the stable prefix of every prompt variant of the kind
      and the problems only it can see (`core/lint.py` drives it; `options` are the lint
      command's options, e.g. `rubric`).
    - `verdict_line(review) -> core.viewer.Verdict`: the review in one line (verdict, its
      figure, finding counts, top findings): the terminal after a run, the viewer's ANSWER.
    - `columns() -> list[core.viewer.Column]`: the sample-list columns of `inspect view`.
    - `verdicts`: the kind's verdicts (or decisions) as its synthesis score records them under
      `verdict_key`, from the passing one to the strictest: the headline's `passed` counts the
      first, and `review-harness verdict --fail-on V` fails on V and every verdict after it.
    - `verdict_accuracy`: the gold score's key of the share of cases whose verdict is the gold
      one (the headline of a gold run).
    - `gold_problems(gold) -> list[str]`: checks of a gold file beyond its model and evidence
      ('<key path>: <problem>'; the DS rubric's lenses); optional.
    - `offline_cost`: the rates behind the size guard's estimate of a long input (`OfflineCost`).
    """

    name: str
    title: str
    task: str | None = None
    review_model: type[BaseModel] | None = None
    gold_model: type[BaseModel] | None = None
    synthesis_scorer: str | None = None
    gold_scorer: str | None = None
    prompts: Path | None = None
    offline_answer: Callable[[str, str], str | None] | None = None
    render: Callable[[Any], str] | None = None
    summary_row: Callable[[Any], dict[str, str]] | None = None
    lint: Callable[[Mapping[str, Any]], Any] | None = None  # returns core.lint.PromptPrefixes
    verdict_line: Callable[[Any], Any] | None = None  # returns core.viewer.Verdict
    columns: Callable[[], Sequence[Any]] | None = None  # returns core.viewer.Column items
    log_summary: Callable[[Any], list[str]] | None = None  # lines `summary` prints after a log's rows
    verdicts: tuple[str, ...] = ()
    verdict_key: str = "verdict"
    verdict_accuracy: str | None = "verdict_accuracy"
    gold_problems: Callable[[Any], list[str]] | None = None  # checks of a gold file beyond its model
    offline_cost: OfflineCost = OfflineCost()  # what its offline reviewer takes for a long input (core/sizeguard.py)

    def with_hooks(self, module: ModuleType) -> ReviewKind:
        """The declaration completed from its module's functions and the package's conventions."""
        package = module.__name__.rpartition(".")[0]
        found: dict[str, Any] = {"prompts": self.prompts or PROMPTS_DIR / self.name,
                                 "lint": self.lint or lazy(f"{package}.lint:lint")}
        if self.task is not None:
            found["summary_row"] = self.summary_row or lazy(f"{package}.cli:summary_row")
        for hook in ("offline_answer", "render", "verdict_line", "columns", "log_summary", "gold_problems"):
            found[hook] = getattr(self, hook) or getattr(module, hook, None)
        if found["offline_answer"] is None:
            raise KindError(f"{module.__name__} declares no offline_answer(member, prompt)")
        return replace(self, **found)

    def review_from_score(self, metadata: dict[str, Any] | None) -> Any | None:
        """The review of one sample's synthesis score (None when it holds none)."""
        if not metadata or "review" not in metadata or self.review_model is None:
            return None
        return self.review_model.model_validate(metadata["review"])


def lazy(target: str) -> Callable[..., Any]:
    """'package.module:function' as a callable that imports its module on the first call, so a
    kind's declaration loads none of the kind's code until the core asks for it."""
    module, _, name = target.partition(":")

    def call(*args: Any, **kwargs: Any) -> Any:
        return getattr(importlib.import_module(module), name)(*args, **kwargs)

    call.__qualname__ = call.__name__ = target
    return call


_loaded: dict[str, ReviewKind] = {}


def get_kind(name: str) -> ReviewKind:
    if name not in KIND_MODULES:
        raise KindError(f"unknown review kind '{name}'; known: {', '.join(KIND_MODULES)}")
    if name not in _loaded:
        module = importlib.import_module(KIND_MODULES[name])
        kind = module.KIND.with_hooks(module)
        if kind.name != name:
            raise KindError(f"{KIND_MODULES[name]} declares kind '{kind.name}', registered as '{name}'")
        _loaded[name] = kind
    return _loaded[name]


def kind_names(with_task: bool = False) -> list[str]:
    return [n for n in KIND_MODULES if not with_task or get_kind(n).task is not None]


def kinds(with_task: bool = False) -> Sequence[ReviewKind]:
    return [get_kind(n) for n in kind_names(with_task)]


def task_basename(task: str) -> str:
    """`review_harness/ds_review` and `ds_review` name the same task."""
    return task.rsplit("/", 1)[-1]


def kind_for_task(task: str) -> ReviewKind | None:
    name = task_basename(task)
    return next((k for k in kinds(with_task=True) if k.task == name), None)


def kind_of_log(log: EvalLog) -> ReviewKind:
    """A log's kind: the `kind` its task recorded in the eval metadata, else its task name."""
    recorded = (log.eval.metadata or {}).get("kind")
    if recorded:
        return get_kind(str(recorded))
    kind = kind_for_task(log.eval.task)
    if kind is None:
        raise KindError(f"the log's task '{log.eval.task}' is not a review kind's task "
                        f"({', '.join(k.task or '' for k in kinds(with_task=True))})")
    return kind
