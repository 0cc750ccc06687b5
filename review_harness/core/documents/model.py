"""What the input layer hands to a review kind: prepared markdown, where each of its lines came
from in the original, and what the user should know about the conversion."""

from __future__ import annotations

import importlib
import re
from types import ModuleType
from typing import Any, Literal

from pydantic import BaseModel, Field

EXTRA = "documents"  # pip install -e ".[documents]"


class DocumentError(ValueError):
    """The input cannot be reviewed. The message is one line naming the input and the problem."""


def safe_text(text: str) -> str:
    """A file name or path fit for logs and messages: bytes that are not UTF-8 (Python keeps them
    as lone surrogates) are shown escaped, e.g. 'caf\\xe9.md' (a log cannot hold them as they are)."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


class MissingExtra(DocumentError):
    """An optional converter library is not installed (the reader of a file names the file)."""


def require(module: str, what: str) -> ModuleType:
    """Import an optional converter library, or say in one line which extra installs it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingExtra(
            f"{what} needs the optional '{EXTRA}' extra ({module} is not installed): "
            f'pip install -e ".[{EXTRA}]"'
        ) from None


class MapEntry(BaseModel):
    """Prepared lines start..end (1-based, inclusive) come from `ref` in the original."""

    start: int
    end: int
    ref: str


class Collapsed(BaseModel):
    """Prepared lines start..end hold content the original shows collapsed (an expand macro)."""

    start: int
    end: int
    title: str


_QUOTED = re.compile(r"'[^']+'")
_LINE_REF = re.compile(r"\b(lines?|L)\s?(\d+)(?:\s?(?:-|–|to)\s?(\d+))?", re.IGNORECASE)


class SourceMap(BaseModel):
    """From lines of the prepared markdown back to the original: its own lines where the format
    has them (markdown, text: `identity`), otherwise cells, sections or pages."""

    origin: str = Field(description="The original: a path, URL or page id.")
    unit: Literal["line", "cell", "section", "page"] = "line"
    identity: bool = True
    entries: list[MapEntry] = Field(default_factory=list)
    collapsed: list[Collapsed] = Field(default_factory=list)

    def ref_for(self, line: int) -> str:
        """Where prepared line `line` is in the original, e.g. 'line 12', 'cell 4', "section 'Results'"."""
        if self.identity:
            return f"line {line}"
        best: MapEntry | None = None
        for entry in self.entries:
            if entry.start <= line <= entry.end:
                return entry.ref
            if entry.start <= line:
                best = entry
        return best.ref if best else f"{self.unit} 1"

    def relabel(self, location: str) -> str:
        """Rewrite the line references in a finding's location so they point into the original."""
        if self.identity or not location:
            return location

        said = location.lower()

        def one(m: re.Match[str]) -> str:
            first = int(m.group(2))
            last = int(m.group(3)) if m.group(3) else first
            refs = list(dict.fromkeys(self.ref_for(n) for n in (first, last)))
            # "Section 'Results', line 22" needs no "section 'Results'" after it
            refs = [r for r in refs if not (_QUOTED.search(r) and _QUOTED.search(r).group(0).lower() in said)]
            return " to ".join(refs)

        relabelled = _LINE_REF.sub(one, location)
        relabelled = re.sub(r"\(\s*\)|\s*[,;:]\s*(?=$|[,;)])", "", relabelled).strip(" ,;:")
        return relabelled or location


class Document(BaseModel):
    """One input, ready for review."""

    origin: str = Field(description="What the user gave: a path, URL or page id.")
    name: str = Field(description="A short stable name (file stem, or page id and title).")
    format: str = Field(description="markdown, text, notebook, docx, html, pdf, confluence.")
    markdown: str
    source_map: SourceMap
    warnings: list[str] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)


class FolderResult(BaseModel):
    """Every supported file of a folder: the readable ones, and each unreadable one with its reason."""

    documents: list[Document] = Field(default_factory=list)
    failures: dict[str, str] = Field(default_factory=dict, description="path -> one-line reason")
    warnings: list[str] = Field(default_factory=list)
