"""Offline performance benchmarks of the review harness (no API key, no network).

    . .venv/bin/activate
    python benchmarks/run.py                       # print every figure as labelled tables
    python benchmarks/run.py --quick               # one run per figure, fewer cases (CI)
    python benchmarks/run.py --json bench.json     # ... and also write them as JSON

Runs in about a minute on 2 cores. Figures (medians; nothing is asserted, targets are shown):

1. Harness overhead: `eval()` of the real task (tasks/ds_review.py, fixtures/ds, offline/rules,
   latency 0) against a bare Inspect task over the same samples and model. Primary baseline
   ("same model calls"): a one-step solver that sends each sample's two reviewer prompts
   (rendered before timing) concurrently with the same response schema, plus a constant scorer,
   so the rule engine does the same work and the ratio isolates what the harness adds
   (preparation, prompt rendering, store, parsing, synthesis, rendering, gold comparison).
   Floor baseline ("plain generate()"): the document as the user message, one generate()
   (the offline model answers a non-review prompt at once, no rule engine). Wall seconds of
   eval() alone (Task objects are built before the timer starts), median of 3 runs after one
   warm-up, display="none", logs in a temp dir.
2. Preparation cost: prepare_document() on generated documents of 1K-100K words.
3. Latency: latency=1 s per model call; one review, then 50 documents concurrently.
4. Tokens per review (words x 1.3, as the offline provider reports them) and the share of the
   input that is the stable, cacheable system prompt, next to the seed's section 14.1 estimates.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import platform
import re
import shlex
import statistics
import sys
import tempfile
import time
from pathlib import Path

import inspect_ai
from inspect_ai import Task, eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageSystem, ChatMessageUser, GenerateConfig, get_model
from inspect_ai.solver import generate, solver

from review_harness.ds.dataset import document_samples, fixture_samples
from review_harness.core.calltag import tagged
from review_harness.ds.models import ReviewOptions
from review_harness.offline.provider import estimate_tokens
from review_harness.ds.prepare import count_words, prepare_document
from review_harness.ds.prompts import render_reviewer_prompt, render_system
from review_harness.ds.rubric import default_rubric
from review_harness.ds.schemas import reviewer_schema

from common import OVERHEAD_BUDGET, bench_args, constant_scorer, load_task  # benchmarks/common.py (the script's folder is on sys.path)

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures" / "ds"
MODEL = "offline/rules"
RUBRIC = default_rubric()
SCHEMAS = {d: reviewer_schema(RUBRIC.dimension(d)) for d in RUBRIC.dimensions}
SEGMENTS = ["new customers", "tenured customers", "US", "Canada", "web", "app", "Q3", "Q4"]
# seed 000 s14.1: (scenario, total input tokens, total output tokens); includes an LLM lead agent
SEED = {"full_1k": ("Short doc (1K words), Full mode", 70_000, 12_000),
        "tier3_20k": ("Long doc (20K words), Tier 3", 95_000, 12_000),
        "quick": ("Quick mode (any length, Tier 3)", 85_000, 8_000)}


ds_review = load_task("ds_review")


def run_eval(task: Task, log_dir: str, latency: float = 0.0, **kwargs):
    start = time.perf_counter()
    log = eval(task, model=MODEL, model_args={"latency": latency}, display="none",
               log_dir=log_dir, **kwargs)[0]
    elapsed = time.perf_counter() - start
    if log.status != "success":
        raise RuntimeError(f"eval failed: {log.status} {log.error}")
    return elapsed, log


# ---------------------------------------------------------------------------------- documents

def _fixture_sections() -> tuple[str, list[tuple[str, list[str]]]]:
    """The head (title, byline, TL;DR) of the strong fixture and every '## ' section of the
    structured fixtures, as (heading, paragraphs)."""
    strong = (FIXTURES / "strong-analysis.md").read_text(encoding="utf-8")
    parts = re.split(r"(?m)^(?=## )", strong)
    head = parts[0] + parts[1]
    sections = []
    for path in sorted(FIXTURES.glob("*.md")):
        for part in re.split(r"(?m)^(?=## )", path.read_text(encoding="utf-8"))[1:]:
            heading, _, body = part.partition("\n")
            if re.search(r"tl;?dr|summary", heading, re.I):
                continue
            paragraphs = [p.strip() for p in body.split("\n\n") if p.strip()]
            if paragraphs:
                sections.append((heading[3:].strip(), paragraphs))
    return head, sections


HEAD, SECTIONS = _fixture_sections()


def make_document(target_words: int, variant: str = "") -> str:
    """Realistic markdown of about target_words words (at least that many): the strong
    fixture's title and TL;DR, then fixture sections cycled with per-round segment headings
    and shifted numbers so no two paragraphs are identical."""
    out, words, rnd = [HEAD.rstrip() + "\n"], count_words(HEAD), 0
    while True:
        for heading, paragraphs in SECTIONS:
            suffix = f" ({SEGMENTS[(rnd - 1) % len(SEGMENTS)]}, round {rnd})" if rnd else ""
            out.append(f"## {heading}{suffix}\n")
            words += count_words(heading + suffix)
            for p in paragraphs:
                p = re.sub(r"\b\d{2,}\b", lambda m: str(int(m.group()) + rnd), p) if rnd else p
                out.append(p + "\n")
                words += count_words(p)
                if words >= target_words:
                    return "\n".join(out) + (f"\n<!-- variant {variant} -->\n" if variant else "")
        rnd += 1


# ---------------------------------------------------------------------------------- 1. overhead

@solver
def same_model_calls():
    """Bare Inspect: the sample's two pre-rendered reviewer prompts, sent concurrently (each
    tagged with its member, as call_member does, so the offline model knows who asks)."""
    async def ask(reviewer: str, dimension: str, system: str, request: str):
        config = GenerateConfig(response_schema=SCHEMAS[dimension])
        with tagged("ds", reviewer):
            return await get_model().generate([ChatMessageSystem(content=system), ChatMessageUser(content=request)],
                                              config=config)

    async def solve(state, generate_fn):
        outputs = await asyncio.gather(*(ask(*prompt) for prompt in state.metadata["prompts"]))
        state.output = outputs[0]
        return state
    return solve


def baseline_tasks(samples: list[Sample]) -> dict[str, Task]:
    """Bare Inspect tasks over the same samples; prompts are rendered here, before timing."""
    with_prompts = []
    for s in samples:
        options = ReviewOptions.model_validate(s.metadata["options"])
        prepared = prepare_document(s.input, source=s.metadata["source"], mode=options.mode)
        prompts = [render_reviewer_prompt(RUBRIC.dimension(d), RUBRIC, prepared, mode=options.mode,
                                          audience=options.audience, workflow=options.workflow,
                                          draft=options.draft) for d in RUBRIC.dimensions]
        reviewers = [(RUBRIC.dimension(d).reviewer, d) for d in RUBRIC.dimensions]
        with_prompts.append(Sample(id=s.id, input=s.input, metadata={
            "prompts": [(m, d, p.system, p.request) for (m, d), p in zip(reviewers, prompts)]}))
    plain = [Sample(id=s.id, input=s.input) for s in samples]
    return {"same model calls": Task(dataset=MemoryDataset(with_prompts), solver=same_model_calls(),
                                     scorer=constant_scorer()),
            "plain generate()": Task(dataset=MemoryDataset(plain), solver=generate(),
                                     scorer=constant_scorer())}


def bench_overhead(log_dir: str, runs: int = 3) -> dict:
    baselines = baseline_tasks(fixture_samples("ds", {}))
    makers = {"real task (ds_review)": ds_review, **{k: (lambda t=t: t) for k, t in baselines.items()}}
    result = {}
    for name, make in makers.items():
        run_eval(make(), log_dir)  # warm-up
        times = [run_eval(make(), log_dir)[0] for _ in range(runs)]
        result[name] = {"median_s": statistics.median(times), "runs_s": times}
    real = result["real task (ds_review)"]["median_s"]
    for name in baselines:
        result[name]["real_over_baseline"] = real / result[name]["median_s"]
    result["samples"] = len(fixture_samples("ds", {}))
    return result


# ---------------------------------------------------------------------------------- 2. prepare

def bench_prepare(sizes=(1_000, 5_000, 20_000, 100_000)) -> list[dict]:
    rows = []
    for size in sizes:
        runs = 3 if size >= 100_000 else 7
        # a distinct text per run: prepare's parse cache is per text, so every run is cold
        texts = [make_document(size, variant=str(i)) for i in range(runs + 1)]
        prepare_document(texts[-1], source="warm-up.md")
        times, prepared = [], None
        for text in texts[:runs]:
            start = time.perf_counter()
            prepared = prepare_document(text, source=f"bench-{size}.md", mode="full")
            times.append((time.perf_counter() - start) * 1000)
        ms = statistics.median(times)
        rows.append({"target_words": size, "words": prepared.word_count, "tier": prepared.tier,
                     "runs": runs, "median_ms": ms, "min_ms": min(times),
                     "ms_per_1k_words": ms / prepared.word_count * 1000})
    return rows


# ---------------------------------------------------------------------------------- 3. latency

def model_intervals(log) -> list[tuple[float, float]]:
    return [(e.timestamp.timestamp(), e.completed.timestamp())
            for s in log.samples for e in s.events if e.event == "model" and e.completed]


def merged(intervals):
    """Sequential model stages: groups of overlapping model calls, as (start, end)."""
    out: list[list[float]] = []
    for a, b in sorted(intervals):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def bench_latency(log_dir: str, docs_dir: Path, latency: float = 1.0, runs: int = 3, documents: int = 50) -> dict:
    one = str(FIXTURES / "strong-analysis.md")
    run_eval(ds_review(document=one), log_dir, latency)  # warm-up
    singles = []
    for _ in range(runs):
        wall, log = run_eval(ds_review(document=one), log_dir, latency)
        iv = model_intervals(log)
        stages = merged(iv)
        singles.append({"eval_wall_s": wall, "sample_total_s": log.samples[0].total_time,
                        "model_calls": len(iv), "model_stages": len(stages),
                        "model_stage_wall_s": sum(b - a for a, b in stages),
                        "sum_model_event_wall_s": sum(b - a for a, b in iv)})
    single = {k: statistics.median(r[k] for r in singles) for k in singles[0]}
    single["ideal_s"] = latency

    fixtures = sorted(FIXTURES.glob("*.md"))
    for i in range(documents):
        src = fixtures[i % len(fixtures)]
        (docs_dir / f"{i:02d}-{src.name}").write_text(src.read_text(encoding="utf-8"), encoding="utf-8")
    bare = baseline_tasks(document_samples(str(docs_dir), {}))["same model calls"]
    many = []
    for name, make, conns in [("real task", lambda: ds_review(document=str(docs_dir)), documents),
                              ("real task", lambda: ds_review(document=str(docs_dir)), 2 * documents),
                              ("bare: same model calls", lambda: bare, documents)]:
        wall, log = run_eval(make(), log_dir, latency, max_connections=conns, max_samples=documents)
        iv = model_intervals(log)
        span = max(b for _, b in iv) - min(a for a, _ in iv)
        many.append({"task": name, "documents": len(log.samples), "max_connections": conns, "max_samples": documents,
                     "model_calls": len(iv), "eval_wall_s": wall,
                     "ideal_model_s": math.ceil(len(iv) / conns) * latency,
                     "first_to_last_model_call_s": span,
                     "max_sample_total_s": max(s.total_time for s in log.samples)})
    return {"latency_s": latency, "single": single, "single_runs": singles, "many": many, "documents": documents}


# ---------------------------------------------------------------------------------- 4. tokens

def bench_tokens(log_dir: str, docs_dir: Path, quick: bool = False) -> list[dict]:
    system_tokens = {RUBRIC.dimension(d).reviewer: estimate_tokens(render_system(RUBRIC.dimension(d), RUBRIC))
                     for d in RUBRIC.dimensions}
    cases = [("1K full", 1_000, "full", "full_1k"), ("1K quick", 1_000, "quick", "quick"),
             ("19.5K full", 19_500, "full", "tier3_20k"),
             ("20K full (auto-quick)", 20_000, "full", "quick"), ("20K quick", 20_000, "quick", "quick")]
    if quick:
        cases = [cases[0], cases[-1]]
    rows = []
    for label, size, mode, seed_key in cases:
        path = docs_dir / f"tokens-{size}.md"
        path.write_text(make_document(size), encoding="utf-8")
        _, log = run_eval(ds_review(document=str(path), mode=mode), log_dir)
        review = log.samples[0].scores["review_synthesis"].metadata["review"]
        runs = review["reviewer_runs"]
        inp, outp = sum(r["input_tokens"] for r in runs), sum(r["output_tokens"] for r in runs)
        prefix = sum(system_tokens[r["member"]] for r in runs)
        seed_name, seed_in, seed_out = SEED[seed_key]
        rows.append({"case": label, "words": review["document"]["word_count"], "requested_mode": mode,
                     "mode": review["mode"], "tier": review["tier"], "degradation_level": review["degradation_level"],
                     "reviewer_calls": len(runs), "input_tokens": inp, "output_tokens": outp,
                     "system_prefix_tokens": prefix, "cacheable_share": prefix / inp if inp else None,
                     "seed_scenario": seed_name, "seed_input_tokens": seed_in, "seed_output_tokens": seed_out})
    return rows


# ---------------------------------------------------------------------------------- output

def table(title: str, headers: list[str], rows: list[list]) -> None:
    cells = [[f"{c:,.3f}" if isinstance(c, float) else f"{c:,}" if isinstance(c, int) and not isinstance(c, bool)
              else str(c) for c in row] for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) for i, h in enumerate(headers)]
    print(f"\n{title}\n" + "  ".join(h.ljust(w) for h, w in zip(headers, widths)))
    print("  ".join("-" * w for w in widths))
    for r in cells:
        print("  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    args = bench_args(__doc__, parser)
    runs = 1 if args.quick else 3
    command = "python " + " ".join(shlex.quote(a) for a in sys.argv)
    print(f"$ cd {shlex.quote(os.getcwd())} && {command}")
    print(f"python {platform.python_version()}, inspect_ai {inspect_ai.__version__}, "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at start, model {MODEL}")
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        log_dir, docs = f"{tmp}/logs", Path(tmp)
        (docs / "many").mkdir()
        overhead = bench_overhead(log_dir, runs)
        prepare = bench_prepare((1_000, 20_000) if args.quick else (1_000, 5_000, 20_000, 100_000))
        latency = bench_latency(log_dir, docs / "many", runs=runs, documents=10 if args.quick else 50)
        tokens = bench_tokens(log_dir, docs, args.quick)

    names = [k for k in overhead if k != "samples"]
    table(f"1. Harness overhead: eval() over {overhead['samples']} fixtures, latency 0 "
          f"(median of {runs} after 1 warm-up; budget: real <= {OVERHEAD_BUDGET}x the same model calls)",
          ["task", "median wall s", "ms per sample", "runs s", "real / this"],
          [[n, overhead[n]["median_s"], 1000 * overhead[n]["median_s"] / overhead["samples"],
            " ".join(f"{t:.2f}" for t in overhead[n]["runs_s"]),
            f"{overhead[n].get('real_over_baseline', 1.0):.2f}x"] for n in names])
    print("  primary baseline: 'same model calls' (same prompts, same rule-engine work, no harness);"
          "\n  floor: 'plain generate()' (Inspect + one trivial model call, no rule engine)")
    table("2. Preparation cost: prepare_document(mode='full'), cold parse cache (target: 100K words < 2 s)",
          ["target words", "words", "tier", "runs", "median ms", "min ms", "ms / 1K words"],
          [[r["target_words"], r["words"], r["tier"], r["runs"], r["median_ms"], r["min_ms"],
            r["ms_per_1k_words"]] for r in prepare])
    s = latency["single"]
    table(f"3a. Latency: one review (strong-analysis.md), latency={latency['latency_s']:g} s per call "
          f"(median of {runs}; target: model wall < 1.5 s, round trips on the critical path: 1)",
          ["figure", "value"],
          [["eval() wall s", s["eval_wall_s"]], ["sample total s", s["sample_total_s"]],
           ["model calls", int(s["model_calls"])], ["sequential model stages (from log)", int(s["model_stages"])],
           ["model-stage wall s (union of model events)", s["model_stage_wall_s"]],
           ["sum of model-event wall s", s["sum_model_event_wall_s"]], ["ideal model wall s", s["ideal_s"]]])
    table(f"3b. Latency: {latency['documents']} documents (fixture copies), max_samples={latency['documents']}",
          ["task", "max_connections", "model calls", "eval() wall s", "ideal model s",
           "first->last model s", "max sample total s"],
          [[r["task"], r["max_connections"], r["model_calls"], r["eval_wall_s"], r["ideal_model_s"],
            r["first_to_last_model_call_s"], r["max_sample_total_s"]] for r in latency["many"]])
    print("  ideal model s = ceil(model calls / max_connections) x latency: twice as many calls as "
          "connections are two waves.\n  first->last model s: first model call start to last model "
          "call end (includes the offline\n  rule engine, which runs on the event loop after the sleep)")
    table("4. Tokens per review (sum over reviewer_runs; words x 1.3) vs the design's cost estimates "
          "(targets: 1K full <= 15,000 input; 20K quick <= 30,000)",
          ["case", "words", "mode", "tier", "degradation", "input", "output", "system prefix", "cacheable",
           "design scenario", "design in", "design out"],
          [[r["case"], r["words"], r["mode"], r["tier"], r["degradation_level"], r["input_tokens"], r["output_tokens"],
            r["system_prefix_tokens"], f"{r['cacheable_share']:.0%}", r["seed_scenario"],
            r["seed_input_tokens"], r["seed_output_tokens"]] for r in tokens])
    print("  '19.5K full' stays under the 20,000-word full-mode limit; '20K full' exceeds it and is"
          "\n  reviewed in quick mode (degradation level 1). The design's figures include an LLM lead agent"
          "\n  (~40-65K input); here preparation and synthesis are code, so only the 2 reviewers count.")
    total = time.perf_counter() - started
    print(f"\nbenchmarks took {total:.1f} s")
    if args.json:
        Path(args.json).write_text(json.dumps(
            {"command": command, "python": platform.python_version(), "inspect_ai": inspect_ai.__version__,
             "cpus": os.cpu_count(), "model": MODEL, "overhead": overhead, "prepare": prepare,
             "latency": latency, "tokens": tokens, "total_s": total}, indent=2), encoding="utf-8")
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
