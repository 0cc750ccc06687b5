"""Gold files, the deterministic matcher, gold metrics, and re-scoring old logs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from inspect_ai import score as inspect_score
from inspect_ai.log import read_eval_log, write_eval_log

from helpers import FIXTURES, reviews
from review_harness.core.gold import GoldError
from review_harness.ds.gold import load_gold
from review_harness.ds.matching import compare_with_gold, match_findings
from review_harness.ds.models import DocumentInfo, Finding, Review, Severity
from review_harness.core.paths import PROJECT_ROOT
from scorers import gold_comparison, review_synthesis

GOLD_FILES = sorted((PROJECT_ROOT / "gold" / "ds").glob("*.yaml"))


def test_every_fixture_has_a_valid_gold_file():
    assert {p.stem for p in GOLD_FILES} == {p.stem for p in FIXTURES}
    for path in GOLD_FILES:
        gold = load_gold(path)  # raises on schema errors and on evidence not in the document
        assert gold.expected_findings or gold.verdict_band == "Good to Go", path.name
        assert any(f.must_catch for f in gold.expected_findings) or gold.verdict_band == "Good to Go"


def _gold_copy(tmp_path: Path, source: str, edit) -> Path:
    """A gold file and its fixture, copied into a tmp gold/ds + fixtures/ds tree, then edited."""
    (tmp_path / "gold" / "ds").mkdir(parents=True)
    (tmp_path / "fixtures" / "ds").mkdir(parents=True)
    data = yaml.safe_load((PROJECT_ROOT / "gold" / "ds" / f"{source}.yaml").read_text())
    (tmp_path / "fixtures" / "ds" / data["fixture"]).write_text(
        (PROJECT_ROOT / "fixtures" / "ds" / data["fixture"]).read_text()
    )
    edit(data)
    path = tmp_path / "gold" / "ds" / f"{source}.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda d: d["expected_findings"][0].update(evidence="a sentence that is nowhere in the document"),
         "is invalid: expected_findings.0.evidence: quote of"),
        (lambda d: d["expected_findings"][0].update(lens="vibes"),
         "is invalid: expected_findings.0.lens: lens 'vibes' is not a lens of"),
        (lambda d: d.update(score_window=[40, 90]), "wider than 20 points"),
        (lambda d: d.update(verdict_band="Great"), "verdict_band"),
        (lambda d: d.pop("designed_deficiency"), "designed_deficiency"),
        (lambda d: d["expected_findings"][0].update(severity="SEVERE"), "severity"),
    ],
)
def test_gold_schema_check_rejects_bad_gold(tmp_path, edit, message):
    path = _gold_copy(tmp_path, "causal-without-method", edit)
    with pytest.raises(GoldError) as info:
        load_gold(path)
    assert message in str(info.value)
    assert str(path) in str(info.value)


# ------------------------------------------------------------------ matcher


def _finding(fid, dimension, lens, severity, title, evidence=""):
    return Finding(id=fid, dimension=dimension, lens=lens, severity=severity, title=title,
                   location="Results", issue=title, evidence=evidence, suggested_fix="fix")


def test_matching_is_one_to_one_and_needs_same_dimension():
    gold = load_gold(PROJECT_ROOT / "gold" / "ds" / "causal-without-method.yaml")
    causal = next(g for g in gold.expected_findings if g.severity.value == "CRITICAL")
    predicted = [
        _finding("A1", "analysis", "methodology", Severity.CRITICAL, "Causal claim without a control group", causal.evidence),
        _finding("A2", "analysis", "methodology", Severity.CRITICAL, "Causal claim without a control group", causal.evidence),
        _finding("C1", "communication", causal.lens, Severity.CRITICAL, "Causal claim without a control group", causal.evidence),
    ]
    matches = match_findings(predicted, gold.expected_findings)
    assert [m.gold for m in matches].count(causal.id) == 1
    assert all(m.finding != "C1" or m.gold != causal.id for m in matches)


def test_gold_metrics_on_a_hand_made_review():
    gold = load_gold(PROJECT_ROOT / "gold" / "ds" / "causal-without-method.yaml")
    causal = next(g for g in gold.expected_findings if g.must_catch)
    review = Review(
        document=DocumentInfo(title="t", source="s", word_count=1, reading_minutes=0, token_estimate=1, tier=1),
        mode="full", requested_mode="full", audience="mixed", workflow="general", status="complete", tier=1,
        dimensions={},
        findings=[
            _finding("A1", "analysis", causal.lens, Severity.MAJOR, "Causal claim: " + causal.summary, causal.evidence),
            _finding("C1", "communication", "conciseness", Severity.MINOR, "Typo in a heading"),
        ],
        top_fixes=["A1", "C1"],
        final_score=(gold.score_window[0] + gold.score_window[1]) / 2,
        verdict=gold.verdict_band,
    )
    matches = match_findings(review.findings, gold.expected_findings)
    result = compare_with_gold(review, gold, matches)
    assert [(m.finding, m.gold) for m in result.matches] == [("A1", causal.id)]
    assert result.precision == 0.5
    assert result.recall == pytest.approx(1 / len(gold.expected_findings))
    assert result.must_catch_recall == 1.0
    assert result.severity_agreement == 0.0  # MAJOR predicted, CRITICAL expected
    assert result.severity_matrix["CRITICAL"]["MAJOR"] == 1
    assert result.verdict_band_correct == 1.0 and result.score_in_window == 1.0
    assert result.top3_relevance == 0.5
    assert result.unmatched_findings == ["C1"]


# ------------------------------------------------------------------ scores in the log


@pytest.fixture(scope="module")
def fixture_log(default_gold_log):
    return default_gold_log("ds_review")


def test_eval_reports_gold_metrics(fixture_log):
    names = {s.name for s in fixture_log.results.scores}
    for metric in ("precision", "recall", "must_catch_recall", "severity_agreement",
                   "verdict_band_accuracy", "score_in_window", "top3_relevance"):
        assert metric in names
    sample = fixture_log.samples[0]
    gold = sample.scores["gold_comparison"]
    assert gold.metadata["gold"]["matcher"] == "deterministic-v1"
    assert set(gold.metadata["gold"]["severity_matrix"]) == {"CRITICAL", "MAJOR", "MINOR"}


def test_rescoring_an_old_log_makes_no_model_calls(fixture_log, tmp_path):
    before = fixture_log.stats.model_usage["offline/rules"].input_tokens
    stripped = fixture_log.model_copy(deep=True)
    for sample in stripped.samples:
        sample.scores = {"review_synthesis": sample.scores["review_synthesis"]}
    rescored = inspect_score(stripped, scorers=[gold_comparison(), review_synthesis()], action="overwrite")
    assert rescored.stats.model_usage["offline/rules"].input_tokens == before
    for sample in rescored.samples:
        assert "gold_comparison" in sample.scores
    assert reviews(rescored).keys() == reviews(fixture_log).keys()


def test_inspect_score_cli_rescores_with_the_gold_scorer(fixture_log, tmp_path):
    path = tmp_path / "old.eval"
    write_eval_log(fixture_log, str(path))
    out = tmp_path / "new.eval"
    result = subprocess.run(
        [sys.executable, "-m", "inspect_ai", "score", str(path), "--scorer", "scorers/ds_gold.py@gold_comparison",
         "--action", "overwrite", "--output-file", str(out)],
        capture_output=True, text=True, cwd=PROJECT_ROOT, timeout=180,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    log = read_eval_log(str(out))
    assert "recall" in {s.name for s in log.results.scores}
