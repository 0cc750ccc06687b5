"""Offline benchmarks of the impact review (no API key, no network), beside its budgets.

    . .venv/bin/activate
    python benchmarks/impact.py [--quick]    # about 20 s on 2 cores

1. Harness overhead: eval() of tasks/impact_review.py over the gold set (offline/rules,
   latency 0) against a bare Inspect task making the same model calls (prompts rendered
   before timing). Median of 3 runs (1 with --quick) after a warm-up. Budget: <= 1.5x.
2. Round trips on the critical path: one review at latency=1 s per call. Budget: 1.
3. Throughput: the gold reviews at once at latency=1 s (the rule engine runs in threads).
4. Input tokens per review (words x 1.3, as the offline provider reports them) against the
   kind's budget (4K: the artifact is small; the notes are top_k chunks), and the share of
   each prompt that is a stable, cacheable prefix: the system message, and the part of it
   that is identical for every artifact (before the retrieved notes). Budget: >= 50%.
"""

from __future__ import annotations

import statistics
import tempfile

from inspect_ai import Task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageSystem, ChatMessageUser, get_model
from inspect_ai.solver import solver

from review_harness.core.calltag import tagged
from review_harness.impact.kind import REVIEWER
from review_harness.impact.knowledge import StaticKnowledgeBase, default_knowledge_dir
from review_harness.impact.models import ImpactArtifact
from review_harness.impact.registry import PromptRegistry
from review_harness.impact.review import prepare_request
from review_harness.offline.provider import estimate_tokens

from common import bench_args, constant_scorer, load_task, overhead, run, samples_run  # benchmarks/common.py (the script's folder is on sys.path)

TOKEN_BUDGET = 4_000
impact_review = load_task("impact_review")
SPEC = PromptRegistry().get("impact_results_review")
KB = StaticKnowledgeBase(default_knowledge_dir())


@solver
def same_model_calls():
    async def solve(state, generate_fn):
        system, user = state.metadata["prompt"]
        with tagged("impact", REVIEWER):  # as call_member tags it, so the offline model knows who asks
            state.output = await get_model().generate([ChatMessageSystem(content=system), ChatMessageUser(content=user)])
        return state
    return solve


def request_for(sample: Sample):
    return prepare_request(ImpactArtifact.model_validate(sample.metadata["artifact"]), SPEC, KB, 5)


def main() -> None:
    quick = bench_args(__doc__).quick
    samples = list(impact_review().dataset)
    requests = {s.id: request_for(s) for s in samples}
    bare = Task(dataset=MemoryDataset([Sample(id=s.id, input=s.input, metadata={"prompt": (requests[s.id].system, requests[s.id].user)})
                                       for s in samples]),
                solver=same_model_calls(), scorer=constant_scorer())
    with tempfile.TemporaryDirectory() as tmp:
        run(impact_review(), tmp)
        cost = overhead(impact_review, bare, tmp, repeats=1 if quick else 3)
        _, log = run(impact_review(artifact="fixtures/impact/its-daily-checkout.json"), tmp, latency=1.0)
        one_review = log.samples[0].total_time
        wall, _ = run(impact_review(), tmp, latency=1.0)
        _, log = run(impact_review(), tmp)
        print("impact review: offline benchmarks (budgets: docs/performance.md)")
        print(f"  harness overhead      {cost.line()}")
        print(f"  round trips           one review at 1 s/call: {one_review:.2f} s = {one_review:.1f} calls on the critical path   (budget 1)")
        print(f"  throughput            {samples_run(bare)} reviews at once at 1 s/call: {wall:.2f} s")
        print("  tokens per review     case                              input   budget   system share   stable share")
        shares, stables = [], []
        for sample in log.samples:
            review = sample.scores["impact_synthesis"].metadata["review"]
            req = requests[sample.id]
            total = estimate_tokens(req.system) + estimate_tokens(req.user)
            share = estimate_tokens(req.system) / total
            stable_tokens = estimate_tokens(req.system[: req.system.find("Methodology notes")]) if "Methodology notes" in req.system else 0
            shares.append(share)
            stables.append(stable_tokens / total)
            print(f"                        {str(sample.id):32s} {review['reviewer_run']['input_tokens']:6,d}  {TOKEN_BUDGET:6,d}   {share:12.0%}   {stable_tokens / total:12.0%}")
        print(f"  cacheable prefix      system message mean {statistics.mean(shares):.0%}; identical for every artifact "
              f"{statistics.mean(stables):.0%}   (budget >= 50%)")
        systems = {r.system for r in requests.values()}
        print(f"                        {len(systems)} distinct system messages over {len(requests)} artifacts "
              "(the retrieved notes follow the model type and the checks that fail)")


if __name__ == "__main__":
    main()
