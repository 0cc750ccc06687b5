"""Readings that made the offline DS reviewer state findings its gold does not support, on documents
of our own: each false reading no longer fires, and beside it the real problem it resembles is still
found. The readings are general: what needs limitations (a result applied beyond what was measured),
what counts as a reported uncertainty (a test at a stated level, a p-value as a package prints it),
which figures are results (not a share of the data's rows, not the setting's figures), where a null
result's size is (the table it points to), what an acronym is (not a title in capitals; the field's
own to readers of code), where the answer is (an opening paragraph that states it), what a number is
(not an HTML character reference), a change told as done, a method set against the simpler one."""

from __future__ import annotations

import pytest

from helpers import rule_findings, rule_types
from review_harness.ds.offline.features import numbers, numeric_uncertainty
from review_harness.ds.prepare import detect_tldr

PILOT = """# Weekend delivery slots: what the pilot showed

## Summary
Adding weekend delivery slots in Leeds raised weekly orders per active customer from 1.21 to 1.29 (+6.6%,
95% CI +2.1% to +11.0%) in a randomised pilot. {recommendation}

## Method
{method}

## Results
Orders per active customer were 1.29 with weekend slots against 1.21 without (+6.6%, 95% CI +2.1% to +11.0%).
"""
ASSIGNED = "We randomly assigned 8,000 active customers in Leeds to see weekend slots (4,000) or not (4,000) for six weeks."


def pilot(recommendation: str, method: str = ASSIGNED) -> str:
    return PILOT.format(recommendation=recommendation, method=method)


# ------------------------------------------------------------------ limitations: what needs bounds


def test_a_decision_for_what_was_tested_asks_for_no_limitations():
    text = pilot("We recommend keeping weekend slots in Leeds from May; Ops (Kim) owns it.")
    assert "limitations_missing" not in rule_types(text)


def test_a_result_applied_to_every_market_with_no_limits_is_found_with_its_sentence():
    text = pilot("We recommend rolling weekend slots out to all 14 cities from May; Ops (Kim) owns it.")
    found = [f for f in rule_findings(text) if f.issue_type == "limitations_missing"]
    assert found and "all 14 cities" in found[0].evidence


def test_a_random_sample_of_the_whole_population_extends_nothing_when_applied_to_all_of_it():
    method = ("We drew 8,000 active customers at random from all cities and assigned half of them to see weekend "
              "slots for six weeks.")
    text = pilot("We recommend adding weekend slots in all cities from May; Ops (Kim) owns it.", method)
    assert "limitations_missing" not in rule_types(text)


# ------------------------------------------------------------------ uncertainty reported as a test at a level


@pytest.mark.parametrize("sentence", [
    "The joint hypothesis cannot be rejected at 10% significance level: (Pr > F) = 0.202.",
    "The coefficient on the punishment variables is not significantly different from zero at 10% significance level.",
    "The null hypothesis of no time effects is not rejected with (Pr > F) = 0.0642.",
])
def test_a_test_at_a_stated_level_or_a_printed_p_value_is_an_uncertainty(sentence):
    assert numeric_uncertainty(sentence)


def test_words_about_significance_with_no_level_or_value_are_not_an_uncertainty():
    assert not numeric_uncertainty("The effect of the tax became insignificant in the later models.")


REGRESSION = """# State beer taxes and traffic deaths

## Summary
A higher beer tax goes with 18% fewer traffic deaths per 10,000 people in the state-effects model, and the
tax effect falls to 9% once income is controlled for. {evidence}

## Results
The unemployment rate is associated with 4% fewer deaths per point. Per capita income raises deaths by 6%.
"""


@pytest.mark.parametrize("evidence, found", [
    ("Both estimates are significant at 5% significance level.", False),  # tested at a stated level
    ("Both estimates matter for policy.", True),  # the same effects with no test at all
])
def test_effects_tested_at_a_stated_level_are_not_reported_without_uncertainty(evidence, found):
    assert ("no_uncertainty" in rule_types(REGRESSION.format(evidence=evidence))) is found


