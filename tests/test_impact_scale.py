"""Impact review: estimate, interval, standard error and p-value on one scale; a p-value that
disagrees with its interval; and facts derived from what is reported (donors from units, the
smallest attainable permutation p, the p-value two arms' counts imply)."""

from __future__ import annotations

import random

import pytest

from review_harness.impact.artifact import read_artifact
from review_harness.impact.checks import run_checks
from review_harness.impact.verdict import checks_verdict


def contract(**fields) -> dict:
    return {"initiative_id": "case", "model_type": "instrumental_variables",
            "model_params": {"dependent_variable": "glycated haemoglobin of 6.5% or more",
                             "instrument": "lottery selection"},
            "diagnostics": {"first_stage_f": 500.0}, **fields}


def review(raw: dict):
    checks = run_checks(read_artifact(raw, "case.json"))
    return checks_verdict(checks)[0], {c.id: c for c in checks}


# --------------------------------------------------------------- units and scale


def test_an_interval_in_percentage_points_beside_a_fraction_is_caught_and_the_rescaled_p_shown():
    verdict, checks = review(contract(effect_estimate=0.0093, ci_lower=-4.44, ci_upper=6.31, p_value=0.73))
    assert verdict == "unusable" and checks["common_scale"].status == "fail"
    message = checks["common_scale"].message
    assert "100.5 times the estimate" in message and "p of about 0.73" in message
    same_units = review(contract(effect_estimate=0.93, ci_lower=-4.44, ci_upper=6.31, p_value=0.73))
    assert same_units[0] == "usable" and "common_scale" not in same_units[1]


def test_the_reverse_and_a_standard_error_in_other_units_are_caught():
    reverse = review(contract(effect_estimate=0.93, ci_lower=-0.0444, ci_upper=0.0631))[1]
    assert reverse["common_scale"].status == "fail" and "a fraction beside an estimate" in reverse["common_scale"].message
    se = review(contract(effect_estimate=5.0, standard_error=0.02, ci_lower=1.08, ci_upper=8.92))[1]
    assert se["common_scale"].status == "fail" and "times the reported standard_error 0.02" in se["common_scale"].message


def test_correct_intervals_never_look_like_other_units():
    rng = random.Random(7)
    for _ in range(300):
        effect = rng.choice([-1, 1]) * 10 ** rng.uniform(-3, 3)
        se = abs(effect) * 10 ** rng.uniform(-1.5, 1.5)
        skew = rng.uniform(0.8, 1.25)  # an asymmetric interval, as a bootstrap or a log scale gives
        raw = contract(effect_estimate=effect, ci_lower=effect - 1.96 * se, ci_upper=effect + 1.96 * se * skew)
        assert "common_scale" not in review(raw)[1], raw


# --------------------------------------------------------------- p against the interval


def test_a_p_value_stronger_than_its_interval_allows_is_a_warning_and_contradicting_it_a_failure():
    # -9.15 in [-16.70, -1.60] implies p of about 0.018
    verdict, checks = review(contract(effect_estimate=-9.15, ci_lower=-16.70, ci_upper=-1.60, p_value=0.001))
    assert verdict == "caution" and checks["p_value_matches_ci"].status == "warn"
    assert "overstates the evidence" in checks["p_value_matches_ci"].message
    assert review(contract(effect_estimate=-9.15, ci_lower=-16.70, ci_upper=-1.60, p_value=0.02))[0] == "usable"
    verdict, checks = review(contract(effect_estimate=-9.15, ci_lower=-16.70, ci_upper=-1.60, p_value=0.4))
    assert verdict == "unusable" and checks["p_value_matches_ci"].status == "fail"
    # weaker than the interval (a permutation or exact test): conservative, not a disagreement
    weaker = review(contract(effect_estimate=-9.15, ci_lower=-16.70, ci_upper=-1.60, p_value=0.03))[1]
    assert weaker["p_value_matches_ci"].status == "pass"


# --------------------------------------------------------------- derived facts


def synth(**summary) -> dict:
    return {"schema_version": "2.0", "model_type": "synthetic_control",
            "data": {"model_params": {"intervention_date": "1990", "dependent_variable": "GDP per capita",
                                      "treated_unit": "West Germany", "donor_pool": "16 OECD countries",
                                      "frequency": "annual"},
                     "impact_estimates": {"intervention_effect": -1600.0, "pre_intervention_mean": 15000.0},
                     "model_summary": {"pre_period_length": 30, "post_period_length": 14, **summary},
                     "diagnostics": {"pre_rmspe": 100.0, "permutation_p_value": 0.0588}},
            "metadata": {"initiative_id": "case", "executed_at": "2010-01-01T00:00:00+00:00"}}


def test_donors_are_the_units_less_the_treated_one_and_one_over_units_is_the_smallest_p():
    by_units = review(synth(n_units=17))[1]["permutation_inference"]
    by_donors = review(synth(n_donors=16))[1]["permutation_inference"]
    for found in (by_units, by_donors):
        assert found.status == "pass" and "smallest attainable p is 1/17" in found.message
        assert "supports the effect" in found.message and "no result of this design can fall below 0.05" in found.message
    assert "n_units 17 less the treated unit" in by_units.message
    assert "not distinguishable" in review(synth())[1]["permutation_inference"].message  # nothing to derive from


def test_two_arms_counts_imply_the_p_value():
    raw = {"initiative_id": "case", "model_type": "ab_test", "effect_estimate": 0.5, "treatment_n": 20000,
           "control_n": 20000, "treatment_mean": 10.5, "control_mean": 10.0,
           "model_params": {"dependent_variable": "conversion rate (percent of visitors)", "treatment_group": "new",
                            "control_group": "old"}, "diagnostics": {}}
    verdict, checks = review(raw)
    assert checks["uncertainty_reported"].status == "pass" and "counts and rates" in checks["uncertainty_reported"].message
    # se = sqrt(.105 * .895 / 20000 + .1 * .9 / 20000) * 100 = 0.3028: p about 0.099
    assert "0.09" in checks["p_value_reported"].message
    raw["p_value"] = 0.0001
    assert review(raw)[1]["p_value_matches_ci"].status == "fail"
    raw["p_value"] = 0.1
    assert review(raw)[1]["p_value_matches_ci"].status == "pass"
    raw["model_params"]["dependent_variable"] = "orders per visitor"  # not a share: nothing implied
    del raw["p_value"]
    assert review(raw)[1]["uncertainty_reported"].status == "not_available"


@pytest.mark.parametrize("label", ["ab_test", "rct"])
def test_counts_imply_nothing_when_the_rates_are_not_shares(label):
    raw = {"initiative_id": "case", "model_type": label, "effect_estimate": 5.0, "treatment_n": 100, "control_n": 100,
           "treatment_mean": 150.0, "control_mean": 145.0,
           "model_params": {"dependent_variable": "conversion rate", "treatment_group": "a", "control_group": "b"}}
    assert review(raw)[1]["uncertainty_reported"].status == "not_available"
