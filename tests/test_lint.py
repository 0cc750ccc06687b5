"""Prompt lint: passes on the committed prompts, fails on broken copies."""

import shutil

import pytest

from review_harness.cli import main as cli_main
from review_harness.core.lint import INSTRUCTION_LIMIT, count_instructions, lint_prefixes
from review_harness.ds.lint import lint_prompts
from review_harness.ds.prompts import render_system
from review_harness.ds.rubric import PROMPTS_DIR, default_rubric

RUBRIC = default_rubric()
SYSTEM = "reviewer_system.v1.j2"


@pytest.fixture
def prompts_copy(tmp_path):
    target = tmp_path / "prompts"
    shutil.copytree(PROMPTS_DIR, target)
    return target


def ds_problems(prompts_dir=PROMPTS_DIR, update_hashes=False) -> list[str]:
    return lint_prefixes("ds", lint_prompts(RUBRIC, prompts_dir=prompts_dir), update_hashes).problems


def test_committed_prompts_pass():
    report = lint_prefixes("ds", lint_prompts(RUBRIC))
    assert report.problems == []
    assert [p.key for p in report.prompts] == ["analysis", "communication"]


def test_cli_lint_passes_for_every_kind(capsys):
    assert cli_main(["lint-prompts"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == "lint-prompts: PASS"
    assert {line.split()[0] for line in lines[:-1]} == {"ds", "design", "code", "impact", "domain"}
    assert "impact impact_results_review@1.1: prefix " in "\n".join(lines)


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
    assert any("checklist item missing" in p for p in ds_problems(prompts_copy))


def test_unbound_variable_fails(prompts_copy):
    template = prompts_copy / SYSTEM
    template.write_text(template.read_text() + "\n{{ reviewer_name }}\n")
    assert any("does not render" in p and "reviewer_name" in p for p in ds_problems(prompts_copy))


def test_changed_prefix_is_visible_until_accepted(prompts_copy):
    template = prompts_copy / SYSTEM
    template.write_text(template.read_text().replace("You report problems", "You report issues"))
    assert sum("stable prefix changed" in p for p in ds_problems(prompts_copy)) == 2
    ds_problems(prompts_copy, update_hashes=True)
    assert ds_problems(prompts_copy) == []


def test_the_driver_counts_instructions_and_records_hashes_for_any_kind(tmp_path):
    from review_harness.core.lint import PromptPrefixes

    found = PromptPrefixes({"big": "- do this\n" * (INSTRUCTION_LIMIT + 1), "small": "Answer."}, tmp_path, "v9", ["small: own problem"])
    report = lint_prefixes("toy", found, update_hashes=True)  # records the hashes: no hash problems
    assert [(p.key, p.instructions) for p in report.prompts] == [("big", INSTRUCTION_LIMIT + 1), ("small", 1)]
    assert report.problems == ["toy small: own problem", f"toy big: {INSTRUCTION_LIMIT + 1} instructions, over the limit of {INSTRUCTION_LIMIT}"]
    assert report.lines()[-1] == "lint-prompts: FAIL (2 problem(s))"
    again = lint_prefixes("toy", PromptPrefixes({"small": "Answer now."}, tmp_path, "v9"))
    assert again.problems[0].startswith("toy small: stable prefix changed (")


def test_impact_templates_are_linted_version_by_version(tmp_path):
    import yaml

    from review_harness.impact.lint import lint as lint_impact_prompts
    from review_harness.impact.registry import BUILTIN_TEMPLATES, PromptRegistry

    spec = yaml.safe_load((BUILTIN_TEMPLATES / "impact_results_review.yaml").read_text())
    spec.update(version="2.0", user=spec["user"] + "{{ reviewer_mood }}\n")
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "v2.yaml").write_text(yaml.safe_dump(spec))
    found = lint_impact_prompts(registry=PromptRegistry([tmp_path / "t"]))
    assert list(found.prefixes) == []  # the user folder replaces the built-in name, and its one version fails
    assert len(found.problems) == 1 and found.problems[0].startswith("impact_results_review@2.0: ")
    assert "unknown key 'reviewer_mood'" in found.problems[0]
    builtin = lint_impact_prompts()
    assert list(builtin.prefixes) == ["impact_results_review@1.1", "impact_results_review@1.2"] and builtin.problems == []
    assert all("estimate_plausibility" in prefix for prefix in builtin.prefixes.values())
