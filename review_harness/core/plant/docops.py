"""Mutators for markdown documents that a pattern cannot express: tables read as tables (a total
row or column, shares that make a whole, a column to remove) and the summary read against the
body (a number the summary repeats from the results).

- `table_total`: a table whose total (a row or a column labelled total, or shares adding to
  100%) agrees with its parts gets a total (or a share) that no longer does.
- `table_column`: every column whose header matches `args.header` is removed from every table.
- `summary_number`: a number the summary (a section near the top whose heading matches
  `args.summary`, or a paragraph opening with a label such as 'TL;DR:') shares with the body is
  changed in the summary only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from review_harness.core.markdown import parse_sections, plain, read_document
from review_harness.core.plant.mutators import register_mutator
from review_harness.core.plant.numbers import NUMBER_RE, distinct_like, how_written, numbers_in, parse_number
from review_harness.core.plant.site import Site
from review_harness.core.plant.text import Lines, section_subtree, units, window

TOTAL = re.compile(r"^\W*(grand total|total|overall|all|sum)\b", re.I)


@dataclass
class Cell:
    start: int  # offset in the line of the stripped content
    end: int
    text: str

    @property
    def value(self) -> float | None:
        raw = plain(self.text).replace("$", "").replace("\u00a3", "").replace("\u20ac", "").strip()
        return parse_number(raw) if raw and NUMBER_RE.fullmatch(raw) else None

    @property
    def percent(self) -> bool:
        return plain(self.text).strip().endswith("%")


def row_cells(line: str) -> list[Cell]:
    """The cells of a table row as written (pipes escaped with a backslash stay in a cell)."""
    bars = [i for i, ch in enumerate(line) if ch == "|" and (i == 0 or line[i - 1] != "\\")]
    if not bars:
        return []
    edges = bars[:]
    if line[:bars[0]].strip():
        edges = [-1] + edges
    if line[bars[-1] + 1:].strip():
        edges = edges + [len(line)]
    cells = []
    for a, b in zip(edges, edges[1:]):
        raw = line[a + 1:b]
        lead = len(raw) - len(raw.lstrip())
        content = raw.strip()
        cells.append(Cell(a + 1 + lead, a + 1 + lead + len(content), content))
    return cells


@dataclass
class Table:
    header: int  # line of the header row
    body: list[int]  # lines of the body rows
    separator: int | None


def tables(text: str) -> list[Table]:
    out = []
    lines = Lines(text)
    for block in read_document(text).of_kind("table"):
        if len(block.rows) < 2:
            continue
        header, body = block.rows[0], list(block.rows[1:])
        sep = header + 1 if re.fullmatch(r"\s*\|?\s*:?-{2,}.*", lines.line_text(header + 1)) else None
        out.append(Table(header, body, sep))
    return out


def _replaced(line: str, cell: Cell, new: str) -> str:
    return line[:cell.start] + new + line[cell.end:]


def _new_cell(cell: Cell, value: float, old: float) -> str:
    """The cell's text with its number replaced (emphasis and currency kept)."""
    match = NUMBER_RE.search(cell.text)
    assert match is not None
    written = distinct_like(value, match.group(0), avoid=old)
    return cell.text[:match.start()] + written + cell.text[match.end():]


def _site_for_row(ctx, text: str, line: int, new_line: str, what: str, values: dict) -> Site:
    lines = Lines(text)
    out = text[:lines.offset(line)] + new_line + text[lines.offset(line) + len(lines.line_text(line)):]
    return Site(files={ctx.target: out}, planted=new_line.strip(), planted_file=ctx.target,
                evidence=window(new_line.strip(), 0, 0), evidence_file=ctx.target, line=line,
                where=f"line {line}: {what}", values=values, order=(line,))


def _close(total: float, parts: list[float], decimals: int) -> bool:
    unit = 10 ** -decimals
    return abs(total - sum(parts)) <= 0.5 * unit * (len(parts) + 1) + 1e-9


