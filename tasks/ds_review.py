"""Review data-science analyses with a two-reviewer panel (analysis + communication).

    inspect eval tasks/ds_review.py                          # the fixture set, offline reviewer
    inspect eval tasks/ds_review.py -T document=analysis.md  # your document (or a folder, or a,b)
    inspect eval tasks/ds_review.py --model anthropic/claude-sonnet-4-5
    review-harness show                                      # the newest review, in the terminal
"""

import inspect
from typing import Any

from inspect_ai import Epochs, Task, task
from review_harness.core.inspect_adapter import PrerequisiteError
from inspect_ai.dataset import MemoryDataset

from review_harness.core.panel import cache_policy
from review_harness.core.params import (
    as_flag,
    as_number,
    as_paths,
    loud_errors,
    reject_unknown_params,
    require_model,
)
from review_harness.ds.dataset import fixture_samples, input_error_tolerance, many_document_samples, task_rubric
from review_harness.ds.preflight import domain_reference, output_folder, register_review_pointer, task_domains
from review_harness.ds.prompts import PROMPT_VERSION
from scorers import gold_comparison, review_epochs, review_synthesis
from solvers import review_pipeline


@task
def ds_review(
    document: str | list[str] | None = None,
    confluence: str | None = None,
    mode: str | None = None,
    audience: str | None = None,
    workflow: str | None = None,
    draft: bool | str | None = None,
    fixtures: str = "ds",
    rubric: str | None = None,
    reviewer_timeout: float = 600,
    max_tokens: int | None = None,
    cache: bool = False,
    cache_per_epoch: bool = True,
    output_dir: str | None = None,
    domain: str | list[str] | None = None,
    reference: str | None = None,
    **unknown: Any,
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
    rubric: path to a rubric YAML (default prompts/ds/rubric.yaml).
    reviewer_timeout: seconds before a reviewer counts as failed.
    max_tokens: output cap per reviewer call.
    cache: reuse model responses for identical prompts (Inspect's response cache).
    cache_per_epoch: with cache, keep epochs apart (default) so --epochs still measures
        run-to-run variation; false shares one cached answer across epochs.
    output_dir: also write each review to DIR/<document>.review.md.
    domain: add the domain knowledge dimension for these domains (search-ranking, or
        search-ranking,query-understanding): a third reviewer, weights 50/25/25.
    reference: with domain, a file whose text supplements (never overrides) the domain brief.
    """
    with loud_errors("ds_review"):
        reject_unknown_params(unknown, known=inspect.signature(ds_review).parameters)
        require_model()
        timeout = as_number("reviewer_timeout", reviewer_timeout)
        tokens = as_number("max_tokens", max_tokens, integer=True)
        folder = output_folder(output_dir)
        rubric, the_rubric = task_rubric(rubric)
        domains = task_domains(domain)
        reference_text = domain_reference(reference, domains)
        overrides = {"mode": mode, "audience": audience, "workflow": workflow, "draft": draft}
        if confluence and not document:
            raise PrerequisiteError(f"-T confluence={confluence}: give the page with -T document=PAGE_ID or URL")
        if document is not None:
            samples = many_document_samples(as_paths("document", document), overrides, confluence)
            register_review_pointer(folder)
        else:
            samples = fixture_samples(fixtures, overrides)
        solver = review_pipeline(
            rubric,
            timeout=timeout,
            max_tokens=tokens,
            cache=cache_policy(as_flag("cache", cache), as_flag("cache_per_epoch", cache_per_epoch)),
            output_dir=str(folder) if folder else None,
            **({"domains": domains, "reference": reference, "reference_text": reference_text} if domains else {}),
        )
    return Task(
        dataset=MemoryDataset(samples, name=f"ds-review:{document or fixtures}"),
        solver=solver,
        scorer=[review_synthesis(rubric)]
        + ([gold_comparison(rubric)] if any(s.metadata.get("gold") for s in samples) else []),
        # --epochs N keeps this reducer: it adds score spread and per-finding stability
        epochs=Epochs(1, review_epochs()),
        fail_on_error=input_error_tolerance(samples),
        metadata={"prompt_version": PROMPT_VERSION, "rubric_version": the_rubric.version}
        | ({"domains": domains} if domains else {}),
    )
