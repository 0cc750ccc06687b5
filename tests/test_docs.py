"""The README as a door (issue 33, points 2 and 8): short, free of the specification's section
numbers like every page of docs/, and its lines for one's own files work as written from the
user's own folder, outside the checkout, with no project .env.

The README and docs are read when the tests run, so what other pages add is checked too. Every
other documented command runs in tests/test_documented_commands.py.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from review_harness.core.kinds import get_kind
from review_harness.core.paths import PROJECT_ROOT

README = PROJECT_ROOT / "README.md"
PAGES = [README, *sorted((PROJECT_ROOT / "docs").glob("*.md"))]
BIN = Path(sys.executable).parent
FIXTURES = PROJECT_ROOT / "fixtures"
OWN_FILES_HEADING = "Your own files, from your own folder"

# how a page would cite the specification: the seeds by name or number, their sections
# ('s8.4', '(s10)'), decisions and extensions ('D19', 'E4')
SPEC_REFERENCE = re.compile(r"(?i)\bseeds?\b|\bseed's|\bs\d{1,2}(\.\d+)+\b|\(s\d{1,2}\)|\bs\d{1,2}\b(?!://)"
                            r"|\b[DE]\d{1,2}\b")


def prose(text: str) -> list[tuple[int, str]]:
    """(line, text) of every piece of prose of a markdown page: headings, paragraphs, lists,
    tables and link texts, but not code (fenced, indented or inline: ids such as `s1`)."""
    out = []
    for token in MarkdownIt("commonmark").enable("table").parse(text):
        if token.type != "inline":
            continue
        for child in token.children or []:
            if child.type == "text":
                out.append(((token.map or [0])[0] + 1, child.content))
    return out


def test_the_readme_is_at_most_120_lines():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 120, f"README.md has {len(lines)} lines"


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_no_page_cites_the_specification(page):
    found = [f"{page.name}:{line}: {m.group(0)!r} in {text.strip()[:80]!r}"
             for line, text in prose(page.read_text(encoding="utf-8")) for m in SPEC_REFERENCE.finditer(text)]
    assert not found, "\n".join(found)


@pytest.mark.parametrize("text, cites", [
    ("as seed 000 s8.4 says", True), ("the seed's keys", True), ("(s10)", True), ("see s4", True),
    ("seed 001 D19", True), ("Analytics (E4)", True), ("a `s1` finding id", False), ("two seconds, 5 s", False),
    ("per fault seed", True), ("`s3://` addresses", False), ("sizes in MB", False),
])
def test_the_check_finds_specification_references(text, cites):
    assert bool([m for _, t in prose(text) for m in SPEC_REFERENCE.finditer(t)]) == cites


# ---------------------------------------------------------------------------- one's own files


def readme_block(heading: str) -> list[list[str]]:
    """The commands of the first shell block after the README heading `heading`."""
    tokens = MarkdownIt("commonmark").parse(README.read_text(encoding="utf-8"))
    start = next(n for n, t in enumerate(tokens) if t.type == "inline" and t.content == heading)
    block = next(t for t in tokens[start:] if t.type == "fence" and t.info == "bash")
    return [shlex.split(line, comments=True) for line in block.content.splitlines() if line.strip()]


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), "-c", "user.email=t@example.com", "-c", "user.name=t", *args],
                   check=True, capture_output=True)


def own_folder(folder: Path) -> Path:
    """A user's repository (a change in its last commit) holding their write-up, design,
    requirements, task spec and impact results: no project file, no .env."""
    folder.mkdir(parents=True)
    case = FIXTURES / "code" / "bare-except"
    shutil.copytree(case / "base" / "sync", folder / "sync")
    git(folder, "init", "-q")
    git(folder, "add", "sync")
    git(folder, "commit", "-qm", "base")
    shutil.rmtree(folder / "sync")
    shutil.copytree(case / "head" / "sync", folder / "sync")
    git(folder, "add", "sync")
    git(folder, "commit", "-qm", "the change")
    shutil.copy(case / "spec.md", folder / "SPEC.md")
    shutil.copy(FIXTURES / "ds" / "dark-mode-retention.md", folder / "analysis.md")
    for name in ("design.md", "requirements.md"):
        shutil.copy(FIXTURES / "design" / "api-rate-limiter" / name, folder / name)
    shutil.copy(FIXTURES / "impact" / "ci-excludes-estimate.json", folder / "impact_results.json")
    return folder


KIND_OF_TASK = {f"review_harness/{k}_review": k for k in ("ds", "design", "code", "impact")}


@pytest.fixture(scope="module")
def own_runs(tmp_path_factory):
    """Each README line for one's own files, as written, run in the user's folder."""
    folder = own_folder(tmp_path_factory.mktemp("someone") / "their-project")
    assert PROJECT_ROOT not in folder.parents and not (folder / ".env").exists()
    env = {k: v for k, v in os.environ.items() if not k.startswith("INSPECT_")} | {
        "PWD": str(folder), "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    runs = {}
    for argv in readme_block(OWN_FILES_HEADING):
        assert argv[:2] == ["inspect", "eval"] and argv[2] in KIND_OF_TASK, f"not a line for one's own files: {argv}"
        result = subprocess.run([str(BIN / argv[0]), *argv[1:]], cwd=folder, env=env, capture_output=True, text=True,
                                timeout=600)
        runs[KIND_OF_TASK[argv[2]]] = result
    return folder, runs


def test_the_readme_has_one_line_per_kind(own_runs):
    _, runs = own_runs
    assert sorted(runs) == ["code", "design", "ds", "impact"]


@pytest.mark.parametrize("kind_name", ["ds", "design", "code", "impact"])
def test_each_readme_line_reviews_ones_own_files_from_ones_own_folder(own_runs, kind_name):
    from inspect_ai.log import read_eval_log

    folder, runs = own_runs
    result = runs[kind_name]
    assert result.returncode == 0, result.stderr[-3000:]
    assert re.search(rf"(?m)^{kind_name} review of \S+: ", result.stderr), result.stderr[-2000:]
    assert "read it: review-harness show logs/" in result.stderr
    kind = get_kind(kind_name)
    [log] = [p for p in (folder / "logs").glob("*.eval") if kind.task.replace("_", "-") in p.name]
    [sample] = read_eval_log(str(log)).samples
    review = kind.review_from_score(sample.scores[kind.synthesis_scorer].metadata)
    assert review is not None
    recorded = json.dumps(review.model_dump(mode="json"))
    if kind_name == "code":  # repo=. is the user's repository: its change was reviewed
        assert str(folder) in json.dumps(sample.metadata) and "sync/worker.py" in recorded
    if kind_name == "ds":
        assert review.document.source.endswith("analysis.md") and str(folder) in review.document.source


def test_the_readme_first_command_reviews_the_sample_it_ships_and_prints_the_line_it_shows(tmp_path):
    """The README's first command needed an analysis.md it did not supply; it now names the
    sample under examples/, and the terminal lines it shows are the ones the run prints."""
    first = readme_block("Review a document, read the review")[0]
    document = next(a.split("=", 1)[1] for a in first if a.startswith("document="))
    assert (PROJECT_ROOT / document).is_file() and document.startswith("examples/")
    result = subprocess.run([str(BIN / first[0]), *first[1:], "--display", "none", "--log-dir", str(tmp_path)],
                            cwd=PROJECT_ROOT, env=os.environ | {"PWD": str(PROJECT_ROOT)}, capture_output=True,
                            text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    printed = next(line for line in result.stderr.splitlines() if line.startswith("ds review of analysis: "))
    text = README.read_text(encoding="utf-8")
    assert f"\n{printed}\n" in text, printed


def test_the_readme_names_exactly_the_kinds_that_take_output_dir():
    """The README said every kind takes `-T output_dir`; code and impact refuse it."""
    import inspect as python_inspect

    from helpers import load_task_file

    takes = {k for k in ("ds", "design", "code", "impact")
             if "output_dir" in python_inspect.signature(load_task_file(f"{k}_review")).parameters}
    line = next(line for line in " ".join(README.read_text(encoding="utf-8").split("\n")).split(". ")
                if "`-T output_dir=DIR` is taken by" in line)
    said = re.search(r"is taken by (\w+) .*?and (\w+) .*?; (\w+) and (\w+) refuse it", line)
    assert said, line
    assert {said.group(1), said.group(2)} == takes and {said.group(3), said.group(4)} == {"code", "impact"} - takes


def test_usage_names_exactly_the_parameters_each_kind_takes():
    """Docs said every kind shares `-T output_dir` and named no kind for `split` or `cases`: the
    table in docs/usage.md lists each kind's parameters, the same set as its task's signature."""
    import inspect as python_inspect

    from helpers import load_task_file

    text = (PROJECT_ROOT / "docs" / "usage.md").read_text(encoding="utf-8")
    rows = {m.group(1): m.group(2) for m in re.finditer(r"^\| `(\w+)` \|(.*)\|$", text, re.MULTILINE)}
    for kind in ("ds", "design", "code", "impact"):
        documented = re.findall(r"`(\w+)`", rows[kind])
        assert len(documented) == len(set(documented)), documented
        declared = set(python_inspect.signature(load_task_file(f"{kind}_review")).parameters) - {"unknown"}
        assert set(documented) == declared, (kind, set(documented) ^ declared)
