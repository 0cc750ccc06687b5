"""Tests for review_harness.ds.prepare: deterministic document preparation."""

from __future__ import annotations

import re

import pytest

from review_harness.ds.models import Section
from review_harness.ds.prepare import (
    EXCERPT_MAX_WORDS,
    ABSENT,
    EXCERPT_MARKER_RE,
    EXTRACTION_HEADER,
    EXTRACTION_LABELS,
    TLDR_LOCATION_KEY,
    DocumentError,
    count_words,
    detect_partial_input,
    detect_tldr,
    extract_sections,
    infer_structure_needed,
    parse_extraction,
    prepare_document,
    reading_minutes,
    render_extraction,
    render_section_map,
    select_tier,
    tldr_location,
    token_estimate,
)

# --------------------------------------------------------------------------------------
# Document builders (no dependency on fixtures/)
# --------------------------------------------------------------------------------------

# Neutral prose: no methodology / result / conclusion / limitation / TL;DR signals.
NEUTRAL = (
    "The product team shipped the new onboarding flow to fresh accounts and watched how "
    "people moved through each step of the setup screens during the spring release window."
)
METHOD = (
    "We used a randomized A/B test on new accounts, with a treatment group that saw the "
    "checklist and a control group that saw the old flow, and we set the sample size in advance."
)
RESULT = (
    "Activation rose from 31.2% to 34.0% in treatment (n = 20,412), a lift of 2.8 pp "
    "(p = 0.003, 95% CI [1.1, 4.5])."
)
RECOMMEND = "We recommend rolling the checklist out to every new account in the next release."
LIMITATION = (
    "One caveat: the test ran for three weeks, so it does not account for long-term retention."
)


def words_of(sentence: str, n: int, width: int = 12) -> str:
    """Exactly ``n`` words taken cyclically from ``sentence``, wrapped every ``width`` words."""
    src = sentence.split()
    ws = [src[i % len(src)] for i in range(n)]
    return "\n".join(" ".join(ws[i : i + width]) for i in range(0, n, width))


def structured_doc(filler_words: int = 150, *, limitations: bool = True) -> str:
    parts = [
        "# Onboarding Checklist Test",
        "",
        "## Executive Summary",
        "",
        "The checklist increased activation by 2.8 pp (9% relative); we recommend shipping it.",
        "",
        "## Background",
        "",
        words_of(NEUTRAL, filler_words),
        "",
        "## Methodology",
        "",
        METHOD,
        "",
        words_of(NEUTRAL, filler_words),
        "",
        "## Data and Metrics",
        "",
        "Activation is defined as creating a first project within 7 days of signup.",
        "",
        words_of(NEUTRAL, filler_words),
        "",
        "## Results",
        "",
        "| Metric | Control | Treatment |",
        "|---|---|---|",
        "| Activation | 31.2% | 34.0% |",
        "",
        RESULT,
        "",
        words_of(NEUTRAL, filler_words),
        "",
        "## Recommendations",
        "",
        RECOMMEND,
        "",
        words_of(NEUTRAL, filler_words),
    ]
    if limitations:
        parts += ["", "## Limitations", "", LIMITATION, "", words_of(NEUTRAL, filler_words)]
    return "\n".join(parts) + "\n"


def running_text_doc() -> str:
    """An analysis written as plain paragraphs, without any heading."""
    paras = [
        words_of(NEUTRAL, 60),
        words_of(NEUTRAL, 50),
        METHOD + " " + words_of(NEUTRAL, 30, width=100),
        words_of(NEUTRAL, 60),
        RESULT + " Retention went from 40.1% to 42.5% and revenue per user from $12.10 to $12.90.",
        words_of(NEUTRAL, 60),
        LIMITATION,
        words_of(NEUTRAL, 60),
        "In conclusion, " + RECOMMEND,
    ]
    return "\n\n".join(paras) + "\n"


