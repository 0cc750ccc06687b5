"""Adversarial review of a design against its requirements by a panel of personas.

    inspect eval tasks/design_review.py                                   # the gold set, offline
    inspect eval tasks/design_review.py -T design=D.md -T requirements=R.md -T topic=t \
        -T output_dir=docs/reviews                                        # your documents
    inspect eval tasks/design_review.py --model anthropic/claude-sonnet-4-5 \
        --model-role synthesizer=anthropic/claude-sonnet-4-5
"""

from typing import Any

from inspect_ai import Epochs, Task, task

from review_harness.core.task import review_task
from review_harness.design.task import design_input
from scorers import review_epochs
from scorers.design_gold import design_gold
from scorers.design_synthesis import design_synthesis
from solvers.design_panel import design_pipeline


@task
def design_review(
    design: str | None = None, requirements: str | None = None, stage: str | None = None,
    topic: str | None = None, personas: str | None = None, output_dir: str | None = None,
    fixtures: str = "design", split: str = "all", timeout: float | None = None, max_tokens: int | None = None,
    cache: bool = False, cache_per_epoch: bool = True, **unknown: Any,
) -> Task:
    """Args:
    design: the design (or brief, or plan) markdown file; default: the gold set.
    requirements: the requirements markdown file it is reviewed against.
    stage: requirements | design | plan (default design; for the gold set, each case's own).
    topic: label of the review folder (letters, digits, '-', '_'); default: the design's file name.
    personas: comma-separated persona ids overriding the stage's set.
    output_dir: write <output_dir>/<topic>/ (persona files, summary.md, findings, patterns, delta).
    fixtures: fixture set under fixtures/ used when no design is given.
    split: all | dev | heldout cases of the gold set.
    timeout: seconds per persona call (60-120; default 120).
    max_tokens: output cap per call.
    cache: reuse model responses for identical prompts (a re-run calls only the failed personas).
    cache_per_epoch: with cache, keep epochs apart (default).
    """
    with review_task("design", design_review, locals()) as run:
        return run.task(
            design_input(run), solver=design_pipeline(**run.pipeline_options),
            synthesis=design_synthesis(), gold=design_gold(), epochs=Epochs(1, review_epochs()),
        )
