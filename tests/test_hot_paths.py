"""Work a review repeats for every sample or every model call is done once where its result
cannot change: the response schema per dimension, the table of checks off by default, the
markdown parser of the viewer text; preparation runs its content scan only when the headings leave
a part open. Each result is the one the slow path gave."""

from __future__ import annotations

from review_harness.core import viewer
from review_harness.ds import prepare
from review_harness.ds.offline import precision
from review_harness.ds.rubric import default_rubric
from review_harness.ds.schemas import reviewer_schema


def test_the_reviewer_schema_is_built_once_per_dimension_and_not_shared_between_dimensions():
    rubric = default_rubric()
    analysis, communication = (rubric.dimension(d) for d in rubric.dimensions)
    assert reviewer_schema(analysis) is reviewer_schema(analysis)
    assert reviewer_schema(communication) is reviewer_schema(communication)
    assert reviewer_schema(analysis) is not reviewer_schema(communication)
    sent = {d: reviewer_schema(rubric.dimension(d)).json_schema.properties["dimension"] for d in rubric.dimensions}
    assert [s.enum for s in sent.values()] == [[d] for d in rubric.dimensions]


def test_the_checks_off_by_default_are_read_once_per_process(monkeypatch):
    from review_harness.core import yamlio

    first = precision.configured_off()
    reads = []
    real = yamlio.read_yaml
    monkeypatch.setattr(yamlio, "read_yaml", lambda *a, **k: reads.append(a) or real(*a, **k))
    again = [precision.configured_off() for _ in range(3)]
    assert reads == []
    assert all(table == first for table in again) and first
    again[0].clear()  # a caller changing its copy changes nothing for the next
    assert precision.configured_off() == first


def test_viewer_text_without_a_code_block_is_not_parsed_and_code_is_still_found(monkeypatch):
    viewer._code_lines.cache_clear()
    parses = []
    parser = viewer._commonmark()
    monkeypatch.setattr(viewer, "_commonmark", lambda: parses.append(1) or parser)
    report = "# Review\n\n**Evidence:** \"revenue grew $35 to $2M\"\n\n1. costs `$5`\n   - nested item\n"
    shown = viewer.for_viewer(report)
    assert parses == [] and viewer.DOLLAR + "35" in shown and viewer.CODE_DOLLAR + "5" in shown
    fenced = "Quote:\n\n```\nprice = $5\n```\n\n    indented $6\n\nthen $7\n"
    shown = viewer.for_viewer(fenced).split("\n")
    assert len(parses) == 1
    assert shown[3] == f"price = {viewer.CODE_DOLLAR}5" and shown[6] == f"    indented {viewer.CODE_DOLLAR}6"
    assert shown[8] == f"then {viewer.DOLLAR}7"
    viewer.for_viewer("\n".join(fenced.split("\n")))  # the same text again (answer, then score): parsed once
    assert len(parses) == 1


def test_a_document_whose_headings_name_every_part_is_prepared_without_the_content_scan(monkeypatch):
    memo = ("# Checkout test\n\n## TL;DR\n\nThe new button lifted conversion by 2.1 points.\n\n"
            "## Method\n\nA two-week A/B test on 40,000 sessions, split 50/50.\n\n"
            "## Results\n\nConversion rose from 10.2% to 12.3% (95% CI 1.4 to 2.8 points).\n\n"
            "## Recommendation\n\nShip the button to all users next sprint.\n")
    expected = prepare.prepare_document(memo, source="memo.md")  # before the scan is forbidden

    def no_scan(self):
        raise AssertionError("the content scan ran although the headings name every part")

    monkeypatch.setattr(prepare._Analysis, "scan", property(no_scan))
    text = memo + "\n"  # a text not read before: nothing cached
    again = prepare.prepare_document(text, source="memo.md")
    assert again.model_dump(exclude={"text"}) == expected.model_dump(exclude={"text"})
    assert again.parts == {"question": False, "summary": True, "method": True, "results": True, "conclusion": True}
    assert not again.partial_input.is_partial
