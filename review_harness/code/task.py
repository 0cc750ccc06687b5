"""The code review's own task parameters (tasks/code_review.py): the user's change and spec
(a repository with base and head, or a patch) or the gold set, the `review:` overrides of the
project config, and the memory mode. The shared ones are checked by the core task helper."""

from __future__ import annotations

from review_harness.core.inspect_adapter import PrerequisiteError
from review_harness.core.params import choice
from review_harness.core.task import ReviewInput, TaskRun
from review_harness.code.config import KEYS
from review_harness.code.dataset import SPLITS, gold_samples, user_sample
from review_harness.code.memory import MEMORY_MODES
from review_harness.code.prompts import PROMPT_VERSION

USER_CHANGE = ("repo", "patch", "spec")  # any of them: the user's change, else the gold set


def code_input(run: TaskRun) -> ReviewInput:
    args = run.args
    overrides = {key: args[key] for key in KEYS}  # -T strategy=... and the other `review:` keys
    memory_mode = choice("memory", args["memory"], MEMORY_MODES) or "read"
    split = choice("split", args["split"], SPLITS) or "all"
    if any(args[name] is not None for name in USER_CHANGE):
        samples = [user_sample(
            repo=args["repo"], base=args["base"], head=args["head"], patch=args["patch"], spec=args["spec"],
            service=args["service"], task_number=str(args["task_number"]), config_path=args["config"],
            overrides=overrides,
        )]
    elif args["base"] is not None or args["head"] is not None:
        raise PrerequisiteError("-T base= and -T head= need -T repo=PATH")
    else:
        samples = gold_samples(args["fixtures"], split, overrides, args["cases"])
    for sample in samples:
        sample.metadata["memory_mode"] = memory_mode
        sample.metadata["memory_dir"] = args["memory_dir"]
    source = args["repo"] or args["patch"] or args["cases"] or args["fixtures"]
    return ReviewInput(samples=samples, source=f"{source}", metadata={"prompt_version": PROMPT_VERSION})
