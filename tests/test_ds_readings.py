"""General readings of the offline DS reviewer, each on documents of our own: what the document is
for (and so how much a missing recommendation weighs), lenses the rules cannot judge, positives
that show what they praise, reported statistics checked against each other, group sizes, and the
misreadings seen on real write-ups. Every class has a document where the false finding no longer
fires and one where the real problem is still found.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import rule_findings, rule_positives, rule_types

from review_harness.ds.models import LensRating, Severity
from review_harness.ds.offline.features import Features
from review_harness.ds.offline.purpose import BENCHMARK, DECISION, EXPLORATORY, MEASUREMENT
from review_harness.ds.offline.rules import review_with_rules
from review_harness.ds.offline.view import build_view
from review_harness.ds.rubric import default_rubric

DATA = Path(__file__).parent / "data" / "ds_classes"


def read(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


BSTS = read("bsts-radio-campaign.md")
SURVIVAL = read("survival-plan-churn.md")
BENCHMARK_DOC = read("forecast-benchmark.md")
LAUNCH = read("launch-readout-no-decision.md")
EXPLORE = read("exploratory-rides.md")
RANDOMISED = read("randomised-checkout-test.md")


findings, types, positives = rule_findings, rule_types, rule_positives


def ratings(text: str, dimension: str = "analysis") -> dict:
    return {r.lens: r for r in review_with_rules(dimension, text).lens_ratings}


def purpose(text: str, workflow: str = "general"):
    return Features(build_view(text), workflow).purpose


# ---------------------------------------------------------------------- what the document is for

@pytest.mark.parametrize("text, kind", [
    (BSTS, MEASUREMENT), (BENCHMARK_DOC, BENCHMARK), (EXPLORE, EXPLORATORY), (SURVIVAL, EXPLORATORY),
    (LAUNCH, DECISION), (RANDOMISED, DECISION),
])
def test_the_purpose_is_read_from_the_documents_own_words(text, kind):
    assert purpose(text).kind == kind


def test_a_test_told_as_long_past_is_a_measurement_and_a_test_of_a_change_is_a_decision():
    past = ("# Price test\n\nIn September 2016 the growth team conducted an experiment on the price of the pro plan: half of "
            "new users, chosen at random, saw the doubled price.\n\n## Results\n\nRevenue per user was 3.5 in control and 2.8 "
            "with the new price, a 20% drop.\n")
    assert purpose(past).kind == MEASUREMENT
    present = past.replace("In September 2016 the growth team conducted an experiment on the price of the pro plan",
                           "We are testing the price of the pro plan")
    assert purpose(present).kind == DECISION
    assert purpose(present.replace("We are testing", "This readout is for the decision on"), "general").kind == DECISION
    # the user's own workflow says the work feeds a decision
    assert purpose(EXPLORE, "proactive").kind == DECISION


FOLLOW_UP = ("A test that offers a discount on the annual plan to a random half of new visitors would\n"
             "answer that question.")
SURVIVAL_NO_FOLLOW_UP = SURVIVAL.replace(FOLLOW_UP, "")


@pytest.mark.parametrize("text", [BSTS, BENCHMARK_DOC, SURVIVAL_NO_FOLLOW_UP], ids=["measurement", "benchmark", "exploratory"])
def test_a_missing_next_step_is_minor_where_the_document_informs_rather_than_decides(text):
    found = findings(text)
    assert not any(f.issue_type == "no_recommendation" for f in found)
    assert not any(f.severity == Severity.CRITICAL for f in found)
    [step] = [f for f in found if f.issue_type == "next_step_missing"]
    assert step.severity == Severity.MINOR
    assert "weighs less" in step.issue and "informs rather than decides" in step.issue
    assert re.search(r"retrospective measurement|benchmark|exploratory", step.issue)  # why, in the finding


def test_a_follow_up_is_a_next_step_for_an_exploration_but_a_measured_change_needs_its_decision():
    assert FOLLOW_UP in SURVIVAL
    assert "next_step_missing" not in types(SURVIVAL)
    later = BSTS.replace("- Installs are not readers.", "- It would be interesting to see how many new users borrow a book.\n- Installs are not readers.")
    assert "next_step_missing" in types(later)  # a later study says nothing about the radio spots
    decided = BSTS + "\n## Conclusion\n\nWe will run the spots again in the autumn in the Northern and Eastern districts.\n"
    assert "next_step_missing" not in types(decided)


def test_a_missing_recommendation_is_still_critical_where_the_document_feeds_a_decision_and_says_why():
    [missing] = [f for f in findings(LAUNCH) if f.issue_type == "no_recommendation"]
    assert missing.severity == Severity.CRITICAL
    assert "a document written to support a decision" in missing.issue and "go/no-go" in missing.issue
    # the sentence that names the decision is no recommendation, and claims nothing about all users
    assert not types(LAUNCH) & {"recommendation_vague", "overreach_unbounded"}
    decided = LAUNCH + "\n## Recommendation\n\nWe recommend launching saved searches to all users on 1 July; Ana Ruiz owns the launch.\n"
    assert "no_recommendation" not in types(decided)


def test_severities_by_purpose_live_in_the_rubric():
    actionability = default_rubric().dimension("communication").lens("actionability")
    assert actionability.deduction("no_recommendation").severity == Severity.CRITICAL
    assert actionability.deduction("next_step_missing").severity == Severity.MINOR


# ---------------------------------------------------------------------- lenses the rules cannot judge

@pytest.mark.parametrize("text, method, check", [
    (BSTS, "Bayesian structural time series", "control series"),
    (SURVIVAL, "survival model", "proportional hazards"),
    (BENCHMARK_DOC, "forecasting methods", "same training data"),
])
def test_a_method_the_rules_cannot_check_leaves_methodology_not_assessed_with_what_to_check(text, method, check):
    methodology = ratings(text)["methodology"]
    assert methodology.rating == LensRating.NOT_ASSESSED
    assert method in methodology.note and check in methodology.note


def test_a_randomised_test_the_rules_did_check_is_sound_and_a_finding_still_rates_the_lens():
    assert ratings(RANDOMISED)["methodology"].rating == LensRating.SOUND
    assert ratings(RANDOMISED)["methodology"].note is None
    # a flaw the rules do see under a method they cannot fully check is still reported
    dropped = SURVIVAL.replace("We drew Kaplan-Meier", "After removing accounts with incomplete billing records, about 57% "
                               "of rows were dropped. We drew Kaplan-Meier")
    assert dropped != SURVIVAL
    assert ratings(dropped)["methodology"].rating == LensRating.MAJOR_ISSUES


def test_the_not_assessed_note_reaches_the_report():
    from review_harness.ds.models import DocumentInfo
    from review_harness.ds.render import render_report
    from review_harness.ds.synthesis import synthesize

    rubric = default_rubric()
    reports = {d: review_with_rules(d, BSTS) for d in ("analysis", "communication")}
    doc = DocumentInfo(title="t", source="t.md", word_count=600, reading_minutes=2.6, token_estimate=780, tier=1)
    review = synthesize(doc, reports, [], rubric, requested_mode="full", mode="full", audience="mixed", workflow="general")
    assert "control series" in review.dimensions["analysis"].lens_notes["methodology"]
    assert "Not assessed: a Bayesian structural time series" in render_report(review, rubric)


# ---------------------------------------------------------------------- positives show what they praise

def _quote(detail: str) -> str:
    return re.search(r'"(.+)"', detail).group(1)


def test_a_summary_positive_quotes_the_sentence_that_states_the_answer():
    [tldr] = [p for p in positives(BSTS) if p.credit == "tldr_effective"]
    assert "+17%" in tldr.detail and "Between 3 April" not in tldr.detail
    # a summary that only sets the scene earns no such positive
    scene = BSTS.replace(BSTS[BSTS.index("Over the 28 campaign days"):BSTS.index("## Background")], "\n")
    assert not [p for p in positives(scene) if p.credit == "tldr_effective"]


def test_a_design_positive_quotes_the_assignment_and_is_not_given_for_a_comparison_the_document_calls_not_causal():
    [design] = [p for p in positives(LAUNCH) if p.credit == "sound_design"]
    assert "randomly assigned" in _quote(design.detail)
    assert not [p for p in positives(SURVIVAL) if p.credit == "sound_design"]  # "they chose the annual plan"
    [counterfactual] = [p for p in positives(BSTS) if p.credit == "sound_design"]
    assert "CausalImpact" in _quote(counterfactual.detail) and "causal reading as long as" in counterfactual.detail


def test_an_uncertainty_positive_quotes_a_figure_with_its_interval_not_a_caption():
    caption = ("# Test\n\n## Results\n\nEstimated quantities have 95% credible intervals in parentheses.\n\n"
               "The variant raised sign-ups by 2.1 points (95% CI 0.8 to 3.4) among 40,000 randomly assigned visitors.\n")
    [p] = [p for p in positives(caption) if p.credit == "uncertainty_reported"]
    assert "0.8 to 3.4" in p.detail and "in parentheses" not in p.detail
    assert not [p for p in positives(caption.split("The variant")[0]) if p.credit == "uncertainty_reported"]


def test_a_baseline_positive_never_quotes_the_setting_that_was_changed():
    price = ("# Price test\n\nThe price of the pro plan was raised from 10 dollars to 20 dollars for a random half of new "
             "users.\n\n## Results\n\nRevenue per user fell from 3.5 to 2.8 dollars.\n")
    [p] = [p for p in positives(price) if p.credit == "baselines_given"]
    assert "Revenue per user fell from 3.5" in p.detail and "raised from 10" not in p.detail


# ---------------------------------------------------------------------- statistics checked against each other

OUTSIDE = """# Pause option test

