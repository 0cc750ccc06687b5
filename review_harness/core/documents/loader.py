"""The one entry point: a path, folder, URL or page id -> prepared markdown documents."""

from __future__ import annotations

import errno
import os
import re
from pathlib import Path
from urllib.parse import unquote, urlparse
from urllib.request import url2pathname

from review_harness.core.documents import confluence, convert
from review_harness.core.documents.encoding import decode
from review_harness.core.documents.model import Document, DocumentError, FolderResult, MissingExtra, SourceMap, safe_text
from review_harness.core.files import FileReadError, read_bytes, special_file, tool_outputs
from review_harness.core.text import invisible_warning, visible_text

FORMATS: dict[str, str] = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".txt": "text",
    ".ipynb": "notebook",
    ".docx": "docx",
    ".html": "html",
    ".htm": "html",
    ".xhtml": "html",
    ".pdf": "pdf",
    ".xml": "confluence-storage",  # a page's storage format, saved from the REST API or the editor
}


def _visible(origin: str, text: str, warnings: list[str]) -> str:
    """The text as a reader sees it (core.text.visible_text: invisible characters out, look-alike
    letters plain; line breaks stay, so every line number is the original's), with a warning
    naming what was changed. Every kind's documents pass here before anything reads them."""
    cleaned, counts = visible_text(text)
    warning = invisible_warning(counts, origin)
    if warning:
        warnings.append(warning)
    return cleaned


def _markdown_document(origin: str, name: str, fmt: str, text: str, warnings: list[str]) -> Document:
    text = _visible(origin, text, warnings)
    if not text.strip():
        raise DocumentError(f"{origin} is empty")
    return Document(origin=origin, name=name, format=fmt, markdown=text.replace("\r\n", "\n").replace("\r", "\n"),
                    source_map=SourceMap(origin=origin), warnings=warnings)


def _converted(origin: str, name: str, fmt: str, markdown: str, warnings: list[str],
               source_map: SourceMap | None = None) -> Document:
    markdown = _visible(origin, markdown, warnings)
    if not markdown.strip():
        raise DocumentError(f"{origin} is empty: the {fmt} file has no text to review")
    source_map = source_map or convert.section_map(markdown, origin)
    source_map.collapsed = convert.collapsed_spans(markdown)
    return Document(origin=origin, name=name, format=fmt, markdown=markdown, source_map=source_map,
                    warnings=warnings)


def broken_link(path: Path) -> str | None:
    """'a looping symbolic link' or 'a broken symbolic link' when `path` is a link that leads
    nowhere, else None."""
    if not path.is_symlink():
        return None
    try:
        os.stat(path)
    except OSError as exc:
        return "a looping symbolic link" if exc.errno == errno.ELOOP else "a broken symbolic link"
    return None


def read_file(path: Path, origin: str | None = None) -> Document:
    """One file of any supported format (an unknown suffix is read as text). A name that is not
    UTF-8 is shown escaped (the file is read all the same), with a warning."""
    origin = safe_text(origin or str(path))
    link = broken_link(path)
    if link:
        raise DocumentError(f"{origin} is {link}: it leads to no file")
    document = _read_file(path, origin)
    if safe_text(path.name) != path.name:
        document.warnings.insert(0, f"{origin}: the file name is not valid UTF-8; it is shown with the odd bytes escaped")
    return document


def _read_file(path: Path, origin: str) -> Document:
    if not path.exists():
        raise DocumentError(f"{origin} does not exist")
    if path.is_dir():
        raise DocumentError(f"{origin} is a directory, not a document")
    try:
        data = read_bytes(path, origin)  # the core's one reader: a named pipe is named, never opened
    except FileReadError as exc:
        raise DocumentError(f"{origin} {exc.problem}") from None
    try:
        return _convert(path, origin, data)
    except MissingExtra as ex:  # which file needed it, then which extra installs it
        raise DocumentError(f"{origin}: {ex}") from None
    except RecursionError:  # markup nested thousands of levels deep (e.g. <div> in <div> ...)
        raise DocumentError(f"{origin} is nested too deeply to read (elements inside each other hundreds of "
                            "levels deep): flatten it, or export the document as markdown") from None


def _convert(path: Path, origin: str, data: bytes) -> Document:
    fmt = FORMATS.get(path.suffix.lower(), "text")
    name = safe_text(path.stem)
    if not data.strip():
        raise DocumentError(f"{origin} is empty")
    if fmt == "docx":
        html, warnings = convert.docx_to_html(data, origin)
        return _converted(origin, name, fmt, convert.html_to_markdown(html), warnings)
    if fmt == "pdf":
        markdown, source_map, warnings = convert.pdf_to_markdown(data, origin, origin)
        return _converted(origin, name, fmt, markdown, warnings, source_map)
    text, warnings = decode(data, origin)
    if fmt == "notebook":
        markdown, source_map = convert.notebook_to_markdown(text, origin, origin)
        return _converted(origin, name, fmt, markdown, warnings, source_map)
    if fmt == "confluence-storage" and not confluence.looks_like_storage(text):
        raise DocumentError(f"{origin} is not a Confluence storage-format export (no ac: macros or links)")
    if fmt in ("html", "confluence-storage") or (fmt == "text" and confluence.looks_like_storage(text)):
        if confluence.looks_like_storage(text):
            markdown, _ = confluence.storage_to_markdown(text)
            warnings += confluence.draft_warning(origin, confluence.statuses(text))
            return _converted(origin, name, "confluence-storage", markdown, warnings)
        return _converted(origin, name, fmt, convert.html_to_markdown(text), warnings)
    return _markdown_document(origin, name, fmt, text, warnings)


