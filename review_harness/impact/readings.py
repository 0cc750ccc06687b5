"""One reading of an impact artifact, which every check queries: its numbers under the checks
table's names (with the rounding each carries and the name the artifact used), its diagnostics by
meaning (a name means what the method says it means: a synthetic control's placebo p-value is its
permutation inference), the diagnostics the table does not understand, the declared interval
level, its time structure (a frequency stated, inferred from the dates, a period of its own name,
or unknown) and the basis its percent change is stated against. No Inspect import."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

from review_harness.impact.artifact import COUNTS, date_grain, decimals, parse_date
from review_harness.impact.models import ImpactArtifact
from review_harness.impact.table import ChecksTable, ModelType, fold_name
from review_harness.impact.words import Said, read_words

# diagnostic families whose sub-keys are data the checks read or describe (besides the table's)
FAMILIES = ("balance", "covariate_balance", "donor_weights", "first_stage", "placebo", "event_study", "residuals",
            "permutation", "in_space_placebo", "in_time_placebo", "sample_ratio_mismatch", "srm")
TimeStatus = Literal["stated", "inferred", "named", "unknown"]


@dataclass(frozen=True)
class Diagnosed:
    """A diagnostic the artifact reports, read by its meaning in the table."""

    meaning: str
    value: float | None  # None: reported, but not as a number
    name: str  # as the artifact wrote it
    raw: Any = None


@dataclass(frozen=True)
class Time:
    """The artifact's time grain: a calendar frequency (stated or inferred), periods of its own
    name, or unknown."""

    status: TimeStatus
    label: str
    frequency: str | None = None  # the table's calendar name
    days: float | None = None
    season: int | None = None
    short_season: int | None = None
    given: str | None = None  # what the artifact said, when it said anything


@dataclass
class Reading:
    artifact: ImpactArtifact
    table: ChecksTable
    spec: ModelType
    resolved: str | None
    values: dict[str, float] = field(default_factory=dict)
    halves: dict[str, float] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)  # value key -> the name as written
    diagnostics: dict[str, Diagnosed] = field(default_factory=dict)
    unknown: list[str] = field(default_factory=list)  # numeric diagnostics not understood: 'name = value'
    described: list[str] = field(default_factory=list)  # diagnostics given in words
    ci_level: float = 0.95
    ci_level_from: str | None = None
    time: Time = field(default_factory=lambda: Time("unknown", "unknown"))
    basis: str | None = None  # 'baseline' | 'counterfactual' when the artifact states one
    basis_given: str | None = None
    said: dict[str, list[Said]] = field(default_factory=dict)  # what the words establish, by meaning
    instructions: list[Said] = field(default_factory=list)  # text addressed to the reviewer: data, not read
    variant: str | None = None  # the design variant the words or numbers establish ('fuzzy')

    @property
    def method(self) -> str:
        return self.resolved or self.artifact.model_type

    def has(self, *names: str) -> bool:
        return all(n in self.values for n in names)

    def get(self, name: str) -> float | None:
        return self.values.get(name)

    def written(self, name: str) -> str:
        """The artifact's own name of a value ('std_error' for standard_error)."""
        return self.artifact.written_as.get(name) or self.names.get(name, name)

    def diagnostic(self, meaning: str) -> Diagnosed | None:
        return self.diagnostics.get(meaning)


def _half(value: float, places: int | None) -> float:
    return 0.5 * 10 ** -(decimals(value) if places is None else places)


def _sections(artifact: ImpactArtifact) -> list[tuple[str, dict[str, Any]]]:
    return [("model_params", artifact.model_params), ("diagnostics", artifact.diagnostics),
            ("model_summary", artifact.model_summary), ("impact_estimates", artifact.impact_estimates)]


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def _values(reading: Reading) -> None:
    """Numbers of every section under their names and the table's canonical names (a later
    section wins: estimates over the summary over diagnostics over parameters)."""
    artifact, table = reading.artifact, reading.table
    for section, part in _sections(artifact):
        for key, raw in part.items():
            value = _number(raw)
            if value is None:
                continue
            canonical = table.canonical_field(key) if section != "diagnostics" else None
            for name in dict.fromkeys([key, canonical or key]):
                if name != key and name in part:
                    continue  # the canonical name is given itself
                reading.values[name] = value
                reading.names[name] = key
                exact = key in COUNTS or (canonical in COUNTS)
                reading.halves[name] = 0.0 if exact else _half(value, artifact.precision.get(key))


