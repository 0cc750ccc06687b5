"""`review-harness offline-precision`: each offline check's fires and right fires per gold split, read
from a gold-set run of the offline reviewer; a fire is right when its finding matched a gold finding."""

from __future__ import annotations

import json

import pytest

from helpers import run
from review_harness import cli
from review_harness.ds.matching import shown_findings
from review_harness.ds.offline.precision import BAR, MIN_FIRES, Tally, check_name, tally_logs, verdict


@pytest.fixture(scope="module")
def gold_log(tmp_path_factory):
    return run(tmp_path_factory.mktemp("precision"), fixtures="domain/search")


def test_fires_and_right_fires_add_up_to_the_runs_findings_and_matches(gold_log):
    from review_harness.core.logs import reviewed_samples

    tallies, read = tally_logs([gold_log.location])
    samples = reviewed_samples(gold_log, "ds")
    assert read == len(samples) >= 9
    shown = [f for _, review in samples for f in shown_findings(review)]
    matched = sum(len(json.loads(s.scores["gold_comparison"].metadata["gold"])["matches"])
                  if isinstance(s.scores["gold_comparison"].metadata["gold"], str)
                  else len(s.scores["gold_comparison"].metadata["gold"]["matches"]) for s, _ in samples)
    assert sum(t["all"].fired for t in tallies.values()) == len(shown)
    assert sum(t["all"].right for t in tallies.values()) == matched
    assert set(tallies) == {check_name(f) for f in shown}
    for t in tallies.values():  # the splits partition the whole
        assert t["all"].fired == t["dev"].fired + t["heldout"].fired


def test_the_bar_reads_the_dev_half_and_spares_a_check_that_alone_catches_a_must_catch():
    assert verdict({"dev": Tally(fired=MIN_FIRES - 1, right=0)}) == "too few to judge"
    assert verdict({"dev": Tally(fired=5, right=4)}) == "on" and 4 / 5 >= BAR
    assert verdict({"dev": Tally(fired=5, right=1)}) == "off"
    assert verdict({"dev": Tally(fired=5, right=1, must_catch={"case/A1"})}) == "below the bar, catches a must-catch"


def test_the_command_prints_the_table(gold_log, capsys):
    assert cli.main(["offline-precision", str(gold_log.location)]) in (0, None)
    out = capsys.readouterr().out
    assert "| check | dev | held-out | all |" in out and "domain/critical_pitfall_ignored" in out


def test_a_log_without_gold_is_one_line(tmp_path, capsys):
    empty = tmp_path / "nothing"
    empty.mkdir()
    code = cli.main(["offline-precision", str(empty)])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "nothing" in err
