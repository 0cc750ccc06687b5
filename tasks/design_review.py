"""Adversarial review of a design against its requirements by a panel of personas.

    inspect eval tasks/design_review.py                                   # the gold set, offline
    inspect eval tasks/design_review.py -T design=D.md -T requirements=R.md -T topic=t
                                                  # your documents; writes docs/reviews/t/
    inspect eval tasks/design_review.py --model anthropic/claude-sonnet-5-5 \
        --model-role synthesizer=anthropic/claude-sonnet-5-5
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
    design: str | None = None, requirements: str | None = None, requirements_sections: str | None = None,
    stage: str | None = None,
    topic: str | None = None, personas: str | None = None, output_dir: str | None = None,
    auto_fix: bool = False, fixtures: str = "design", split: str = "all", timeout: float | None = None,
    max_tokens: int | None = None, cache: bool = False, cache_per_epoch: bool = True, **unknown: Any,
) -> Task:
    """Args:
    design: the design (or plan) file or text; at stage=requirements the brief; default: the gold set.
    requirements: what it is reviewed against (file or text); at stage=requirements, the document reviewed.
    requirements_sections: instead of requirements, headings of the design that state its goals (e.g. Goals,Non-Goals).
    stage: requirements | design | plan (default design; for the gold set, each case's own).
    topic: label of the review folder (letters, digits, '-', '_'); default: the reviewed file's name.
    personas: comma-separated persona ids overriding the stage's set.
    output_dir: parent of <topic>/ (default for your documents: docs/reviews; the gold set: none).
    auto_fix: apply mechanical fixes to the design file as a separate git commit.
    fixtures: fixture set under fixtures/ used when no design is given.
    split: all | dev | heldout cases of the gold set.
    timeout: seconds per persona call (60-120; default 120).
    max_tokens: output cap per call.
    cache: reuse model responses for identical prompts (a re-run calls only the failed personas).
    cache_per_epoch: with cache, keep epochs apart (default).
    """
    with review_task(
        "design", design_review, design=design, requirements=requirements,
        requirements_sections=requirements_sections, stage=stage, topic=topic,
        personas=personas, output_dir=output_dir, auto_fix=auto_fix, fixtures=fixtures, split=split,
        timeout=timeout, max_tokens=max_tokens, cache=cache, cache_per_epoch=cache_per_epoch, unknown=unknown,
    ) as run:
        review = design_input(run)
        return run.task(
            review, solver=design_pipeline(**review.pipeline_options(run)),
            synthesis=design_synthesis(), gold=design_gold(), epochs=Epochs(1, review_epochs()),
        )
