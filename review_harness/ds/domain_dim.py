"""The domain knowledge dimension inside the DS review (`-T domain=`, seed 001 s9).

What the domain solvers leave in the sample store (the brief, the domain reviewer's run and
findings, the dedup decisions) and how synthesis turns it into the third dimension: dedup
against the analysis findings (stage 1 re-run, stage 2 replayed from the recorded decisions, so
`inspect score` needs no model), the dimension's score on the DS curve, ADVISORY findings kept
out of the DS findings (so they never reach a floor rule) and the 50/25/25 weights. Without a
domain none of this runs and the DS review is what it always was.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from review_harness.core.member import MemberResult, MemberRun, StoreLike, load_result, member_key, save_result
from review_harness.domain.dedup import DedupDecision, FindingRef, replay_dedup
from review_harness.domain.member import KIND as DOMAIN_KIND
from review_harness.domain.member import MEMBER
from review_harness.domain.rules import DomainReview
from review_harness.domain.reviewer import (
    DomainFinding,
    ReviewerRubric,
    credit_points,
    default_reviewer_rubric,
    lens_worst,
)
from review_harness.domain.skill import DomainContextBrief
from review_harness.domain.topics import DomainFit, conflict_touches
from review_harness.ds import scoring
from review_harness.ds.models import (
    DashboardRow,
    DimensionResult,
    DomainSection,
    Finding,
    LensRating,
    Severity,
)
from review_harness.ds.rubric import Rubric

BRIEF_KEY = "domain_brief"
RUN_KEY = member_key(DOMAIN_KIND, MEMBER)
DEDUP_KEY = "domain_dedup"
DIMENSION = "domain"
TITLE_WORDS = 12


class DomainInput(BaseModel):
    """Everything synthesis needs of the domain dimension, read back from the store."""

    domains: list[str]
    brief: DomainContextBrief
    reference: str | None = None
    run: MemberRun | None = None  # None: the reviewer never reported
    findings: list[DomainFinding] = Field(default_factory=list)
    credits: list[str] = Field(default_factory=list)
    unverified: list[str] = Field(default_factory=list)
    verified: list[str] = Field(default_factory=list)
    salvaged: DomainReview | None = Field(default=None, description="what parsed of a malformed answer (warnings only)")
    dedup: list[DedupDecision] = Field(default_factory=list)
    fit: DomainFit | None = Field(default=None, description="whether the domains fit the document (None: not checked)")

    @property
    def applicable(self) -> bool:
        """False when the document has no content of the requested domains: nothing to review."""
        return self.fit is None or self.fit.applicable

    @property
    def reviewed(self) -> bool:
        return self.applicable and self.run is not None and self.run.completed


# ---------------------------------------------------------------------------------- store


def save_brief(store: StoreLike, brief: DomainContextBrief, reference: str | None, fit: DomainFit | None = None) -> None:
    store.set(BRIEF_KEY, {"domains": brief.domains_included, "brief": brief.model_dump(mode="json"),
                          "record": brief.log_record(), "reference": reference,
                          "fit": fit.model_dump(mode="json") if fit else None})


def load_fit(store: StoreLike) -> DomainFit | None:
    data = store.get(BRIEF_KEY)
    return DomainFit.model_validate(data["fit"]) if data and data.get("fit") else None


def load_brief(store: StoreLike) -> DomainContextBrief | None:
    data = store.get(BRIEF_KEY)
    return DomainContextBrief.model_validate(data["brief"]) if data else None


def save_domain_run(store: StoreLike, result: MemberResult[DomainReview], brief: DomainContextBrief) -> None:
    """The member's store entry, with the digest versions it was judged against."""
    save_result(store, RUN_KEY, result, digest_versions=brief.versions)


def save_dedup(store: StoreLike, decisions: list[DedupDecision]) -> None:
    store.set(DEDUP_KEY, [d.model_dump(mode="json") for d in decisions])


