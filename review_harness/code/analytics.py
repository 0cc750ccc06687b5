"""Review analytics (seed 002, E4), built from eval logs: the log is the record, the JSON a view.

Each review appends its entries to `review-analytics.json` beside its log when its task ends
(`-T analytics=FILE` elsewhere, `off` for none; see record.py), `review-harness code analytics
LOGS` rebuilds the file from logs, and `code override` updates the entries of the review it
names. All three build entries here, and the summary is recalculated from the entries alone on
every write, so the file always adds up.

A review is one sample and epoch of one log: the same gold set in two logs is two sets of
reviews. Its entries are one per round (the first review, each re-review after a fix) and stage:
both models' verdicts, merge counts, confidence, the decision point the stage belongs to (its
number in the review, the automatic decision and the human's answer there: a quality review
after a human approved a failed spec stage is its own decision point), the override recorded for
this very review (log + sample + epoch), fix iterations, `final_status` (how the run ended) and
`final_verdict` (after an override: `complete` when a human approved, `rejected` when a human
rejected), the models that ran, and each finding with its resolution:

- `confirmed`: the gold file names it (first round of a gold case), or the human rejected at its
  decision point (when answering, or by `code override` on the review's last decision point);
- `fixed`: it is gone from the next round's review of the same stage after a fix;
- `dismissed`: a human dismissed it by id (or, in a gold case, the gold file does not name it);
- `discarded`: speculative quality results of a failed spec round;
- `open`: none of these (still waiting, or approved past as it was).

`model_accuracy`, per role and model (`reviewer_a=offline/rules`): a finding of that model is a true
positive when confirmed or fixed, a false positive when dismissed; a miss is a confirmed or fixed
finding only the other model reported (and, in gold cases, a gold finding it did not report).
Open findings count in neither. The summary counts decisions per review (by its first decision:
they add up to `total_reviews`) and per decision point (they add up to `decision_points.total`),
final verdicts per review, average fix iterations, precision of Agreed vs one-model findings,
per-service figures and the seed's tuning hints. `summary_lines` is what `code analytics` and
`review-harness summary` print; `render_html` draws a one-page report.
"""

from __future__ import annotations

import base64
import io
import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pandas as pd
from inspect_ai.log import EvalLog

from review_harness.code.gold import load_code_gold, matched
from review_harness.code.models import CodeReview, IterationRecord, MergedFinding, StageMerge
from review_harness.code.panel import completed_report
from review_harness.core.files import file_lock, write_output
from review_harness.core.gold import GoldError
from review_harness.core.logs import reviewed_samples

FP_RATE_HINT = 0.3
ROLE_OF = {"A": "reviewer_a", "B": "reviewer_b"}
COUNTS = ("true_positive", "false_positive", "missed", "open")
DECISION_KEYS = {"AUTO_APPROVE": "auto_approved", "AUTO_REJECT_TO_IMPLEMENTER": "auto_rejected",
                 "PRESENT_TO_HUMAN": "human_decided"}
OVERRIDDEN = {"approve": "complete", "reject": "rejected"}  # final_verdict after a human's override
ANALYTICS = "review-analytics.json"


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


AFTER_APPROVAL = "quality-after-approval"


def _stages(it: IterationRecord) -> list[tuple[StageMerge, str]]:
    out = [(it.spec, "spec")] + ([(it.quality, "quality")] if it.quality is not None else [])
    if it.after_approval is not None:
        out.append((it.after_approval.quality, AFTER_APPROVAL))
    return out


def _point(it: IterationRecord, label: str) -> tuple[str, str | None]:
    """(automatic decision, human's answer) at the decision point a stage of the round belongs to."""
    if label == AFTER_APPROVAL and it.after_approval is not None:
        return it.after_approval.decision, it.after_approval.human_decision
    return it.decision, it.human_decision


def _last_point(review: CodeReview, it: IterationRecord, label: str) -> bool:
    """Whether a stage belongs to the review's last decision point (the one an override answers)."""
    return it is review.last and (label == AFTER_APPROVAL or it.after_approval is None)


