"""False-finding classes seen on outside write-ups, each on documents of our own
(tests/data/ds_false_classes/): the false reading no longer fires, and beside it the real problem it
resembles is still found. The readings are general: a sentence's mood (a hedge, a plan), the role of
a section (a disclaimer is a limitation), the role of a number (a level or an id, a number inside a
link), the bounds of an interval (counts of units are sizes, not uncertainty)."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import rule_findings, rule_positives, rule_types
from review_harness.core.mood import hedged_before, prospective, prospective_at
from review_harness.ds.offline.features import interval_with_bounds, numbers

DATA = Path(__file__).parent / "data" / "ds_false_classes"


def read(name: str) -> str:
    return (DATA / f"{name}.md").read_text(encoding="utf-8")


def credits(name: str) -> set[str]:
    return {p.credit for p in rule_positives(read(name))}


# ------------------------------------------------------------------ a hedge is no overclaim, nor a causal claim


def test_a_hedge_is_not_read_as_an_overclaim_or_a_causal_claim():
    types = rule_types(read("hedge"))
    assert "unsupported_conclusion" not in types and "causal_claim_without_design" not in types


def test_the_same_claim_made_outright_is_still_an_overclaim():
    found = [f for f in rule_findings(read("overclaim")) if f.issue_type == "unsupported_conclusion"]
    assert found and found[0].title == "Conclusion stated more strongly than the evidence"
    assert "proves" in found[0].evidence


@pytest.mark.parametrize("text, word", [
    ("It's difficult to say definitively that the banner caused it.", "definitively"),
    ("It is too early to call the effect proven.", "proven"),
    ("We cannot yet say conclusively that the lift holds.", "conclusively"),
])
def test_a_hedge_governs_the_strong_word_after_it(text, word):
    assert hedged_before(text, text.index(word))


@pytest.mark.parametrize("text, word", [
    ("This proves definitively that the banner caused the rise.", "definitively"),
    ("The test shows conclusively that the lift holds.", "conclusively"),
])
def test_a_strong_word_said_outright_is_not_hedged(text, word):
    assert not hedged_before(text, text.index(word))


# ------------------------------------------------------------------ a disclaimer section is a limitation


def test_a_disclaimer_section_counts_as_limitations():
    assert "limitations_missing" not in rule_types(read("disclaimer"))


def test_the_same_document_without_it_still_lacks_limitations():
    assert "limitations_missing" in rule_types(read("no-limits"))


# ------------------------------------------------------------------ numbers that name things, numbers inside links


def test_a_level_number_is_not_a_headline_result():
    types = rule_types(read("level-id"))
    assert "metric_without_baseline" not in types and "untraceable_number" not in types


def test_a_summary_figure_the_results_never_give_is_still_found():
    found = [f for f in rule_findings(read("figure-untraced")) if f.issue_type == "untraceable_number"]
    assert found and "4.2" in found[0].title


@pytest.mark.parametrize("text", [
    "Most players who churn stop at level 30.",
    "The button appears from stage 12 onwards, and id 4471 is the control build.",
    "See https://wiki.example.com/x?ids=12%2C40%2C9&page=3 for the plan.",
])
def test_numbers_that_name_things_or_sit_in_a_link_are_no_results(text):
    assert numbers(text) == []


def test_a_result_beside_a_level_is_still_a_number():
    assert [n.raw for n in numbers("Retention at level 30 rose to 41.5%.")] == ["41.5%"]


def test_a_token_inside_a_link_is_no_unexplained_term():
    assert "jargon_unexplained" not in rule_types(read("url-token"))


# ------------------------------------------------------------------ a design announced is not the design used


def test_a_recommended_or_wished_for_randomisation_is_not_credited_as_random_assignment():
    assert "sound_design" not in credits("hedge")  # "We recommend an A/B test before deciding"
    assert "sound_design" not in credits("future-randomise")  # "We should randomise who receives the emails"


def test_random_assignment_that_was_done_is_still_credited():
    assert "sound_design" in credits("randomised")


@pytest.mark.parametrize("text, word, planned", [
    ("We should randomise who receives the emails next quarter.", "randomise", True),
    ("We recommend an A/B test before deciding.", "A/B", True),
    ("We'll confirm the win with an interleaving experiment.", "interleaving", True),
    ("Run an A/B test on 5% of traffic.", "A/B", True),
    ("We randomly assigned who received the emails.", "randomly", False),
    ("Users were randomly assigned until the sample reached 10,000.", "randomly", False),
])
def test_a_sentences_mood_is_read_by_tense_modality_and_form(text, word, planned):
    assert prospective_at(text, text.index(word)) is planned


def test_a_section_of_next_steps_is_prospective_whatever_its_verbs():
    assert prospective("An interleaving experiment on 5% of traffic.", "Next steps")
    assert not prospective("An interleaving experiment on 5% of traffic.", "Method")


# ------------------------------------------------------------------ counts of users are no uncertainty


def test_group_counts_are_not_credited_as_uncertainty():
    assert "uncertainty_reported" not in credits("user-counts")


def test_an_interval_on_the_estimate_is_credited():
    assert "uncertainty_reported" in credits("interval-given")


@pytest.mark.parametrize("text", ["activation rose from 42% to 47% (12,400 vs 12,350 users)",
                                  "activation rose from 42% to 47% in groups of [12,400, 12,350] users",
                                  "sign-ups ranged (1,000–2,000 users a day)"])
def test_counts_in_brackets_are_no_interval(text):
    assert interval_with_bounds(text) is None


# ------------------------------------------------------------------ the missed reading: self-selected exposure


def test_an_effect_claimed_from_self_selected_exposure_is_a_finding():
    found = [f for f in rule_findings(read("self-selected-causal"))
             if f.issue_type in ("selection_bias_unaddressed", "causal_claim_without_design")]
    assert found and "multiple times" in found[0].evidence


def test_the_same_comparison_with_random_exposure_is_not_one():
    randomised = read("self-selected-causal").replace(
        "## Data\n", "## Data\nUsers were randomly assigned a frequency cap of 1, 3 or 6 impressions; ", 1).replace(
        "Users shown our display ads multiple times bought 2.3 times as often as users shown them once",
        "Users randomly assigned a cap of 6 impressions bought 2.3 times as often as users assigned a cap of 1")
    types = rule_types(randomised)
    assert "selection_bias_unaddressed" not in types and "causal_claim_without_design" not in types
