"""The regression gate: compare an eval log with a committed baseline, metric by metric.

A baseline is a small JSON summary of a log (per-sample values of every gated metric), written
deliberately with `review-harness gate --write-baseline LOG`. Tolerances live in a YAML file
next to it. A metric fails when it moved the wrong way by more than its tolerance; with
several epochs it must also be significant: the 95% confidence interval of the paired
per-sample difference must exclude zero.

Only a gold-set run can be gated: a log without the kind's gold comparison (a review of the
user's own documents) or of another task than the baseline's is bad input (`GateError`, one
line, exit 2), never a regression. A metric neither run recorded (an across-epoch figure of
one-epoch runs) is skipped; one only the baseline lacks is new and passes. Gold figures are
recorded to 3 decimals, so a move of less than half of 0.001 is no move.
"""

from __future__ import annotations

import fnmatch
import json
import math
import statistics
from datetime import datetime, timezone
from pathlib import Path

import yaml
from inspect_ai.log import EvalLog
from pydantic import BaseModel, Field, ValidationError

from review_harness.core.metrics import RECORDING_NOISE

Z_95 = 1.96


class GateError(ValueError):
    """Bad gate input: missing or malformed baseline or config."""


class MetricRule(BaseModel):
    tolerance: float = Field(ge=0)
    higher_is_better: bool = True


class GateConfig(BaseModel):
    metrics: dict[str, MetricRule]


class Baseline(BaseModel):
    created: str
    log: str
    task: str
    model: str
    epochs: int
    values: dict[str, dict[str, float | None]] = Field(
        description="metric -> sample id -> value (mean over epochs; None when not applicable)"
    )


class MetricResult(BaseModel):
    metric: str
    baseline: float | None
    new: float | None
    difference: float | None
    ci_low: float | None = None
    ci_high: float | None = None
    tolerance: float
    higher_is_better: bool
    passed: bool
    note: str = ""


class GateResult(BaseModel):
    passed: bool
    problems: list[str] = Field(default_factory=list)
    results: list[MetricResult] = Field(default_factory=list)


def sample_values(log: EvalLog) -> dict[str, dict[str, float | None]]:
    """metric ('key' of a dict-valued score) -> sample id -> epoch-reduced value. Labels (a
    verdict, a decision) are no metrics and are left out."""
    out: dict[str, dict[str, float | None]] = {}
    for reduction in log.reductions or []:
        for sample in reduction.samples:
            if not isinstance(sample.value, dict):
                continue
            for key, value in sample.value.items():
                if isinstance(value, str):
                    continue
                number = float(value) if isinstance(value, (int, float)) else math.nan
                out.setdefault(key, {})[str(sample.sample_id)] = None if math.isnan(number) else number
    return out


def task_name(task: str) -> str:
    """`review_harness/ds_review` (a run by name) and `ds_review` (by file) are one task."""
    return task.rsplit("/", 1)[-1]


def check_gateable(log: EvalLog, log_path: str | Path, gold_scorer: str | None) -> None:
    """A log the gate can judge: it holds the kind's gold comparison (a run of the user's own
    documents has none, and nothing in it can regress)."""
    scorers = {r.scorer for r in log.reductions or []} | {s.scorer for s in (log.results.scores if log.results else [])}
    if gold_scorer is None or gold_scorer not in scorers:
        raise GateError(f"{Path(log_path).name}: no gold comparison in this log (a run of documents without gold "
                        f"files); the gate judges gold-set runs: inspect eval tasks/{task_name(log.eval.task)}.py")


def check_same_task(log: EvalLog, log_path: str | Path, baseline: Baseline, baseline_path: str | Path) -> None:
    if task_name(log.eval.task) != task_name(baseline.task):
        raise GateError(f"{Path(log_path).name} is a {task_name(log.eval.task)} log but the baseline {baseline_path} "
                        f"is of {task_name(baseline.task)}: give the baseline of its task (--baseline)")