class Resolver:
    """The resolution of each finding of a review (see the module docstring)."""

    def __init__(self, review: CodeReview, override: dict | None, gold_hits: dict[str, set[str]] | None) -> None:
        self.review = review
        self.override = override or {}
        self.gold_hits = gold_hits  # first round: stage -> ids of merged findings the gold file names

    def __call__(self, it: IterationRecord, merged: StageMerge, label: str, m: MergedFinding) -> str:
        if merged.discarded:
            return "discarded"
        if m.id in it.all_dismissed or m.id in (self.override.get("dismiss") or []):
            return "dismissed"
        if it.iteration == 0 and self.gold_hits is not None:
            return "confirmed" if m.id in self.gold_hits.get(merged.stage, set()) else "dismissed"
        nxt = _next_review(self.review, it, merged.stage)
        if nxt is not None and not any(_same(m, other) for other in nxt.findings):
            return "fixed"
        _, human = _point(it, label)
        overridden = _last_point(self.review, it, label) and self.override.get("decision") == "reject"
        rejected = human == "reject" or overridden
        return "confirmed" if rejected and m.category != "contradiction" else "open"


def _gold_hits(metadata: dict, store: dict, review: CodeReview) -> tuple[dict[str, set[str]], dict[str, dict[str, int]]] | None:
    """For a gold case: the first round's merged findings the gold file names (per stage), and
    per stage and model letter the gold findings it missed."""
    path = metadata.get("gold")
    if not path or not Path(path).exists():
        return None
    try:
        gold = load_code_gold(Path(path))
    except GoldError:
        return None
    hits: dict[str, set[str]] = {}
    missed: dict[str, dict[str, int]] = {}
    for merged in review.first.reviewed():
        stage_gold = [g for g in gold.expected_findings if g.stage == merged.stage]
        pairs = matched([m.finding for m in merged.findings], stage_gold)
        hits[merged.stage] = {merged.findings[i].id for i, _, _ in pairs}
        for letter in ("A", "B"):
            report = completed_report(store, 0, merged.stage, letter)
            found = len(matched(report.findings, stage_gold)) if report is not None else 0
            missed.setdefault(merged.stage, {})[letter] = len(stage_gold) - found
    return hits, missed


def _found_by(m: MergedFinding) -> list[str]:
    return ["A", "B"] if m.category == "agreed" else [m.by] if m.by else []


def review_entries(review: CodeReview, *, log: str, sample: str, epoch: int, date: str, metadata: dict | None = None,
                   store: dict | None = None, override: dict | None = None) -> list[dict]:
    """The entries of one review (one per round and stage), as appended to the analytics file."""
    if not review.iterations:
        return []
    gold = _gold_hits(metadata or {}, store or {}, review)
    resolve = Resolver(review, override, gold[0] if gold else None)
    models = models_of(review)
    final_verdict = OVERRIDDEN[override["decision"]] if override else review.final_status
    entries = []
    point = -1
    for it in review.iterations:
        for merged, label in _stages(it):
            if label != "quality":  # the speculative quality results share the first decision point with spec
                point += 1
            decision, human = _point(it, label)
            findings = []
            for m in merged.findings:
                resolution = resolve(it, merged, label, m)
                findings.append({"id": m.id, "description": m.finding.description, "where": m.finding.where,
                                 "severity": m.finding.severity.value, "category": m.category, "kind": m.finding.category,
                                 "found_by": _found_by(m), "resolution": resolution,
                                 "false_positive": resolution == "dismissed", "memory": m.memory})
            entry = {
                "date": date, "feature": review.feature, "task": review.task, "title": review.title,
                "log": log, "sample": sample, "epoch": epoch, "service": review.service, "strategy": review.strategy,
                "models": models, "stage": label, "iteration": it.iteration, "discarded": merged.discarded,
                "reviewer_a_verdict": _verdict(merged, "A"), "reviewer_b_verdict": _verdict(merged, "B"),
                "agreed_count": len(merged.in_category("agreed")),
                "reviewer_a_only_count": len(merged.in_category("a_only")),
                "reviewer_b_only_count": len(merged.in_category("b_only")),
                "contradiction_count": len(merged.in_category("contradiction")),
                "confidence": (it.after_approval.confidence if label == AFTER_APPROVAL else it.confidence).value,
                "decision_point": point, "auto_decision": decision, "human_decision": human,
                "human_override": override["decision"] if override else None,
                "fix_iterations": review.fix_iterations, "final_status": review.final_status,
                "final_verdict": final_verdict, "gold": gold is not None,
                "gold_missed": (gold[1].get(merged.stage) if gold and it.iteration == 0 and not merged.discarded
                                and any(merged is counted for counted in it.reviewed()) else None),
                "findings": findings,
            }
            entries.append(entry)
    return entries


