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
from review_harness.impact.artifact import CONTRACT_FIELDS, ArtifactError, load_artifact, read_artifact
from review_harness.impact.config import ReviewConfig, default_settings
from review_harness.impact.knowledge import KnowledgeBase, KnowledgeRegistry
from review_harness.impact.models import ArtifactPayload, ImpactArtifact, ImpactReview, MeasureContract, ReviewResult
from review_harness.impact.registry import PromptRegistry, PromptSpec
from review_harness.impact.review import build_review, call_reviewer, prepare_request, reviewer_policy
from review_harness.impact.table import ChecksTable, build_table

Artifact = str | Path | dict | ArtifactPayload | MeasureContract | ImpactArtifact


class ReviewError(RuntimeError):
    """The review could not run (the eval failed); the message says why."""


class ReviewEngine:
    def __init__(self, config: ReviewConfig | dict | str | Path | None = None, log_dir: str | Path = "logs",
                 knowledge: KnowledgeBase | None = None):
        """`config`: a ReviewConfig, a dict, a YAML path, or None (defaults and REVIEW_* variables);
        `knowledge`: a knowledge base of your own (else the configuration's `knowledge.type`)."""
        if isinstance(config, ReviewConfig):
            self.config = config
        elif isinstance(config, dict):
            self.config = ReviewConfig.load(data=config)
        else:
            self.config = ReviewConfig.load(path=config)
        self.log_dir = str(log_dir)
        self.spec: PromptSpec = PromptRegistry([resolve_user_path(d) for d in self.config.prompt.template_dirs]).get(
            self.config.prompt.name, self.config.prompt.version)
        self.table: ChecksTable = build_table(self.config.checks, source=f"{self.config.source}: checks")
        self.knowledge: KnowledgeBase = knowledge if knowledge is not None else self._knowledge()
        self.last_review: ImpactReview | None = None

    def _knowledge(self) -> KnowledgeBase:
        k = self.config.knowledge
        return KnowledgeRegistry.create(k.type, resolve_user_path(k.path) if k.path else None, k.options)

    def artifact(self, source: Artifact) -> ImpactArtifact:
        """A path, a dict or model of any accepted shape (the envelope, the flat contract, an
        ArtifactPayload), or a validated artifact; errors name the source and field."""
        if isinstance(source, ImpactArtifact):
            return source
        if isinstance(source, (dict, ArtifactPayload, MeasureContract)):
            label = source.get("initiative_id") if isinstance(source, dict) else source.initiative_id
            return read_artifact(source, str(label or "<artifact>"), self.table)
        return load_artifact(source, self.table)

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
                                   structured=b.structured, timeout=b.timeout, retries=b.retries, max_tokens=b.max_tokens,
                                   table=self.table),
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
        request = prepare_request(artifact, self.spec, self.knowledge, self.config.knowledge.top_k, settings, self.table)
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
        if source is None and "effect_estimate" in event:  # the orchestrator's flat contract itself
            source = {k: event[k] for k in CONTRACT_FIELDS if k in event}
        if source is None:
            raise ArtifactError("event: impact_results: missing (a path to impact_results.json, its envelope, "
                                "an ArtifactPayload, or the contract's fields in the event)")
        if isinstance(source, str) and source.lstrip().startswith("{"):
            source = json.loads(source)
        result = self.engine.review(source)
        review = self.engine.last_review
        assert review is not None
        return {**event, "review": result.model_dump(mode="json"), "confidence": review.confidence.model_dump(mode="json"),
                "review_status": review.status, "verdict": review.verdict}

    __call__ = execute


__all__ = ["ArtifactReview", "ReviewEngine", "ReviewError"]
