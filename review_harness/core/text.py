"""Words, negation and sentences: the one text module every kind's rules and matchers use.

Kinds add their own vocabulary on top (`STOPWORDS | {...}`), never a list of their own.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache

# function words that carry no subject: dropped before words are compared
STOPWORDS = frozenset(
    """a an the and or but nor of to in on at by for with without from into onto over under about as is are was
    were be been being am do does did done doing have has had having it its it's this that these those there here
    their they them we our us you your i me my he she his her him not no yes so than then too very can cannot
    could would should shall must may might will just only also each every any all some such same other another
    more most less least few many much one two three which who whom whose what when where why how while if else
    because since until unless though although via per e.g i.e etc vs both either neither own up down out off
    again further once within across after before between through during above below against among around upon
    whether yet still even ever already always never""".split()
)

WORD = re.compile(r"[a-z0-9][a-z0-9'_-]*")

# ---------------------------------------------------------------------------- what a reader sees

# Characters a reader does not see split or reorder the words every rule and every model reads:
# the Unicode format characters (category Cf: zero-width spaces and joiners, the word joiner, the
# soft hyphen, a byte-order mark inside the text, the bidirectional controls). Forms that look
# like plain letters hide a word the same way: fullwidth letters, digits and signs, and the Latin
# ligatures (NFKC reads each as its plain letters; other compatibility forms, such as superscripts
# and fractions, keep their meaning and stay).
_INVISIBLE_NAMES = {"\u200b": "zero-width space", "\u200c": "zero-width non-joiner", "\u200d": "zero-width joiner",
                    "\u2060": "word joiner", "\ufeff": "zero-width no-break space", "\u00ad": "soft hyphen"}
_LOOKALIKE_NAMES = {"\uff01": "fullwidth character", "\ufb00": "ligature"}  # first code point of each range
_LOOKALIKES = "\uff01-\uff5e\ufb00-\ufb06"


@lru_cache(maxsize=1)
def _not_plain() -> re.Pattern[str]:
    """Every format character and look-alike form, as one character class of ranges (built once;
    a class of single characters made the search ten times slower)."""
    ranges: list[list[int]] = []
    for code in range(0x110000):
        if unicodedata.category(chr(code)) == "Cf":
            if ranges and ranges[-1][1] == code - 1:
                ranges[-1][1] = code
            else:
                ranges.append([code, code])
    spans = "".join(re.escape(chr(a)) if a == b else f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in ranges)
    return re.compile(f"[{spans}{_LOOKALIKES}]")


def _kind_of(ch: str) -> str:
    if "\uff01" <= ch <= "\uff5e":
        return _LOOKALIKE_NAMES["\uff01"]
    if "\ufb00" <= ch <= "\ufb06":
        return _LOOKALIKE_NAMES["\ufb00"]
    return _INVISIBLE_NAMES.get(ch, "bidirectional control" if 0x202A <= ord(ch) <= 0x2069 else "format character")


def visible_text(text: str) -> tuple[str, dict[str, int]]:
    """The text as a reader sees it, and what was changed, by kind: invisible characters
    removed, look-alike forms (fullwidth, ligatures) read as their plain letters. Line breaks
    and every other character stay, so line numbers and the rest of the text are the original's.
    Every kind's input goes through this before any reading (the core's document reader, and
    the core's file reader while a task reads its inputs)."""
    if text.isascii():
        return text, {}
    counts: dict[str, int] = {}

    def plain(match: re.Match[str]) -> str:
        ch = match.group()
        kind = _kind_of(ch)
        counts[kind] = counts.get(kind, 0) + 1
        return unicodedata.normalize("NFKC", ch) if kind in _LOOKALIKE_NAMES.values() else ""

    cleaned = _not_plain().sub(plain, text)
    return (cleaned, counts) if counts else (text, {})


def invisible_warning(counts: dict[str, int], subject: str = "The document") -> str | None:
    """What `visible_text` changed, in one sentence for the review's warnings (None: nothing)."""
    if not counts:
        return None
    hidden = {k: n for k, n in counts.items() if k not in _LOOKALIKE_NAMES.values()}
    alike = {k: n for k, n in counts.items() if k in _LOOKALIKE_NAMES.values()}

    def listed(found: dict[str, int]) -> str:
        return ", ".join(f"{n} {name}{'s' if n > 1 else ''}" for name, n in sorted(found.items(), key=lambda kv: -kv[1]))

    parts = []
    if hidden:
        total = sum(hidden.values())
        parts.append(f"{total} invisible character{'s' if total > 1 else ''} ({listed(hidden)}), removed")
    if alike:
        total = sum(alike.values())
        parts.append(f"{total} look-alike character{'s' if total > 1 else ''} ({listed(alike)}), read as plain letters")
    return (f"{subject} contains {' and '.join(parts)} before the review, so the reviewers read (and quote) the "
            "text as it displays.")