def load_domain_input(store: StoreLike) -> DomainInput | None:
    """None when the review was not asked for a domain."""
    brief = store.get(BRIEF_KEY)
    if not brief:
        return None
    result = load_result(store, RUN_KEY, DomainReview)
    review = result.report if result and result.report else DomainReview()
    return DomainInput(
        domains=brief["domains"], brief=brief["brief"], reference=brief.get("reference"),
        run=result.run if result else None, findings=review.findings, credits=review.credits,
        unverified=review.unverified, verified=review.verified, salvaged=result.salvaged if result else None,
        dedup=store.get(DEDUP_KEY) or [], fit=brief.get("fit"),
    )


def salvaged_items(domain: DomainInput) -> list[str]:
    """What parsed of the domain reviewer's malformed answer, for the warnings."""
    return [f"{f.severity} {f.summary}" for f in domain.salvaged.findings] if domain.salvaged else []


# ---------------------------------------------------------------------------------- dedup


def analysis_refs(findings: list[Finding]) -> list[FindingRef]:
    return [FindingRef(id=f.id, summary=f"{f.title}. {f.issue}", quote=f.evidence or None,
                       section=f.location or None, fix=f.suggested_fix or None)
            for f in findings if f.dimension == "analysis"]


def domain_refs(findings: list[DomainFinding]) -> list[FindingRef]:
    """The domain findings dedup compares with the analysis findings: ADVISORY ones are advice
    from recent learnings, never the same finding as a generic issue, so they take no part."""
    return [FindingRef(id=f.id, summary=f.summary, quote=f.quote, section=f.section, fix=f.fix)
            for f in findings if f.severity != "ADVISORY"]


def apply_dedup(analysis: list[Finding], domain: DomainInput, rubric: ReviewerRubric
                ) -> tuple[list[DedupDecision], list[str]]:
    """(every decision, notes). An analysis finding that is the same issue as a domain finding is
    marked `merged_into` that finding: the domain version is the one the review shows (top fixes,
    the domain section), the analysis one stays under its lens as a pointer, and synthesis deducts
    the pair once."""
    decisions = replay_dedup(analysis_refs(analysis), domain_refs(domain.findings), rubric.dedup, domain.dedup)
    merged = {d.analysis_id: d.domain_id for d in decisions if d.duplicate}
    for finding in analysis:
        if finding.id in merged:
            finding.merged_into = merged[finding.id]
    notes = [f"{d.analysis_id} is the same issue as domain finding {d.domain_id} ({d.stage} stage: {d.reason}); "
             "the domain version stands and the issue is deducted once." for d in decisions if d.duplicate]
    return decisions, notes


# ---------------------------------------------------------------------------------- dimension


def _title(summary: str) -> str:
    words = summary.split()
    return " ".join(words[:TITLE_WORDS]) + ("..." if len(words) > TITLE_WORDS else "")


def as_ds_finding(finding: DomainFinding) -> Finding:
    """A CRITICAL/MAJOR/MINOR domain finding in the DS review's findings (top fixes, floors)."""
    return Finding(
        id=finding.id, dimension=DIMENSION, lens=finding.lens, severity=Severity(finding.severity),
        title=_title(finding.summary), location=finding.section or "whole document",
        issue=f"{finding.summary} (source: {finding.source.cite()})", evidence=finding.quote or "",
        suggested_fix=finding.fix or "", issue_type=finding.issue_type, deduction=float(finding.points),
    )


def _deductions(domain: DomainInput, charged_elsewhere: set[str]) -> list[tuple[float, Severity]]:
    """The dimension's deductions: ADVISORY ones as MINOR (-2); a finding whose dedup pair is
    deducted in the analysis dimension counts 0 here."""
    return [(0.0 if f.id in charged_elsewhere else float(f.points),
             Severity.MINOR if f.severity == "ADVISORY" else Severity(f.severity)) for f in domain.findings]


def _earned(domain: DomainInput, domain_rubric: ReviewerRubric) -> dict[str, float]:
    return {c: float(p) for c, p in zip(dict.fromkeys(domain.credits), credit_points(domain.credits, domain_rubric))}


