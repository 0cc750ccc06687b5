"""The meta-eval's solver: the model under evaluation judges every review variant of a fixture."""

from __future__ import annotations

from inspect_ai.model import get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import collect

from review_harness.ds.gold import load_gold
from review_harness.ds.judge import OVERALL, load_meta_fixture, variant_review
from review_harness.ds.rubric import default_rubric, load_rubric
from scorers.ds_judge import META_STORE_KEY, run_judge


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
