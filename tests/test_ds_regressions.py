"""Findings the offline DS reviewer made right before and lost, each on a document of our own
(tests/data/ds_regressions/): a metric called stable is compared with its OWN interval, wherever the
document reports it (the same clause, another sentence of prose, a table row), never with another
metric's; group sizes are read from a table row that counts the groups' units."""

from __future__ import annotations

from pathlib import Path

from helpers import rule_findings, rule_types

DATA = Path(__file__).parent / "data" / "ds_regressions"


def read(name: str) -> str:
    return (DATA / f"{name}.md").read_text(encoding="utf-8")


def _stable(name: str) -> list:
    return [f for f in rule_findings(read(name)) if f.issue_type == "guardrail_contradiction"]


def test_a_metric_called_stable_is_not_judged_on_another_metrics_interval():
    # conversion's interval excludes zero; the refund rate's own (-0.10 to +0.14) includes it
    assert _stable("stable-other-metric") == []


def test_a_metric_called_stable_beside_its_own_moved_interval_is_found():
    [found] = _stable("stable-own-interval-moved")
    assert "held steady" in found.evidence and "+0.05 to +0.45" in found.issue


def test_a_guardrail_called_stable_while_its_estimate_elsewhere_moved_is_found():
    [found] = _stable("stable-guardrail-moved")
    assert "the refund rate held steady" in found.evidence
    assert "Refund rate" in found.issue and "+0.25 pts (95% CI +0.05 to +0.45)" in found.issue
    assert "+0.09" not in found.issue.split(" calls ")[1]  # judged on its own estimate, not conversion's


def test_group_sizes_in_a_table_row_count():
    assert "sample_size_missing" not in rule_types(read("visitors-row"))


def test_a_table_with_no_count_row_still_lacks_sample_sizes():
    assert "sample_size_missing" in rule_types(read("visitors-missing"))
