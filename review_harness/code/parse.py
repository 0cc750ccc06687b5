"""Parsing the reviewers' answers: lenient JSON, item-by-item salvage
(one bad finding costs only itself), bounds checked after parsing.

An answer cut off or broken part way (only the part before the break was read), with no JSON
object or without its findings list is malformed: asked once more, and what parsed is kept
beside the run, never as a complete review (a missing part may have been a finding)."""

from __future__ import annotations

from review_harness.code.models import CATEGORIES, SEVERITIES, CheckedFine, CodeFinding, ReviewerAnswer
from review_harness.core.jsonsalvage import load_json_lenient, validate_items
from review_harness.core.matching import normalize_space
from review_harness.core.member import ParseOutcome
from review_harness.core.schema import response_schema

REVIEWER_SCHEMA = response_schema(
    "code_review_report", ReviewerAnswer,
    description="Findings with severity, category, file, line, description, suggested fix and quote; places checked and fine.",
    enums={"findings[].severity": list(SEVERITIES), "findings[].category": list(CATEGORIES)},
)


def _finding(item, label: str):
    if not isinstance(item, dict):
        return None, f"{label}: not an object"
    if item.get("category") not in CATEGORIES:
        return None, f"{label}: unknown category {item.get('category')!r}"
    if isinstance(item.get("line"), int) and item["line"] < 1:
        item = {**item, "line": None}
    return item, None


def parse_reviewer(text: str) -> ParseOutcome[ReviewerAnswer]:
    data, repaired, problem, cut_off = load_json_lenient(text)
    if not isinstance(data, dict):
        return ParseOutcome(None, [problem or "the answer is not a JSON object"], malformed=True)
    problems = []
    if repaired:
        problems.append(("cut off" if cut_off else "malformed") + f"; kept the complete part ({problem})")
    findings, bad = validate_items(data, "findings", CodeFinding, "finding", _finding)
    fine, bad_fine = validate_items(data, "checked_fine", CheckedFine, "checked_fine item")
    problems += bad + bad_fine
    if "findings" not in data:
        return ParseOutcome(None, problems + ["no findings list in the answer"], malformed=True)
    summary = data.get("summary") if isinstance(data.get("summary"), str) else ""
    return ParseOutcome(ReviewerAnswer(findings=findings, checked_fine=fine, summary=summary), problems, malformed=repaired)


def unverified_quotes(report: ReviewerAnswer, *sources: str) -> list[str]:
    """Findings whose quote is not verbatim in the change or the spec (whitespace aside): kept,
    and named so the log and report say the evidence is unverified."""
    text = "\n".join(sources)
    haystack = normalize_space(text)
    lines = {normalize_space(line) for line in text.splitlines()}  # most quotes are one line: found at once

    def verbatim(quote: str) -> bool:
        quote = normalize_space(quote)
        return quote in lines or quote in haystack

    return [
        f"finding {n} ({f.where}): quote not found verbatim in the change or spec; kept as unverified"
        for n, f in enumerate(report.findings, 1)
        if f.quote and not verbatim(f.quote)
    ]