def line_of(text: str, needle: str) -> int:
    for i, line in enumerate(text.split("\n"), 1):
        if needle in line:
            return i
    raise AssertionError(f"{needle!r} not in text")


# --------------------------------------------------------------------------------------
# Size, tier, reading time
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("", 0),
        ("hello world", 2),
        ("# Title\n\n---\n\n| a | b |\n|---|---|\n", 3),
        ("* item one\n* item two\n", 4),
        ("3.5% of users churned.", 4),
        ("— – ... !!! * # | ---", 0),
        ("don't stop-me now", 3),
        ("**Bold** _it_ `code`", 3),
        ("  spaced\t\tout \n\n words ", 3),
    ],
)
def test_count_words(text: str, expected: int) -> None:
    assert count_words(text) == expected


@pytest.mark.parametrize(
    "words, mode, tier",
    [
        (0, "full", 1),
        (1_999, "full", 1),
        (2_000, "full", 2),
        (4_999, "full", 2),
        (5_000, "full", 3),
        (100_000, "full", 3),
        (10, "quick", 3),
        (1_999, "quick", 3),
        (4_999, "quick", 3),
    ],
)
def test_select_tier(words: int, mode: str, tier: int) -> None:
    assert select_tier(words, mode) == tier


@pytest.mark.parametrize(
    "n_words, mode, tier",
    [(1_999, "full", 1), (2_000, "full", 2), (4_999, "full", 2), (5_000, "full", 3), (1_999, "quick", 3)],
)
def test_prepare_document_tier_boundaries(n_words: int, mode: str, tier: int) -> None:
    doc = "# Boundary\n\n" + words_of(NEUTRAL, n_words - 1) + "\n"
    prepared = prepare_document(doc, source="boundary.md", mode=mode)
    assert prepared.word_count == n_words
    assert prepared.tier == tier
    assert (prepared.section_map is not None) == (tier == 2)
    assert (prepared.extraction is not None) == (tier == 3)


@pytest.mark.parametrize(
    "words, minutes, tokens",
    [(0, 0.0, 0), (230, 1.0, 299), (1_000, 4.3, 1_300), (2_300, 10.0, 2_990), (5_001, 21.7, 6_501)],
)
def test_reading_time_and_tokens(words: int, minutes: float, tokens: int) -> None:
    assert reading_minutes(words) == minutes
    assert token_estimate(words) == tokens


def test_prepare_document_size_fields() -> None:
    doc = "# T\n\n" + words_of(NEUTRAL, 2_299) + "\n"
    p = prepare_document(doc, source="docs/t.md")
    assert (p.word_count, p.reading_minutes, p.token_estimate) == (2_300, 10.0, 2_990)
    assert p.title == "T"
    assert p.source == "docs/t.md"


@pytest.mark.parametrize("text", ["", "   ", "\n\n\t\n"])
def test_prepare_document_rejects_empty(text: str) -> None:
    with pytest.raises(DocumentError, match="empty"):
        prepare_document(text, source="blank.md")
    with pytest.raises(ValueError):
        prepare_document(text, source="blank.md")


def test_prepare_document_rejects_unknown_mode() -> None:
    with pytest.raises(ValueError, match="mode"):
        prepare_document("# A\n\ntext", source="a.md", mode="slow")


# --------------------------------------------------------------------------------------
# Sections and title
# --------------------------------------------------------------------------------------


def test_sections_line_ranges() -> None:
    doc = "\n".join(
        [
            "Draft notes before the title.",  # 1
            "",  # 2
            "# Churn Study",  # 3
            "Intro line.",  # 4
            "",  # 5
            "## Method",  # 6
            "We used a cohort model.",  # 7
            "",  # 8
            "### Sample",  # 9
            "Two cohorts.",  # 10
            "",  # 11
            "",  # 12
            "Setext Results",  # 13
            "--------------",  # 14
            "Churn fell.",  # 15
            "",
        ]
    )
    assert [(s.heading, s.level, s.start_line, s.end_line) for s in extract_sections(doc)] == [
        ("(preamble)", 0, 1, 1),
        ("Churn Study", 1, 3, 4),
        ("Method", 2, 6, 7),
        ("Sample", 3, 9, 10),
        ("Setext Results", 2, 13, 15),
    ]


