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


# ---------------------------------------------------------------------------- issue 47: spec checks as git reads a change

def spec_of(requirements: list[str], out: list[str] = ()) -> str:
    text = "# T\n\n## Requirements\n\n" + "".join(f"- {r}\n" for r in requirements)
    return text + ("\n## Out of scope\n\n" + "".join(f"- {o}\n" for o in out) if out else "")


def missing(answer) -> list[str]:
    return [f.description for f in answer.findings if f.category == "missing-requirement" and f.severity.value != "Minor"]


def test_a_renamed_module_provides_both_its_old_and_new_names_but_an_absent_folder_is_missing():
    spec = spec_of(["Move `retrying/_asyncio.py` into the package `retrying/asyncio/`."])
    moved = view("def retry():\n    return 1\n", path="retrying/asyncio/__init__.py", added={2})
    moved.old_path = "retrying/_asyncio.py"
    for letter in "AB":
        assert missing(review_spec(spec, [moved], letter)) == [], letter
    elsewhere = view("def retry():\n    return 1\n", path="retrying/sync.py", added={2})
    assert missing(review_spec(spec, [elsewhere], "B")) == [
        "The spec asks for `retrying/_asyncio.py`, `retrying/asyncio/`; the change does not provide it."]


def test_names_the_change_edits_or_the_base_keeps_are_provided_but_a_name_nobody_has_is_missing():
    code = '__all__ = ["naturalsize", "intcomma"]\n\n\ndef intcomma(value):\n    return f"{value:,}"\n'
    spec = spec_of(["`intcomma` in `humanize/number.py` is listed in `__all__`."])
    number = view(code, path="humanize/number.py", added={5})  # __all__ is unchanged context
    for letter in "AB":
        assert missing(review_spec(spec, [number], letter)) == [], letter
    without = view(code.replace('__all__ = ["naturalsize", "intcomma"]\n', "X = 1\n"), path="humanize/number.py", added={5})
    assert missing(review_spec(spec, [without], "B")) == ["The spec asks for `__all__`; the change does not provide it."]


def test_example_names_and_values_are_not_required_but_an_added_name_is():
    spec = spec_of(["`get()` passes date keywords (such as `year`, `hour`, ...) to the `Arrow` constructor, "
                    "so that e.g. `get(year=2016)` answers `Content-Length: 0`.",
                    "Add `span_range(frame, start, end)` to `Arrow`."])
    code = ("from arrow.arrow import Arrow\n\n\nclass Factory:\n    def get(self, *args, **kwargs):\n"
            "        if kwargs:\n            return Arrow(**kwargs)\n        return Arrow.utcnow()\n")
    factory = view(code, path="arrow/factory.py", added={6, 7})
    b = review_spec(spec, [factory], "B")
    assert missing(b) == ["The spec asks for `span_range(frame, start, end)`; the change does not provide it."]


def test_a_qualified_out_of_scope_item_keeps_its_subject_in_scope_but_an_excluded_file_edit_is_scope_creep():
    spec = spec_of(["Make `intword` in `number.py` accept negative numbers."],
                   ["Other functions of `number.py`.", "Any change to `formatting.py`.", "`Attribute.evolve()`."])
    number = view("def intword(value):\n    return str(-value)\n", path="humanize/number.py", added={2})
    changelog = view("``attrs.evolve()`` now handles negatives.\n", path="CHANGELOG.rst", language="text")
    creep = [f for f in review_spec(spec, [number, changelog], "B").findings if f.category == "scope-creep"]
    assert creep == []
    formatting = view("def pad(text):\n    return text.strip()\n", path="humanize/formatting.py", added={2})
    creep = [f for f in review_spec(spec, [number, formatting], "B").findings if f.category == "scope-creep"]
    assert [(f.file, f.severity.value) for f in creep] == [("humanize/formatting.py", "Important")]


def test_an_unverifiable_requirement_is_listed_not_checked_never_important():
    spec = spec_of(["Lines produced by the format (the `[cols=...]` line, the `|====` delimiter) have no trailing "
                    "whitespace.", "Add `render_row` to `tabulate/core.py`."])
    core = view("def render_row(cells):\n    return '|'.join(cells).rstrip()\n", path="tabulate/core.py")
    for letter in "AB":
        answer = review_spec(spec, [core], letter)
        assert [f for f in answer.findings if f.severity.value != "Minor"] == [], letter
        assert "Not checked: 1 requirement(s)" in answer.summary, letter


