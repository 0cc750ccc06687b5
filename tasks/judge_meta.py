"""Meta-eval of the LLM judge: does it rank reviews of known quality in the right order?

    inspect eval tasks/judge_meta.py                                   # the offline judge (.env)
    inspect eval tasks/judge_meta.py --model anthropic/claude-sonnet-4-5

Here the judge IS the model under evaluation, so it is the task's model (not the `grader`
role the review_judge scorer needs). Each sample is one fixture document with three reviews
of known quality from fixtures/judge_meta/ (faithful, invented findings, gamed); the solver
has the model judge all three and `judge_ordering()` reports `ordering_accuracy` and
`gaming_resistance`.
"""

from pathlib import Path

from inspect_ai import Task, task
from inspect_ai._util.error import PrerequisiteError
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import collect

from review_harness.dataset import FIXTURES_DIR, GOLD_DIR
from review_harness.gold import GoldError, fixture_path_for, load_gold
from review_harness.judge import JUDGE_PROMPT_VERSION, OVERALL, load_meta_fixture, variant_review
from review_harness.rubric import default_rubric, load_rubric
from scorers.judge import META_STORE_KEY, judge_ordering, run_judge


def meta_samples(folder: Path) -> list[Sample]:
    """One sample per meta fixture: the document it reviews is the input."""
    samples = []
    for path in sorted(folder.glob("*.yaml")):
        try:
            fixture = load_meta_fixture(path)
            gold_path = GOLD_DIR / fixture.gold
            document = fixture_path_for(gold_path, load_gold(gold_path))
        except (ValueError, GoldError) as ex:
            raise PrerequisiteError(str(ex)) from None
        samples.append(
            Sample(
                id=path.stem,
                input=document.read_text(encoding="utf-8"),
                metadata={"meta_file": str(path), "gold": str(gold_path), "source": str(document)},
            )
        )
    if not samples:
        raise PrerequisiteError(f"no judge meta fixtures (*.yaml) in {folder}")
    return samples


@solver
def judge_variants(rubric: str | None = None, max_tokens: int | None = None) -> Solver:
    """Have the model under evaluation judge every variant of the sample's fixture."""
    the_rubric = load_rubric(rubric) if rubric else default_rubric()

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        fixture = load_meta_fixture(state.metadata["meta_file"])
        gold = load_gold(state.metadata["gold"], the_rubric)
        reviews = [
            variant_review(v, state.input_text, the_rubric, source=state.metadata["source"])
            for v in fixture.variants
        ]
        results = await collect(
            *(run_judge(get_model(), state.input_text, r, gold.expected_findings, max_tokens) for r in reviews)
        )
        state.store.set(
            META_STORE_KEY,
            {
                "expected_rank": {v.kind: v.expected_rank for v in fixture.variants},
                "results": {v.kind: r.model_dump(mode="json") for v, r in zip(fixture.variants, results)},
            },
        )
        state.output.completion = "\n".join(
            f"{v.kind} (expected rank {v.expected_rank}): overall {r.scores[OVERALL]:.3f}"
            + (f" - {r.error}" if r.error else "")
            for v, r in zip(fixture.variants, results)
        )
        return state

    return solve


@task
def judge_meta(fixtures: str = "judge_meta", rubric: str | None = None, max_tokens: int | None = None) -> Task:
    """Args:
    fixtures: folder under fixtures/ with the meta fixtures (YAML).
    rubric: path to a rubric YAML (default prompts/ds_rubric.yaml), used to synthesize the variants.
    max_tokens: output cap per judge call.
    """
    return Task(
        dataset=MemoryDataset(meta_samples(FIXTURES_DIR / fixtures), name=f"judge-meta:{fixtures}"),
        solver=judge_variants(rubric, max_tokens),
        scorer=judge_ordering(),
        metadata={"judge_prompt": JUDGE_PROMPT_VERSION},
    )