@pytest.mark.parametrize(
    "doc, title",
    [
        ("## Sub first\n\n# Main Title\n\nbody", "Main Title"),
        ("## Only Sub\n\nbody text", "Only Sub"),
        ("\n\n  Plain first line of the memo  \n\nmore", "Plain first line of the memo"),
        ("x" * 200, "x" * 120),
    ],
)
def test_title(doc: str, title: str) -> None:
    assert prepare_document(doc, source="notes/memo.md").title == title


def test_heading_inside_code_block_is_not_a_section() -> None:
    doc = "# Real\n\n```python\n# not a heading\nx = 1\n```\n\n## Also real\n\ntext\n"
    assert [s.heading for s in extract_sections(doc)] == ["Real", "Also real"]


def test_front_matter_is_metadata_not_a_heading() -> None:
    """Preparation reads the document through the core markdown model, which does not read a
    leading YAML block as markdown (it used to become a setext heading 'title: ... author: ...')."""
    doc = "---\ntitle: Churn study\nauthor: Jane\n---\n\n# Churn study\n\nChurn fell 2%.\n\n## Method\n\nCohorts.\n"
    assert [(s.heading, s.level, s.start_line, s.end_line) for s in extract_sections(doc)] == [
        ("(preamble)", 0, 1, 4),
        ("Churn study", 1, 6, 8),
        ("Method", 2, 10, 12),
    ]


# --------------------------------------------------------------------------------------
# TL;DR detection
# --------------------------------------------------------------------------------------

TAIL = "\n\n## Background\n\n" + words_of(NEUTRAL, 80) + "\n\n## Method\n\n" + METHOD + "\n\n" + words_of(NEUTRAL, 80) + "\n"

TLDR_CASES = {
    "panel": (
        "# Churn Review\n\n> [!NOTE]\n> Churn fell 8% after the onboarding change; keep the new flow.\n" + TAIL,
        "panel",
        (3, 4),
        "> Churn fell 8% after the onboarding change; keep the new flow.",
    ),
    "panel_bold_summary": (
        "# Churn Review\n\n> **Summary** churn fell 8% after the onboarding change.\n" + TAIL,
        "panel",
        (3, 3),
        "**Summary** churn fell 8%",
    ),
    "emphasis_label": (
        "# Churn Review\n\n**TL;DR:** Churn fell 8% after the onboarding change; keep the new flow.\n" + TAIL,
        "emphasis",
        (3, 3),
        "**TL;DR:** Churn fell 8%",
    ),
    "emphasis_whole_bold": (
        "# Churn Review\n\n**Churn fell 8% after the onboarding change and should stay.**\n" + TAIL,
        "emphasis",
        (3, 3),
        "Churn fell 8% after the onboarding change",
    ),
    "emphasis_label_then_list": (
        "# Churn Review\n\n**Key takeaways**\n\n- Churn fell 8%\n- Keep the new flow\n" + TAIL,
        "emphasis",
        (3, 6),
        "- Keep the new flow",
    ),
    "named_section": (
        "# Churn Review\n\n## Background\n\n" + words_of(NEUTRAL, 40)
        + "\n\n## Executive summary: churn fell\n\nChurn fell 8% after the onboarding change.\n\n## Method\n\n"
        + METHOD + "\n",
        "named_section",
        None,
        "Churn fell 8% after the onboarding change.",
    ),
    "first_paragraph": (
        "# Churn Review\n\nWe found that the new onboarding flow reduced churn by 8%, saving about "
        "$300K per year.\n" + TAIL,
        "first_paragraph",
        (3, 3),
        "We found that the new onboarding flow reduced churn",
    ),
    "content_signal": (
        "# Churn Review\n\nThis note gives an overview of the onboarding experiment and what changed "
        "for new users this spring.\n" + TAIL,
        "content_signal",
        (3, 3),
        "This note gives an overview",
    ),
}


