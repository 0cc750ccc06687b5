"""The code review's own task parameters (tasks/code_review.py): the user's change and spec
(a repository with base and head, or a patch) or the gold set, the `review:` overrides of the
project config, the memory mode and folder, the human's answers, the plan and the implementer.
The shared ones are checked by the core task helper. Every check runs before any sample does."""

from __future__ import annotations

import os
from pathlib import Path

from inspect_ai.dataset import Sample
from inspect_ai.util import SandboxEnvironmentSpec

from review_harness.core.files import folder_problem
from review_harness.core.inspect_adapter import PrerequisiteError
from review_harness.core.params import as_typed, choice, resolve_user_path, writable_folder
from review_harness.core.paths import user_dir
from review_harness.core.task import ReviewInput, TaskRun
from review_harness.code.config import KEYS
from review_harness.code.dataset import SPLITS, gold_samples, human_answers, user_sample
from review_harness.code.memory import MEMORY_MODES, default_memory_dir
from review_harness.code.plan import PlanError, read_plan
from review_harness.code.prompts import PROMPT_VERSION

USER_CHANGE = ("repo", "patch", "spec")  # any of them: the user's change, else the gold set
# parameters that are text whatever YAML makes of them (`-T base=0123456`, `-T task_number=1.10`)
TEXT_PARAMETERS = ("repo", "base", "head", "patch", "spec", "service", "task_number", "config", "memory_dir", "plan",
                   "fixtures", "cases", "analytics")
IMPLEMENTERS = ("agent", "scripted")


def code_input(run: TaskRun) -> ReviewInput:
    args = {name: as_typed(name, value) if name in TEXT_PARAMETERS else value for name, value in run.args.items()}
    overrides = {key: args[key] for key in KEYS}  # -T strategy=... and the other `review:` keys
    memory_mode = choice("memory", args["memory"], MEMORY_MODES) or "read"
    memory_mode = "update" if memory_mode == "write" else memory_mode
    split = choice("split", args["split"], SPLITS) or "all"
    implementer = choice("implementer", args["implementer"], IMPLEMENTERS)
    user = any(args[name] is not None for name in USER_CHANGE)
    if user:
        samples = [user_sample(
            repo=args["repo"], base=args["base"], head=args["head"], patch=args["patch"], spec=args["spec"],
            service=args["service"], task_number=str(args["task_number"]), config_path=args["config"],
            overrides=overrides,
        )]
        if implementer == "scripted":
            raise PrerequisiteError("-T implementer=scripted: only gold cases have scripted fixes; "
                                    "your change is fixed by the agent (-T implementer=agent)")
    elif args["base"] is not None or args["head"] is not None:
        raise PrerequisiteError("-T base= and -T head= need -T repo=PATH")
    else:
        samples = gold_samples(args["fixtures"], split, overrides, args["cases"])
    human = human_answers("-T human", args["human"]) if args["human"] is not None else None
    plan = plan_file(args["plan"], samples) if args["plan"] is not None else None
    feature = read_plan(plan).title if plan is not None else None
    memory_dir = memory_folder(memory_mode, args["memory_dir"], samples[0] if user else None)
    for sample in samples:
        meta = sample.metadata
        meta["memory_mode"], meta["memory_dir"], meta["plan"], meta["feature"] = memory_mode, memory_dir, plan, feature
        if human is not None:
            meta["human"] = list(human)
        meta["implementer"] = implementer or ("agent" if user else "scripted")
        if meta["implementer"] == "agent":
            sample.sandbox = SandboxEnvironmentSpec("local")  # the agent's tools run on this machine, in its folder
    source = args["repo"] or args["patch"] or args["cases"] or args["fixtures"]
    return ReviewInput(samples=samples, source=f"{source}",
                       metadata={"prompt_version": PROMPT_VERSION, "analytics": analytics_file(args["analytics"])})


def analytics_file(value: str | None) -> str | None:
    """-T analytics=FILE (a file that can be written, checked before any review) or off; None:
    beside the run's log."""
    if value is None:
        return None
    if str(value).strip().lower() in ("off", "false", "no"):
        return "off"
    path = resolve_user_path(str(value))
    if not path.is_absolute():
        path = user_dir() / path
    if path.is_dir():
        raise PrerequisiteError(f"-T analytics={value}: is a folder; give the file to append to (or off)")
    problem = folder_problem(path.parent)
    if problem is not None:
        raise PrerequisiteError(f"-T analytics={value}: {problem}")
    return str(path)


def memory_folder(mode: str, value: str | None, user: Sample | None) -> str | None:
    """The memory folder of a user run, checked before any review: with memory=update a folder
    that can be written (`-T memory_dir`, else the repository's .claude/agent-memory; a patch has
    no repository, so it needs memory_dir); with memory=read an existing one."""
    if mode == "off":
        if value is not None:
            raise PrerequisiteError(f"-T memory_dir={value}: has no effect with -T memory=off")
        return None
    if value is not None and not str(value).strip():
        raise PrerequisiteError("-T memory_dir=: expected a folder")
    if value is not None and user is None:
        raise PrerequisiteError(f"-T memory_dir={value}: the gold set reads a per-sample copy of each case's seeded "
                                "memory; memory_dir is for reviews of your own change")
    if mode == "update":
        if value is not None:
            return str(writable_folder("memory_dir", value))
        if user is None:
            return None  # the gold set updates per-sample copies of its seeded memory
        repo = user.metadata.get("repo_root")
        if repo is None:
            raise PrerequisiteError("-T memory=update with -T patch=: give -T memory_dir=DIR (a patch has no "
                                    "repository to keep reviewer memory in)")
        folder = default_memory_dir(repo)
        problem = folder_problem(folder)
        if problem is not None:
            raise PrerequisiteError(f"-T memory=update: {problem}; choose another folder with -T memory_dir=DIR")
        return str(folder)
    if value is None:
        return None
    folder = resolve_user_path(str(value))
    if not folder.is_dir():
        raise PrerequisiteError(f"-T memory_dir={value}: no such folder (memory=read reads it; "
                                "-T memory=update starts one)")
    return str(folder)


def plan_file(value: str, samples: list[Sample]) -> str:
    """-T plan=FILE: a task table holding every reviewed task, in a file that can be written back."""
    if not str(value).strip():
        raise PrerequisiteError("-T plan=: expected the plan file (markdown with the task table)")
    path = resolve_user_path(str(value))
    try:
        plan = read_plan(path)
    except PlanError as ex:
        raise PrerequisiteError(f"-T plan={value}: {ex}") from None
    missing = sorted({s.metadata["task"] for s in samples} - set(plan.tasks), key=lambda t: (len(t), t))
    if missing:
        raise PrerequisiteError(f"-T plan={value}: task {', '.join(missing)} not in its task table "
                                f"(tasks: {', '.join(plan.tasks) or 'none'})")
    if not os.access(path, os.W_OK) or not os.access(Path(path).parent, os.W_OK | os.X_OK):
        raise PrerequisiteError(f"-T plan={value}: cannot be written back (no write permission)")
    return str(path.resolve())
