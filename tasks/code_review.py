"""Dual-model code review of a change against its task spec.

    inspect eval tasks/code_review.py                                          # the gold set, offline
    inspect eval tasks/code_review.py -T repo=. -T base=HEAD~1 -T head=HEAD -T spec=SPEC.md
    inspect eval tasks/code_review.py -T patch=change.diff -T spec=SPEC.md -T auto_reject=true
    inspect eval tasks/code_review.py --model-role reviewer_a=anthropic/claude-haiku-4-5 \
        --model-role reviewer_b=anthropic/claude-sonnet-4-5 --model-role implementer=anthropic/claude-sonnet-4-5
"""

import inspect
from typing import Any

from inspect_ai import Task, task
from review_harness.core.inspect_adapter import PrerequisiteError
from inspect_ai.dataset import MemoryDataset

from review_harness.code.dataset import SPLITS, gold_samples, user_sample
from review_harness.code.memory import MEMORY_MODES
from review_harness.code.prompts import PROMPT_VERSION
from review_harness.core.panel import cache_policy
from review_harness.core.params import as_flag, choice, reject_unknown_params
from scorers.code_gold import code_gold
from scorers.code_synthesis import code_synthesis
from solvers.code_panel import code_pipeline


@task
def code_review(
    repo: str | None = None,
    base: str | None = None,
    head: str | None = None,
    patch: str | None = None,
    spec: str | None = None,
    service: str | None = None,
    task_number: str = "1",
    config: str | None = None,
    strategy: str | None = None,
    speculative_quality: str | None = None,
    max_fix_iterations: str | None = None,
    fix_timeout_turns: str | None = None,
    auto_approve: str | None = None,
    auto_reject: str | None = None,
    max_change_chars: str | None = None,
    memory: str | None = None,
    memory_dir: str | None = None,
    fixtures: str = "code",
    cases: str | None = None,
    split: str = "all",
    max_tokens: int | None = None,
    cache: bool = False,
    **unknown: Any,
) -> Task:
    """Args:
    repo, base, head: a git repository and the revisions whose diff is reviewed (head defaults to HEAD).
    patch: a unified diff file instead of repo/base/head.
    spec: the task spec (markdown) the change is reviewed against.
    service: the service name (default: from the changed paths).
    task_number: the task's number in the feature plan (for the report and escalation message).
    config: a project YAML with a `review:` section (default: <repo>/.claude/project.yml when present).
    strategy ... max_change_chars: overrides of the `review:` keys.
    memory: off | read | update (default read; the gold set reads a per-sample copy of each case's seeded memory).
    memory_dir: the memory folder (default .claude/agent-memory under the repository).
    fixtures / cases / split: the gold set (fixtures/<fixtures>/ or a folder of cases) and its split.
    """
    reject_unknown_params(unknown, known=inspect.signature(code_review).parameters)
    overrides = {
        "strategy": strategy, "speculative_quality": speculative_quality, "max_fix_iterations": max_fix_iterations,
        "fix_timeout_turns": fix_timeout_turns, "auto_approve": auto_approve, "auto_reject": auto_reject,
        "max_change_chars": max_change_chars,
    }
    mode = choice("memory", memory, MEMORY_MODES)
    split = choice("split", split, SPLITS)
    if repo is not None or patch is not None or spec is not None:
        sample = user_sample(repo=repo, base=base, head=head, patch=patch, spec=spec, service=service,
                             task_number=str(task_number), config_path=config, overrides=overrides)
        sample.metadata["memory_mode"] = mode or "read"
        sample.metadata["memory_dir"] = memory_dir
        samples = [sample]
    else:
        if base is not None or head is not None:
            raise PrerequisiteError("-T base= and -T head= need -T repo=PATH")
        samples = gold_samples(fixtures, split, overrides, cases)
        for sample in samples:
            sample.metadata["memory_mode"] = mode or "read"
            sample.metadata["memory_dir"] = memory_dir
    return Task(
        dataset=MemoryDataset(samples, name=f"code-review:{repo or patch or cases or fixtures}"),
        solver=code_pipeline(max_tokens=max_tokens, cache=cache_policy(as_flag("cache", cache))),
        scorer=[code_synthesis()] + ([code_gold()] if any(s.metadata.get("gold") for s in samples) else []),
        metadata={"prompt_version": PROMPT_VERSION, "kind": "code"},
    )
