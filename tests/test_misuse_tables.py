"""A team's operator table (`review-harness plant --table`) is bounded and read strictly (issue 48,
points 3 and 4): an expression's integers are bounded (`9 ** 9 ** 9` ran without end), a pattern
whose matching time grows exponentially (`(a+)+$`) is refused, and a key a team's table cannot
set (`module:`, silently ignored before) is refused naming the file and the key: one line, exit 2.
"""

from __future__ import annotations

import pytest
import yaml

from review_harness.cli import main
from review_harness.core.paths import PROJECT_ROOT
from review_harness.core.plant.expr import ExpressionError, evaluate

STRONG = PROJECT_ROOT / "fixtures" / "ds" / "strong-analysis.md"
OPERATOR = {"id": "hedge-removed", "description": "a hedge is removed from a claim",
            "find": {"pattern": r"\b(?:likely|probably) ", "units": ["para", "bullet"]}, "delete": "match",
            "finding": {"dimension": "analysis", "lens": "logic", "severity": "MINOR", "must_catch": False,
                        "summary": "A claim is stated as certain.", "keywords": ["certain"]}}


def plant_with(tmp_path, capsys, table: dict) -> tuple[int, str]:
    path = tmp_path / "ours.yaml"
    path.write_text(yaml.safe_dump(table))
    code = main(["plant", "ds", str(STRONG), "--out", str(tmp_path / "out"), "--table", str(path)])
    return code, capsys.readouterr().err


@pytest.mark.parametrize("key, value", [("module", "os"), ("gold", {"split": "dev"}),
                                        ("layout_options", {"x": 1})])
def test_a_key_a_teams_table_cannot_set_is_refused_naming_file_and_key(tmp_path, capsys, key, value):
    code, err = plant_with(tmp_path, capsys, {"version": "1", "kind": "ds", "layout": "document", key: value,
                                              "operators": [OPERATOR]})
    assert code == 2 and len(err.splitlines()) == 1
    assert str(tmp_path / "ours.yaml") in err and f"key '{key}'" in err
    assert not (tmp_path / "out" / "gold").exists()


@pytest.mark.parametrize("pattern", [r"(a+)+$", r"(\w*)*x", r"(?:x|y+)*z"])
def test_a_pattern_of_exponential_time_is_refused(tmp_path, capsys, pattern):
    operator = {**OPERATOR, "find": {"pattern": pattern, "units": ["para"]}}
    code, err = plant_with(tmp_path, capsys, {"version": "1", "kind": "ds", "layout": "document",
                                              "operators": [operator]})
    assert code == 2 and len(err.splitlines()) == 1 and "exponential time" in err


@pytest.mark.parametrize("text", ["9 ** 9 ** 9", "10 ** 400 * 10 ** 400", "'a' * 10 ** 6", "[0] * 10 ** 8"])
def test_an_expression_too_large_to_compute_is_refused_before_it_is_computed(text):
    with pytest.raises(ExpressionError, match="over"):
        evaluate(text, {})


def test_ordinary_expressions_still_compute():
    assert evaluate("est + 2 ** 10 * (hi - lo)", {"est": 1, "hi": 3, "lo": 2}) == 1025
    assert evaluate("'ab' * 3", {}) == "ababab"
