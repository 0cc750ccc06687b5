"""The false-finding classes issue 28 saw on real write-ups, each on documents of our own: the
reading that misfired no longer fires, and the real problem it resembles is still found.

Every test reviews a pair of documents with the offline reviewer's rules: one where the finding
would be false, one where it is true.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import rule_findings, rule_positives, rule_types


DATA = Path(__file__).parent / "data" / "ds_classes"
RANDOMISED = (DATA / "randomised-checkout-test.md").read_text(encoding="utf-8")


findings, types, positives = rule_findings, rule_types, rule_positives


def test_the_randomised_test_is_reviewed_without_false_findings():
    """A pre-registered randomised test with a TL;DR heading and a final decision, group sizes as
    ratios, a caveat panel, a region table with an average row and a decision stated as 'a full
    rollout is not supported': none of the misreadings fires."""
    found = types(RANDOMISED)
    for wrong in ("causal_claim_without_design", "offline_only_evaluation", "limitations_missing", "no_recommendation",
                  "tldr_missing", "weak_tldr", "buried_lede", "sample_size_missing", "conclusion_contradicts_results",
                  "universal_claim_contradicted", "arithmetic_inconsistent", "untraceable_number", "overreach_unbounded"):
        assert wrong not in found, wrong


# ---------------------------------------------------------------------- design: randomised vs before/after

BEFORE_AFTER = """# The one-page checkout lifted conversion

## Summary

The one-page checkout caused conversion to rise from 7.9% to 8.4%. We recommend keeping it; Priya Shah owns the follow-up.

## Method

We compared the two weeks before the launch on 4 March with the two weeks after it (n = 690,000 visitors).

## Limitations

Two weeks of data after the launch only.
"""


def test_a_randomised_test_is_not_read_as_before_after_and_a_before_after_claim_still_is():
    assert "causal_claim_without_design" not in types(RANDOMISED)
    [causal] = [f for f in findings(BEFORE_AFTER) if f.issue_type == "causal_claim_without_design"]
    assert causal.severity.value == "CRITICAL" and "before" in causal.issue


RANKING = """# New ranker: {verdict}

## TL;DR

The new ranker raised NDCG@10 from 0.412 to 0.437 offline. {plan}

## Method

Offline evaluation on 20,000 judged queries; NDCG@10 with 95% bootstrap intervals (+0.018 to +0.032).

## Limitations

Judgements cover English queries only.
"""


def test_an_online_test_is_seen_and_an_offline_only_launch_is_still_found():
    planned = RANKING.format(verdict="ship after the online test",
                             plan="A pre-registered, randomised A/B test on 5% of traffic per arm starts on 2 May; we ship only if clicks per search rise.")
    assert "offline_only_evaluation" not in types(planned)
    offline = RANKING.format(verdict="replace the current model", plan="We recommend replacing the current model next week; Omar owns the launch.")
    assert "offline_only_evaluation" in types(offline)


# ---------------------------------------------------------------------- limitations, recommendations, summary

NO_LIMITS = RANDOMISED.replace("> **Caveat:** Europe ran a spring promotion during the test; I have not tried to separate these effects.\n", "")


def test_a_caveat_panel_or_sentence_is_a_limitation_and_none_at_all_is_still_found():
    assert "limitations_missing" not in types(RANDOMISED)
    sentence = NO_LIMITS.replace("## Recommendation", "I have not tried to separate the promotion from the checkout.\n\n## Recommendation")
    assert "limitations_missing" not in types(sentence)
    # with nothing stated, the finding needs a result applied beyond what was measured: here, to every region
    extended = NO_LIMITS.replace("will test the single most-requested change, saved cards, on its own in April.",
                                 "will ship saved cards to all regions in April.")
    assert "limitations_missing" not in types(NO_LIMITS)
    assert "limitations_missing" in types(extended)


def test_a_decision_stated_as_supported_is_a_recommendation_and_none_is_still_found():
    supported = RANDOMISED.replace("A full rollout is not supported. Priya Shah (checkout PM) will test the single most-requested "
                                   "change, saved cards, on its own in April.", "A full rollout is supported.")
    assert "no_recommendation" not in types(supported)
    none = re.sub(r"Final decision: do not ship the one-page checkout\. ", "", RANDOMISED.split("## Recommendation")[0])
    none = none.replace("# Checkout redesign: do not ship", "# Checkout redesign test")
    assert "no_recommendation" in types(none)


def test_a_tldr_heading_with_the_decision_is_up_front_and_an_answer_only_at_the_end_is_still_found():
    found = types(RANDOMISED)
    assert not found & {"tldr_missing", "weak_tldr", "buried_lede"}
    body = RANDOMISED.split("## Design")[1]
    late = "# Checkout redesign test\n\n## Design" + body + "\n## Conclusion\n\nFinal decision: do not ship the one-page checkout.\n"
    assert types(late) & {"tldr_missing", "buried_lede"}


