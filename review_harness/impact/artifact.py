"""What the measure stage produces, read into one ImpactArtifact, and serialised as the readable
``artifact_text`` block the reviewer gets (which the offline reviewer reads back).

Three shapes are accepted, told apart by their keys:

* the ``impact_results.json`` envelope (``data``): ``schema_version``, ``model_type``,
  ``data.model_params`` / ``impact_estimates`` / ``model_summary`` / ``diagnostics``, ``metadata``;
* the orchestrator's flat Measure -> Evaluate contract (``effect_estimate``): ``initiative_id``,
  ``effect_estimate``, ``ci_lower``, ``ci_upper``, ``p_value``, ``sample_size``, ``model_type``,
  ``diagnostics``;
* an ``ArtifactPayload`` (``artifact_text``): the serialised results, read as JSON of either shape
  above, as this module's own block, or as ``name: value`` lines; its other fields fill the gaps.

Where the contract's fields live in the envelope:

| contract field   | envelope field                                                |
|------------------|---------------------------------------------------------------|
| initiative_id    | metadata.initiative_id (missing: the file name, with a note)  |
| effect_estimate  | data.impact_estimates.intervention_effect (or effect_estimate)|
| ci_lower/upper   | data.impact_estimates.ci_lower / ci_upper                     |
| p_value          | data.impact_estimates.p_value                                 |
| sample_size      | data.model_summary.n_observations                             |
| model_type       | model_type                                                    |
| diagnostics      | data.diagnostics (nested ones as dotted names) + fit stats    |

Numbers are read under the names tools use for them (`std_error`, `nobs`, `AbsEffect.lower`; the
checks table's `fields`), renamed to the table's name with a note. How many decimals each number
was written with is kept (`precision`), so the checks know what rounding explains.

Only the model type and an effect estimate are required: a missing interval, p-value, sample
size, diagnostics, date or initiative id is noted and reviewed ("no uncertainty is reported"). A
value of the wrong type (a string where a number belongs, a date that is not a date) is an error,
one line naming the file and the field and quoting at most a short prefix of the value. Dates may
be a year (`1979`), a month (`1992-04`) or a day.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from review_harness.core.text import short_value
from review_harness.core.files import FileReadError, read_text
from review_harness.impact.models import ArtifactPayload, ImpactArtifact, MeasureContract
from review_harness.impact.table import ChecksTable, default_table

SCHEMA_VERSION = "2.0"
EFFECT_FIELDS = ("intervention_effect", "effect_estimate")  # the estimate, by either name
COUNTS = ("n_observations", "pre_period_length", "post_period_length", "treatment_n", "control_n", "n_units",
          "n_treated_units", "n_control_units", "n_donors", "n_placebos")
TEXT_ESTIMATES = ("percent_change_basis",)  # text that may sit among the estimates (moved to model_params)
CONTRACT_FIELDS = ("initiative_id", "effect_estimate", "ci_lower", "ci_upper", "p_value", "sample_size",
                   "model_type", "diagnostics")
TEXT_OPEN = "=== impact_results.json ==="
TEXT_CLOSE = "=== end of impact_results.json ==="
NOT_REPORTED = "(not reported)"


class ArtifactError(ValueError):
    """An artifact that cannot be reviewed: ``<file>: <field>: <problem>`` on one line."""


class Written(float):
    """A number as the file wrote it: its value, and its text (`0.0000` keeps four decimals)."""

    text: str

    def __new__(cls, text: str) -> "Written":
        number = super().__new__(cls, text)
        number.text = text
        return number


def decimals(value: Any) -> int:
    """Decimals a number was written with: 20.44 -> 2, 1.8e-06 -> 7, 12 -> 0."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return 0
    if isinstance(value, int):
        return 0
    text = getattr(value, "text", None) or repr(float(value))
    mantissa, _, exponent = text.lower().partition("e")
    places = len(mantissa.partition(".")[2])
    return max(0, places - int(exponent or 0))


