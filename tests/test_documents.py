"""The input layer (review_harness.core.documents): encodings, formats, folders, source maps,
and end to end: a notebook, a Word file and an HTML page of one analysis get the same review
as its markdown."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from helpers import reviews, run
from review_harness.core.documents import DocumentError, MapEntry, SourceMap, load, read_file
from review_harness.core.documents.encoding import decode

DATA = Path(__file__).parent / "data" / "documents"
ANALYSIS = (DATA / "analysis.md").read_text(encoding="utf-8")


# ------------------------------------------------------------------ the same analysis, other formats


def as_html(markdown: str) -> str:
    body = MarkdownIt("commonmark").enable("table").render(markdown)
    return f"<!DOCTYPE html>\n<html><head><title>Export</title><style>p {{ margin: 0 }}</style></head>\n<body>\n{body}</body></html>\n"


def as_notebook(markdown: str) -> str:
    """One markdown cell per section, and a code cell (with its output) after the data section."""
    nbformat = pytest.importorskip("nbformat")
    v4 = nbformat.v4
    cells, chunk = [], []
    for line in markdown.rstrip("\n").split("\n"):
        if line.startswith("## ") and chunk:
            cells.append(v4.new_markdown_cell("\n".join(chunk).strip("\n")))
            chunk = []
        chunk.append(line)
    cells.append(v4.new_markdown_cell("\n".join(chunk).strip("\n")))
    code = v4.new_code_cell("orders = load_orders('2024-01', '2024-06')\norders.groupby('group').customer_id.nunique()")
    code.outputs = [v4.new_output("execute_result", {"text/plain": "group\nComparison    131500\nEngaged        48200"}, execution_count=1),
                    v4.new_output("display_data", {"image/png": "iVBORw0KGgo=", "text/plain": "<Figure>"})]
    cells.insert(3, code)
    nb = v4.new_notebook(cells=cells, metadata={"kernelspec": {"name": "python3", "language": "python", "display_name": "Python 3"}})
    return nbformat.writes(nb)


def as_docx(markdown: str, path: Path) -> Path:
    """A Word file written with python-docx: heading styles, list paragraphs, a real table."""
    docx = pytest.importorskip("docx")
    document = docx.Document()
    tokens = MarkdownIt("commonmark").enable("table").parse(markdown)
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok.type == "heading_open":
            document.add_heading(tokens[i + 1].content, level=int(tok.tag[1]))
            i += 3
        elif tok.type == "table_open":
            rows, row = [], None
            while tokens[i].type != "table_close":
                if tokens[i].type == "tr_open":
                    row = []
                elif tokens[i].type == "inline":
                    row.append(tokens[i].content)
                elif tokens[i].type == "tr_close":
                    rows.append(row)
                i += 1
            table = document.add_table(rows=len(rows), cols=len(rows[0]))
            for r, cells in enumerate(rows):
                for c, text in enumerate(cells):
                    table.cell(r, c).text = text
            i += 1
        elif tok.type == "inline":
            in_list = tokens[i - 2].type == "list_item_open"
            document.add_paragraph(tok.content, style="List Bullet" if in_list else None)
            i += 1
        else:
            i += 1
    document.save(str(path))
    return path


def findings_of(log, sample_id):
    review = reviews(log)[sample_id]
    return sorted((f.lens, f.severity.value, f.title) for f in review.findings), review


@pytest.fixture(scope="module")
def four_formats(tmp_path_factory):
    folder = tmp_path_factory.mktemp("formats")
    (folder / "analysis.md").write_text(ANALYSIS, encoding="utf-8")
    (folder / "analysis-html.html").write_text(as_html(ANALYSIS), encoding="utf-8")
    (folder / "analysis-notebook.ipynb").write_text(as_notebook(ANALYSIS), encoding="utf-8")
    as_docx(ANALYSIS, folder / "analysis-word.docx")
    log = run(tmp_path_factory.mktemp("logs"), document=str(folder))
    assert log.status == "success"
    return log


@pytest.mark.parametrize("sample_id", ["analysis-html", "analysis-notebook", "analysis-word"])
def test_other_formats_get_the_same_findings_as_markdown(four_formats, sample_id):
    expected, markdown_review = findings_of(four_formats, "analysis")
    assert ("structure", "CRITICAL", "No TL;DR up front") in expected  # the analysis has real issues
    assert ("methodology", "MAJOR", "Self-selected group compared without addressing bias") in expected
    got, review = findings_of(four_formats, sample_id)
    assert got == expected
    assert review.final_score == markdown_review.final_score
    assert review.verdict == markdown_review.verdict


def test_line_references_point_back_into_the_original(four_formats):
    locations = {sid: {f.title: f.location for f in reviews(four_formats)[sid].findings}
                 for sid in ("analysis", "analysis-notebook", "analysis-word")}
    title = "Self-selected group compared without addressing bias"
    assert locations["analysis"][title] == "Section 'Results', line 22"  # markdown: its own lines
    assert locations["analysis-notebook"][title] == "Section 'Results', cell 5"
    assert locations["analysis-word"][title] == "Section 'Results'"  # no lines in Word: the section


# ------------------------------------------------------------------ formats, one by one


def test_notebook_conversion(tmp_path):
    path = tmp_path / "nb.ipynb"
    path.write_text(as_notebook(ANALYSIS), encoding="utf-8")
    doc = read_file(path)
    assert doc.format == "notebook" and doc.source_map.unit == "cell"
    assert "```python\norders = load_orders('2024-01', '2024-06')" in doc.markdown
    assert "```text\ngroup\nComparison    131500\nEngaged        48200\n```" in doc.markdown
    assert "[image: output of cell 4 (image/png)]" in doc.markdown
    assert doc.source_map.ref_for(1) == "cell 1"
    line = doc.markdown.split("\n").index("| Engaged | 48,200 | 34.1% |") + 1
    assert doc.source_map.ref_for(line) == "cell 5"


def test_long_code_cells_are_clipped(tmp_path):
    nbformat = pytest.importorskip("nbformat")
    cell = nbformat.v4.new_code_cell("\n".join(f"x{i} = {i}" for i in range(50)))
    path = tmp_path / "long.ipynb"
    path.write_text(nbformat.writes(nbformat.v4.new_notebook(cells=[cell])))
    markdown = read_file(path).markdown
    assert "x29 = 29\n... (20 more lines)\n```" in markdown and "x30" not in markdown


def test_docx_conversion(tmp_path):
    doc = read_file(as_docx(ANALYSIS, tmp_path / "a.docx"))
    assert doc.format == "docx" and doc.source_map.unit == "section"
    lines = doc.markdown.split("\n")
    assert lines[0] == "# Loyalty emails and repeat purchases"
    assert "- Engaged group: 48,200 customers" in lines
    assert "| Engaged | 48,200 | 34.1% |" in lines
    assert doc.source_map.ref_for(lines.index("| Engaged | 48,200 | 34.1% |") + 1) == "section 'Results'"


def test_docx_title_style_is_the_h1(tmp_path):
    docx = pytest.importorskip("docx")
    document = docx.Document()
    document.add_heading("Churn review", level=0)
    paragraph = document.add_paragraph()
    paragraph.add_run("Bottom line:").bold = True
    paragraph.add_run(" churn fell 0.4 points.")
    document.add_paragraph("First step", style="List Number")
    document.save(str(tmp_path / "t.docx"))
    assert read_file(tmp_path / "t.docx").markdown == (
        "# Churn review\n\n**Bottom line:** churn fell 0.4 points.\n\n1. First step\n")


def test_html_conversion_drops_scripts_and_notes_images(tmp_path):
    path = tmp_path / "page.htm"
    path.write_text("<html><head><title>Churn notes</title><script>var x = 1;</script></head><body>"
                    "<p>Churn fell to 2.1%.</p><img src='img/chart.png' alt='Churn by month'>"
                    "<img src='data:image/png;base64,AAAA'></body></html>")
    doc = read_file(path)
    assert doc.markdown == ("# Churn notes\n\nChurn fell to 2.1%.\n\n"
                            "[image: Churn by month][image: no description]\n")


def text_pdf(pages: list[list[str]]) -> bytes:
    """A small PDF with a real text layer (one Helvetica line per string), written by hand."""
    objs = [b"<< /Type /Catalog /Pages 2 0 R >>",
            f"<< /Type /Pages /Kids [{' '.join(f'{3 + 2 * i} 0 R' for i in range(len(pages)))}] /Count {len(pages)} >>".encode()]
    font = 3 + 2 * len(pages)
    for i, lines in enumerate(pages):
        stream = ("BT /F1 11 Tf 72 720 Td 14 TL " + " ".join(f"({line}) Tj T*" for line in lines) + " ET").encode()
        objs.append(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {4 + 2 * i} 0 R "
                    f"/Resources << /Font << /F1 {font} 0 R >> >> >>".encode())
        objs.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    objs.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    out, offsets = b"%PDF-1.4\n", []
    for number, obj in enumerate(objs, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + obj + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objs) + 1}\n0000000000 65535 f \n".encode() + b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    return out + f"trailer\n<< /Size {len(objs) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()


def test_pdf_with_a_text_layer(tmp_path):
    pytest.importorskip("pypdf")
    path = tmp_path / "report.pdf"
    path.write_bytes(text_pdf([
        ["Loyalty emails and repeat purchases", "Customers who opened the email repeat-purchased at 34.1% against 22.7%.",
         "We recommend extending the email to the app audience next quarter."],
        ["Limitations", "The groups are self-selected, so the difference is not the effect of the email alone."],
    ]))
    doc = read_file(path)
    lines = doc.markdown.split("\n")
    assert lines[0] == "Loyalty emails and repeat purchases"
    assert doc.source_map.ref_for(lines.index("Limitations") + 1) == "page 2"
    assert doc.source_map.ref_for(2) == "page 1"
    assert doc.warnings == [f"{path} is a PDF: its text was extracted without headings or tables, so structure "
                            "findings are less reliable. Export it as markdown for the best review."]


def test_pdf_without_text_is_a_clear_message(tmp_path):
    pypdf = pytest.importorskip("pypdf")
    writer = pypdf.PdfWriter()
    writer.add_blank_page(width=200, height=200)
    path = tmp_path / "scan.pdf"
    with path.open("wb") as fh:
        writer.write(fh)
    with pytest.raises(DocumentError) as info:
        read_file(path)
    assert str(info.value) == (f"{path} has no usable text layer (0 words on 1 page(s)): export the "
                               "document as markdown (or .docx) and review that")


@pytest.mark.parametrize("module, name, data, what", [
    ("nbformat", "x.ipynb", json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}), "notebooks"),
    ("mammoth", "x.docx", "PK not really a zip", "Word files"),
    ("bs4", "x.html", "<html><body><p>Hello</p></body></html>", "HTML"),
])
def test_missing_converter_names_the_file_and_the_extra(tmp_path, monkeypatch, module, name, data, what):
    """The file that needed the optional package is named first (the message named only the package)."""
    monkeypatch.setitem(sys.modules, module, None)  # as if it were not installed
    path = tmp_path / name
    path.write_text(data)
    with pytest.raises(DocumentError) as info:
        read_file(path)
    assert str(info.value) == (f"{path}: Reading {what} needs the optional 'documents' extra ({module} is not "
                               'installed): pip install -e ".[documents]"')


# ------------------------------------------------------------------ encodings


@pytest.mark.parametrize(
    "data, text",
    [
        ("# Café\n\nTexte accentué.\n".encode("utf-8"), "# Café\n\nTexte accentué.\n"),
        ("\ufeff# Café\n".encode("utf-8"), "# Café\n"),
        ("# Café — 2 €\n".encode("utf-16"), "# Café — 2 €\n"),
        ("# Café — 2 €\n".encode("utf-16-be").join([b"\xfe\xff", b""]), "# Café — 2 €\n"),
    ],
)
def test_unicode_encodings_are_read_without_warning(data, text):
    assert decode(data, "x.md") == (text, [])


@pytest.mark.parametrize("text, encoding, name", [
    ("Анализ удержания клиентов: рост на 2,1 процента за квартал, выборка 12 000 пользователей.\n", "cp1251", "Windows-1251"),
    ("Analiza: wzrost o 2,1% w śródmieściu, zażółć gęślą jaźń.\n", "cp1250", "Windows-1250"),
])
def test_other_legacy_code_pages(text, encoding, name):
    decoded, [warning] = decode(text.encode(encoding), "x.md")
    assert decoded == text and f"read it as {name} (detected)" in warning


def test_windows_1252_is_detected_and_named():
    text = "# Loyalty “results”\n\nThe café segment grew 2.1% — about €40k a month.\n"
    decoded, warnings = decode(text.encode("cp1252"), "notes.md")
    assert decoded == text
    assert warnings == ["notes.md is not UTF-8: read it as Windows-1252 (detected). Check that accented "
                        "letters and symbols in quotes read right, or save the file as UTF-8."]


# ------------------------------------------------------------------ folders and source maps


def test_folder_reads_every_supported_file(tmp_path):
    (tmp_path / "a.md").write_text("# A\n\nText.\n")
    (tmp_path / "b.txt").write_text("Plain notes.\n")
    (tmp_path / "c.html").write_text("<h1>C</h1><p>Text.</p>")
    (tmp_path / "data.csv").write_text("a,b\n")
    (tmp_path / "chart.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00")
    (tmp_path / "broken.md").write_bytes(b"\x00\x01\x02" * 100)
    (tmp_path / ".hidden.md").write_text("# hidden\n")
    (tmp_path / "sub").mkdir()
    result = load(str(tmp_path))
    assert [d.name for d in result.documents] == ["a", "b", "c"]
    assert result.failures == {str(tmp_path / "broken.md"): f"{tmp_path / 'broken.md'} is not a text file"}
    [warning] = result.warnings
    assert warning.startswith(f"{tmp_path}: 2 file(s) of unsupported formats not reviewed: chart.png, data.csv (supported: ")


def test_folder_where_every_file_fails(tmp_path):
    (tmp_path / "a.md").write_bytes(b"")
    (tmp_path / "b.md").write_bytes(b"\x00" * 10)
    with pytest.raises(DocumentError) as info:
        load(str(tmp_path))
    assert str(info.value) == f"{tmp_path}: no file could be read (2 failed; e.g. {tmp_path / 'a.md'} is empty)"


def test_source_map_relabels_line_references():
    sm = SourceMap(origin="x.ipynb", unit="cell", identity=False,
                   entries=[MapEntry(start=1, end=4, ref="cell 1"), MapEntry(start=6, end=9, ref="cell 3")])
    assert sm.relabel("Results, line 7") == "Results, cell 3"
    assert sm.relabel("lines 2-8") == "cell 1 to cell 3"
    assert sm.relabel("line 5") == "cell 1"  # a blank line between cells belongs to the one before
    assert sm.relabel("whole document") == "whole document"
    assert SourceMap(origin="a.md").relabel("line 7") == "line 7"
    sections = SourceMap(origin="x.docx", unit="section", identity=False,
                         entries=[MapEntry(start=1, end=9, ref="section 'Results'")])
    assert sections.relabel("Section 'Results', line 7") == "Section 'Results'"
    assert sections.relabel("Section 'Results' (line 7)") == "Section 'Results'"
    assert sections.relabel("Results table (line 7)") == "Results table (section 'Results')"
    assert sections.relabel("Heading at line 3") == "Heading at section 'Results'"


# ------------------------------------------------------------------ the design kind reads through the same layer


def test_design_review_of_an_html_design_and_legacy_requirements(tmp_path):
    from test_design_review import reviews_of
    from test_design_review import run as design_run

    case = Path(__file__).parent.parent / "fixtures" / "design" / "billing-export"
    design = tmp_path / "design.html"
    design.write_text(as_html((case / "design.md").read_text(encoding="utf-8")), encoding="utf-8")
    requirements = tmp_path / "requirements.md"
    requirements.write_bytes((case / "requirements.md").read_text(encoding="utf-8").replace("'", "’").encode("cp1252"))
    log = design_run(tmp_path / "logs", design=str(design), requirements=str(requirements), topic="billing")
    assert log.status == "success"
    review = reviews_of(log)["billing"]
    assert review.status == "complete" and review.findings
    assert any(w.startswith(f"{requirements} is not UTF-8: read it as Windows-1252") for w in review.warnings)
