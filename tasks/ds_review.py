"""Review data-science analyses with a two-reviewer panel (analysis + communication).

    inspect eval tasks/ds_review.py                          # the fixture set, offline reviewer
    inspect eval tasks/ds_review.py -T document=analysis.md  # your document (or a folder, or a,b)
    inspect eval tasks/ds_review.py --model anthropic/claude-sonnet-5-5
    review-harness show                                      # the newest review, in the terminal
"""

from typing import Any

from inspect_ai import Epochs, Task, task

from review_harness.core.task import review_task
from review_harness.ds.task import ds_input
from scorers import gold_comparison, review_epochs, review_synthesis
from solvers import review_pipeline


@task
def ds_review(
    document: str | list[str] | None = None, confluence: str | None = None, mode: str | None = None,
    audience: str | None = None, workflow: str | None = None, draft: bool | str | None = None,
    fixtures: str = "ds", rubric: str | None = None, timeout: float | None = None, max_tokens: int | None = None,
    cache: bool = False, cache_per_epoch: bool = True, output_dir: str | None = None,
    domain: str | list[str] | None = None, reference: str | None = None, **unknown: Any,
) -> Task:
    """Args:
    document: a file (.md, .txt, .ipynb, .docx, .html, .pdf, Confluence storage export), a
        folder of them, several (a.md,b.md), or a Confluence page URL (or page id with
        -T confluence=URL); default: the fixture set.
    confluence: the Confluence site (e.g. https://acme.atlassian.net/wiki) for a page id.
    mode: full | quick (default full; quick always uses the structured extraction).
    audience: exec | tech | ds | mixed (default mixed).
    workflow: general | proactive | reactive (default general).
    draft: true for qualitative draft feedback with no numeric score.
    fixtures: fixture set under fixtures/ used when no document is given.
    rubric: calibrated (the calibrated scoring) or a path to a rubric YAML (default
        prompts/ds/rubric.yaml, the design's scoring).
    timeout: seconds per reviewer call before it counts as failed (default 600).
    max_tokens: output cap per reviewer call.
    cache: reuse model responses for identical prompts (Inspect's response cache).
    cache_per_epoch: with cache, keep epochs apart (default) so --epochs still measures
        run-to-run variation; false shares one cached answer across epochs.
    output_dir: also write each review to DIR/<document>.review.md.
    domain: add the domain knowledge dimension for these domains (search-ranking, or
        search-ranking,query-understanding): a third reviewer, weights 50/25/25.
    reference: with domain, a file whose text supplements (never overrides) the domain brief.
    """
    with review_task(
        "ds", ds_review, document=document, confluence=confluence, mode=mode, audience=audience, workflow=workflow,
        draft=draft, fixtures=fixtures, rubric=rubric, timeout=timeout, max_tokens=max_tokens, cache=cache,
        cache_per_epoch=cache_per_epoch, output_dir=output_dir, domain=domain, reference=reference, unknown=unknown,
    ) as run:
        ds = ds_input(run)
        return run.task(
            ds, solver=review_pipeline(ds.rubric, **run.pipeline_options, **ds.pipeline),
            synthesis=review_synthesis(ds.rubric), gold=gold_comparison(ds.rubric),
            epochs=Epochs(1, review_epochs()),  # --epochs N keeps this reducer: score spread, finding stability
        )