## Summary

Offering a pause kept more customers: +4.8 points (95% CI +1.6 to +4.0). We recommend shipping it; Lena owns the launch.

## Results

| Outcome | Control | Pause | Difference | 95% CI |
|---|---|---|---|---|
| Active at day 90 | 21.3% | 26.1% | +4.8 pts | +3.6 to +6.0 |
| Revenue per customer | $41.20 | $47.90 | +$6.70 | +$4.10 to +$9.30 |

Customers were randomly assigned 50/50 (9,204 and 9,216 customers).

## Limitations

Ninety days of follow-up only.
"""


def test_an_estimate_outside_its_own_interval_is_found_in_prose_and_in_a_table():
    [found] = [f for f in findings(OUTSIDE) if f.issue_type == "interval_inconsistent"]
    assert found.severity == Severity.MAJOR and "+4.8" in found.issue and "+1.6 to +4.0" in found.issue
    fixed = OUTSIDE.replace("(95% CI +1.6 to +4.0)", "(95% CI +3.6 to +6.0)")
    assert "interval_inconsistent" not in types(fixed)
    table = fixed.replace("| +4.8 pts | +3.6 to +6.0 |", "| +4.8 pts | +5.1 to +7.5 |")
    [row] = [f for f in findings(table) if f.issue_type == "interval_inconsistent"]
    assert "+5.1 to +7.5" in row.issue and "Active at day 90" in row.evidence


@pytest.mark.parametrize("consistent", [
    "a reduction of 0.3 points (95% CI -0.5 to -0.1)",  # an unsigned reduction against a signed interval
    "conversion fell from 4.1% to 3.9% (95% CI for the difference -0.5 to +0.1 pp)",  # a level, an interval for the difference
    "the model flagged 412 churners and the old one 361 (95% CI for the difference: 31 to 71)",  # one arm's count
    "the hazard ratio is 0.41 (95% CI 0.37 to 0.45)",
    "the 2019-2022 series (35,064 hourly observations per station)",  # years, not an interval
    "a 12% relative lift (95% CI +0.3 to +0.9 pp)",  # a relative lift, an interval in points
])
def test_estimates_read_every_way_the_document_means_them_are_not_faulted(consistent):
    text = f"# Test\n\n## Results\n\nIn the randomised test, {consistent}. We recommend keeping it; Ana owns it.\n"
    assert "interval_inconsistent" not in types(text)


def test_a_p_value_that_contradicts_its_interval_is_found_and_one_that_agrees_is_not():
    text = ("# Checkout test\n\n## Results\n\nIn the randomised test, conversion fell from 4.1% to 3.9% "
            "(95% CI -0.5 to +0.1 pp, p = {p}). We recommend keeping the old checkout; Ana owns it.\n")
    [found] = [f for f in findings(text.format(p="0.01")) if f.issue_type == "interval_inconsistent"]
    assert "p-value" in found.title and "includes no effect" in found.issue
    assert "interval_inconsistent" not in types(text.format(p="0.21"))
    ratio = ("# Test\n\n## Results\n\nIn the randomised test the odds ratio was 1.33 (95% CI 1.06 to 1.93, p = {p}). "
             "We recommend keeping it; Ana owns it.\n")
    assert "interval_inconsistent" in types(ratio.format(p="0.41"))  # excludes 1, yet p is large
    assert "interval_inconsistent" not in types(ratio.format(p="0.02"))


def test_a_table_p_value_column_is_read_with_its_row():
    table = ("# Test\n\n## Results\n\nCustomers were randomly assigned (4,100 and 4,120 customers).\n\n"
             "| Metric | Control | Treatment | Diff | 95% CI | p | q |\n|---|---|---|---|---|---|---|\n"
             "| Retention | 5.8 | 7.4 | +1.6 | [1.4, 1.8] | {p} | 0.002 |\n\nWe recommend keeping it; Ana owns it.\n")
    assert "interval_inconsistent" not in types(table.format(p="<0.001"))
    assert "interval_inconsistent" in types(table.format(p="0.38"))


def test_a_guardrail_called_unchanged_beside_a_significant_test_is_found():
    text = ("# Test\n\n## Results\n\nIn the randomised test, sign-ups rose 4% (95% CI 2% to 6%). The refund rate was "
            "unaffected ({a} in control vs {b} in treatment, p = {p}), so the guardrails held.\n\n"
            "We recommend launching; Ana owns it.\n")
    [found] = [f for f in findings(text.format(a="2.3%", b="3.2%", p="0.004")) if f.issue_type == "guardrail_contradiction"]
    assert "p = 0.004" in found.issue and "refund rate was unaffected" in found.evidence
    assert "guardrail_contradiction" not in types(text.format(a="2.3%", b="2.4%", p="0.61"))
    other = text.format(a="2.3%", b="2.4%", p="0.61").replace("The refund rate was unaffected", "Orders rose while the refund rate was unaffected")
    assert "guardrail_contradiction" not in types(other)


# ---------------------------------------------------------------------- group sizes

SIZES = """# Button colour test

