"""The commands that write files never lose one (issue 48, points 1, 2 and 4): each case a probe's
input recreated.

- `plant` and `gold new` never replace a file in --out that the run did not write (a user's own
  file under a planted name, a planted gold file edited by hand, another file at the fixture's
  name) unless --force; the run says which file, in one line, exit 2;
- `gold new --id` is a name: `../../../victim` is refused and nothing is written outside the set;
- an empty option value (`--operators ''`) is refused, never read as "every operator";
- two reviews of two different `report.md` files written at once into one `-T output_dir` keep
  both (real processes);
- a property over every writing command: files already in the target are byte-identical after the
  command unless --force (`plant`, `gold new`), or always (`calibrate --write --output`, `gate
  --write-baseline`, which have no --force).
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from review_harness.cli import main
from review_harness.core.files import NotReplaced, replacing, write_output, write_safe
from review_harness.core.paths import PROJECT_ROOT

BIN = Path(sys.executable).parent
DS = PROJECT_ROOT / "fixtures" / "ds"
STRONG = DS / "strong-analysis.md"
OPERATORS = "delete-summary,remove-limitations"
PLANTED = ["fixtures/ds/strong-analysis--delete-summary.md", "gold/ds/strong-analysis--delete-summary.yaml",
           "fixtures/ds/strong-analysis--remove-limitations.md", "gold/ds/strong-analysis--remove-limitations.yaml",
           "planted-ds.yaml"]


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def plant(out: Path, *extra: str) -> list[str]:
    return ["plant", "ds", str(STRONG), "--out", str(out), "--operators", OPERATORS, *extra]


@pytest.mark.parametrize("taken", PLANTED)
def test_plant_leaves_a_users_file_under_a_planted_name(tmp_path, capsys, taken):
    out = tmp_path / "set"
    (out / taken).parent.mkdir(parents=True)
    (out / taken).write_bytes(b"the user's own file\n")
    code, _, err = run(capsys, *plant(out))
    assert code == 2 and len(err.splitlines()) == 1, err
    assert str(out / taken) in err and "--force" in err
    assert (out / taken).read_bytes() == b"the user's own file\n"
    code, _, err = run(capsys, *plant(out), "--force")  # --force: replaced
    assert code == 0, err
    assert (out / taken).read_bytes() != b"the user's own file\n"


def test_planting_again_keeps_a_gold_file_edited_by_hand(tmp_path, capsys):
    out = tmp_path / "set"
    assert run(capsys, *plant(out))[0] == 0
    gold = out / PLANTED[1]
    gold.write_text(gold.read_text() + "# checked by hand\n")
    before = snapshot(out)
    code, _, err = run(capsys, *plant(out))
    assert code == 2 and "--force" in err and len(err.splitlines()) == 1
    assert snapshot(out) == before


def test_gold_new_leaves_another_file_at_the_fixtures_name(tmp_path, capsys):
    out = tmp_path / "g"
    (out / "fixtures" / "ds").mkdir(parents=True)
    (out / "fixtures" / "ds" / "weak.md").write_text("a different document of mine\n")
    (tmp_path / "weak.md").write_bytes((DS / "data-dump.md").read_bytes())
    code, _, err = run(capsys, "gold", "new", "ds", str(tmp_path / "weak.md"), "--out", str(out))
    assert code == 2 and len(err.splitlines()) == 1 and str(out / "fixtures" / "ds" / "weak.md") in err
    assert (out / "fixtures" / "ds" / "weak.md").read_text() == "a different document of mine\n"
    assert not (out / "gold").exists()


@pytest.mark.parametrize("case_id", ["../../../victim", "../../escaped", "a/b", "..", "x\ny"])
def test_gold_new_id_is_a_name(tmp_path, capsys, case_id):
    victim = tmp_path / "victim.md"
    victim.write_text("keep me\n")
    (tmp_path / "weak.md").write_bytes((DS / "data-dump.md").read_bytes())
    before = snapshot(tmp_path)
    code, out, err = run(capsys, "gold", "new", "ds", str(tmp_path / "weak.md"), "--out", str(tmp_path / "a" / "g"),
                         "--id", case_id)
    assert code == 2 and out == "" and len(err.splitlines()) == 1, err
    assert err.startswith("review-harness: --id ") and "not a name" in err
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("args", [["--operators", ""], ["--operators", ","], ["--out", ""]])
def test_an_empty_option_value_is_refused(tmp_path, capsys, args):
    argv = ["plant", "ds", str(STRONG), "--out", str(tmp_path / "set"), *args]
    code, _, err = run(capsys, *argv)
    assert code == 2 and len(err.splitlines()) == 1 and "empty" in err
    assert not (tmp_path / "set").exists() or not any((tmp_path / "set").rglob("*.yaml"))


def test_two_reviews_written_at_once_into_one_output_folder_keep_both(tmp_path):
    """Two DS reviews of two different report.md files, run at the same time into one folder."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "report.review.md").write_text("my own notes\n")  # a user's file under the review's name
    runs = []
    for n, source in enumerate(("strong-analysis", "data-dump")):
        folder = tmp_path / f"docs{n}"
        folder.mkdir()
        (folder / "report.md").write_bytes((DS / f"{source}.md").read_bytes())
        runs.append(subprocess.Popen(
            [str(BIN / "inspect"), "eval", "review_harness/ds_review", "-T", f"document={folder / 'report.md'}",
             "-T", f"output_dir={out}", "--model", "offline/rules", "--log-dir", str(tmp_path / f"logs{n}"),
             "--display", "none"], cwd=tmp_path, env=os.environ | {"PWD": str(tmp_path)}, text=True,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE))
    done = [(p.wait(timeout=600), p.communicate()[1]) for p in runs]
    written = []
    for code, err in done:
        assert code == 0, err[-2000:]
        [line] = [line for line in err.splitlines() if line.strip().startswith("written: ")]
        written.append(line.split("written: ", 1)[1].strip())
    assert len(set(written)) == 2, written
    assert (out / "report.review.md").read_text() == "my own notes\n"
    reviews = sorted(p.name for p in out.glob("report.review-*.md"))
    assert reviews == ["report.review-2.md", "report.review-3.md"]
    assert (out / reviews[0]).read_text() != (out / reviews[1]).read_text()


