"""Detectors of the communication dimension's conciseness lens: data dumps, leftover
placeholders, appendix material in the body, unclear visuals and polish.
"""

from __future__ import annotations

import re

from review_harness.ds.offline import lexicon as lx
from review_harness.ds.offline.checks.helpers import first_words, tldr_weakness, unmarked
from review_harness.ds.offline.purpose import DEMONSTRATION
from review_harness.ds.offline.registry import Context, Hit, rule
from review_harness.ds.offline.view import APPENDIX, RESULTS, SUMMARY, Sentence


@rule("data_dump")
def data_dump(ctx: Context) -> Hit | None:
    f = ctx.features
    v = ctx.view
    memo = ctx.memo.get("data_dump")
    if memo is not None:
        return memo or None
    table_rows = sum(1 for s in f.text_sentences if s.kind == "table")
    if v.is_extraction:
        tables = sum(1 for s in f.placeholders if s.text.startswith("[table"))
        tables = max(tables, len(re.findall(r"\[table\]", v.content)))
    else:
        tables = len(v.tables)
    prose_words = sum(len(s.text.split()) for s in f.prose if s.role not in ("meta",))
    numbers_total = sum(len(f.nums(s)) for s in f.text_sentences)
    interpret = len(f.interpretive)
    heavy = tables >= 5 or table_rows >= 30 or numbers_total >= 80
    per_table = prose_words / max(tables, 1)
    thin = interpret <= max(2, tables // 2) and per_table < 60
    hit = None
    if heavy and thin:
        first_table = next((s for s in f.text_sentences if s.kind == "table"), None) or next(iter(f.placeholders), None)
        intro = next(
            (s for s in f.prose if re.search(r"\b(tables? (?:below|above)|below (?:are|is)|the following tables?|see (?:the )?tables?)\b", s.text, re.I)),
            None,
        )
        target = intro or first_table
        hit = Hit(
            title="Tables and numbers without interpretation",
            issue=(
                f"The document presents {tables} tables ({table_rows} rows, about {numbers_total} numbers) with only "
                f"{interpret} sentence(s) that say what the numbers mean. The reader has to do the analysis themselves "
                f"and may pick the wrong takeaway."
            ),
            evidence=v.quote(target) if target else "",
            location=v.location(target),
            suggested_fix="Keep the two or three tables that carry the argument, put one sentence above each stating its takeaway, and move the rest to an appendix.",
            strength=2,
        )
    ctx.memo["data_dump"] = hit or False
    return hit


@rule("placeholder_left")
def placeholder_left(ctx: Context) -> Hit | None:
    v = ctx.view
    hits = [
        (s, m)
        for s in v.sentences
        if s.role not in ("meta", "structure") and s.kind != "placeholder"
        for m in [lx.PLACEHOLDER.search(s.text)]
        if m
    ]
    if not hits:
        return None
    s, m = hits[0]
    tokens = sorted({unmarked(m2.group(0)) for s2, _ in hits for m2 in lx.PLACEHOLDER.finditer(s2.text)})
    return Hit(
        title="Placeholders left in the text",
        issue=(
            f"The document still contains {len(hits)} unfinished placeholder(s) ({', '.join(tokens[:5])}). "
            f"Shared like this, readers see unfinished work and cannot tell which parts are final."
        ),
        evidence=v.quote(s, m),
        location=v.location(s),
        suggested_fix="Fill in or remove every TODO/TBD before sharing; if a part is genuinely pending, say so in one line with a date.",
    )


_REPRO = lx.rx(
    r"\b(for anyone who wants to reproduce|to reproduce (?:the|these|this)|for reproducibility|reproduction details?|"
    r"technical (?:note|details?)|implementation details?|for completeness|a note on how the data|how the data (?:were|was) (?:put together|built|assembled)|"
    r"pipeline details?|for the curious)\b"
)
_SNAKE = re.compile(r"\b[a-z]+_[a-z_]+\b")


def _method_heavy_opening(ctx: Context) -> Hit | None:
    """With no summary up front, pages of set-up detail come before the first result."""
    f = ctx.features
    v = ctx.view
    if v.tldr.found and tldr_weakness(ctx) is None:
        return None
    first = None
    for s in f.prose:
        if s.role in (SUMMARY, "title", "meta"):
            continue
        if lx.CI.search(s.text) or lx.POS_SIG.search(s.text) or (
            s.role == RESULTS and not s.guessed and any(n.notable for n in f.nums(s)) and lx.CHANGE_WORD.search(s.text)
        ):
            first = s
            break
    if first is None or first.pos < 0.4:
        return None
    before = [s for s in f.prose if s.line < first.line and s.role not in (SUMMARY, "title", "meta")]
    words = sum(len(s.text.split()) for s in before)
    detail = [
        s for s in before
        if lx.METHOD_SIGNAL.search(s.text) or lx.DESIGN.search(s.text) or lx.DS_JARGON.search(s.text)
        or _SNAKE.search(s.text) or lx.UNCERTAINTY.search(s.text)
    ]
    share = sum(len(s.text.split()) for s in detail) / max(words, 1)
    if words < 500 or share < 0.45:
        return None
    target = next((s for s in detail if _SNAKE.search(s.text)), detail[0])
    return Hit(
        title="Set-up detail comes before the result",
        issue=(
            f"About {words:,} words of design, data and instrumentation detail come before the first result "
            f"(\"{first_words(unmarked(first.text), 12)}\", {v.location(first)}). Most readers need the result first; the "
            f"mechanics belong in an appendix or a short method section."
        ),
        evidence=v.quote(target, _SNAKE.search(target.text)),
        location=v.location(target),
        suggested_fix="Keep a five-line method summary (design, population, metric, test) before the results and move assignment, instrumentation and QA detail to an appendix.",
    )


@rule("appendix_in_body")
def appendix_in_body(ctx: Context) -> Hit | None:
    v = ctx.view
    f = ctx.features
    if f.purpose.kind == DEMONSTRATION:
        return None  # a worked example's code and set-up are what it teaches, not detail to move away
    repro = next(((s, m) for s, m in v.find(_REPRO, f.prose) if s.role != APPENDIX), None)
    if repro is not None:
        s, m = repro
        return Hit(
            title="Reproduction detail sits in the main body",
            issue=(
                f"The passage starting \"{first_words(unmarked(s.text), 16)}\" is supporting detail for reproducing the numbers. "
                f"It sits in the main flow and slows readers who only need the findings."
            ),
            evidence=v.quote(s, m),
            location=v.location(s),
            suggested_fix="Move it to an appendix (or a linked notebook) and leave one sentence in the body saying where the detail lives.",
        )
    if v.is_extraction:
        return None
    opening = _method_heavy_opening(ctx)
    if opening is not None:
        return opening
    body_code = [(a, b) for a, b, role in v.code_blocks if role != APPENDIX]
    code_lines = sum(max(0, b - a - 1) for a, b in body_code)
    big_tables = [(start, rows, sec) for start, rows, sec, role in v.tables if role != APPENDIX and rows >= 16]
    if code_lines < 15 and not big_tables:
        return None
    if code_lines >= 15:
        # the longest block, quoted by its first line of code (the text after it is no evidence of code)
        a, b = max(body_code, key=lambda ab: ab[1] - ab[0])
        lines = v.content.split("\n")[a:max(a, b - 1)]
        evidence = next((ln.strip() for ln in lines if len(ln.strip()) >= 8 and not ln.strip().startswith(("```", "~~~"))), "")
        detail = f"{code_lines} lines of code/query"
        line = a
    else:
        line, rows, sec = big_tables[0]
        detail = f"a {rows}-row table" + (f" in '{sec}'" if sec else "")
        s = next((x for x in v.sentences if x.line == line), None)
        evidence = v.quote(s) if s else ""
    return Hit(
        title="Supporting detail sits in the main body",
        issue=(
            f"The main body carries {detail} at line {line}. It supports the analysis but slows the reader down before the "
            f"conclusion."
        ),
        evidence=evidence[:200],
        location=f"line {line}",
        suggested_fix="Move it to an appendix and keep a one-line summary (or the three rows that matter) in the body.",
    )


_CRYPTIC_CELL = re.compile(r"^(?:[A-Za-zΔδαβσμρ]|[a-z]+_[a-z_]+|[A-Z]_\w+|Δ\w*|d)$")


_INTRODUCES_VISUAL = lx.rx(r"\b(?:shows?|showed|shown|plotted|illustrat\w+|depict\w*|as (?:the|this) (?:chart|figure|plot|graph))\b")


@rule("visual_unclear")
def visual_unclear(ctx: Context) -> Hit | None:
    v = ctx.view
    f = ctx.features
    for line, alt, nxt in v.images:
        # an uncaptioned picture next to text that gives its numbers costs the reader little; one that
        # holds results the text never states is a problem
        near = [s for s in f.text_sentences if abs(s.line - line) <= 3]
        if not near or any(f.nums(s) for s in near) or all(s.role not in (RESULTS,) for s in near):
            continue
        if any(_INTRODUCES_VISUAL.search(s.text) for s in near if line - 3 <= s.line < line):
            continue  # the text just before says what it shows ("David shows that spaces go with higher salaries")
        if lx.UNCAPTIONED_ALT.match(alt.strip().lower()) and not re.match(r"^(?:\*|_|figure|fig\.|chart|source)", nxt, re.I):
            raw = v.content.split("\n")[line - 1].strip()
            return Hit(
                title="Chart without caption or takeaway",
                issue=f"The image at line {line} has no descriptive caption or stated takeaway, so the reader must guess what it shows and why it is there.",
                evidence=raw[:200] if len(raw.split()) <= 30 else "",
                location=f"line {line}",
                suggested_fix="Give each chart a title that states its takeaway, labelled axes with units, and one sentence below saying what to notice.",
            )
    for ph in f.placeholders:
        m = re.match(r"\[table:\s*(.*?)\]", ph.text)
        if m:
            cells = [c.strip() for c in m.group(1).split("|")]
            cryptic = [c for c in cells if c and _CRYPTIC_CELL.match(c)]
            if len(cryptic) >= 2:
                return Hit(
                    title="Table uses codes instead of labels",
                    issue=(
                        f"A table in {v.location(ph)} labels its columns with codes ({', '.join(cryptic[:5])}), so readers "
                        f"outside the team cannot read it unaided."
                    ),
                    evidence="",
                    location=v.location(ph),
                    suggested_fix="Use plain column names with units and add one line above the table saying what it shows.",
                )
    seen_tables = set()
    for s in f.text_sentences:
        if s.kind != "table":
            continue
        key = (s.section, s.line)
        prev_table = any((s.section, s.line - d) in seen_tables for d in (1, 2))
        seen_tables.add(key)
        if prev_table:
            continue  # only header rows
        cells = [c.strip().strip("*") for c in s.text.strip().strip("|").split("|")]
        cryptic = [c for c in cells if c and _CRYPTIC_CELL.match(c)]
        if len(cryptic) >= 2:
            return Hit(
                title="Table uses codes instead of labels",
                issue=(
                    f"The table at line {s.line} labels its columns with codes ({', '.join(cryptic[:5])}) and states no units or "
                    f"takeaway, so readers outside the team cannot read it unaided."
                ),
                evidence=v.quote(s),
                location=v.location(s),
                suggested_fix="Use plain column names with units and add one line above the table saying what it shows.",
            )
    return None


@rule("polish")
def polish(ctx: Context) -> Hit | None:
    f = ctx.features
    v = ctx.view
    problems: list[tuple[str, Sentence, re.Match[str]]] = []
    for s in f.prose:
        for pat, label in ((lx.TYPO, "typo"), (lx.BROKEN_REF, "broken reference")):
            m = pat.search(s.text)
            if m:
                problems.append((label, s, m))
        m = lx.REPEATED_WORD.search(s.text)
        # "estimand Estimand": a word ending one line (a heading, a printed label) and starting the next, not a slip
        starts_anew = m is not None and m.group(1)[0].islower() and m.group(0).split()[-1][0].isupper()
        if m and not starts_anew and m.group(1).lower() not in ("that", "had", "is", "very", "bye", "ha", "no", "so"):
            problems.append(("repeated word", s, m))
    if not problems:
        return None
    label, s, m = problems[0]
    return Hit(
        title="Typos or broken references",
        issue=f"There are {len(problems)} polish problem(s), e.g. a {label} (\"{m.group(0)}\"). Small slips make careful readers doubt the numbers too.",
        evidence=v.quote(s, m),
        location=v.location(s),
        suggested_fix="Run a spell-check and fix the flagged spots; check every cross-reference resolves.",
    )


@rule("text_for_reviewer")
def text_for_reviewer(ctx: Context) -> Hit | None:
    """Words addressed to a reviewer (instructions, a ready-made verdict, a reviewer's answer) left
    in the document. The rules read the document without them (voice.py), so they change no finding."""
    if not ctx.voice:
        return None
    first = ctx.voice[0]
    more = f" and {len(ctx.voice) - 1} more passage(s)" if len(ctx.voice) > 1 else ""
    return Hit(
        title="Text addressed to a reviewer left in the document",
        issue=(f"Line {first.start}{more} speak(s) to a reviewer or give the document its own verdict. Readers of the "
               "analysis do not need it, and a review reads it as text, not as evidence of what was done: it changes "
               "no finding."),
        suggested_fix="Delete the note to reviewers and any ready-made verdict; if a real review happened, link to it.",
        evidence=first.quote,
        location=f"line {first.start}",
    )