@pytest.mark.parametrize("case", sorted(TLDR_CASES))
def test_detect_tldr_methods(case: str) -> None:
    doc, method, lines, snippet = TLDR_CASES[case]
    tldr = detect_tldr(doc, extract_sections(doc))
    assert tldr.found
    assert tldr.method == method
    assert snippet in tldr.text
    if lines is not None:
        assert (tldr.start_line, tldr.end_line) == lines
    # the detected text is copied from the document
    for line in tldr.text.split("\n"):
        assert line.removesuffix(" [...]") in doc


def test_named_section_line_range_and_location() -> None:
    doc, *_ = TLDR_CASES["named_section"]
    sections = extract_sections(doc)
    tldr = detect_tldr(doc, sections)
    start = line_of(doc, "## Executive summary")
    assert (tldr.start_line, tldr.end_line) == (start, start + 2)
    assert tldr_location(tldr, sections) == f"named section 'Executive summary: churn fell', lines {start}-{start + 2}"


def test_detect_tldr_absent() -> None:
    doc = "# Churn Review\n\n" + words_of(NEUTRAL, 60) + TAIL
    tldr = detect_tldr(doc)
    assert (tldr.found, tldr.method, tldr.text, tldr.start_line) == (False, "absent", "", None)
    assert tldr_location(tldr) == ABSENT


@pytest.mark.parametrize(
    "doc, expected",
    [
        # panel beats a named section further down
        ("# R\n\n> Churn fell 8% after the change, keep it.\n\n## Summary\n\nChurn fell.\n" + TAIL, "panel"),
        # emphasis beats a named section
        ("# R\n\n**TL;DR:** churn fell 8%.\n\n## Summary\n\nChurn fell.\n" + TAIL, "emphasis"),
        # a named section beats a summary-like first paragraph
        (
            "# R\n\nWe found churn fell by 8%, worth $300K a year.\n\n## Key Findings\n\nChurn fell.\n" + TAIL,
            "named_section",
        ),
        # a summary-like first paragraph beats a later "overview" phrase
        (
            "# R\n\nWe found churn fell by 8%, worth $300K a year.\n\nAn overview of the setup follows.\n" + TAIL,
            "first_paragraph",
        ),
    ],
)
def test_detect_tldr_priority(doc: str, expected: str) -> None:
    assert detect_tldr(doc).method == expected


@pytest.mark.parametrize(
    "byline",
    [
        "*Growth Analytics · Author: Jane Doe · 2 May 2024 · Audience: Marketing leadership*",
        "**Owner:** Jane Doe | **Status:** final",
        "*Posted by: Jane Doe, Pricing Strategy*",
        "Notes on the pricing test. Jane Doe, Pricing Analytics, 14 November 2024.",
    ],
)
def test_byline_is_not_a_tldr(byline: str) -> None:
    doc = "# Churn Review\n\n" + byline + "\n" + TAIL
    assert detect_tldr(doc).method == "absent"


def test_named_section_with_slide_prefix() -> None:
    doc = "# Deck\n\n## Slide 1: Intro\n\n- Team\n\n## Slide 2: Executive Summary\n\n- Revenue up 18%\n"
    tldr = detect_tldr(doc)
    assert (tldr.method, tldr.start_line, tldr.end_line, tldr.text) == ("named_section", 7, 9, "- Revenue up 18%")


def test_panel_outside_top_20_percent_is_ignored() -> None:
    body = "\n\n".join(words_of(NEUTRAL, 20) for _ in range(20))
    doc = "# R\n\n" + body + "\n\n> Churn fell 8% after the onboarding change, keep it.\n"
    assert detect_tldr(doc).method != "panel"


