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
# page: the files its example's fenced blocks are, in order (a diff is applied to a repository)
EXAMPLES = {"ds.md": ["checkout-test.md"], "design.md": ["requirements.md", "design.md"],
            "code.md": ["SPEC.md", "change.diff"]}
# what the code example's repository holds before its change: the diff's context lines
CODE_BASE = {
    "shop/__init__.py": "",
    "shop/db.py": "import sqlite3\n\n_conn = sqlite3.connect(':memory:')\n\n\ndef execute(sql, params=()):\n"
                  "    return _conn.execute(sql, params)\n",
    "shop/orders.py": 'from shop import db\n\n\ndef get_order(order_id):\n'
                      '    return db.execute("SELECT * FROM orders WHERE id = ?", (order_id,)).fetchone()\n',
}


def git(folder: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args], cwd=folder, check=True,
                   capture_output=True)


def code_repository(folder: Path) -> None:
    """The example's repository: the base commit, then its change applied and committed."""
    for name, text in CODE_BASE.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    git(folder, "init", "-q")
    git(folder, "add", "shop")
    git(folder, "commit", "-qm", "orders by id")
    git(folder, "apply", "change.diff")
    (folder / "change.diff").unlink()
    git(folder, "add", "shop", "tests")
    git(folder, "commit", "-qm", "task 2: list a customer's orders")


def example(page: str) -> tuple[list[str], str, str]:
    """The fenced blocks, the command and the quoted answer of a page's 'A complete example' section."""
    text = (PROJECT_ROOT / "docs" / page).read_text(encoding="utf-8")
    # the section: under a heading "A complete example", or from a paragraph led by it in bold up to
    # the next heading or bold-led paragraph
    tokens, section, inside = MarkdownIt("commonmark").parse(text), [], False
    for i, t in enumerate(tokens):
        if t.type == "heading_open":
            inside = tokens[i + 1].content == "A complete example"
        elif t.type == "inline" and t.content.startswith("**"):
            inside = t.content.startswith("**A complete example.**")
        if inside:
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
    if page == "code.md":
        code_repository(tmp_path)
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    env.pop("INSPECT_EVAL_MODEL", None)
    run = subprocess.run([*shlex.split(command), "--display", "none", "--log-dir", str(tmp_path / "logs")],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert answer in run.stdout + run.stderr, (run.stdout + run.stderr)[-2000:]
