"""False-finding classes seen on shipped designs, each beside the real problem it resembles: the
false one no longer fires, the real one is still found. Documents written for these tests.
"""

from __future__ import annotations

from review_harness.design.offline.engine import review_as_persona

REQS = ("# Widget autoscaling — Requirements\n\n## Goals\n\n- Scale widget replicas with load.\n\n"
        "## Non-goals\n\n- Building a new monitoring exporter.\n")
HEAD = ("# Widget autoscaling — Design\n\n## Proposal\n\nThe controller reads the queue depth from the metrics API "
        "and scales widget replicas between 2 and 20.\n\n")


def titles(persona: str, design: str, requirements: str = REQS) -> list[str]:
    return [f.title for f in review_as_persona(persona, "design", design, requirements).findings]


def questionnaire(*items: tuple[str, str]) -> str:
    return HEAD + "## Production readiness\n\n" + "".join(f"###### {q}\n\n{a}\n\n" for q, a in items)


def test_a_plain_no_answers_a_questionnaire_item():
    design = questionnaire(("Will enabling this feature result in any new API calls?", "No."),
                           ("Does this feature depend on any specific services running in the cluster?", "No."),
                           ("How can this feature be disabled?", "Turn off the `WidgetAutoscaling` feature gate."))
    assert not any(t.startswith("Readiness question dismissed") for t in titles("edge-case-prober", design))


def test_na_to_a_failure_mode_or_slo_question_on_a_feature_that_can_fail_is_still_found():
    design = questionnaire(("Will enabling this feature result in any new API calls?", "No."),
                           ("How does this feature react if the API server is unavailable?", "n/a"),
                           ("What are the SLIs an operator can use to determine the health of the service?", "n/a"))
    found = [t for t in titles("edge-case-prober", design) if t.startswith("Readiness question dismissed")]
    assert len(found) == 2 and any("unavailable" in t or "API server" in t for t in found), found


def test_a_link_to_a_related_document_does_not_build_what_is_out_of_scope():
    design = HEAD + "The existing pipeline is used as is; see the [related monitoring exporter proposal](../exporter/README.md).\n"
    assert "Design builds what the requirements rule out of scope" not in titles("requirement-auditor", design)


def test_a_design_that_builds_the_non_goal_is_still_found():
    design = HEAD + "We will also build a new monitoring exporter that scrapes every widget and ships its own dashboards.\n"
    assert "Design builds what the requirements rule out of scope" in titles("requirement-auditor", design)


def test_a_sufficiency_put_as_a_question_or_condition_claims_nothing():
    for sentence in ("Whether one replica is enough depends on the load test planned for the next milestone.",
                     "Is a single controller enough for clusters of this size?"):
        design = HEAD + f"## Capacity\n\n{sentence}\n"
        assert "Sufficiency claimed without a check" not in titles("assumption-hunter", design), sentence


def test_a_sufficiency_stated_as_fact_is_still_found():
    design = HEAD + "## Capacity\n\nOne controller replica is enough for every cluster.\n"
    assert "Sufficiency claimed without a check" in titles("assumption-hunter", design)


def test_what_users_build_with_the_design_is_no_reliability_claim():
    design = HEAD + "This lets developers build robust applications on top of widgets.\n"
    assert "Reliability claimed without a number" not in titles("feasibility-skeptic", design)


def test_a_reliability_claim_about_the_design_itself_is_still_found():
    design = HEAD + "The controller is robust and highly available.\n"
    assert "Reliability claimed without a number" in titles("feasibility-skeptic", design)


PROSE_REQS = "# Retries — Requirements\n\n## Motivation\n\nClients should retry failed calls safely without overloading servers.\n"


def test_against_prose_requirements_the_designs_own_mechanism_is_no_extra_scope():
    design = ("# Retries — Design\n\n## Detailed design\n\nClients retry with exponential backoff. We also provide a "
              "mechanism for servers to signal clients to wait before the next attempt.\n")
    assert "Extra scope with no requirement behind it" not in titles("requirement-auditor", design, PROSE_REQS)