def test_emphasis_after_first_h2_is_not_emphasis() -> None:
    doc = "# R\n\n## Background\n\n" + words_of(NEUTRAL, 40) + "\n\n**TL;DR:** churn fell 8%.\n"
    assert detect_tldr(doc).method != "emphasis"


def test_tldr_text_is_trimmed() -> None:
    doc = "# R\n\n## Summary\n\n" + words_of(RESULT, 400) + "\n\n## Method\n\n" + METHOD + "\n"
    tldr = detect_tldr(doc)
    assert tldr.method == "named_section"
    assert count_words(tldr.text) <= 121
    assert tldr.text.endswith(" [...]")


# --------------------------------------------------------------------------------------
# Unstructured documents
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "doc, inferred",
    [
        (running_text_doc(), True),
        ("# Title only\n\n" + running_text_doc(), True),
        ("# T\n\n## Only one\n\n" + running_text_doc(), True),
        ("# T\n\n## Section 1\n\ntext\n\n## Section 2\n\ntext\n\n## Part A\n\ntext\n", True),
        ("# T\n\n## Introduction\n\ntext\n\n## 2.\n\ntext\n\n## II\n\ntext\n", True),
        (structured_doc(), False),
        ("# T\n\n## Introduction\n\ntext\n\n## Results\n\ntext\n", False),
    ],
)
def test_structure_inferred(doc: str, inferred: bool) -> None:
    assert infer_structure_needed(doc) is inferred
    assert prepare_document(doc, source="d.md").structure_inferred is inferred


def test_unstructured_extraction_lists_inferred_sections() -> None:
    doc = running_text_doc()
    p = prepare_document(doc, source="running.md", mode="quick")
    assert p.structure_inferred and p.tier == 3
    fields = parse_extraction(p.extraction)
    assert fields["Structure"].startswith("inferred from content signals")
    structure = fields["STRUCTURE"]
    method_line = line_of(doc, "We used a randomized")
    result_line = line_of(doc, "Activation rose from")
    limit_line = line_of(doc, "One caveat")
    concl_line = line_of(doc, "In conclusion")
    assert "INFERRED SECTIONS:" in structure
    assert "- Framing/context: lines 1-5" in structure  # the first paragraph (top 15%)
    assert f"- Methodology (inferred): line {method_line}" in structure
    assert f"- Results (inferred): line {result_line}" in structure
    assert f"- Limitations: line {limit_line}" in structure
    assert f"line {concl_line}" in structure.split("- Conclusions (inferred):")[1].split("\n")[0]
    assert "We used a randomized A/B test" in fields["METHODOLOGY EXCERPT"]
    assert "Activation rose from 31.2% to 34.0%" in fields["RESULTS EXCERPT"]
    assert "One caveat" in fields["LIMITATIONS STATED"]
    assert "In conclusion, We recommend" in fields["RECOMMENDATIONS / CONCLUSIONS"]


# --------------------------------------------------------------------------------------
# Partial input
# --------------------------------------------------------------------------------------


def bullet_draft(n_words: int = 400) -> str:
    lines = ["# Churn ideas", ""]
    bullets = [
        "- look at churn by plan type and region",
        "- maybe talk to support about cancellations",
        "- check the onboarding funnel for drop offs",
        "- compare annual and monthly plans",
    ]
    i = 0
    while count_words("\n".join(lines)) + count_words(bullets[i % 4]) <= n_words:
        lines.append(bullets[i % 4])
        i += 1
    return "\n".join(lines) + "\n"


def test_partial_input_on_bullet_draft() -> None:
    doc = bullet_draft(400)
    words = count_words(doc)
    assert 390 <= words <= 400
    check = detect_partial_input(doc, extract_sections(doc), words)
    assert check.is_partial
    assert f"only {words} words" in check.reasons
    assert any(re.fullmatch(r"9\d% of lines are bullet points", r) for r in check.reasons)
    assert "no methodology section detected" in check.reasons
    assert prepare_document(doc, source="draft.md").partial_input.is_partial


