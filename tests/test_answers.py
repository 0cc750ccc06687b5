"""What `inspect view` shows as a sample's ANSWER is the readable report, for every kind."""

from __future__ import annotations

import importlib.util

import pytest
from inspect_ai import eval as inspect_eval

from review_harness.core.paths import PROJECT_ROOT

SYNTHESIS = {"ds_review": "review_synthesis", "design_review": "design_synthesis",
             "code_review": "code_synthesis", "impact_review": "impact_synthesis"}


@pytest.mark.parametrize("task", sorted(SYNTHESIS))
def test_answer_is_the_markdown_report(task, tmp_path):
    spec = importlib.util.spec_from_file_location(f"{task}_answers", PROJECT_ROOT / "tasks" / f"{task}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    [log] = inspect_eval(getattr(module, task)(), model="offline/rules", limit=1,
                         log_dir=str(tmp_path), display="none")
    [sample] = log.samples
    answer = sample.scores[SYNTHESIS[task]].answer
    assert answer.lstrip().startswith("#") and len(answer.splitlines()) > 5, answer[:200]
    assert sample.output.completion.strip() == answer.strip() or answer.strip() in sample.output.completion
