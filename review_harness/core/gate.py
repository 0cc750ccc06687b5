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

Floors (`floors:` in the config, metric -> lowest acceptable run value) fail a run whose mean over
its samples is under the floor, even when it is no worse than the baseline: a baseline that was
useless from the start is no bar. A floor on a metric the run does not record fails too.

The ratchet (core/ratchet.py) then holds every must-catch finding the baseline caught, case by
case, whatever the averages did; losses a reviewed file accepts (`accepted-losses.yaml` beside the
baseline, a reason for each) do not fail.

A comparison must compare something: a baseline without values, a config without metrics, a log
that shares no sample with the baseline, or metrics neither run recorded are bad input (exit 2),
never a pass; the table says how many samples were compared.

Baselines change only on purpose. `--write-baseline` refuses, unless told so with a flag, to
replace a baseline with one of fewer samples (`allow_fewer_samples`), of another task
(`allow_task_change`), or from a degraded run (`allow_degraded`: failed samples, deferred or
failed reviews, figures the current baseline's own gate would fail, or a must-catch finding it
caught that the run lost and no accepted loss covers); a file that is no baseline is never
replaced. It says what it replaced.
"""

from __future__ import annotations

import fnmatch
import json
import math
import statistics
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from inspect_ai.log import EvalLog
from pydantic import BaseModel, Field, ValidationError, field_validator

from review_harness.core.files import file_problem, write_atomic
from review_harness.core.metrics import RECORDING_NOISE
from review_harness.core.ratchet import (ACCEPTED_LOSSES, AcceptedLoss, FindingOutcome, RatchetResult, load_accepted,
                                         ratchet, run_outcomes)
from review_harness.core.yamlio import first_error, invalid_message, read_json, read_mapping

Z_95 = 1.96
USER_SET_BASELINES = "baselines"  # the folder of a user's own gold set that holds its baselines


class GateError(ValueError):
    """Bad gate input: missing or malformed baseline or config."""


class MetricRule(BaseModel):
    tolerance: float = Field(ge=0)
    higher_is_better: bool = True


class GateConfig(BaseModel):
    metrics: dict[str, MetricRule]
    floors: dict[str, float] = Field(default_factory=dict,
                                     description="metric -> the lowest run value that passes, whatever the baseline")

    @field_validator("metrics")
    @classmethod
    def _some_metric(cls, metrics: dict[str, MetricRule]) -> dict[str, MetricRule]:
        if not metrics:
            raise ValueError("no metrics: a gate without metrics checks nothing")
        return metrics


class Baseline(BaseModel):
    created: str
    log: str
    task: str
    model: str
    epochs: int
    values: dict[str, dict[str, float | None]] = Field(
        description="metric -> sample id -> value (mean over epochs; None when not applicable)"
    )
    findings: dict[str, dict[str, FindingOutcome]] | None = Field(
        default=None, description="case -> gold finding id -> its outcome (None: written before the ratchet)"
    )

    @field_validator("values")
    @classmethod
    def _some_value(cls, values: dict[str, dict[str, float | None]]) -> dict[str, dict[str, float | None]]:
        if not values:
            raise ValueError("no values: a baseline without values gates nothing")
        empty = sorted(metric for metric, samples in values.items() if not samples)
        if empty:
            raise ValueError(f"metric {empty[0]} has no samples")
        return values

    @property
    def samples(self) -> set[str]:
        return {sample for samples in self.values.values() for sample in samples}


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


class FloorResult(BaseModel):
    metric: str
    value: float | None
    floor: float
    passed: bool

    def line(self) -> str:
        if self.value is None:
            return f"floor: {self.metric} is not recorded by the run (floor {self.floor:g}): UNDER FLOOR"
        return (f"floor: {self.metric} {self.value:.3f} (floor {self.floor:g}): "
                + ("ok" if self.passed else "UNDER FLOOR"))


class GateResult(BaseModel):
    passed: bool
    problems: list[str] = Field(default_factory=list)
    results: list[MetricResult] = Field(default_factory=list)
    floors: list[FloorResult] = Field(default_factory=list)
    ratchet: RatchetResult | None = None
    compared: list[str] = Field(default_factory=list, description="sample ids both runs have")
    missing: list[str] = Field(default_factory=list, description="baseline samples the new log lacks")


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
                        f"files); the gate judges gold-set runs: inspect eval review_harness/{task_name(log.eval.task)}")


def check_same_task(log: EvalLog, log_path: str | Path, baseline: Baseline, baseline_path: str | Path) -> None:
    if task_name(log.eval.task) != task_name(baseline.task):
        raise GateError(f"{Path(log_path).name} is a {task_name(log.eval.task)} log but the baseline {baseline_path} "
                        f"is of {task_name(baseline.task)}: give the baseline of its task (--baseline)")


def samples_of(values: dict[str, dict[str, float | None]]) -> set[str]:
    return {sample for samples in values.values() for sample in samples}


def _listed(names: set[str] | list[str], most: int = 5) -> str:
    names = sorted(names)
    return ", ".join(names[:most]) + (f" and {len(names) - most} more" if len(names) > most else "")


def check_overlap(log: EvalLog, baseline: Baseline, config: GateConfig | None = None) -> list[str]:
    """The samples the gate compares (both runs have them); none, or no metric of the config in
    either run, is a `GateError`: a comparison of nothing is no pass."""
    new = sample_values(log)
    shared = sorted(samples_of(new) & baseline.samples)
    if not shared:
        raise GateError(f"the log shares no sample with the baseline (log: {_listed(samples_of(new)) or 'none'}; "
                        f"baseline: {_listed(baseline.samples)}): nothing to compare; gate a run of the baseline's "
                        "gold set, or give its baseline with --baseline")
    recorded = set(new) | set(baseline.values)
    if config is not None and not any(m in recorded for m in expand_rules(config.metrics, recorded)):
        raise GateError(f"none of the gated metrics ({_listed(list(config.metrics))}) is in the log or the baseline: "
                        "nothing to compare; check the gate config")
    return shared


def degraded_reasons(log: EvalLog, statuses: list[str | None]) -> list[str]:
    """Why a run is no fair baseline: samples that failed, reviews that were deferred or failed
    (every reviewer's call went wrong)."""
    reasons = []
    errors = [str(s.id) for s in log.samples or [] if s.error]
    if errors:
        reasons.append(f"{len(errors)} sample(s) failed ({_listed(errors)})")
    bad = [s for s in statuses if s in ("deferred", "failed")]
    if bad:
        reasons.append(f"{len(bad)} of {len(statuses)} review(s) {'/'.join(sorted(set(bad)))}")
    return reasons


class BaselineChange(BaseModel):
    """What `write_baseline` did: the new baseline and the one it replaced (None: a new file)."""

    written: Baseline
    replaced: Baseline | None = None

    def lines(self, path: Path, log_name: str) -> list[str]:
        new = self.written
        out = [f"wrote {path} from {log_name}: {len(new.values)} metrics, {len(new.samples)} samples, "
               f"{new.epochs} epoch(s)"]
        old = self.replaced
        if old is None:
            return out + [f"  per-finding outcomes: {_outcome_counts(new)}"]
        out.append(f"  replaced the baseline of {old.created} from {old.log}: {len(old.values)} metrics, "
                   f"{len(old.samples)} samples, {old.epochs} epoch(s), task {task_name(old.task)}, model {old.model}")
        for metric in sorted(set(old.values) | set(new.values)):
            before, after = _metric_mean(old.values.get(metric)), _metric_mean(new.values.get(metric))
            if before != after:
                out.append(f"  {metric}: {_fmt(before)} -> {_fmt(after)}")
        if old.findings is None or new.findings is None:
            out.append(f"  per-finding outcomes: {_outcome_counts(new)}; the replaced baseline had "
                       + ("none" if old.findings is None else _outcome_counts(old)))
        else:
            moved = ratchet(old.findings, new.findings, baseline_name=path.stem)
            if moved.lost or moved.gained or moved.other_lost or moved.other_gained:
                out += ["  " + line for line in moved.lines()]
        gone, added = old.samples - new.samples, new.samples - old.samples
        if gone:
            out.append(f"  samples no longer in the baseline: {_listed(gone)}")
        if added:
            out.append(f"  new samples: {_listed(added)}")
        return out


def _outcome_counts(baseline: Baseline) -> str:
    if baseline.findings is None:
        return "none (the log records none: a run of an older version)"
    outcomes = [o for case in baseline.findings.values() for o in case.values()]
    must = [o for o in outcomes if o.must_catch]
    return (f"{len(baseline.findings)} case(s), {len(outcomes)} gold finding(s) ({sum(o.matched for o in outcomes)} "
            f"caught), {len(must)} must-catch ({sum(o.matched for o in must)} caught)")


def _metric_mean(values: dict[str, float | None] | None) -> float | None:
    if not values:
        return None
    return _mean([v for v in values.values() if v is not None])


def write_baseline(log: EvalLog, log_path: str, path: Path, **options: Any) -> Baseline:
    """The baseline of `log`, written to `path` (see `replace_baseline` for the options)."""
    return replace_baseline(log, log_path, path, **options).written


def replace_baseline(log: EvalLog, log_path: str, path: Path, *, statuses: list[str | None] | None = None,
                     config: GateConfig | None = None, accepted: list[AcceptedLoss] | None = None,
                     allow_fewer_samples: bool = False, allow_task_change: bool = False,
                     allow_degraded: bool = False) -> BaselineChange:
    """Write the baseline of `log` to `path`, only on purpose: see the module docstring. `statuses`
    are the log's review statuses; `config` the tolerances the replaced baseline is gated with;
    `accepted` the reviewed losses (a must-catch finding lost otherwise refuses the run)."""
    name = Path(log_path).name
    if log.status != "success":
        raise GateError(f"{log_path}: log status is '{log.status}'; a baseline must come from a successful run")
    values = sample_values(log)
    if not values:
        raise GateError(f"{name}: no per-sample values to record (no sample was scored); a baseline needs a gold-set run")
    baseline = Baseline(
        created=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        log=name,
        task=log.eval.task,
        model=log.eval.model,
        epochs=log.eval.config.epochs or 1,
        values=values,
        findings=run_outcomes(log),
    )
    reasons = degraded_reasons(log, statuses or [])
    if reasons and not allow_degraded:
        raise GateError(f"{name}: a degraded run ({'; '.join(reasons)}) is no baseline; "
                        f"{path} was left as it is (--allow-degraded records it all the same)")
    old = _replaced_baseline(path)
    if old is not None:
        if task_name(old.task) != task_name(baseline.task) and not allow_task_change:
            raise GateError(f"{path} is the baseline of {task_name(old.task)} and {name} a log of "
                            f"{task_name(baseline.task)}: not replaced (give another --baseline, or --allow-task-change)")
        gone = old.samples - baseline.samples
        if gone and not allow_fewer_samples:
            raise GateError(f"{name} has {len(baseline.samples)} samples, {path} {len(old.samples)}: "
                            f"{len(gone)} would no longer be gated ({_listed(gone)}); not replaced "
                            "(run the whole gold set, or --allow-fewer-samples)")
        if config is not None and task_name(old.task) == task_name(baseline.task) and not allow_degraded:
            result = compare(log, old, config, require_overlap=False, missing_fails=False)
            worse = [r for r in result.results if not r.passed and r.difference is not None]
            if worse:
                moves = ", ".join(f"{r.metric} {_fmt(r.baseline)} -> {_fmt(r.new)}" for r in worse)
                raise GateError(f"{name} is worse than {path} ({moves}): not replaced (fix the regression, or "
                                "--allow-degraded to lower the bar on purpose)")
        if task_name(old.task) == task_name(baseline.task) and not allow_degraded:
            lost = ratchet(old.findings, baseline.findings, baseline_name=path.stem, accepted=accepted or []).failing
            if lost:
                raise GateError(f"{name} lost {len(lost)} must-catch finding(s) {path} caught "
                                f"({_listed([c.label() for c in lost], 3)}): not replaced (fix the regression, "
                                f"accept the loss with a reason in {ACCEPTED_LOSSES}, or --allow-degraded)")
    write_atomic(path, json.dumps(baseline.model_dump(), indent=1, sort_keys=True) + "\n")
    return BaselineChange(written=baseline, replaced=old)


def _replaced_baseline(path: Path) -> Baseline | None:
    """The baseline `path` holds now (None: no file). A file that is not a readable baseline is
    never replaced: it may be anything the user put there."""
    problem = file_problem(path)
    if problem == "no such file":
        return None
    try:
        return load_baseline(path)
    except GateError as ex:
        raise GateError(f"{ex}; it is not replaced (move it away, or give another --baseline)") from None


def load_baseline(path: Path) -> Baseline:
    """A baseline file, read by the core's one reader; anything wrong is one line naming it."""
    if file_problem(path) == "no such file":
        raise GateError(f"{path}: baseline not found (write one with --write-baseline LOG)")
    raw = read_json(path, GateError, label="baseline")
    if not isinstance(raw, dict):
        raise GateError(f"{path}: not a gate baseline (expected a JSON object)")
    try:
        return Baseline.model_validate(raw)
    except ValidationError as ex:
        where, message, _ = first_error(ex)
        raise GateError(f"{path}: not a gate baseline ({where}: {message})") from None


def load_config(path: Path) -> GateConfig:
    """The gate's tolerances (YAML), read by the core's one reader; anything wrong is one line."""
    if file_problem(path) == "no such file":
        raise GateError(f"{path}: gate config not found")
    raw = read_mapping(path, GateError, label="gate config", expected="a mapping with 'metrics:'")
    try:
        return GateConfig.model_validate(raw)
    except ValidationError as ex:
        raise GateError(invalid_message(f"gate config {path}", ex)) from None


def _mean(values: list[float]) -> float | None:
    """The mean, exactly rounded whatever the order of the values (a baseline file lists its
    samples sorted, a log in run order: the same figures must compare equal)."""
    return math.fsum(values) / len(values) if values else None


def compare(log: EvalLog, baseline: Baseline, config: GateConfig, *, require_overlap: bool = True,
            missing_fails: bool = True, accepted: list[AcceptedLoss] | None = None,
            baseline_name: str = "baseline") -> GateResult:
    """Every metric of `config`, new log against baseline, then its floors and the ratchet (with
    the `accepted` losses; `baseline_name` is the baseline file's name without .json). No shared
    sample is a `GateError` (unless `require_overlap` is off: the figures are then all missing);
    a baseline sample the log lacks fails its metrics (unless `missing_fails` is off: only the
    shared samples count)."""
    compared = check_overlap(log, baseline, config) if require_overlap else sorted(
        samples_of(sample_values(log)) & baseline.samples)
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
        if missing and missing_fails:
            passed = False
        results.append(MetricResult(metric=metric, baseline=b, new=n, difference=difference,
                                    ci_low=low, ci_high=high, tolerance=rule.tolerance,
                                    higher_is_better=rule.higher_is_better, passed=passed, note=note))
    missing = sorted(baseline.samples - samples_of(new_values))
    floors = check_floors(new_values, config.floors)
    held = ratchet(baseline.findings, run_outcomes(log), baseline_name=baseline_name, accepted=accepted or [])
    passed = (not problems and all(r.passed for r in results) and all(f.passed for f in floors)
              and not held.failing)
    return GateResult(passed=passed, problems=problems, results=results, floors=floors, ratchet=held,
                      compared=compared, missing=missing)


def check_floors(values: dict[str, dict[str, float | None]], floors: dict[str, float]) -> list[FloorResult]:
    """Each floor against the run's mean over its samples (a metric no sample has is under it)."""
    out = []
    for metric, floor in floors.items():
        value = _metric_mean(values.get(metric))
        out.append(FloorResult(metric=metric, value=value, floor=floor,
                               passed=value is not None and value >= floor - RECORDING_NOISE))
    return out


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
    failed += [f"{f.metric} under its floor" for f in result.floors if not f.passed]
    lost = result.ratchet.failing if result.ratchet is not None else []
    if lost:
        failed.append(f"{len(lost)} must-catch finding(s) lost")
    verdict = "PASS" if result.passed else "FAIL: " + ", ".join(
        (["log status"] if result.problems else []) + failed
    )
    counted = f"compared {len(result.compared)} sample(s)"
    if result.missing:
        counted += f"; {len(result.missing)} baseline sample(s) missing from the log: {_listed(result.missing)}"
    extra = [f.line() for f in result.floors] + (result.ratchet.lines() if result.ratchet is not None else [])
    return "\n".join(lines + [""] + extra + [counted, f"gate: {verdict}"])


# ---------------------------------------------------------------------------- the command


def gate_config_for(baseline: Path) -> Path:
    """Tolerances beside the baseline: <name>.gate.yaml, else the shared gate.yaml; a baseline of
    a user's own set with neither beside it takes the project's tolerances of its kind."""
    from review_harness.core.paths import BASELINES_DIR

    own = baseline.with_name(f"{baseline.stem}.gate.yaml")
    if own.exists():
        return own
    shared = baseline.parent / "gate.yaml"
    if shared.exists() or baseline.parent.resolve() == BASELINES_DIR.resolve():
        return shared
    kinds = BASELINES_DIR / f"{baseline.stem}.gate.yaml"
    return kinds if kinds.exists() else BASELINES_DIR / "gate.yaml"


def accepted_losses_for(baseline: Path) -> Path:
    """The reviewed accepted losses beside the baseline (one file for every baseline of the folder)."""
    return baseline.parent / ACCEPTED_LOSSES


def default_baseline(run: EvalLog, baselines: Path) -> Path:
    """The committed baseline of the log's kind: <baselines>/<task>.json; a run over another fixture
    set of the project than the kind's own (`-T fixtures=domain/search`) has its own,
    <task>.<set>.json (slashes as dashes), so one kind can gate several gold sets. A run over a
    user's own set (`-T fixtures=PATH`, recorded as an absolute path) keeps its baseline beside
    that set, <set>/baselines/<task>.json: never in the project's checkout."""
    from review_harness.core.kinds import kind_of_log

    kind = kind_of_log(run)
    fixtures = (run.eval.task_args or {}).get("fixtures")
    if fixtures and Path(str(fixtures)).is_absolute():
        return Path(str(fixtures)) / USER_SET_BASELINES / f"{kind.task}.json"
    if fixtures and str(fixtures) != kind.name:
        return baselines / f"{kind.task}.{str(fixtures).replace('/', '-')}.json"
    return baselines / f"{kind.task}.json"


def run_gate(log: str | None, baseline: str | None, config: str | None, write: str | None,
             allow_fewer_samples: bool = False, allow_task_change: bool = False, allow_degraded: bool = False) -> int:
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
            config_path = Path(config) if config else gate_config_for(baseline_path)
            rules = load_config(config_path) if config or file_problem(config_path) is None else None
            statuses = [getattr(review, "status", None) for _, _, review in reviews_in_log(run)]
            accepted = load_accepted(accepted_losses_for(baseline_path), GateError)
            change = replace_baseline(run, str(log_path), baseline_path, statuses=statuses, config=rules,
                                      accepted=accepted, allow_fewer_samples=allow_fewer_samples,
                                      allow_task_change=allow_task_change, allow_degraded=allow_degraded)
            print("\n".join(change.lines(baseline_path, log_path.name)))
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
        accepted = load_accepted(accepted_losses_for(baseline_path), GateError)
        try:
            result = compare(run, the_baseline, rules, accepted=accepted, baseline_name=baseline_path.stem)
        except GateError as ex:
            raise GateError(f"{log_path.name} against {baseline_path}: {ex}") from None
    print(f"gate: {log_path.name} against {baseline_path}")
    print(render_table(result))
    return 0 if result.passed else 1
