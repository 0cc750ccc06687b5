"""The DS review's own task parameters (tasks/ds_review.py): the documents or the fixture set,
the review options, the rubric and the domain dimension. The shared ones (timeout, max_tokens,
cache, output_dir) are checked by the core task helper."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from review_harness.core.inspect_adapter import PrerequisiteError
from review_harness.core.params import as_paths
from review_harness.core.task import ReviewInput, TaskRun
from review_harness.ds.dataset import fixture_samples, input_error_tolerance, many_document_samples, task_rubric
from review_harness.ds.preflight import domain_reference, task_domains
from review_harness.ds.prompts import PROMPT_VERSION

OPTION_NAMES = ("mode", "audience", "workflow", "draft")


@dataclass
class DsInput(ReviewInput):
    rubric: str | None = None  # the rubric file, resolved; None: the default rubric
    pipeline: dict[str, Any] = field(default_factory=dict)  # the domain dimension's keywords, when asked for


def ds_input(run: TaskRun) -> DsInput:
    args = run.args
    rubric, the_rubric = task_rubric(args["rubric"])
    domains = task_domains(args["domain"])
    reference_text = domain_reference(args["reference"], domains)
    options = {name: args[name] for name in OPTION_NAMES} | {"domain": domains}
    document, confluence = args["document"], args["confluence"]
    if confluence and not document:
        raise PrerequisiteError(f"-T confluence={confluence}: give the page with -T document=PAGE_ID or URL")
    if document is not None:
        samples = many_document_samples(as_paths("document", document), options, confluence)
    else:
        samples = fixture_samples(args["fixtures"], options)
    metadata: dict[str, Any] = {"prompt_version": PROMPT_VERSION, "rubric_version": the_rubric.version}
    pipeline: dict[str, Any] = {}
    sample_domains = sorted({d for s in samples for d in (s.metadata or {}).get("options", {}).get("domains") or []})
    if sample_domains:  # -T domain=, or fixtures whose gold options name a domain
        metadata["domains"] = domains or sample_domains
        pipeline = {"with_domain": True, "reference": args["reference"], "reference_text": reference_text}
    return DsInput(
        samples=samples,
        source=f"{document or args['fixtures']}",
        metadata=metadata,
        task_options={"fail_on_error": input_error_tolerance(samples)},
        rubric=rubric,
        pipeline=pipeline,
    )