def _precision(section: Mapping[str, Any], prefix: str = "") -> dict[str, int]:
    """Decimals of every number of a section (nested objects as dotted names)."""
    out: dict[str, int] = {}
    for key, value in section.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            out.update(_precision(value, f"{name}."))
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            out[name] = decimals(value)
    return out


def _canonical(raw: Mapping[str, Any], table: ChecksTable, notes: list[str], where: str,
               written_as: dict[str, str] | None = None) -> dict[str, Any]:
    """A section's keys under the table's names for them (`std_error` -> `standard_error`); a key
    whose canonical name is also given keeps its own name. `written_as` collects canonical ->
    the name as written, for messages that quote the artifact."""
    out: dict[str, Any] = {}
    renamed: list[str] = []
    for key, value in raw.items():
        canonical = table.canonical_field(key)
        if canonical and canonical != key and canonical not in raw and canonical not in out:
            out[canonical] = value
            if written_as is not None:
                written_as[canonical] = key
            if key not in CONTRACT_FIELDS:  # the contract's own names need no note
                renamed.append(f"{key} as {canonical}")
        else:
            out[key] = value
    if renamed:
        notes.append(f"{where}: read " + ", ".join(renamed))
    return out


def _fail(source: str, field: str, problem: str) -> ArtifactError:
    return ArtifactError(f"{source}: {field}: {problem}")


def _shown(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, str):
        return f"the string {short_value(value)}"
    return f"{type(value).__name__} {short_value(value)}"


def _number(source: str, field: str, value: Any, *, integer: bool = False) -> float | int:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _fail(source, field, f"expected a number, got {_shown(value)}")
    if isinstance(value, float) and not math.isfinite(value):
        raise _fail(source, field, f"expected a finite number, got {value}")
    if integer:
        if isinstance(value, float) and not value.is_integer():
            raise _fail(source, field, f"expected a whole number of observations, got {value}")
        if value < 0:
            raise _fail(source, field, f"expected a non-negative count, got {value}")
        return int(value)
    return float(value)


def _object(source: str, field: str, value: Any, notes: list[str] | None = None) -> dict:
    """An object; a missing one is an empty object (with a note when `notes` is given)."""
    if value is None:
        if notes is not None:
            notes.append(f"{field}: not reported")
        return {}
    if not isinstance(value, dict):
        raise _fail(source, field, f"expected an object, got {_shown(value)}")
    return value


def _timestamp(source: str, field: str, value: Any) -> dt.datetime:
    if not isinstance(value, str):
        raise _fail(source, field, f"expected an ISO-8601 timestamp, got {_shown(value)}")
    try:
        stamp = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise _fail(source, field, f"not an ISO-8601 timestamp: {short_value(value)}") from None
    return stamp if stamp.tzinfo else stamp.replace(tzinfo=dt.timezone.utc)


PARTIAL_DATE = re.compile(r"^\s*(\d{4})(?:-(\d{1,2}))?(?:-(\d{1,2}))?")


def date_grain(value: Any) -> str | None:
    """'year', 'month' or 'day': how precisely a date is written (None: not a date)."""
    match = PARTIAL_DATE.match(str(value)) if isinstance(value, (str, int)) and not isinstance(value, bool) else None
    if match is None:
        return None
    return "day" if match.group(3) else ("month" if match.group(2) else "year")


def parse_date(source: str, field: str, value: Any) -> dt.date:
    """An ISO date, or a year (`1979`) or month (`1992-04`), read as its first day."""
    if isinstance(value, int) and not isinstance(value, bool) and 1000 <= value <= 9999:
        value = str(value)
    if not isinstance(value, str):
        raise _fail(source, field, f"expected an ISO date (YYYY-MM-DD, YYYY-MM or YYYY), got {_shown(value)}")
    match = PARTIAL_DATE.match(value)
    try:
        if match is None:
            raise ValueError
        year, month, day = (int(g) if g else 1 for g in match.groups())
        return dt.date(year, month, day)
    except ValueError:
        raise _fail(source, field, f"not an ISO date: {short_value(value)}") from None