def read_confluence(document: str, site: str | None = None, comments: bool = False) -> Document:
    ref = confluence.page_ref(document, site)
    try:
        page, found = confluence.fetch_page(ref, comments=comments)
        markdown, collapsed = confluence.convert_page(page, found)
    except MissingExtra as ex:  # which page needed it, then which extra installs it
        raise DocumentError(f"{ref.label}: {ex}") from None
    found_warnings: list[str] = []
    markdown = _visible(ref.label, markdown, found_warnings)
    source_map = convert.section_map(markdown, ref.given)
    source_map.collapsed = collapsed
    metadata = confluence.page_metadata(page)
    metadata["url"] = ref.given
    warnings = found_warnings + confluence.draft_warning(ref.label, metadata["status"])
    if metadata["child_pages"]:
        warnings.append(f"{ref.label} has {len(metadata['child_pages'])} child page(s): only this page is reviewed.")
    return Document(origin=ref.given, name=f"confluence-{ref.page_id}", format="confluence", markdown=markdown,
                    source_map=source_map, warnings=warnings, metadata=metadata)


def is_remote(document: str) -> bool:
    return confluence.is_url(document)


def read_folder(path: Path, origin: str | None = None) -> FolderResult:
    """Every supported file of a folder (not recursive, sorted). Unsupported files are named in
    one warning; a file that cannot be read is a failure with its reason, the rest go on."""
    origin = safe_text(origin or str(path))
    result = FolderResult()
    skipped = []
    links: list[str] = []
    special: list[str] = []
    try:
        children = sorted(path.iterdir())
    except OSError as exc:
        raise DocumentError(f"{origin} cannot be read: {exc.strerror or exc}") from None
    own = tool_outputs(path)  # reviews written here by earlier runs are no documents
    outputs: list[str] = []
    for child in children:
        if child.name.startswith("."):
            continue
        if child.name in own:
            outputs.append(safe_text(child.name))
            continue
        link = broken_link(child)
        if link:
            links.append(f"{safe_text(child.name)} ({link.removeprefix('a ')})")
            continue
        what = special_file(child)
        if what is not None:
            special.append(f"{safe_text(child.name)} ({what})")
            continue
        if not child.is_file():
            continue
        if child.suffix.lower() not in FORMATS:
            skipped.append(safe_text(child.name))
            continue
        try:
            result.documents.append(read_file(child))
        except DocumentError as exc:
            result.failures[safe_text(str(child))] = str(exc)
    if links:
        result.warnings.append(f"{origin}: skipped {len(links)} link(s) that lead to no file: {', '.join(links)}")
    if outputs:
        result.warnings.append(f"{origin}: skipped {len(outputs)} file(s) review-harness wrote there (earlier "
                               f"outputs, not documents): {', '.join(outputs)}")
    if special:
        result.warnings.append(f"{origin}: skipped {len(special)} item(s) that are no regular files (nothing was read "
                               f"from them): {', '.join(special)}")
    if skipped:
        result.warnings.append(
            f"{origin}: {len(skipped)} file(s) of unsupported formats not reviewed: {', '.join(skipped)} "
            f"(supported: {', '.join(sorted(set(FORMATS)))})"
        )
    if not result.documents and not result.failures:
        if links:
            raise DocumentError(f"{origin}: every file in it is a symbolic link that leads to no file "
                                f"({', '.join(links[:5])}{', ...' if len(links) > 5 else ''})")
        if special:
            raise DocumentError(f"{origin}: it holds no regular file, only {', '.join(special[:5])}"
                                f"{', ...' if len(special) > 5 else ''}")
        raise DocumentError(f"{origin} contains no supported documents ({', '.join(sorted(set(FORMATS)))})")
    if not result.documents:
        first = next(iter(result.failures.values()))
        raise DocumentError(f"{origin}: no file could be read ({len(result.failures)} failed; e.g. {first})")
    return result


SCHEME = re.compile(r"^(?P<scheme>[A-Za-z][A-Za-z0-9+.-]+)://")


def file_url_path(document: str) -> Path | None:
    """The local path of a file:// URL (None for anything else); any other scheme but http(s) is
    a one-line error naming it."""
    m = SCHEME.match(document.strip())
    if m is None or m.group("scheme").lower() in ("http", "https"):
        return None
    scheme = m.group("scheme").lower()
    if scheme != "file":
        raise DocumentError(f"{safe_text(document.strip())}: {scheme}:// addresses are not supported; give a local file "
                            "or folder, a file:// URL, or a Confluence page's http(s) URL")
    parsed = urlparse(document.strip())
    if parsed.netloc not in ("", "localhost"):
        raise DocumentError(f"{document.strip()}: a file:// URL must name a local file (file:///path), not a host")
    return Path(url2pathname(unquote(parsed.path)))


def load(document: str, *, resolved: Path | None = None, confluence_site: str | None = None,
         comments: bool = False) -> FolderResult:
    """What the user gave (`-T document=`): a file, a folder, a file:// URL, a Confluence URL, or a
    page id with `confluence_site`. `resolved` is the path as the task resolved it."""
    if is_remote(document):
        return FolderResult(documents=[read_confluence(document, confluence_site, comments)])
    local = file_url_path(document)
    path = local or resolved or Path(document)
    if not path.exists() and re.fullmatch(r"\d+", document.strip()):
        # a page id (the error says how to name the site when there is none)
        return FolderResult(documents=[read_confluence(document.strip(), confluence_site, comments)])
    if path.is_dir():
        return read_folder(path, str(path))
    return FolderResult(documents=[read_file(path, document.strip() if local else str(path))])