def test_partial_input_on_long_bullet_list_without_word_shortfall() -> None:
    doc = bullet_draft(1_000)
    check = detect_partial_input(doc, extract_sections(doc), count_words(doc))
    assert check.is_partial
    assert not any(r.startswith("only ") for r in check.reasons)
    assert any(r.endswith("% of lines are bullet points") for r in check.reasons)


def test_structured_analysis_is_not_partial() -> None:
    doc = structured_doc(200)
    words = count_words(doc)
    assert 1_300 <= words <= 1_700
    check = detect_partial_input(doc, extract_sections(doc), words)
    assert check.is_partial is False
    assert check.reasons == []


def test_partial_input_when_signals_are_missing() -> None:
    doc = "# Team offsite\n\n" + "\n\n".join(words_of(NEUTRAL, 100) for _ in range(8)) + "\n"
    check = detect_partial_input(doc)
    assert check.is_partial
    assert {"no methodology section detected", "no results detected",
            "no conclusions or recommendations detected"} <= set(check.reasons)


# --------------------------------------------------------------------------------------
# Tier 2: section map
# --------------------------------------------------------------------------------------


def test_section_map() -> None:
    doc = structured_doc(500)
    p = prepare_document(doc, source="checklist.md")
    assert p.tier == 2 and p.extraction is None
    smap = p.section_map
    assert smap == render_section_map(p)
    lines = smap.split("\n")
    assert lines[0] == "SECTION MAP"
    assert lines[1] == "Document: Onboarding Checklist Test"
    assert lines[2] == f"Total length: {p.word_count} words (~{p.reading_minutes:g} min read)"
    summary = p.sections[1]
    assert f"  - [H2] Executive Summary (lines {summary.start_line}-{summary.end_line}) <- TL;DR DETECTED" in lines
    assert sum("TL;DR DETECTED" in line for line in lines) == 1
    assert f"    - [table] at line {line_of(doc, '| Metric |')} (columns: Metric | Control | Treatment)" in lines
    results = next(s for s in p.sections if s.heading == "Results")
    assert f"  - [H2] Results (lines {results.start_line}-{results.end_line})" in lines
    claims = smap.split("KEY CLAIMS (with locations):\n")[1]
    assert f'"{RESULT}" (line {line_of(doc, "Activation rose")})' in claims
    assert f'"{RECOMMEND}" (line {line_of(doc, RECOMMEND)})' in claims
    assert len(re.findall(r"^\d+\. \"", claims, re.M)) <= 8


def test_section_map_marks_callout_tldr() -> None:
    doc, *_ = TLDR_CASES["panel"]
    smap = render_section_map(prepare_document(doc, source="p.md"))
    assert "TL;DR: callout/blockquote at the top of the document, lines 3-4" in smap
    assert "- [H1] Churn Review (lines 1-4)\n  - [callout] at lines 3-4 <- TL;DR DETECTED\n" in smap
    # the callout marker is not part of the quoted claim, and the claim sits on line 4
    assert '1. "Churn fell 8% after the onboarding change; keep the new flow." (line 4)' in smap


def test_section_map_marks_images_and_code() -> None:
    doc = (
        "# Report\n\n## Results\n\nChurn fell 8%.\n\n![churn by week](churn.png)\n\n"
        "```sql\nselect 1\n```\n\n## Next steps\n\nShip it.\n"
    )
    smap = render_section_map(prepare_document(doc, source="r.md"))
    assert '    - [chart/image] "churn by week" at line 7' in smap
    assert "    - [code block] (sql) at lines 9-11" in smap
    assert "TL;DR: ABSENT" in smap


# --------------------------------------------------------------------------------------
# Tier 3: structured extraction
# --------------------------------------------------------------------------------------

EXCERPT_LABELS = [
    "METHODOLOGY EXCERPT",
    "DATA SOURCES & METRICS",
    "RESULTS EXCERPT",
    "RECOMMENDATIONS / CONCLUSIONS",
    "LIMITATIONS STATED",
]


