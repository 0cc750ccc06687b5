"""The impact review's own task parameters (tasks/impact_review.py): the artifact or the gold set,
the prompt template (name, version, extra folders; rendered once up front), the knowledge notes
and the reviewer's options. The shared ones are checked by the core task helper."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from review_harness.core.inspect_adapter import PrerequisiteError
from review_harness.core.params import as_number, as_paths, choice, resolve_user_path
from review_harness.core.task import ReviewInput, TaskRun
from review_harness.impact.config import ConfigError, default_settings
from review_harness.impact.dataset import gold_samples, user_samples
from review_harness.impact.knowledge import EmptyKnowledgeBase
from review_harness.impact.models import ImpactArtifact
from review_harness.impact.registry import PromptError, PromptRegistry, PromptSpec
from review_harness.impact.review import prepare_request

STRUCTURED = ("auto", "on", "off")


def prompt_spec(prompt: str | None, prompt_version: str | None, template_dirs: list[str]) -> PromptSpec:
    try:
        dirs = [resolve_user_path(d) for d in template_dirs]
        return PromptRegistry(dirs).get(prompt or default_settings().prompt["name"], prompt_version)
    except (PromptError, ConfigError) as ex:
        raise PrerequisiteError(f"prompt: {ex}") from None


def check_template(spec: PromptSpec, artifact: ImpactArtifact) -> None:
    """Render the template once at task creation, so a template that uses an unknown key stops
    the run with one line (file and key) instead of failing every sample."""
    try:
        prepare_request(artifact, spec, EmptyKnowledgeBase(), 1)
    except PromptError as ex:
        raise PrerequisiteError(f"prompt: {ex}") from None


@dataclass
class ImpactInput(ReviewInput):
    spec: PromptSpec | None = None
    pipeline: dict[str, Any] = field(default_factory=dict)  # the reviewer's options besides the shared ones


def impact_input(run: TaskRun) -> ImpactInput:
    args = run.args
    top_k = as_number("top_k", args["top_k"], integer=True)
    retries = as_number("retries", args["retries"], integer=True, positive=False)
    if retries < 0:
        raise PrerequisiteError(f"-T retries={args['retries']}: expected a whole number, 0 or more")
    structured = choice("structured", args["structured"], STRUCTURED) or "auto"
    artifact = args["artifact"]
    samples = user_samples(artifact) if artifact is not None else gold_samples(args["split"])
    template_dirs = as_paths("template_dirs", args["template_dirs"]) if args["template_dirs"] else []
    version = args["prompt_version"]
    spec = prompt_spec(args["prompt"], None if version is None else str(version), template_dirs)
    if samples:
        check_template(spec, ImpactArtifact.model_validate(samples[0].metadata["artifact"]))
    knowledge = args["knowledge"]
    return ImpactInput(
        samples=samples,
        source=f"{artifact or 'gold'}",
        metadata={"prompt_name": spec.name, "prompt_version": spec.version, "prompt_source": spec.source,
                  "knowledge": knowledge or "built-in", "top_k": top_k},
        spec=spec,
        pipeline={"knowledge": knowledge, "top_k": top_k, "structured": structured, "retries": retries},
    )
