"""Dual-model code review of a change against its task spec.

    inspect eval tasks/code_review.py                                          # the gold set, offline
    inspect eval tasks/code_review.py -T repo=. -T base=HEAD~1 -T head=HEAD -T spec=SPEC.md
    inspect eval tasks/code_review.py -T patch=change.diff -T spec=SPEC.md -T auto_reject=true
    inspect eval tasks/code_review.py --model-role reviewer_a=anthropic/claude-haiku-5-5 \
        --model-role reviewer_b=anthropic/claude-sonnet-5-5 --model-role implementer=anthropic/claude-sonnet-5-5
"""

from typing import Any

from inspect_ai import Epochs, Task, task

from review_harness.code.task import code_input
from review_harness.core.task import review_task
from scorers import review_epochs
from scorers.code_gold import code_gold
from scorers.code_synthesis import code_synthesis
from solvers.code_panel import code_pipeline


@task
def code_review(
    repo: str | None = None, base: str | None = None, head: str | None = None, patch: str | None = None,
    spec: str | None = None, service: str | None = None, task_number: str = "1", config: str | None = None,
    strategy: str | None = None, speculative_quality: str | None = None, max_fix_iterations: str | None = None,
    fix_timeout_turns: str | None = None, auto_approve: str | None = None, auto_reject: str | None = None,
    max_change_chars: str | None = None, memory: str | None = None, memory_dir: str | None = None,
    human: str | None = None, plan: str | None = None, implementer: str | None = None, analytics: str | None = None,
    fixtures: str = "code", cases: str | None = None, split: str = "all",
    timeout: float | None = None, max_tokens: int | None = None, cache: bool = False, **unknown: Any,
) -> Task:
    """Args:
    repo, base, head: a git repository and the revisions whose diff is reviewed (head defaults to HEAD).
    patch: a unified diff file instead of repo/base/head.
    spec: the task spec (markdown) the change is reviewed against.
    service: the service name (default: from the changed paths).
    task_number: the task's number in the feature plan (for the report, escalation message and plan).
    config: a project YAML with a `review:` section (default: <repo>/.claude/project.yml when present).
    strategy ... max_change_chars: overrides of the `review:` keys.
    memory: off | read | update (default read; the gold set reads a per-sample copy of each case's seeded memory).
    memory_dir: the memory folder (default .claude/agent-memory under the repository; required with patch + update).
    human: the human's answers at each decision point, in order: approve,reject,approve:q2+q3 (dismisses q2, q3).
    plan: the feature plan (markdown task table + dependencies), updated in place; escalation blocks dependents.
    implementer: agent (fixes in a throwaway worktree; default for your change) | scripted (a gold case's fixes).
    analytics: the file each review appends its analytics to (default review-analytics.json beside the log) | off.
    fixtures / cases / split: the gold set (fixtures/<fixtures>/ or a folder of cases) and its split.
    timeout: seconds per reviewer call (default 300).
    max_tokens: output cap per call; cache: reuse responses for identical prompts.
    """
    with review_task(
        "code", code_review, repo=repo, base=base, head=head, patch=patch, spec=spec, service=service,
        task_number=task_number, config=config, strategy=strategy, speculative_quality=speculative_quality,
        max_fix_iterations=max_fix_iterations, fix_timeout_turns=fix_timeout_turns, auto_approve=auto_approve,
        auto_reject=auto_reject, max_change_chars=max_change_chars, memory=memory, memory_dir=memory_dir,
        human=human, plan=plan, implementer=implementer, analytics=analytics, fixtures=fixtures, cases=cases,
        split=split, timeout=timeout, max_tokens=max_tokens, cache=cache, unknown=unknown,
    ) as run:
        return run.task(code_input(run), solver=code_pipeline(**run.pipeline_options),
                        synthesis=code_synthesis(), gold=code_gold(), epochs=Epochs(1, review_epochs()))
