"""Gold files of the code review (gold/code/<case>.yaml over fixtures/code/<case>/) and the
comparison of a review with one: precision, recall and must-catch recall per model and stage,
decision, confidence, final status, fix iterations, false-positive traps, and Agreed vs
one-model precision."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from review_harness.code.merge import MATCH_THRESHOLD, similarity
from review_harness.code.models import LETTERS, STAGES, CodeFinding, CodeReview, Decision, ReviewerAnswer
from review_harness.core.gold import ExpectedFinding, GoldCase, load_gold
from review_harness.core.matching import GoldComparison, matches_of, one_to_one, ratio
from review_harness.core.models import Severity
from review_harness.core.paths import repo_path
from review_harness.core.yamlio import read_yaml


CASE_GOLD = "gold.yaml"


class GoldFinding(ExpectedFinding):
    stage: str
    file: str
    line: int | None = None
    severity: Severity
    category: str

    def as_finding(self) -> CodeFinding:
        return CodeFinding(severity=self.severity, category=self.category, file=self.file, line=self.line,
                           description=self.summary, suggested_fix=None, quote=self.evidence or None)


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


class CodeGold(GoldCase):
    language: str = "python"
    notes: str | None = None
    expected: Expected | None = Field(default=None, description="None: not judged (a planted file)")
    expected_findings: list[GoldFinding] = Field(default_factory=list)
    traps: list[GoldTrap] = Field(default_factory=list)

    @classmethod
    def id_for(cls, path: Path) -> str:
        return path.parent.name if path.name == CASE_GOLD else path.stem

    @property
    def fixture_path(self) -> Path:
        """gold/code/<case>.yaml describes fixtures/code/<case>/; a case folder of one's own
        (-T cases=) keeps its gold.yaml beside its case.yaml."""
        return self.path.parent if self.path.name == CASE_GOLD else super().fixture_path

    def evidence_inputs(self, finding: GoldFinding) -> list[Path]:  # type: ignore[override]
        """A quote is code of the new version (its file, or the patch) or a sentence of the spec."""
        case = self.fixture_path
        real = real_folder(case)
        if real is not None:  # a real commit: its patch, its files before it, its spec
            return [real / "change.patch", real / "before" / finding.file, real / "SPEC.md"]
        return [case / "head" / finding.file, case / "change.patch", case / "spec.md"]


def real_folder(case: Path) -> Path | None:
    """The outside folder of a real-commit case (its case.yaml's `change: {real: ...}`), else None."""
    data = read_yaml(case / "case.yaml") if (case / "case.yaml").is_file() else None
    real = ((data or {}).get("change") or {}).get("real") if isinstance(data, dict) else None
    return repo_path(real) if isinstance(real, str) else None


def load_code_gold(path: Path) -> CodeGold:
    return load_gold(path, CodeGold)


MATCHER = "rules"


def matched(predicted: list[CodeFinding], gold: list[GoldFinding]) -> list[tuple[int, int, float]]:
    return one_to_one(predicted, [g.as_finding() for g in gold], similarity, MATCH_THRESHOLD)


def compare_findings(predicted: list[CodeFinding], gold: list[GoldFinding]) -> GoldComparison:
    """One model's (or the merge's) findings against the gold findings of the same stages. With
    no findings precision is not applicable (None): a model that found nothing is measured by
    its recall."""
    as_finding = {g.id: g.as_finding() for g in gold}
    matches = matches_of(predicted, gold, lambda p, g: similarity(p, as_finding[g.id]), MATCH_THRESHOLD,
                         finding_id=lambda i, f: f"{i + 1}:{f.where}",
                         severity_agrees=lambda p, g: p.severity == g.severity)
    return GoldComparison.from_matches([f"{i + 1}:{f.where}" for i, f in enumerate(predicted)], gold, matches,
                                       matcher=MATCHER, precision_without_findings=None)


def _hits_trap(f: CodeFinding, trap: GoldTrap) -> bool:
    return f.file == trap.file and f.line is not None and abs(f.line - trap.line) <= 2


class CodeGoldComparison(GoldComparison):
    """The core comparison of the first review's merged findings (the stages that count), plus
    each model's own first report per stage, Agreed vs one-model precision, the decision,
    confidence, final status and fix iterations, and the false-positive traps."""

    per_model: dict[str, GoldComparison | None] = Field(
        default_factory=dict, description="'{stage}_{letter}' -> that model's first report (None: it failed)"
    )
    agreed_precision: float | None
    one_model_precision: float | None
    agreed_count: int
    one_model_count: int
    decision_accuracy: float | None
    confidence_exact: float | None
    final_status_accuracy: float | None
    fix_iterations_exact: float | None
    fp_trap_rate: float | None
    traps_hit: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)

    def values(self) -> dict[str, float | None]:
        """The gold scorer's metrics (GOLD_METRICS), None where not applicable."""
        out: dict[str, float | None] = {}
        for figure, field in (("precision", "precision"), ("recall", "recall"), ("must_catch", "must_catch_recall")):
            for key, comparison in self.per_model.items():
                out[f"{figure}_{key}"] = None if comparison is None else getattr(comparison, field)
        for name in REVIEW_METRICS:
            value = getattr(self, name)
            out[name] = None if value is None else float(value)
        return {name: out[name] for name in GOLD_METRICS}