def _model_type(source: str, field: str, value: Any) -> str:
    if value is None:
        raise _fail(source, field, "missing required field (the review needs the method)")
    if not isinstance(value, str) or not value.strip():
        raise _fail(source, field, f"expected the name of the method, got {_shown(value)}")
    return value.strip()


def flatten(source: str, field: str, value: Any, notes: list[str], prefix: str = "") -> dict[str, Any]:
    """Diagnostics, nested objects as dotted names (`placebo.p_value`); a number that is not
    finite is dropped with a note; text, flags and lists are kept as they are."""
    out: dict[str, Any] = {}
    for key, item in _object(source, field, value).items():
        name = f"{prefix}{key}"
        if isinstance(item, dict):
            out.update(flatten(source, f"{field}.{key}", item, notes, prefix=f"{name}."))
        elif isinstance(item, float) and not math.isfinite(item):
            notes.append(f"{field}.{key}: {item} is not a finite number; ignored")
        else:
            out[name] = item
    return out


def _field(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


def _estimates(source: str, prefix: str, raw: dict, params: dict | None = None) -> dict[str, float | None]:
    out: dict[str, float | None] = {}
    for name, value in raw.items():
        if name in TEXT_ESTIMATES and isinstance(value, str) and params is not None:
            params.setdefault(name, value)
            continue
        out[name] = None if value is None else _number(source, _field(prefix, name), value)
    if out.get("intervention_effect") is None and out.get("effect_estimate") is not None:
        out["intervention_effect"] = out["effect_estimate"]
    out.pop("effect_estimate", None)
    return out


def _summary(source: str, prefix: str, raw: dict) -> dict[str, float | int | None]:
    out: dict[str, float | int | None] = {}
    for name, value in raw.items():
        counted = name in COUNTS or name == "sample_size"
        out[name] = None if value is None else _number(source, _field(prefix, name), value, integer=counted)
    if "sample_size" in out:  # the contract's name for the number of observations
        out["n_observations"] = out.pop("sample_size")
    return out


def _initiative(source: str, field: str, value: Any, notes: list[str]) -> str:
    if isinstance(value, str) and value.strip():
        return value.strip()
    if value is not None and not isinstance(value, str):
        raise _fail(source, field, f"expected a string, got {_shown(value)}")
    derived = Path(source).stem or "artifact"
    notes.append(f"{field}: not reported; the review calls it {derived!r} (the file name)")
    return derived


def _finish(source: str, shape: str, model_type: str, *, schema_version: str | None, executed: Any,
            executed_field: str, params: dict, estimates: dict, summary: dict, diagnostics: dict, meta: dict,
            initiative_id: str, notes: list[str], table: ChecksTable, precision: dict[str, int],
            written_as: dict[str, str] | None = None, text: str | None = None) -> ImpactArtifact:
    """Shared by the shapes: the checks of values every shape has, and the contract."""
    if estimates.get("intervention_effect") is None:
        raise _fail(source, "effect estimate", "missing required field (intervention_effect or effect_estimate)")
    p = estimates.get("p_value")
    if p is not None and not 0 <= p <= 1:
        raise _fail(source, "p_value", f"must be between 0 and 1, got {p}")
    for name in ("ci_lower", "ci_upper"):
        estimates.setdefault(name, None)
    estimates.setdefault("p_value", None)
    if estimates["ci_lower"] is None or estimates["ci_upper"] is None:
        notes.append("ci_lower / ci_upper: not reported")
    if p is None:
        notes.append("p_value: not reported")
    executed_at = None
    if executed is None:
        notes.append(f"{executed_field}: not reported; the timing of the analysis cannot be checked")
    else:
        executed_at = _timestamp(source, executed_field, executed).isoformat()
    if "intervention_date" in params and params["intervention_date"] is not None:
        parse_date(source, "model_params.intervention_date", params["intervention_date"])
    frequency = params.get("frequency")
    if frequency is not None and (not isinstance(frequency, str) or not frequency.strip()):
        raise _fail(source, "model_params.frequency", f"expected the name of a frequency (daily, weekly, monthly, "
                    f"quarterly, annual, or periods of your own name), got {_shown(frequency)}")
    n = summary.get("n_observations")
    if n is None:
        notes.append("n_observations / sample_size: not reported")
    fit_stats = {k: v for k, v in summary.items() if k not in COUNTS and v is not None}
    contract = MeasureContract(
        initiative_id=initiative_id, effect_estimate=estimates["intervention_effect"],  # type: ignore[arg-type]
        ci_lower=estimates["ci_lower"], ci_upper=estimates["ci_upper"], p_value=estimates["p_value"],
        sample_size=None if n is None else int(n), model_type=model_type, diagnostics={**fit_stats, **diagnostics},
    )
    return ImpactArtifact(
        source=source, shape=shape, schema_version=schema_version, model_type=model_type,  # type: ignore[arg-type]
        executed_at=executed_at, model_params=dict(params), impact_estimates=estimates, model_summary=summary,
        diagnostics=diagnostics, metadata=dict(meta), contract=contract, notes=notes, text=text,
        precision=precision, written_as=dict(written_as or {}),
    )


def validate_envelope(raw: Any, source: str, table: ChecksTable | None = None) -> ImpactArtifact:
    """The seed's impact_results.json envelope."""
    table = table or default_table()
    if not isinstance(raw, dict):
        raise ArtifactError(f"{source}: expected a JSON object at the top level, got {type(raw).__name__}")
    notes: list[str] = []
    version = raw.get("schema_version")
    if version is None:
        notes.append(f"schema_version: not given; read as the {SCHEMA_VERSION} envelope")
    elif not isinstance(version, (str, int, float)) or str(version).split(".")[0] != SCHEMA_VERSION.split(".")[0]:
        raise _fail(source, "schema_version", f"{short_value(version)} is not supported (expected {SCHEMA_VERSION!r})")
    model_type = _model_type(source, "model_type", raw.get("model_type"))
    data = _object(source, "data", raw.get("data"))
    params = dict(_object(source, "data.model_params", data.get("model_params"), notes))
    written_as: dict[str, str] = {}
    raw_estimates = _canonical(_object(source, "data.impact_estimates", data.get("impact_estimates")), table, notes,
                               "data.impact_estimates", written_as)
    raw_summary = _canonical(_object(source, "data.model_summary", data.get("model_summary"), notes), table, notes,
                             "data.model_summary", written_as)
    estimates = _estimates(source, "data.impact_estimates", raw_estimates, params)
    summary = _summary(source, "data.model_summary", raw_summary)
    meta = _object(source, "metadata", raw.get("metadata"), notes)
    diagnostics = flatten(source, "data.diagnostics", data.get("diagnostics"), notes)
    if data.get("diagnostics") is None:
        notes.append("data.diagnostics: not reported")
    if estimates.get("intervention_effect") is None:
        raise _fail(source, "data.impact_estimates.intervention_effect", "missing required field (the estimate under review)")
    precision = {**_precision(params), **_precision(raw_summary), **_precision(raw_estimates),
                 **_precision(data.get("diagnostics") or {})}
    return _finish(
        source, "envelope", model_type, schema_version=None if version is None else str(version),
        executed=meta.get("executed_at"), executed_field="metadata.executed_at", params=params, estimates=estimates,
        summary=summary, diagnostics=diagnostics, meta=meta,
        initiative_id=_initiative(source, "metadata.initiative_id", meta.get("initiative_id"), notes),
        notes=notes, table=table, precision=precision, written_as=written_as,
    )


def validate_contract(raw: Mapping[str, Any], source: str, table: ChecksTable | None = None,
                      shape: str = "contract", text: str | None = None) -> ImpactArtifact:
    """The flat Measure -> Evaluate contract. Keys beyond the contract are kept where they belong:
    counts in the summary, other numbers as estimates, text as model parameters."""
    table = table or default_table()
    notes: list[str] = []
    model_type = _model_type(source, "model_type", raw.get("model_type"))
    if all(raw.get(k) is None for k in raw if table.canonical_field(k) == "intervention_effect"):
        raise _fail(source, "effect_estimate", "missing required field (the estimate under review)")
    estimates_raw: dict[str, Any] = {}
    summary_raw: dict[str, Any] = {}
    params = dict(_object(source, "model_params", raw.get("model_params")))
    meta = dict(_object(source, "metadata", raw.get("metadata")))
    written_as: dict[str, str] = {}
    raw = _canonical(raw, table, notes, "the contract", written_as)
    for key, value in raw.items():
        if key in ("initiative_id", "model_type", "diagnostics", "model_params", "metadata", "executed_at"):
            continue
        if key == "sample_size" or key in COUNTS:
            summary_raw[key] = value
        elif isinstance(value, str) and key not in ("ci_lower", "ci_upper", "p_value", "effect_estimate"):
            params[key] = value
        elif isinstance(value, (dict, list)):
            meta[key] = value
        else:
            estimates_raw[key] = value
    if raw.get("diagnostics") is None:
        notes.append("diagnostics: not reported")
    precision = {**_precision(params), **_precision(summary_raw), **_precision(estimates_raw),
                 **_precision(raw.get("diagnostics") or {})}
    return _finish(
        source, shape, model_type, schema_version=None, executed=raw.get("executed_at", meta.get("executed_at")),
        executed_field="executed_at", params=params, estimates=_estimates(source, "", estimates_raw, params),
        summary=_summary(source, "", summary_raw), diagnostics=flatten(source, "diagnostics", raw.get("diagnostics"), notes),
        meta=meta, initiative_id=_initiative(source, "initiative_id", raw.get("initiative_id"), notes),
        notes=notes, table=table, precision=precision, written_as=written_as, text=text,
    )


LINE = re.compile(r"^\s*[-*]?\s*([A-Za-z_][A-Za-z0-9_.]*)\s*[:=]\s*(.+?)\s*$")


def _lines(text: str) -> dict[str, Any]:
    """`name: value` (or `name = value`) lines, values read as JSON where they are JSON."""
    out: dict[str, Any] = {}
    for line in text.splitlines():
        match = LINE.match(line)
        if not match:
            continue
        key, value = match.group(1), match.group(2)
        try:
            out[key] = json.loads(value, parse_float=Written)
        except json.JSONDecodeError:
            out[key] = value
    return out


def validate_payload(raw: Mapping[str, Any], source: str, table: ChecksTable | None = None) -> ImpactArtifact:
    """An ArtifactPayload: its artifact_text read as JSON (envelope or contract), as this module's
    block, or as `name: value` lines; initiative_id, model_type and sample_size fill what the
    text lacks (and a disagreement is noted)."""
    table = table or default_table()
    text = raw.get("artifact_text")
    if not isinstance(text, str) or not text.strip():
        raise _fail(source, "artifact_text", "missing required field" if text is None else f"expected the serialised results, got {_shown(text)}")
    meta = _object(source, "metadata", raw.get("metadata"))
    inner: Any = None
    own_text: str | None = None
    try:
        inner = json.loads(text, parse_float=Written)
    except json.JSONDecodeError:
        inner = None
    if isinstance(inner, dict) and "artifact_text" not in inner:
        artifact = read_artifact(inner, f"{source}: artifact_text", table)
    elif TEXT_OPEN in text:
        envelope = envelope_from_text(text)
        artifact = validate_envelope(envelope, f"{source}: artifact_text", table)
    else:
        fields = {**{k: v for k, v in meta.items() if k in CONTRACT_FIELDS}, **_lines(text)}
        for key in ("initiative_id", "model_type", "sample_size"):
            if fields.get(key) is None and raw.get(key) is not None:
                fields[key] = raw[key]
        if fields.get("effect_estimate") is None and fields.get("intervention_effect") is None:
            raise _fail(source, "artifact_text", "no effect estimate found: expected JSON of the envelope or the "
                        "contract, or 'effect_estimate: <number>' lines")
        own_text = text
        artifact = validate_contract(fields, source, table, shape="payload", text=own_text)
    notes = list(artifact.notes)
    updates: dict[str, Any] = {"source": source, "shape": "payload", "text": own_text}
    given_id = raw.get("initiative_id")
    if isinstance(given_id, str) and given_id.strip() and given_id.strip() != artifact.contract.initiative_id:
        if any(n.startswith(("metadata.initiative_id", "initiative_id")) for n in notes):
            notes = [n for n in notes if not n.startswith(("metadata.initiative_id", "initiative_id"))]
        else:
            notes.append(f"initiative_id: the payload says {given_id.strip()!r}, its text {artifact.contract.initiative_id!r}")
        updates["contract"] = artifact.contract.model_copy(update={"initiative_id": given_id.strip()})
    given_type = raw.get("model_type")
    if isinstance(given_type, str) and given_type.strip() and given_type.strip() != artifact.model_type:
        notes.append(f"model_type: the payload says {given_type.strip()!r}, its text {artifact.model_type!r}; "
                     "the text's is reviewed")
    size = raw.get("sample_size")
    if size is not None:
        size = _number(source, "sample_size", size, integer=True)
        if artifact.contract.sample_size is None:
            updates["model_summary"] = {**artifact.model_summary, "n_observations": size}
            updates["contract"] = updates.get("contract", artifact.contract).model_copy(update={"sample_size": size})
            notes = [n for n in notes if not n.startswith("n_observations / sample_size")]
        elif size != artifact.contract.sample_size:
            notes.append(f"sample_size: the payload says {size}, its text {artifact.contract.sample_size}")
    updates["metadata"] = {**meta, **artifact.metadata}
    updates["notes"] = notes
    return artifact.model_copy(update=updates)


def read_artifact(raw: Any, source: str, table: ChecksTable | None = None) -> ImpactArtifact:
    """Any of the three shapes, told apart by their keys."""
    if isinstance(raw, ArtifactPayload):
        raw = raw.model_dump()
    elif isinstance(raw, MeasureContract):
        raw = raw.model_dump()
    if not isinstance(raw, dict):
        raise ArtifactError(f"{source}: expected a JSON object at the top level, got {type(raw).__name__}")
    if "artifact_text" in raw:
        return validate_payload(raw, source, table)
    if "data" in raw or "schema_version" in raw:
        return validate_envelope(raw, source, table)
    table = table or default_table()
    if any(table.canonical_field(key) == "intervention_effect" for key in raw):  # effect_estimate, coef, ATT, ...
        return validate_contract(raw, source, table)
    raise ArtifactError(f"{source}: not impact results: expected the envelope (a 'data' object), the Measure -> "
                        "Evaluate contract ('effect_estimate') or an ArtifactPayload ('artifact_text')")


def load_artifact(path: str | Path, table: ChecksTable | None = None, label: str | None = None) -> ImpactArtifact:
    path = Path(path)
    source = label or str(path)
    try:
        text = read_text(path, source)
    except FileReadError as ex:
        raise ArtifactError(str(ex)) from None
    if not text.strip():
        raise ArtifactError(f"{source}: the file is empty")
    try:
        raw = json.loads(text, parse_float=Written)
    except json.JSONDecodeError as ex:
        raise ArtifactError(f"{source}: not valid JSON ({ex.msg} at line {ex.lineno} column {ex.colno})") from None
    except RecursionError:
        raise ArtifactError(f"{source}: not valid JSON (nested too deeply)") from None
    return read_artifact(raw, source, table)


def artifact_files(path: str | Path) -> list[Path]:
    """A file, or every *.json entry of a folder that is not a folder (sorted; a pipe or device among
    them is named when it is read, never skipped in silence); an empty folder is an error."""
    path = Path(path)
    if not path.exists():
        raise ArtifactError(f"{path}: does not exist")
    if path.is_dir():
        files = sorted(p for p in path.glob("*.json") if not p.is_dir())
        if not files:
            raise ArtifactError(f"{path}: the folder has no *.json impact results")
        return files
    return [path]


# ---------------------------------------------------------------------------------------------
# artifact_text: deterministic, readable, and read back by the offline reviewer

SECTIONS = ("model_params", "impact_estimates", "model_summary", "diagnostics")
LONG_VALUE = 400  # characters of one value shown to the reviewer; longer ones are cut
KEY = re.compile(r"[^A-Za-z0-9_.\-]+")


def _show(value: Any) -> str:
    if value is None:
        return NOT_REPORTED
    if isinstance(value, str):
        # one line, and no text can close the artifact block early
        text = " ".join(value[: LONG_VALUE * 4].split()).replace("===", "= = =")
        return text if len(text) <= LONG_VALUE else short_value(text, LONG_VALUE)
    if isinstance(value, float):
        return repr(round(value, 10))
    if isinstance(value, (list, tuple, dict)) and len(value) > 50:
        return json.dumps(f"{short_value(value, LONG_VALUE)} (cut)")
    shown = json.dumps(value, sort_keys=True, default=str)
    return shown if len(shown) <= LONG_VALUE else json.dumps(f"{shown[:LONG_VALUE]}... (cut)")


def _key(name: str) -> str:
    return KEY.sub("_", str(name)) or "_"


def artifact_text(artifact: ImpactArtifact) -> str:
    lines = [
        TEXT_OPEN,
        f"shape: {artifact.shape}",
        f"schema_version: {_show(artifact.schema_version)}",
        f"initiative_id: {_show(artifact.contract.initiative_id)}",
        f"model_type: {_show(artifact.model_type)}",
        f"executed_at: {_show(artifact.executed_at)}",
    ]
    for section in SECTIONS:
        values = getattr(artifact, section)
        lines.append(f"[{section}]")
        lines += [f"{_key(key)}: {_show(values[key])}" for key in sorted(values)] or ["(none)"]
    if artifact.text:
        lines.append("[reported text]")
        lines += [f"| {line}".replace("===", "= = =") for line in artifact.text[: LONG_VALUE * 20].splitlines()]
    lines.append(TEXT_CLOSE)
    return "\n".join(lines)


def envelope_from_text(text: str) -> dict[str, Any] | None:
    """The envelope rebuilt from an artifact_text block inside a prompt (None without one)."""
    start = text.find(TEXT_OPEN)
    end = text.find(TEXT_CLOSE, start)
    if start < 0 or end < 0:
        return None
    top: dict[str, Any] = {}
    sections: dict[str, dict[str, Any]] = {}
    current: dict[str, Any] | None = None
    for line in text[start + len(TEXT_OPEN):end].strip().splitlines():
        line = line.strip()
        if line.startswith("|"):
            continue  # the payload's own text, shown to the reviewer only
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], {})
            continue
        if ": " not in line:
            continue
        key, value = line.split(": ", 1)
        parsed: Any
        if value == NOT_REPORTED:
            parsed = None
        else:
            try:
                parsed = json.loads(value)
            except json.JSONDecodeError:
                parsed = value
        (top if current is None else current)[key] = parsed
    return {
        "schema_version": None if top.get("schema_version") is None else str(top.get("schema_version")),
        "model_type": None if top.get("model_type") is None else str(top["model_type"]),
        "data": {name: sections.get(name, {}) for name in SECTIONS},
        "metadata": {"executed_at": top.get("executed_at"),
                     "initiative_id": None if top.get("initiative_id") is None else str(top["initiative_id"])},
    }


def build_payload(artifact: ImpactArtifact) -> ArtifactPayload:
    return ArtifactPayload(
        initiative_id=artifact.contract.initiative_id,
        artifact_text=artifact_text(artifact),
        model_type=artifact.model_type,
        sample_size=artifact.contract.sample_size,
        metadata={
            "source": artifact.source,
            "executed_at": artifact.executed_at,
            "contract": artifact.contract.model_dump(mode="json"),
            "notes": list(artifact.notes),
            **{k: v for k, v in artifact.metadata.items() if k not in ("initiative_id", "executed_at")},
        },
    )