# ---------------------------------------------------------------------------- the property


def writers(target: Path) -> dict[str, list[str]]:
    """Every writing command, into `target`."""
    return {"plant": plant(target),
            "gold new": ["gold", "new", "ds", str(STRONG), "--out", str(target)]}


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("command", ["plant", "gold new"])
def test_pre_existing_files_stay_byte_identical_unless_force(tmp_path, capsys, command, seed):
    """A random choice of the names the command writes, and others, already hold a user's bytes:
    after the command they are the same bytes; with --force only the command's own names change."""
    probe = tmp_path / "probe"
    assert main(writers(probe)[command]) == 0
    capsys.readouterr()
    names = sorted(snapshot(probe))
    rng = random.Random(seed)
    target = tmp_path / "target"
    chosen = rng.sample(names, rng.randint(0, len(names))) + [f"fixtures/ds/other-{seed}.md", "notes.txt"]
    for name in chosen:
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        (target / name).write_bytes(bytes(rng.randrange(256) for _ in range(rng.randint(0, 64))))
    before = snapshot(target)
    code = main(writers(target)[command])
    capsys.readouterr()
    after = snapshot(target)
    assert {k: after[k] for k in before} == before
    assert code == (2 if set(chosen) & set(names) else 0)
    code = main([*writers(target)[command], "--force"])
    capsys.readouterr()
    assert code == 0
    forced = snapshot(target)
    assert {k: forced[k] for k in before if k not in names} == {k: before[k] for k in before if k not in names}


@pytest.fixture(scope="module")
def planted_set(tmp_path_factory) -> tuple[Path, str]:
    """A user's small planted set and a successful offline run over it (the .eval file): what
    `gate --write-baseline` records."""
    from inspect_ai import eval as inspect_eval

    from helpers import load_task_file

    folder = tmp_path_factory.mktemp("planted")
    assert main(plant(folder / "myset")) == 0
    [log] = inspect_eval(load_task_file("ds_review")(fixtures=str(folder / "myset")), model="offline/rules",
                         display="none", log_dir=str(folder / "logs"))
    assert log.status == "success"
    return folder / "myset", log.location


@pytest.mark.parametrize("seed", range(6))  # seeds 4 and 5 put a user's file at the baseline's name
def test_calibrate_and_gate_leave_every_file_already_in_their_target(tmp_path, capsys, planted_set, seed):
    """The other two writing commands have no --force: `calibrate --write --output FILE` puts its
    rubric beside a file it did not write, `gate --write-baseline` refuses a file that is no
    baseline. Over a random choice of names already holding a user's bytes (the ones the commands
    would write among them), every one is the same bytes afterwards and each command's output is
    a file it wrote."""
    from review_harness.core.gate import load_baseline
    from review_harness.ds.rubric import load_rubric

    rng = random.Random(seed)
    target = tmp_path / "target"
    target.mkdir()
    names = ["rubric.yaml", "rubric-2.yaml", "baseline.json", "notes.txt"]
    chosen = rng.sample(names, rng.randint(0, len(names)))
    for name in chosen:
        (target / name).write_bytes(b"{" + bytes(rng.randrange(256) for _ in range(rng.randint(0, 64))))
    before = snapshot(target)

    code, out, err = run(capsys, "calibrate", "--gold", str(PROJECT_ROOT / "gold" / "ds"), "--write",
                         "--output", str(target / "rubric.yaml"))
    assert code == 0, err
    written = Path(out.rsplit("wrote ", 1)[1].split(" (", 1)[0])
    assert written.parent == target and written.name not in before
    assert load_rubric(written).version

    code, out, err = run(capsys, "gate", "--write-baseline", planted_set[1], "--baseline", str(target / "baseline.json"))
    if "baseline.json" in chosen:
        assert code != 0 and "not replaced" in err and len(err.strip().splitlines()) == 1, err
    else:
        assert code == 0, err
        assert load_baseline(target / "baseline.json").samples

    after = snapshot(target)
    assert {k: after[k] for k in before} == before


