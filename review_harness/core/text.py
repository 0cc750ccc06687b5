"""Words, negation and sentences: the one text module every kind's rules and matchers use.

Kinds add their own vocabulary on top (`STOPWORDS | {...}`), never a list of their own.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

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
