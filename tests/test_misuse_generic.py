"""The generic cases of 'nothing lost, part 2', each reproduced and shown handled: a user's file is
never replaced by an output (also when the race for its name is forced), credentials never reach a
message, a path parameter is never taken for text, options the input makes meaningless and
skipped special files are named, pathological input is one line, and a long input says what it
will cost and shows its progress. Reviews run in-process through `inspect_ai.eval()`."""

from __future__ import annotations

import json
import multiprocessing
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval

from helpers import load_task_file, reviews
from review_harness.cli import main
from review_harness.core import files
from review_harness.core.documents import DocumentError, load
from review_harness.core.files import OUTPUTS_FILE, tool_outputs, write_output
from review_harness.core.inspect_adapter import PrerequisiteError
from review_harness.core.paths import FIXTURES_DIR, PROJECT_ROOT
from review_harness.core.redact import has_credentials, redact_url, redact_urls

DS = FIXTURES_DIR / "ds"
DESIGN = FIXTURES_DIR / "design" / "api-rate-limiter"


def ds_run(tmp_path: Path, **task_args):
    [log] = inspect_eval(load_task_file("ds_review")(**task_args), model="offline/rules", display="none",
                         log_dir=str(tmp_path / "logs"))
    assert log.status == "success"
    return log


# ---------------------------------------------------------------------------- nothing the user wrote is replaced


