"""Adversarial review of a design against its requirements by a panel of personas.

    inspect eval tasks/design_review.py                                   # the gold set, offline
    inspect eval tasks/design_review.py -T design=D.md -T requirements=R.md -T topic=t \
        -T output_dir=docs/reviews                                        # your documents
    inspect eval tasks/design_review.py --model anthropic/claude-sonnet-4-5 \
        --model-role synthesizer=anthropic/claude-sonnet-4-5
"""

import inspect
from typing import Any

from inspect_ai import Epochs, Task, task
from review_harness.core.inspect_adapter import PrerequisiteError
from inspect_ai.dataset import MemoryDataset

from review_harness.core.panel import cache_policy
from review_harness.core.params import as_flag, reject_unknown_params, resolve_user_path
from review_harness.design.dataset import check_topic, gold_samples, parse_personas, user_samples
from review_harness.design.personas import default_personas
from review_harness.design.prompts import PROMPT_VERSION
from scorers import review_epochs
from scorers.design_gold import design_gold
from scorers.design_synthesis import design_synthesis
from solvers.design_panel import design_pipeline


@task
def design_review(
    design: str | None = None,
    requirements: str | None = None,
    stage: str | None = None,
    topic: str | None = None,
    personas: str | None = None,
    output_dir: str | None = None,
    fixtures: str = "design",
    split: str = "all",
    reviewer_timeout: float | None = None,
    max_tokens: int | None = None,
    cache: bool = False,
    cache_per_epoch: bool = True,
    **unknown: Any,
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
    reviewer_timeout: seconds per persona call (60-120; default 120).
    max_tokens: output cap per call.
    cache: reuse model responses for identical prompts (a re-run calls only the failed personas).
    cache_per_epoch: with cache, keep epochs apart (default).
    """
    reject_unknown_params(unknown, known=inspect.signature(design_review).parameters)
    config = default_personas()
    if reviewer_timeout is not None:
        low, high = config.failure.timeout_range
        try:
            reviewer_timeout = float(reviewer_timeout)
        except (TypeError, ValueError):
            raise PrerequisiteError(f"-T reviewer_timeout={reviewer_timeout}: expected seconds, {low:g}-{high:g}") from None
        if not low <= reviewer_timeout <= high:
            raise PrerequisiteError(f"-T reviewer_timeout={reviewer_timeout:g}: must be between {low:g} and {high:g} seconds")
    override = parse_personas(personas, config)
    if topic is not None:
        check_topic(str(topic))
    if design is not None:
        samples = user_samples(design, requirements, stage, topic, override, config)
    elif requirements is not None:
        raise PrerequisiteError("-T design=PATH is required with -T requirements=PATH")
    else:
        samples = gold_samples(fixtures, split, stage, override, config)
    out = str(resolve_user_path(output_dir)) if output_dir else None
    return Task(
        dataset=MemoryDataset(samples, name=f"design-review:{design or fixtures}"),
        solver=design_pipeline(
            output_dir=out, timeout=reviewer_timeout, max_tokens=max_tokens,
            cache=cache_policy(as_flag("cache", cache), as_flag("cache_per_epoch", cache_per_epoch)),
        ),
        scorer=[design_synthesis()] + ([design_gold()] if any(s.metadata.get("gold") for s in samples) else []),
        epochs=Epochs(1, review_epochs()),
        metadata={"prompt_version": PROMPT_VERSION, "personas_version": config.version},
    )
