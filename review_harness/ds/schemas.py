"""The DS reviewer's response schema, one per dimension: the rubric's lens, issue-type and
credit ids as enums, so a model under constrained decoding can only write what the parser
accepts (an id outside the rubric would cost the finding)."""

from __future__ import annotations

from inspect_ai.model import ResponseSchema

from review_harness.core.schema import response_schema
from review_harness.ds.models import ReviewerReport
from review_harness.ds.rubric import Dimension


def reviewer_schema(dimension: Dimension) -> ResponseSchema:
    lenses = [lens.id for lens in dimension.lenses]
    enums: dict[str, list[str]] = {
        "dimension": [dimension.id],
        "lens_ratings[].lens": lenses,
        "findings[].lens": lenses,
        "positives[].lens": lenses,
    }
    issue_types = [rule.id for lens in dimension.lenses for rule in lens.deductions]
    if issue_types:
        enums["findings[].issue_type"] = issue_types
    if dimension.credits:
        enums["positives[].credit"] = [credit.id for credit in dimension.credits]
    return response_schema(
        "reviewer_report",
        ReviewerReport,
        description="Per-lens ratings, findings (CRITICAL first), positives, own score.",
        enums=enums,
    )
