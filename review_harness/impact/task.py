"""The impact review's own task parameters (tasks/impact_review.py): the artifact or the gold set,
the configuration (`-T config=FILE`, the seed's YAML, and the REVIEW_* environment overrides,
which apply under `inspect eval` too), the prompt template (name, version, extra folders; rendered
once up front), the knowledge notes, the checks table and the reviewer's options. The shared ones
are checked by the core task helper.

Precedence for every setting: a `-T` value the user typed > REVIEW_* variables > the config file >
the kind's defaults (prompts/impact/config.yaml)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from review_harness.core.input_errors import input_error_tolerance
from review_harness.core.inspect_adapter import PrerequisiteError
from review_harness.core.params import as_number, as_paths, choice, resolve_user_path
from review_harness.core.task import ReviewInput, TaskRun
from review_harness.impact.config import ConfigError, ReviewConfig, default_settings
from review_harness.impact.dataset import gold_samples, user_samples
from review_harness.impact.knowledge import EmptyKnowledgeBase
from review_harness.impact.models import ImpactArtifact
from review_harness.impact.pipeline import knowledge_base
from review_harness.impact.registry import PromptError, PromptRegistry, PromptSpec
from review_harness.impact.review import prepare_request
from review_harness.impact.table import ChecksTable, TableError, build_table

STRUCTURED = ("auto", "on", "off")


def prompt_spec(prompt: str | None, prompt_version: str | None, template_dirs: list[str]) -> PromptSpec:
    try:
        dirs = [resolve_user_path(d) for d in template_dirs]
        return PromptRegistry(dirs).get(prompt or default_settings().prompt["name"], prompt_version)
    except (PromptError, ConfigError) as ex:
        raise PrerequisiteError(f"prompt: {ex}") from None


def check_template(spec: PromptSpec, artifact: ImpactArtifact, table: ChecksTable) -> None:
    """Render the template once at task creation, so a template that uses an unknown key stops
    the run with one line (file and key) instead of failing every sample."""
    try:
        prepare_request(artifact, spec, EmptyKnowledgeBase(), 1, table=table)
    except PromptError as ex:
        raise PrerequisiteError(f"prompt: {ex}") from None


def review_config(config: str | None) -> ReviewConfig:
    """The config file (relative to where the user ran the command) with REVIEW_* overrides."""
    label = "REVIEW_* environment" if config is None else f"-T config={config}"
    if config is not None and not str(config).strip():
        raise PrerequisiteError("-T config=: expected the path of a review configuration (YAML)")
    try:
        return ReviewConfig.load(path=None if config is None else resolve_user_path(str(config)))
    except ConfigError as ex:
        raise PrerequisiteError(f"{label}: {ex}") from None


def checks_table(cfg: ReviewConfig) -> ChecksTable:
    try:
        return build_table(cfg.checks, source=f"{cfg.source}: checks")
    except TableError as ex:
        raise PrerequisiteError(str(ex)) from None


@dataclass
class ImpactInput(ReviewInput):
    spec: PromptSpec | None = None
    pipeline: dict[str, Any] = field(default_factory=dict)  # every keyword of impact_pipeline


def _given(section: Any, name: str) -> Any:
    """A configuration value the file or the environment set (None for a default)."""
    return getattr(section, name) if name in section.model_fields_set else None


def impact_input(run: TaskRun) -> ImpactInput:
    args = run.args
    cfg = review_config(args["config"])
    backend, knowledge_cfg = cfg.backend, cfg.knowledge
    table = checks_table(cfg)
    top_k = as_number("top_k", args["top_k"], integer=True) if args["top_k"] is not None else knowledge_cfg.top_k
    retries = _given(backend, "retries")
    if args["retries"] is not None:
        retries = as_number("retries", args["retries"], integer=True, positive=False)
        if retries < 0:
            raise PrerequisiteError(f"-T retries={args['retries']}: expected a whole number, 0 or more")
    structured = choice("structured", args["structured"], STRUCTURED) or backend.structured
    artifact = args["artifact"]
    if artifact is not None and not str(artifact).strip():
        raise PrerequisiteError("-T artifact=: expected an impact_results.json file or a folder of them")
    samples = (user_samples(str(artifact), table) if artifact is not None
               else gold_samples(args["split"], table, args["fixtures"]))
    template_dirs = as_paths("template_dirs", args["template_dirs"]) if args["template_dirs"] else []
    version = args["prompt_version"] if args["prompt_version"] is not None else _given(cfg.prompt, "version")
    spec = prompt_spec(args["prompt"] or _given(cfg.prompt, "name"), None if version is None else str(version),
                       [*template_dirs, *cfg.prompt.template_dirs])
    readable = [s for s in samples if (s.metadata or {}).get("artifact")]
    if readable:
        check_template(spec, ImpactArtifact.model_validate(readable[0].metadata["artifact"]), table)  # type: ignore[index]
    knowledge = args["knowledge"]
    if knowledge is not None:
        kb = knowledge_base(str(knowledge))
    else:
        kb = knowledge_base(knowledge_cfg.path, knowledge_cfg.type, knowledge_cfg.options,
                            label=f"{cfg.source}: knowledge")
    options = run.pipeline_options
    timeout = options.pop("timeout", None) or _given(backend, "timeout")
    if options.get("max_tokens") is None:
        options["max_tokens"] = _given(backend, "max_tokens")
    model = backend.model_name if ({"type", "model"} & backend.model_fields_set) else None
    if knowledge is not None:
        knowledge_label = str(knowledge)
    elif knowledge_cfg.path or knowledge_cfg.type != "static":
        knowledge_label = f"{knowledge_cfg.type}: {knowledge_cfg.path or '-'}"
    else:
        knowledge_label = "built-in"
    return ImpactInput(
        samples=samples,
        source=f"{artifact or 'gold'}",
        metadata={"prompt_name": spec.name, "prompt_version": spec.version, "prompt_source": spec.source,
                  "knowledge": knowledge_label,
                  "top_k": top_k, "config": cfg.source, "checks_table": table.version,
                  **({"reviewer_model": model} if model else {})},
        task_options={"fail_on_error": input_error_tolerance(samples)},
        spec=spec,
        pipeline={**options, "knowledge_base_obj": kb, "top_k": top_k, "structured": structured, "retries": retries,
                  "timeout": timeout, "table": table, "model": model, "temperature": _given(backend, "temperature")},
    )
