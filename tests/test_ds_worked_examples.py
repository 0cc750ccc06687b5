"""Readings of the offline DS reviewer found on write-ups that packages ship (tutorials, worked
examples, package pages): each class on documents of our own, with the false finding that no longer
fires and the real problem it resembles still found.
"""

from __future__ import annotations

import pytest
from helpers import rule_findings, rule_types

from review_harness.ds.models import LensRating, Severity
from review_harness.ds.offline import lexicon as lx
from review_harness.ds.offline.checks.analysis_metrics import _RESULT_RATE
from review_harness.ds.offline.checks.analysis_readings import _TUNED_ON_TEST
from review_harness.ds.offline.features import Features, numeric_uncertainty
from review_harness.ds.offline.purpose import DECISION, DEMONSTRATION
from review_harness.ds.offline.rules import review_with_rules
from review_harness.ds.offline.view import build_view

CODE = "```python\n" + "\n".join(f"step_{i} = fit(frame, column_{i})" for i in range(30)) + "\n```\n"

# a worked example on made-up data: a library's notebook that shows a method at work
WORKED = f"""# Estimating the effect of a loyalty card with matching

This notebook demonstrates how to estimate the effect of a loyalty card on monthly spend with
nearest-neighbour matching. We generate synthetic data for 4,000 shoppers, of whom some signed up.

## Building the data

Shoppers who spent more before the card existed were more likely to sign up, so we match on the
spend of the three months before sign-up.

{CODE}
## Matching and the estimate

After matching, card holders spend 41 euros more a month than matched shoppers without the card
(95% CI 33 to 49 euros), close to the 40 euros we built into the data.

{CODE}
## Checking the estimate

A placebo treatment drawn at random gives an effect of 0.6 euros (95% CI -7 to 8 euros), as it should.
"""

# the same analysis told as a company's report on its own customers: no tutorial words, no made-up data
REPORT = (WORKED.replace("This notebook demonstrates how to estimate", "We estimated")
          .replace("We generate synthetic data for 4,000 shoppers", "We used the records of 4,000 shoppers")
          .replace(", close to the 40 euros we built into the data", ""))


def purpose(text: str):
    return Features(build_view(text), "general").purpose


def test_a_worked_example_is_read_as_one_and_the_same_analysis_as_a_report_is_not():
    assert purpose(WORKED).kind == DEMONSTRATION
    assert purpose(REPORT).kind != DEMONSTRATION
    page = "# fastmatch\n\nMatching estimators in Python.\n\n## Installation\n\n    pip install fastmatch\n\n## Example\n\nThe effect is 41 (95% CI 33 to 49).\n"
    assert purpose(page).kind == DEMONSTRATION  # a package's own page
    course = "# Introduction to matching with fastmatch\n\nMatching pairs each treated unit with a similar untreated one.\n"
    assert purpose(course).kind == DEMONSTRATION
    # data someone else simulated and handed over is analysed as real: the analysis is no worked example
    given = ("# Offer analysis\n\nThe simulated data we were given covers 30 days and 300,000 events. Customers who saw "
             "the offer spent 12% more.\n")
    assert purpose(given).kind != DEMONSTRATION
    made = given.replace("The simulated data we were given covers", "We generate synthetic data that covers")
    assert purpose(made).kind == DEMONSTRATION
    # a decision the document says it feeds still wins over its made-up numbers
    decided = WORKED.replace("This notebook demonstrates", "We need to decide whether to keep the card; this notebook demonstrates")
    assert purpose(decided).kind == DECISION


def test_a_worked_example_owes_no_summary_recommendation_limitations_or_code_appendix_and_says_so():
    found = rule_types(WORKED)
    for owed in ("tldr_missing", "weak_tldr", "buried_lede", "no_recommendation", "next_step_missing",
                 "limitations_missing", "appendix_in_body", "missing_section"):
        assert owed not in found, owed
    assert not any(f.severity == Severity.CRITICAL for f in rule_findings(WORKED))
    lenses = {r.lens: r for r in review_with_rules("communication", WORKED).lens_ratings}
    for lens in ("structure", "actionability"):
        assert lenses[lens].rating == LensRating.NOT_ASSESSED
        assert "worked example" in lenses[lens].note and "This notebook demonstrates" in lenses[lens].note
    # the report of the same analysis is still held to a report's standard
    report = {f.issue_type: f for f in rule_findings(REPORT, off=frozenset())}  # appendix_in_body is off by default
    assert report["tldr_missing"].severity == Severity.CRITICAL
    assert "appendix_in_body" in report


