"""Memory informs, never blinds: a dismissal applies to its place; a new injection elsewhere, in
any string-formatting form, is never approved automatically; the review names the entries it
applied; -T memory=off (and its other spellings) works."""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval

from review_harness.cli import main
from review_harness.code.config import ReviewConfig
from review_harness.code.memory import FalsePositive, read_patterns, recall
from review_harness.code.merge import confidence, decide, merge_stage
from review_harness.code.rules import FileView, review_quality
from review_harness.core.logs import read_log
from test_code_review import task_function

ON = ReviewConfig(auto_approve=True, auto_reject=True)
SQL_PATTERN = "SQL passed to execute() is built from strings"


def injection(form: str, table: str, column: str, value: str) -> str:
    """A query built from `value` by one string-formatting form."""
    return {
        "f-string": f'f"SELECT * FROM {table} WHERE {column} = \'{{{value}}}\'"',
        "percent": f'"SELECT * FROM {table} WHERE {column} = \'%s\'" % {value}',
        "format": f'"SELECT * FROM {table} WHERE {column} = \'{{}}\'".format({value})',
        "concatenation": f'"SELECT * FROM {table} WHERE {column} = \'" + {value} + "\'"',
    }[form]


FORMS = ("f-string", "percent", "format", "concatenation")


def module(form: str, name: str, table: str, column: str) -> str:
    return (f"def {name}(conn, {column}):\n"
            f"    cur = conn.cursor()\n"
            f"    cur.execute({injection(form, table, column, column)})\n"
            f"    return cur.fetchall()\n")


def view(path: str, text: str) -> FileView:
    lines = {n: line for n, line in enumerate(text.splitlines(), 1)}
    return FileView(path=path, language="python", lines=lines, added=set(lines))


def reviewed(files: list[FileView], entries: list[dict]):
    reports = {letter: review_quality(files, letter) for letter in "AB"}
    return merge_stage("quality", reports, ("A", "B"), recall=recall(entries))


def entry(n: int, fp: FalsePositive) -> dict:
    return {"id": f"quality#fp{n}", "service": "svc", **fp.__dict__}


def dismissal_of(form: str, path: str, rng: random.Random) -> FalsePositive:
    """What memory keeps after a human dismisses the SQL finding of `form` at `path`."""
    table, column = rng.choice(["ledger", "audit", "report"]), rng.choice(["month", "region", "kind"])
    old = view(path, module(form, "legacy_" + table, table, column))
    [finding] = [f for f in review_quality([old], "B").findings if f.category == "security"]
    return FalsePositive(SQL_PATTERN, "checked by the caller", finding.category, finding.file, " ".join(finding.quote.split()))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("new_form", FORMS)
def test_a_dismissal_never_hides_a_new_injection_elsewhere(new_form: str, seed: int):
    """Property: whatever form was dismissed where, and whatever service-wide pattern memory
    holds, a new injection at a new place stays Critical and is never approved automatically."""
    rng = random.Random(seed * 31 + FORMS.index(new_form))
    dismissed = [dismissal_of(rng.choice(FORMS), f"svc/legacy_{n}.py", rng) for n in range(rng.randint(1, 3))]
    dismissed.append(FalsePositive(SQL_PATTERN, "reviewed by the DBA"))  # the blanket pattern of the issue
    entries = [entry(n, fp) for n, fp in enumerate(rng.sample(dismissed, len(dismissed)), 1)]
    name = rng.choice(["find_orders", "search_users", "lookup_invoices"])
    table, column = rng.choice([("orders", "customer"), ("users", "email"), ("invoices", "number")])
    stage = reviewed([view(f"svc/{name}.py", module(new_form, name, table, column))], entries)
    sql = [m for m in stage.findings if m.finding.category == "security"]
    assert sql and all(m.finding.severity.value == "Critical" and m.memory is None for m in sql)
    assert all("not applied" in (m.memory_note or "not applied") for m in sql)
    spec = merge_stage("spec", {"A": None, "B": None}, ("A", "B"))
    spec.verdict, spec.verdicts = "PASS", {"A": "PASS", "B": "PASS"}
    assert decide(spec, stage, ON) != "AUTO_APPROVE"
    assert confidence(spec, stage).scenario == "both-fail-agreed-critical"


