"""Review analytics (seed 002, E4), rebuilt from eval logs: the log is the record, the JSON a view.

`build_analytics(logs, overrides)` gives the seed's `review-analytics.json` shape. A review is one
sample and epoch of one log: the same gold set in two logs is two sets of reviews. Its entries are
one per round (the first review, each re-review after a fix) and stage: both models' verdicts,
merge counts, confidence, decision, the human's answer, the override recorded for this very review
(log + sample + epoch), fix iterations, final status, the models that ran, and each finding with
its resolution:

- `confirmed`: the gold file names it (first round of a gold case), or a human rejected the round
  it was in (at the decision point or by `code override`);
- `fixed`: it is gone from the next round's review of the same stage after a fix;
- `dismissed`: a human dismissed it by id (or, in a gold case, the gold file does not name it);
- `discarded`: speculative quality results of a failed spec round;
- `open`: none of these (still waiting, or approved as it was).

`model_accuracy`, per role and model (`reviewer_a=offline/rules`): a finding of that model is a true
positive when confirmed or fixed, a false positive when dismissed; a miss is a confirmed or fixed
finding only the other model reported (and, in gold cases, a gold finding it did not report).
Open findings count in neither. The summary adds decision counts per decision point, average fix
iterations, final statuses, precision of Agreed vs one-model findings, per-service figures and
the seed's tuning hints. `summary_lines` is what `code analytics` and `review-harness summary`
print; `render_html` draws a one-page report.
"""

from __future__ import annotations

import base64
import io
import json
from collections import Counter, defaultdict
from pathlib import Path

import pandas as pd
from inspect_ai.log import EvalLog

from review_harness.code.gold import load_code_gold, matched
from review_harness.code.models import CodeReview, IterationRecord, MergedFinding, StageMerge
from review_harness.code.panel import completed_report
from review_harness.core.gold import GoldError
from review_harness.core.logs import reviewed_samples

FP_RATE_HINT = 0.3
ROLE_OF = {"A": "reviewer_a", "B": "reviewer_b"}
COUNTS = ("true_positive", "false_positive", "missed", "open")


def log_name(log: EvalLog) -> str:
    return Path(log.location).name if log.location else ""


def override_for(overrides: list[dict], log: str, sample: str, epoch: int) -> dict | None:
    """The last override recorded for this review (log file, sample, epoch)."""
    found = [o for o in overrides if Path(str(o.get("log", ""))).name == log and str(o.get("sample")) == sample
             and int(o.get("epoch") or 1) == epoch]
    return found[-1] if found else None


def models_of(review: CodeReview) -> dict[str, list[str]]:
    """role -> the models that ran under it in this review (reviewers and the implementer)."""
    seen: dict[str, list[str]] = defaultdict(list)
    runs = [r for it in review.iterations for r in it.runs] + [f.run for f in review.fixes if f.run is not None]
    for run in runs:
        if run.role and run.model and run.model not in seen[run.role]:
            seen[run.role].append(run.model)
    return dict(seen)


def _same(a: MergedFinding, b: MergedFinding) -> bool:
    fa, fb = a.finding, b.finding
    return fa.file == fb.file and fa.category == fb.category and (fa.line is None or fb.line is None or abs(fa.line - fb.line) <= 5)


def _next_review(review: CodeReview, it: IterationRecord, stage: str) -> StageMerge | None:
    """The same stage in the round that reviewed the fix made after `it`, if any."""
    later = [r for r in review.iterations if r.iteration > it.iteration]
    if not later:
        return None
    nxt = later[0]
    for merged in nxt.counted() + nxt.stages():
        if merged.stage == stage and not merged.discarded:
            return merged
    return None


class Resolver:
    """The resolution of each finding of a review (see the module docstring)."""

    def __init__(self, review: CodeReview, override: dict | None, gold_hits: dict[str, set[str]] | None) -> None:
        self.review = review
        self.override = override or {}
        self.gold_hits = gold_hits  # first round: stage -> ids of merged findings the gold file names

    def __call__(self, it: IterationRecord, merged: StageMerge, m: MergedFinding) -> str:
        if merged.discarded:
            return "discarded"
        if m.id in it.all_dismissed or m.id in (self.override.get("dismiss") or []):
            return "dismissed"
        if it.iteration == 0 and self.gold_hits is not None:
            return "confirmed" if m.id in self.gold_hits.get(merged.stage, set()) else "dismissed"
        nxt = _next_review(self.review, it, merged.stage)
        if nxt is not None and not any(_same(m, other) for other in nxt.findings):
            return "fixed"
        last = it is self.review.last
        rejected = it.final_human == "reject" or (last and self.override.get("decision") == "reject")
        return "confirmed" if rejected and m.category != "contradiction" else "open"


