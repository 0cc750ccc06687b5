"""The DS review and the document input layer under misuse (issue 24): every case is a review, or
one line naming the input and the problem (exit 1), never a traceback or a lost review. Each runs
`inspect eval` in a subprocess, as a user would (--display none: messages on stderr)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from review_harness.core.logs import newest_log, read_log, reviews_in_log
from review_harness.core.paths import FIXTURES_DIR, PROJECT_ROOT

GOOD = FIXTURES_DIR / "ds" / "strong-analysis.md"
MEMO = FIXTURES_DIR / "ds" / "short-complete-memo.md"


def inspect_eval(tmp_path: Path, *task_args: str | bytes) -> tuple[subprocess.CompletedProcess, Path]:
    logs = tmp_path / "logs"
    args: list[str | bytes] = ["inspect", "eval", "tasks/ds_review.py", "--log-dir", str(logs), "--display", "none",
                               "--model", "offline/rules"]
    for arg in task_args:
        args += ["-T", arg]
    result = subprocess.run(args, cwd=PROJECT_ROOT, capture_output=True, timeout=300,
                            env={**os.environ, "PWD": str(PROJECT_ROOT)})
    return result, logs


def stderr(result: subprocess.CompletedProcess) -> str:
    return result.stderr.decode("utf-8", "replace")


def one_line_error(result: subprocess.CompletedProcess) -> str:
    """The task's one-line message: exit 1, no traceback."""
    text = stderr(result)
    assert result.returncode == 1, text
    assert "Traceback" not in text and "File \"" not in text, text
    [line] = [x for x in text.splitlines() if x.startswith("ds_review: ")]
    return line.removeprefix("ds_review: ")


def reviews_of(logs: Path) -> dict[str, object]:
    log = read_log(newest_log(logs))
    assert log.status == "success"
    return {sid: review for sid, _, review in reviews_in_log(log)}


def test_a_non_utf8_file_name_in_a_folder_fails_nothing(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "good.md").write_bytes(GOOD.read_bytes())
    bad = os.fsencode(folder) + b"/caf\xe9-report.md"
    with open(bad, "wb") as out:
        out.write(MEMO.read_bytes())
    result, logs = inspect_eval(tmp_path, f"document={folder}")
    assert result.returncode == 0, stderr(result)
    reviews = reviews_of(logs)
    assert set(reviews) == {"good", "caf\\xe9-report"}  # a safe sample id: the odd byte escaped
    assert all(r.status == "complete" for r in reviews.values())
    [warning] = [w for w in reviews["caf\\xe9-report"].warnings if "file name is not valid UTF-8" in w]
    assert "caf\\xe9-report.md" in warning


def test_a_non_utf8_path_given_directly_is_refused_by_inspects_own_parsing(tmp_path):
    """Inspect parses -T values with a YAML reader that rejects the undecodable byte before the task
    runs, so the project cannot intercept it (docs/inputs.md names the way round: give the folder)."""
    bad = os.fsencode(tmp_path) + b"/caf\xe9.md"
    with open(bad, "wb") as out:
        out.write(MEMO.read_bytes())
    result, _ = inspect_eval(tmp_path, b"document=" + bad)
    assert result.returncode != 0 and "unacceptable character" in stderr(result)
    assert "Give the folder" in (PROJECT_ROOT / "docs" / "inputs.md").read_text(encoding="utf-8")
    folder, logs = inspect_eval(tmp_path, f"document={tmp_path}")
    assert folder.returncode == 0 and list(reviews_of(logs)) == ["caf\\xe9"]


def test_a_folder_that_took_the_review_files_name_is_left_and_the_review_goes_beside_it(tmp_path):
    out = tmp_path / "out"
    (out / "strong-analysis.review.md").mkdir(parents=True)  # the review's file name is taken by a folder
    result, logs = inspect_eval(tmp_path, f"document={GOOD}", f"output_dir={out}")
    assert result.returncode == 0, stderr(result)
    [review] = reviews_of(logs).values()
    taken, beside = out / "strong-analysis.review.md", out / "strong-analysis.review-2.md"
    [warning] = [w for w in review.warnings if "was not written by review-harness" in w]
    assert str(taken) in warning and str(beside) in warning
    assert taken.is_dir() and not list(taken.iterdir())  # left as it was
    assert beside.read_text(encoding="utf-8").startswith("# DS Analysis Review")
    assert read_log(newest_log(logs)).samples[0].metadata["review_file"] == str(beside)
    assert f"{taken} was not written by review-harness" in stderr(result)  # said on the terminal too


