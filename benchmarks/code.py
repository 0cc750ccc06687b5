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
4. A large change: a 10,000-line spec on a 300-file change (issue 24: 18.5 minutes before the
   merge, render and scoring became near-linear). Every file is shown to the reviewers (the prompt
   budget raised), a third of the requirements are missing and every third handler builds its SQL
   from a string, so both models report thousands of findings. Prints the eval's wall time, the
   reviewers' own time, and the merge, report and scorer times measured on the stored sample.
   Budget: under a minute.
"""

from __future__ import annotations

import asyncio
import re
import statistics
import subprocess
import tempfile
import time
from collections import defaultdict
from pathlib import Path

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


def large_change(root: Path, files: int = 300, spec_lines: int = 10_000) -> tuple[Path, Path]:
    """A git repository whose last commit changes `files` modules (six handlers each), and a spec
    of `spec_lines` lines: requirement items naming the handlers (a third of them absent from the
    change) between prose sections."""
    repo = root / "repo"
    (repo / "svc").mkdir(parents=True)

    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(repo), "-c", "user.email=b@example.com", "-c", "user.name=b", *args],
                       check=True, capture_output=True)

    git("init", "-q")
    for n in range(files):
        (repo / "svc" / f"mod{n}.py").write_text(f"def old_{n}():\n    return {n}\n")
    git("add", "-A")
    git("commit", "-qm", "base")
    for n in range(files):
        body = [f"def old_{n}():", f"    return {n}", ""]
        for k in range(6):
            query = (f'f"SELECT total FROM t{k} WHERE id = {{value}}"' if k % 3 == 0
                     else f'"SELECT total FROM t{k} WHERE id = ?", (value,)')
            body += [f"def handler_{n}_{k}(conn, value):", f"    rows = conn.execute({query})",
                     "    return sum(r[0] for r in rows)", ""]
        (repo / "svc" / f"mod{n}.py").write_text("\n".join(body) + "\n")
    git("add", "-A")
    git("commit", "-qm", "head")
    lines = ["# Task 1: handlers", "", "## Requirements", ""]
    n = 0
    while len(lines) < spec_lines:
        module, k = divmod(n, 9)
        name = f"handler_{module % files}_{k}" if k < 6 else f"report_{module}_{k}"  # k >= 6: not in the change
        lines.append(f"- The service must provide `{name}(conn, value)` returning the total of table t{k}.")
        n += 1
        if n % 50 == 0:
            lines += ["", f"## Notes {n}", "", "Prose about the design that names no requirement.", "", "## Requirements", ""]
    spec = root / "spec.md"
    spec.write_text("\n".join(lines[:spec_lines]) + "\n")
    return repo, spec


def bench_large_change(log_dir: str, files: int = 300, spec_lines: int = 10_000) -> None:
    from review_harness.code.panel import review_from_store
    from review_harness.code.render import render_report
    from scorers.code_synthesis import code_synthesis

    with tempfile.TemporaryDirectory() as tmp:
        repo, spec = large_change(Path(tmp), files, spec_lines)
        task = code_review(repo=str(repo), base="HEAD~1", head="HEAD", spec=str(spec), memory="off",
                           max_change_chars="100000000")
        seconds, log = run(task, log_dir)
    sample = read_eval_log(log.location, resolve_attachments=True).samples[0]
    review = sample.scores["code_synthesis"].metadata["review"]
    first = review["iterations"][0]
    findings = {stage: len(first[stage]["findings"]) for stage in ("spec", "quality")}
    reviewers = max(r["seconds"] for r in first["runs"])
    store, metadata = sample.store, sample.metadata
    started = time.perf_counter()
    merged = review_from_store(store, metadata)
    merge_s = time.perf_counter() - started
    started = time.perf_counter()
    report = render_report(merged)
    render_s = time.perf_counter() - started

    class State:  # what the scorer reads of a TaskState
        pass

    state = State()
    state.store, state.metadata = store, metadata
    started = time.perf_counter()
    asyncio.run(code_synthesis()(state, None))
    score_s = time.perf_counter() - started
    print(f"  large change          {spec_lines:,}-line spec, {files} files, {findings['spec']:,} spec and {findings['quality']:,} "
          f"quality findings: eval {seconds:.1f} s (reviewers {reviewers:.1f} s); merge {merge_s:.2f} s, report "
          f"{render_s:.2f} s ({len(report) // 1000:,}K characters), scorer {score_s:.2f} s   (budget < 60 s; 18.5 min before)")


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
        # the round-trip figure needs a change approved in its first round: clean-feature in the full
        # set; --quick reviews only the first few samples, so the first one approved at once there
        approved = [s for s in slow.samples
                    if len(s.scores["code_synthesis"].metadata["review"]["iterations"]) == 1]
        one = next((s for s in approved if s.id == "clean-feature"), approved[0] if approved else None)
        print("code review: offline benchmarks (budgets: docs/performance.md)")
        print(f"  harness overhead      {cost.line()}")
        if one is None:
            print("  round trips           no reviewed change was approved in its first round: figure not measured")
        else:
            print(f"  round trips           first review at 1 s/call ({one.id}, approved at once): {one.total_time:.2f} s = "
                  f"{one.total_time:.1f} calls on the critical path; recorded {first_round[one.id]['critical_path_calls']}   (budget 1)")
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
        # --quick: a smaller change of the same shape, so CI exercises the path in a few seconds
        bench_large_change(tmp, *((60, 2_000) if quick else (300, 10_000)))


if __name__ == "__main__":
    main()