def test_a_review_never_replaces_the_users_file_of_the_same_name(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    shutil.copy(DS / "dark-mode-retention.md", docs / "plan.md")
    mine = "# My own review notes\n\nKeep these.\n"
    (docs / "plan.review.md").write_text(mine)
    log = ds_run(tmp_path, document=str(docs), output_dir=str(docs))
    assert (docs / "plan.review.md").read_text() == mine  # untouched
    written = docs / "plan.review-2.md"
    assert written.is_file() and "# My own review notes" not in written.read_text()
    review = reviews(log)["plan"]
    assert any("plan.review.md was not written by review-harness" in w and "plan.review-2.md" in w
               for w in review.warnings)  # the clash is named in the review
    sample = next(s for s in log.samples if s.id == "plan")
    assert sample.metadata["review_file"] == str(written)

    # a second run replaces its own output, never the user's, and does not review its outputs as documents
    log = ds_run(tmp_path / "again", document=str(docs), output_dir=str(docs))
    assert (docs / "plan.review.md").read_text() == mine
    assert written.read_text().startswith("# ") and not (docs / "plan.review-3.md").exists()
    assert "plan.review-2" not in {str(s.id) for s in log.samples}
    assert "plan.review.review" not in {str(s.id) for s in log.samples}
    skipped = [w for w in next(s for s in log.samples if s.id == "plan").metadata["input_warnings"]
               if "review-harness wrote there" in w]
    assert skipped and "plan.review-2.md" in skipped[0]


def test_an_output_the_user_edited_is_kept_and_the_new_one_goes_beside_it(tmp_path):
    target = tmp_path / "a.review.md"
    assert write_output(target, "first\n").clash is None
    assert write_output(target, "second\n").path == target  # its own, unchanged: replaced
    target.write_text("second\nwith the user's note\n")
    again = write_output(target, "third\n")
    assert again.path == tmp_path / "a.review-2.md" and again.clash == target
    assert target.read_text() == "second\nwith the user's note\n"
    assert tool_outputs(tmp_path) == {"a.review-2.md"}
    assert "was not written by review-harness (or was changed since)" in again.note


def test_a_record_that_is_not_the_tools_own_makes_nothing_the_tools(tmp_path):
    (tmp_path / "x.md").write_text("mine")
    (tmp_path / OUTPUTS_FILE).write_text("not json")
    assert write_output(tmp_path / "x.md", "out").path == tmp_path / "x-2.md"
    assert (tmp_path / "x.md").read_text() == "mine"


def test_the_race_for_a_name_is_lost_safely(tmp_path, monkeypatch):
    """Forced: the user's file appears between the check that the name is free and the write."""
    target = tmp_path / "plan.review.md"
    real = files._temporary

    def user_writes_meanwhile(folder, name, text):
        tmp = real(folder, name, text)
        if name == target.name and not target.exists():
            target.write_text("the user's file, written at that very moment")
        return tmp

    monkeypatch.setattr(files, "_temporary", user_writes_meanwhile)
    written = write_output(target, "the review")
    assert target.read_text() == "the user's file, written at that very moment"
    assert written.path == tmp_path / "plan.review-2.md" and written.path.read_text() == "the review"
    assert written.clash == target


def _write_many(args):
    folder, n, barrier = args
    barrier.wait()  # every writer starts at once
    return str(write_output(Path(folder) / "out.md", f"writer {n}\n").path)


def test_runs_writing_the_same_output_at_once_keep_every_output(tmp_path):
    """Forced: eight processes released together write one output name; the user's file of that
    name stays, each run's output lands in a name of its own (none replaces another run's), and
    the record matches what is on disk."""
    (tmp_path / "out.md").write_text("the user's\n")
    with multiprocessing.Manager() as manager:
        barrier = manager.Barrier(8)
        with multiprocessing.get_context("fork").Pool(8) as pool:
            paths = pool.map(_write_many, [(str(tmp_path), n, barrier) for n in range(8)])
    assert sorted(paths) == sorted(str(tmp_path / f"out-{n}.md") for n in range(2, 10))  # one name per run
    assert (tmp_path / "out.md").read_text() == "the user's\n"
    assert sorted(Path(p).read_text() for p in paths) == [f"writer {n}\n" for n in range(8)]
    assert tool_outputs(tmp_path) == {f"out-{n}.md" for n in range(2, 10)}  # the record's digests are the contents'
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


# ---------------------------------------------------------------------------- credentials


@pytest.mark.parametrize("url,expected", [
    ("http://user:PASSWORD@host/wiki", "http://host/wiki"),
    ("https://bob@acme.atlassian.net/wiki/spaces/X/pages/12", "https://acme.atlassian.net/wiki/spaces/X/pages/12"),
    ("https://host/page?token=s3cr3t&view=1", "https://host/page?token=***&view=1"),
    ("https://host/page?API_KEY=abc", "https://host/page?API_KEY=***"),
    ("https://host/page?view=1", "https://host/page?view=1"),
])
def test_one_helper_takes_credentials_out_of_urls(url, expected):
    assert redact_url(url) == expected
    assert redact_urls(f"fetching {url}: failed") == f"fetching {expected}: failed"
    assert has_credentials(url) == (url != expected)


def test_a_path_join_that_lost_a_slash_is_redacted_too():
    assert redact_urls("x: http:/user:PASSWORD@host/a.json does not exist") == "x: http:/host/a.json does not exist"


def test_credentials_in_a_task_parameter_never_reach_the_message(tmp_path):
    for task, args in [("ds_review", {"document": "http://user:PASSWORD@host/wiki/spaces/X/pages/12/T"}),
                       ("impact_review", {"artifact": "http://user:PASSWORD@host/x.json"}),
                       ("ds_review", {"document": "12", "confluence": "https://user:PASSWORD@host/wiki"})]:
        with pytest.raises(PrerequisiteError) as info:
            load_task_file(task)(**args)
        message = str(info.value.message)
        assert "PASSWORD" not in message and "host" in message, message


def test_credentials_in_a_command_argument_never_reach_the_terminal(capsys):
    assert main(["summary", "http://user:PASSWORD@host/x.eval"]) == 2
    err = capsys.readouterr().err
    assert "PASSWORD" not in err and "host/x.eval" in err


# ---------------------------------------------------------------------------- every path parameter is a path


def test_a_design_path_that_does_not_exist_is_never_reviewed_as_text():
    with pytest.raises(PrerequisiteError) as info:
        load_task_file("design_review")(design="designs/rate limiter v2", requirements=str(DESIGN / "requirements.md"))
    assert info.value.message.startswith("-T design=designs/rate limiter v2: designs/rate limiter v2 does not exist")


def test_text_given_inline_is_still_text():
    from review_harness.core.params import looks_like_path

    assert not looks_like_path("We cache sessions in Redis.")
    assert not looks_like_path("# Design\n\nTokens per tenant/region.")
    assert not looks_like_path("The limiter returns 429: clients back off (see below).")
    for path in ("designs/rate limiter v2", "./plan", "~/d.md", "design.md", "docs\\design"):
        assert looks_like_path(path), path


@pytest.mark.parametrize("task,args,name", [
    ("design_review", {"design": str(DESIGN / "design.md"), "requirements": str(DESIGN / "requirements.md"),
                       "split": "test"}, "split"),
    ("impact_review", {"artifact": str(FIXTURES_DIR / "impact" / "did-store-layout.json"), "split": "dev"}, "split"),
    ("ds_review", {"document": str(DS / "dark-mode-retention.md"), "fixtures": "no-such-set"}, "fixtures"),
    ("code_review", {"patch": str(FIXTURES_DIR / "code" / "js-sql" / "change.patch"),
                     "spec": str(FIXTURES_DIR / "code" / "js-sql" / "spec.md"), "cases": "x"}, "cases"),
])
def test_a_gold_set_option_beside_the_users_input_is_one_line(task, args, name):
    with pytest.raises(PrerequisiteError) as info:
        load_task_file(task)(**args)
    assert info.value.message.startswith(f"-T {name}={args[name]}: has no effect with -T ")


def test_a_gold_set_option_alone_still_chooses_the_gold_set():
    task = load_task_file("impact_review")(split="dev")
    assert task.dataset and all("heldout" not in str(s.id) for s in task.dataset)


def test_a_fifo_inside_an_input_folder_is_named_and_never_opened(tmp_path):
    shutil.copy(DS / "dark-mode-retention.md", tmp_path / "a.md")
    os.mkfifo(tmp_path / "notes.md")
    result = load(str(tmp_path))  # would block for ever if the pipe were opened
    assert [d.name for d in result.documents] == ["a"]
    assert result.warnings == [f"{tmp_path}: skipped 1 item(s) that are no regular files (nothing was read from "
                               "them): notes.md (a named pipe (FIFO))"]
    os.remove(tmp_path / "a.md")
    with pytest.raises(DocumentError, match=r"it holds no regular file, only notes.md \(a named pipe \(FIFO\)\)"):
        load(str(tmp_path))


# ---------------------------------------------------------------------------- pathological input


def test_an_unreadable_input_folder_is_one_line(tmp_path, monkeypatch):
    folder = tmp_path / "docs"
    folder.mkdir()
    real = Path.iterdir

    def denied(self):
        if self == folder:
            raise PermissionError(13, "Permission denied", str(self))
        return real(self)

    monkeypatch.setattr(Path, "iterdir", denied)
    with pytest.raises(PrerequisiteError) as info:
        load_task_file("ds_review")(document=str(folder))
    assert info.value.message == f"{folder} cannot be read: Permission denied"


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv"), reason="needs root to run as another user")
def test_an_unreadable_folder_for_a_real_user():
    """The case as a user meets it (not root): a folder of the input they cannot list."""
    import tempfile

    base = Path(tempfile.mkdtemp(prefix="unreadable-"))  # pytest's own folders are closed to other users
    try:
        base.chmod(0o755)
        docs = base / "docs"
        (docs / "sub").mkdir(parents=True)
        shutil.copy(DS / "dark-mode-retention.md", docs / "a.md")
        docs.chmod(0o755)
        (docs / "a.md").chmod(0o644)
        (docs / "sub").chmod(0)
        script = ("import sys; from review_harness.core.documents import load, DocumentError\n"
                  "for p in sys.argv[1:]:\n"
                  "    try: print(p, [d.name for d in load(p).documents])\n"
                  "    except DocumentError as e: print(p, 'error:', e)\n")
        result = subprocess.run(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", sys.executable,
                                 "-c", script, str(docs), str(docs / "sub")], capture_output=True, text=True,
                                timeout=60, cwd=base, env={"PYTHONPATH": str(PROJECT_ROOT), "HOME": str(base)})
        if result.returncode and not result.stdout:
            pytest.skip(f"the other user cannot run this Python: {result.stderr[-200:]}")
        assert result.stdout.splitlines() == [
            f"{docs} ['a']", f"{docs / 'sub'} error: {docs / 'sub'} cannot be read: Permission denied"], result.stderr
    finally:
        (base / "docs" / "sub").chmod(0o755)
        shutil.rmtree(base, ignore_errors=True)


