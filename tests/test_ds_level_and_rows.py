"""Two readings of reported statistics in the offline DS reviewer, on documents of our own: the
confidence level written before an interval ('95% CI [...]') is not an estimate, and a metric the
text calls stable is checked against its own row of a results table, wherever the interval sits."""

from __future__ import annotations

import pytest
from helpers import rule_findings, rule_types

READOUT = """# Faster search: A/B test readout

## Summary
Faster search raised the click-through rate from 21.0% to 21.6% ({diff}{sep} 95% CI [+0.2, +1.0], p = 0.003).
We recommend shipping it to all users.

## Design
Users were randomly assigned 50/50 for two weeks: 52,110 in control and 52,004 in treatment.

## Limitations
Two weeks cannot show whether the effect fades as users get used to the new results page.
"""


@pytest.mark.parametrize("sep", [",", ";"])
def test_a_confidence_level_before_an_interval_is_not_an_estimate(sep):
    assert "interval_inconsistent" not in rule_types(READOUT.format(diff="+0.6 pts", sep=sep))


@pytest.mark.parametrize("sep", [",", ";"])
def test_an_estimate_outside_its_interval_is_still_found_in_that_form(sep):
    [found] = [f for f in rule_findings(READOUT.format(diff="+1.6 pts", sep=sep)) if f.issue_type == "interval_inconsistent"]
    assert "+1.6" in found.issue and "+0.2" in found.issue


GUARDRAIL = """# Saved carts: A/B test readout

## Summary
Saved carts raised orders per visitor by 2.1% (95% CI +0.8% to +3.4%). We recommend a full rollout.

## Design
Visitors were randomly assigned 50/50 for 21 days: 88,400 in control and 88,150 in treatment.

## Results
| metric | control | treatment | {header} |
|---|---|---|---|
| orders per visitor | 0.142 | 0.145 | +2.1% [+0.8%, +3.4%] |
| {metric} | {a} | {b} | {cell} |

{claim}

## Limitations
Three weeks may miss seasonal buyers.
"""


def guardrail(**kw) -> str:
    values = dict(header="difference (95% CI)", metric="support tickets per 1k orders", a="4.1", b="4.6",
                  cell="+0.5 [+0.2, +0.8]", claim="Support tickets per order held steady.")
    values.update(kw)
    return GUARDRAIL.format(**values)


def test_a_metric_called_stable_beside_its_moved_row_is_found():
    [found] = [f for f in rule_findings(guardrail()) if f.issue_type == "guardrail_contradiction"]
    assert "held steady" in found.evidence and "+0.2" in found.issue


@pytest.mark.parametrize("kw", [
    dict(cell="+0.5 [−0.1, +1.1]"),                                   # the interval includes zero: it may not have moved
    dict(claim="Support tickets per order rose slightly."),           # nobody calls it stable
    dict(claim="The checkout page held steady in load time."),        # another metric is called stable
    dict(header="treatment level (95% CI)", cell="4.6 [4.3, 4.9]"),  # an interval for a level, not a change
    dict(metric="refund hazard ratio", cell="1.2 [1.1, 1.3]", claim="The refund hazard held steady."),  # a ratio
])
def test_no_finding_when_the_row_does_not_contradict_the_claim(kw):
    assert "guardrail_contradiction" not in rule_types(guardrail(**kw))
