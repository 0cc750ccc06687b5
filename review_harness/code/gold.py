"""Gold files of the code review (gold/code/<case>.yaml) and the comparison of a review with
one: precision, recall and must-catch recall per model and stage, decision, confidence,
final status, fix iterations, false-positive traps, and Agreed vs one-model precision."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from review_harness.code.merge import MATCH_THRESHOLD, counted_stages, similarity
from review_harness.code.models import CodeFinding, CodeReview, Decision, ReviewerAnswer, Severity
from review_harness.core.matching import one_to_one, ratio
from review_harness.core.yamlio import read_model


class CodeGoldError(ValueError):
    pass


class GoldFinding(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    stage: str
    file: str
    line: int | None = None
    severity: Severity
    category: str
    must_catch: bool = False
    summary: str
    quote: str | None = None

    def as_finding(self) -> CodeFinding:
        return CodeFinding(severity=self.severity, category=self.category, file=self.file, line=self.line,
                           description=self.summary, suggested_fix=None, quote=self.quote)


class GoldTrap(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    stage: str
    file: str
    line: int
    why_fine: str


class Expected(BaseModel):
    model_config = ConfigDict(extra="forbid")

    decision: Decision
    confidence: float
    final_status: str
    fix_iterations: int


class CodeGold(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    split: str = "dev"
    language: str = "python"
    notes: str | None = None
    expected: Expected
    findings: list[GoldFinding] = Field(default_factory=list)
    traps: list[GoldTrap] = Field(default_factory=list)


def load_code_gold(path: Path) -> CodeGold:
    return read_model(path, CodeGold, f"gold file {path}", CodeGoldError)


def matched(predicted: list[CodeFinding], gold: list[GoldFinding]) -> list[tuple[int, int, float]]:
    return one_to_one(predicted, [g.as_finding() for g in gold], similarity, MATCH_THRESHOLD)


def _hits_trap(f: CodeFinding, trap: GoldTrap) -> bool:
    return f.file == trap.file and f.line is not None and abs(f.line - trap.line) <= 2


class GoldComparison(BaseModel):
    values: dict[str, float | None]
    notes: list[str]


def compare_code(review: CodeReview, gold: CodeGold, reports: dict[str, ReviewerAnswer | None]) -> GoldComparison:
    """`reports`: '{stage}:{letter}' -> that model's first-review report (None when it failed)."""
    values: dict[str, float | None] = {}
    notes: list[str] = []
    all_predicted: list[CodeFinding] = []
    for stage in ("spec", "quality"):
        stage_gold = [g for g in gold.findings if g.stage == stage]
        for letter in ("A", "B"):
            report = reports.get(f"{stage}:{letter}")
            key = f"{stage}_{letter}"
            if report is None:
                values[f"precision_{key}"] = values[f"recall_{key}"] = values[f"must_catch_{key}"] = None
                continue
            all_predicted += report.findings
            pairs = matched(report.findings, stage_gold)
            hit = {stage_gold[j].id for _, j, _ in pairs}
            values[f"precision_{key}"] = ratio(len(pairs), len(report.findings))
            values[f"recall_{key}"] = ratio(len(hit), len(stage_gold))
            must = [g.id for g in stage_gold if g.must_catch]
            values[f"must_catch_{key}"] = ratio(sum(1 for g in must if g in hit), len(must))
            missed = [g for g in must if g not in hit]
            if missed:
                notes.append(f"model {letter} {stage}: missed must-catch {', '.join(missed)}")
    first = review.first
    merged = [m for s in counted_stages(first.spec, first.quality) for m in s.findings]
    gold_counted = [g for g in gold.findings if g.stage in {s.stage for s in counted_stages(first.spec, first.quality)}]
    agreed = [m.finding for m in merged if m.category == "agreed"]
    single = [m.finding for m in merged if m.category != "agreed"]
    values["agreed_precision"] = ratio(len(matched(agreed, gold_counted)), len(agreed))
    values["one_model_precision"] = ratio(len(matched(single, gold_counted)), len(single))
    values["agreed_count"] = float(len(agreed))
    values["one_model_count"] = float(len(single))
    values["decision_accuracy"] = float(first.decision == gold.expected.decision)
    values["confidence_exact"] = float(abs(first.confidence.value - gold.expected.confidence) < 1e-9)
    values["final_status_accuracy"] = float(review.final_status == gold.expected.final_status)
    values["fix_iterations_exact"] = float(review.fix_iterations == gold.expected.fix_iterations)
    flagged = [t.id for t in gold.traps if any(_hits_trap(f, t) for f in all_predicted)]
    values["fp_trap_rate"] = ratio(len(flagged), len(gold.traps))
    if flagged:
        notes.append("fell into traps: " + ", ".join(flagged))
    notes.append(f"decision {first.decision} (gold {gold.expected.decision}); confidence {first.confidence.value:g} "
                 f"(gold {gold.expected.confidence:g}); status {review.final_status} (gold {gold.expected.final_status}); "
                 f"fixes {review.fix_iterations} (gold {gold.expected.fix_iterations})")
    return GoldComparison(values=values, notes=notes)


GOLD_METRICS = tuple(
    [f"{m}_{s}_{l}" for m in ("precision", "recall", "must_catch") for s in ("spec", "quality") for l in ("A", "B")]
    + ["agreed_precision", "one_model_precision", "agreed_count", "one_model_count", "decision_accuracy",
       "confidence_exact", "final_status_accuracy", "fix_iterations_exact", "fp_trap_rate"]
)
