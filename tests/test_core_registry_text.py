"""The core's kind registry and text module."""

import pytest

from review_harness.core import text
from review_harness.core.kinds import KindError, get_kind, kind_for_task, kinds


def test_every_kind_is_declared_under_its_own_name_with_a_prompt_folder():
    names = [k.name for k in kinds()]
    assert names == ["ds", "design", "code", "impact", "domain"]
    for kind in kinds():
        assert kind.prompts.is_dir(), kind.name
    assert [k.task for k in kinds(with_task=True)] == ["ds_review", "design_review", "code_review", "impact_review"]


def test_a_task_name_finds_its_kind_with_or_without_the_package_prefix():
    assert kind_for_task("review_harness/code_review").name == "code"
    assert kind_for_task("ds_review").name == "ds"
    assert kind_for_task("judge_meta") is None


def test_an_unknown_kind_is_named_with_the_known_ones():
    with pytest.raises(KindError, match="unknown review kind 'slides'; known: ds, design"):
        get_kind("slides")


def test_content_words_drop_function_words_and_short_words():
    assert text.content_words("The retry budget is not enough for the queue") == {"retry", "budget", "enough", "queue"}
    assert text.content_words("retries retried", stem=5) == {"retri"}
    assert text.content_words("design states X", extra_stop={"design"}) == {"states"}


def test_negation_is_seen_only_within_the_window_before_a_term():
    sentence = "We do not cache tokens; we cache pages."
    assert text.negated_before(sentence, sentence.index("cache"), 20)
    assert not text.negated_before(sentence, sentence.rindex("cache"), 10)


def test_sentences_split_before_capitals_and_digits_only():
    body = 'Revenue rose 3.2% in Q3. "Churn" fell. 12 cities grew, e.g. the capital! done?'
    assert text.split_sentences(body) == [
        (0, "Revenue rose 3.2% in Q3."),
        (25, '"Churn" fell.'),
        (39, "12 cities grew, e.g. the capital! done?"),
    ]