def log_entries(log: EvalLog, overrides: list[dict], occurrence: str | None = None) -> list[dict]:
    """The entries of every code review in a log (`occurrence`: the name it is counted under)."""
    name = log_name(log)
    date = (log.eval.created or "")[:10]
    entries = []
    for sample, review in reviewed_samples(log, expected_kind="code"):
        sample_id, epoch = str(sample.id), int(sample.epoch or 1)
        entries += review_entries(review, log=occurrence or name, sample=sample_id, epoch=epoch, date=date,
                                  metadata=sample.metadata or {}, store=sample.store or {},
                                  override=override_for(overrides, name, sample_id, epoch))
    return entries


def build_analytics(logs: list[EvalLog], overrides: list[dict] | None = None) -> dict:
    entries: list[dict] = []
    given: Counter[str] = Counter()
    for log in logs:
        name = log_name(log)
        given[name] += 1
        entries += log_entries(log, overrides or [], name if given[name] == 1 else f"{name}#{given[name]}")
    return {"reviews": entries, "summary": summarize(entries)}


def append_entries(path: Path, entries: list[dict]) -> dict:
    """Add reviews' entries to an analytics file (an entry of the same review, log + sample +
    epoch, is replaced), recalculate its summary and write it atomically under a lock."""
    keys = {(e["log"], e["sample"], e["epoch"]) for e in entries}
    with file_lock(path.parent / f".{path.name}.lock"):
        kept: list[dict] = []
        ours = True  # the file is free, or an analytics file: its entries are carried into the new one
        if path.exists():
            try:
                kept = json.loads(path.read_text(encoding="utf-8")).get("reviews") or []
            except (json.JSONDecodeError, UnicodeDecodeError, AttributeError, OSError):
                kept, ours = [], False  # not an analytics file: never replaced, the new one goes beside it
        kept = [e for e in kept if (e.get("log"), e.get("sample"), e.get("epoch")) not in keys]
        data = {"reviews": kept + entries, "summary": summarize(kept + entries)}
        write_output(path, json.dumps(data, indent=2), update=ours)
    return data


def _verdict(merged: StageMerge, letter: str) -> str | None:
    if letter not in merged.verdicts:
        return None
    return (merged.verdicts[letter] or "none").lower()


def _accuracy(entries: list[dict]) -> list[dict]:
    """One row per review and model: its true and false positives, misses and open findings."""
    counts: dict[tuple, Counter] = defaultdict(Counter)
    meta: dict[tuple, dict] = {}
    for e in entries:
        review = (e["log"], e["sample"], e["epoch"])
        meta[review] = e
        for letter in ROLE_OF:
            counts[(review, letter)]  # every model of every review gets a row
        for letter, n in (e.get("gold_missed") or {}).items():
            counts[(review, letter)]["missed"] += n
        if e["discarded"]:
            continue
        gold_round = e.get("gold") and e["iteration"] == 0
        for f in e["findings"]:
            mine = f["found_by"]
            for letter in ROLE_OF:
                if letter in mine:
                    key = {"confirmed": "true_positive", "fixed": "true_positive",
                           "dismissed": "false_positive"}.get(f["resolution"], "open")
                    counts[(review, letter)][key] += 1
                elif f["resolution"] in ("confirmed", "fixed") and not gold_round:
                    counts[(review, letter)]["missed"] += 1  # the other model found it
    rows = []
    for (review, letter), c in counts.items():
        e = meta[review]
        for model in (e.get("models") or {}).get(ROLE_OF[letter], ["unknown"]):
            rows.append({"model": f"{ROLE_OF[letter]}={model}", "service": e["service"], **{k: c[k] for k in COUNTS}})
    return rows


