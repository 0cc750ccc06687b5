"""The complete examples of the kinds' pages answer what the pages say: each example's files are
written from its fenced blocks into a folder of their own, its command runs from there as printed,
and the terminal line holds the answer the page quotes."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from review_harness.core.paths import PROJECT_ROOT

BIN = Path(sys.executable).parent
# page: the files its example's fenced blocks are, in order
EXAMPLES = {"ds.md": ["checkout-test.md"], "design.md": ["requirements.md", "design.md"]}


def example(page: str) -> tuple[list[str], str, str]:
    """The fenced blocks, the command and the quoted answer of a page's 'A complete example' section."""
    text = (PROJECT_ROOT / "docs" / page).read_text(encoding="utf-8")
    tokens, section, inside = MarkdownIt("commonmark").parse(text), [], False
    for i, t in enumerate(tokens):
        if t.type == "heading_open" and t.tag == "h2":
            inside = tokens[i + 1].content == "A complete example"
        elif inside:
            section.append(t)
    tokens = section
    blocks = [t.content for t in tokens if t.type == "fence"]
    inline = " ".join(t.content for t in tokens if t.type == "inline")
    command = next(m.group(1) for m in re.finditer(r"`(inspect eval [^`]+)`", inline))
    answer = re.search(r"answers `([^`]+)`", inline).group(1)
    return blocks, command, answer


@pytest.mark.parametrize("page", sorted(EXAMPLES))
def test_the_complete_example_answers_what_the_page_says(page, tmp_path):
    blocks, command, answer = example(page)
    assert len(blocks) == len(EXAMPLES[page])
    for name, block in zip(EXAMPLES[page], blocks):
        (tmp_path / name).write_text(block, encoding="utf-8")
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    env.pop("INSPECT_EVAL_MODEL", None)
    run = subprocess.run([*shlex.split(command), "--display", "none", "--log-dir", str(tmp_path / "logs")],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert answer in run.stdout + run.stderr, (run.stdout + run.stderr)[-2000:]
