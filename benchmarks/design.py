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
   6 x (design + requirements) + 8K.
5. Prompt caching across the panel: the share of each review's persona input that is one prefix
   shared by all its personas (the system message and both documents, up to the cache mark;
   budget >= 60%), and the review's persona input cost with provider caching, cached tokens at a
   90% discount: the first persona writes the prefix, the others read it. The figure assumes the
   cache is warm when the second persona's request arrives (personas are dispatched together, so
   a provider may still be writing it: the figure is the best case). Also the share that is
   stable across reviews (the system message, the same for every review of a stage).
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile

from inspect_ai import Task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageSystem, ChatMessageUser, ContentText, GenerateConfig, get_model
from inspect_ai.solver import solver

from review_harness.core.calltag import tagged
from review_harness.design.personas import default_personas
from review_harness.design.prompts import render_persona_prompt, render_synthesizer_prompt
from review_harness.design.offline.engine import review_as_persona
from review_harness.offline.provider import estimate_tokens
from solvers.design_panel import PERSONA_SCHEMA, SYNTHESIS_SCHEMA

from common import bench_args, constant_scorer, load_task, overhead, run, samples_run  # benchmarks/common.py (the script's folder is on sys.path)

CONFIG = default_personas()


design_review = load_task("design_review")


@solver
def same_model_calls():
    async def solve(state, generate_fn):
        model = get_model()

        async def ask(member, system, parts, schema):
            content = [ContentText(text=parts[0], cache_breakpoint=True), *(ContentText(text=t) for t in parts[1:])]
            with tagged("design", member):  # the offline provider answers a call by its kind and member
                return await model.generate([ChatMessageSystem(content=system), ChatMessageUser(content=content)],
                                            config=GenerateConfig(response_schema=schema))

        await asyncio.gather(*(ask(p, s, [d, lens], PERSONA_SCHEMA)
                               for p, (s, d, lens) in zip(state.metadata["members"], state.metadata["personas"])))
        system, request = state.metadata["synthesizer"]
        state.output = await ask("synthesizer", system, [request], SYNTHESIS_SCHEMA)
        return state
    return solve


def prompts_for(sample: Sample) -> dict:
    meta = sample.metadata
    persona_prompts, reports = [], {}
    for persona in meta["personas"]:
        p = render_persona_prompt(persona, CONFIG, stage=meta["stage"], design=sample.input,
                                  requirements=meta["requirements_text"], topic=meta["topic"])
        persona_prompts.append((p.system, p.documents, p.lens))
        reports[persona] = review_as_persona(persona, meta["stage"], sample.input, meta["requirements_text"])
    synth = render_synthesizer_prompt(reports, CONFIG, topic=meta["topic"], stage=meta["stage"])
    return {"members": list(meta["personas"]), "personas": persona_prompts, "synthesizer": (synth.system, synth.request)}


PRICE = 3.0  # US dollars per million input tokens (a Sonnet-class model in prompts/prices.yaml)
CACHED = 0.1  # cached input tokens cost 10% (a 90% discount)


def _common_prefix(texts: list[str]) -> str:
    first, last = min(texts), max(texts)
    n = next((i for i, (a, b) in enumerate(zip(first, last)) if a != b), min(len(first), len(last)))
    return first[:n]


def caching(prompts: list[tuple[str, str, str]]) -> tuple[float, float, float, float]:
    """(shared-prefix share, stable-prefix share, cached cost, uncached cost) of one review's
    persona prompts (system, documents, lens): the prefix all personas share, up to the cache mark
    after the documents, in tokens over the mean persona input."""
    full = [f"{s}\n{d}\n{lens}" for s, d, lens in prompts]
    shared = _common_prefix(full)
    marked = min(len(shared), len(prompts[0][0]) + 1 + len(prompts[0][1]))  # the cache mark ends it
    shared_tokens = estimate_tokens(shared[:marked])
    inputs = [estimate_tokens(t) for t in full]
    share = shared_tokens / statistics.mean(inputs)
    stable = statistics.mean(estimate_tokens(s) / n for (s, _, _), n in zip(prompts, inputs))
    uncached = sum(inputs) * PRICE / 1e6
    cached = (inputs[0] + sum(n - shared_tokens + shared_tokens * CACHED for n in inputs[1:])) * PRICE / 1e6
    return share, stable, cached, uncached


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
                            requirements="fixtures/design/billing-export/requirements.md",
                            output_dir=tmp)  # a review of given documents writes its folder: keep it in tmp
        _, log = run(one, tmp, latency=1.0)
        one_review = log.samples[0].total_time
        wall, _ = run(design_review(), tmp, latency=1.0)
        _, log = run(design_review(), tmp)
        print("design review: offline benchmarks (budgets: docs/performance.md)")
        print(f"  harness overhead      {cost.line()}")
        print(f"  round trips           one review at 1 s/call: {one_review:.2f} s = {one_review:.1f} calls on the critical path   (budget <= 2)")
        print(f"  throughput            {samples_run(bare)} reviews at once at 1 s/call: {wall:.2f} s")
        print("  per review            case                          input    budget  shared  stable  "
              "cached cost  uncached")
        shares, stables, costs = [], [], []
        for sample in log.samples:
            review = sample.scores["design_synthesis"].metadata["review"]
            used = sum(r["input_tokens"] for r in review["reviewer_runs"])
            budget = 6 * (estimate_tokens(sample.input) + estimate_tokens(sample.metadata["requirements_text"])) + 8_000
            prompts = prompts_for(Sample(id=sample.id, input=sample.input, metadata=sample.metadata))["personas"]
            share, stable, cached, uncached = caching(prompts)
            shares.append(share)
            stables.append(stable)
            costs.append((cached, uncached))
            print(f"                        {str(sample.id):28s} {used:7,d}  {budget:7,d}   {share:4.0%}    {stable:4.0%}"
                  f"    ${cached:7.4f}   ${uncached:7.4f}")
        cached_total, uncached_total = (sum(c[i] for c in costs) for i in (0, 1))
        print(f"  shared prefix         mean {statistics.mean(shares):.0%} of each review's persona input, "
              f"min {min(shares):.0%}   (budget >= 60%)")
        print(f"  stable prefix         mean {statistics.mean(stables):.0%} (the system message, the same for every "
              "review of a stage)")
        print(f"  cached input cost     ${cached_total:.4f} against ${uncached_total:.4f} uncached for the "
              f"{len(costs)} reviews' personas ({1 - cached_total / uncached_total:.0%} less; input at "
              f"${PRICE:.2f}/M tokens, cached at 90% off)")


if __name__ == "__main__":
    main()
