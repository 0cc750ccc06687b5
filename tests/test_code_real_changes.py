"""The code review on changes as real commits make them (issues 47 and 49): the spec is read as git
reads the change (renames, edits, the base that already has a name), its patterns, examples and
qualifiers for what they are, and the quality rules see behaviour; each false-finding class beside
the real problem it resembles, which is still found."""

from __future__ import annotations

import subprocess
from pathlib import Path

from helpers import load_task_file
from inspect_ai import eval as inspect_eval

from review_harness.code.rules import FileView, review_quality
from review_harness.code.spec_rules import review_spec

def run(log_dir, **task_args):
    return inspect_eval(load_task_file("code_review")(**task_args), model="offline/rules", display="none",
                        log_dir=str(log_dir))[0]


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def commit_pair(root: Path, before: dict[str, str], after: dict[str, str]) -> Path:
    """A repository with two commits: the files before, then after (None deletes)."""
    root.mkdir(parents=True)
    git(root, "init", "-q")
    git(root, "config", "user.email", "t@example.com")
    git(root, "config", "user.name", "t")
    for files, message in ((before, "base"), (after, "head")):
        for path, text in files.items():
            target = root / path
            if text is None:
                target.unlink()
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
        git(root, "add", "-A")
        git(root, "commit", "-qm", message, "--allow-empty")
    return root


def view(text: str, path: str = "pkg/mod.py", added: set[int] | None = None, language: str = "python",
         excerpt: bool = False, omitted: bool = False, removed: list[str] | None = None) -> FileView:
    lines = {n: line for n, line in enumerate(text.splitlines(), 1)}
    return FileView(path=path, language=language, lines=lines, added=set(lines) if added is None else added,
                    excerpt=excerpt, omitted=omitted, removed=removed or [])


def blocking(answer) -> list:
    return [f for f in answer.findings if f.severity.value in ("Critical", "Important")]


# ---------------------------------------------------------------------------- issue 49: the code regression

QUERIES = "def get(conn, i):\n    return conn.execute('SELECT * FROM orders WHERE id = ?', (i,))\n"
REPORT = QUERIES + ("\n\ndef monthly_report(conn, month):\n"
                    "    return conn.execute(f\"SELECT * FROM orders WHERE month = '{month}'\").fetchall()\n")
README = "# Reports\n\n" + "".join(f"The monthly report lists the orders of month {i} with their totals.\n" for i in range(18))
TESTS = "from app.queries import monthly_report\n\n\n" + "".join(
    f"def test_report_{i}(conn):\n    assert monthly_report(conn, {i}) == []\n\n\n" for i in range(12))
SPEC_49 = ("# Task 4: the monthly report\n\n## Requirements\n\n"
           "- Add `monthly_report(conn, month)` to `app/queries.py`: it returns the month's orders.\n"
           "- Exported reports are named `exports/report_*.csv`.\n"
           "- Document the report in `docs/README.md`.\n")


def test_a_file_name_pattern_and_a_budget_cut_readme_do_not_set_real_sql_findings_aside(tmp_path: Path):
    """A spec's file-name pattern is no code name, and the budget serves the README the spec names
    before the code: the spec stage does not fail on either, so the quality stage's SQL injection
    decides the review instead of being set aside as seen, not yet reviewed."""
    repo = commit_pair(tmp_path / "shop", {"services/reports/app/queries.py": QUERIES},
                       {"services/reports/app/queries.py": REPORT, "services/reports/docs/README.md": README,
                        "services/reports/tests/test_queries.py": TESTS})
    (tmp_path / "SPEC.md").write_text(SPEC_49)
    log = run(tmp_path / "logs", repo=str(repo), base="HEAD~1", spec=str(tmp_path / "SPEC.md"), max_change_chars="2000")
    review = log.samples[0].scores["code_synthesis"].metadata["review"]
    first = review["iterations"][0]
    cuts = review["change"]["cuts"]
    assert not any("README.md" in cut for cut in cuts), cuts  # the file the spec names is served first
    assert any("test_queries.py" in cut for cut in cuts), cuts  # the budget did cut something
    spec_blocking = [m for m in first["spec"]["findings"] if m["finding"]["severity"] in ("Critical", "Important")]
    assert spec_blocking == [] and first["spec"]["verdict"] == "PASS"
    assert not first["quality"]["discarded"]
    sql = [m for m in first["quality"]["findings"] if m["finding"]["category"] == "security"]
    assert [(m["finding"]["file"], m["finding"]["line"], m["finding"]["severity"]) for m in sql] == [
        ("services/reports/app/queries.py", 6, "Critical")]
    assert "seen, not yet reviewed" not in log.samples[0].output.completion


def test_a_requirement_whose_code_is_missing_still_fails_beside_a_pattern():
    """The real problem the pattern resembles: a named function the change does not add is still
    missing, Important, with the pattern item left aside."""
    spec = ("# T\n\n## Requirements\n\n- Add `monthly_report(conn, month)` to `app/queries.py`.\n"
            "- Exported reports are named `exports/report_*.csv`.\n")
    answer = review_spec(spec, [view(QUERIES, path="app/queries.py", added={2})], "B")
    assert [(f.category, f.severity.value) for f in blocking(answer)] == [("missing-requirement", "Important")]
    assert "monthly_report" in answer.findings[0].description and "report_*" not in answer.findings[0].description