# ---------------------------------------------------------------------- group sizes

RATES_ONLY = re.sub(r"\| [\d,]+ / [\d,]+ ", "| ", RANDOMISED).replace("Conversions / visitors | ", "").replace(
    "|---|---|---|\n| Old", "|---|---|\n| Old")


def test_group_sizes_written_as_ratios_count_and_rates_alone_are_still_found():
    assert "28,378 / 345,543" in RANDOMISED
    assert "sample_size_missing" not in types(RANDOMISED)
    assert "28,378" not in RATES_ONLY
    assert "sample_size_missing" in types(RATES_ONLY)


# ---------------------------------------------------------------------- contradictions need one subject

CAMPAIGNS = """# Campaign review: Q3 offers

## Summary

- Campaign 916 outperforms campaign 917 on redemption: 12.4% vs 9.8% (95% CI for the difference 1.9 to 3.3 pts).
- Redemption falls with age: both genders decline with age, from 15.1% at 18-24 to 8.2% at 65+.
- We recommend renewing campaign 916 for Q4; Dana (CRM lead) owns the renewal.

## Method

Customers were randomly assigned to campaign 916 or 917 (n = 18,200 and 17,950).

## Results

Redemption by age band declined for both genders, from 15.1% at 18-24 to 8.2% at 65+.

## Limitations

The campaigns ran in the same four weeks of September; we cannot say whether the gap holds in the holiday season.
"""
SAME_SUBJECT = """# Onboarding flow: activation up

## Summary

The new onboarding flow improved activation for new sign-ups. We recommend keeping it; Lee owns the follow-up.

## Method

New sign-ups were randomly assigned to the old or the new onboarding flow (n = 12,400 per arm).

## Results

Activation with the new onboarding flow fell from 41.2% to 38.0% (95% CI -4.4 to -2.0 pts).

## Limitations

Two weeks of sign-ups only.
"""


def test_two_unrelated_sentences_are_no_contradiction_and_a_real_one_is_still_critical():
    assert not any(f.severity.value == "CRITICAL" for f in findings(CAMPAIGNS))
    [contradiction] = [f for f in findings(SAME_SUBJECT) if f.issue_type == "conclusion_contradicts_results"]
    assert contradiction.severity.value == "CRITICAL" and "fell from 41.2% to 38.0%" in contradiction.issue


# ---------------------------------------------------------------------- tables read as tables

EVERY_REGION = RANDOMISED.replace("Conversion fell in every region except North America, the only region that improved.",
                                  "Conversion fell in every region.")


def test_the_only_region_that_improved_is_no_exception_to_a_claim_and_a_universal_claim_is_still_contradicted():
    assert "universal_claim_contradicted" not in types(RANDOMISED)
    [claim] = [f for f in findings(EVERY_REGION) if f.issue_type == "universal_claim_contradicted"]
    assert "North America" in claim.issue and "+0.03" in claim.issue


ORDERS = """

Orders placed through the new checkout, by region:

| Region | Orders |
|---|---|
| North America | 9,120 |
| Europe | 8,430 |
| APAC | 6,210 |
| Latin America | 4,041 |
| {label} | {value} |
"""


def test_an_average_row_is_not_summed_and_a_total_that_does_not_add_up_is_still_found():
    assert "arithmetic_inconsistent" not in types(RANDOMISED)
    average = RANDOMISED + ORDERS.format(label="Average", value="6,950")
    assert "arithmetic_inconsistent" not in types(average)
    right = RANDOMISED + ORDERS.format(label="Total", value="27,801")
    assert "arithmetic_inconsistent" not in types(right)
    wrong = RANDOMISED + ORDERS.format(label="Total", value="29,801")
    [found] = [f for f in findings(wrong) if f.issue_type == "arithmetic_inconsistent"]
    assert "29,801" in found.issue and "27,801" in found.issue


DISCOUNT = """# Annual plan discount: keep it at 20%

## Summary

Offering a 20% discount on annual plans raised annual sign-ups from 31% to 36% of new subscriptions. We recommend keeping the 20% discount; Mia owns pricing.

## Method

New visitors were randomly assigned to the 20% discount or the current 15% discount (n = 9,800 and 9,750).

## Results

Annual share of new subscriptions: 36.1% with the 20% discount vs 30.9% with 15% (95% CI for the difference 3.9 to 6.5 pts).

## Limitations

Four weeks of sign-ups; renewal behaviour is not yet known.
"""