def _gold_hits(metadata: dict, store: dict, review: CodeReview) -> tuple[dict[str, set[str]], dict[str, int]] | None:
    """For a gold case: the first round's merged findings the gold file names (per stage), and
    per model letter the gold findings it missed."""
    path = metadata.get("gold")
    if not path or not Path(path).exists():
        return None
    try:
        gold = load_code_gold(Path(path))
    except GoldError:
        return None
    hits: dict[str, set[str]] = {}
    missed: dict[str, int] = {}
    first = review.first
    for merged in first.reviewed():
        stage_gold = [g for g in gold.expected_findings if g.stage == merged.stage]
        pairs = matched([m.finding for m in merged.findings], stage_gold)
        hits[merged.stage] = {merged.findings[i].id for i, _, _ in pairs}
        for letter in ("A", "B"):
            report = completed_report(store, 0, merged.stage, letter)
            found = len(matched(report.findings, stage_gold)) if report is not None else 0
            missed[letter] = missed.get(letter, 0) + len(stage_gold) - found
    return hits, missed


def _found_by(m: MergedFinding) -> list[str]:
    return ["A", "B"] if m.category == "agreed" else [m.by] if m.by else []


def build_analytics(logs: list[EvalLog], overrides: list[dict] | None = None) -> dict:
    overrides = overrides or []
    entries: list[dict] = []
    reviews: list[dict] = []
    accuracy: list[dict] = []
    given: Counter[str] = Counter()
    for log in logs:
        name = log_name(log)
        given[name] += 1
        occurrence = name if given[name] == 1 else f"{name}#{given[name]}"  # a log given twice counts twice
        date = (log.eval.created or "")[:10]
        for sample, review in reviewed_samples(log, expected_kind="code"):
            if not review.iterations:
                continue
            sample_id, epoch = str(sample.id), int(sample.epoch or 1)
            override = override_for(overrides, name, sample_id, epoch)
            gold = _gold_hits(sample.metadata or {}, sample.store or {}, review)
            resolve = Resolver(review, override, gold[0] if gold else None)
            models = models_of(review)
            key = {"log": occurrence, "sample": sample_id, "epoch": epoch}
            reviews.append({**key, "task": review.task, "service": review.service, "fix_iterations": review.fix_iterations,
                            "final_status": review.final_status, "override": override["decision"] if override else None,
                            "models": models})
            counts = {letter: Counter() for letter in ROLE_OF}
            if gold:
                for letter, n in gold[1].items():
                    counts[letter]["missed"] += n
            for it in review.iterations:
                points = [(it.decision, it.human_decision)] + (
                    [(it.after_approval.decision, it.after_approval.human_decision)] if it.after_approval else [])
                for merged, label in _stages(it):
                    findings = []
                    for m in merged.findings:
                        resolution = resolve(it, merged, m)
                        findings.append({"id": m.id, "description": m.finding.description, "where": m.finding.where,
                                         "severity": m.finding.severity.value, "category": m.category,
                                         "kind": m.finding.category, "found_by": _found_by(m), "resolution": resolution,
                                         "false_positive": resolution == "dismissed"})
                        _count(counts, m, resolution, gold is not None and it.iteration == 0)
                    entries.append({
                        "date": date, "feature": log.eval.task, **key, "task": review.task, "service": review.service,
                        "strategy": review.strategy, "models": models, "stage": label, "iteration": it.iteration,
                        "discarded": merged.discarded,
                        "reviewer_a_verdict": _verdict(merged, "A"), "reviewer_b_verdict": _verdict(merged, "B"),
                        "agreed_count": len(merged.in_category("agreed")),
                        "reviewer_a_only_count": len(merged.in_category("a_only")),
                        "reviewer_b_only_count": len(merged.in_category("b_only")),
                        "contradiction_count": len(merged.in_category("contradiction")),
                        "confidence": (it.after_approval.confidence if label == "quality-after-approval" else it.confidence).value,
                        "auto_decision": it.decision, "human_decision": it.human_decision,
                        "decision_points": [{"decision": d, "human": h} for d, h in points],
                        "human_override": override["decision"] if override and it is review.last else None,
                        "fix_iterations": review.fix_iterations, "final_verdict": review.final_status, "findings": findings,
                    })
            for letter, c in counts.items():
                for model in models.get(ROLE_OF[letter], ["unknown"]):
                    accuracy.append({"model": f"{ROLE_OF[letter]}={model}", "service": review.service,
                                     **{k: c[k] for k in COUNTS}})
    return {"reviews": entries, "summary": summarize(entries, reviews, accuracy)}