def write_baseline(log: EvalLog, log_path: str, path: Path) -> Baseline:
    if log.status != "success":
        raise GateError(f"{log_path}: log status is '{log.status}'; a baseline must come from a successful run")
    baseline = Baseline(
        created=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        log=Path(log_path).name,
        task=log.eval.task,
        model=log.eval.model,
        epochs=log.eval.config.epochs or 1,
        values=sample_values(log),
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(baseline.model_dump(), indent=1, sort_keys=True) + "\n")
    return baseline


def load_baseline(path: Path) -> Baseline:
    try:
        return Baseline.model_validate_json(path.read_text())
    except FileNotFoundError:
        raise GateError(f"{path}: baseline not found (write one with --write-baseline LOG)") from None
    except ValidationError as ex:
        raise GateError(f"{path}: not a gate baseline ({ex.errors()[0]['msg']})") from None


def load_config(path: Path) -> GateConfig:
    try:
        return GateConfig.model_validate(yaml.safe_load(path.read_text()))
    except FileNotFoundError:
        raise GateError(f"{path}: gate config not found") from None
    except (yaml.YAMLError, ValidationError) as ex:
        raise GateError(f"{path}: invalid gate config ({ex})") from None


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def compare(
    log: EvalLog, baseline: Baseline, config: GateConfig
) -> GateResult:
    problems = []
    if log.status != "success":
        message = f": {log.error.message.splitlines()[0]}" if log.error else ""
        problems.append(f"log status is '{log.status}'{message}")
    new_values = sample_values(log)
    epochs = log.eval.config.epochs or 1
    results = []
    for metric, rule in expand_rules(config.metrics, set(baseline.values) | set(new_values)).items():
        base = baseline.values.get(metric)
        new = new_values.get(metric)
        if base is None or new is None:
            if base is None and new is None:
                note, passed = "recorded by neither run (e.g. an across-epoch figure of one-epoch runs)", True
            elif base is None:
                note, passed = "new: not in the baseline", True
            else:
                note, passed = "missing from the new log", False
            results.append(MetricResult(metric=metric, baseline=None, new=None, difference=None,
                                        tolerance=rule.tolerance, higher_is_better=rule.higher_is_better,
                                        passed=passed, note=note))
            continue
        shared = sorted(s for s in set(base) & set(new) if base[s] is not None and new[s] is not None)
        missing = sorted(set(base) - set(new))
        note = f"{len(missing)} baseline sample(s) missing" if missing else ""
        b = _mean([base[s] for s in shared])
        n = _mean([new[s] for s in shared])
        if b is None or n is None:
            results.append(MetricResult(metric=metric, baseline=b, new=n, difference=None,
                                        tolerance=rule.tolerance, higher_is_better=rule.higher_is_better,
                                        passed=True, note=note or "no sample has a value"))
            continue
        diffs = [new[s] - base[s] for s in shared]
        difference = n - b
        worse = -difference if rule.higher_is_better else difference
        passed = worse <= rule.tolerance + RECORDING_NOISE  # below the recorded precision: no move
        low = high = None
        if epochs > 1 and len(diffs) > 1:
            half = Z_95 * statistics.stdev(diffs) / math.sqrt(len(diffs))
            low, high = difference - half, difference + half
            if not passed and low <= 0 <= high:
                passed = True
                note = (note + "; " if note else "") + "within noise: the 95% CI includes 0"
        if missing:
            passed = False
        results.append(MetricResult(metric=metric, baseline=b, new=n, difference=difference,
                                    ci_low=low, ci_high=high, tolerance=rule.tolerance,
                                    higher_is_better=rule.higher_is_better, passed=passed, note=note))
    return GateResult(passed=not problems and all(r.passed for r in results), problems=problems, results=results)


