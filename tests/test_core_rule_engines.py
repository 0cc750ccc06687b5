"""What the core gives a rule engine: named patterns kept as data (core/patterns.py) and a
registry of functions by id (core/registry.py)."""

from __future__ import annotations

import re

import pytest

from review_harness.core.patterns import PatternTableError, read_pattern_table
from review_harness.core.registry import Registry


def test_pieces_join_groups_keep_order_and_case_is_ignored(tmp_path):
    path = tmp_path / "vocabulary.yaml"
    path.write_text(
        "retry: '\\bretr(?:y|ies)\\b'\n"
        "long:\n  - '\\b(alpha|'\n  - 'beta)\\b'\n"
        "levels:\n  must: '^must$'\n  could: '^could$'\n"
        "quoted: 'won''t'\n"
    )
    table = read_pattern_table(path)
    assert table.retry.search("Two RETRIES, then give up").group(0) == "RETRIES"
    assert table.long.pattern == r"\b(alpha|beta)\b"
    assert list(table.levels) == ["must", "could"] and table.levels.could.match("Could")
    assert table["quoted"].pattern == "won't"
    with pytest.raises(AttributeError, match="no pattern 'missing'"):
        table.missing
    assert not read_pattern_table(path, flags=0).retry.search("RETRY")


@pytest.mark.parametrize(
    "text, message",
    [
        ("bad: '(unclosed'\n", r"bad: the pattern does not compile"),
        ("number: 3\n", r"number: expected a pattern"),
        ("empty: []\n", r"empty: expected a pattern"),
        ("- a list\n", r"expected a mapping"),
    ],
)
def test_a_bad_entry_names_the_file_and_key(tmp_path, text, message):
    path = tmp_path / "vocabulary.yaml"
    path.write_text(text)
    with pytest.raises(PatternTableError, match=message) as caught:
        read_pattern_table(path)
    assert str(path) in str(caught.value)


def test_a_missing_file_is_one_error(tmp_path):
    with pytest.raises(PatternTableError, match=re.escape(str(tmp_path / "nope.yaml"))):
        read_pattern_table(tmp_path / "nope.yaml")


def test_a_registry_keeps_functions_by_id_and_refuses_an_id_twice():
    checks: Registry = Registry("check")

    @checks.register("first")
    def first(ctx):
        return ctx + 1

    assert checks["first"] is first and checks["first"](1) == 2 and list(checks) == ["first"]
    with pytest.raises(ValueError, match="two checks registered as 'first'"):
        checks.register("first")(lambda ctx: ctx)
    assert checks["first"] is first
