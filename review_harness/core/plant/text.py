"""Planting in markdown documents, read with the core's markdown reader (sections, tables, text
units with their lines), never by raw string search alone.

The built-in way of an operator table: `find` text units (sentences of paragraphs, list items and
quotes, table rows, headings) matching a pattern, or sections whose heading matches, then
`delete` (the match, its sentence, its block, or the section with its subsections), `replace`
the match with a template, or `insert` a text after the unit (as a sentence of its paragraph, as
a new paragraph, or at the end of the section).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from review_harness.core.markdown import MdSection, parse_sections, read_document, section_at, sentences, subtree_end
from review_harness.core.plant.expr import ExpressionError, evaluate
from review_harness.core.plant.numbers import distinct_like, parse_number
from review_harness.core.plant.site import Edit, Site, apply_edits

QUOTE_MAX = 300


@dataclass(frozen=True)
class Unit:
    """A text unit with its place in the source: `start`/`end` are character offsets of `text`
    (one source line's part of the unit; a unit wrapped over lines gives one Unit per line, all
    with the same `sentence` span)."""

    kind: str
    text: str
    start: int
    end: int
    line: int
    sentence: tuple[int, int]  # the whole unit's span
    index: int  # the unit's number in the document


class Lines:
    """Character offsets of a text's lines."""

    def __init__(self, text: str):
        self.text = text
        self.starts = [0]
        for i, ch in enumerate(text):
            if ch == "\n":
                self.starts.append(i + 1)

    def offset(self, line: int) -> int:
        """Offset of the start of 1-based `line` (len(text) past the end)."""
        return self.starts[line - 1] if 0 < line <= len(self.starts) else len(self.text)

    def end_of(self, line: int) -> int:
        """Offset just after the newline ending `line` (or the end of the text)."""
        return self.starts[line] if line < len(self.starts) else len(self.text)

    def line_of(self, offset: int) -> int:
        return bisect_right(self.starts, offset)

    def line_text(self, line: int) -> str:
        return self.text[self.offset(line):self.end_of(line)].rstrip("\n")


def units(text: str) -> list[Unit]:
    """Every text unit of `text` as located pieces (headings, sentences, table rows, the header
    rows of tables too), in document order."""
    lines = Lines(text)
    out: list[Unit] = []
    for block in read_document(text).of_kind("table"):
        if block.rows:
            row = block.rows[0]
            raw = lines.line_text(row)
            start = lines.offset(row) + len(raw) - len(raw.lstrip())
            out.append(Unit("table", raw.strip(), start, start + len(raw.strip()), row, (start, start + len(raw.strip())), -1))
    for index, s in enumerate(sentences(text)):
        located = []
        for line, piece in (s.pieces or ((s.line, s.text),)):
            source = lines.line_text(line)
            at = source.find(piece)
            if at < 0:
                continue
            start = lines.offset(line) + at
            located.append((line, piece, start))
        if not located:
            continue
        span = (located[0][2], located[-1][2] + len(located[-1][1]))
        out += [Unit(s.kind, piece, start, start + len(piece), line, span, index) for line, piece, start in located]
    return sorted(out, key=lambda u: u.start)


def section_path(sections: list[MdSection], line: int) -> str:
    section = section_at(sections, line)
    return section.path if section else ""


def section_subtree(sections: list[MdSection], section: MdSection) -> tuple[int, int]:
    return section.start_line, subtree_end(sections, section)


def delete_lines(text: str, first: int, last: int) -> tuple[str, str]:
    """(text without lines first..last, the removed text); blank lines around the cut folded to one."""
    lines = Lines(text)
    start, end = lines.offset(first), lines.end_of(last)
    removed = text[start:end]
    before, after = text[:start], text[end:]
    if before.endswith("\n\n") and after.startswith("\n"):
        after = after.lstrip("\n")
        before = before.rstrip("\n") + "\n\n"
    return before + after, removed


