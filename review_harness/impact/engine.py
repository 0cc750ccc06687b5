"""The impact review as a library: ``ReviewEngine`` reviews one artifact and returns the seed's
``ReviewResult``; ``ArtifactReview`` wraps it as a pipeline component of the EVALUATE stage.

Two ways to run, both over the same code:

* ``engine.review(path_or_envelope)`` runs the task's own solvers and scorer through Inspect's
  ``eval()`` (a log is written, so the review is auditable in ``inspect view``);
* ``await engine.areview(...)`` calls the reviewer through ``get_model()`` directly (for code
  that already runs an event loop, where ``eval()`` cannot be called).

Backends are Inspect model providers: ``ReviewConfig.backend`` names one (``anthropic``,
``openai``, ``litellm-proxy``, ``offline``); without one, ``INSPECT_EVAL_MODEL`` decides.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from review_harness.core.params import resolve_user_path
from review_harness.impact.artifact import ArtifactError, load_artifact, validate_envelope
from review_harness.impact.config import ReviewConfig, default_settings
from review_harness.impact.knowledge import EmptyKnowledgeBase, KnowledgeBase, StaticKnowledgeBase, default_knowledge_dir
from review_harness.impact.models import ImpactArtifact, ImpactReview, ReviewResult
from review_harness.impact.registry import PromptRegistry, PromptSpec
from review_harness.impact.review import build_review, call_reviewer, prepare_request, reviewer_policy

Artifact = str | Path | dict | ImpactArtifact


class ReviewError(RuntimeError):
    """The review could not run (the eval failed); the message says why."""


class ReviewEngine:
    def __init__(self, config: ReviewConfig | dict | str | Path | None = None, log_dir: str | Path = "logs"):
        if isinstance(config, ReviewConfig):
            self.config = config
        elif isinstance(config, dict):
            self.config = ReviewConfig.load(data=config)
        else:
            self.config = ReviewConfig.load(path=config)
        self.log_dir = str(log_dir)
        self.spec: PromptSpec = PromptRegistry(self.config.prompt.template_dirs).get(
            self.config.prompt.name, self.config.prompt.version)
        self.knowledge: KnowledgeBase = self._knowledge()
        self.last_review: ImpactReview | None = None

    def _knowledge(self) -> KnowledgeBase:
        k = self.config.knowledge
        if k.type == "none":
            return EmptyKnowledgeBase()
        return StaticKnowledgeBase(resolve_user_path(k.path) if k.path else default_knowledge_dir())

    @staticmethod
    def artifact(source: Artifact) -> ImpactArtifact:
        """A path, an envelope dict or a validated artifact (errors name the source and field)."""
        if isinstance(source, ImpactArtifact):
            return source
        if isinstance(source, dict):
            return validate_envelope(source, "<envelope>")
        return load_artifact(source)

    # -- through Inspect's eval(): the task's solvers and scorer, with a log
    def review(self, source: Artifact) -> ReviewResult:
        from inspect_ai import Task, eval
        from inspect_ai.dataset import MemoryDataset

        from review_harness.impact.dataset import artifact_sample
        from review_harness.impact.pipeline import impact_pipeline, impact_synthesis

        artifact = self.artifact(source)
        b = self.config.backend
        task = Task(
            dataset=MemoryDataset([artifact_sample(artifact.contract.initiative_id, artifact)], name="impact-review:engine"),
            solver=impact_pipeline(self.spec, knowledge_base_obj=self.knowledge, top_k=self.config.knowledge.top_k,
                                   structured=b.structured, timeout=b.timeout, retries=b.retries, max_tokens=b.max_tokens),
            scorer=impact_synthesis(),
            metadata={"prompt_name": self.spec.name, "prompt_version": self.spec.version},
            name="impact_review",
        )
        [log] = eval(task, model=b.model_name, log_dir=self.log_dir, display="none", temperature=b.temperature)
        if log.status != "success" or not log.samples:
            raise ReviewError(f"impact review of {artifact.source}: eval {log.status}: {log.error.message if log.error else 'no sample'}")
        score = log.samples[0].scores["impact_synthesis"]  # type: ignore[index]
        self.last_review = ImpactReview.model_validate(score.metadata["review"])  # type: ignore[index]
        return self.last_review.result

    # -- through get_model(): no log, callable inside a running event loop
    async def areview(self, source: Artifact) -> ReviewResult:
        from inspect_ai.model import GenerateConfig, get_model

        artifact = self.artifact(source)
        b = self.config.backend
        settings = default_settings()
        request = prepare_request(artifact, self.spec, self.knowledge, self.config.knowledge.top_k, settings)
        model = get_model(b.model_name, config=GenerateConfig(temperature=b.temperature))
        result = await call_reviewer(request, model, policy=reviewer_policy(settings, b.timeout, b.retries),
                                     structured=b.structured, max_tokens=b.max_tokens)
        self.last_review = build_review(request, result)
        return self.last_review.result


class ArtifactReview:
    """EVALUATE-stage pipeline component: reads the measure stage's impact_results.json (a path
    or the envelope itself) from the event, adds the review and the deterministic confidence."""

    name = "artifact_review"

    def __init__(self, config: ReviewConfig | dict | str | Path | None = None, engine: ReviewEngine | None = None):
        self.engine = engine or ReviewEngine(config)

    def execute(self, event: dict[str, Any]) -> dict[str, Any]:
        source = event.get("impact_results")
        if source is None:
            raise ArtifactError("event: impact_results: missing (a path to impact_results.json or its envelope)")
        if isinstance(source, str) and source.lstrip().startswith("{"):
            source = json.loads(source)
        result = self.engine.review(source)
        review = self.engine.last_review
        assert review is not None
        return {**event, "review": result.model_dump(mode="json"), "confidence": review.confidence.model_dump(mode="json"),
                "review_status": review.status}

    __call__ = execute


__all__ = ["ArtifactReview", "ReviewEngine", "ReviewError"]