def summarize(entries: list[dict]) -> dict[str, Any]:
    """The summary of some entries, from the entries alone (see the module docstring)."""
    if not entries:
        return {"total_reviews": 0, "tuning_hints": ["no data: these logs hold no code review"]}
    frame = pd.DataFrame(entries)
    keys = ["log", "sample", "epoch"]
    reviews = frame.drop_duplicates(keys)
    rounds = frame.drop_duplicates(keys + ["iteration"])
    points = frame.drop_duplicates(keys + ["decision_point"]).sort_values(keys + ["decision_point"])
    first = points.drop_duplicates(keys)  # each review's first decision
    per_review = Counter(first["auto_decision"])
    per_point = Counter(points["auto_decision"])
    accuracy = pd.DataFrame(_accuracy(entries))
    per_model = accuracy.groupby("model")[list(COUNTS)].sum()
    model_accuracy = {m: {k: int(v) for k, v in row.items()} for m, row in per_model.iterrows()}
    by_service_accuracy: dict[str, dict] = {}
    for (service, model), row in accuracy.groupby(["service", "model"])[list(COUNTS)].sum().iterrows():
        by_service_accuracy.setdefault(service, {})[model] = {k: int(v) for k, v in row.items()}
    findings = pd.DataFrame([{**f, "service": e["service"]} for e in entries for f in e["findings"] if not e["discarded"]])
    by_service = {}
    for service, group in reviews.groupby("service"):
        common: list[str] = []
        if not findings.empty:
            real = findings[(findings["service"] == service) & findings["resolution"].isin(["confirmed", "fixed", "open"])]
            common = [k for k, _ in real["kind"].value_counts().items()][:3]
        by_service[service] = {"reviews": int(len(group)), "common_issues": common,
                               "model_accuracy": by_service_accuracy.get(service, {})}
    precision: dict[str, float | None] = {}
    resolved_count = 0
    if not findings.empty:
        resolved = findings[findings["resolution"].isin(["confirmed", "fixed", "dismissed"])]
        resolved_count = int(len(resolved))
        for name, subset in (("agreed", resolved[resolved["category"] == "agreed"]),
                             ("one_model", resolved[resolved["category"] != "agreed"])):
            precision[name] = None if subset.empty else round(float(1 - subset["false_positive"].mean()), 3)
    models: dict[str, list[str]] = defaultdict(list)
    for named in reviews["models"]:
        for role, names in (named or {}).items():
            models[role] += [n for n in names if n not in models[role]]
    summary = {
        "total_reviews": int(len(reviews)),
        "logs": int(reviews["log"].nunique()),
        "tasks": int(reviews["task"].nunique()),
        "rounds": int(len(rounds)),
        **{key: per_review.get(decision, 0) for decision, key in DECISION_KEYS.items()},
        "decision_points": {"total": int(len(points)),
                            **{key: per_point.get(decision, 0) for decision, key in DECISION_KEYS.items()},
                            "human_answered": int(points["human_decision"].notna().sum())},
        "human_answers": int(points["human_decision"].notna().sum()),
        "human_overrides": int(reviews["human_override"].notna().sum()),
        "avg_fix_iterations": round(float(reviews["fix_iterations"].mean()), 3),
        "final_status": {k: int(v) for k, v in reviews["final_status"].value_counts().items()},
        "final_verdict": {k: int(v) for k, v in reviews["final_verdict"].value_counts().items()},
        "confidence": {str(k): int(v) for k, v in rounds["confidence"].value_counts().sort_index().items()},
        "models": dict(models),
        "resolved_findings": resolved_count,
        "precision_by_category": precision,
        "model_accuracy": model_accuracy,
        "by_service": by_service,
    }
    summary["tuning_hints"] = tuning_hints(summary)
    return summary


def tuning_hints(summary: dict) -> list[str]:
    if not summary.get("total_reviews"):
        return ["no data: these logs hold no code review"]
    if not summary.get("resolved_findings"):
        return [f"not enough data to tune on: none of the {summary['total_reviews']} review(s) has a finding that was "
                "confirmed, fixed or dismissed, so the models' accuracy is unknown (answer reviews, or record "
                "overrides with `review-harness code override`)"]
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
    return hints or [f"no tuning suggested by {summary['resolved_findings']} resolved finding(s) over "
                     f"{summary['total_reviews']} review(s)"]


def summary_lines(summary: dict) -> list[str]:
    """The analytics summary as `review-harness summary` and `code analytics` print it."""
    if not summary.get("total_reviews"):
        return ["analytics: no data (no code review in these logs)"]
    points = summary["decision_points"]
    lines = [f"analytics: {summary['total_reviews']} reviews ({summary['tasks']} tasks, {summary['logs']} log(s), "
             f"{summary['rounds']} rounds); first decisions: auto-approved {summary['auto_approved']}, auto-rejected "
             f"{summary['auto_rejected']}, human {summary['human_decided']}; all {points['total']} decision points: "
             f"auto-approved {points['auto_approved']}, auto-rejected {points['auto_rejected']}, human "
             f"{points['human_decided']} ({points['human_answered']} answered); {summary['human_overrides']} overrides; "
             f"avg fix iterations {summary['avg_fix_iterations']:g}",
             "  final verdict: " + ", ".join(f"{k} {v}" for k, v in summary["final_verdict"].items()),
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
    points = summary.get("decision_points", {})
    decisions = {"auto-approve": points.get("auto_approved", 0), "auto-reject": points.get("auto_rejected", 0),
                 "human": points.get("human_decided", 0)}
    axes[1].bar(list(decisions), list(decisions.values()), color=["#55a868", "#c44e52", "#8172b2"])
    axes[1].set_title("Decisions (all decision points)")
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
