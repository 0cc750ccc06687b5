"""impact_results.json: read the seed's envelope, validate it and the Measure -> Evaluate
contract with one-line errors naming the file and the field, and serialise it as the
deterministic, readable ``artifact_text`` the reviewer gets.

Where the contract fields live in the envelope (schema 2.0):

| contract field   | envelope field                                   |
|------------------|--------------------------------------------------|
| initiative_id    | metadata.initiative_id                           |
| effect_estimate  | data.impact_estimates.intervention_effect        |
| ci_lower/upper   | data.impact_estimates.ci_lower / ci_upper        |
| p_value          | data.impact_estimates.p_value (missing: reported)|
| sample_size      | data.model_summary.n_observations                |
| model_type       | model_type                                       |
| diagnostics      | data.diagnostics + data.model_summary fit stats  |
"""

from __future__ import annotations

import datetime as dt
import json
import math
from pathlib import Path
from typing import Any

from review_harness.impact.config import FREQUENCIES, ImpactSettings, default_settings
from review_harness.impact.models import ArtifactPayload, ImpactArtifact, MeasureContract

SCHEMA_VERSION = "2.0"
ESTIMATE_FIELDS = ("intervention_effect", "pre_intervention_mean", "post_intervention_mean",
                   "absolute_change", "percent_change", "ci_lower", "ci_upper")
OPTIONAL_ESTIMATES = ("p_value",)
SUMMARY_COUNTS = ("n_observations", "pre_period_length", "post_period_length")
TEXT_OPEN = "=== impact_results.json ==="
TEXT_CLOSE = "=== end of impact_results.json ==="


class ArtifactError(ValueError):
    """An artifact that cannot be reviewed: ``<file>: <field>: <problem>`` on one line."""


def _fail(source: str, field: str, problem: str) -> ArtifactError:
    return ArtifactError(f"{source}: {field}: {problem}")


def _number(source: str, field: str, value: Any, *, integer: bool = False) -> float | int:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        shown = f"the string {value!r}" if isinstance(value, str) else (
            "null" if value is None else f"{type(value).__name__} {json.dumps(value)}")
        raise _fail(source, field, f"expected a number, got {shown}")
    if isinstance(value, float) and not math.isfinite(value):
        raise _fail(source, field, f"expected a finite number, got {value}")
    if integer:
        if isinstance(value, float) and not value.is_integer():
            raise _fail(source, field, f"expected a whole number of observations, got {value}")
        if value < 0:
            raise _fail(source, field, f"expected a non-negative count, got {value}")
        return int(value)
    return float(value)


def _object(source: str, field: str, value: Any) -> dict:
    if value is None:
        raise _fail(source, field, "missing required field")
    if not isinstance(value, dict):
        raise _fail(source, field, f"expected an object, got {type(value).__name__}")
    return value


def _timestamp(source: str, field: str, value: Any) -> dt.datetime:
    if not isinstance(value, str):
        raise _fail(source, field, "missing required field" if value is None else "expected an ISO-8601 timestamp")
    try:
        stamp = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise _fail(source, field, f"not an ISO-8601 timestamp: {value!r}") from None
    return stamp if stamp.tzinfo else stamp.replace(tzinfo=dt.timezone.utc)


def parse_date(source: str, field: str, value: Any) -> dt.date:
    if not isinstance(value, str):
        raise _fail(source, field, "expected an ISO date (YYYY-MM-DD)")
    try:
        return dt.date.fromisoformat(value[:10])
    except ValueError:
        raise _fail(source, field, f"not an ISO date: {value!r}") from None