def test_against_prose_requirements_an_announced_addition_is_still_extra_scope():
    design = ("# Retries — Design\n\n## Detailed design\n\nClients retry with exponential backoff. We will also ship a "
              "machine-learning model that predicts which users are about to churn and surfaces them in a new dashboard.\n")
    found = [f for f in review_as_persona("requirement-auditor", "design", design, PROSE_REQS).findings
             if f.title == "Extra scope with no requirement behind it"]
    assert found and found[0].severity.value == "Important"


NG_REQS = ("# Names — Requirements\n\n## Goals\n\n- Allow dotted metric names.\n\n## Non-goals\n\n"
           "- Adding function-like suffix syntax such as name.sum for histogram selection.\n")


def test_keeping_a_door_open_for_a_non_goal_does_not_build_it():
    design = ("# Names — Design\n\n## Syntax\n\nNames are quoted inside the braces. The quoting is forward-compatible with a "
              "possible function-like suffix syntax such as name.sum for histogram selection.\n")
    assert "Design builds what the requirements rule out of scope" not in titles("requirement-auditor", design, NG_REQS)
    assert "Design's objective includes what the requirements exclude" not in titles("first-principles", design, NG_REQS)


def test_building_the_non_goal_is_still_found():
    design = ("# Names — Design\n\n## Syntax\n\nNames are quoted inside the braces.\n\n## Histogram suffixes\n\n"
              "We will also build the function-like suffix syntax such as name.sum for histogram selection in the parser.\n")
    assert "Design builds what the requirements rule out of scope" in titles("requirement-auditor", design, NG_REQS)


def test_sufficiency_of_something_that_is_no_resource_claims_nothing_to_size():
    design = HEAD + "## Implementation\n\nThe parser already supports this form, so the implementation is not a problem.\n"
    assert "Sufficiency claimed without a check" not in titles("assumption-hunter", design)


def test_a_validation_that_rejects_other_input_is_no_compatibility_break():
    design = ("# Sources — Design\n\n## API\n\nThe API server will reject data sources other than the listed kinds.\n\n"
              "## Compatibility\n\nThe change is fully backwards compatible.\n")
    assert "Compatibility claimed beside a change callers or users see" not in titles("requirement-auditor", design)


STREAM = ("# Components — Design\n\n## Detailed design\n\nThe server renders each component and streams the output to the "
          "client, which merges it into the page.\n\n")


def test_an_operation_only_a_faq_or_an_open_research_area_names_is_not_the_designs_to_handle():
    design = STREAM + ("## Open areas of research\n\n- **Bundling**. The client must be able to fetch the bundle from a static "
                       "resource server such as a CDN.\n\n## FAQ\n\n### Is this slow?\n\nThe client fetches data from the API "
                       "server only once per navigation.\n")
    assert "No failure handling for remote dependencies" not in titles("edge-case-prober", design)


def test_an_operation_the_design_specifies_with_no_failure_path_is_still_found():
    design = STREAM + "## Loading\n\nThe client fetches the bundle from a static resource server such as a CDN before rendering.\n"
    assert "No failure handling for remote dependencies" in titles("edge-case-prober", design)


def test_an_open_point_about_an_optional_further_idea_or_a_deferred_part_is_no_open_decision():
    design = HEAD + ("## Privacy\n\nOne possibility to further reduce exposure is to add more ways to set the exclusion list, "
                     "although it is not clear what those should be.\n\n## Notifications\n\nThe push scheme is not part of this "
                     "proposal today, but we are considering adding it.\n")
    assert not any(t.startswith("Open decision") for t in titles("first-principles", design))


def test_an_open_decision_the_design_rests_on_is_still_found():
    design = HEAD + "## Privacy\n\nThe retention window of the request logs is not yet decided.\n"
    assert any(t.startswith("Open decision") for t in titles("first-principles", design))


def test_a_quality_named_as_an_aim_is_no_claim_without_a_number():
    design = HEAD + ("## Transport\n\nImplementations that need to achieve high throughput SHOULD send requests without waiting "
                     "for earlier responses.\n")
    assert "Scale claimed without a number" not in titles("feasibility-skeptic", design)


def test_a_quality_the_design_claims_for_itself_is_still_found():
    design = HEAD + "## Transport\n\nThe transport is high-throughput and highly scalable.\n"
    assert "Scale claimed without a number" in titles("feasibility-skeptic", design)