# ---------------------------------------------------------------------------- issue 47: quality rules that see behaviour

def quality(code: str, path: str = "pkg/mod.py", letter: str = "B", **kw) -> list[tuple[int, str, str]]:
    return [(f.line, f.category, f.severity.value) for f in review_quality([view(code, path=path, **kw)], letter).findings]


COUNTED = '''from contextlib import suppress


def sample_counted(population, k, counts, strict):
    def feed(i):
        return next(population)

    with suppress(StopIteration):
        reservoir = []
        for _ in range(k):
            reservoir.append(feed(0))
        if strict and len(reservoir) < k:
            raise ValueError("Sample larger than population")
    return reservoir
'''


def test_a_check_skipped_by_a_suppressed_exception_is_found_but_one_made_before_is_not():
    for letter in "AB":
        assert quality(COUNTED, letter=letter) == [(12, "bug", "Important")], letter
    before = COUNTED.replace('''    with suppress(StopIteration):
        reservoir = []
        for _ in range(k):
            reservoir.append(feed(0))
        if strict and len(reservoir) < k:
            raise ValueError("Sample larger than population")''', '''    reservoir = []
    with suppress(StopIteration):
        for _ in range(k):
            reservoir.append(feed(0))
    if strict and len(reservoir) < k:
        raise ValueError("Sample larger than population")''')
    assert quality(before) == []


DISPATCH = '''def get(*args, **kwargs):
    arg_count = len(args)
    tz = kwargs.get("tzinfo")
    if len(kwargs) > 1:
        arg_count = 3
    if arg_count == 0:
        return now(tz)
    if arg_count == 1:
        return parse(args[0])
    return build(*args, **kwargs)
'''


def test_a_dispatch_value_overwritten_on_another_parameter_is_found_but_a_guarded_one_is_not():
    assert quality(DISPATCH, added={4, 5}) == [(4, "bug", "Important")]
    guarded = DISPATCH.replace("if len(kwargs) > 1:", "if not args and len(kwargs) > 1:")
    assert quality(guarded, added={4, 5}) == []


FIELDS = '''class Nested:
    def _serialize(self, value, many=False, **kwargs):
        return self.schema.dump(value, many=many)


class Pluck(Nested):
    def _serialize(self, value, **kwargs):
        return super()._serialize(value, **kwargs)[self.key]


class List:
    def _serialize(self, value, **kwargs):
        return self.inner._serialize(value, many=True, **kwargs)
'''


def test_a_parameter_an_override_does_not_take_is_found_but_not_when_every_override_takes_it():
    files = view(FIELDS, path="pkg/fields.py", added={2, 3, 13}, removed=["    def _serialize(self, value, **kwargs):"])
    found = review_quality([files], "B").findings
    assert [(f.line, f.category, f.severity.value) for f in found] == [(13, "bug", "Important")]
    assert "Pluck._serialize" in found[0].description
    taken = FIELDS.replace("class Pluck(Nested):\n    def _serialize(self, value, **kwargs):",
                           "class Pluck(Nested):\n    def _serialize(self, value, many=False, **kwargs):")
    files = view(taken, path="pkg/fields.py", added={2, 3, 13}, removed=["    def _serialize(self, value, **kwargs):"])
    assert review_quality([files], "B").findings == []


def test_a_condition_made_constant_is_found_but_a_loop_forever_is_not():
    assert quality("def ship(order):\n    if order.paid or True:\n        return 1\n") == [(2, "bug", "Important")]
    assert quality("def serve(queue):\n    while True:\n        queue.get()\n") == []


def test_a_public_name_removed_without_deprecation_is_found_but_a_deprecated_alias_is_not():
    kept = "def natural_size(value):\n    return str(value)\n"
    gone = view(kept, path="humanize/filesize.py", added=set(), removed=["def naturalsize(value):", "    return str(value)"])
    gone.removed_before = {3: ["def naturalsize(value):", "    return str(value)"]}
    found = review_quality([gone], "B").findings
    assert [(f.file, f.category, f.severity.value) for f in found] == [("humanize/filesize.py", "bug", "Important")]
    assert "naturalsize" in found[0].description
    alias = kept + "\n\ndef naturalsize(value):\n    warnings.warn('deprecated', DeprecationWarning)\n    return natural_size(value)\n"
    kept_view = view(alias, path="humanize/filesize.py", added={4, 5, 6, 7}, removed=["def naturalsize(value):"])
    assert [f for f in review_quality([kept_view], "B").findings if "naturalsize" in f.description] == []