def assert_verbatim(content: str, source: str) -> None:
    if content == ABSENT:
        return
    for line in content.split("\n"):
        if not line.strip() or EXCERPT_MARKER_RE.match(line):
            continue
        assert line.removesuffix(" [...]") in source, line


def test_extraction_labels_and_content() -> None:
    doc = structured_doc(150, limitations=False)
    p = prepare_document(doc, source="docs/checklist.md", mode="quick")
    assert p.tier == 3 and p.section_map is None
    text = p.extraction
    lines = text.split("\n")
    assert lines[0] == EXTRACTION_HEADER
    assert lines[1] == "Source: docs/checklist.md"
    assert lines[2] == "Space: not stated"
    assert lines[3] == f"Word count: {p.word_count} (~{p.reading_minutes:g} min read) -> Tier 3"
    assert lines[4:7] == ["Status: not stated", "Labels: none", "Structure: explicit headings"]
    for label in EXTRACTION_LABELS:
        assert lines.count(f"{label}:") == 1
    fields = parse_extraction(text)
    assert fields["TL;DR AS WRITTEN"] == p.tldr.text
    assert fields[TLDR_LOCATION_KEY].startswith("named section 'Executive Summary', lines 3-5")
    assert "[Section: Methodology," in fields["METHODOLOGY EXCERPT"]
    assert METHOD in fields["METHODOLOGY EXCERPT"]
    assert "Activation is defined as" in fields["DATA SOURCES & METRICS"]
    assert RESULT in fields["RESULTS EXCERPT"]
    # a numeric results table is kept verbatim (issue 19 s2), not replaced by a placeholder
    assert "| Activation | 31.2% |" in fields["RESULTS EXCERPT"] and "[table:" not in fields["RESULTS EXCERPT"]
    assert RECOMMEND in fields["RECOMMENDATIONS / CONCLUSIONS"]
    assert fields["LIMITATIONS STATED"] == ABSENT
    claims = fields["KEY CLAIMS"]
    assert f'"{RESULT}" (Section: Results, line {line_of(doc, "Activation rose")})' in claims
    for label in EXCERPT_LABELS + ["TL;DR AS WRITTEN"]:
        assert_verbatim(fields[label], doc)


def test_extraction_heading_precedence() -> None:
    doc = (
        "# Pause option test\n\n## Summary\n\nPausing cut churn by 3 pp; we recommend shipping it.\n\n"
        "## How we tested it\n\nWe randomized accounts 50/50 when they entered the cancel flow.\n\n"
        "## Results\n\n### Primary metric: churn\n\nChurn fell from 12.0% to 9.0% (p < 0.001).\n\n"
        "## Limitations and what the data cannot support\n\nWe do not know what happens after 90 days.\n"
    )
    fields = parse_extraction(prepare_document(doc, source="h.md", mode="quick").extraction)
    assert fields["METHODOLOGY EXCERPT"] == (
        "[Section: How we tested it, lines 7-9]\nWe randomized accounts 50/50 when they entered the cancel flow."
    )
    assert fields["RESULTS EXCERPT"].startswith("[Section: Results, lines 11-15]\n### Primary metric: churn")
    assert fields["LIMITATIONS STATED"] == (
        "[Section: Limitations and what the data cannot support, lines 17-19]\n"
        "We do not know what happens after 90 days."
    )
    # neither the limitations heading ("data") nor the results sub-heading ("metric") is a data section
    assert not fields["DATA SOURCES & METRICS"].startswith("[Section:")


def test_extraction_absent_everything() -> None:
    doc = "# Memo\n\n" + words_of(NEUTRAL, 300) + "\n"
    fields = parse_extraction(prepare_document(doc, source="m.md", mode="quick").extraction)
    for label in EXCERPT_LABELS + ["TL;DR AS WRITTEN", "KEY CLAIMS"]:
        assert fields[label] == ABSENT, label
    assert fields[TLDR_LOCATION_KEY] == ABSENT


