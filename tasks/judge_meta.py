"""Meta-eval of the LLM judge: does it rank reviews of known quality in the right order?

    inspect eval tasks/judge_meta.py                                   # the offline judge (.env)
    inspect eval tasks/judge_meta.py --model anthropic/claude-sonnet-5-5

Here the judge IS the model under evaluation, so it is the task's model (not the `grader`
role the review_judge scorer needs). Each sample is one fixture document with three reviews
of known quality from fixtures/judge_meta/ (faithful, invented findings, gamed); the solver
has the model judge all three and `judge_ordering()` reports `ordering_accuracy` and
`gaming_resistance`.
"""

from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset

from review_harness.core.params import as_number
from review_harness.core.task import checked_parameters
from review_harness.ds.dataset import FIXTURES_DIR, judge_meta_samples, task_rubric
from review_harness.ds.judge import JUDGE_PROMPT_VERSION
from scorers.ds_judge import judge_ordering
from solvers.ds_judge_meta import judge_variants


@task
def judge_meta(fixtures: str = "judge_meta", rubric: str | None = None, max_tokens: int | None = None,
               **unknown: Any) -> Task:
    """Args:
    fixtures: folder under fixtures/ with the meta fixtures (YAML).
    rubric: path to a rubric YAML (default prompts/ds/rubric.yaml), used to synthesize the variants.
    max_tokens: output cap per judge call.
    """
    with checked_parameters(
        "judge_meta", judge_meta, fixtures=fixtures, rubric=rubric, max_tokens=max_tokens, unknown=unknown,
    ):
        return Task(
            dataset=MemoryDataset(judge_meta_samples(FIXTURES_DIR / fixtures), name=f"judge-meta:{fixtures}"),
            solver=judge_variants(task_rubric(rubric)[0], as_number("max_tokens", max_tokens, integer=True)),
            scorer=judge_ordering(),
            metadata={"judge_prompt": JUDGE_PROMPT_VERSION},
        )
