"""The domain expert reviewer's prompt, response schema and parser.

The system message is the rubric, then the context brief (Sections 1 and 2: the same for every
document reviewed against the same digest versions, so the cacheable prefix is most of the
prompt); the request carries an optional user reference (it supplements the brief) and the
document, last (Section 3). The model names
issue types, quotes and sources; the harness sets severity and points from the rubric and caps a
finding whose source is an advisory section at ADVISORY.
"""

from __future__ import annotations

from pydantic import BaseModel

from review_harness.core.jsonsalvage import load_json_lenient, validate_items
from review_harness.core.member import ParseOutcome
from review_harness.core.paths import PROMPTS_DIR
from review_harness.core.prompts import ReviewerPrompt, neutralize_delimiters, template_environment
from review_harness.core.schema import response_schema
from review_harness.domain.reviewer import FindingSource, ReviewerRubric, make_finding
from review_harness.domain.rules import DomainReview
from review_harness.domain.skill import DomainContextBrief

PROMPT_VERSION = "domain-reviewer.v1"
UNVERIFIABLE = "claim_unverifiable"  # the one issue type that needs a search to back it (seed 001 D10)


class ReportFinding(BaseModel):
    lens: str
    issue_type: str
    summary: str
    quote: str | None
    section: str | None
    fix: str | None
    source_kind: str
    source_ref: str | None


class DomainReport(BaseModel):
    findings: list[ReportFinding]
    credits: list[str]
    unverified_claims: list[str]


def report_schema(rubric: ReviewerRubric):
    lenses = rubric.dimension.lenses
    return response_schema("domain_review", DomainReport, description="the domain expert reviewer's report", enums={
        "findings[].lens": [lens.id for lens in lenses],
        "findings[].issue_type": rubric.issue_types(),
        "findings[].source_kind": ["digest", "web", "general", "reference"],
        "credits[]": [c.id for lens in lenses for c in lens.credits],
    })


def render_reviewer_prompt(rubric: ReviewerRubric, brief: DomainContextBrief, document: str,
                           reference: str | None = None, search: bool = False) -> ReviewerPrompt:
    """`search`: the request says the web_search tool is there to check claims (the stable prefix,
    the system message, is the same with or without it)."""
    env = template_environment(str(PROMPTS_DIR / "domain"))
    system = env.get_template("reviewer_system.v1.j2").render(
        dimension=rubric.dimension, advisory_points=rubric.advisory_points,
        domains=", ".join(brief.domains_included), version=brief.version,
        brief=neutralize_delimiters(brief.content, "<brief>", "</brief>"),
    )
    request = env.get_template("reviewer_request.v1.j2").render(
        domains=", ".join(brief.domains_included),
        reference=neutralize_delimiters(reference, "<reference>", "</reference>") if reference else None,
        document=neutralize_delimiters(document), search=search,
    )
    return ReviewerPrompt(system=system, request=request, version=PROMPT_VERSION)


def _normalize(rubric: ReviewerRubric):
    lens_of = {d.id: lens.id for lens in rubric.dimension.lenses for d in lens.deductions}

    def normalize(item, label):
        if not isinstance(item, dict):
            return None, f"{label}: not an object"
        issue = item.get("issue_type")
        if issue not in lens_of:
            return None, f"{label}: unknown issue type {issue!r}"
        if item.get("lens") != lens_of[issue]:  # the issue type decides the lens
            item = {**item, "lens": lens_of[issue]}
        return item, None

    return normalize


def parse_domain_report(text: str | None, brief: DomainContextBrief, rubric: ReviewerRubric
                        ) -> ParseOutcome[DomainReview]:
    """The review, salvaged item by item; malformed when the JSON had to be repaired (what parsed
    is kept for the warnings) or nothing is usable."""
    if not text:
        return ParseOutcome(None, ["empty answer"], malformed=True)
    data, repaired, problem, _ = load_json_lenient(text)
    if not isinstance(data, dict):
        return ParseOutcome(None, [problem or "no JSON object"], malformed=True)
    items, problems = validate_items(data, "findings", ReportFinding, "finding", _normalize(rubric))
    review = DomainReview()
    unverified_by_rule = []
    for n, item in enumerate(items, 1):
        if item.issue_type == UNVERIFIABLE and not (item.source_kind == "web" and item.source_ref):
            # D10: only a search that found the claim unsupported costs points; without the search
            # it made, the claim is unverified (no deduction)
            unverified_by_rule.append(item.quote or item.summary)
            problems.append(f"finding {n} ({UNVERIFIABLE}) names no searched page: listed as unverified, no deduction")
            continue
        source = _source(item, brief, problems, n)
        review.findings.append(make_finding(rubric, f"D{n}", item.lens, item.issue_type, source, item.summary,
                                            quote=item.quote, section=item.section, fix=item.fix))
    known = {c.id for lens in rubric.dimension.lenses for c in lens.credits}
    credits = data.get("credits") if isinstance(data.get("credits"), list) else []
    review.credits = [c for c in dict.fromkeys(credits) if c in known]
    problems += [f"credit {c!r} is not in the rubric" for c in credits if c not in known]
    claims = data.get("unverified_claims")
    review.unverified = ([c for c in claims if isinstance(c, str)] if isinstance(claims, list) else []) + unverified_by_rule
    for n, finding in enumerate(review.findings, 1):
        finding.id = f"D{n}"
    if repaired:
        problems.insert(0, f"{problem}; kept the part before it")
    return ParseOutcome(review, problems, malformed=repaired)


def _source(item: ReportFinding, brief: DomainContextBrief, problems: list[str], n: int) -> FindingSource:
    if item.source_kind == "digest":
        authority = brief.authority_level.get(item.source_ref or "")
        if authority is None:
            problems.append(f"finding D{n}: source {item.source_ref!r} is not a section of the brief; cited as general knowledge")
            return FindingSource(kind="general")
        return FindingSource(kind="digest", ref=item.source_ref, authority=authority)
    if item.source_kind == "web":
        return FindingSource(kind="web", ref=item.source_ref)
    if item.source_kind == "reference":
        return FindingSource(kind="reference", ref=item.source_ref)
    return FindingSource(kind="general")


def report_of(review: DomainReview) -> DomainReport:
    """A review in the response schema (what the offline reviewer answers)."""
    return DomainReport(
        findings=[ReportFinding(lens=f.lens, issue_type=f.issue_type, summary=f.summary, quote=f.quote,
                                section=f.section, fix=f.fix, source_kind=f.source.kind, source_ref=f.source.ref)
                  for f in review.findings],
        credits=review.credits, unverified_claims=review.unverified,
    )
