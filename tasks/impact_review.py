"""Review of causal-impact measurement results (impact_results.json, seed 003).

    inspect eval tasks/impact_review.py                                   # the gold set, offline
    inspect eval tasks/impact_review.py -T artifact=results/impact_results.json
    inspect eval tasks/impact_review.py -T artifact=results/ -T prompt=my_review -T template_dirs=my_prompts
    inspect eval tasks/impact_review.py -T artifact=results/ -T config=review.yaml   # the seed's YAML
    inspect eval tasks/impact_review.py --model anthropic/claude-sonnet-5-5 --epochs 3
"""

from typing import Any

from inspect_ai import Epochs, Task, task

from review_harness.core.task import review_task
from review_harness.impact.task import impact_input
from scorers.impact_gold import impact_epochs, impact_gold
from scorers.impact_synthesis import impact_synthesis
from solvers.impact_reviewer import impact_pipeline


@task
def impact_review(
    artifact: str | None = None, config: str | None = None, prompt: str | None = None,
    prompt_version: str | None = None, template_dirs: str | list[str] | None = None, knowledge: str | None = None,
    top_k: int | None = None, split: str = "all", fixtures: str = "impact", structured: str | None = None,
    timeout: float | None = None,
    retries: int | None = None, max_tokens: int | None = None, cache: bool = False, **unknown: Any,
) -> Task:
    """Args:
    artifact: an impact_results.json file or a folder of them (envelope, flat contract or ArtifactPayload); default: the gold set.
    config: the seed's YAML (backend, prompt, knowledge, checks); REVIEW_* variables override it; -T values override both.
    prompt: template name (default impact_results_review); prompt_version: pin a version.
    template_dirs: folder(s) of template YAML, comma-separated; they override built-ins by name.
    knowledge: folder of .md/.txt methodology notes; 'none' for no knowledge; default: built-in notes.
    top_k: knowledge chunks retrieved per review (default 5).
    split: all | dev | heldout cases of the gold set.
    fixtures: the gold set: impact (the project's), or a folder holding fixtures/impact/ and gold/impact/.
    structured: auto | on | off -- send a response schema (auto: anthropic and openai models).
    timeout: seconds per reviewer call (default 120); retries: extra tries after a failed call or an answer missing a dimension.
    max_tokens: output cap per call; cache: reuse responses for identical prompts.
    """
    with review_task(
        "impact", impact_review, artifact=artifact, config=config, prompt=prompt, prompt_version=prompt_version,
        template_dirs=template_dirs, knowledge=knowledge, top_k=top_k, split=split, fixtures=fixtures,
        structured=structured, timeout=timeout, retries=retries, max_tokens=max_tokens, cache=cache,
        unknown=unknown,
    ) as run:
        impact = impact_input(run)
        return run.task(impact, solver=impact_pipeline(impact.spec, **impact.pipeline),
                        synthesis=impact_synthesis(impact.spec.dimensions), gold=impact_gold(),
                        epochs=Epochs(1, impact_epochs()))
