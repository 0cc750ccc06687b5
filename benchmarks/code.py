"""Offline benchmarks of the code review (no API key, no network), beside its budgets.

    . .venv/bin/activate
    python benchmarks/code.py [--quick]    # about 20 s on 2 cores

1. Harness overhead: eval() of tasks/code_review.py over the gold set (offline/rules, latency 0)
   against a bare Inspect task replaying the same model calls in the same rounds (the first
   review's four prompts at once, then each fix iteration's spec prompts, then its quality
   prompts), taken from a harness log. Median of 3 runs (1 with --quick) after a warm-up. Budget: <= 1.5x.
2. Round trips on the critical path of the first review at latency=1 s per call. Budget: 1.
3. Input tokens of the first review (4 calls) against 4 x diff + 16K, and the share of each
   reviewer prompt that is the stable, cacheable system prefix. Budget: >= 50%.
"""

from __future__ import annotations

import asyncio
import re
import statistics
import tempfile
from collections import defaultdict

from inspect_ai import Task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.event import ModelEvent
from inspect_ai.log import read_eval_log
from inspect_ai.model import ChatMessageSystem, ChatMessageUser, GenerateConfig, get_model
from inspect_ai.solver import solver

from review_harness.code.change import ChangeSet
from review_harness.code.config import ReviewConfig
from review_harness.code.models import reviewer_member
from review_harness.code.parse import REVIEWER_SCHEMA
from review_harness.code.prompts import render_change
from review_harness.core.calltag import tagged
from review_harness.offline.provider import estimate_tokens

from common import bench_args, constant_scorer, load_task, overhead, run  # benchmarks/common.py (the script's folder is on sys.path)

code_review = load_task("code_review")


def rounds_of(sample) -> list[list[tuple[str, str, str]]]:
    """The sample's reviewer calls (member, system, request) grouped into the rounds the harness sent them in."""
    groups: dict[tuple[int, int], list[tuple[str, str, str]]] = defaultdict(list)
    for event in sample.events:
        if not isinstance(event, ModelEvent) or len(event.input) != 2:
            continue
        system, request = event.input[0].text, event.input[1].text
        iteration = int(re.search(r"^Iteration: (\d+)$", request, re.M).group(1))
        stage = re.search(r"^Stage: (\w+)$", request, re.M).group(1)
        letter = re.search(r"^Model: (\w+)$", request, re.M).group(1)
        groups[(iteration, 0 if iteration == 0 or stage == "spec" else 1)].append(
            (reviewer_member(stage, letter), system, request))
    return [groups[key] for key in sorted(groups)]


@solver
def same_model_calls():
    async def solve(state, generate_fn):
        model = get_model()

        async def ask(member, system, request):
            with tagged("code", member):  # the offline provider answers a call by its kind and member
                return await model.generate([ChatMessageSystem(content=system), ChatMessageUser(content=request)],
                                            config=GenerateConfig(response_schema=REVIEWER_SCHEMA))

        for calls in state.metadata["rounds"]:
            await asyncio.gather(*(ask(*call) for call in calls))
        return state
    return solve


def main() -> None:
    quick = bench_args(__doc__).quick
    with tempfile.TemporaryDirectory() as tmp:
        _, log = run(code_review(), tmp)
        log = read_eval_log(log.location, resolve_attachments=True)
        bare = Task(dataset=MemoryDataset([Sample(id=s.id, input=s.input, metadata={"rounds": rounds_of(s)})
                                           for s in log.samples]),
                    solver=same_model_calls(), scorer=constant_scorer())
        cost = overhead(code_review, bare, tmp, repeats=1 if quick else 3)
        _, slow = run(code_review(), tmp, latency=1.0)
        first_round = {s.id: s.scores["code_synthesis"].metadata["review"]["iterations"][0] for s in slow.samples}
        one = next(s for s in slow.samples if s.id == "clean-feature")
        print("code review: offline benchmarks (budgets from DESIGN 7b)")
        print(f"  harness overhead      {cost.line()}")
        print(f"  round trips           first review at 1 s/call (clean-feature, approved at once): {one.total_time:.2f} s = "
              f"{one.total_time:.1f} calls on the critical path; recorded {first_round['clean-feature']['critical_path_calls']}   (budget 1)")
        print("  tokens, first review  case                  input   budget   prefix share")
        shares = []
        for sample in log.samples:
            review = sample.scores["code_synthesis"].metadata["review"]
            used = sum(r["input_tokens"] for r in review["iterations"][0]["runs"])
            config = ReviewConfig.model_validate(sample.metadata["config"])
            diff = estimate_tokens(render_change(ChangeSet.model_validate(sample.metadata["change"]), config.max_change_chars).text)
            budget = 4 * diff + 16_000
            first = rounds_of(sample)[0]
            share = statistics.mean(estimate_tokens(s) / (estimate_tokens(s) + estimate_tokens(r)) for _, s, r in first)
            shares.append(share)
            print(f"                        {str(sample.id):20s} {used:7,d}  {budget:7,d}   {share:.0%}")
        print(f"  cacheable prefix      mean {statistics.mean(shares):.0%} of each reviewer prompt   (budget >= 50%)")


if __name__ == "__main__":
    main()