def test_a_flaw_in_a_worked_example_is_still_found():
    tuned = WORKED.replace("so we match on the", "so we tuned the matching caliper on the test set and match on the")
    assert "leakage" in rule_types(tuned)


# ---------------------------------------------------------------------- readings of the text itself

def test_inline_math_is_not_a_placeholder_but_a_price_left_as_x_is():
    assert not lx.PLACEHOLDER.search(r"the test removes an edge ($X\to Y$) when $Y$ is independent of $X$")
    assert lx.PLACEHOLDER.search("the new plan costs $X per seat")
    assert lx.PLACEHOLDER.search("revenue grew by XX% in the quarter")


def test_scoring_calibration_on_the_test_data_is_not_tuning_on_it():
    assert not _TUNED_ON_TEST.search("We fit the model on the training data and assess its discrimination and calibration on the test data.")
    assert not _TUNED_ON_TEST.search("We calibrated the model and evaluated it on the test set.")
    assert _TUNED_ON_TEST.search("The learning rate was tuned with a grid search on the test period.")
    assert _TUNED_ON_TEST.search("We calibrated the probabilities on the test set before reporting accuracy.")


def test_an_interval_set_as_inline_math_is_an_uncertainty_and_a_bare_mention_is_not():
    assert numeric_uncertainty(r"the $95\%$ confidence intervals of both contributions are above $0$")
    assert numeric_uncertainty("confidence intervals are shown in the chart") is None


def test_a_metric_defined_in_a_bold_label_is_defined():
    body = ("# Churn model check\n\nWe compare two churn models for the renewals team on 12,000 accounts.\n\n"
            "## Results\n\nThe {label} of the new model is 0.12 against 0.19 for the old one (95% CI of the difference "
            "0.04 to 0.10). The {plain} matters because renewals follow it.\n\n## Recommendation\n\nWe recommend the new model.\n")
    defined = body.format(label="**Renewal loss score**: the share of renewals the model misses.\n\nThe renewal loss score", plain="renewal loss score")
    undefined = body.format(label="renewal loss score", plain="renewal loss score")
    assert "metric_undefined" not in rule_types(defined, off=frozenset())  # the check is off by default: run it
    assert "metric_undefined" in rule_types(undefined, off=frozenset())
    assert "metric_undefined" not in rule_types(undefined)  # off by default (low measured precision)


def test_a_strong_word_that_says_what_a_step_is_for_is_no_overclaim():
    base = ("# Fraud rule review\n\nWe checked the new fraud rule on 30,000 orders for the payments team.\n\n## Results\n\n"
            "Blocked orders fell from 2.1% to 1.7% (95% CI of the change -0.6 to -0.2 points). {claim}\n\n"
            "## Recommendation\n\nWe recommend keeping the rule.\n")
    aim = base.format(claim="The thresholds are adjusted for multiple testing to guarantee a fixed false discovery rate.")
    claim = base.format(claim="This guarantees that no fraud gets through.")
    assert "unsupported_conclusion" not in rule_types(aim)
    assert "unsupported_conclusion" in rule_types(claim)


def test_escapes_in_a_link_are_no_rate_but_a_written_share_is():
    assert not _RESULT_RATE.search("the [Kaplan-Meier estimator](https://example.org/wiki/Kaplan%E2%80%93Meier)")
    assert not _RESULT_RATE.search("[full notebook](https://example.org/Case%20Study%20-%20Segments.ipynb)")
    assert _RESULT_RATE.search("retention was 42% in the treated group")
    assert _RESULT_RATE.search("retention rose by 3.5 % overall")


def test_should_as_an_expectation_is_no_recommendation_but_advice_is():
    assert lx.should_is_expectation("Booking changes affect the room type, so it should affect the cancellations too.")
    assert lx.should_is_expectation("With a random treatment the new estimate should go to zero.")
    assert not lx.should_is_expectation("We should increase the budget for search ads.")
    assert not lx.should_is_expectation("The team should move the budget to search ads, and it should remain there.")
    doc = ("# Cancellations\n\nWe looked at 9,000 bookings for the revenue team.\n\n## Graph\n\n"
           "A longer lead time should affect the cancellations, so it is a common cause. You can also pass the common causes "
           "directly (not recommended!) instead of a graph.\n\n## Results\n\nCancellations were 31% with a changed room and "
           "38% without (95% CI of the difference -9 to -5 points).\n")
    recos = [s.text for s in Features(build_view(doc), "general").recommendations]
    assert not any("lead time" in r or "not recommended" in r for r in recos)
    advised = doc + "\n## Recommendation\n\nWe recommend that the revenue team stop changing rooms on arrival.\n"
    assert any("We recommend" in s.text for s in Features(build_view(advised), "general").recommendations)