def _stages(it: IterationRecord) -> list[tuple[StageMerge, str]]:
    out = [(it.spec, "spec")] + ([(it.quality, "quality")] if it.quality is not None else [])
    if it.after_approval is not None:
        out.append((it.after_approval.quality, "quality-after-approval"))
    return out


def _verdict(merged: StageMerge, letter: str) -> str | None:
    if letter not in merged.verdicts:
        return None
    return (merged.verdicts[letter] or "none").lower()


def _count(counts: dict[str, Counter], m: MergedFinding, resolution: str, gold_round: bool) -> None:
    if resolution == "discarded":
        return
    mine = _found_by(m)
    for letter in counts:
        if letter in mine:
            key = {"confirmed": "true_positive", "fixed": "true_positive", "dismissed": "false_positive"}.get(resolution, "open")
            counts[letter][key] += 1
        elif resolution in ("confirmed", "fixed") and not gold_round:
            counts[letter]["missed"] += 1  # the other model found it (a gold round counts misses against the gold file)


def summarize(entries: list[dict], reviews: list[dict], accuracy_rows: list[dict]) -> dict:
    if not reviews:
        return {"total_reviews": 0, "tuning_hints": ["no code reviews in these logs"]}
    frame = pd.DataFrame(entries)
    review_frame = pd.DataFrame(reviews)
    rounds = frame.drop_duplicates(["log", "sample", "epoch", "iteration"])
    points = [p for _, row in rounds.iterrows() for p in row["decision_points"]]
    decisions = Counter(p["decision"] for p in points)
    accuracy = pd.DataFrame(accuracy_rows)
    per_model = accuracy.groupby("model")[list(COUNTS)].sum()
    model_accuracy = {m: {k: int(v) for k, v in row.items()} for m, row in per_model.iterrows()}
    by_service_accuracy: dict[str, dict] = {}
    for (service, model), row in accuracy.groupby(["service", "model"])[list(COUNTS)].sum().iterrows():
        by_service_accuracy.setdefault(service, {})[model] = {k: int(v) for k, v in row.items()}
    findings = pd.DataFrame([{**f, "service": e["service"]} for e in entries for f in e["findings"] if not e["discarded"]])
    by_service = {}
    for service, group in review_frame.groupby("service"):
        common: list[str] = []
        if not findings.empty:
            real = findings[(findings["service"] == service) & findings["resolution"].isin(["confirmed", "fixed", "open"])]
            common = [k for k, _ in real["kind"].value_counts().items()][:3]
        by_service[service] = {"reviews": int(len(group)), "common_issues": common,
                               "model_accuracy": by_service_accuracy.get(service, {})}
    precision: dict[str, float | None] = {}
    if not findings.empty:
        resolved = findings[findings["resolution"].isin(["confirmed", "fixed", "dismissed"])]
        for name, subset in (("agreed", resolved[resolved["category"] == "agreed"]),
                             ("one_model", resolved[resolved["category"] != "agreed"])):
            precision[name] = None if subset.empty else round(float(1 - subset["false_positive"].mean()), 3)
    models: dict[str, list[str]] = defaultdict(list)
    for review in reviews:
        for role, names in review["models"].items():
            models[role] += [n for n in names if n not in models[role]]
    summary = {
        "total_reviews": int(len(review_frame)),
        "logs": int(review_frame["log"].nunique()),
        "tasks": int(review_frame["task"].nunique()),
        "rounds": int(len(rounds)),
        "decision_points": len(points),
        "auto_approved": decisions.get("AUTO_APPROVE", 0),
        "auto_rejected": decisions.get("AUTO_REJECT_TO_IMPLEMENTER", 0),
        "human_decided": decisions.get("PRESENT_TO_HUMAN", 0),
        "human_answers": sum(1 for p in points if p["human"]),
        "human_overrides": int(review_frame["override"].notna().sum()),
        "avg_fix_iterations": round(float(review_frame["fix_iterations"].mean()), 3),
        "final_status": {k: int(v) for k, v in review_frame["final_status"].value_counts().items()},
        "confidence": {str(k): int(v) for k, v in rounds["confidence"].value_counts().sort_index().items()},
        "models": dict(models),
        "precision_by_category": precision,
        "model_accuracy": model_accuracy,
        "by_service": by_service,
    }
    summary["tuning_hints"] = tuning_hints(summary)
    return summary


