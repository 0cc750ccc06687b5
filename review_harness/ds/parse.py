"""Turn what a reviewer model answered into a ``ReviewerReport``, keeping whatever is usable.

Order of attempts: strict JSON (the response schema); JSON with a repaired tail (truncated
output); the compact text format (models that ignore the answer format). Each item is
validated on its own, so one bad finding does not cost the others.

The outcome is the core's ``ParseOutcome``: an answer that had to be repaired or read as text is
`malformed` (worth one more try, never a complete review; what parsed is named in the warnings),
an answer whose JSON is whole is usable even when single items were dropped (`problems`).
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import ValidationError

from review_harness.core.jsonsalvage import load_json_lenient, validate_items
from review_harness.core.member import ParseOutcome
from review_harness.ds.models import (
    LensAssessment,
    LensRating,
    Positive,
    ReviewerFinding,
    ReviewerReport,
)
from review_harness.ds.rubric import Dimension, Rubric


def parse_reviewer_output(text: str, dimension: Dimension, rubric: Rubric | None = None) -> ParseOutcome[ReviewerReport]:
    """With the rubric, a finding filed under another dimension's lens is kept with a qualified
    lens ("communication.structure") for synthesis to re-route; without it, it is dropped."""
    if not text or not text.strip():
        return ParseOutcome(None, ["the reviewer returned empty output"], malformed=True)
    data, repaired, json_problem, cut_off = load_json_lenient(text)
    if isinstance(data, dict):
        report, problems = _report_from_dict(data, dimension, rubric)
        if repaired:
            problems.insert(0, "output was cut off; kept the complete part" if cut_off
                            else f"{json_problem}; kept the part before the error")
        # an answer shaped like the response schema is the reviewer's word even when it
        # found nothing; only a fragment with nothing in it is unusable
        answered = isinstance(data.get("findings"), list) and isinstance(data.get("lens_ratings"), list)
        usable = bool(report.findings or report.lens_ratings) or (answered and not cut_off)
        if usable and not (report.lens_ratings or report.findings):
            problems.append("the reviewer reported no findings and rated no lens")
        if not usable:
            return ParseOutcome(None, problems + ["no findings or lens ratings could be parsed"], malformed=True)
        return ParseOutcome(report, problems, malformed=repaired)
    report = _parse_text_format(text, dimension)
    if report is not None:
        return ParseOutcome(report, [f"output was not JSON ({json_problem}); read the text format"], malformed=True)
    return ParseOutcome(None, [f"output could not be parsed: {json_problem}"], malformed=True)


def _normalize_lens(value: Any, dimension: Dimension) -> str | None:
    if not isinstance(value, str):
        return None
    key = value.strip().lower()
    for lens in dimension.lenses:
        if key in (lens.id, lens.title.lower()) or key.replace(" ", "_") == lens.id:
            return lens.id
    for lens in dimension.lenses:
        if key.startswith(lens.id) or lens.title.lower().startswith(key):
            return lens.id
    return None


def _foreign_lens(value: Any, dimension: Dimension, rubric: Rubric | None) -> str | None:
    """'dimension.lens' when the lens belongs to another dimension of the rubric."""
    if rubric is None:
        return None
    for other in rubric.dimensions.values():
        if other.id != dimension.id:
            lens = _normalize_lens(value, other)
            if lens is not None:
                return f"{other.id}.{lens}"
    return None


def _normalize_item(
    item: Any, dimension: Dimension, label: str, rubric: Rubric | None = None
) -> tuple[dict | None, str | None]:
    if not isinstance(item, dict):
        return None, f"{label}: not an object"
    item = dict(item)
    for key in ("severity", "rating"):
        if isinstance(item.get(key), str):
            item[key] = item[key].strip().upper().replace("_", " ")
            if key == "rating" and item[key] in ("MINOR", "MAJOR"):
                item[key] += " ISSUES"
    if "lens" in item and item["lens"] is not None:
        lens = _normalize_lens(item["lens"], dimension)
        if lens is None and "severity" in item:  # a finding: re-routed by synthesis, not lost
            lens = _foreign_lens(item["lens"], dimension, rubric)
        if lens is None:
            return None, f"{label}: lens {item['lens']!r} is not a lens of the {dimension.id} dimension"
        item["lens"] = lens
    return item, None


def _report_from_dict(data: dict, dimension: Dimension, rubric: Rubric | None = None) -> tuple[ReviewerReport, list[str]]:
    problems: list[str] = []

    def collect(key: str, model: type, label: str) -> list:
        items, item_problems = validate_items(
            data, key, model, label, lambda item, where: _normalize_item(item, dimension, where, rubric)
        )
        problems.extend(item_problems)
        return items

    ratings = collect("lens_ratings", LensAssessment, "lens rating")
    findings = collect("findings", ReviewerFinding, "finding")
    positives = collect("positives", Positive, "positive")
    score = data.get("score")
    if not isinstance(score, int) or isinstance(score, bool):
        score = None
    return (
        ReviewerReport(
            dimension=dimension.id,
            lens_ratings=ratings,
            findings=findings,
            positives=positives,
            score=score,
        ),
        problems,
    )


# ----------------------------------------------------------------------------- text format

_FINDING_HEAD = re.compile(
    r"^\s*[-*#\d.\s]*\[?(CRITICAL|MAJOR|MINOR)\]?\s*[-:|]?\s*(?:\(([^)]*)\)|([A-Za-z&;,' ]+?)\s*[:|-])\s*(.+)$",
    re.IGNORECASE,
)
_FIELD = re.compile(r"^\s*[-*]?\s*\**(Where|Location|Issue|Evidence|Fix|Suggested fix)\**\s*:\s*(.*)$", re.IGNORECASE)
_RATING = re.compile(
    r"^\s*[-*|]?\s*([A-Za-z&;' ]+?)\s*[:|-]+\s*(SOUND|MINOR ISSUES|MAJOR ISSUES|CRITICAL)\s*\|?\s*$",
    re.IGNORECASE,
)


def _parse_text_format(text: str, dimension: Dimension) -> ReviewerReport | None:
    """Read findings written as

        [MAJOR] methodology: Causal claim without a control group
        Where: Results, line 40
        Issue: ...
        Evidence: "..."
        Fix: ...

    and lens ratings written as ``Methodology & Assumptions: MAJOR ISSUES``."""
    findings: list[ReviewerFinding] = []
    ratings: dict[str, LensRating] = {}
    current: dict[str, str] | None = None

    def flush() -> None:
        if current and current.get("lens"):
            try:
                findings.append(
                    ReviewerFinding(
                        lens=current["lens"],
                        severity=current["severity"],
                        title=current["title"],
                        location=current.get("where", ""),
                        issue=current.get("issue", current["title"]),
                        evidence=current.get("evidence", "").strip().strip('"'),
                        suggested_fix=current.get("fix", ""),
                    )
                )
            except ValidationError:
                pass

    for line in text.splitlines():
        rating = _RATING.match(line)
        if rating:
            lens = _normalize_lens(rating.group(1), dimension)
            if lens:
                ratings[lens] = LensRating(rating.group(2).upper())
                continue
        head = _FINDING_HEAD.match(line)
        if head:
            lens = _normalize_lens(head.group(2) or head.group(3), dimension)
            flush()
            current = {"severity": head.group(1).upper(), "lens": lens or "", "title": head.group(4).strip()}
            continue
        fld = _FIELD.match(line)
        if fld and current is not None:
            key = fld.group(1).lower()
            key = {"location": "where", "suggested fix": "fix"}.get(key, key)
            current[key] = fld.group(2).strip()
    flush()
    if not findings and not ratings:
        return None
    return ReviewerReport(
        dimension=dimension.id,
        lens_ratings=[LensAssessment(lens=k, rating=v) for k, v in ratings.items()],
        findings=findings,
    )