def test_a_factor_in_someones_decision_is_not_the_documents_decision():
    text = ("# Lead times\n\nThe country plays a role in deciding whether a guest books early. Lead times differ by country: "
            "the median is 21 days in one and 64 in another.\n")
    assert purpose(text).cue != "deciding whether"
    asked = "# Lead times\n\nWe must decide whether to open bookings a year ahead. The median lead time is 21 days.\n"
    assert purpose(asked).kind == DECISION


@pytest.mark.parametrize("text, flagged", [
    ("## Identified estimand\n\nThe printed estimand Estimand type is shown below, with an effect of 4%.", False),
    ("We compared the the two groups over four weeks.", True),
    ("The The result holds in both regions.", True),
])
def test_a_word_that_ends_one_line_and_starts_the_next_is_no_repeated_word(text, flagged):
    doc = f"# Note\n\nWe checked the signup flow for the growth team on 5,000 visitors.\n\n{text}\n"
    assert ("polish" in rule_types(doc, off=frozenset())) is flagged  # off by default: turned on to test its reading


def test_a_test_that_did_not_reject_read_as_confirming_is_found_and_the_careful_reading_is_not():
    base = ("# Delivery delays\n\nWe traced last week's rise in late deliveries for the logistics team, over 2,400 orders.\n\n"
            "## Causal graph\n\n{claim}\n\n## Results\n\nLate deliveries rose from 4.1% to 6.3% (95% CI of the change +1.5 to "
            "+2.9 points), and most of the change comes from the carrier's capacity.\n\n## Recommendation\n\n"
            "We recommend that the logistics team add a second carrier for the northern routes by June.\n")
    confirmed = base.format(claim="Since the independence tests do not reject our graph, we consider the graph confirmed.")
    careful = base.format(claim="The independence tests do not reject our graph; this does not prove the graph is correct.")
    hit = [f for f in rule_findings(confirmed) if f.issue_type == "unsupported_conclusion"]
    assert hit and "did not reject" in hit[0].title and "confirmed" in hit[0].evidence
    assert not any("did not reject" in f.title for f in rule_findings(careful))


def test_a_method_named_as_an_example_or_taught_needs_no_reason_but_one_chosen_in_a_report_does():
    report = ("# Churn scores\n\nWe scored 8,000 accounts for the retention team with a random forest on last year's usage. "
              "Accounts in the top decile churned at 14% against 3% for the rest.\n\n## Recommendation\n\n"
              "We recommend that the retention team call the top decile each month.\n")
    assert "method_unjustified" in rule_types(report)
    named = report.replace("with a random forest on last year's usage",
                           "with a logistic regression on last year's usage, which is as easy to run as a random forest")
    assert "method_unjustified" not in rule_types(named)
    taught = ("# Using random forests for churn\n\nThis notebook demonstrates how to fit a random forest to churn data we "
              "generate. The forest ranks 8,000 made-up accounts; the top decile churns at 14% against 3%.\n")
    assert "method_unjustified" not in rule_types(taught)


def test_a_segment_row_is_not_the_measure_a_sentence_calls_flat_but_the_metric_row_is():
    doc = ("# Fill rate test\n\nWe tested instant booking on 6,000 requests for the marketplace team.\n\n## Results\n\n"
           "| Category | Fill rate change |\n|---|---|\n| Plumbing | +0.4 pts (-0.6 to 1.4) |\n| Cleaning | −5.7 pts (−6.8 to −4.6) |\n\n"
           "{claim}\n\n## Recommendation\n\nWe recommend keeping instant booking for plumbing only.\n")
    segment = doc.format(claim="Cleaning requests grew 30%, while the number of cleaning pros was flat.")
    metric = doc.format(claim="The cleaning fill rate held steady.")
    assert "guardrail_contradiction" not in rule_types(segment)
    assert "guardrail_contradiction" in rule_types(metric)
