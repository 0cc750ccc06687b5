"""A test described by its arms is a comparison design, and a table row that counts each arm's units
gives their sizes, however the row is labelled. Documents of our own; each reading sits beside the
case it must not swallow (a split only planned, a before/after with no arms, a table of rates only)."""

from __future__ import annotations

from helpers import rule_findings, rule_types

ARMS = """# Free delivery threshold test

## Summary

Lowering the free-delivery threshold raised checkout conversion by 1.6 percentage points.

## Method

We ran a two-arm test for four weeks. Shoppers were split by account id, 50/50, in both markets.

## Results

| metric | control | treatment |
|---|---|---|
| checkout conversion | 11.9% | 13.5% |
| {row} | 51,020 | 50,874 |
"""

BEFORE_AFTER = """# Free delivery threshold change

## Summary

Lowering the free-delivery threshold raised checkout conversion by 1.6 percentage points.

## Method

We compared the four weeks after the change with the four weeks before it. Next quarter we should
split shoppers 50/50 between the old and the new threshold to confirm it.

## Results

Checkout conversion was 11.9% before and 13.5% after.
"""


def _causal(text: str) -> list:
    return [f for f in rule_findings(text) if f.issue_type == "causal_claim_without_design"]


def test_a_test_described_by_its_arms_supports_its_causal_claim():
    assert _causal(ARMS.format(row="shoppers reaching checkout")) == []


def test_a_split_only_planned_is_no_design_for_a_before_after_claim():
    [found] = _causal(BEFORE_AFTER)
    assert "raised checkout conversion" in found.evidence


def test_a_count_row_labelled_by_its_unit_and_a_qualifier_gives_the_arms_sizes():
    text = ARMS.format(row="shoppers reaching checkout")
    findings = rule_findings(text)
    assert "sample_size_missing" not in {f.issue_type for f in findings}
    assert not any("sample size" in f.title.lower() for f in findings)


def test_a_row_of_rates_is_no_count_row():
    text = ARMS.replace("| {row} | 51,020 | 50,874 |\n", "| average order value | $61.20 | $54.90 |\n")
    findings = rule_findings(text)
    assert any("sample size" in f.title.lower() for f in findings) or "sample_size_missing" in rule_types(text)