def test_a_dismissal_at_the_same_place_lowers_the_finding_but_never_approves():
    rng = random.Random(7)
    fp = dismissal_of("percent", "svc/legacy_0.py", rng)
    code = fp.code
    again = view("svc/legacy_0.py", f"def legacy(conn, x):\n    with conn:\n        cur = conn.cursor()\n        {code}\n")
    stage = reviewed([again], [entry(1, fp)])
    [sql] = [m for m in stage.findings if m.finding.category == "security"]
    assert (sql.memory, sql.severity_before.value, sql.finding.severity.value) == ("quality#fp1", "Critical", "Minor")
    assert stage.verdict == "PASS"
    spec = merge_stage("spec", {"A": None, "B": None}, ("A", "B"))
    spec.verdict, spec.verdicts = "PASS", {"A": "PASS", "B": "PASS"}
    assert confidence(spec, stage).scenario == "both-pass-minor"
    assert decide(spec, stage, ON) == "PRESENT_TO_HUMAN"  # memory alone never approves


# ---------------------------------------------------------------------------- end to end


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


LEGACY = '''def monthly_totals(conn, month):
    cur = conn.cursor()
    cur.execute("SELECT SUM(total) FROM invoices WHERE month = '%s'" % month)
    return cur.fetchone()
'''
SPEC = "# Task 1: invoice search\n\n## Requirements\n\n- Add `find_invoices` to `billing/search.py`.\n"


@pytest.fixture(scope="module")
def dismissed_memory(tmp_path_factory) -> Path:
    """A human dismisses the %-formatted query of a first review (`code override --dismiss`):
    the memory folder as it is afterwards."""
    root = tmp_path_factory.mktemp("dismissal")
    repo, memory = root / "repo", root / "memory"
    (repo / "billing").mkdir(parents=True)
    git(repo, "init", "-q")
    git(repo, "config", "user.email", "t@example.com")
    git(repo, "config", "user.name", "t")
    (repo / "billing" / "__init__.py").write_text("")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    (repo / "billing" / "reports.py").write_text(LEGACY)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "reports")
    (repo / "SPEC.md").write_text("# Task 1: monthly totals\n\n## Requirements\n\n- Add `monthly_totals` to `billing/reports.py`.\n")
    memory.mkdir()
    [log] = inspect_eval(task_function()(repo=str(repo), base="HEAD~1", spec=str(repo / "SPEC.md"), memory="update",
                                         memory_dir=str(memory)),
                         model="offline/rules", display="none", log_dir=str(root / "logs"))
    review = log.samples[0].scores["code_synthesis"].metadata["review"]
    [q1] = [m for m in review["iterations"][0]["quality"]["findings"] if m["id"] == "q1"]
    assert q1["finding"]["category"] == "security"
    assert main(["code", "override", log.location, "--sample", "task-1", "--decision", "approve", "--dismiss", "q1",
                 "--note", "month is checked by the caller"]) == 0
    [fp] = read_patterns(memory, "quality", "billing").false_positives
    assert (fp.file, fp.category, fp.why) == ("billing/reports.py", "security", "month is checked by the caller")
    return memory


def _case(root: Path, name: str, head_files: dict[str, str], memory: Path, spec: str = SPEC) -> None:
    folder = root / name
    (folder / "base" / "billing").mkdir(parents=True)
    (folder / "base" / "billing" / "reports.py").write_text(LEGACY)
    for path, text in {"billing/reports.py": LEGACY, **head_files}.items():
        (folder / "head" / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / "head" / path).write_text(text)
    (folder / "spec.md").write_text(spec)
    shutil.copytree(memory, folder / "memory")
    (folder / "case.yaml").write_text("task: '1'\ntitle: invoice search\nservice: billing\nchange: {base: base, head: head}\n"
                                      "config: {auto_approve: true, auto_reject: true}\nmemory: memory\n")


