"""Prompt lint: passes on the committed prompts, fails on broken copies."""

import shutil

import pytest

from review_harness.cli import main as cli_main
from review_harness.ds.lint import INSTRUCTION_LIMIT, count_instructions, lint_prompts
from review_harness.ds.prompts import render_system
from review_harness.ds.rubric import PROMPTS_DIR, default_rubric

RUBRIC = default_rubric()
SYSTEM = "reviewer_system.v1.j2"


@pytest.fixture
def prompts_copy(tmp_path):
    target = tmp_path / "prompts"
    shutil.copytree(PROMPTS_DIR, target)
    return target


def test_committed_prompts_pass():
    problems, hashes = lint_prompts(RUBRIC)
    assert problems == []
    assert set(hashes) == {"analysis", "communication"}


def test_cli_lint_passes(capsys):
    assert cli_main(["lint-prompts"]) == 0
    assert "lint-prompts: PASS" in capsys.readouterr().out


def test_instruction_count_within_limit():
    for dimension in RUBRIC.dimensions.values():
        count = count_instructions(render_system(dimension, RUBRIC))
        assert 40 < count <= INSTRUCTION_LIMIT


def test_count_instructions_rules():
    text = "# Heading\n\n- one\n- two\n1. three\nFour. Five!\n{\"json\": 1}\n"
    assert count_instructions(text) == 5


def test_deleting_a_lens_checklist_fails(prompts_copy):
    template = prompts_copy / SYSTEM
    text = template.read_text()
    block = "Checklist:\n{% for item in lens.checklist -%}\n- {{ item }}\n{% endfor -%}\n"
    assert block in text
    template.write_text(text.replace(block, ""))
    problems, _ = lint_prompts(RUBRIC, prompts_dir=prompts_copy)
    assert any("checklist item missing" in p for p in problems)


def test_unbound_variable_fails(prompts_copy):
    template = prompts_copy / SYSTEM
    template.write_text(template.read_text() + "\n{{ reviewer_name }}\n")
    problems, _ = lint_prompts(RUBRIC, prompts_dir=prompts_copy)
    assert any("does not render" in p and "reviewer_name" in p for p in problems)


def test_changed_prefix_is_visible_until_accepted(prompts_copy):
    template = prompts_copy / SYSTEM
    template.write_text(template.read_text().replace("You report problems", "You report issues"))
    problems, _ = lint_prompts(RUBRIC, prompts_dir=prompts_copy)
    assert sum("stable prefix changed" in p for p in problems) == 2
    lint_prompts(RUBRIC, prompts_dir=prompts_copy, update_hashes=True)
    assert lint_prompts(RUBRIC, prompts_dir=prompts_copy)[0] == []