def test_a_review_file_that_cannot_be_written_keeps_the_review_and_names_the_file(tmp_path, monkeypatch):
    """Forced: the disk fills up as the review file is written (in-process, through inspect_ai.eval)."""
    import errno

    from inspect_ai import eval as eval_in_process

    import solvers.ds_panel
    from helpers import load_task_file

    def disk_full(path, text, **_):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(solvers.ds_panel, "write_output", disk_full)
    out = tmp_path / "out"
    [log] = eval_in_process(load_task_file("ds_review")(document=str(GOOD), output_dir=str(out)),
                            model="offline/rules", display="none", log_dir=str(tmp_path / "logs"))
    assert log.status == "success"
    [(_, _, review)] = reviews_in_log(log)
    target = out / "strong-analysis.review.md"
    [warning] = [w for w in review.warnings if "could not be written" in w]
    assert str(target) in warning and "No space left on device" in warning and "it is in the log" in warning
    sample = log.samples[0]
    assert sample.output.completion.startswith("# DS Analysis Review") and str(target) in sample.output.completion
    assert sample.metadata["review_file_error"].startswith(f"{target}: ")
    assert "review_file" not in sample.metadata  # so the run's closing lines do not list it as written
    assert not list(out.glob(".*.tmp"))  # no half-written temporary file is left behind


def test_a_review_file_is_written_whole(tmp_path):
    out = tmp_path / "out"
    result, _ = inspect_eval(tmp_path, f"document={GOOD}", f"output_dir={out}")
    assert result.returncode == 0
    written = (out / "strong-analysis.review.md").read_text(encoding="utf-8")
    assert written.startswith("# DS Analysis Review")
    assert sorted(p.name for p in out.iterdir()) == [".review-harness-outputs.json", "strong-analysis.review.md"]
    assert not list(out.glob(".*.tmp"))  # no temporary file left; the record names the review as the tool's


@pytest.mark.parametrize("document, message", [
    ("ftp://example.com/reviews/a.md", "ftp://example.com/reviews/a.md: ftp:// addresses are not supported"),
    ("s3://bucket/a.md", "s3://bucket/a.md: s3:// addresses are not supported"),
    ("file://fileserver/share/a.md", "file://fileserver/share/a.md: a file:// URL must name a local file"),
])
def test_an_unsupported_address_scheme_is_named(tmp_path, document, message):
    assert one_line_error(inspect_eval(tmp_path, f"document={document}")[0]).startswith(message)


def test_a_file_url_is_read(tmp_path):
    result, logs = inspect_eval(tmp_path, f"document={GOOD.as_uri()}")
    assert result.returncode == 0, stderr(result)
    [review] = reviews_of(logs).values()
    assert review.status == "complete" and review.document.source == GOOD.as_uri()


def test_symbolic_links_that_lead_nowhere_are_named(tmp_path):
    folder = tmp_path / "loops"
    folder.mkdir()
    (folder / "a.md").symlink_to(folder / "b.md")
    (folder / "b.md").symlink_to(folder / "a.md")
    (folder / "gone.md").symlink_to(folder / "missing.md")
    line = one_line_error(inspect_eval(tmp_path, f"document={folder}")[0])
    assert line == (f"{folder}: every file in it is a symbolic link that leads to no file (a.md (looping symbolic "
                    "link), b.md (looping symbolic link), gone.md (broken symbolic link))")
    assert one_line_error(inspect_eval(tmp_path, f"document={folder / 'a.md'}")[0]) == \
        f"{folder / 'a.md'} is a looping symbolic link: it leads to no file"
    # beside a real document the links are skipped with a warning
    (folder / "real.md").write_bytes(GOOD.read_bytes())
    result, logs = inspect_eval(tmp_path, f"document={folder}")
    assert result.returncode == 0
    [review] = reviews_of(logs).values()
    assert any(w.startswith(f"{folder}: skipped 3 link(s) that lead to no file: a.md (looping") for w in review.warnings)


def test_a_windows_1252_file_is_reviewed_with_the_encoding_warning(tmp_path):
    path = tmp_path / "menu.md"
    text = ("# Caf\u00e9 menu test \u2013 results\n\n## Summary\nThe caf\u00e9 page lifted orders from 3.1% to 3.4% of visits "
            "\u2013 we recommend keeping it (owner: Ren\u00e9e, by 1 May).\n\n## Method\nA two-week A/B test, 40,000 visitors.\n")
    path.write_bytes(text.encode("cp1252"))
    result, logs = inspect_eval(tmp_path, f"document={path}")
    assert result.returncode == 0, stderr(result)
    [review] = reviews_of(logs).values()
    assert review.status == "complete"
    assert any(w == f"{path} is not UTF-8: read it as Windows-1252 (detected). Check that accented letters and "
               "symbols in quotes read right, or save the file as UTF-8." for w in review.warnings)
    assert read_log(newest_log(logs)).samples[0].input == text