def test_write_safe_and_write_output_never_replace_another_runs_file(tmp_path):
    own = tmp_path / "a.yaml"
    own.write_text("mine\n")
    with pytest.raises(NotReplaced):
        write_safe(own, "theirs\n")
    assert own.read_text() == "mine\n"
    fresh = write_safe(tmp_path / "b.yaml", "one\n")
    assert write_safe(fresh, "two\n").read_text() == "two\n"  # this run wrote it
    with replacing(True):
        write_safe(own, "forced\n")
    assert own.read_text() == "forced\n"
    # a review file the tool wrote in another run is kept: the output goes beside it
    other = tmp_path / "r.review.md"
    first = subprocess.run([sys.executable, "-c", "import sys; from review_harness.core.files import write_output; "
                            "print(write_output(sys.argv[1], 'run one').path)", str(other)],
                           capture_output=True, text=True, check=True)
    assert first.stdout.strip() == str(other)
    assert write_output(other, "run two").path == tmp_path / "r.review-2.md"
    assert other.read_text() == "run one"


def test_calibrate_refuses_fewer_cases_than_the_values_it_fits(tmp_path, capsys):
    """The probe fitted the rubric to one case and reported leave-one-out band accuracy 1.00."""
    from review_harness.ds.calibrate import SEED_RUBRIC, fitted_value_count, rubric_params
    from review_harness.ds.rubric import load_rubric

    fitted = fitted_value_count(rubric_params(load_rubric(SEED_RUBRIC)))
    assert fitted > 2
    gold = tmp_path / "set" / "gold" / "ds"
    (tmp_path / "set" / "fixtures" / "ds").mkdir(parents=True)
    gold.mkdir(parents=True)
    for name in ("causal-without-method", "strong-analysis"):
        (gold / f"{name}.yaml").write_bytes((PROJECT_ROOT / "gold" / "ds" / f"{name}.yaml").read_bytes())
        (tmp_path / "set" / "fixtures" / "ds" / f"{name}.md").write_bytes((DS / f"{name}.md").read_bytes())
    code, out, err = run(capsys, "calibrate", "--gold", str(gold))
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert err == (f"review-harness: {gold}: 2 gold case(s); calibrate fits {fitted} values and needs at least "
                   f"{fitted} cases (add gold files, or fit on the project's set without --gold)\n")


def test_a_relative_fixtures_value_naming_a_project_set_and_a_folder_here_says_which_it_took(tmp_path, monkeypatch,
                                                                                              capsys):
    """The probe: `-T fixtures=ds` from a folder holding the user's own ./ds reviewed the project's
    set without saying so."""
    from review_harness.core.gold import gold_set_folders
    from review_harness.core.paths import FIXTURES_DIR, GOLD_DIR

    (tmp_path / "ds").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PWD", str(tmp_path))
    assert gold_set_folders("ds", "ds") == (FIXTURES_DIR / "ds", GOLD_DIR / "ds")
    assert capsys.readouterr().err == (f"review-harness: -T fixtures=ds names the project's set 'ds' and the folder "
                                       f"{tmp_path / 'ds'} here; the project's set is reviewed (give ./ds for the "
                                       "folder)\n")
    (tmp_path / "ds").rmdir()
    gold_set_folders("ds", "ds")
    assert capsys.readouterr().err == ""


def test_a_baseline_of_a_users_set_is_written_beside_the_set(capsys, planted_set):
    """The probe: `gate --write-baseline` on a run over the user's own set wrote
    logs/baselines/ds_review.-tmp-...-myset.json into the project's checkout."""
    from review_harness.core.paths import BASELINES_DIR

    user_set, location = planted_set
    capsys.readouterr()
    checkout = sorted(p.name for p in BASELINES_DIR.iterdir())
    code, out, err = run(capsys, "gate", "--write-baseline", location)
    assert code == 0, err
    written = user_set / "baselines" / "ds_review.json"
    assert out.startswith(f"wrote {written} from ") and written.is_file()
    assert sorted(p.name for p in BASELINES_DIR.iterdir()) == checkout
    code, out, err = run(capsys, "gate", location)  # the check finds it there, with the kind's tolerances
    assert code in (0, 1) and err == "", err
    assert out.startswith(f"gate: {Path(location).name} against {written}\n")