def tidy_cut(text: str, start: int, end: int) -> Edit:
    """An edit removing text[start:end] and the space it leaves (no double spaces, no space
    before punctuation)."""
    before, after = text[:start], text[end:]
    if before.endswith(" ") and (after.startswith((" ", ".", ",", ";", ":", ")")) or after.startswith("\n") or not after):
        start -= 1
        while start > 0 and text[start - 1] == " ":
            start -= 1
    elif after.startswith(" ") and (not before or before.endswith(("\n", "("))):
        end += 1
    return Edit(start, end, "")


def window(text: str, start: int, end: int, limit: int = QUOTE_MAX) -> str:
    """A verbatim excerpt of `text` (one line) around start..end, at most about `limit` long."""
    if len(text) <= limit:
        return text.strip()
    centre = (start + end) // 2
    lo = max(0, min(centre - limit // 2, len(text) - limit))
    hi = min(len(text), lo + limit)
    if lo > 0:
        space = text.find(" ", lo)
        lo = space + 1 if 0 <= space < start else lo
    if hi < len(text):
        space = text.rfind(" ", lo, hi)
        hi = space if space > end else hi
    return text[lo:hi].strip()


def group_values(match: re.Match[str]) -> tuple[dict[str, Any], dict[str, str]]:
    """(values, as written) of a match's named groups: numbers as numbers."""
    values: dict[str, Any] = {}
    written: dict[str, str] = {}
    for name, raw in match.groupdict().items():
        if raw is None:
            continue
        written[name] = raw
        number = parse_number(raw)
        values[name] = number if number is not None else raw
    return values, written


class Shown:
    """A value in a template: `{name}` reads as a person writes it (no float noise), `{name:.1f}`
    formats it as asked."""

    def __init__(self, value: Any):
        self.value = value

    def __format__(self, spec: str) -> str:
        if spec:
            return format(self.value, spec)
        if isinstance(self.value, float):
            return f"{self.value:g}" if abs(self.value) >= 1e-4 or self.value == 0 else f"{self.value:.2g}"
        return str(self.value)


def fill(template: str, values: dict[str, Any], written: dict[str, str], match: str = "") -> str:
    """A template with {0} (the match) and {name} (a value as written, else the value)."""
    shown: dict[str, Any] = {k: Shown(v) for k, v in values.items()} | written
    try:
        return template.format(match, **shown)
    except (KeyError, IndexError) as ex:
        raise ExpressionError(f"template {template!r}: no value for {ex.args[0]}") from None
    except ValueError as ex:
        raise ExpressionError(f"template {template!r}: {ex}") from None


def computed(way_values: dict[str, str], like: dict[str, str], values: dict[str, Any],
             written: dict[str, str], rng) -> tuple[dict[str, Any], dict[str, str]]:
    """The way's `values` evaluated in order over the groups (and earlier values), each written
    like the group `like` names (and never reading as that group's own value)."""
    values, written = dict(values), dict(written)
    minus = "\u2212" if any("\u2212" in w for w in written.values()) else None
    for name, expression in way_values.items():
        value = evaluate(expression, values, rng)
        values[name] = value
        source = like.get(name)
        if source is not None and source in written and isinstance(value, (int, float)):
            written[name] = distinct_like(float(value), written[source], avoid=float(values[source]), minus=minus)
    return values, written


# ------------------------------------------------------------------------------------ find


@dataclass(frozen=True)
class Found:
    """A match of a way's find: a unit and the match in it, or a section."""

    unit: Unit | None = None
    match: re.Match[str] | None = None
    section: MdSection | None = None
    lines: tuple[int, int] = (0, 0)


def find_sites(text: str, find, scope_sections: list[MdSection] | None = None) -> Iterator[Found]:
    """The places of `text` a `Find` matches (in document order)."""
    sections = scope_sections if scope_sections is not None else parse_sections(text)
    total = max(1, text.count("\n") + 1)
    limit = find.first_part * total if find.first_part else None
    inside = re.compile(find.in_section, re.I) if find.in_section else None
    outside = re.compile(find.not_in_section, re.I) if find.not_in_section else None

    def placed(line: int) -> bool:
        """In the first part asked for, under a heading `in_section` matches (the nearest heading
        above the line) and not under one `not_in_section` matches."""
        if limit is not None and line > limit:
            return False
        section = section_at(sections, line)
        heading = section.heading if section else ""
        if inside is not None and not inside.search(heading):
            return False
        return not (outside is not None and outside.search(heading))

    if find.section is not None:
        heading = re.compile(find.section, re.I)
        for section in sections:
            if section.level and heading.search(section.heading) and placed(section.start_line):
                yield Found(section=section, lines=section_subtree(sections, section))
        return
    pattern = find.regex()
    for unit in units(text):
        if unit.kind not in find.units or not placed(unit.line):
            continue
        for match in pattern.finditer(unit.text):
            if find.where:
                values, _ = group_values(match)
                try:
                    if not evaluate(find.where, values):
                        continue
                except ExpressionError:
                    continue
            yield Found(unit=unit, match=match)


def block_lines(text: str, line: int) -> tuple[int, int]:
    """The lines of the block a unit's line belongs to: its list item, block quote (the
    outermost), table row, or paragraph."""
    doc = read_document(text)
    best = None
    for block in doc.blocks:
        if block.kind in ("list", "table", "html", "code", "hr"):
            continue
        if block.start_line <= line <= block.end_line:
            if block.kind == "blockquote" and block.depth == 0:
                return block.start_line, block.end_line
            if best is None or block.depth >= best.depth:
                best = block
    if best is None or best.kind == "heading":
        return line, line
    if best.kind == "paragraph" and best.container == "item":
        item = [b for b in doc.blocks if b.kind == "item" and b.start_line <= line <= b.end_line]
        if item:
            return item[-1].start_line, item[-1].end_line
    return best.start_line, best.end_line


# ------------------------------------------------------------------------------------ change


def builtin_sites(ctx) -> list[Site]:
    """The candidate mutations of a built-in way (`find` + `delete` / `replace` / `insert`)."""
    way, find = ctx.way, ctx.way.find
    target = find.target or ctx.target
    text = ctx.input.files[target]
    found = list(find_sites(text, find))
    if not found or (way.max_sites is not None and len(found) > way.max_sites):
        return []
    if way.scope == "all":
        if way.delete is None:
            raise ExpressionError("scope: all works with delete only")
        site = _delete_all(text, found, way.delete, target)
        if site is None:
            return []
        site.check = lambda files, f=find, t=target: (
            "the flaw's precondition still holds after the change (more of what was removed remains)"
            if any(True for _ in find_sites(files[t], f)) else None)
        return [site]
    sites = []
    for n, place in enumerate(found):
        rng = ctx.rng(n)
        try:
            if way.delete is not None:
                site = _delete_all(text, [place], way.delete, target)
            elif way.replace is not None:
                site = _replace(text, place, way, target, rng)
            else:
                site = _insert(text, place, way, target, rng)
        except ExpressionError:
            continue
        if site is not None:
            site.order = (place.lines[0] or (place.unit.start if place.unit else 0), n)
            sites.append(site)
    return sites


def _delete_all(text: str, found: list[Found], extent: str, target: str) -> Site | None:
    spans: list[tuple[int, int, str]] = []  # (start, end, 'cut'|'lines')
    lines = Lines(text)
    for place in found:
        if place.section is not None or extent in ("section", "block"):
            first, last = place.lines if place.section is not None else block_lines(text, place.unit.line)
            spans.append((lines.offset(first), lines.end_of(last), "lines"))
        elif extent == "sentence":
            spans.append((*place.unit.sentence, "cut"))
        else:
            spans.append((place.unit.start + place.match.start(), place.unit.start + place.match.end(), "cut"))
    spans.sort()
    kept: list[tuple[int, int, str]] = []
    for span in spans:  # nested or overlapping places: the outer one
        if kept and span[0] < kept[-1][1]:
            if span[1] > kept[-1][1]:
                kept[-1] = (kept[-1][0], span[1], kept[-1][2])
            continue
        kept.append(span)
    out = text
    removed = []
    for start, end, how in reversed(kept):
        removed.append(text[start:end].strip())
        if how == "lines":
            first, last = Lines(out).line_of(start), Lines(out).line_of(end - 1)
            out, _ = delete_lines(out, first, last)
        else:
            out = apply_edits(out, [tidy_cut(out, start, end)])
    if out == text:
        return None
    first_line = Lines(text).line_of(kept[0][0])
    where = _where(text, first_line)
    # what is left where a part of a sentence was cut is the evidence (the result now without it)
    evidence = ""
    if extent == "match" and found[0].unit is not None:
        evidence = window(Lines(out).line_text(found[0].unit.line), 0, 0)
    return Site(files={target: out}, removed=list(reversed(removed)), removed_file=target, evidence=evidence,
                evidence_file=target, line=first_line, where=where)


def _where(text: str, line: int) -> str:
    path = section_path(parse_sections(text), line)
    return f"line {line}" + (f" ({path})" if path else "")


def checked(way, values: dict[str, Any], written: dict[str, str]) -> bool:
    """The way's `check` over the values as they will be read (a value written like a group is
    read back from its writing, so rounding cannot undo the flaw)."""
    if not way.check:
        return True
    read = dict(values)
    for name in way.like:
        if name in written and parse_number(written[name]) is not None:
            read[name] = parse_number(written[name])
    return bool(evaluate(way.check, read))


def _replace(text: str, place: Found, way, target: str, rng) -> Site | None:
    unit, match = place.unit, place.match
    values, written = group_values(match)
    values, written = computed(way.values, way.like, values, written, rng)
    if not checked(way, values, written):
        return None
    new = fill(way.replace, values, written, match.group(0))
    if new == match.group(0):
        return None
    start, end = unit.start + match.start(), unit.start + match.end()
    out = text[:start] + new + text[end:]
    piece = unit.text[:match.start()] + new + unit.text[match.end():]
    evidence = window(piece, match.start(), match.start() + len(new))
    return Site(files={target: out}, planted=piece.strip(), planted_file=target, removed=[], evidence=evidence,
                evidence_file=target, line=unit.line, where=_where(text, unit.line),
                values=values | written)


def _insert(text: str, place: Found, way, target: str, rng) -> Site | None:
    values, written = group_values(place.match) if place.match is not None else ({}, {})
    values, written = computed(way.values, way.like, values, written, rng)
    if not checked(way, values, written):
        return None
    sentence = fill(rng.choice(way.insert), values, written, place.match.group(0) if place.match else "").strip()
    lines = Lines(text)
    if place.section is not None or way.at == "section_end":
        if place.section is not None:
            last = place.lines[1]
        else:
            owner = section_at(parse_sections(text), place.unit.line)
            last = owner.end_line if owner else len(lines.starts)
        while last > 1 and not lines.line_text(last).strip():
            last -= 1
        at = lines.end_of(last)
        body = text[:at] if text[:at].endswith("\n") else text[:at] + "\n"
        out = body + "\n" + sentence + "\n" + text[at:]
        line = Lines(out).line_of(len(body) + 1)
    elif way.at == "new_paragraph":
        _, last = block_lines(text, place.unit.line)
        at = lines.end_of(last)
        body = text[:at] if text[:at].endswith("\n") else text[:at] + "\n"
        out = body + "\n" + sentence + "\n" + text[at:]
        line = Lines(out).line_of(len(body) + 1)
    else:
        if place.unit.kind in ("table", "heading"):
            return None
        at = place.unit.sentence[1]
        out = text[:at] + " " + sentence + text[at:]
        line = Lines(out).line_of(at + 1)
    return Site(files={target: out}, planted=sentence, planted_file=target, evidence=window(sentence, 0, 0),
                evidence_file=target, line=line, where=_where(text, place.unit.line if place.unit else place.lines[0]),
                values=values | written)