def test_a_discount_is_a_parameter_and_an_untraceable_result_is_still_found():
    assert "untraceable_number" not in types(DISCOUNT)
    lifted = DISCOUNT.replace("We recommend keeping", "This is a 340% lift in annual revenue. We recommend keeping")
    [untraced] = [f for f in findings(lifted) if f.issue_type == "untraceable_number"]
    assert "340%" in untraced.title


# ---------------------------------------------------------------------- the misses, now found

WAREHOUSE = """# Warehouse pick-path pilot: batching cut walking by 20%

## Summary

Batching orders by aisle cut walking distance per order by 20% in the pilot zones. Error rate, the guardrail, held steady at +1.2 pts [+0.4, +2.0]. We recommend rolling batching out to all zones in May; Sam (ops lead) owns it.

## Method

Zones were randomly assigned to batching or the current process. After removing incomplete badge records, about 57% of rows were dropped. Pilot and control zones differed in average order size before the pilot (p = 0.0048).

## Results

Walking distance per order: 212 m in batching zones vs 265 m in control zones (n = 4 and 14 zones; 95% CI for the difference -71 to -35 m).

## Limitations

The pilot ran in one warehouse for four weeks.
"""


@pytest.mark.parametrize("issue_type, clean", [
    ("selection_bias_unaddressed", ("about 57% of rows were dropped", "3% of rows were dropped")),
    ("covariate_imbalance_ignored", ("differed in average order size before the pilot (p = 0.0048)",
                                     "did not differ in average order size before the pilot (p = 0.61)")),
    ("guardrail_contradiction", ("held steady at +1.2 pts [+0.4, +2.0]", "held steady at +0.1 pts [-0.4, +0.6]")),
])
def test_dropped_rows_a_failed_balance_check_and_a_moving_guardrail_are_found(issue_type, clean):
    assert issue_type in types(WAREHOUSE)
    assert issue_type not in types(WAREHOUSE.replace(*clean))


def test_method_tbd_in_a_draft_is_missing_and_placeholders_are_expected():
    draft = WAREHOUSE.replace(
        "Zones were randomly assigned to batching or the current process. After removing incomplete badge records, about "
        "57% of rows were dropped. Pilot and control zones differed in average order size before the pilot (p = 0.0048).",
        "Method: TBD.")
    found = findings(draft, draft=True)
    assert any(f.issue_type == "missing_section" and "method" in f.title.lower() for f in found)
    assert not any(f.issue_type == "placeholder_left" for f in found)


CONFOUND = """# The loyalty email drove a 14% rise in repeat orders

## Summary

The loyalty email caused a 14% rise in repeat orders in May. We recommend sending it to every member from July; Ana owns it.

## Results

Repeat orders rose from 0.72 to 0.82 per member in the four weeks after the email (n = 48,000 members). The spring menu launched the same week as the email.

## Limitations

We did not have a holdout group.
"""


def test_a_causal_claim_whose_own_text_names_the_confound_is_still_critical():
    [causal] = [f for f in findings(CONFOUND) if f.issue_type == "causal_claim_without_design"]
    assert causal.severity.value == "CRITICAL" and "spring menu" in causal.issue


# ---------------------------------------------------------------------- positives and fixes

def test_positives_never_praise_what_a_finding_faults_and_name_this_document():
    faulted = [f.evidence for f in findings(WAREHOUSE) if f.evidence]
    for p in positives(WAREHOUSE):
        for quote in re.findall(r'"([^"]{12,})"', p.detail):
            assert not any(quote[:40] in e or e[:40] in quote for e in faulted), p
        assert p.title not in ("Results are quantified", "Data and method described")
    assert not any("57% of rows" in p.detail for p in positives(WAREHOUSE))


SELF_SELECTED = """# Pickers who used the new handheld scanner were 18% faster

## Summary

Pickers who used the new handheld scanner picked 18% more lines per hour than pickers who did not. We recommend buying scanners for every zone; Jo (ops lead) owns the purchase.

## Results

Lines per hour: 142 for pickers who used the scanner vs 120 for the others (n = 64 and 210 pickers).

## Limitations

One warehouse, six weeks.
"""


def test_fix_texts_name_the_documents_own_subject_and_carry_no_placeholders():
    found = findings(SELF_SELECTED) + findings(WAREHOUSE) + findings(DISCOUNT) + findings(RANDOMISED)
    for f in found:
        assert not re.search(r"<[a-z][a-z ]*>|\.\.\.|…", f.suggested_fix), f.suggested_fix
    [selection] = [f for f in findings(SELF_SELECTED) if f.issue_type == "selection_bias_unaddressed"]
    assert "pickers who used" in selection.suggested_fix and "email" not in selection.suggested_fix.lower()