@register_mutator("table_total")
def table_total(ctx) -> list[Site]:
    text = ctx.input.files[ctx.target]
    lines = Lines(text)
    sites: list[Site] = []
    for n, table in enumerate(tables(text)):
        rows = {ln: row_cells(lines.line_text(ln)) for ln in table.body}
        header = row_cells(lines.line_text(table.header))
        width = len(header)
        if width < 2 or any(len(c) != width for c in rows.values()):
            continue
        rng = ctx.rng(n)
        # a total row: each numeric column's total is the sum of the other rows
        for ln, cells in rows.items():
            if not TOTAL.search(plain(cells[0].text)):
                continue
            parts_rows = [r for r in rows if r != ln]
            for j in range(1, width):
                total = cells[j].value
                parts = [rows[r][j].value for r in parts_rows]
                if total is None or len(parts) < 2 or any(p is None for p in parts) or cells[j].percent:
                    continue
                if _close(total, parts, how_written(NUMBER_RE.search(cells[j].text).group(0)).decimals):
                    sign = rng.choice([-1, 1])
                    new_total = total * (1 + sign * rng.uniform(0.06, 0.18))
                    new = _replaced(lines.line_text(ln), cells[j], _new_cell(cells[j], new_total, total))
                    sites.append(_site_for_row(ctx, text, ln, new, f"total of {plain(header[j].text)}",
                                               {"column": plain(header[j].text), "label": plain(cells[0].text),
                                                "old": total, "new": new_total}))
        # a total column: each row's total is the sum of its other numeric cells
        for j, head in enumerate(header):
            if j == 0 or not TOTAL.search(plain(head.text)):
                continue
            for ln, cells in rows.items():
                total = cells[j].value
                parts = [c.value for k, c in enumerate(cells) if k not in (0, j)]
                if total is None or len(parts) < 2 or any(p is None for p in parts) \
                        or any(c.percent for k, c in enumerate(cells) if k != 0):
                    continue
                if _close(total, parts, how_written(NUMBER_RE.search(cells[j].text).group(0)).decimals):
                    new_total = total * (1 + rng.choice([-1, 1]) * rng.uniform(0.06, 0.18))
                    new = _replaced(lines.line_text(ln), cells[j], _new_cell(cells[j], new_total, total))
                    sites.append(_site_for_row(ctx, text, ln, new, f"total of {plain(cells[0].text)}",
                                               {"column": plain(head.text), "label": plain(cells[0].text),
                                                "old": total, "new": new_total}))
        # shares of a row that make a whole (100%)
        for ln, cells in rows.items():
            shares = [(k, c) for k, c in enumerate(cells) if k and c.percent and c.value is not None]
            if len(shares) < 2 or abs(sum(c.value for _, c in shares) - 100) > 0.05 * len(shares) + 0.01:
                continue
            k, cell = max(shares, key=lambda kc: (kc[1].value, -kc[0]))
            new_value = cell.value + rng.uniform(4, 9)
            new = _replaced(lines.line_text(ln), cell, _new_cell(cell, new_value, cell.value))
            sites.append(_site_for_row(ctx, text, ln, new, f"shares of {plain(cells[0].text)} no longer make 100%",
                                       {"column": plain(header[k].text), "label": plain(cells[0].text),
                                        "old": cell.value, "new": new_value}))
    return sites


@register_mutator("table_column")
def table_column(ctx) -> list[Site]:
    """Every column whose header matches `args.header` removed from every table (one site)."""
    text = ctx.input.files[ctx.target]
    pattern = re.compile(ctx.way.args["header"], re.I)
    lines = Lines(text)
    edits: dict[int, str] = {}
    first_header = None
    for table in tables(text):
        header = row_cells(lines.line_text(table.header))
        drop = [j for j, c in enumerate(header) if j and pattern.search(plain(c.text))]
        if not drop or len(header) - len(drop) < 2:
            continue
        for ln in [table.header, *([table.separator] if table.separator else []), *table.body]:
            line = lines.line_text(ln)
            cells = row_cells(line)
            if len(cells) != len(header):
                break
            kept = [c.text for j, c in enumerate(cells) if j not in drop]
            lead = "|" if line.lstrip().startswith("|") else ""
            edits[ln] = f"{lead} " + " | ".join(kept) + (" |" if line.rstrip().endswith("|") else "")
        else:
            first_header = first_header or table.header
    if not edits or first_header is None:
        return []
    out_lines = text.split("\n")
    removed = []
    for ln, new in edits.items():
        removed.append(out_lines[ln - 1].strip())
        out_lines[ln - 1] = new
    out = "\n".join(out_lines)
    return [Site(files={ctx.target: out}, removed=removed[:1], removed_file=ctx.target,
                 evidence=edits[first_header].strip(), evidence_file=ctx.target, line=first_header,
                 where=f"line {first_header}: column removed", order=(first_header,))]


def summary_spans(text: str, heading: str, label: str, first_part: float) -> list[tuple[int, int]]:
    """The line spans of the document's summary: sections near the top whose heading matches,
    and paragraphs or quotes near the top that open with a summary label."""
    limit = first_part * max(1, text.count("\n") + 1)
    sections = parse_sections(text)
    spans = [section_subtree(sections, s) for s in sections
             if s.level and s.start_line <= limit and re.search(heading, s.heading, re.I)]
    opener = re.compile(label, re.I)
    for block in read_document(text).blocks:
        if block.kind in ("paragraph", "blockquote") and block.start_line <= limit:
            first = Lines(text).line_text(block.start_line)
            if opener.search(plain(first).lstrip("> ")):
                spans.append((block.start_line, block.end_line))
    return spans


