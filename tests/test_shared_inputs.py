"""A checkout with nothing beside it: the gold sets leave out the cases whose real documents
(../shared/real/..., or $REVIEW_HARNESS_SHARED) are absent, with one line saying how many and why;
where the shared inputs are required ($REVIEW_HARNESS_REQUIRE_SHARED, as CI sets it) that is an
error instead. The shared folder is pointed at an empty one here, so these run the same with or
without the real documents on the machine."""

from __future__ import annotations

import pytest

from review_harness.core import paths
from review_harness.core.gold import gold_document
from review_harness.core.inspect_adapter import PrerequisiteError
from review_harness.core.paths import GOLD_DIR, REQUIRE_SHARED_ENV, SHARED_ENV, leave_out_absent

REAL_DESIGNS = sorted((GOLD_DIR / "design" / "real").glob("*.yaml"))


@pytest.fixture
def nothing_beside(tmp_path, monkeypatch):
    """No shared inputs: $REVIEW_HARNESS_SHARED names an empty folder; no line said yet."""
    monkeypatch.setenv(SHARED_ENV, str(tmp_path))
    monkeypatch.delenv(REQUIRE_SHARED_ENV, raising=False)
    monkeypatch.setattr(paths, "_said", set())
    return tmp_path


def test_the_default_design_gold_set_runs_its_own_cases_and_says_what_it_left_out(nothing_beside, capsys):
    from review_harness.design.dataset import gold_samples
    from review_harness.design.personas import default_personas

    samples = gold_samples("design", "all", None, None, default_personas())
    ids = {str(s.id) for s in samples}
    assert ids and not ids & {p.stem for p in REAL_DESIGNS}
    assert len(REAL_DESIGNS) >= 6  # as many as gold/design/real holds
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"gold set 'design': {len(REAL_DESIGNS)} cases left out: their documents under ../shared/ are not here "
                   f"(e.g. {gold_document(REAL_DESIGNS[0])}; the shared inputs are found through "
                   f"${SHARED_ENV} or beside the checkout)"]
    gold_samples("design", "all", None, None, default_personas())
    assert capsys.readouterr().err == ""  # said once per process


def test_required_shared_inputs_that_are_absent_are_one_error(nothing_beside, monkeypatch):
    from review_harness.design.dataset import gold_samples
    from review_harness.design.personas import default_personas

    monkeypatch.setenv(REQUIRE_SHARED_ENV, "1")
    with pytest.raises(PrerequisiteError) as raised:
        gold_samples("design", "all", None, None, default_personas())
    message = raised.value.message
    assert "\n" not in message and f"{len(REAL_DESIGNS)} cases cannot run" in message and f"${REQUIRE_SHARED_ENV} requires them" in message


def test_a_set_of_real_documents_only_with_none_here_says_so(nothing_beside, capsys):
    from review_harness.ds.dataset import fixture_samples

    with pytest.raises(PrerequisiteError) as raised:
        fixture_samples("ds/real", {})
    assert raised.value.message == "fixture set 'ds/real': no case to run, the documents it points at are absent"
    assert "gold set 'ds/real': " in capsys.readouterr().err


@pytest.mark.parametrize("value, required", [("1", True), ("yes", True), ("0", False), ("", False)])
def test_the_requirement_is_any_value_but_0_or_empty(monkeypatch, value, required):
    monkeypatch.setenv(REQUIRE_SHARED_ENV, value)
    assert paths.shared_required() is required


def test_items_of_the_repository_and_present_shared_ones_are_kept(tmp_path, monkeypatch, capsys):
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "here.md").write_text("x", encoding="utf-8")
    monkeypatch.setenv(SHARED_ENV, str(tmp_path))
    monkeypatch.delenv(REQUIRE_SHARED_ENV, raising=False)
    monkeypatch.setattr(paths, "_said", set())
    items = [None, "fixtures/ds/a.md", "../shared/real/here.md", "../shared/real/gone.md"]
    assert leave_out_absent("a set", items, lambda item: item) == items[:3]
    assert capsys.readouterr().err.startswith("a set: 1 case left out: its document under ../shared/ is not here "
                                              "(e.g. ../shared/real/gone.md;")
