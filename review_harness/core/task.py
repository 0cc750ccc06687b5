"""One way to turn a review kind's `-T` parameters into its Task.

A task file (`tasks/<kind>_review.py`) declares its parameters in its signature (Inspect reads
them from there), asks its kind's package for the samples and the kind's own checked options,
and names its solvers and scorers. It hands every parameter to the helper by name (`**unknown` as
`unknown=`), so a reader follows each one from the signature; a parameter declared and not handed
over (or handed over and not declared) is a programming error the helper names. Everything else is
done here, the same way for every kind:

    with review_task("ds", ds_review, document=document, ..., unknown=unknown) as run:
        ds = ds_input(run)
        return run.task(ds, solver=review_pipeline(ds.rubric, **run.pipeline_options), synthesis=..., gold=...)

- an unknown `-T` name is an error with a "Did you mean" hint (Inspect only warns);
- a run with no resolvable model stops before any sample (it would otherwise exit 0 having
  reviewed nothing);
- the shared parameters are parsed once: `timeout` (seconds per member call, a positive number;
  not given: the kind's default), `max_tokens` (a whole number), `cache` / `cache_per_epoch`
  (flags), `output_dir` (a folder, created and checked writable up front);
- a parameter given empty (`-T document=`) is an error, never the parameter's default;
- a bad value is one line naming the parameter, also on stderr under `--display none`;
- the Task records `metadata["kind"]`, which is how the CLI tells a log's kind, and
  `metadata["user_documents"]` when no sample has a gold file: after such a run the terminal
  says each document's verdict (`core/console.py`);
- the Task carries the kind's viewer configuration and headline figure (`core/viewer.py`);
- the kind's inputs are read as a reader sees them: the core's document reader and, while the
  kind reads its inputs, the core's file reader take invisible characters out and read look-alike
  letters as plain ones (`core.text.visible_text`); a file read so is named on stderr with what
  was changed (documents also in the review's warnings).
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspect_ai import Task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import CachePolicy
from inspect_ai.scorer import Scorer
from inspect_ai.solver import Solver

from review_harness.core import console  # noqa: F401 (registers the hook that says each verdict)
from review_harness.core.files import reading_inputs
from review_harness.core.inspect_adapter import PrerequisiteError
from review_harness.core.kinds import ReviewKind, get_kind
from review_harness.core.panel import cache_policy
from review_harness.core.sizeguard import size_guard  # also registers the hook that shows long inputs' progress
from review_harness.core.params import (
    as_flag,
    as_number,
    loud_errors,
    reject_empty_params,
    reject_unknown_params,
    require_model,
    writable_folder,
)
from review_harness.core.text import invisible_warning
from review_harness.core.viewer import headline_metric, viewer_config

# the name under which a task function collects -T names it does not declare (`**unknown`)
UNKNOWN = "unknown"
# parameters that give the user's own input (any kind's), and those that only choose gold-set cases:
# with the first, a value of the second would be silently ignored
USER_INPUT_PARAMS = ("document", "design", "requirements", "repo", "patch", "spec", "artifact")
GOLD_SET_PARAMS = ("fixtures", "split", "cases")


def reject_gold_set_options(args: dict[str, Any], declared: Mapping[str, inspect.Parameter]) -> None:
    """`-T split=test` or `-T fixtures=no-such-set` beside the user's own documents would change
    nothing: one line naming it, instead of a run that ignores what the user typed."""
    given = next((name for name in USER_INPUT_PARAMS if args.get(name) is not None), None)
    if given is None:
        return
    for name in GOLD_SET_PARAMS:
        if name in declared and args.get(name) is not None and args[name] != declared[name].default:
            raise PrerequisiteError(f"-T {name}={args[name]}: has no effect with -T {given} (it chooses cases of the "
                                    f"gold set, which is not reviewed when you give your own input); leave it out")


@dataclass
class ReviewInput:
    """What a kind's package makes of its own parameters: the samples, what they came from
    (the dataset is named `<task>:<source>`), what the Task records beside the kind, and Task
    options the kind needs (e.g. DS's `fail_on_error` for unreadable folder files). A kind
    extends it with what its solvers and scorers need (DS: the rubric)."""

    samples: list[Sample]
    source: str
    metadata: dict[str, Any] = field(default_factory=dict)
    task_options: dict[str, Any] = field(default_factory=dict)

    @property
    def has_gold(self) -> bool:
        return any((sample.metadata or {}).get("gold") for sample in self.samples)


@dataclass(frozen=True)
class TaskRun:
    """The checked parameters of one task call."""

    kind: ReviewKind
    args: dict[str, Any]  # every parameter the task declares, as Inspect passed it
    timeout: float | None  # seconds per member call; None: the kind's default
    max_tokens: int | None
    cache: bool | CachePolicy
    output_dir: Path | None  # None also when the kind has no output_dir

    @property
    def pipeline_options(self) -> dict[str, Any]:
        """The keywords every kind's pipeline factory takes. The timeout only when given, so the
        pipeline applies its kind's default; output_dir only for a kind that declares one."""
        options: dict[str, Any] = {"max_tokens": self.max_tokens, "cache": self.cache}
        if self.timeout is not None:
            options["timeout"] = self.timeout
        if "output_dir" in self.args:
            options["output_dir"] = str(self.output_dir) if self.output_dir else None
        return options

    def task(
        self,
        review_input: ReviewInput,
        *,
        solver: Solver | list[Solver],
        synthesis: Scorer,
        gold: Scorer | None = None,
        **options: Any,
    ) -> Task:
        """The kind's Task: the gold scorer only when some sample has a gold file (a user's own
        documents have none), the kind recorded in the metadata, the kind's viewer."""
        task_name = self.kind.task or self.kind.name
        with_gold = gold is not None and review_input.has_gold
        metadata = review_input.metadata | {"kind": self.kind.name}
        metadata |= size_guard(task_name, review_input.samples, self.kind.offline_cost)  # says what a long input will cost, before it starts
        if not review_input.has_gold:
            metadata["user_documents"] = True
        planted = mark_planted(review_input.samples)
        if planted:
            metadata["planted"] = planted  # operator -> planted copies: the terminal's table of what was missed
        options.setdefault("viewer", viewer_config(self.kind, gold=with_gold))
        options.setdefault("headline_metric", headline_metric(self.kind, gold=with_gold))
        return Task(
            dataset=MemoryDataset(review_input.samples, name=f"{task_name.replace('_', '-')}:{review_input.source}"),
            solver=solver,
            scorer=[synthesis, gold] if with_gold else [synthesis],
            metadata=metadata,
            **review_input.task_options,
            **options,
        )


def mark_planted(samples: list[Sample]) -> dict[str, int]:
    """Operator -> count over the samples' planted gold files; each sample of a planted set gets
    every operator's name, so its gold score carries one recall key per operator."""
    from review_harness.core.gold import sample_gold_path
    from review_harness.core.goldrun import PLANTED_METADATA, planted_operators

    paths = [p for p in (sample_gold_path(s.metadata or {}) for s in samples) if p is not None]
    planted = planted_operators(paths)
    for sample in samples if planted else ():
        sample.metadata = {**(sample.metadata or {}), PLANTED_METADATA: list(planted)}
    return planted


def _handed_over(who: str, task_function: Callable[..., Task], arguments: Mapping[str, Any]) -> None:
    """Every parameter of the task's signature is handed to the helper by name, and nothing else."""
    declared = set(inspect.signature(task_function).parameters)
    missing, extra = sorted(declared - set(arguments)), sorted(set(arguments) - declared)
    problems = [f"{what}: {', '.join(names)}" for what, names in (("not handed over", missing), ("not declared", extra)) if names]
    if problems:
        raise TypeError(f"{who}: a task hands each of its parameters to the task helper by name ({'; '.join(problems)})")


@contextmanager
def checked_parameters(who: str, task_function: Callable[..., Task], /, **arguments: Any) -> Iterator[dict[str, Any]]:
    """The checks every task makes, for a task that is no review kind's (judge_meta): errors
    inside are one line, also on stderr; unknown names and a missing model stop the run.
    `arguments`: each parameter of the task function by name (`**unknown` as `unknown=`)."""
    _handed_over(who, task_function, arguments)
    with loud_errors(who):
        declared = inspect.signature(task_function).parameters
        reject_unknown_params(arguments.get(UNKNOWN) or {}, known=declared)
        reject_empty_params({name: arguments.get(name) for name in declared if name != UNKNOWN})
        require_model()
        yield {name: arguments[name] for name in declared if name != UNKNOWN}


@contextmanager
def review_task(kind_name: str, task_function: Callable[..., Task], /, **arguments: Any) -> Iterator[TaskRun]:
    """The one task helper: see the module docstring."""
    kind = get_kind(kind_name)
    with checked_parameters(kind.task or kind.name, task_function, **arguments) as args:
        reject_gold_set_options(args, inspect.signature(task_function).parameters)
        timeout = as_number("timeout", args.get("timeout"))
        max_tokens = as_number("max_tokens", args.get("max_tokens"), integer=True)
        cache = bool(as_flag("cache", args.get("cache")))
        per_epoch = as_flag("cache_per_epoch", args.get("cache_per_epoch"))  # a kind without it: per epoch
        output_dir = writable_folder("output_dir", args.get("output_dir"))
        with reading_inputs() as changed:  # the kind reads its inputs in the caller's block
            yield TaskRun(kind=kind, args=args, timeout=timeout, max_tokens=max_tokens,
                          cache=cache_policy(cache, per_epoch is not False), output_dir=output_dir)
        for name, counts in changed.items():
            print(f"{kind.task or kind.name}: {invisible_warning(counts, name)}", file=sys.stderr, flush=True)
