"""Review analytics, rebuilt from eval logs (the log is the record; the JSON is a view).

`build_analytics(logs, overrides)` gives the seed's ``review-analytics.json`` shape: one entry
per review round and stage (verdicts of both models, merge counts, confidence, decision, human
override, fix iterations, final status, findings with their resolution), and a summary with
decision counts, average fix iterations, model accuracy per model and per service, and the
tuning hints. Tables are pandas frames; `render_html` draws the one-page report.
"""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

import pandas as pd
from inspect_ai.log import EvalLog

from review_harness.code.gold import load_code_gold, matched
from review_harness.core.gold import GoldError
from review_harness.code.models import CodeFinding, CodeReview
from review_harness.code.panel import completed_report
from review_harness.core.logs import reviewed_samples

FP_RATE_HINT = 0.3


def _same(a: CodeFinding, b: CodeFinding) -> bool:
    return a.file == b.file and a.category == b.category and (a.line is None or b.line is None or abs(a.line - b.line) <= 5)


def _resolution(review: CodeReview, index: int, stage: str, finding: CodeFinding, discarded: bool) -> str:
    if discarded:
        return "discarded"
    it = review.iterations[index]
    if it.human_decision == "approve" and finding.blocking:
        return "dismissed"
    if index + 1 < len(review.iterations):
        later = review.iterations[index + 1]
        merged = later.spec if stage == "spec" else later.quality
        if merged is not None and not merged.discarded and not any(_same(m.finding, finding) for m in merged.findings):
            return "fixed"
        return "open" if merged is not None else "not re-checked"
    return "open"


def _gold_truth(metadata: dict, store: dict, review: CodeReview) -> tuple[dict[str, list[CodeFinding]], dict[str, dict[str, int]]] | None:
    """Per model: its first-review findings that are false positives by the gold file, and TP/FP/missed
    (discarded speculative quality results do not count)."""
    path = metadata.get("gold")
    if not path or not Path(path).exists():
        return None
    try:
        gold = load_code_gold(Path(path))
    except GoldError:
        return None
    counts: dict[str, dict[str, int]] = {}
    false: dict[str, list[CodeFinding]] = {}
    for letter in ("A", "B"):
        c = counts.setdefault(letter, {"true_positive": 0, "false_positive": 0, "missed": 0})
        discarded = review.first.quality is None or review.first.quality.discarded
        for stage in ("spec",) if discarded else ("spec", "quality"):
            report = completed_report(store, 0, stage, letter)
            if report is None:
                continue
            stage_gold = [g for g in gold.expected_findings if g.stage == stage]
            pairs = matched(report.findings, stage_gold)
            hit = {i for i, _, _ in pairs}
            c["true_positive"] += len(pairs)
            c["false_positive"] += len(report.findings) - len(pairs)
            c["missed"] += len(stage_gold) - len(pairs)
            false.setdefault(letter, []).extend(f for i, f in enumerate(report.findings) if i not in hit)
    return false, counts


def build_analytics(logs: list[EvalLog], overrides: list[dict] | None = None) -> dict:
    overrides = overrides or []
    entries, accuracy_rows, tasks = [], [], []
    for log in logs:
        date = (log.eval.created or "")[:10]
        for sample, review in reviewed_samples(log, expected_kind="code"):
            sample_id, epoch, metadata, store = str(sample.id), sample.epoch, sample.metadata or {}, sample.store or {}
            override = next((o["decision"] for o in reversed(overrides)
                             if o.get("sample") == sample_id and o.get("task") in (None, review.task)), None)
            truth = _gold_truth(metadata, store, review)
            tasks.append({"sample": sample_id, "service": review.service, "fix_iterations": review.fix_iterations,
                          "final_status": review.final_status, "gold": truth is not None})
            for index, it in enumerate(review.iterations):
                for merged in (it.spec, it.quality):
                    if merged is None:
                        continue
                    findings = []
                    for n, m in enumerate(merged.findings, 1):
                        resolution = _resolution(review, index, merged.stage, m.finding, merged.discarded)
                        if truth is not None and index == 0:
                            false_positive = any(m.finding == f for fs in truth[0].values() for f in fs)
                        else:
                            false_positive = resolution == "dismissed" or m.category == "contradiction" and resolution != "fixed"
                        findings.append({"id": f"f{n}", "description": m.finding.description, "where": m.finding.where,
                                         "severity": m.finding.severity.value, "category": m.category,
                                         "kind": m.finding.category, "resolution": resolution, "false_positive": false_positive})
                    entries.append({
                        "date": date, "feature": log.eval.task, "sample": sample_id, "epoch": epoch, "task": review.task,
                        "service": review.service, "strategy": review.strategy, "models": ["reviewer_a", "reviewer_b"],
                        "stage": merged.stage, "iteration": it.iteration, "discarded": merged.discarded,
                        "reviewer_a_verdict": (merged.verdicts.get("A") or "none").lower() if "A" in merged.verdicts else None,
                        "reviewer_b_verdict": (merged.verdicts.get("B") or "none").lower(),
                        "agreed_count": len(merged.in_category("agreed")), "reviewer_a_only_count": len(merged.in_category("a_only")),
                        "reviewer_b_only_count": len(merged.in_category("b_only")),
                        "contradiction_count": len(merged.in_category("contradiction")),
                        "confidence": it.confidence.value, "auto_decision": it.decision, "human_decision": it.human_decision,
                        "human_override": override if index == 0 else None,
                        "fix_iterations": review.fix_iterations, "final_verdict": review.final_status, "findings": findings,
                    })
            if truth is not None:
                for letter, c in truth[1].items():
                    accuracy_rows.append({"model": f"reviewer_{letter.lower()}", "service": review.service, "source": "gold", **c})
            else:
                first = review.first
                for letter in ("A", "B"):
                    tp = fp = missed = 0
                    for merged in (first.spec, first.quality):
                        if merged is None or merged.discarded:
                            continue
                        for m in merged.findings:
                            resolution = _resolution(review, 0, merged.stage, m.finding, False)
                            mine = m.category == "agreed" or m.by == letter
                            if mine and resolution != "dismissed" and m.category != "contradiction":
                                tp += 1
                            elif mine:
                                fp += 1
                            elif resolution == "fixed":
                                missed += 1
                    accuracy_rows.append({"model": f"reviewer_{letter.lower()}", "service": review.service, "source": "resolution",
                                          "true_positive": tp, "false_positive": fp, "missed": missed})
    return {"reviews": entries, "summary": summarize(entries, accuracy_rows, tasks)}


