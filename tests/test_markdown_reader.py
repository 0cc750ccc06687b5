"""The shared markdown reader: sections, line numbers, sentences and quote lookup."""

from __future__ import annotations

from review_harness.core.markdown import (
    children_of,
    find_line,
    parse_sections,
    plain,
    read_document,
    section_at,
    section_text,
    sentences,
    strip_emphasis,
    subtree_end,
)
from review_harness.core.text import sentence_spans

DOC = """Draft note before any heading.

# Storage plan

Intro paragraph.

## Retry policy

- **Max attempts:** three, then give up.
- Backoff doubles each time, e.g. 1 s then 2 s.

```text
# not a heading
```

### Limits

| Limit | Value |
|-------|-------|
| Page size | 500 |

Setext heading
--------------

Tail text.
"""


def test_sections_partition_the_document_with_paths():
    secs = parse_sections(DOC)
    assert [(s.heading, s.level, s.start_line, s.end_line) for s in secs] == [
        ("", 0, 1, 2),
        ("Storage plan", 1, 3, 6),
        ("Retry policy", 2, 7, 15),
        ("Limits", 3, 16, 21),
        ("Setext heading", 2, 22, 25),
    ]
    assert [s.path for s in secs] == [
        "",
        "Storage plan",
        "Storage plan > Retry policy",
        "Storage plan > Retry policy > Limits",
        "Storage plan > Setext heading",
    ]


def test_section_at_and_subtree():
    secs = parse_sections(DOC)
    assert section_at(secs, 1).level == 0
    assert section_at(secs, 9).heading == "Retry policy"
    assert section_at(secs, 13).heading == "Retry policy"  # the fenced '#' line is code, not a heading
    assert section_at(secs, 19).path == "Storage plan > Retry policy > Limits"
    retry = secs[2]
    assert subtree_end(secs, retry) == 21
    assert [c.heading for c in children_of(secs, retry)] == ["Limits"]
    assert "Page size" in section_text(DOC, retry, secs, nested=True)
    assert "Page size" not in section_text(DOC, retry, secs, nested=False)


def test_blocks_carry_lines_depth_and_what_their_kind_needs():
    doc = read_document(DOC)
    assert doc.n_lines == 25 and doc.lines[2] == "# Storage plan"
    assert [(b.kind, b.start_line, b.end_line, b.depth) for b in doc.blocks] == [
        ("paragraph", 1, 1, 0),
        ("heading", 3, 3, 0),
        ("paragraph", 5, 5, 0),
        ("heading", 7, 7, 0),
        ("list", 9, 10, 0),
        ("item", 9, 9, 1),
        ("paragraph", 9, 9, 2),
        ("item", 10, 10, 1),
        ("paragraph", 10, 10, 2),
        ("code", 12, 14, 0),
        ("heading", 16, 16, 0),
        ("table", 18, 20, 0),
        ("heading", 22, 23, 0),  # a setext heading spans its underline
        ("paragraph", 25, 25, 0),
    ]
    retry = doc.blocks[6]
    assert (retry.text, retry.container) == ("**Max attempts:** three, then give up.", "item")
    assert doc.blocks[9].text == "text" and doc.blocks[9].fenced
    assert doc.blocks[11].rows == (18, 20)  # header and body rows, not the delimiter row
    assert [(h.level, h.text, h.plain) for h in doc.of_kind("heading")][-1] == (2, "Setext heading", "Setext heading")


def test_block_quotes_nesting_and_heading_markup():
    text = "# **Bold** title\n\n> [!NOTE]\n> Quoted line\n>\n> - nested item\n\n    indented code\n"
    doc = read_document(text)
    [heading] = doc.of_kind("heading")
    assert (heading.text, heading.plain) == ("**Bold** title", "Bold title")
    assert [(b.kind, b.depth, b.container) for b in doc.blocks if b.kind in ("blockquote", "paragraph")] == [
        ("blockquote", 0, ""), ("paragraph", 1, "blockquote"), ("paragraph", 3, "item"),
    ]
    [code] = doc.of_kind("code")
    assert (code.start_line, code.end_line, code.fenced) == (8, 8, False)


