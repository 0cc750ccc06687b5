"""The core's gold base (one model, one cached loader, one error shape) and its comparison."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from review_harness.code.gold import CodeGold, compare_findings
from review_harness.code.models import CodeFinding
from review_harness.core.gold import GoldCase, GoldError, load_gold, sample_gold, sample_gold_path
from review_harness.core.matching import GoldComparison, Match, matches_of
from review_harness.core.paths import PROJECT_ROOT
from review_harness.core.models import Severity
from review_harness.design.gold import DesignGold


class NoteGold(GoldCase):
    """A kind of its own for the tests: one document per case."""

    fixture: str
    title: str


DOCUMENT = "# Note\n\nThe queue   drops events\nwhen it is full.\n"


def _gold(tmp_path: Path, data: dict, name: str = "note-1") -> Path:
    (tmp_path / "gold" / "notes").mkdir(parents=True, exist_ok=True)
    (tmp_path / "fixtures" / "notes").mkdir(parents=True, exist_ok=True)
    (tmp_path / "fixtures" / "notes" / "note-1.md").write_text(DOCUMENT)
    path = tmp_path / "gold" / "notes" / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def _data(**changes) -> dict:
    data = {"fixture": "note-1.md", "title": "t", "split": "heldout", "expected_findings": [
        {"id": "F1", "must_catch": True, "summary": "drops events", "evidence": "The queue drops events when it is full."},
    ]}
    data.update(changes)
    return data


def test_a_gold_file_loads_with_its_id_split_and_fixture(tmp_path):
    gold = load_gold(_gold(tmp_path, _data()), NoteGold)
    assert gold.id == "note-1" and gold.split == "heldout"
    assert gold.fixture_path == tmp_path / "fixtures" / "notes" / "note-1.md"
    assert gold.expected_findings[0].must_catch is True  # whitespace folded: the quote spans a line break


@pytest.mark.parametrize("data, name, message", [
    (_data(expected_findings=[{"id": "F1", "summary": "s", "evidence": "the queue never drops"}]), "note-1",
     "expected_findings.0.evidence: quote of F1 not found in note-1.md: 'the queue never drops'"),
    (_data(split="tuning"), "note-1", "split: Input should be 'dev' or 'heldout'"),
    (_data(id="other"), "note-1", "id: 'other' does not match the file name (note-1)"),
    (_data(fixture="missing.md"), "note-1", "fixture: "),
    (_data(colour="red"), "note-1", "colour: Extra inputs are not permitted"),
    (_data(expected_findings=[{"id": "F1", "summary": "a"}, {"id": "F1", "summary": "b"}]), "note-1",
     "(top level): expected_findings ids must be unique"),
])
def test_every_problem_is_one_line_naming_the_file_and_key(tmp_path, data, name, message):
    path = _gold(tmp_path, data, name)
    with pytest.raises(GoldError) as info:
        load_gold(path, NoteGold)
    assert str(info.value).startswith(f"gold file {path} is invalid: ")
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_a_missing_or_unparsable_file_is_one_line(tmp_path):
    with pytest.raises(GoldError, match=r"^gold file .*nope.yaml: not found$"):
        load_gold(tmp_path / "nope.yaml", NoteGold)
    bad = _gold(tmp_path, {})
    bad.write_text("fixture: [unclosed\n")
    with pytest.raises(GoldError, match=r"^gold file .*note-1.yaml: .*at line \d+$"):
        load_gold(bad, NoteGold)


def test_the_load_is_cached_until_the_file_changes(tmp_path):
    path = _gold(tmp_path, _data())
    first = load_gold(path, NoteGold)
    assert load_gold(path, NoteGold) is first
    path.write_text(yaml.safe_dump(_data(title="a new title")))
    os.utime(path, ns=(1, 1))  # a different modification time even on a coarse clock
    assert load_gold(path, NoteGold).title == "a new title"


def test_a_kind_check_adds_problems_in_the_same_shape(tmp_path):
    path = _gold(tmp_path, _data())
    with pytest.raises(GoldError, match=r"is invalid: title: too short$"):
        load_gold(path, NoteGold, check=lambda g: ["title: too short"] if len(g.title) < 3 else [])


def test_sample_gold_says_why_there_is_none(tmp_path):
    assert sample_gold({}, NoteGold) == (None, "no gold file for this sample")
    gold, why = sample_gold({"gold": str(tmp_path / "absent.yaml")}, NoteGold)
    assert gold is None and why.endswith("absent.yaml: not found")
    assert sample_gold_path({"gold": "gold/ds/x.yaml"}) == PROJECT_ROOT / "gold" / "ds" / "x.yaml"


def test_design_evidence_must_come_from_the_document_it_names():
    gold = load_gold(PROJECT_ROOT / "gold" / "design" / "api-rate-limiter.yaml", DesignGold)
    finding = next(f for f in gold.expected_findings if f.evidence)
    other = "requirements" if finding.source == "design" else "design"
    assert gold.evidence_inputs(finding) == [gold.fixture_path / f"{finding.source}.md"]
    assert gold.evidence_inputs(finding.model_copy(update={"source": other})) == [gold.fixture_path / f"{other}.md"]


def test_a_code_case_folder_keeps_its_gold_beside_its_case(tmp_path):
    case = tmp_path / "cases" / "find-rows"
    (case / "head" / "app").mkdir(parents=True)
    (case / "head" / "app" / "db.py").write_text("def find(conn, name):\n    return conn.execute(f'{name}')\n")
    (case / "spec.md").write_text("# Task\n")
    (case / "gold.yaml").write_text(yaml.safe_dump({
        "expected": {"decision": "AUTO_APPROVE", "confidence": 0.9, "final_status": "complete", "fix_iterations": 0},
        "expected_findings": [{"id": "sql", "stage": "quality", "file": "app/db.py", "severity": "Critical",
                               "category": "security", "summary": "sql", "evidence": "conn.execute(f'{name}')"}],
    }))
    gold = load_gold(case / "gold.yaml", CodeGold)
    assert gold.id == "find-rows" and gold.fixture_path == case
    (case / "head" / "app" / "db.py").write_text("def find(conn, name):\n    return None\n")
    os.utime(case / "gold.yaml", ns=(2, 2))
    with pytest.raises(GoldError, match=r"expected_findings.0.evidence: quote of sql not found in db.py, spec.md"):
        load_gold(case / "gold.yaml", CodeGold)


# ------------------------------------------------------------------ the comparison


class KindComparison(GoldComparison):
    verdict_correct: float


def test_the_comparison_counts_from_one_to_one_matches(tmp_path):
    gold = load_gold(_gold(tmp_path, _data(expected_findings=[
        {"id": "G1", "must_catch": True, "summary": "a"}, {"id": "G2", "summary": "b"}, {"id": "G3", "summary": "c"},
    ])), NoteGold).expected_findings
    predicted = ["p-a", "p-x", "p-b"]
    matches = matches_of(predicted, gold, lambda p, g: float(p == f"p-{g.summary}"), 0.5,
                         finding_id=lambda i, p: p, severity_agrees=lambda p, g: g.id == "G1")
    assert [(m.finding, m.gold) for m in matches] == [("p-a", "G1"), ("p-b", "G2")]
    result = KindComparison.from_matches(predicted, gold, matches, matcher="test", verdict_correct=1.0)
    assert (result.precision, result.recall, result.must_catch_recall, result.severity_agreement) == (2 / 3, 2 / 3, 1.0, 0.5)
    assert result.unmatched_findings == ["p-x"] and result.missed_gold == ["G3"] and result.missed_must_catch == []
    assert result.verdict_correct == 1.0 and result.matcher == "test"


def test_no_findings_precision_and_kinds_without_severity(tmp_path):
    gold = load_gold(_gold(tmp_path, _data(expected_findings=[{"id": "G1", "must_catch": True, "summary": "a"}])),
                     NoteGold).expected_findings
    assert GoldComparison.from_matches([], gold, [], matcher="m").precision == 1.0
    empty = GoldComparison.from_matches([], gold, [], matcher="m", precision_without_findings=None)
    assert empty.precision is None and empty.recall == 0.0 and empty.missed_must_catch == ["G1"]
    caught = GoldComparison.from_matches([], gold, [Match(finding="d", gold="G1", similarity=1.0)], matcher="m")
    assert caught.severity_agreement is None and caught.must_catch_recall == 1.0


def test_code_compares_one_model_against_the_gold_of_its_stage():
    gold = load_gold(PROJECT_ROOT / "gold" / "code" / "sql-injection.yaml", CodeGold)
    expected = gold.expected_findings[0]
    hit = CodeFinding(severity=Severity.IMPORTANT, category="security", file=expected.file, line=expected.line,
                      description=expected.summary, suggested_fix=None, quote=expected.evidence)
    noise = CodeFinding(severity=Severity.MINOR, category="tests", file="README.md", line=None,
                        description="no tests for the docs", suggested_fix=None, quote=None)
    result = compare_findings([noise, hit], gold.expected_findings)
    assert [(m.finding, m.gold) for m in result.matches] == [(f"2:{hit.where}", expected.id)]
    assert (result.precision, result.recall, result.must_catch_recall, result.severity_agreement) == (0.5, 1.0, 1.0, 0.0)
    assert compare_findings([], gold.expected_findings).precision is None