def summarize(entries: list[dict], accuracy_rows: list[dict], tasks: list[dict]) -> dict:
    frame = pd.DataFrame(entries)
    if frame.empty:
        return {"total_reviews": 0, "tuning_hints": ["no code reviews in these logs"]}
    rounds = frame.drop_duplicates(["sample", "epoch", "iteration"])
    decisions = rounds["auto_decision"].value_counts()
    task_frame = pd.DataFrame(tasks)
    accuracy = pd.DataFrame(accuracy_rows)
    model_accuracy, by_service_accuracy = {}, {}
    if not accuracy.empty:
        per_model = accuracy.groupby("model")[["true_positive", "false_positive", "missed"]].sum()
        model_accuracy = {m: {k: int(v) for k, v in row.items()} for m, row in per_model.iterrows()}
        per_service = accuracy.groupby(["service", "model"])[["true_positive", "false_positive", "missed"]].sum()
        for (service, model), row in per_service.iterrows():
            by_service_accuracy.setdefault(service, {})[model] = {k: int(v) for k, v in row.items()}
    findings = pd.DataFrame([{**f, "service": e["service"]} for e in entries for f in e["findings"] if not e["discarded"]])
    by_service = {}
    for service, group in rounds.groupby("service"):
        common = []
        if not findings.empty and service in set(findings["service"]):
            counts = findings[findings["service"] == service]["kind"].value_counts()
            common = [k for k, n in counts.items() if n >= 1][:3]
        by_service[service] = {"reviews": int(len(group)), "common_issues": common,
                               "model_accuracy": by_service_accuracy.get(service, {})}
    precision = {}
    if not findings.empty:
        for name, subset in (("agreed", findings[findings["category"] == "agreed"]),
                             ("one_model", findings[findings["category"] != "agreed"])):
            precision[name] = None if subset.empty else round(float(1 - subset["false_positive"].mean()), 3)
    summary = {
        "total_reviews": int(len(rounds)),
        "tasks": int(len(task_frame)),
        "auto_approved": int(decisions.get("AUTO_APPROVE", 0)),
        "auto_rejected": int(decisions.get("AUTO_REJECT_TO_IMPLEMENTER", 0)),
        "human_decided": int(decisions.get("PRESENT_TO_HUMAN", 0)),
        "human_overrides": int(frame["human_override"].notna().sum()),
        "avg_fix_iterations": round(float(task_frame["fix_iterations"].mean()), 3),
        "final_status": {k: int(v) for k, v in task_frame["final_status"].value_counts().items()},
        "confidence": {str(k): int(v) for k, v in rounds["confidence"].value_counts().sort_index().items()},
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
            hints.append(f"{model}: {c['false_positive']} of {flagged} findings were false positives "
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


def _png(fig) -> str:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=90, bbox_inches="tight")
    return base64.b64encode(buffer.getvalue()).decode()


def render_html(analytics: dict) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    summary = analytics["summary"]
    images = []
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
    axes[2].set_xticks(range(len(models)), models)
    axes[2].set_title("Model accuracy")
    axes[2].legend(fontsize=8)
    images.append(_png(fig))
    plt.close(fig)
    rows = "".join(f"<tr><td>{k}</td><td>{json.dumps(v) if isinstance(v, (dict, list)) else v}</td></tr>"
                   for k, v in summary.items() if k != "tuning_hints")
    hints = "".join(f"<li>{h}</li>" for h in summary.get("tuning_hints", []))
    body = "".join(f'<img src="data:image/png;base64,{img}" alt="plots"/>' for img in images)
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>Code review analytics</title></head><body>"
            f"<h1>Code review analytics</h1>{body}<h2>Tuning hints</h2><ul>{hints}</ul>"
            f"<h2>Summary</h2><table border='1' cellpadding='4'>{rows}</table></body></html>")