def test_extraction_round_trip() -> None:
    doc = structured_doc(150)
    p = prepare_document(doc, source="rt.md", mode="quick")
    fields = parse_extraction(p.extraction)
    assert set(EXTRACTION_LABELS) <= set(fields)
    rebuilt = [EXTRACTION_HEADER] + [f"{k}: {fields[k]}" for k in ("Source", "Space", "Word count", "Status", "Labels",
                                                                   "Structure")]
    for label in EXTRACTION_LABELS:
        content = fields[label]
        if label == "TL;DR AS WRITTEN":
            content += f"\nLocation: {fields[TLDR_LOCATION_KEY]}"
        rebuilt += ["", f"{label}:", content]
    assert "\n".join(rebuilt) + "\n" == p.extraction
    assert parse_extraction(render_extraction(p)) == fields


def big_structured_doc(n_sections: int = 200, paras: int = 5) -> str:
    parts = [
        "# Big Analysis",
        "",
        "## Executive Summary",
        "",
        "We recommend the new flow because it increased activation by 9% (p < 0.01).",
        "",
    ]
    names = ["Methodology", "Data", "Results", "Recommendations", "Limitations", "Appendix"]
    for i in range(n_sections):
        parts += [f"## {names[i % len(names)]} part {i}", ""]
        for j in range(paras):
            parts += [words_of(NEUTRAL, 100), ""]
        parts += [f"In cohort {i}, activation rose by {i % 13 + 2}.{i % 7}% (p = 0.0{i % 9 + 1}).", ""]
        parts += ["| Metric | Control | Treatment |", "|---|---|---|", "| Activation | 31.2% | 34.0% |", ""]
    return "\n".join(parts)


def test_extraction_is_bounded_for_100k_words() -> None:
    doc = big_structured_doc()
    p = prepare_document(doc, source="big.md")
    assert p.word_count >= 95_000 and p.tier == 3
    assert count_words(p.extraction) <= 3_800
    fields = parse_extraction(p.extraction)
    for label in EXCERPT_LABELS:
        assert count_words(fields[label]) <= EXCERPT_MAX_WORDS[label] + 20, label
        assert_verbatim(fields[label], doc)
    assert len(re.findall(r"^\d+\. \"", fields["KEY CLAIMS"], re.M)) == 8
    assert len(fields["STRUCTURE"].split("\n")) <= 40


def test_unstructured_big_document_is_bounded() -> None:
    paras = []
    for i in range(300):
        src = [NEUTRAL, METHOD, RESULT, LIMITATION, RECOMMEND][i % 5]
        paras.append(words_of(src, 60))
    doc = "\n\n".join(paras) + "\n"
    p = prepare_document(doc, source="flat.md")
    assert p.structure_inferred and p.tier == 3
    assert count_words(p.extraction) <= 3_800
    fields = parse_extraction(p.extraction)
    for label in EXCERPT_LABELS:
        assert_verbatim(fields[label], doc)
        if label == "DATA SOURCES & METRICS":
            assert fields[label] == ABSENT  # nothing in the text describes data sources
        else:
            assert fields[label].startswith("[Content signals, line")
            assert count_words(fields[label]) <= EXCERPT_MAX_WORDS[label] + 20


def test_crlf_and_bom_text() -> None:
    doc = "\ufeff" + structured_doc(50).replace("\n", "\r\n")
    p = prepare_document(doc, source="win.md")
    assert p.title == "Onboarding Checklist Test"
    assert p.tldr.method == "named_section" and p.tldr.start_line == 3


def test_prepare_is_deterministic() -> None:
    doc = structured_doc(500)
    a = prepare_document(doc, source="x.md")
    b = prepare_document(doc, source="x.md")
    assert a.model_dump() == b.model_dump()


def test_sections_are_models() -> None:
    assert all(isinstance(s, Section) for s in extract_sections(structured_doc()))