def test_front_matter_is_not_read_as_markdown_but_keeps_its_lines():
    doc = read_document("---\ntitle: x\n---\n# Real\n")
    assert [(b.kind, b.start_line) for b in doc.blocks] == [("heading", 4)]
    assert doc.lines[1] == "title: x"


def test_no_heading_and_empty_text():
    assert parse_sections("") == []
    [only] = parse_sections("just text\nmore text\n")
    assert (only.heading, only.level, only.start_line, only.end_line) == ("", 0, 1, 2)


def test_front_matter_is_not_a_heading():
    text = "---\ntitle: x\n---\n# Real\nbody\n"
    secs = parse_sections(text)
    assert [s.heading for s in secs] == ["Real"]
    assert secs[0].start_line == 4


def test_heading_text_drops_emphasis():
    secs = parse_sections("# The **bold** `code` [link](http://x)\n")
    assert secs[0].heading == "The bold code link"


def test_find_line_exact_loose_and_missing():
    assert find_line(DOC, "Intro paragraph.") == 5
    assert find_line(DOC, "Max attempts: three") == 9  # emphasis in the source is ignored
    assert find_line(DOC, "max   ATTEMPTS:  three") == 9
    assert find_line(DOC, "| Page size | 500 |") == 20
    assert find_line(DOC, "not in the document at all") is None
    assert find_line(DOC, "") is None
    wrapped = "first line of a sentence that\ncontinues here.\n"
    assert find_line(wrapped, "sentence that continues here") == 1


def test_sentences_carry_lines_kinds_and_cells():
    units = sentences(DOC)
    by_text = {u.plain: u for u in units}
    assert by_text["Draft note before any heading."].line == 1
    assert by_text["Storage plan"].kind == "heading"
    bullet = by_text["Max attempts: three, then give up."]
    assert (bullet.kind, bullet.line) == ("bullet", 9)
    # the abbreviation does not end the sentence
    assert "Backoff doubles each time, e.g. 1 s then 2 s." in by_text
    row = next(u for u in units if u.kind == "table")
    assert (row.line, row.cells, row.header) == (20, ("Page size", "500"), ("Limit", "Value"))
    assert all("not a heading" not in u.text for u in units)  # code left out by default
    assert any(u.kind == "code" and u.line == 13 for u in sentences(DOC, include_code=True))


def test_wrapped_paragraph_quotes_stay_verbatim():
    text = "# T\n\nThe worker polls the queue every\n30 seconds. Then it sleeps.\n"
    units = [u for u in sentences(text) if u.kind == "para"]
    first, second = units
    assert first.text == "The worker polls the queue every 30 seconds."
    assert (first.line, first.end_line) == (3, 4)
    assert second.line == 4
    for needle in (None, "30 seconds", "polls"):
        q = first.quote(needle)
        assert q in text
    assert "30 seconds" in first.quote("30 seconds")


def test_quote_window_keeps_the_needle():
    long = "alpha " * 60 + "NEEDLE here " + "omega " * 60
    [u] = sentences(long)
    q = u.quote("NEEDLE", max_len=80)
    assert "NEEDLE" in q and q in long and len(q) <= 80


def test_strip_emphasis_and_plain():
    assert strip_emphasis("**bold** and *it* and __b__ and `x_y`") == "bold and it and b and x_y"
    assert plain("a  [link](http://e.com)\n b") == "a link b"
    assert plain("snake_case_name stays") == "snake_case_name stays"


def test_split_sentences_spans():
    text = "First one. Second one! Version 1.5 is out. Done"
    spans = sentence_spans(text)
    assert [text[a:b] for a, b in spans] == ["First one.", "Second one!", "Version 1.5 is out.", "Done"]