def domain_score(domain: DomainInput, rubric: Rubric, domain_rubric: ReviewerRubric, charged_elsewhere: set[str],
                 with_domain: bool = True) -> float:
    """The dimension's score on the DS curve with its own credit cap (+25), recalibrated as the
    rubric says for a review weighted with its domain."""
    return scoring.dimension_score(_deductions(domain, charged_elsewhere), list(_earned(domain, domain_rubric).values()),
                                   rubric, credit_cap=domain_rubric.scoring.credit_cap,
                                   **scoring.recalibration(rubric, DIMENSION, with_domain))[0]


def domain_dimension(domain: DomainInput, rubric: Rubric, domain_rubric: ReviewerRubric, draft: bool,
                     charged_elsewhere: set[str] = frozenset(), with_domain: bool = True,
                     ) -> tuple[DimensionResult, list[Finding], list[DashboardRow], MemberRun | None]:
    """The domain dimension's result, its findings for the DS list (no ADVISORY), its dashboard
    rows and its reviewer run (None when the domain does not fit the document and nobody was
    asked). `charged_elsewhere`: domain findings whose dedup pair is deducted under analysis."""
    spec = domain_rubric.dimension
    if not domain.applicable:
        rows = [DashboardRow(dimension=spec.title, lens=lens.id, lens_title=lens.title, rating="Not applicable")
                for lens in spec.lenses]
        result = DimensionResult(dimension=DIMENSION, title=spec.title, reviewed=False, applicable=False,
                                 status_label="Not applicable")
        return result, [], rows, None
    reviewer_run = domain.run or MemberRun(kind=DOMAIN_KIND, member=MEMBER, status="failed",
                                           reason="the domain reviewer did not report")
    if not domain.reviewed:
        rows = [DashboardRow(dimension=spec.title, lens=lens.id, lens_title=lens.title, rating="Not reviewed")
                for lens in spec.lenses]
        return DimensionResult(dimension=DIMENSION, title=spec.title, reviewed=False), [], rows, reviewer_run
    ds_findings = [as_ds_finding(f) for f in domain.findings if f.severity != "ADVISORY"]
    for f in ds_findings:
        if f.id in charged_elsewhere:
            f.deduction = 0.0
        if draft and f.severity == Severity.CRITICAL:  # draft feedback has no CRITICAL severities
            f.severity = Severity.MAJOR
    earned = _earned(domain, domain_rubric)
    score, raw, effective, credits = scoring.dimension_score(
        _deductions(domain, charged_elsewhere), list(earned.values()), rubric, credit_cap=domain_rubric.scoring.credit_cap,
        **scoring.recalibration(rubric, DIMENSION, with_domain))
    worst = lens_worst(domain.findings, domain_rubric)
    ratings = {lens: LensRating.for_severity(Severity(w) if w and w != "ADVISORY" else None)
               for lens, w in worst.items()}
    rows = [DashboardRow(dimension=spec.title, lens=lens.id, lens_title=lens.title,
                         rating="ADVISORY" if worst[lens.id] == "ADVISORY" else ratings[lens.id])
            for lens in spec.lenses]
    result = DimensionResult(
        dimension=DIMENSION, title=spec.title, reviewed=True, score=None if draft else score,
        lens_ratings=ratings, raw_deductions=raw, effective_deductions=effective, credits=credits,
        credits_earned=earned, status_label=scoring.dimension_status(ds_findings),
    )
    return result, ds_findings, rows, reviewer_run


def banner(domain: DomainInput) -> str | None:
    """The brief's warnings above the results; a conflict's notice only when the conflict touches
    what the document is about (a term it names is one the document or a domain finding names)."""
    named = list(domain.fit.terms if domain.fit else []) + [f.summary for f in domain.findings]
    return domain.brief.banner(lambda conflict: conflict_touches(conflict, named))


def domain_section(domain: DomainInput, decisions: list[DedupDecision], weights: dict[str, float],
                   charged: dict[str, str]) -> DomainSection:
    return DomainSection(
        domains=domain.domains, brief=domain.brief.log_record(), banner=banner(domain),
        reference=domain.reference, findings=domain.findings, credits=domain.credits,
        unverified_claims=domain.unverified, verified_claims=domain.verified, dedup=decisions, weights=weights,
        applicable=domain.applicable, fit=domain.fit, charged=charged,
    )


def default_domain_rubric() -> ReviewerRubric:
    return default_reviewer_rubric()