def test_after_a_dismissal_a_new_injection_elsewhere_is_never_approved(dismissed_memory: Path, tmp_path: Path):
    cases = tmp_path / "cases"
    for form in FORMS:
        search = module(form, "find_invoices", "invoices", "customer")
        _case(cases, form, {"billing/search.py": search}, dismissed_memory)
    # the same query at the same place, re-indented by a refactor: the dismissal applies there
    moved = LEGACY.replace("    cur.execute", "    with conn:\n        cur.execute")
    _case(cases, "same-place", {"billing/reports.py": moved}, dismissed_memory,
          spec="# Task 1: totals in a transaction\n\n## Requirements\n\n- `billing/reports.py` queries in a transaction "
               "(`with conn`).\n")
    [log] = inspect_eval(task_function()(cases=str(cases)), model="offline/rules", display="none", log_dir=str(tmp_path / "logs"))
    assert log.status == "success"
    reviews = {s.id: (s.scores["code_synthesis"].metadata["review"], s.output.completion) for s in log.samples}
    for form in FORMS:
        review, report = reviews[form]
        first = review["iterations"][0]
        assert first["decision"] == "AUTO_REJECT_TO_IMPLEMENTER", form  # agreed Critical, as without memory
        sql = [m for m in first["quality"]["findings"] if m["finding"]["file"] == "billing/search.py"]
        assert sql and sql[0]["finding"]["severity"] == "Critical" and sql[0]["memory"] is None
        assert review["memory"]["applied"] == []
        assert "Memory applied: none" in report
    review, report = reviews["same-place"]
    first = review["iterations"][0]
    assert first["decision"] == "PRESENT_TO_HUMAN" and first["confidence"]["scenario"] == "both-pass-minor"
    [applied] = review["memory"]["applied"]
    assert applied["id"] == "quality#fp1" and applied["file"] == "billing/reports.py" and applied["findings"] == ["q1"]
    assert "Memory applied: quality#fp1" in report and "lowered q1 to Minor" in report
    assert "memory alone never approves a change" in report


@pytest.mark.parametrize("value", ["off", False, "OFF"])
def test_memory_off_works_as_typed(value, dismissed_memory: Path, tmp_path: Path):
    cases = tmp_path / "cases"
    _case(cases, "off", {"billing/search.py": module("percent", "find_invoices", "invoices", "customer")}, dismissed_memory)
    [log] = inspect_eval(task_function()(cases=str(cases), memory=value), model="offline/rules", display="none",
                         log_dir=str(tmp_path / "logs"))
    review = log.samples[0].scores["code_synthesis"].metadata["review"]
    assert log.status == "success" and review["memory"]["mode"] == "off" and "read" not in review["memory"]
    assert "Memory: off (-T memory=off)" in log.samples[0].output.completion


def test_memory_off_typed_on_the_command_line(monkeypatch):
    """Inspect reads `-T memory=off` as YAML (False); the task takes the word typed back."""
    from review_harness.core.params import choice
    from review_harness.code.memory import MEMORY_MODES

    monkeypatch.setattr("sys.argv", ["/usr/bin/inspect", "eval", "tasks/code_review.py", "-T", "memory=off"])
    assert choice("memory", False, MEMORY_MODES) == "off"
    monkeypatch.setattr("sys.argv", ["/usr/bin/inspect", "eval", "tasks/code_review.py", "-T", "memory=write"])
    assert choice("memory", "write", MEMORY_MODES) == "write"


def test_memory_write_is_update(dismissed_memory: Path, tmp_path: Path):
    cases = tmp_path / "cases"
    _case(cases, "write", {"billing/search.py": "def find_invoices(conn, customer):\n    return []\n"}, dismissed_memory)
    [log] = inspect_eval(task_function()(cases=str(cases), memory="write"), model="offline/rules", display="none",
                         log_dir=str(tmp_path / "logs"))
    review = log.samples[0].scores["code_synthesis"].metadata["review"]
    assert review["memory"]["mode"] == "update" and review["memory"]["updated"]
    assert read_log(log.location).status == "success"
