"""Code review: input, rules, merge, confidence, decide, loop, end to end on the offline provider."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from review_harness.core.inspect_adapter import PrerequisiteError

from review_harness.code.change import ChangeError, apply_fix, from_git, from_patch, infer_service
from review_harness.code.config import ConfigError, ReviewConfig, build_config, load_project_config
from review_harness.code.merge import confidence, decide, escalation_message, fix_message, merge_stage
from review_harness.code.models import CheckedFine, CodeFinding, ReviewerAnswer
from review_harness.code.parse import REVIEWER_SCHEMA, parse_reviewer
from review_harness.code.prompts import parse_change, render_change, render_reviewer_prompt
from review_harness.code.rules import FileView, review_quality
from review_harness.code.spec_rules import review_spec
from review_harness.code.offline import OFFLINE_FIX
from review_harness.core.schema import schema_dict, schema_problems

ROOT = Path(__file__).resolve().parent.parent
TASK = str(ROOT / "tasks" / "code_review.py")


def task_function():
    import importlib.util
    spec = importlib.util.spec_from_file_location("code_review_task_file", TASK)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.code_review


def run(log_dir, model_args=None, **task_args):
    return inspect_eval(task_function()(**task_args), model="offline/rules", display="none", log_dir=str(log_dir),
                        model_args=model_args or {})[0]


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = tmp_path / "shop"
    (repo / "services" / "orders").mkdir(parents=True)
    git(repo, "init", "-q")
    git(repo, "config", "user.email", "t@example.com")
    git(repo, "config", "user.name", "t")
    (repo / "services" / "orders" / "store.py").write_text("import sqlite3\n\n\ndef get(conn, i):\n    return conn.execute('SELECT 1 WHERE id = ?', (i,))\n")
    (repo / "services" / "orders" / "old_name.py").write_text("VALUE = 1\nOTHER = 2\nTHIRD = 3\n")
    (repo / "services" / "orders" / "gone.py").write_text("X = 1\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    store = repo / "services" / "orders" / "store.py"
    store.write_text(store.read_text() + "\n\ndef find(conn, name):\n    return conn.execute(f\"SELECT * FROM orders WHERE name = '{name}'\")\n")
    git(repo, "mv", "services/orders/old_name.py", "services/orders/new_name.py")
    git(repo, "rm", "-q", "services/orders/gone.py")
    (repo / "services" / "orders" / "logo.png").write_bytes(b"\x89PNG\x00\x00binary")
    (repo / "services" / "orders" / "notes.txt").write_bytes("caf\xe9\n".encode("latin-1"))
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "head")
    (repo / "SPEC.md").write_text("# Task 3: find orders\n\n## Requirements\n\n- Add `find` to `store.py`: it must return orders by name.\n")
    return repo


# ---------------------------------------------------------------------------- input


def test_git_change_handles_rename_delete_binary_latin1(repo: Path):
    change = from_git(repo, "HEAD~1", "HEAD")
    by_path = {f.path: f for f in change.files}
    assert by_path["services/orders/new_name.py"].status == "renamed"
    assert by_path["services/orders/new_name.py"].old_path == "services/orders/old_name.py"
    assert by_path["services/orders/gone.py"].status == "deleted"
    assert by_path["services/orders/logo.png"].binary
    assert by_path["services/orders/notes.txt"].lines[1] == "café"
    assert any("not UTF-8" in w for w in change.warnings)
    assert by_path["services/orders/store.py"].added == [6, 7, 8, 9]
    assert infer_service([f.path for f in change.files], "shop") == "orders"


@pytest.mark.parametrize("args, message", [
    (("missing", "HEAD~1", "HEAD"), "-T repo=missing: no such directory"),
    ((None, "nope", "HEAD"), "-T base=nope: unknown revision"),
    ((None, "HEAD", "HEAD"), "empty diff"),
])
def test_git_bad_input(repo: Path, args, message):
    path = repo.parent / args[0] if args[0] else repo
    with pytest.raises(ChangeError, match=message.replace("missing", str(path)) if args[0] else message):
        from_git(path, args[1], args[2])


def test_not_a_repository(tmp_path: Path):
    with pytest.raises(ChangeError, match="not a git repository"):
        from_git(tmp_path, "HEAD~1", "HEAD")


def test_patch_errors(tmp_path: Path):
    binary = tmp_path / "x.patch"
    binary.write_bytes(b"GIT\x00binary")
    with pytest.raises(ChangeError, match="binary patch"):
        from_patch(binary)
    only_binary = tmp_path / "b.patch"
    only_binary.write_text("diff --git a/a.png b/a.png\nindex 1..2 100644\nBinary files a/a.png and b/a.png differ\n")
    with pytest.raises(ChangeError, match="binary changes only"):
        from_patch(only_binary)
    empty = tmp_path / "e.patch"
    empty.write_text("just words\n")
    with pytest.raises(ChangeError, match="empty diff"):
        from_patch(empty)
    with pytest.raises(ChangeError, match="no such file"):
        from_patch(tmp_path / "none.patch")


@pytest.mark.parametrize("values, message", [
    ({"max_fix_iterations": 0}, "max_fix_iterations must be 1-5"),
    ({"max_fix_iterations": 6}, "max_fix_iterations must be 1-5"),
    ({"fix_timeout_turns": 4}, "fix_timeout_turns must be 5-30"),
    ({"fix_timeout_turns": 31}, "fix_timeout_turns must be 5-30"),
    ({"auto_approve": "maybe"}, "review.auto_approve: expected true or false"),
    ({"strategy": "triple"}, "review.strategy: unknown strategy"),
    ({"max_fix_iterations": "two"}, "review.max_fix_iterations: expected a whole number"),
    ({"colour": 1}, "review.colour: unknown key"),
])
def test_bad_config(values, message):
    with pytest.raises(ConfigError, match=message):
        build_config(values)


def test_config_defaults_and_yaml(tmp_path: Path):
    config = build_config({})
    assert (config.speculative_quality, config.max_fix_iterations, config.fix_timeout_turns,
            config.auto_approve, config.auto_reject) == (True, 2, 10, False, False)
    project = tmp_path / "project.yml"
    project.write_text("review:\n  strategy: parallel\n  parallel_models: [haiku, sonnet]\n  max_fix_iterations: 3\n")
    assert build_config({**load_project_config(project), "max_fix_iterations": "4"}).max_fix_iterations == 4


def test_schemas_are_sendable():
    assert schema_problems(schema_dict(REVIEWER_SCHEMA)) == []


def test_budget_cuts_are_reported(repo: Path):
    change = from_git(repo, "HEAD~1", "HEAD")
    big = change.file("services/orders/store.py")
    apply_fix(change, {"services/orders/store.py": "\n".join(f"X{i} = {i}" for i in range(3000))})
    rendered = render_change(change, 2_000)
    assert any("store.py" in cut for cut in rendered.cuts)
    assert big is not None


# ---------------------------------------------------------------------------- rules

PY = '''import asyncio, subprocess


async def ping():
    return 1


async def run(conn, name, items=[]):
    ping()
    q = "SELECT * FROM t WHERE n = '%s'" % name
    conn.execute(q)
    f = open("x")
    try:
        subprocess.run("ls " + name, shell=True)
    except Exception:
        pass
    return f.read()
'''


def _view(text: str, path: str = "svc/app.py") -> FileView:
    lines = {n: line for n, line in enumerate(text.splitlines(), 1)}
    return FileView(path=path, language="python", lines=lines, added=set(lines))


def test_quality_rules_b_find_real_issues():
    found = {(f.line, f.category) for f in review_quality([_view(PY)], "B").findings}
    assert (8, "bug") in found            # mutable default
    assert (9, "concurrency") in found    # missing await
    assert (11, "security") in found      # SQL traced through q
    assert (12, "resource") in found      # open() never closed... returned f.read() is not f
    assert (14, "security") in found      # shell=True with a built string
    assert (15, "error-handling") in found  # swallowed


def test_model_a_misses_and_is_noisy():
    a = review_quality([_view(PY)], "A")
    lines = {f.line for f in a.findings}
    assert 9 not in lines and 11 not in lines and 12 not in lines
    noisy = "try:\n    x()\nexcept Exception:\n    log.exception('x')\n    raise\n"
    a_found = review_quality([_view(noisy)], "A").findings
    b = review_quality([_view(noisy)], "B")
    assert [f.line for f in a_found] == [3] and b.findings == [] and b.checked_fine


def test_spec_rules_missing_and_scope_creep():
    spec = "# T\n\n## Requirements\n\n- Add `parse` and `dump`: must round-trip.\n\n## Out of scope\n\n- A `Cache`.\n"
    code = "def parse(x):\n    return x\n\n\nclass Cache:\n    pass\n\n\ndef extra():\n    return 1\n"
    a = review_spec(spec, [_view(code)], "A")
    b = review_spec(spec, [_view(code)], "B")
    assert [f.category for f in a.findings] == ["scope-creep"]  # A accepts a partial match
    cats = sorted(f.category for f in b.findings)
    assert cats == ["missing-requirement", "scope-creep", "scope-creep"]


def test_rendered_change_round_trips(repo: Path):
    change = from_git(repo, "HEAD~1", "HEAD")
    files = {f["path"]: f for f in parse_change(render_change(change, 60_000).text)}
    assert files["services/orders/store.py"]["added"] == [6, 7, 8, 9]
    assert files["services/orders/logo.png"]["binary"]


def test_parser_salvages_items():
    text = '{"findings": [{"severity": "Critical", "category": "bug", "file": "a.py", "line": 3, "description": "d", "suggested_fix": null, "quote": null}, {"severity": "Huge"}], "checked_fine": [], "summary": "s"}'
    parsed = parse_reviewer(text)
    assert len(parsed.report.findings) == 1 and parsed.problems
    assert parse_reviewer("not json").report is None


# ---------------------------------------------------------------------------- merge, confidence, decide


def F(sev="Critical", line=10, cat="security", file="a.py", desc="SQL built from strings"):
    return CodeFinding(severity=sev, category=cat, file=file, line=line, description=desc, suggested_fix=None, quote=None)


def R(*findings, fine=()):
    return ReviewerAnswer(findings=list(findings), checked_fine=list(fine), summary="")


def test_merge_categories():
    a = R(F(line=10), F("Important", 30, "error-handling", desc="broad except"))
    b = R(F(line=11), F("Critical", 50, "concurrency", desc="missing await"),
          fine=[CheckedFine(file="a.py", line=28, end_line=33, note="handler re-raises")])
    merged = merge_stage("quality", {"A": a, "B": b}, ("A", "B"))
    cats = sorted(m.category for m in merged.findings)
    assert cats == ["agreed", "b_only", "contradiction"]
    assert merged.verdict == "FAIL" and merged.verdicts == {"A": "FAIL", "B": "FAIL"}
    assert merge_stage("quality", {"A": None, "B": R()}, ("A", "B")).verdict == "INCOMPLETE"


CLEAN, MINOR = R(), R(F("Minor", cat="maintainability", desc="print left"))
CRIT = R(F())
IMPORTANT = R(F("Important", cat="bug", desc="mutable default"))
ON = ReviewConfig(auto_approve=True, auto_reject=True)
OFF = ReviewConfig()

# (spec A, spec B, quality A, quality B, scenario, confidence, decision with flags on, decision with flags off)
ROWS = [
    (CLEAN, CLEAN, CLEAN, CLEAN, "both-pass-clean", 1.0, "AUTO_APPROVE", "PRESENT_TO_HUMAN"),
    (CLEAN, CLEAN, MINOR, MINOR, "both-pass-minor", 0.85, "AUTO_APPROVE", "PRESENT_TO_HUMAN"),
    (CLEAN, CLEAN, CRIT, CRIT, "both-fail-agreed-critical", 0.9, "AUTO_REJECT_TO_IMPLEMENTER", "PRESENT_TO_HUMAN"),
    (CRIT, CRIT, CLEAN, CLEAN, "both-fail-agreed-critical", 0.9, "AUTO_REJECT_TO_IMPLEMENTER", "PRESENT_TO_HUMAN"),
    (CLEAN, CLEAN, CLEAN, IMPORTANT, "split", 0.4, "PRESENT_TO_HUMAN", "PRESENT_TO_HUMAN"),
    (CLEAN, CLEAN, IMPORTANT, R(F("Important", 80, "resource", desc="file never closed")), "both-fail-disagree", 0.6, "PRESENT_TO_HUMAN", "PRESENT_TO_HUMAN"),
    (CLEAN, CLEAN, CLEAN, CRIT, "b-only-critical", 0.7, "PRESENT_TO_HUMAN", "PRESENT_TO_HUMAN"),
    (CLEAN, CLEAN, None, CLEAN, "incomplete", 0.4, "PRESENT_TO_HUMAN", "PRESENT_TO_HUMAN"),
]


@pytest.mark.parametrize("sa, sb, qa, qb, scenario, value, on, off", ROWS)
def test_confidence_and_decision_table(sa, sb, qa, qb, scenario, value, on, off):
    spec = merge_stage("spec", {"A": sa, "B": sb}, ("A", "B"))
    quality = merge_stage("quality", {"A": qa, "B": qb}, ("A", "B"))
    if spec.verdict != "PASS":
        quality.discarded = True
    result = confidence(spec, quality)
    assert (result.scenario, result.value) == (scenario, value)
    assert decide(spec, quality, ON) == on
    assert decide(spec, quality, OFF) == off


def test_what_parsed_of_a_malformed_answer_fails_the_stage_but_never_agrees_or_passes():
    a = R(F(line=10))
    salvaged = R(F(line=11), fine=[CheckedFine(file="a.py", line=None, end_line=None, note="all fine")])
    merged = merge_stage("quality", {"A": a, "B": None}, ("A", "B"), salvaged={"B": salvaged})
    assert merged.verdicts == {"A": "FAIL", "B": None}
    assert [(m.category, m.by, m.salvaged) for m in merged.findings] == [("b_only", "B", True), ("a_only", "A", False)]
    assert merged.verdict == "FAIL"  # its Critical still fails the stage
    clean = merge_stage("quality", {"A": R(), "B": None}, ("A", "B"), salvaged={"B": R(F("Minor", cat="tests"))})
    assert clean.verdict == "INCOMPLETE" and clean.verdicts["B"] is None
    assert decide(merged, None, ON) == "PRESENT_TO_HUMAN"  # no agreed Critical: never an auto-reject


def test_messages():
    merged = merge_stage("quality", {"A": CRIT, "B": CRIT}, ("A", "B"))
    assert fix_message(1, 2, merged.findings).startswith("Fix attempt 1/2: ")
    assert "a.py:10" in fix_message(1, 2, merged.findings)
    assert escalation_message("3", 2, merged.findings).startswith("Task 3 failed review after 2 fix attempts. Remaining issues: a.py:10")


# ---------------------------------------------------------------------------- end to end


def _review(log, n=0):
    return log.samples[n].scores["code_synthesis"].metadata["review"]


def test_eval_on_a_real_commit(repo: Path, monkeypatch):
    monkeypatch.chdir(repo)  # -T repo=. means the folder the user ran the command from
    monkeypatch.setenv("PWD", str(repo))
    log = run(repo.parent / "logs", repo=".", base="HEAD~1", head="HEAD", spec="SPEC.md")
    assert log.status == "success"
    review = _review(log)
    first = review["iterations"][0]
    assert first["critical_path_calls"] == 1 and len(first["runs"]) == 4
    assert first["quality"]["findings"][0]["category"] == "agreed"
    assert first["decision"] == "PRESENT_TO_HUMAN"  # auto flags off by default
    assert review["final_status"] == "awaiting-human"
    assert log.samples[0].output.completion.startswith("## Review Result — Task 1")


def test_user_input_errors(repo: Path):
    code_review = task_function()
    with pytest.raises(PrerequisiteError, match="-T spec=PATH is required"):
        code_review(repo=str(repo), base="HEAD~1")
    with pytest.raises(PrerequisiteError, match="-T base=nope: unknown revision"):
        code_review(repo=str(repo), base="nope", spec=str(repo / "SPEC.md"))
    with pytest.raises(PrerequisiteError, match="max_fix_iterations must be 1-5"):
        code_review(repo=str(repo), base="HEAD~1", spec=str(repo / "SPEC.md"), max_fix_iterations="9")
    with pytest.raises(PrerequisiteError, match="unknown task parameter"):
        code_review(repo=str(repo), base="HEAD~1", spec=str(repo / "SPEC.md"), auto_aprove="true")


def test_faults_degrade_and_latency_is_one_round_trip(tmp_path: Path):
    log = run(tmp_path, {"fault_rate": 0.5, "fault_seed": 3}, split="heldout")
    assert log.status == "success" and all(s.error is None for s in log.samples)
    log = run(tmp_path, {"latency": 0.2}, split="heldout", speculative_quality="false")
    assert _review(log)["iterations"][0]["critical_path_calls"] == 2


def test_a_reviewer_malformed_twice_is_malformed_keeps_its_items_and_degrades_the_stage(tmp_path: Path):
    from scripted_members import MODEL as SCRIPTED

    [log] = inspect_eval(task_function()(), model=SCRIPTED, model_args={"members": "quality-B"}, display="none",
                         log_dir=str(tmp_path), sample_id="unclosed-mutable")
    [sample] = log.samples
    review = _review(log)
    first = review["iterations"][0]
    runs = {r["member"]: r for r in first["runs"]}
    assert (runs["quality-B"]["status"], runs["quality-B"]["attempts"], runs["quality-B"]["kind"]) == ("malformed", 2, "code")
    assert all(runs[m]["status"] == "complete" for m in ("spec-A", "spec-B", "quality-A"))
    entry = sample.store["code:member:quality-B:0"]
    assert entry["report"] is None and entry["salvaged"]["findings"]
    # its parsed findings are kept as its own, matched with no other; it has no verdict
    kept = [m for m in first["quality"]["findings"] if m["salvaged"]]
    assert [m["finding"] for m in kept] == entry["salvaged"]["findings"]
    assert all(m["category"] == "b_only" and m["by"] == "B" for m in kept)
    assert first["quality"]["verdicts"] == {"A": "FAIL", "B": None}
    assert first["confidence"]["scenario"] == "incomplete" and first["decision"] == "PRESENT_TO_HUMAN"
    assert sample.scores["code_synthesis"].value["degraded"] == 1.0
    assert any(r.startswith("model B: returned malformed output (malformed answer") for r in first["quality"]["reasons"])
    assert "- ⚠️ quality-B (reviewer_b) returned malformed output (malformed answer" in sample.output.completion


def test_gold_set_runs_offline(tmp_path: Path):
    log = run(tmp_path)
    assert log.status == "success" and len(log.samples) >= 12
    metrics = {s.name: next(iter(s.metrics.values())).value for s in log.results.scores if s.scorer == "code_gold"}
    assert metrics["final_status_accuracy"] == 1.0
    assert metrics["must_catch_quality_B"] == 1.0
    by_id = {s.id: _review(log, i) for i, s in enumerate(log.samples)}
    spec_gap = by_id["spec-gap"]["iterations"][0]
    assert spec_gap["quality"]["discarded"] and spec_gap["spec"]["verdict"] == "FAIL"
    assert by_id["loop-never"]["final_status"] == "escalated"
    assert by_id["loop-never"]["escalation"].startswith("Task 8 failed review after 2 fix attempts.")


def test_llm_matcher_under_grader_role(tmp_path: Path):
    log = inspect_eval(task_function()(split="heldout"), model="offline/rules", display="none", log_dir=str(tmp_path),
                       model_roles={"grader": "offline/rules"})[0]
    assert log.status == "success"
    quality = _review(log, 0)["iterations"][0]["quality"]
    assert quality["matcher"] == "llm" and quality["findings"][0]["category"] == "agreed"


def test_llm_matcher_pairs_are_checked():
    from review_harness.code.matcher import parse_pairs
    a, b = [F(), F(line=40)], [F(line=11), F(file="b.py")]
    assert parse_pairs('{"pairs": [{"a": "a1", "b": "b1"}]}', a, b) == ([(0, 0)], None)
    assert parse_pairs('{"pairs": [{"a": "a1", "b": "b2"}]}', a, b)[1].endswith("different files")
    assert parse_pairs('{"pairs": [{"a": "a1", "b": "b1"}, {"a": "a2", "b": "b1"}]}', a, b)[1].startswith("finding paired twice")
    assert parse_pairs('{"pairs": [{"a": "a9", "b": "b1"}]}', a, b)[1].startswith("unknown finding id")
    from review_harness.code.matcher import pair_indices, parse_match
    outcome = parse_match('{"pairs": [{"a": "a2", "b": "b1"}]}', a, b)
    assert outcome.usable and pair_indices(outcome.report) == [(1, 0)]
    unusable = parse_match('{"pairs": [{"a": "a1", "b": "b2"}]}', a, b)
    assert unusable.malformed and unusable.report is None and unusable.problems[0].endswith("different files")


def test_offline_answers_are_routed_by_member_not_by_the_prompt(tmp_path: Path):
    from review_harness.core.kinds import get_kind
    code = get_kind("code")
    patch = tmp_path / "c.patch"
    added = "def parse(x):\n    return x\n\n\nclass Cache:\n    pass\n".splitlines()
    patch.write_text(f"diff --git a/m.py b/m.py\nnew file mode 100644\n--- /dev/null\n+++ b/m.py\n@@ -0,0 +1,{len(added)} @@\n"
                     + "".join(f"+{line}\n" for line in added))
    spec = "# T\n\n## Requirements\n\n- Add `parse` and `dump`: must round-trip.\n\n## Out of scope\n\n- A `Cache`.\n"
    a, b = (render_reviewer_prompt("spec", letter, spec=spec, change=render_change(from_patch(patch), 60_000), task="1",
                                   title="t", service="s", iteration=0) for letter in "AB")
    # the member asking decides whose rules answer, whichever letter the request names
    assert code.offline_answer("spec-B", a.request) == code.offline_answer("spec-B", b.request)
    assert code.offline_answer("spec-A", b.request) == code.offline_answer("spec-A", a.request)
    by_a, by_b = (ReviewerAnswer.model_validate_json(code.offline_answer(m, a.request)) for m in ("spec-A", "spec-B"))
    assert [f.category for f in by_a.findings] == ["scope-creep"]
    assert "missing-requirement" in [f.category for f in by_b.findings]
    assert code.offline_answer("implementer", a.request) == OFFLINE_FIX
    assert code.offline_answer("nobody", a.request) is None


def _case(root: Path, name: str, case_yaml: str, gold_yaml: str | None = None) -> Path:
    """A one-case gold set in a temporary folder (for -T cases=)."""
    folder = root / name
    (folder / "base" / "app").mkdir(parents=True)
    (folder / "head" / "app").mkdir(parents=True)
    (folder / "fix").mkdir()
    (folder / "base" / "app" / "db.py").write_text("X = 1\n")
    (folder / "head" / "app" / "db.py").write_text("X = 1\n\n\ndef find(conn, name):\n    return conn.execute(f\"SELECT * FROM t WHERE n = '{name}'\")\n")
    (folder / "fix" / "db.py").write_text("X = 1\n\n\ndef find(conn, name):\n    return conn.execute(\"SELECT * FROM t WHERE n = ?\", (name,))\n")
    (folder / "spec.md").write_text("# Task 9: find\n\n## Requirements\n\n- Add `find`: it must look rows up by name.\n")
    (folder / "case.yaml").write_text(case_yaml)
    if gold_yaml:
        (folder / "gold.yaml").write_text(gold_yaml)
    return root


def test_fix_over_the_turn_budget_escalates(tmp_path: Path):
    cases = _case(tmp_path / "cases", "slow-fix", "task: '9'\ntitle: Find\nchange: {base: base, head: head}\n"
                  "config: {auto_reject: true, fix_timeout_turns: 5}\nfixes:\n  - files: {app/db.py: fix/db.py}\n    turns: 7\n")
    review = _review(run(tmp_path, cases=str(cases)))
    assert review["final_status"] == "escalated" and review["fix_iterations"] == 1
    assert review["fixes"][0]["outcome"] == "timeout"
    assert "over fix_timeout_turns=5" in review["escalation"]


def test_single_strategy_and_scripted_fix(tmp_path: Path):
    cases = _case(tmp_path / "cases", "single", "task: '9'\ntitle: Find\nchange: {base: base, head: head}\n"
                  "config: {strategy: single, auto_approve: true}\nfixes:\n  - files: {app/db.py: fix/db.py}\nhuman: [reject]\n")
    log = run(tmp_path, cases=str(cases))
    review = _review(log)
    first = review["iterations"][0]
    assert [r["role"] for r in first["runs"]] == ["reviewer_b", "reviewer_b"]
    assert first["strategy"] == "Speculative parallel (2 reviewers)"
    assert first["confidence"]["scenario"] == "b-only-critical" and first["human_decision"] == "reject"
    assert review["iterations"][1]["decision"] == "AUTO_APPROVE" and review["final_status"] == "complete"
    report = log.samples[0].output.completion
    for line in ("**Strategy:**", "**Confidence: Medium (0.7)**", "**Auto-decision:", "### Spec Findings",
                 "### Quality Findings", "| Contradictions |", "| Fix Iterations |", "| 9 | Find | complete |"):
        assert line in report


def test_implementer_role_offline_makes_no_change(repo: Path, tmp_path: Path):
    log = run(tmp_path, repo=str(repo), base="HEAD~1", spec=str(repo / "SPEC.md"), auto_reject="true", max_fix_iterations="1")
    review = _review(log)
    assert review["fixes"][0]["run"]["role"] == "implementer"
    assert review["fixes"][0]["outcome"] == "no-change"
    assert review["fixes"][0]["message"].startswith("Fix attempt 1/1: ")
    assert review["final_status"] == "escalated"
    assert review["escalation"].startswith("Task 1 failed review after 1 fix attempts. Remaining issues: services/orders/store.py:9")


def test_bad_case_file(tmp_path: Path):
    cases = _case(tmp_path / "cases", "bad", "task: '9'\ntitle: Find\nchange: {base: base, head: head}\nconfig: {max_fix_iterations: 9}\n")
    with pytest.raises(PrerequisiteError, match="max_fix_iterations must be 1-5"):
        task_function()(cases=str(cases))
    (cases / "bad" / "case.yaml").write_text("task: '9'\nchange: {base: base}\n")
    with pytest.raises(PrerequisiteError, match="case.yaml is invalid: title: Field required"):
        task_function()(cases=str(cases))


def test_prompt_lint_passes():
    from review_harness.code.lint import lint as lint_code_prompts
    from review_harness.core.lint import lint_prefixes
    report = lint_prefixes("code", lint_code_prompts())
    assert report.problems == [] and {p.key for p in report.prompts} == {"spec", "quality", "implementer", "matcher"}


def test_patch_with_revisions_is_an_error(tmp_path: Path):
    patch = tmp_path / "c.patch"
    patch.write_text("diff --git a/a.py b/a.py\nnew file mode 100644\n--- /dev/null\n+++ b/a.py\n@@ -0,0 +1 @@\n+X = 1\n")
    spec = tmp_path / "spec.md"
    spec.write_text("# T\n")
    with pytest.raises(PrerequisiteError, match="go with -T repo="):
        task_function()(patch=str(patch), base="HEAD~1", spec=str(spec))
    change = from_patch(patch)
    assert change.files[0].status == "added" and change.files[0].text == "X = 1\n"


def test_memory_update_on_your_repository(repo: Path, tmp_path: Path):
    with pytest.raises(PrerequisiteError, match="-T spec=nope.md: no such file"):
        task_function()(repo=str(repo), base="HEAD~1", spec="nope.md")
    log = run(tmp_path, repo=str(repo), base="HEAD~1", spec=str(repo / "SPEC.md"), memory="update")
    assert log.status == "success"
    patterns = repo / ".claude" / "agent-memory" / "project-orchestrator-quality-reviewer" / "service-patterns" / "orders.md"
    assert "SQL passed to execute() is built from strings" in patterns.read_text()
    assert (patterns.parent.parent / "MEMORY.md").read_text().startswith("# quality-reviewer memory")


def test_huge_change_is_cut_and_says_so(repo: Path, tmp_path: Path):
    big = repo / "services" / "orders" / "big.py"
    big.write_text("".join(f"VALUE_{i} = {i}\n" for i in range(2500)))
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "big")
    log = run(tmp_path, repo=str(repo), base="HEAD~2", spec=str(repo / "SPEC.md"), max_change_chars="2000")
    review = _review(log)
    assert any("big.py" in cut for cut in review["change"]["cuts"])
    assert "cut to fit the prompt budget: services/orders/big.py" in log.samples[0].output.completion


def test_eval_rule_flags_the_builtin_not_a_name_the_module_imports():
    builtin = "def run(expr):\n    return eval('1 + ' + expr)\n"
    imported = "from inspect_ai import eval\n\ndef run(task):\n    return eval(task, model='m')\n"
    assert [(f.line, f.category) for f in review_quality([_view(builtin)], "B").findings] == [(2, "security")]
    assert review_quality([_view(imported)], "B").findings == []