# a negation or rejection close before a term turns "we use X" into "we do not use X"
NEGATION = re.compile(
    r"\b(no|not|never|without|nor|neither|cannot|can'?t|won'?t|will not|don'?t|do not|doesn'?t|does not|didn'?t|"
    r"did not|isn'?t|aren'?t|wasn'?t|instead of|rather than|hold off|avoid\w*|rejected|out of scope|deferred)\b",
    re.IGNORECASE,
)

# a sentence ends at . ! or ? (after closing quotes, brackets or emphasis) before a capital or digit
SENTENCE_BOUNDARY = re.compile(r"(?<=[.!?])[\"'”’)\]*_]*\s+(?=[\"'“‘(\[*_$€£]?[A-Z0-9])")


def words(text: str) -> list[str]:
    """Lower-case words (letters, digits, inner apostrophes, hyphens and underscores)."""
    return WORD.findall(text.lower())


def content_words(text: str, *, extra_stop: Iterable[str] = (), min_length: int = 3, stem: int | None = None) -> set[str]:
    """The words of `text` that carry its subject: no stop words (plus `extra_stop`), none shorter
    than `min_length`; with `stem`, each cut to its first `stem` letters (so 'retries' meets
    'retry')."""
    stop = STOPWORDS | frozenset(extra_stop) if extra_stop else STOPWORDS
    kept = (w for w in words(text) if w not in stop and len(w) >= min_length)
    return {w[:stem] for w in kept} if stem else set(kept)


def negated_before(text: str, start: int, window: int = 40) -> bool:
    """A negation within `window` characters before `start`."""
    return bool(NEGATION.search(text[max(0, start - window) : start]))


def split_sentences(text: str, start: int = 0) -> list[tuple[int, str]]:
    """(offset, sentence) for each sentence of `text` from `start`, stripped, empty ones dropped."""
    out: list[tuple[int, str]] = []
    pos = start
    for match in SENTENCE_BOUNDARY.finditer(text, start):
        _append_piece(out, text, pos, match.start())
        pos = match.end()
    _append_piece(out, text, pos, len(text))
    return out


def _append_piece(out: list[tuple[int, str]], text: str, begin: int, end: int) -> None:
    piece = text[begin:end]
    if piece.strip():
        out.append((begin + len(piece) - len(piece.lstrip()), piece.strip()))


_ABBREVIATION = re.compile(
    r"(?:\b(?:e\.g|i\.e|etc|vs|cf|approx|incl|esp|resp|fig|no|nr|mr|mrs|ms|dr|st|viz|al)\.|\b[A-Z]\.)$",
    re.I,
)
_SPAN_BOUNDARY = re.compile(r"[.!?]+[\"')\]*_]*\s+(?=[\"'(\[*_`]*[A-Z0-9])")


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the sentences of one paragraph, for units quoted by position: a
    boundary after an abbreviation ('e.g.', 'Dr.', an initial) or inside a decimal does not
    split."""
    spans: list[tuple[int, int]] = []
    start = 0
    for m in _SPAN_BOUNDARY.finditer(text):
        head = text[start:m.start() + 1]
        if _ABBREVIATION.search(head.rstrip(".!?") + ".") and text[m.start()] == ".":
            continue
        end = m.end()
        while end > start and text[end - 1].isspace():
            end -= 1
        if text[start:end].strip():
            spans.append((start, end))
        start = m.end()
    if text[start:].strip():
        spans.append((start, len(text.rstrip())))
    return spans


def short_value(value: object, limit: int = 60) -> str:
    """A value as it may appear in an error message: its repr, cut to at most `limit` characters
    (with '...' and the value's size when cut). Built with `reprlib`, so a 4-million-element list
    or a 50 MB string is never serialised whole just to be quoted."""
    import reprlib

    shortener = reprlib.Repr()
    shortener.maxstring = shortener.maxother = max(limit, 12)
    shortener.maxlist = shortener.maxtuple = shortener.maxdict = shortener.maxset = 6
    shortener.maxlevel = 3
    text = shortener.repr(value)
    size = f" ({len(value):,} items)" if isinstance(value, (list, tuple, dict, set)) and len(value) > 6 else (
        f" ({len(value):,} characters)" if isinstance(value, str) and len(value) > limit else "")
    if len(text) > limit:
        text = text[: max(limit - 3, 1)] + "..."
    return text + size