@register_mutator("summary_number")
def summary_number(ctx) -> list[Site]:
    args = ctx.way.args
    text = ctx.input.files[ctx.target]
    spans = summary_spans(text, args["summary"], args["label"], args.get("first_part", 0.5))
    if not spans:
        return []

    def in_summary(line: int) -> bool:
        return any(a <= line <= b for a, b in spans)

    body_numbers: set[str] = set()
    every: set[str] = set()
    for unit in units(text):
        for start, end, _ in numbers_in(unit.text):
            written = unit.text[start:end]
            every.add(written)
            if not in_summary(unit.line) and unit.kind != "heading":
                body_numbers.add(written)
    sites: list[Site] = []
    for n, unit in enumerate(u for u in units(text) if in_summary(u.line) and u.kind != "heading"):
        for start, end, value in numbers_in(unit.text):
            written = unit.text[start:end]
            if written not in body_numbers or not _telling(unit.text, start, end, value):
                continue
            rng = ctx.rng(n, start)
            new_value = value * (1 + rng.choice([-1, 1]) * rng.uniform(0.18, 0.4))
            new_written = distinct_like(new_value, written, avoid=value)
            if new_written in every or parse_number(new_written) == value:
                continue
            piece = unit.text[:start] + new_written + unit.text[end:]
            at = unit.start + start
            out = text[:at] + new_written + text[unit.start + end:]
            sites.append(Site(files={ctx.target: out}, planted=piece.strip(), planted_file=ctx.target,
                              evidence=window(piece, start, start + len(new_written)), evidence_file=ctx.target,
                              line=unit.line, where=f"line {unit.line}: {written} -> {new_written} in the summary",
                              values={"old": written, "new": new_written}, order=(unit.line, start)))
    return sites


MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
DATE_AFTER = re.compile(rf"^\s*(?:st|nd|rd|th)?\s+{MONTH}\b", re.I)
DATE_BEFORE = re.compile(rf"\b{MONTH}\s*$", re.I)
P_VALUE_BEFORE = re.compile(r"\bp\s*[=<>]\s*$", re.I)


def _telling(text: str, start: int, end: int, value: float) -> bool:
    """A number worth changing in a summary: a share, a decimal or a figure of two digits or
    more; not a year, a day of a date, or a p-value."""
    written = text[start:end]
    before, after = text[:start], text[end:]
    if DATE_AFTER.match(after) or DATE_BEFORE.search(before) or P_VALUE_BEFORE.search(before):
        return False
    if re.match(r"^\s*-?\s*(?:day|week|month|year|hour|minute)s?\b", after, re.I):
        return False  # a window or a period ('90-day retention'), not a result
    if written.endswith("%"):
        return value not in (0, 100)
    if "." in written or "," in written:
        return True
    return bool(re.search(r"[$\u00a3\u20ac]\s*$", before))  # an amount of money


# ---------------------------------------------------------------------------------- two documents


def _delete_units(text: str, lines_to_cut: list[tuple[int, int]], spans_to_cut: list[tuple[int, int]]) -> str:
    """`text` without the given line ranges (blocks, sections) and character spans (sentences)."""
    from review_harness.core.plant.site import apply_edits
    from review_harness.core.plant.text import delete_lines, tidy_cut

    lines = Lines(text)
    cuts = sorted([(lines.offset(a), lines.end_of(b), "lines") for a, b in lines_to_cut]
                  + [(a, b, "span") for a, b in spans_to_cut])
    kept: list[tuple[int, int, str]] = []
    for cut in cuts:
        if kept and cut[0] < kept[-1][1]:
            kept[-1] = (kept[-1][0], max(cut[1], kept[-1][1]), "lines" if "lines" in (cut[2], kept[-1][2]) else "span")
            continue
        kept.append(cut)
    out = text
    for start, end, how in reversed(kept):
        if how == "lines":
            out, _ = delete_lines(out, Lines(out).line_of(start), Lines(out).line_of(end - 1))
        else:
            out = apply_edits(out, [tidy_cut(out, start, end)])
    return out


def coverage(requirement: str, text: str) -> float:
    """Share of a requirement's subject words (stemmed) that `text` uses."""
    from review_harness.core.text import content_words

    wanted = content_words(requirement, min_length=4, stem=6)
    return len(wanted & content_words(text, min_length=4, stem=6)) / len(wanted) if wanted else 1.0