def _fit_error(reading: Reading) -> None:
    """`pre_rmspe`: the model's pre-period fit error under any of its names, or the root of a
    reported mean squared error (`pre_mspe`), said as such."""
    fits, values = reading.table.fit_errors, reading.values
    folded = {fold_name(k): k for k in values}
    for name in fits["pre_rmspe"]:
        key = folded.get(fold_name(name))
        if key is not None:
            values.setdefault("pre_rmspe", values[key])
            reading.names.setdefault("pre_rmspe", key)
            return
    for name in fits["pre_mspe"]:
        key = folded.get(fold_name(name))
        if key is not None and values[key] >= 0:
            values["pre_rmspe"] = math.sqrt(values[key])
            reading.names["pre_rmspe"] = f"the square root of {key} {values[key]:g}"
            reading.halves["pre_rmspe"] = 0.0
            return


def _level(reading: Reading) -> None:
    values = reading.values
    level = values.get("ci_level")
    if level is not None and level > 1:
        level = level / 100
    if level is not None and 0 < level < 1:
        reading.ci_level, reading.ci_level_from = level, f"{reading.written('ci_level')} {level:g}"
        return
    alpha = values.get("alpha")
    if alpha is not None and 0 < alpha < 0.5:
        reading.ci_level, reading.ci_level_from = 1 - alpha, f"{reading.written('alpha')} {alpha:g}"
        return
    reading.ci_level = reading.table.ci_level


@dataclass(frozen=True)
class _Names:
    """The table's names, folded once per table: diagnostics by meaning, names known to carry no
    pass/fail, and the families whose sub-keys are data."""

    index: dict[str, str]
    known: frozenset[str]
    families: frozenset[str]


_NAMES: dict[int, tuple[ChecksTable, _Names]] = {}


def _names(table: ChecksTable) -> _Names:
    cached = _NAMES.get(id(table))
    if cached is not None and cached[0] is table:
        return cached[1]
    index = {n: meaning for meaning, d in table.diagnostics.items() for n in d.folded_names}
    known = {fold_name(n) for n in [*table.known_names, *table.describing_names]}
    known |= {fold_name(n) for names in table.fit_errors.values() for n in names}
    known |= {fold_name(k) for k in table.fields} | {fold_name(n) for names in table.fields.values() for n in names}
    families = {fold_name(f) for f in FAMILIES}
    for d in table.diagnostics.values():
        families |= {fold_name(n.rsplit(".", 1)[0]) for n in d.names if "." in n}
    names = _Names(index, frozenset(known), frozenset(families))
    if len(_NAMES) > 16:
        _NAMES.clear()
    _NAMES[id(table)] = (table, names)
    return names


def _diagnostics(reading: Reading) -> None:
    table, artifact = reading.table, reading.artifact
    names = _names(table)
    index = {**names.index, **{fold_name(name): meaning for name, meaning in reading.spec.read_as.items()}}
    known, families = names.known, names.families
    for section, part in _sections(artifact):
        for key, raw in part.items():
            folded = fold_name(key)
            meaning = index.get(folded)
            if meaning is not None:
                if meaning not in reading.diagnostics:
                    reading.diagnostics[meaning] = Diagnosed(meaning, _number(raw), key, raw)
                continue
            if section != "diagnostics":
                continue
            head, _, leaf = key.rpartition(".")
            if folded in known or (head and fold_name(head.split(".")[0]) in families
                                   and (fold_name(leaf) in known or fold_name(head.split(".")[0]) in
                                        ("balance", "covariate_balance", "donor_weights"))):
                continue
            if _number(raw) is not None:
                reading.unknown.append(f"{key} = {raw:g}")
            elif raw not in (None, "", [], {}):
                reading.described.append(key)


