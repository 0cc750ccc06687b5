"""Offline benchmarks of the design review (no API key, no network), beside its budgets.

    . .venv/bin/activate
    python benchmarks/design.py [--quick]    # about 30 s on 2 cores

1. Harness overhead: eval() of tasks/design_review.py over the gold set (offline/rules,
   latency 0) against a bare Inspect task making the same model calls: each sample's persona
   prompts sent concurrently, then its synthesizer prompt (all rendered before timing). Median
   of 3 runs (1 with --quick) after a warm-up. Budget: <= 1.5x.
2. Round trips on the critical path: one review at latency=1 s per call. Budget: <= 2.
3. Throughput: the 14 gold reviews at once at latency=1 s (rule engines run in threads).
4. Input tokens per review (words x 1.3, as the offline provider reports them) against
   6 x (design + requirements) + 8K, and the share of each persona prompt that is the stable,
   cacheable system prefix. Budget: >= 50%.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile

from inspect_ai import Task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageSystem, ChatMessageUser, GenerateConfig, get_model
from inspect_ai.solver import solver

from review_harness.core.calltag import tagged
from review_harness.design.personas import default_personas
from review_harness.design.prompts import render_persona_prompt, render_synthesizer_prompt
from review_harness.design.offline.engine import review_as_persona
from review_harness.offline.provider import estimate_tokens
from solvers.design_panel import PERSONA_SCHEMA, SYNTHESIS_SCHEMA

from common import bench_args, constant_scorer, load_task, overhead, run  # benchmarks/common.py (the script's folder is on sys.path)

CONFIG = default_personas()


design_review = load_task("design_review")


@solver
def same_model_calls():
    async def solve(state, generate_fn):
        model = get_model()

        async def ask(member, system, request, schema):
            with tagged("design", member):  # the offline provider answers a call by its kind and member
                return await model.generate([ChatMessageSystem(content=system), ChatMessageUser(content=request)],
                                            config=GenerateConfig(response_schema=schema))

        await asyncio.gather(*(ask(p, s, r, PERSONA_SCHEMA)
                               for p, (s, r) in zip(state.metadata["members"], state.metadata["personas"])))
        state.output = await ask("synthesizer", *state.metadata["synthesizer"], SYNTHESIS_SCHEMA)
        return state
    return solve


def prompts_for(sample: Sample) -> dict:
    meta = sample.metadata
    persona_prompts, reports = [], {}
    for persona in meta["personas"]:
        p = render_persona_prompt(persona, CONFIG, stage=meta["stage"], design=sample.input,
                                  requirements=meta["requirements_text"], topic=meta["topic"])
        persona_prompts.append((p.system, p.request))
        reports[persona] = review_as_persona(persona, meta["stage"], sample.input, meta["requirements_text"])
    synth = render_synthesizer_prompt(reports, CONFIG, topic=meta["topic"], stage=meta["stage"])
    return {"members": list(meta["personas"]), "personas": persona_prompts, "synthesizer": (synth.system, synth.request)}


def main() -> None:
    quick = bench_args(__doc__).quick
    task = design_review()
    samples = list(task.dataset)
    bare = Task(dataset=MemoryDataset([Sample(id=s.id, input=s.input, metadata=prompts_for(s)) for s in samples]),
                solver=same_model_calls(), scorer=constant_scorer())
    with tempfile.TemporaryDirectory() as tmp:
        run(design_review(), tmp)
        cost = overhead(design_review, bare, tmp, repeats=1 if quick else 3)
        one = design_review(design="fixtures/design/billing-export/design.md",
                            requirements="fixtures/design/billing-export/requirements.md")
        _, log = run(one, tmp, latency=1.0)
        one_review = log.samples[0].total_time
        wall, _ = run(design_review(), tmp, latency=1.0)
        _, log = run(design_review(), tmp)
        print("design review: offline benchmarks (budgets from DESIGN 7b)")
        print(f"  harness overhead      {cost.line()}")
        print(f"  round trips           one review at 1 s/call: {one_review:.2f} s = {one_review:.1f} calls on the critical path   (budget <= 2)")
        print(f"  throughput            {len(samples)} reviews at once at 1 s/call: {wall:.2f} s")
        print("  tokens per review     case                          input    budget   prefix share")
        shares = []
        for sample in log.samples:
            review = sample.scores["design_synthesis"].metadata["review"]
            used = sum(r["input_tokens"] for r in review["reviewer_runs"])
            budget = 6 * (estimate_tokens(sample.input) + estimate_tokens(sample.metadata["requirements_text"])) + 8_000
            prompts = prompts_for(Sample(id=sample.id, input=sample.input, metadata=sample.metadata))["personas"]
            share = statistics.mean(estimate_tokens(s) / (estimate_tokens(s) + estimate_tokens(r)) for s, r in prompts)
            shares.append(share)
            print(f"                        {str(sample.id):28s} {used:7,d}  {budget:7,d}   {share:.0%}")
        print(f"  cacheable prefix      mean {statistics.mean(shares):.0%} of each persona prompt   (budget >= 50%)")


if __name__ == "__main__":
    main()