def expand_rules(rules: dict[str, MetricRule], recorded: set[str]) -> dict[str, MetricRule]:
    """A tolerance whose name is a glob (`recall@*`: every planted operator's recall) holds each
    metric either run recorded that it matches; a plain name stands as it is."""
    out: dict[str, MetricRule] = {}
    for name, rule in rules.items():
        if any(ch in name for ch in "*?["):
            out |= {metric: rule for metric in sorted(recorded) if fnmatch.fnmatchcase(metric, name) and metric not in rules}
        else:
            out[name] = rule
    return out


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def render_table(result: GateResult) -> str:
    rows = [("metric", "baseline", "new", "diff", "95% CI", "tolerance", "result", "note")]
    for r in result.results:
        ci = "-" if r.ci_low is None else f"[{r.ci_low:+.3f}, {r.ci_high:+.3f}]"
        direction = "max drop" if r.higher_is_better else "max rise"
        rows.append((r.metric, _fmt(r.baseline), _fmt(r.new),
                     "-" if r.difference is None else f"{r.difference:+.3f}", ci,
                     f"{direction} {r.tolerance:g}", "ok" if r.passed else "REGRESSED", r.note))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    lines = [f"problem: {p}" for p in result.problems] + lines
    failed = [r.metric for r in result.results if not r.passed]
    verdict = "PASS" if result.passed else "FAIL: " + ", ".join(
        (["log status"] if result.problems else []) + failed
    )
    return "\n".join(lines + ["", f"gate: {verdict}"])


# ---------------------------------------------------------------------------- the command


def gate_config_for(baseline: Path) -> Path:
    """Tolerances beside the baseline: <name>.gate.yaml, else the shared gate.yaml."""
    own = baseline.with_name(f"{baseline.stem}.gate.yaml")
    return own if own.exists() else baseline.parent / "gate.yaml"


def default_baseline(run: EvalLog, baselines: Path) -> Path:
    """The committed baseline of the log's kind: <baselines>/<task>.json; a run over another fixture
    set than the kind's own (`-T fixtures=domain/search`) has its own, <task>.<set>.json (slashes as
    dashes), so one kind can gate several gold sets."""
    from review_harness.core.kinds import kind_of_log

    kind = kind_of_log(run)
    fixtures = (run.eval.task_args or {}).get("fixtures")
    if fixtures and str(fixtures) != kind.name:
        return baselines / f"{kind.task}.{str(fixtures).replace('/', '-')}.json"
    return baselines / f"{kind.task}.json"


def run_gate(log: str | None, baseline: str | None, config: str | None, write: str | None) -> int:
    """`review-harness gate`: 0 passed, 1 regressed; bad input raises `CommandError` (exit 2)."""
    from review_harness.core.commands import CommandError, one_line
    from review_harness.core.kinds import KindError, kind_of_log
    from review_harness.core.logs import LogError, newest_log, read_log, reviews_in_log
    from review_harness.core.paths import BASELINES_DIR

    with one_line(LogError, KindError, GateError):
        if write:
            log_path = newest_log(write)
            run = read_log(log_path)
            check_gateable(run, log_path, kind_of_log(run).gold_scorer)
            baseline_path = Path(baseline) if baseline else default_baseline(run, BASELINES_DIR)
            written = write_baseline(run, str(log_path), baseline_path)
            print(f"wrote {baseline_path} from {log_path.name}: {len(written.values)} metrics, "
                  f"{len(next(iter(written.values.values()), {}))} samples, {written.epochs} epoch(s)")
            return 0
        if not log:
            raise CommandError("give the log to check, or --write-baseline LOG")
        log_path = newest_log(log)
        run = read_log(log_path)
        kind = kind_of_log(run)
        baseline_path = Path(baseline) if baseline else default_baseline(run, BASELINES_DIR)
        reviews = reviews_in_log(run)
        if reviews and all(getattr(review, "status", None) == "deferred" for _, _, review in reviews):
            raise GateError(
                f"{log_path.name}: every review was deferred (no reviewer returned a usable report); "
                "there is nothing to gate - see the review warnings for each reviewer's failure reason"
            )
        check_gateable(run, log_path, kind.gold_scorer)
        the_baseline = load_baseline(baseline_path)
        check_same_task(run, log_path, the_baseline, baseline_path)
        rules = load_config(Path(config) if config else gate_config_for(baseline_path))
        result = compare(run, the_baseline, rules)
    print(f"gate: {log_path.name} against {baseline_path}")
    print(render_table(result))
    return 0 if result.passed else 1