@register_mutator("untrace_requirement")
def untrace_requirement(ctx) -> list[Site]:
    """A requirement the design no longer addresses: every part of the design that cites the
    requirement's id (`args.ids`, a regex) goes (a sentence, a list item or table row, a section
    whose heading cites it). Honest only when the id is gone and the design no longer shares
    most of the requirement's subject words (`args.max_coverage`)."""
    from review_harness.core.plant.text import block_lines

    args = ctx.way.args
    design_name, requirements_name = ctx.target, args.get("requirements", "requirements")
    design, requirements = ctx.input.files[design_name], ctx.input.files.get(requirements_name, "")
    ids = re.compile(args["ids"])
    defined: dict[str, tuple[str, int]] = {}
    for unit in units(requirements):
        match = ids.search(unit.text)
        if match and match.start() < 12 and match.group(0) not in defined:  # the unit opens with the id
            defined[match.group(0)] = (unit.text, unit.line)
    sections = parse_sections(design)
    sites = []
    for n, (req_id, (sentence, line)) in enumerate(defined.items()):
        cite = re.compile(rf"(?<![\w-]){re.escape(req_id)}(?![\w-])")
        cut_lines: list[tuple[int, int]] = []
        cut_spans: list[tuple[int, int]] = []
        for unit in units(design):
            if not cite.search(unit.text):
                continue
            if unit.kind == "heading":
                section = next(s for s in sections if s.start_line == unit.line)
                cut_lines.append(section_subtree(sections, section))
            elif unit.kind in ("bullet", "table", "quote"):
                cut_lines.append(block_lines(design, unit.line) if unit.kind != "table" else (unit.line, unit.line))
            else:
                cut_spans.append(unit.sentence)
        if not cut_lines and not cut_spans or len(cut_lines) + len(cut_spans) > args.get("max_units", 8):
            continue
        out = _delete_units(design, cut_lines, cut_spans)
        if cite.search(out) or coverage(sentence, out) > args.get("max_coverage", 0.5):
            continue
        removed = [design[s:e] for s, e in cut_spans] + [Lines(design).line_text(a) for a, _ in cut_lines]
        sites.append(Site(files={design_name: out}, removed=[r.strip() for r in removed if r.strip()][:1],
                          removed_file=design_name, evidence=window(sentence, 0, 0), evidence_file=requirements_name,
                          line=line, where=f"{req_id}: {len(cut_lines) + len(cut_spans)} part(s) of the design removed",
                          values={"req_id": req_id, "requirement": sentence}, order=(line, n)))
    return sites


QUANTITY = r"(?P<num>(?<![\w.,])\d{1,3}(?:,\d{3})*(?:\.\d+)?|\d+(?:\.\d+)?)\s?(?P<unit>{units})\b"


@register_mutator("quantity_copy")
def quantity_copy(ctx) -> list[Site]:
    """Two statements with contradicting quantities: a sentence stating a quantity with its unit
    (`args.units`, a regex of unit words) is repeated in a later section with another number."""
    args = ctx.way.args
    text = ctx.input.files[ctx.target]
    pattern = re.compile(QUANTITY.replace("{units}", args["units"]), re.I)
    sections = [s for s in parse_sections(text) if s.level >= 2]
    sites = []
    for n, unit in enumerate(u for u in units(text) if u.kind in ("para", "bullet")):
        if unit.sentence[1] - unit.sentence[0] != len(unit.text) or not 40 <= len(unit.text) <= 260:
            continue  # one line, a sentence of a readable length
        match = pattern.search(unit.text)
        if not match:
            continue
        later = [s for s in sections if s.start_line > unit.line + 2]
        if not later:
            continue
        rng = ctx.rng(n)
        old = parse_number(match.group("num"))
        factor = rng.choice(args.get("factors", [2, 3, 5, 0.5]))
        new = old * factor
        if float(old).is_integer() and not float(new).is_integer():
            new = float(round(new)) or 1.0
        new_written = distinct_like(new, match.group("num"), avoid=old)
        copy = unit.text[:match.start("num")] + new_written + unit.text[match.end("num"):]
        copy = re.sub(r"^[-*+]\s+|^\d+[.)]\s+", "", copy).strip()
        if copy in text:
            continue
        section = rng.choice(later)
        first, last = section_subtree(sections, section)
        lines = Lines(text)
        while last > first and not lines.line_text(last).strip():
            last -= 1
        at = lines.end_of(last)
        body = text[:at] if text[:at].endswith("\n") else text[:at] + "\n"
        out = body + "\n" + copy + "\n" + text[at:]
        sites.append(Site(files={ctx.target: out}, planted=copy, planted_file=ctx.target, evidence=window(copy, 0, 0),
                          evidence_file=ctx.target, line=Lines(out).line_of(len(body) + 1),
                          where=f"line {unit.line} says {match.group(0)}; a copy in '{section.heading}' says "
                                f"{new_written} {match.group('unit')}",
                          values={"old": f"{match.group('num')} {match.group('unit')}",
                                  "new": f"{new_written} {match.group('unit')}", "original": unit.text.strip(),
                                  "section": section.heading}, order=(unit.line, n)))
    return sites