def validate_envelope(raw: Any, source: str, settings: ImpactSettings | None = None) -> ImpactArtifact:
    """The envelope and the contract, checked field by field; the first problem is the error."""
    settings = settings or default_settings()
    if not isinstance(raw, dict):
        raise ArtifactError(f"{source}: expected a JSON object at the top level, got {type(raw).__name__}")
    version = raw.get("schema_version")
    if version is None:
        raise _fail(source, "schema_version", "missing required field")
    if str(version) != SCHEMA_VERSION:
        raise _fail(source, "schema_version", f"{version!r} is not supported (expected {SCHEMA_VERSION!r})")
    model_type = raw.get("model_type")
    if not isinstance(model_type, str) or not model_type.strip():
        raise _fail(source, "model_type", "missing required field" if model_type is None else "expected a string")
    if model_type not in settings.confidence_map:
        raise _fail(source, "model_type", f"unknown model type {model_type!r}; known: {', '.join(settings.model_types)}")
    data = _object(source, "data", raw.get("data"))
    params = _object(source, "data.model_params", data.get("model_params"))
    estimates_raw = _object(source, "data.impact_estimates", data.get("impact_estimates"))
    summary_raw = _object(source, "data.model_summary", data.get("model_summary"))
    meta = _object(source, "metadata", raw.get("metadata"))

    estimates: dict[str, float | None] = {}
    for name in ESTIMATE_FIELDS:
        field = f"data.impact_estimates.{name}"
        if name not in estimates_raw:
            raise _fail(source, field, "missing required field")
        estimates[name] = _number(source, field, estimates_raw[name])
    notes: list[str] = []
    for name in OPTIONAL_ESTIMATES:
        field = f"data.impact_estimates.{name}"
        if estimates_raw.get(name) is None:
            estimates[name] = None
            notes.append(f"{field}: not reported; statistical significance cannot be checked")
        else:
            estimates[name] = _number(source, field, estimates_raw[name])
    if estimates["p_value"] is not None and not 0 <= estimates["p_value"] <= 1:
        raise _fail(source, "data.impact_estimates.p_value", f"must be between 0 and 1, got {estimates['p_value']}")
    for name, value in estimates_raw.items():
        if name not in estimates and value is not None:
            estimates[name] = _number(source, f"data.impact_estimates.{name}", value)

    summary: dict[str, float | int | None] = {}
    for name in SUMMARY_COUNTS:
        field = f"data.model_summary.{name}"
        if name not in summary_raw:
            raise _fail(source, field, "missing required field")
        summary[name] = _number(source, field, summary_raw[name], integer=True)
    for name, value in summary_raw.items():
        if name not in summary:
            summary[name] = None if value is None else _number(source, f"data.model_summary.{name}", value)

    diagnostics_raw = data.get("diagnostics") or {}
    if not isinstance(diagnostics_raw, dict):
        raise _fail(source, "data.diagnostics", "expected an object")
    diagnostics: dict[str, Any] = {}
    for name, value in diagnostics_raw.items():
        diagnostics[name] = value if isinstance(value, (bool, str)) else _number(source, f"data.diagnostics.{name}", value)

    executed_at = _timestamp(source, "metadata.executed_at", meta.get("executed_at"))
    initiative_id = meta.get("initiative_id")
    if not isinstance(initiative_id, str) or not initiative_id.strip():
        raise _fail(source, "metadata.initiative_id", "missing required field" if initiative_id is None else "expected a non-empty string")
    if "intervention_date" in params:
        parse_date(source, "data.model_params.intervention_date", params["intervention_date"])
    frequency = params.get("frequency", settings.default_frequency)
    if frequency not in FREQUENCIES:
        raise _fail(source, "data.model_params.frequency", f"{frequency!r}; expected one of {', '.join(FREQUENCIES)}")

    fit_stats = {k: v for k, v in summary.items() if k not in SUMMARY_COUNTS and v is not None}
    contract = MeasureContract(
        initiative_id=initiative_id.strip(),
        effect_estimate=estimates["intervention_effect"],  # type: ignore[arg-type]
        ci_lower=estimates["ci_lower"],  # type: ignore[arg-type]
        ci_upper=estimates["ci_upper"],  # type: ignore[arg-type]
        p_value=estimates["p_value"],
        sample_size=int(summary["n_observations"]),  # type: ignore[arg-type]
        model_type=model_type,
        diagnostics={**fit_stats, **diagnostics},
    )
    return ImpactArtifact(
        source=source, schema_version=SCHEMA_VERSION, model_type=model_type,
        executed_at=executed_at.isoformat(), model_params=dict(params), impact_estimates=estimates,
        model_summary=summary, diagnostics=diagnostics, metadata=dict(meta), contract=contract, notes=notes,
    )


def load_artifact(path: str | Path, settings: ImpactSettings | None = None, label: str | None = None) -> ImpactArtifact:
    path = Path(path)
    source = label or str(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise ArtifactError(f"{source}: no such file") from None
    except UnicodeDecodeError:
        raise ArtifactError(f"{source}: not a UTF-8 text file") from None
    if not text.strip():
        raise ArtifactError(f"{source}: the file is empty")
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as ex:
        raise ArtifactError(f"{source}: not valid JSON ({ex.msg} at line {ex.lineno} column {ex.colno})") from None
    return validate_envelope(raw, source, settings)


def artifact_files(path: str | Path) -> list[Path]:
    """A file, or every *.json file of a folder (sorted); an empty folder is an error."""
    path = Path(path)
    if not path.exists():
        raise ArtifactError(f"{path}: does not exist")
    if path.is_dir():
        files = sorted(p for p in path.glob("*.json") if p.is_file())
        if not files:
            raise ArtifactError(f"{path}: the folder has no *.json impact results")
        return files
    return [path]


# ---------------------------------------------------------------------------------------------
# artifact_text: deterministic, readable, and read back by the offline reviewer

SECTIONS = ("model_params", "impact_estimates", "model_summary", "diagnostics")


def _show(value: Any) -> str:
    if value is None:
        return "(not reported)"
    if isinstance(value, str):
        # one line, and no text can close the artifact block early
        return " ".join(value.split()).replace("===", "= = =")
    if isinstance(value, float):
        return repr(round(value, 10))
    return json.dumps(value, sort_keys=True)


def artifact_text(artifact: ImpactArtifact) -> str:
    lines = [
        TEXT_OPEN,
        f"schema_version: {artifact.schema_version}",
        f"initiative_id: {artifact.contract.initiative_id}",
        f"model_type: {artifact.model_type}",
        f"executed_at: {artifact.executed_at}",
    ]
    for section in SECTIONS:
        values = getattr(artifact, section)
        lines.append(f"[{section}]")
        lines += [f"{key}: {_show(values[key])}" for key in sorted(values)] or ["(none)"]
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
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], {})
            continue
        if ": " not in line:
            continue
        key, value = line.split(": ", 1)
        parsed: Any
        if value == "(not reported)":
            parsed = None
        else:
            try:
                parsed = json.loads(value)
            except json.JSONDecodeError:
                parsed = value
        (top if current is None else current)[key] = parsed
    return {
        "schema_version": str(top.get("schema_version")),
        "model_type": top.get("model_type"),
        "data": {name: sections.get(name, {}) for name in SECTIONS},
        "metadata": {"executed_at": top.get("executed_at"), "initiative_id": str(top.get("initiative_id"))},
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