def _bounds(value: Any) -> tuple[Any, Any] | None:
    """A period given as [start, end] or {start, end}."""
    if isinstance(value, (list, tuple)) and len(value) == 2:
        return value[0], value[1]
    if isinstance(value, dict):
        start = value.get("start", value.get("from"))
        end = value.get("end", value.get("to"))
        if start is not None and end is not None:
            return start, end
    return None


def _nearest(days_per_period: float, table: ChecksTable) -> str | None:
    best = min(table.frequencies.items(), key=lambda kv: abs(math.log(kv[1].days / days_per_period)))
    return best[0] if abs(math.log(best[1].days / days_per_period)) <= math.log(1.3) else None


def _infer(reading: Reading) -> Time | None:
    """A calendar frequency from the pre- or post-period's dates and its number of periods."""
    params, table = reading.artifact.model_params, reading.table
    for part, length in (("pre_period", "pre_period_length"), ("post_period", "post_period_length")):
        bounds = _bounds(params.get(part))
        if bounds is None:
            continue
        grains = {date_grain(b) for b in bounds}
        if None in grains or len(grains) != 1:
            continue
        grain = grains.pop()
        try:
            start, end = (parse_date("", part, str(b)) for b in bounds)
        except ValueError:
            continue
        n = reading.get(length)
        shown = f"{part} {bounds[0]} to {bounds[1]}"
        if n:
            if grain == "year":
                span = (end.year - start.year + 1) * 365.25
            elif grain == "month":
                span = ((end.year - start.year) * 12 + end.month - start.month + 1) * 30.4375
            else:
                span = (end - start).days + 1
            name = _nearest(span / n, table)
            how = f"{shown} over {n:g} periods"
        else:
            name = {"year": "annual", "month": "monthly"}.get(grain)
            how = f"{shown}, written in {grain}s"
        if name:
            freq = table.frequencies[name]
            return Time("inferred", f"{name} (inferred from {how})", name, freq.days, freq.season, freq.short_season)
    return None


def _time(reading: Reading) -> None:
    given = reading.artifact.model_params.get("frequency")
    table = reading.table
    if isinstance(given, str) and given.strip():
        name = table.frequency(given)
        if name:
            freq = table.frequencies[name]
            reading.time = Time("stated", name if fold_name(given) == name else f"{name} (stated as {given!r})",
                                name, freq.days, freq.season, freq.short_season, given)
        else:
            reading.time = Time("named", f"periods named {given!r} (not a calendar frequency)", given=given)
        return
    inferred = _infer(reading)
    reading.time = inferred or Time("unknown", "unknown (not reported, and no dated periods to infer it from)")


FUZZY = "fuzzy_regression_discontinuity"


def _variant(reading: Reading) -> None:
    """A discontinuity labelled plainly is fuzzy when its words say so or it reports the jump in
    the probability of treatment: it is then checked as the fuzzy design (a Wald ratio at the
    cutoff), never asked for the sharp design's identity."""
    table = reading.table
    if reading.resolved != "regression_discontinuity" or FUZZY not in table.model_types:
        return
    said = [s for s in reading.said.get("design", []) if s.what == "fuzzy"]
    if said or "treatment_jump" in reading.values:
        reading.variant = "fuzzy"
        reading.resolved, reading.spec = FUZZY, table.model_types[FUZZY]


def read(artifact: ImpactArtifact, table: ChecksTable) -> Reading:
    reading = Reading(artifact, table, table.spec(artifact.model_type), table.resolve(artifact.model_type))
    reading.said, reading.instructions = read_words(artifact, table)
    _values(reading)
    _fit_error(reading)
    _level(reading)
    _diagnostics(reading)
    _time(reading)
    _variant(reading)
    given = artifact.model_params.get("percent_change_basis")
    if isinstance(given, str) and given.strip():
        reading.basis_given = given.strip()
        reading.basis = table.basis(given)
    return reading