@pytest.mark.parametrize("name,text", [
    ("deep.html", "<html><body>" + "<div>" * 5000 + "text" + "</div>" * 5000 + "</body></html>"),
    ("deep.xhtml", "<html><body>" + "<ul><li>" * 3000 + "x" + "</li></ul>" * 3000 + "</body></html>"),
])
def test_markup_nested_thousands_deep_is_one_line(tmp_path, name, text):
    (tmp_path / name).write_text(text)
    with pytest.raises(PrerequisiteError) as info:
        load_task_file("ds_review")(document=str(tmp_path / name))
    assert info.value.message == (f"{tmp_path / name} is nested too deeply to read (elements inside each other "
                                  "hundreds of levels deep): flatten it, or export the document as markdown")


def test_json_and_yaml_nested_thousands_deep_are_one_line(tmp_path):
    artifact = tmp_path / "deep.json"
    artifact.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(PrerequisiteError, match=r"deep.json: not valid JSON \(nested too deeply\)"):
        load_task_file("impact_review")(artifact=str(artifact))
    config = tmp_path / "deep.yaml"
    config.write_text("review: " + "[" * 5000 + "]" * 5000 + "\n")
    with pytest.raises(PrerequisiteError, match=r"deep.yaml: nested too deeply to read"):
        load_task_file("impact_review")(config=str(config))


