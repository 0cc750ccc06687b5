"""Review of causal-impact measurement results (impact_results.json, seed 003).

    inspect eval tasks/impact_review.py                                   # the gold set, offline
    inspect eval tasks/impact_review.py -T artifact=results/impact_results.json
    inspect eval tasks/impact_review.py -T artifact=results/ -T prompt=my_review -T template_dirs=my_prompts
    inspect eval tasks/impact_review.py --model anthropic/claude-sonnet-4-5 --epochs 3
"""

import inspect
from typing import Any

from inspect_ai import Epochs, Task, task
from review_harness.core.inspect_adapter import PrerequisiteError
from inspect_ai.dataset import MemoryDataset

from review_harness.core.panel import cache_policy
from review_harness.core.params import as_flag, choice, reject_unknown_params
from review_harness.impact.dataset import gold_samples, user_samples
from scorers.impact_gold import impact_epochs, impact_gold
from scorers.impact_synthesis import impact_synthesis
from solvers.impact_reviewer import check_template, impact_pipeline, prompt_spec


@task
def impact_review(
    artifact: str | None = None,
    prompt: str | None = None,
    prompt_version: str | None = None,
    template_dirs: str | list[str] | None = None,
    knowledge: str | None = None,
    top_k: int = 5,
    split: str = "all",
    structured: str = "auto",
    timeout: float = 120.0,
    retries: int = 1,
    max_tokens: int | None = None,
    cache: bool = False,
    **unknown: Any,
) -> Task:
    """Args:
    artifact: an impact_results.json file or a folder of them; default: the gold set.
    prompt: template name (default impact_results_review); prompt_version: pin a version.
    template_dirs: folder(s) of template YAML, comma-separated; they override built-ins by name.
    knowledge: folder of .md/.txt methodology notes; 'none' for no knowledge; default: built-in notes.
    top_k: knowledge chunks retrieved per review.
    split: all | dev | heldout cases of the gold set.
    structured: auto | on | off -- send a response schema (auto: anthropic and openai models).
    timeout: seconds per reviewer call; retries: extra tries after a failed call or an answer missing a dimension.
    max_tokens: output cap per call; cache: reuse responses for identical prompts.
    """
    reject_unknown_params(unknown, known=inspect.signature(impact_review).parameters)
    try:
        top_k = int(top_k)
        retries = int(retries)
        timeout = float(timeout)
    except (TypeError, ValueError):
        raise PrerequisiteError(f"-T top_k={top_k} / retries={retries} / timeout={timeout}: expected numbers") from None
    if top_k < 1:
        raise PrerequisiteError(f"-T top_k={top_k}: must be at least 1")
    structured = choice("structured", structured, ("auto", "on", "off")) or "auto"
    dirs = template_dirs.split(",") if isinstance(template_dirs, str) else list(template_dirs or [])
    samples = user_samples(artifact) if artifact is not None else gold_samples(split)
    spec = prompt_spec(prompt, None if prompt_version is None else str(prompt_version), [d.strip() for d in dirs if d.strip()])
    check_template(spec, samples)
    solvers = impact_pipeline(
        spec, knowledge=knowledge, top_k=top_k,
        structured=structured, timeout=timeout, retries=retries, max_tokens=max_tokens,
        cache=cache_policy(bool(as_flag("cache", cache))),
    )
    has_gold = any(s.metadata.get("gold") for s in samples)
    return Task(
        dataset=MemoryDataset(samples, name=f"impact-review:{artifact or 'gold'}"),
        solver=solvers,
        scorer=[impact_synthesis()] + ([impact_gold()] if has_gold else []),
        epochs=Epochs(1, impact_epochs()),
        metadata={"prompt_name": spec.name, "prompt_version": spec.version, "prompt_source": spec.source,
                  "knowledge": knowledge or "built-in", "top_k": top_k},
    )