CHURN_MODEL = """# Predicting churn for a telecom provider

## Introduction
The average churn rate in the telecom industry is approximately 2.2% per month, and acquiring a customer costs
five times as much as keeping one (industry survey, 2020).

## Analysis
From the plot below it is clear that the target is imbalanced: about 75% of observations belong to the class
of customers who stayed.

## Results
With consideration to the churn class, our model had an F1 score of 0.63 and a recall of 0.82.{effect}
"""


def test_a_share_of_the_data_rows_and_the_settings_figures_are_no_headline_result():
    assert "no_uncertainty" not in rule_types(CHURN_MODEL.format(effect=""))


def test_an_effect_of_the_documents_own_given_bare_still_lacks_uncertainty():
    effect = " Customers the model flagged and called churned 19%, against 26% of those not called: a 27% drop."
    assert "no_uncertainty" in rule_types(CHURN_MODEL.format(effect=effect))


# ------------------------------------------------------------------ a null result that points to its table


NULL = """# Do stiffer drunk-driving laws reduce deaths?

## Method
We fit state and year fixed-effects regressions of the night-time fatality rate on the laws and controls for
48 states from 1982 to 1988.

## Results
The coefficients on mandatory jail and community service are small.

## Conclusion
The estimates for the laws become insignificant for night-time fatality rates{where}.
"""


def test_a_null_verdict_that_names_the_table_of_its_estimates_is_sized():
    assert "null_result_unsized" not in rule_types(NULL.format(where=" (Appendix A.1)"))


def test_a_null_verdict_with_no_estimate_anywhere_is_still_unsized():
    assert "null_result_unsized" in rule_types(NULL.format(where=""))


# ------------------------------------------------------------------ what an acronym is


def test_a_title_set_in_capitals_is_words_not_acronyms():
    text = ("# Measuring a campaign without an experiment\n\n## Summary\nThe campaign raised searches by 51% "
            "(95% CI 30% to 70%).\n\n## Background\nIn 2015 researchers published a paper entitled \"INFERRING CAUSAL "
            "IMPACT USING BAYESIAN STRUCTURAL TIME-SERIES MODELS\", which this post follows.\n\n## Results\nSearches "
            "rose by 51% after the campaign (95% CI 30% to 70%), and the model says CAUSAL IMPACT USING BAYESIAN "
            "STRUCTURAL MODELS fits the pre-period well.\n")
    assert "jargon_unexplained" not in rule_types(text)


STATS = """# Do beer taxes save lives?

## Summary
{body}

## Results
Model 1 is a pooled OLS of fatalities on the beer tax; ANOVA rejects equal state effects; the GLM with a log link
agrees with the OLS.
"""
BODY = ("The pooled OLS shows a positive beer-tax coefficient of 0.36 (p = 0.01), the ANOVA of state effects is "
        "significant, and the GLM agrees with the OLS.")
CODE = "\n\n```r\n" + "\n".join(f"fit{i} <- plm(fatal ~ beertax, data = df, model = 'within')" for i in range(12)) + "\n```\n"


def test_the_fields_acronyms_are_known_to_readers_of_a_write_up_that_shows_its_code():
    assert "jargon_unexplained" not in rule_types(STATS.format(body=BODY) + CODE)


def test_the_same_acronyms_for_a_mixed_audience_without_code_are_still_unexplained():
    assert "jargon_unexplained" in rule_types(STATS.format(body=BODY))


# ------------------------------------------------------------------ where the answer is


OPENING = """---
title: "Two writers behind one account"
---

I don't normally write about politics, but this weekend I saw a hypothesis that begged to be checked with data.

When the account wishes a team good luck, the post comes from one phone; when it insults a rival, from another.

Others have looked at the timeline and noticed the pattern tends to hold up.

{answer}

### The dataset

We downloaded 1,390 posts from the last year with the public interface and kept those from the two phones.

### Comparison of words

Posts from the second phone use 40% more words of anger, and link to pictures four times less often.
""" + "\nMore detail on each word follows here for the reader who wants it.\n" * 30


def test_an_answer_stated_after_a_few_paragraphs_of_context_is_the_summary():
    text = OPENING.format(answer="My analysis, shown below, concludes that **the two phones are used by different people**.")
    tldr = detect_tldr(text)
    assert tldr.found and "concludes that" in tldr.text
    assert not {"tldr_missing", "buried_lede", "weak_tldr"} & rule_types(text)


