"""Reading YAML files whose top level must be a mapping: one-line errors naming the file."""

import pytest

from review_harness.code.config import ConfigError, load_project_config
from review_harness.core.yamlio import read_mapping


class Bad(ValueError):
    pass


def test_a_mapping_is_returned_as_read(tmp_path):
    path = tmp_path / "table.yaml"
    path.write_text("a: 1\nb: [x, y]\n")
    assert read_mapping(path, Bad) == {"a": 1, "b": ["x", "y"]}


@pytest.mark.parametrize(("text", "message"), [
    ("- a list\n", "checks table {path}: expected a mapping of checks"),
    ("", "checks table {path}: expected a mapping of checks"),
    ("a: [unclosed\n", "checks table {path}: "),
])
def test_a_wrong_file_is_one_line_after_the_label(tmp_path, text, message):
    path = tmp_path / "table.yaml"
    path.write_text(text)
    with pytest.raises(Bad) as caught:
        read_mapping(path, Bad, label="checks table", expected="a mapping of checks")
    assert str(caught.value).startswith(message.format(path=path)) and "\n" not in str(caught.value)


def test_a_missing_file_names_it():
    with pytest.raises(Bad, match=r"^/nowhere/x\.yaml: not found$"):
        read_mapping("/nowhere/x.yaml", Bad)


def test_an_empty_file_is_empty_only_when_allowed(tmp_path):
    path = tmp_path / "empty.yaml"
    path.write_text("")
    assert read_mapping(path, Bad, allow_empty=True) == {}
    # a project config without content has no review section; with a list it is an error
    assert load_project_config(path) == {}
    path.write_text("- review\n")
    with pytest.raises(ConfigError, match=r"expected a mapping with a 'review:' section$"):
        load_project_config(path)
