"""How a kind's inputs are read for planting and how a planted copy is written into a gold set
(`<out>/fixtures/<kind>/`). A table names its layout; the core has three, a kind's plant module
may register more (code: a change between two trees).

- `document`: one document (markdown, or any format the input layer converts to markdown); a
  folder means each of its documents. A copy is `<case>.md`.
- `pair`: two documents reviewed together (design and requirements): a folder holding both
  files, a folder of such folders, or one document whose own goals or requirements sections are
  split out as the second file (`layout_options.split`: heading patterns). A copy is the folder
  `<case>/` with both files.
- `json`: one JSON file (an impact artifact); a folder means each `.json` in it. A copy is
  `<case>.json`, written with two-space indentation.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from review_harness.core.files import write_safe
from review_harness.core.markdown import parse_sections
from review_harness.core.plant.site import PlantError, PlantInput
from review_harness.core.plant.text import Lines, section_subtree

DOCUMENT_SUFFIXES = (".md", ".markdown", ".txt", ".rmd", ".ipynb", ".docx", ".html", ".htm")


@dataclass(frozen=True)
class Layout:
    name: str
    read: Callable[[Path, dict[str, Any]], list[PlantInput | tuple[str, str]]]  # inputs, or (path, why not)
    write: Callable[[PlantInput, dict[str, str], Path, str], str]  # -> the gold file's `fixture`


LAYOUTS: dict[str, Layout] = {}


def register_layout(layout: Layout) -> Layout:
    LAYOUTS[layout.name] = layout
    return layout


def get_layout(name: str) -> Layout:
    if name not in LAYOUTS:
        raise PlantError(f"unknown input layout '{name}' (known: {', '.join(sorted(LAYOUTS))})")
    return LAYOUTS[name]


def _stem(path: Path) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", path.stem).strip("-") or "input"


def _files(path: Path, suffixes: tuple[str, ...]) -> list[Path]:
    return sorted(p for p in path.iterdir() if p.is_file() and p.suffix.lower() in suffixes and not p.name.startswith("."))


# ---------------------------------------------------------------------------------- document


def _read_markdown(path: Path) -> str:
    from review_harness.core.documents import DocumentError, read_file

    try:
        return read_file(path).markdown
    except DocumentError as ex:
        raise PlantError(f"{path}: {ex}") from None


def _read_document(path: Path, options: dict[str, Any]) -> list[PlantInput | tuple[str, str]]:
    paths = [path] if path.is_file() else _files(path, DOCUMENT_SUFFIXES)
    out: list[PlantInput | tuple[str, str]] = []
    for file in paths:
        try:
            text = _read_markdown(file)
        except PlantError as ex:
            out.append((str(file), str(ex)))
            continue
        out.append(PlantInput(id=_stem(file), source=str(file), files={"document": text}, primary="document",
                              origin=file))
    return out


def _one_file(name: str, suffix: str) -> Callable[[PlantInput, dict[str, str], Path, str], str]:
    """The writer of a layout whose input is one file: `<case><suffix>` holding files[name]."""

    def write(item: PlantInput, files: dict[str, str], folder: Path, case: str) -> str:
        write_safe(folder / f"{case}{suffix}", files[name])
        return f"{case}{suffix}"

    return write


# ---------------------------------------------------------------------------------- pair


def split_document(text: str, patterns: list[str]) -> tuple[str, str] | None:
    """(the document without the sections whose heading matches one of `patterns`, those
    sections), or None when none matches. Each section goes with its subsections."""
    sections = parse_sections(text)
    spans: list[tuple[int, int]] = []
    for section in sections:
        if section.level and any(re.search(p, section.heading, re.I) for p in patterns):
            first, last = section_subtree(sections, section)
            if not spans or first > spans[-1][1]:
                spans.append((first, last))
    if not spans:
        return None
    lines = Lines(text)
    taken = "\n".join(text[lines.offset(a):lines.end_of(b)].rstrip("\n") for a, b in spans)
    kept, at = [], 0
    for a, b in spans:
        kept.append(text[at:lines.offset(a)])
        at = lines.end_of(b)
    kept.append(text[at:])
    rest = re.sub(r"\n{3,}", "\n\n", "".join(kept))
    return rest, taken.strip("\n") + "\n"


def _read_pair(path: Path, options: dict[str, Any]) -> list[PlantInput | tuple[str, str]]:
    names: list[str] = options.get("files", ["design", "requirements"])
    split: list[str] = options.get("split", [])
    first, second = names

    def one(folder: Path) -> PlantInput | tuple[str, str]:
        try:
            files = {n: _read_markdown(folder / f"{n}.md") for n in names}
        except PlantError as ex:
            return str(folder), str(ex)
        return PlantInput(id=_stem(folder) if folder.suffix == "" else folder.name, source=str(folder), files=files,
                          primary=first, origin=folder)

    if path.is_dir():
        if all((path / f"{n}.md").is_file() for n in names):
            return [one(path)]
        cases = sorted(p for p in path.iterdir() if p.is_dir() and all((p / f"{n}.md").is_file() for n in names))
        documents = [] if cases else _files(path, DOCUMENT_SUFFIXES)  # a folder of cases: its README is no input
        if not cases and not documents:
            return [(str(path), f"no {first}.md with {second}.md in it or in a subfolder, and no documents")]
        return [one(c) for c in cases] + [x for d in documents for x in _read_pair(d, options)]
    text = _read_markdown(path)
    parts = split_document(text, split)
    if parts is None and options.get("borrow"):
        # no goals of its own to split out: what it sets out to do (summary, motivation) is
        # copied as the requirements and stays in the design too
        borrowed = split_document(text, options["borrow"])
        parts = (text, borrowed[1]) if borrowed else None
    if parts is None:
        return [(str(path), f"one document, and none of its sections reads as its {second} "
                            f"(headings like {', '.join(s.strip('^(?i)') for s in split[:3])}); give a folder "
                            f"holding {first}.md and {second}.md")]
    rest, taken = parts
    return [PlantInput(id=_stem(path), source=str(path), files={first: rest, second: taken}, primary=first,
                       origin=path, extra={"split_from": str(path)})]


def _write_pair(item: PlantInput, files: dict[str, str], folder: Path, case: str) -> str:
    for name, text in files.items():
        write_safe(folder / case / f"{name}.md", text)
    return case


# ---------------------------------------------------------------------------------- json


def _read_json(path: Path, options: dict[str, Any]) -> list[PlantInput | tuple[str, str]]:
    paths = [path] if path.is_file() else _files(path, (".json",))
    out: list[PlantInput | tuple[str, str]] = []
    for file in paths:
        try:
            text = file.read_text(encoding="utf-8")
            data = json.loads(text)
        except (OSError, UnicodeDecodeError) as ex:
            out.append((str(file), f"{file}: cannot be read ({ex})"))
            continue
        except json.JSONDecodeError as ex:
            out.append((str(file), f"{file}: not JSON ({ex.msg} at line {ex.lineno})"))
            continue
        if not isinstance(data, dict):
            out.append((str(file), f"{file}: not a JSON object"))
            continue
        # one writing for the original and every copy: a planted value differs only where planted
        canonical = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        out.append(PlantInput(id=_stem(file), source=str(file), files={"artifact": canonical}, primary="artifact",
                              origin=file))
    return out


register_layout(Layout("document", _read_document, _one_file("document", ".md")))
register_layout(Layout("pair", _read_pair, _write_pair))
register_layout(Layout("json", _read_json, _one_file("artifact", ".json")))