def compare_code(review: CodeReview, gold: CodeGold, reports: dict[str, ReviewerAnswer | None]) -> CodeGoldComparison:
    """`reports`: '{stage}:{letter}' -> that model's first-review report (None when it failed)."""
    notes: list[str] = []
    per_model: dict[str, GoldComparison | None] = {}
    all_predicted: list[CodeFinding] = []
    for stage in STAGES:
        stage_gold = [g for g in gold.expected_findings if g.stage == stage]
        for letter in LETTERS:
            report = reports.get(f"{stage}:{letter}")
            per_model[f"{stage}_{letter}"] = None if report is None else compare_findings(report.findings, stage_gold)
            if report is None:
                continue
            all_predicted += report.findings
            missed = per_model[f"{stage}_{letter}"].missed_must_catch  # type: ignore[union-attr]
            if missed:
                notes.append(f"model {letter} {stage}: missed must-catch {', '.join(missed)}")
    first = review.first
    counted = first.reviewed()
    merged = [m for s in counted for m in s.findings]
    gold_counted = [g for g in gold.expected_findings if g.stage in {s.stage for s in counted}]
    agreed = [m.finding for m in merged if m.category == "agreed"]
    single = [m.finding for m in merged if m.category != "agreed"]
    flagged = [t.id for t in gold.traps if any(_hits_trap(f, t) for f in all_predicted)]
    if flagged:
        notes.append("fell into traps: " + ", ".join(flagged))
    expected = gold.expected
    if expected is None:
        notes.append(f"decision {first.decision}, confidence {first.confidence.value:g}, status {review.final_status}, "
                     f"fixes {review.fix_iterations} (gold does not judge them)")
    else:
        notes.append(f"decision {first.decision} (gold {expected.decision}); confidence {first.confidence.value:g} "
                     f"(gold {expected.confidence:g}); status {review.final_status} (gold {expected.final_status}); "
                     f"fixes {review.fix_iterations} (gold {expected.fix_iterations})")
    overall = compare_findings([m.finding for m in merged], gold_counted)
    return CodeGoldComparison(
        **overall.model_dump(),
        per_model=per_model,
        agreed_precision=ratio(len(matched(agreed, gold_counted)), len(agreed)),
        one_model_precision=ratio(len(matched(single, gold_counted)), len(single)),
        agreed_count=len(agreed),
        one_model_count=len(single),
        decision_accuracy=None if expected is None else float(first.decision == expected.decision),
        confidence_exact=None if expected is None else float(abs(first.confidence.value - expected.confidence) < 1e-9),
        final_status_accuracy=None if expected is None else float(review.final_status == expected.final_status),
        fix_iterations_exact=None if expected is None else float(review.fix_iterations == expected.fix_iterations),
        fp_trap_rate=ratio(len(flagged), len(gold.traps)),
        traps_hit=flagged,
        notes=notes,
    )


# per model and stage, then of the merged review
REVIEW_METRICS = ("agreed_precision", "one_model_precision", "agreed_count", "one_model_count", "decision_accuracy",
                  "confidence_exact", "final_status_accuracy", "fix_iterations_exact", "fp_trap_rate")
GOLD_METRICS = tuple(
    [f"{m}_{s}_{l}" for m in ("precision", "recall", "must_catch") for s in STAGES for l in LETTERS] + list(REVIEW_METRICS)
)