# ---------------------------------------------------------------------------- issue 47: honest decisions


def test_an_approval_says_what_was_not_assessed_and_a_human_decision_names_its_finding():
    from review_harness.code.config import ReviewConfig
    from review_harness.code.merge import confidence, decide, decision_note, merge_stage
    from review_harness.code.spec_rules import review_spec as spec_review

    config = ReviewConfig(auto_approve=True, auto_reject=True)
    spec_text = spec_of(["Add `get` to `pkg/mod.py`."])
    clean = [view(DISPATCH.replace("if len(kwargs) > 1:", "if not args and len(kwargs) > 1:"), added={4, 5})]
    buggy = [view(DISPATCH, added={4, 5})]
    notes = {}
    for name, files in (("clean", clean), ("buggy", buggy)):
        spec_reports = {x: spec_review(spec_text, files, x) for x in "AB"}
        quality_reports = {x: review_quality(files, x) for x in "AB"}
        spec = merge_stage("spec", spec_reports, ("A", "B"))
        quality = merge_stage("quality", quality_reports, ("A", "B"))
        for stage, reports in ((spec, spec_reports), (quality, quality_reports)):  # as the panel keeps them
            stage.summaries = {x: r.summary for x, r in reports.items()}
        decision = decide(spec, quality, config)
        notes[name] = (decision, decision_note(confidence(spec, quality), decision, config, [spec, quality]))
    assert notes["clean"][0] == "AUTO_APPROVE"
    assert notes["clean"][1].startswith("approved on what the reviewers could check; not assessed: Rules cannot see")
    assert notes["buggy"][0] == "PRESENT_TO_HUMAN"
    assert notes["buggy"][1].startswith("a human decides because of pkg/mod.py:4 (Important")


def test_the_real_commit_gold_set_is_read_from_beside_the_checkout_or_left_out_in_one_line(tmp_path, monkeypatch, capsys):
    import pytest
    from review_harness.code.dataset import gold_samples
    from review_harness.core.inspect_adapter import PrerequisiteError
    from review_harness.core.paths import shared_dir

    shared = shared_dir()
    if shared is not None and (shared / "real" / "code").is_dir():
        samples = gold_samples("code/real", "heldout", {})
        assert [s.id for s in samples] == ["02-cachetools-descriptor-class-access", "04-click-clirunner-eof",
                                           "06-httpx-empty-body-content-length", "07-attrs-nested-evolve"]
        arrow = {s.id: s for s in gold_samples("code/real", "dev", {})}["01-arrow-get-kwargs"]
        files = {f["path"]: f for f in arrow.metadata["change"]["files"]}
        assert set(files) == {"arrow/factory.py", "tests/factory_tests.py"}
        factory = files["arrow/factory.py"]  # the change as JSON: line numbers are keys as text
        assert factory["lines"]["141"] == "        if len(kwargs) > 1:" and 141 in factory["added"]
    monkeypatch.setenv("REVIEW_HARNESS_SHARED", str(tmp_path))  # a shared folder without the real commits
    with pytest.raises(PrerequisiteError, match="every case is a real commit kept outside the repository"):
        gold_samples("code/real", "all", {})
    err = capsys.readouterr().err
    assert "01-arrow-get-kwargs: left out, its real commit ../shared/real/code/01-arrow-get-kwargs is not here" in err


def test_a_function_the_change_only_removes_lines_from_is_edited_and_an_untouched_one_is_missing():
    code = "class ByteStream:\n    def get_headers(self):\n        length = str(len(self.body))\n        return {'Content-Length': length}\n"
    stream = view(code, path="httpx/streams.py", added=set(), removed=["        if not self.body:", "            return {}"])
    stream.removed_before = {3: ["        if not self.body:", "            return {}"]}
    spec = spec_of(["`ByteStream.get_headers()` in `httpx/streams.py` reports a zero length for an empty body."])
    for letter in "AB":
        assert missing(review_spec(spec, [stream], letter)) == [], letter
    other = spec_of(["`ByteStream.get_trailers()` in `httpx/streams.py` reports nothing for an empty body."])
    assert missing(review_spec(other, [stream], "B")) == [
        "The spec asks for `ByteStream.get_trailers()`; the change does not provide it."]