## Summary

The green button raised checkout starts from 11.2% to 12.2% of product-page visitors (p = 0.04). We recommend keeping it; Ana owns it.

## Design

Visitors were split 50/50 by cookie between the grey and the green button. {sizes}

## Results

Checkout starts: 11.2% with the grey button and 12.2% with the green one; one extra start per 100 visitors is about 19,000 more starts a month.
"""


@pytest.mark.parametrize("sizes", [
    "The grey arm had 18,420 visitors and the green arm 18,377.",
    "We saw 18,420 and 18,377 visitors.",
    "Each arm had about 18,400 visitors per arm.",
    "The test ran on 36,797 visitors in total over two weeks of the test.",
    "Checkout starts / visitors: 2,063 / 18,420 and 2,242 / 18,377.",
    "(n = 18,420 and 18,377)",
])
def test_group_sizes_in_any_form_count(sizes):
    assert "sample_size_missing" not in types(SIZES.format(sizes=sizes))


def test_rates_with_only_a_rate_base_or_an_effect_count_still_miss_their_group_sizes():
    found = [f for f in findings(SIZES.format(sizes="")) if f.issue_type == "sample_size_missing"]
    assert found and found[0].severity == Severity.MAJOR


def test_a_test_only_proposed_is_no_comparison_of_groups():
    proposed = ("# Ranking eval\n\n## Summary\n\nThe new ranker raised NDCG@10 from 0.41 to 0.44 on 20,000 judged queries "
                "(95% CI +0.02 to +0.04). We recommend an A/B test before launch; Omar owns it.\n")
    assert "sample_size_missing" not in types(proposed)


def test_a_point_estimate_with_no_interval_and_no_group_sizes_is_one_finding():
    text = ("# Tiers\n\n## Summary\n\nAfter the randomised test, revenue per new customer rose 18%. Conversion was "
            "up 2%. We recommend the new tiers; Ana owns them.\n")
    found = findings(text)
    assert "sample_size_missing" not in {f.issue_type for f in found}
    [point] = [f for f in found if f.issue_type == "no_uncertainty"]
    assert "sample size" in point.issue


# ---------------------------------------------------------------------- misreadings of real write-ups, on documents of our own

def test_a_byline_is_no_summary_and_a_purpose_statement_is_a_weak_one():
    found = findings(SURVIVAL)
    assert not any("notebook write-up" in f.evidence for f in found)
    [weak] = [f for f in found if f.issue_type == "weak_tldr"]
    assert "We wanted to understand" in weak.evidence
    assert "tldr_missing" in types(SURVIVAL.replace("We wanted to understand how long customers of our meal-planning "
                                                    "subscription stay, and whether that\ndiffers between the monthly and "
                                                    "the annual plan. This is an exploratory look at the customers who\n"
                                                    "signed up in 2022, followed until 31 December 2023.", ""))


def test_a_section_saying_what_the_analysis_does_not_tell_is_a_limitation_and_its_should_not_is_no_recommendation():
    found = types(SURVIVAL)
    assert not found & {"limitations_missing", "recommendation_vague"}
    # with no limits stated, what needs them is a result applied beyond what was measured
    unbounded = LAUNCH.split("## Limitations")[0] + "## Recommendation\n\nWe recommend launching saved searches in every market in July.\n"
    assert "limitations_missing" in types(unbounded)


def test_a_count_of_the_data_is_not_a_result_to_trace_and_an_untraced_result_still_is():
    assert "untraceable_number" not in types(BENCHMARK_DOC)
    claimed = BENCHMARK_DOC.replace("In short: on this data set,", "In short: N-BEATS is 37% faster to fit; on this data set,")
    [untraced] = [f for f in findings(claimed) if f.issue_type == "untraceable_number"]
    assert "37%" in untraced.title


def test_a_standard_method_or_the_methods_a_benchmark_compares_need_no_justification():
    assert "method_unjustified" not in types(BSTS) | types(SURVIVAL) | types(BENCHMARK_DOC)
    forest = ("# Churn flag\n\n## Summary\n\nThe new flag catches 14% more churners at the same alert volume. We recommend "
              "switching; Noor owns it.\n\n## Method\n\nWe trained a random forest on 18 months of account history.\n")
    assert "method_unjustified" in types(forest)


def test_an_exploratory_write_up_answers_in_its_patterns_and_needs_no_interval_on_a_census():
    found = types(EXPLORE)
    assert not found & {"missing_section", "no_uncertainty", "limitations_missing", "untraceable_number", "tldr_missing"}
    assert "weak_tldr" in found  # its opening only says what it explores
    sampled = EXPLORE.replace("This notebook explores the 1.2 million trips", "This notebook estimates, from a survey of 400 riders,")
    assert purpose(sampled).kind != EXPLORATORY or "no_uncertainty" not in types(sampled)


def test_a_benchmark_on_one_window_is_minor_and_one_on_many_windows_is_not_faulted():
    assert "single_evaluation" not in types(BENCHMARK_DOC)  # a rolling origin, 48 stations
    one = ("# ETS vs a neural network\n\nWe compare two forecasting methods on the sales of 500 shops. In short: ETS is "
           "as accurate as the neural network (MASE 0.81 vs 0.79) and cheaper.\n\n## Set-up\n\nThe test period is the "
           "last 28 days of 2022; each method forecasts 28 days ahead once.\n\n## Discussion\n\nThe result may not hold "
           "for other data. Use ETS first.\n")
    [single] = [f for f in findings(one) if f.issue_type == "single_evaluation"]
    assert single.severity == Severity.MINOR and "no_uncertainty" not in types(one)


# ---------------------------------------------------------------------- write-ups in the shape of notebooks and reports

CAUSAL_RMD = read("rmd-causalimpact.md")
SURVIVAL_RMD = read("rmd-survival.md")
ELECTRICITY = read("electricity-forecast.md")
LATEX_AB = read("latex-ab.md")


def test_an_interval_described_in_words_is_uncertainty_and_an_assumption_with_its_failure_is_a_limitation():
    found = types(CAUSAL_RMD)
    assert not found & {"no_uncertainty", "limitations_missing", "tldr_missing"}
    assert "weak_tldr" in found or "buried_lede" in found  # the opening says what it will do; the answer comes last
    bare = CAUSAL_RMD.replace("The 95% interval for the relative effect goes from 4.7% to 14%, so it does not include zero.", "")
    bare = bare.replace(bare[bare.index("```\nPosterior inference"):bare.index("The plot below")], "")
    assert "no_uncertainty" in types(bare)
    unconceded = CAUSAL_RMD.replace(", although some people may have started on the web and finished in the app", "")
    unconceded = unconceded.replace("### Conclusion\n", "### Conclusion\n\nThe same change should go to all platforms next quarter.\n")
    assert "limitations_missing" in types(unconceded)


def test_a_note_of_caution_is_neither_a_decision_nor_a_recommendation_and_model_estimates_need_intervals():
    assert purpose(SURVIVAL_RMD).kind == EXPLORATORY  # "we should note" decides nothing
    found = findings(SURVIVAL_RMD)
    assert not {f.issue_type for f in found} & {"recommendation_vague", "no_recommendation", "limitations_missing"}
    [point] = [f for f in found if f.issue_type == "no_uncertainty"]
    assert "hazard ratio" in point.evidence or "less likely" in point.evidence  # the estimate, not the data's size
    assert ratings(SURVIVAL_RMD)["completeness"].rating == LensRating.SOUND  # "get_look(4410)" cites nothing


def test_inputs_the_forecast_would_have_to_forecast_first_are_leakage_and_windows_are_parameters():
    found = findings(ELECTRICITY)
    [leak] = [f for f in found if f.issue_type == "leakage"]
    assert leak.severity == Severity.CRITICAL and re.search(r"forecast first|actual degree days", leak.evidence)
    assert "untraceable_number" not in {f.issue_type for f in found}  # "the next 12 months", "30-year normals"
    lagged = ELECTRICITY.replace("The regression uses the actual degree days of each month in the test period.",
                                 "The regression uses the degree days of the same month a year earlier.").replace(
        " To forecast the next 12 months, the degree days will have to be forecast first, for example with 30-year monthly normals.", "")
    assert "leakage" not in types(lagged)


def test_a_decisive_recommendation_needs_no_owner_and_a_vague_one_still_does():
    assert not types(LATEX_AB) & {"recommendation_vague", "no_recommendation"}
    assert not [p for p in positives(LATEX_AB) if p.credit == "baselines_given"]  # "from 20 April to 27 April" is no baseline
    vague = LATEX_AB.replace("We recommend deploying longer snippets.", "We could consider looking into longer snippets at some point.")
    assert "recommendation_vague" in types(vague)


WM_CAMPAIGN = read("wm-campaign.md")
WM_AB = read("wm-ab.md")


def test_a_report_of_a_randomised_test_with_a_clear_decision_is_not_faulted_for_owners_dates_or_all_users():
    found = types(WM_AB)
    assert not found & {"recommendation_vague", "overreach_unbounded", "untraceable_number"}
    # "from 10 to 24 February" is a date range, "about 20 million searches a day" the setting's scale
    wider = WM_AB.replace("We recommend enabling synonym expansion for all users of English Wikipedia.",
                          "We recommend enabling synonym expansion in all markets and every language.")
    wider = wider.replace("This test only covered English Wikipedia. Synonym lists for other languages are of lower quality, "
                          "so the result may not carry over. ", "We did not measure whether the clicked results were relevant. ")
    assert "overreach_unbounded" in types(wider)


def test_a_campaign_measurement_that_says_what_to_do_next_time_has_its_next_step():
    assert not types(WM_CAMPAIGN) & {"next_step_missing", "no_recommendation", "no_uncertainty", "limitations_missing"}
    assert ratings(WM_CAMPAIGN)["methodology"].rating == LensRating.NOT_ASSESSED
    silent = WM_CAMPAIGN.replace("Future campaigns should be planned with an evaluation in mind, for example by running them "
                                 "in some regions and not others at random.", "")
    assert "next_step_missing" in types(silent)


@pytest.mark.parametrize("stated, actual", [
    ("from 7.8% to 7.3% (−1.7 points, 95% CI −1.9 to −1.5)", "-0.5"),
    ("from $38.40 to $40.10: +$1.08 (95% CI +$0.90 to +$2.50)", "+1.70"),
])
def test_a_difference_that_is_not_the_difference_of_its_own_figures_is_found(stated, actual):
    text = f"# Test\n\n## Results\n\nIn the randomised test of 40,000 customers, the metric moved {stated}. We recommend keeping it; Ana owns it.\n"
    [found] = [f for f in findings(text) if f.issue_type == "arithmetic_inconsistent"]
    assert actual in found.issue
    right = text.replace("−1.7 points", "−0.5 points").replace("+$1.08", "+$1.70")
    assert "arithmetic_inconsistent" not in types(right)


def test_the_summary_quoting_another_interval_than_the_results_is_found():
    text = OUTSIDE.replace("(95% CI +1.6 to +4.0)", "(95% CI +3.6 to +7.2)")
    [found] = [f for f in findings(text) if f.issue_type == "interval_inconsistent"]
    assert "summary" in found.title.lower() and "+3.6 to +6.0" in found.issue
    same = OUTSIDE.replace("(95% CI +1.6 to +4.0)", "(95% CI +3.6 to +6.0)")
    assert "interval_inconsistent" not in types(same)


README_FORECAST = read("readme-forecast.md")


def test_a_model_tuned_on_its_test_period_is_leakage_and_one_tuned_apart_is_not():
    found = findings(README_FORECAST)
    [leak] = [f for f in found if f.issue_type == "leakage"]
    assert "tuned with a grid search on the test period" in leak.evidence
    apart = README_FORECAST.replace("tuned with a grid search on the test period", "tuned by time-series cross-validation on the training years")
    assert "leakage" not in types(apart)


def test_a_project_readme_opening_is_a_weak_summary_and_its_contents_list_is_no_answer():
    found = findings(README_FORECAST)
    by_type = {f.issue_type: f for f in found}
    assert "tldr_missing" not in by_type and ("buried_lede" in by_type or "weak_tldr" in by_type)
    assert "metric_without_baseline" not in by_type  # "for 45 stores" sizes the data
    [single] = [f for f in found if f.issue_type == "single_evaluation"]  # "rolling means" are features, not windows
    assert "tested on 1 to 14 July 2017" in single.evidence
    bare = README_FORECAST.replace("A machine learning project to forecast daily unit sales for 45 stores, built as the final "
                                   "project of a data science bootcamp.\n", "")
    [missing] = [f for f in findings(bare) if f.issue_type == "tldr_missing"]
    assert "Table of Contents" not in missing.issue


ETS_BLOG = read("blog-ets-vs-np.md")


def test_a_decision_taken_by_comparing_forecasters_is_judged_on_its_test_window_not_as_effects():
    assert purpose(ETS_BLOG).kind == DECISION  # "we were asked whether we should replace ..."
    found = findings(ETS_BLOG)
    by_type = {f.issue_type: f for f in found}
    assert "no_uncertainty" not in by_type and "single_evaluation" in by_type
    assert "tldr_missing" not in by_type  # the opening states the question: a weak summary, the answer comes last
    assert "buried_lede" in by_type or "weak_tldr" in by_type
    assert not [f for f in found if "asked whether we should" in f.evidence]  # the question is no recommendation


def test_a_comparison_of_people_by_what_they_do_is_read_in_any_tense_and_a_named_selection_addresses_it():
    text = ("# Offer targeting\n\n## Results\n\nWe note that customers that complete the offer spend significantly more "
            "than those that do not (median $142 against $61).\n\n## Recommendation\n\nWe recommend sending the offer to "
            "everyone; Ana owns it.\n")
    [found] = [f for f in findings(text) if f.issue_type == "selection_bias_unaddressed"]
    assert "customers that complete" in found.evidence
    named = text.replace("## Recommendation", "Customers who complete offers are self-selected: heavy spenders complete "
                                               "more of them.\n\n## Recommendation")
    assert "selection_bias_unaddressed" not in types(named)
    other = text.replace("## Recommendation", "The data has no bias towards a specific offer.\n\n## Recommendation")
    assert "selection_bias_unaddressed" in types(other)  # a bias of something else addresses nothing


def test_latex_percentages_and_the_assignment_sentence_are_read_for_positives():
    report = ("---\ntitle: Test\n---\n\n\\begin{abstract}\nWe ran a test for a week. We found that the test group had a "
              "3.64\\% higher probability of engaging with the page than the control group (1.07\\%, 6.21\\%). We should "
              "proceed with this change.\n\\end{abstract}\n\n## Methods\n\nOf those 0.5%, 1 in 10 were randomly selected "
              "into the A/B test. Of those, users were randomly assigned the test variation or the control variation with "
              "equal probabilities (3,019 and 2,560 users).\n")
    found = {p.credit: p for p in positives(report)}
    assert "3.64" in found["tldr_effective"].detail
    assert "randomly assigned the test variation" in found["sound_design"].detail
