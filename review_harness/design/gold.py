"""Gold files of the design review: what a careful panel should find in each fixture pair.

``gold/design/<case>.yaml`` describes ``fixtures/design/<case>/{design,requirements}.md``. A gold
file whose evidence quote is not in its named document is rejected, so gold cannot drift from
its fixture.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from review_harness.core.matching import normalize_space
from review_harness.core.paths import FIXTURES_DIR
from review_harness.core.yamlio import YamlReadError, first_error, read_yaml
from review_harness.design.models import SEVERITIES, Phase, Severity, Stage, Verdict


class DesignGoldError(ValueError):
    """A gold file is missing, malformed, or inconsistent with its documents."""


class GoldDesignFinding(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    personas: list[str]
    severity: Severity
    severity_range: tuple[Severity, Severity]
    phase: Phase
    contributing_phase: Phase | None = None
    must_catch: bool = False
    source: Literal["design", "requirements"]
    summary: str
    evidence: str = ""
    keywords: list[str] = Field(default_factory=list)

    def accepts(self, severity: Severity) -> bool:
        low, high = (SEVERITIES.index(s.value) for s in self.severity_range)
        return min(low, high) <= SEVERITIES.index(severity.value) <= max(low, high)


class GoldContradiction(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    personas: list[str]
    summary: str
    keywords: list[str] = Field(default_factory=list)


class GoldDelta(BaseModel):
    resolved: list[str] = Field(default_factory=list)
    persisting: list[str] = Field(default_factory=list)
    new: list[str] = Field(default_factory=list)


class DesignGold(BaseModel):
    model_config = ConfigDict(extra="forbid")

    case: str
    title: str = ""
    topic: str
    iteration: int = 1
    stage: Stage
    split: Literal["dev", "heldout"]
    designed_flaws: str
    verdict: Verdict
    escalation_target: Literal["survey", "calibrate"] | None = None
    expected_findings: list[GoldDesignFinding] = Field(default_factory=list)
    expected_contradictions: list[GoldContradiction] = Field(default_factory=list)
    expected_delta: GoldDelta | None = None

    @model_validator(mode="after")
    def _check(self) -> "DesignGold":
        ids = [f.id for f in self.expected_findings]
        if len(ids) != len(set(ids)):
            raise ValueError("expected_findings ids must be unique")
        for f in self.expected_findings:
            if not f.accepts(f.severity):
                raise ValueError(f"finding {f.id}: severity {f.severity.value} is outside its severity_range")
        if (self.verdict == "escalate") != (self.escalation_target is not None):
            raise ValueError("escalation_target is set exactly when the verdict is escalate")
        return self


def case_folder(case: str) -> Path:
    return FIXTURES_DIR / "design" / case


def load_design_gold(path: str | Path) -> DesignGold:
    path = Path(path)
    try:
        gold = DesignGold.model_validate(read_yaml(path))
    except YamlReadError as ex:
        raise DesignGoldError(f"gold file {ex}") from None
    except ValidationError as ex:
        where, message, _ = first_error(ex)
        raise DesignGoldError(f"{path}: {where}: {message}") from None
    folder = path.parent.parent.parent / "fixtures" / path.parent.name / gold.case
    texts = {}
    for name in ("design", "requirements"):
        document = folder / f"{name}.md"
        if not document.is_file():
            raise DesignGoldError(f"{path}: its fixture {document} does not exist")
        texts[name] = normalize_space(document.read_text(encoding="utf-8"))
    for f in gold.expected_findings:
        if f.evidence and normalize_space(f.evidence) not in texts[f.source]:
            raise DesignGoldError(f"{path}: finding {f.id}: evidence quote not found in {f.source}.md: {f.evidence[:80]!r}")
    return gold
