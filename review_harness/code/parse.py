"""Parsing the reviewers' and the implementer's answers: lenient JSON, item-by-item salvage
(one bad finding costs only itself), bounds checked after parsing."""

from __future__ import annotations

from dataclasses import dataclass, field

from review_harness.code.models import CATEGORIES, SEVERITIES, CheckedFine, CodeFinding, FixAnswer, FixedFile, ReviewerAnswer
from review_harness.core.jsonsalvage import load_json_lenient, validate_items
from review_harness.core.matching import normalize_space
from review_harness.core.schema import response_schema

REVIEWER_SCHEMA = response_schema(
    "code_review_report", ReviewerAnswer,
    description="Findings with severity, category, file, line, description, suggested fix and quote; places checked and fine.",
    enums={"findings[].severity": list(SEVERITIES), "findings[].category": list(CATEGORIES)},
)
FIX_SCHEMA = response_schema("code_fix", FixAnswer, description="The complete new content of each file changed by the fix.")


@dataclass
class ParsedReview:
    report: ReviewerAnswer | None
    problems: list[str] = field(default_factory=list)
    partial: bool = False  # cut off or repaired: what is missing may have been a finding


def _finding(item, label: str):
    if not isinstance(item, dict):
        return None, f"{label}: not an object"
    if item.get("category") not in CATEGORIES:
        return None, f"{label}: unknown category {item.get('category')!r}"
    if isinstance(item.get("line"), int) and item["line"] < 1:
        item = {**item, "line": None}
    return item, None


def parse_reviewer(text: str, truncated: bool = False) -> ParsedReview:
    data, repaired, problem, cut_off = load_json_lenient(text)
    if not isinstance(data, dict):
        return ParsedReview(None, [problem or "the answer is not a JSON object"])
    problems = []
    partial = repaired or truncated
    if repaired:
        problems.append(("cut off" if cut_off or truncated else "malformed") + f"; kept the complete part ({problem})")
    findings, bad = validate_items(data, "findings", CodeFinding, "finding", _finding)
    fine, bad_fine = validate_items(data, "checked_fine", CheckedFine, "checked_fine item")
    problems += bad + bad_fine
    if "findings" not in data:
        return ParsedReview(None, problems + ["no findings list in the answer"])
    summary = data.get("summary") if isinstance(data.get("summary"), str) else ""
    return ParsedReview(ReviewerAnswer(findings=findings, checked_fine=fine, summary=summary), problems, partial)


def unverified_quotes(report: ReviewerAnswer, *sources: str) -> list[str]:
    """Findings whose quote is not verbatim in the change or the spec (whitespace aside): kept,
    and named so the log and report say the evidence is unverified."""
    haystack = normalize_space("\n".join(sources))
    return [
        f"finding {n} ({f.where}): quote not found verbatim in the change or spec; kept as unverified"
        for n, f in enumerate(report.findings, 1)
        if f.quote and normalize_space(f.quote) not in haystack
    ]


def parse_fix(text: str) -> tuple[FixAnswer | None, list[str]]:
    data, repaired, problem, _ = load_json_lenient(text)
    if not isinstance(data, dict) or repaired:
        return None, [problem or "the answer is not a JSON object"]
    files, problems = validate_items(data, "files", FixedFile, "file")
    return FixAnswer(files=files, note=str(data.get("note") or "")), problems