@pytest.mark.parametrize("args,message", [
    ({"faults": None}, "-M faults=: empty value; name one or more fault kinds"),
    ({"faults": ""}, "-M faults=: empty value"),
    ({"latency": None}, "-M latency=: empty value; give a number"),
    ({"faults": "exception,,bogus"}, "-M faults=exception,bogus: unknown fault kind bogus; known: exception"),
])
def test_empty_offline_model_args_are_one_line(args, message):
    from inspect_ai.model import get_model

    with pytest.raises(PrerequisiteError) as info:
        get_model("offline/rules", **args)
    assert str(info.value.message).startswith(message)


def test_calibrate_refuses_logs_it_cannot_read_figures_from(tmp_path, capsys):
    [impact] = inspect_eval(load_task_file("impact_review")(split="dev"), model="offline/rules", display="none",
                            log_dir=str(tmp_path / "impact"))
    assert main(["calibrate", "--log", impact.location]) == 2
    err = capsys.readouterr().err
    assert "a log of the impact review; calibrate --log reads gold-set runs of the DS review" in err
    assert "(inspect eval review_harness/ds_review)" in err  # the task by name: a task file runs in the checkout only
    own = ds_run(tmp_path / "own", document=str(DS / "dark-mode-retention.md"))
    assert main(["calibrate", "--log", own.location]) == 2
    err = capsys.readouterr().err
    assert "no sample has a gold comparison" in err and err.count("\n") == 1
    assert "(inspect eval review_harness/ds_review)" in err


# ---------------------------------------------------------------------------- long inputs


