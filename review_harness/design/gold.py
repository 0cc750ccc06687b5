"""Gold files of the design review: what a careful panel should find in each fixture pair.

``gold/design/<case>.yaml`` describes ``fixtures/design/<case>/{design,requirements}.md`` (the
core's gold base). Each expected finding names the document its evidence quote comes from, and
a gold file whose quote is not in that document is rejected, so gold cannot drift from its
fixture. On top of the base: the verdict and escalation target, the severity range a finding
may be rated in, its phase, and the contradictions a panel should surface.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from review_harness.core.gold import ExpectedFinding, GoldCase, load_gold
from review_harness.core.models import SEVERITIES, Severity
from review_harness.design.models import Phase, Stage, Verdict


class GoldDesignFinding(ExpectedFinding):
    personas: list[str]
    severity: Severity
    severity_range: tuple[Severity, Severity]
    phase: Phase
    contributing_phase: Phase | None = None
    source: Literal["design", "requirements"]

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


class DesignGold(GoldCase):
    title: str = ""
    topic: str
    iteration: int = 1
    stage: Stage
    split: Literal["dev", "heldout"]
    designed_flaws: str
    verdict: Verdict | None = Field(default=None, description="None: not judged (a planted file)")
    escalation_target: Phase | None = None
    expected_findings: list[GoldDesignFinding] = Field(default_factory=list)
    expected_contradictions: list[GoldContradiction] = Field(default_factory=list)
    expected_delta: GoldDelta | None = None

    @model_validator(mode="after")
    def _check(self) -> "DesignGold":
        for f in self.expected_findings:
            if not f.accepts(f.severity):
                raise ValueError(f"finding {f.id}: severity {f.severity.value} is outside its severity_range")
        if self.verdict is not None and (self.verdict == "escalate") != (self.escalation_target is not None):
            raise ValueError("escalation_target is set exactly when the verdict is escalate")
        return self

    def evidence_inputs(self, finding: GoldDesignFinding) -> list[Path]:  # type: ignore[override]
        return [self.fixture_path / f"{finding.source}.md"]

    def check_inputs(self) -> list[str]:
        return [f"fixture: {self.fixture_path / f'{name}.md'} does not exist"
                for name in ("design", "requirements") if not (self.fixture_path / f"{name}.md").is_file()]


def load_design_gold(path: str | Path) -> DesignGold:
    return load_gold(path, DesignGold)