def tuning_hints(summary: dict) -> list[str]:
    hints = []
    for model, c in summary.get("model_accuracy", {}).items():
        flagged = c["true_positive"] + c["false_positive"]
        if flagged and c["false_positive"] / flagged > FP_RATE_HINT:
            hints.append(f"{model}: {c['false_positive']} of {flagged} resolved findings were false positives "
                         f"({c['false_positive'] / flagged:.0%}); consider another model for this role or strategy: single")
    if summary.get("avg_fix_iterations", 0) > 1:
        hints.append(f"average fix iterations {summary['avg_fix_iterations']:g} > 1: reviewers may be too strict, or specs unclear")
    for service, info in summary.get("by_service", {}).items():
        if info["reviews"] >= 3 and info["common_issues"]:
            hints.append(f"{service}: recurring {', '.join(info['common_issues'])} findings; add them to the service's "
                         "documentation as known patterns")
    precision = summary.get("precision_by_category", {})
    if precision.get("agreed") is not None and precision.get("one_model") is not None:
        hints.append(f"precision of Agreed findings {precision['agreed']:.0%} vs one-model findings {precision['one_model']:.0%}")
    return hints or ["no tuning needed on this data"]


def summary_lines(summary: dict) -> list[str]:
    """The analytics summary as `review-harness summary` and `code analytics` print it."""
    if not summary.get("total_reviews"):
        return ["analytics: no code reviews"]
    lines = [f"analytics: {summary['total_reviews']} reviews ({summary['tasks']} tasks, {summary['logs']} log(s), "
             f"{summary['rounds']} rounds); decisions: auto-approved {summary['auto_approved']}, auto-rejected "
             f"{summary['auto_rejected']}, human {summary['human_decided']} ({summary['human_answers']} answered, "
             f"{summary['human_overrides']} overrides); avg fix iterations {summary['avg_fix_iterations']:g}",
             "  final status: " + ", ".join(f"{k} {v}" for k, v in summary["final_status"].items()),
             "  models: " + "; ".join(f"{role} {', '.join(names)}" for role, names in summary["models"].items())]
    for model, c in summary["model_accuracy"].items():
        lines.append(f"  {model}: true positives {c['true_positive']}, false positives {c['false_positive']}, "
                     f"missed {c['missed']}, unresolved {c['open']}")
    return lines + [f"  hint: {hint}" for hint in summary["tuning_hints"]]


def _png(fig) -> str:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=90, bbox_inches="tight")
    return base64.b64encode(buffer.getvalue()).decode()


def render_html(analytics: dict) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    summary = analytics["summary"]
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.4))
    confidence = summary.get("confidence", {})
    axes[0].bar(list(confidence), list(confidence.values()), color="#4c72b0")
    axes[0].set_title("Confidence of review rounds")
    decisions = {"auto-approve": summary.get("auto_approved", 0), "auto-reject": summary.get("auto_rejected", 0),
                 "human": summary.get("human_decided", 0)}
    axes[1].bar(list(decisions), list(decisions.values()), color=["#55a868", "#c44e52", "#8172b2"])
    axes[1].set_title("Decisions")
    accuracy = summary.get("model_accuracy", {})
    models = list(accuracy)
    for offset, key, colour in ((-0.25, "true_positive", "#55a868"), (0, "false_positive", "#c44e52"), (0.25, "missed", "#dd8452")):
        axes[2].bar([i + offset for i in range(len(models))], [accuracy[m][key] for m in models], width=0.25, label=key, color=colour)
    axes[2].set_xticks(range(len(models)), models, fontsize=7)
    axes[2].set_title("Model accuracy")
    axes[2].legend(fontsize=8)
    image = _png(fig)
    plt.close(fig)
    rows = "".join(f"<tr><td>{k}</td><td>{json.dumps(v) if isinstance(v, (dict, list)) else v}</td></tr>"
                   for k, v in summary.items() if k != "tuning_hints")
    hints = "".join(f"<li>{h}</li>" for h in summary.get("tuning_hints", []))
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>Code review analytics</title></head><body>"
            f"<h1>Code review analytics</h1><img src=\"data:image/png;base64,{image}\" alt=\"plots\"/>"
            f"<h2>Tuning hints</h2><ul>{hints}</ul>"
            f"<h2>Summary</h2><table border='1' cellpadding='4'>{rows}</table></body></html>")