def _long_markdown(path: Path, megabytes: float) -> Path:
    section = ("## Section {n}\n\nRetention rose after the launch in the treatment cohort; we measured the "
               "change against the control group over four weeks of data with the same users.\n\n")
    parts, n, size = ["# A long analysis\n\n## TL;DR\n\nRetention rose 5%.\n\n"], 0, 0
    while size < megabytes * 1_000_000:
        n += 1
        parts.append(section.format(n=n))
        size += len(parts[-1])
    path.write_text("".join(parts))
    return path


def test_a_long_input_says_what_it_costs_first_and_shows_its_steps(tmp_path, capfd):
    document = _long_markdown(tmp_path / "long.md", 1.1)
    task = load_task_file("ds_review")(document=str(document))
    said = capfd.readouterr().err
    assert re.fullmatch(r"ds_review: .*long\.md is a long input: 1\.1 MB, [\d,]+ words, ~[\d,]+ tokens\. The offline "
                        r"reviewer takes about \d+ s and ~0\.\d GB of memory for it; .* Progress is shown per step\.\n",
                        said)  # before anything runs
    [log] = inspect_eval(task, model="offline/rules", display="none", log_dir=str(tmp_path / "logs"))
    assert log.status == "success"
    lines = [line for line in capfd.readouterr().err.splitlines() if line.startswith("review-harness: long:")]
    assert re.fullmatch(r"review-harness: long: reviewing 1\.1 MB \(estimate: about \d+ s\)\.\.\.", lines[0]), lines[0]
    steps = [re.match(r"review-harness: long: (solver|scorer) (\w+) done in \d+ s \(\d+ s so far\)$", x) for x in lines[1:-1]
             if "over its estimate" not in x]  # a busy machine: said when it happens
    assert all(steps) and [m.group(2) for m in steps][:1] == ["prepare_document_step"], lines
    assert re.fullmatch(r"review-harness: long: reviewed in \d+ s(, over its estimate of about \d+ s)?", lines[-1])


def test_an_input_over_the_limit_is_refused_before_it_starts(tmp_path, monkeypatch):
    document = _long_markdown(tmp_path / "long.md", 1.1)
    monkeypatch.setenv("REVIEW_HARNESS_MAX_INPUT_MB", "1")
    with pytest.raises(PrerequisiteError) as info:
        load_task_file("ds_review")(document=str(document))
    assert re.fullmatch(r".*long\.md: 1\.1 MB of text is over the input limit of 1 MB \(memory would run to ~0\.\d GB\); "
                        r"split the document, or raise the limit with REVIEW_HARNESS_MAX_INPUT_MB=MB", info.value.message)
    monkeypatch.setenv("REVIEW_HARNESS_MAX_INPUT_MB", "lots")
    with pytest.raises(PrerequisiteError, match="REVIEW_HARNESS_MAX_INPUT_MB=lots: expected a number of MB"):
        load_task_file("ds_review")(document=str(document))


def test_a_short_input_prints_nothing_more(tmp_path, capfd):
    load_task_file("ds_review")(document=str(DS / "dark-mode-retention.md"))
    assert capfd.readouterr().err == ""


def test_the_left_out_sections_are_found_in_one_pass_with_the_same_result():
    """The extraction's list of sections no excerpt quotes looked at every heading for each heading
    (a 20 MB document spent most of its minute there); the one-pass reading gives the same list."""
    from review_harness.ds import prepare

    text = (DS / "dark-mode-retention.md").read_text()
    nested = "\n".join(f"{'#' * (2 + i % 3)} Part {i}\n\n" + "word " * (25 + i) + "\n" for i in range(60))
    for document in (text, text + "\n" + nested):
        an = prepare._analyze(document)
        old = []
        for i, h in enumerate(an.headings):
            if i == an.title_heading_index:
                continue
            end = an.heading_span_end[i]
            inside = [j for j, g in enumerate(an.headings) if j > i and g.level > h.level and g.start <= end]
            new = [j for j in range(i + 1, min(i + 2, len(an.headings)))
                   if an.headings[j].level > h.level and an.headings[j].start <= end]
            old.append(inside[:1] == new)
        assert all(old)
