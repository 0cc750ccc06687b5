"""Gold files of the design review: what a careful panel should find in each fixture pair.

``gold/design/<case>.yaml`` describes ``fixtures/design/<case>/{design,requirements}.md`` (the
core's gold base). Each expected finding names the document its evidence quote comes from, and
a gold file whose quote is not in that document is rejected, so gold cannot drift from its
fixture. On top of the base: the verdict and escalation target, the severity range a finding
may be rated in, its phase, and the contradictions a panel should surface.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from review_harness.core.gold import ExpectedFinding, GoldCase, load_gold
from review_harness.core.markdown import split_sections
from review_harness.core.matching import normalize_space
from review_harness.core.paths import SHARED_ENV, repo_path
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
    # a real document kept outside the repository, read as two documents by its headings
    document: str | None = Field(default=None, description="The document, relative to the repository root "
                                 "(e.g. ../shared/real/design/...); None: the fixture folder's two files.")
    requirements_sections: list[str] = Field(
        default_factory=list, description="With `document`: the headings (with their subsections) that are the requirements.")
    omit_sections: list[str] = Field(
        default_factory=list, description="With `document`: headings that belong to neither part (a table of contents).")

    @model_validator(mode="after")
    def _check(self) -> "DesignGold":
        for f in self.expected_findings:
            if not f.accepts(f.severity):
                raise ValueError(f"finding {f.id}: severity {f.severity.value} is outside its severity_range")
        if self.verdict is not None and (self.verdict == "escalate") != (self.escalation_target is not None):
            raise ValueError("escalation_target is set exactly when the verdict is escalate")
        return self

    @property
    def document_path(self) -> Path | None:
        return repo_path(self.document) if self.document else None

    @property
    def fixture_path(self) -> Path:
        return self.document_path or super().fixture_path

    def parts(self) -> tuple[str, str, list[str]]:
        """(design, requirements, headings named that the document lacks)."""
        if self.document_path is None:
            design, requirements = ((self.fixture_path / f"{n}.md").read_text(encoding="utf-8") for n in ("design", "requirements"))
            return design, requirements, []
        text = self.document_path.read_text(encoding="utf-8")
        requirements, design, missing = split_sections(text, self.requirements_sections, self.omit_sections)
        return design, requirements, missing

    def evidence_inputs(self, finding: GoldDesignFinding) -> list[Path]:  # type: ignore[override]
        if self.document_path is not None:
            return [self.document_path]
        return [self.fixture_path / f"{finding.source}.md"]

    def check_inputs(self) -> list[str]:
        if self.document_path is None:
            return [f"fixture: {self.fixture_path / f'{name}.md'} does not exist"
                    for name in ("design", "requirements") if not (self.fixture_path / f"{name}.md").is_file()]
        if not self.requirements_sections:
            return ["requirements_sections: a gold file with a document names the headings that are its requirements"]
        if not self.document_path.is_file():
            return [f"document: {self.document_path} does not exist (the shared inputs are found through "
                    f"${SHARED_ENV} or beside the checkout)"]
        design, requirements, missing = self.parts()
        problems = [f"requirements_sections/omit_sections: no heading {name!r} in {self.document}" for name in missing]
        texts = {"design": normalize_space(design), "requirements": normalize_space(requirements)}
        for n, f in enumerate(self.expected_findings):
            if f.evidence and normalize_space(f.evidence) not in texts[f.source]:
                problems.append(f"expected_findings.{n}.evidence: quote of {f.id} is not in the {f.source} part")
        return problems


def load_design_gold(path: str | Path) -> DesignGold:
    return load_gold(path, DesignGold)


def is_real_gold(path: Path) -> bool:
    """Whether a gold file describes a document outside the repository (a `document:` key)."""
    try:
        head = path.read_text(encoding="utf-8")
    except OSError:
        return False
    return re.search(r"^document:", head, re.MULTILINE) is not None


