"""Converters from each file format to markdown, each with its source map.

HTML goes through markdownify, Word files through mammoth (docx -> HTML) and then the same HTML
path, notebooks through nbformat, PDF through pypdf. They are imported only when a file of
that format is read; missing ones name the extra that installs them.
"""

from __future__ import annotations

import io
import re
import zipfile

from review_harness.core.documents.model import Collapsed, DocumentError, MapEntry, SourceMap, require
from review_harness.core.markdown import parse_sections

NOTEBOOK_CODE_MAX_LINES = 30
NOTEBOOK_OUTPUT_MAX_LINES = 15
PDF_MIN_WORDS_PER_PAGE = 20
_BLANKS = re.compile(r"\n{3,}")


def tidy(markdown: str) -> str:
    lines = [line.rstrip() for line in markdown.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    return _BLANKS.sub("\n\n", "\n".join(lines)).strip("\n") + "\n"


def section_map(markdown: str, origin: str) -> SourceMap:
    """Formats without lines of their own: each prepared line points to the section it is in."""
    entries = []
    for section in parse_sections(markdown):
        ref = f"section '{section.heading}'" if section.heading else "the beginning (before the first heading)"
        entries.append(MapEntry(start=section.start_line, end=section.end_line, ref=ref))
    return SourceMap(origin=origin, unit="section", identity=False, entries=entries)


_DETAILS_OPEN = re.compile(r"^[>\s]*<details\b", re.IGNORECASE)
_DETAILS_CLOSE = re.compile(r"^[>\s]*</details>", re.IGNORECASE)
_SUMMARY = re.compile(r"<summary>(.*?)</summary>", re.IGNORECASE)


def collapsed_spans(markdown: str) -> list[Collapsed]:
    """The `<details>` blocks of a markdown text (outermost only), with their summaries."""
    spans: list[Collapsed] = []
    depth, start, title = 0, 0, ""
    lines = markdown.split("\n")
    for number, line in enumerate(lines, start=1):
        if _DETAILS_OPEN.match(line):
            if depth == 0:
                start = number
                found = _SUMMARY.search(line) or (_SUMMARY.search(lines[number]) if number < len(lines) else None)
                title = re.sub(r"\s*\(collapsed[^)]*\)$", "", found.group(1).strip()) if found else ""
            depth += 1
        elif _DETAILS_CLOSE.match(line) and depth:
            depth -= 1
            if depth == 0:
                spans.append(Collapsed(start=start, end=number, title=title))
    return spans


# ------------------------------------------------------------------------------ HTML


def _code_language(pre) -> str:
    code = pre.find("code")
    for tag in (code, pre):
        if tag is None:
            continue
        if tag.get("data-language"):
            return tag["data-language"]
        for cls in tag.get("class") or []:
            if cls.startswith(("language-", "lang-")):
                return cls.split("-", 1)[1]
    return ""


_OPEN = "\u27e6collapsed-open\u27e7"
_CLOSE = "\u27e6collapsed-close\u27e7"
_CONFLUENCE_PANEL = re.compile(r"^confluence-information-macro-(information|note|warning|tip|success)$")


def callout(soup, tag, kind: str, title: str, body) -> None:
    """Replace `tag` by a blockquote callout (`> [!INFO] title`) holding the children of `body`."""
    quote = soup.new_tag("blockquote")
    marker = soup.new_tag("p")
    marker.string = f"[!{'INFO' if kind == 'information' else kind.upper()}]" + (f" {title}" if title else "")
    quote.append(marker)
    if body is not None:
        for child in list(body.contents):
            quote.append(child.extract())
    tag.replace_with(quote)


def collapse(soup, tag, title: str, body) -> None:
    """Replace `tag` by the children of `body` between markers that become `<details>` lines."""
    wrapper = soup.new_tag("div")
    start = soup.new_tag("p")
    start.string = f"{_OPEN}{title}"
    wrapper.append(start)
    if body is not None:
        for child in list(body.contents):
            wrapper.append(child.extract())
    end = soup.new_tag("p")
    end.string = _CLOSE
    wrapper.append(end)
    tag.replace_with(wrapper)


def _details_lines(markdown: str) -> str:
    out: list[str] = []
    for line in markdown.split("\n"):
        bare = line.lstrip("> ").strip()
        prefix = line[: len(line) - len(line.lstrip("> "))]
        if bare.startswith(_OPEN):
            title = bare[len(_OPEN):].strip()
            out += [f"{prefix}<details>", f"{prefix}<summary>{title} (collapsed: expand macro)</summary>", prefix.rstrip()]
        elif bare == _CLOSE:
            out += [prefix.rstrip(), f"{prefix}</details>"]
        else:
            out.append(line)
    return "\n".join(out)


def _confluence_export(soup) -> None:
    """A page exported from Confluence as HTML: its panels, expand blocks and status lozenges."""
    for div in soup.find_all("div", class_="confluence-information-macro"):
        kind = next((m.group(1) for c in div.get("class", []) if (m := _CONFLUENCE_PANEL.match(c))), "info")
        title = div.find(class_="title")
        callout(soup, div, kind, title.get_text(" ", strip=True) if title else "",
                div.find(class_="confluence-information-macro-body"))
    for div in soup.find_all("div", class_="expand-container"):
        title = div.find(class_="expand-control-text")
        collapse(soup, div, title.get_text(" ", strip=True) if title else "Click here to expand...",
                 div.find(class_="expand-content"))
    for span in soup.find_all("span", class_="status-macro"):
        span.replace_with(f"[status: {span.get_text(' ', strip=True)}]")


def html_to_markdown(html: str) -> str:
    """HTML (a page, an export, mammoth's output) as markdown: ATX headings, '-' bullets,
    pipe tables, text left unescaped so quotes match the original words. Confluence's panels
    and expand blocks become callouts and `<details>`, as from the storage format."""
    bs4 = require("bs4", "Reading HTML")
    markdownify = require("markdownify", "Reading HTML")
    soup = bs4.BeautifulSoup(html, "html.parser")
    _confluence_export(soup)
    for tag in soup(["script", "style", "noscript", "template"]):
        tag.decompose()
    title = soup.title.get_text(" ", strip=True) if soup.title else ""
    if soup.head:
        soup.head.decompose()
    for img in soup.find_all("img"):
        alt = (img.get("alt") or img.get("title") or "").strip()
        src = img.get("src") or ""
        name = "" if src.startswith("data:") else src.rsplit("/", 1)[-1]
        img.replace_with(f"[image: {alt or name or 'no description'}]")
    body = markdownify.markdownify(
        str(soup),
        heading_style="ATX",
        bullets="-",
        escape_asterisks=False,
        escape_underscores=False,
        escape_misc=False,
        code_language_callback=_code_language,
    )
    body = tidy(_details_lines(body))
    if title and not re.search(r"^# ", body, re.MULTILINE):
        body = f"# {title}\n\n{body}"
    return body


# ------------------------------------------------------------------------------ Word


# Word's Title style is the document's H1 (mammoth's defaults map Heading 1-6 only)
DOCX_STYLE_MAP = "p[style-name='Title'] => h1:fresh\np[style-name='Subtitle'] => p:fresh"


def docx_to_html(data: bytes, name: str) -> tuple[str, list[str]]:
    mammoth = require("mammoth", "Reading Word files")
    try:
        result = mammoth.convert_to_html(
            io.BytesIO(data),
            style_map=DOCX_STYLE_MAP,
            convert_image=mammoth.images.img_element(lambda image: {"src": ""}),
        )
    except zipfile.BadZipFile:
        raise DocumentError(f"{name} is not a readable Word (.docx) file: not a zip archive") from None
    except (KeyError, ValueError, OSError) as exc:
        raise DocumentError(f"{name} is not a readable Word (.docx) file: {exc}") from None
    warnings = []
    dropped = [m.message for m in result.messages if m.type == "error"]
    if dropped:
        warnings.append(f"{name}: the Word converter reported {len(dropped)} problem(s), e.g. {dropped[0]}")
    return result.value, warnings


# ------------------------------------------------------------------------------ notebooks


def _source(cell) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else str(src)


def _clip(text: str, max_lines: int) -> str:
    lines = text.rstrip("\n").split("\n")
    if len(lines) <= max_lines:
        return "\n".join(lines)
    return "\n".join(lines[:max_lines] + [f"... ({len(lines) - max_lines} more lines)"])


def _outputs(cell, number: int) -> list[str]:
    out: list[str] = []
    for output in cell.get("outputs", []):
        kind = output.get("output_type")
        if kind == "stream":
            text = _source({"source": output.get("text", "")})
        elif kind in ("execute_result", "display_data"):
            data = output.get("data", {})
            for mime in data:
                if mime.startswith("image/"):
                    out.append(f"[image: output of cell {number} ({mime})]")
            text = _source({"source": data.get("text/plain", "")}) if not any(
                m.startswith("image/") for m in data) else ""
        elif kind == "error":
            out.append(f"[error in cell {number}: {output.get('ename', 'Error')}: {output.get('evalue', '')}]")
            continue
        else:
            continue
        if text.strip():
            out.append("```text\n" + _clip(text, NOTEBOOK_OUTPUT_MAX_LINES) + "\n```")
    return out


def notebook_to_markdown(text: str, name: str, origin: str) -> tuple[str, SourceMap]:
    """Markdown cells in order; code cells as their code (clipped) and the text of their
    outputs, figures noted. Each prepared line maps back to its cell."""
    nbformat = require("nbformat", "Reading notebooks")
    try:
        nb = nbformat.reads(text, as_version=4)
    except Exception as exc:  # nbformat raises json, validation and version errors alike
        raise DocumentError(f"{name} is not a readable Jupyter notebook: {str(exc).splitlines()[0]}") from None
    language = (nb.metadata.get("kernelspec", {}) or {}).get("language", "") or "python"
    parts: list[tuple[int, str]] = []
    for number, cell in enumerate(nb.cells, start=1):
        source = _source(cell).strip("\n")
        if cell.cell_type == "markdown":
            if source.strip():
                parts.append((number, source))
        elif cell.cell_type == "code":
            chunk = []
            if source.strip():
                chunk.append(f"```{language}\n{_clip(source, NOTEBOOK_CODE_MAX_LINES)}\n```")
            chunk += _outputs(cell, number)
            if chunk:
                parts.append((number, "\n\n".join(chunk)))
        elif source.strip():
            parts.append((number, source))
    if not parts:
        raise DocumentError(f"{name} is empty: the notebook has no markdown or code cells with text")
    lines: list[str] = []
    entries: list[MapEntry] = []
    for number, chunk in parts:
        if lines:
            lines.append("")
        start = len(lines) + 1
        lines += chunk.split("\n")
        entries.append(MapEntry(start=start, end=len(lines), ref=f"cell {number}"))
    return "\n".join(lines) + "\n", SourceMap(origin=origin, unit="cell", identity=False, entries=entries)


# ------------------------------------------------------------------------------ PDF


def pdf_to_markdown(data: bytes, name: str, origin: str) -> tuple[str, SourceMap, list[str]]:
    pypdf = require("pypdf", "Reading PDF files")
    try:
        reader = pypdf.PdfReader(io.BytesIO(data))
        pages = [page.extract_text() or "" for page in reader.pages]
    except Exception as exc:  # pypdf raises its own errors and plain ones for broken files
        raise DocumentError(f"{name} is not a readable PDF: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}") from None
    words = sum(len(p.split()) for p in pages)
    if not pages or words < PDF_MIN_WORDS_PER_PAGE * len(pages):
        raise DocumentError(
            f"{name} has no usable text layer ({words} words on {len(pages)} page(s)): export the "
            "document as markdown (or .docx) and review that"
        )
    lines: list[str] = []
    entries: list[MapEntry] = []
    for number, page in enumerate(pages, start=1):
        if lines:
            lines.append("")
        start = len(lines) + 1
        lines += tidy(page).rstrip("\n").split("\n")
        entries.append(MapEntry(start=start, end=len(lines), ref=f"page {number}"))
    warning = (f"{name} is a PDF: its text was extracted without headings or tables, so structure "
               "findings are less reliable. Export it as markdown for the best review.")
    return "\n".join(lines) + "\n", SourceMap(origin=origin, unit="page", identity=False, entries=entries), [warning]