def test_an_opening_with_context_only_still_has_no_summary():
    text = OPENING.format(answer="Here is how I looked at it.")
    assert "tldr_missing" in rule_types(text)


# ------------------------------------------------------------------ numbers that are markup


def test_an_html_character_reference_is_no_number():
    assert numbers("Our country does not feel &#39;great already&#39; to the millions") == []
    assert [n.value for n in numbers("about 39% of the posts")] == [39.0]


# ------------------------------------------------------------------ a chart the text introduces


CHART = """# Tabs, spaces and salary

## Summary
Spaces go with higher salaries (+8.6%, 95% CI 6% to 11%), but the gap shrinks once company type is known.

## Results
{intro}

![](salary_plot.png)

Interesting, right? So why do better paid developers prefer spaces?
"""


def test_a_chart_the_sentence_before_it_explains_needs_no_caption():
    intro = "The original post shows that developers who use spaces earn more at every level of experience."
    assert "visual_unclear" not in rule_types(CHART.format(intro=intro))


def test_a_bare_chart_in_the_results_is_still_unclear():
    intro = "The original post looked at developers who use spaces."
    assert "visual_unclear" in rule_types(CHART.format(intro=intro))


# ------------------------------------------------------------------ a launch told as done


RANKER = """# Search quality: ranker v7

## Overview
{opening}

## Results
| Metric | v6 | v7 |
|---|---|---|
| NDCG@10 on logged queries | 0.412 | 0.431 |
| MRR | 0.52 | 0.55 |

NDCG@10 rose from 0.412 to 0.431 and MRR from 0.52 to 0.55 on the judged sample of logged queries.
"""


@pytest.mark.parametrize("opening, found", [
    ("This page collects the Q2 search quality metrics following the 16 April launch of ranker v7.", False),  # done
    ("We recommend launching ranker v7 to all traffic next sprint.", True),  # asked for on offline metrics alone
])
def test_metrics_collected_after_a_launch_that_happened_ask_for_no_online_test(opening, found):
    assert ("offline_only_evaluation" in rule_types(RANKER.format(opening=opening))) is found


# ------------------------------------------------------------------ a method set against the simpler one


FORECAST = """# Weekly demand forecast

## Summary
The gradient-boosted demand model forecasts next-week unit sales per store with 3.1% MAPE on the 2024 test
weeks{against}.

## Method
We trained on weekly sales for 412 stores from 2021 to 2023 and tested on the 52 weeks of 2024.
"""


def test_a_method_whose_result_is_set_against_the_simpler_one_is_justified():
    assert "method_unjustified" not in rule_types(FORECAST.format(against=", against 11.8% for the current moving-average forecast"))


def test_a_complex_method_with_no_reason_and_no_simpler_result_is_still_unjustified():
    assert "method_unjustified" in rule_types(FORECAST.format(against=""))


# ------------------------------------------------------------------ two different arithmetic slips


def test_two_different_arithmetic_slips_are_two_findings():
    text = """# Loyalty programme, Q3

## Summary
Member conversion rose from 2.0% to 2.5%, a 50% increase.

## Results
| Segment | Q2 | Q3 |
|---|---|---|
| New members | $4.0M | $6.3M |
| Returning members | $5.1M | $5.1M |
| Lapsed members | $3.0M | $2.6M |
| **All members** | **$12.1M** | **$14.6M** |
"""
    found = [f for f in rule_findings(text) if f.issue_type == "arithmetic_inconsistent"]
    assert {f.title for f in found} == {"Table total does not match its rows", "Percentage change does not match its own numbers"}


# ------------------------------------------------------------------ where a result comes from, said as clear


@pytest.mark.parametrize("claim, found", [
    ("My analysis concludes that the posts from the two phones are clearly from different people.", True),
    ("My analysis suggests that the posts from the two phones may come from different people.", False),
])
def test_a_source_or_cause_said_to_be_clear_is_an_overclaim_and_a_hedged_one_is_not(claim, found):
    text = ("# Two phones, one account\n\n## Summary\n" + claim + "\n\n## Results\nPosts from the second phone use 40% "
            "more words of anger and link to pictures four times less often than posts from the first.\n")
    assert ("unsupported_conclusion" in rule_types(text)) is found
