"""The words the offline design reviewer reads by.

* ``V``: its word patterns, one per concept (prompts/design/offline_vocabulary.yaml);
* ``HEDGES``: the hedge words of personas.yaml, which generated text never carries;
* stop words and generic words on top of the core's, stems with a few synonyms, words as written
  (``term_set`` compares two texts by their stemmed content words);
* figures (``numbers_in``) and requirement ids (``REQ_ID``, ``ids_referenced``).

Negation comes from the core's text module (``NEGATION``, ``negated_before``).
"""

from __future__ import annotations

import re
from functools import lru_cache

from review_harness.core.markdown import plain
from review_harness.core.patterns import read_pattern_table
from review_harness.core.text import STOPWORDS as CORE_STOPWORDS
from review_harness.design.personas import PROMPTS_DIR, default_personas

V = read_pattern_table(PROMPTS_DIR / "offline_vocabulary.yaml")

HEDGES = re.compile(r"\b(" + "|".join(map(re.escape, default_personas().hedge_words)) + r")\b", re.IGNORECASE)

# how far before a match a negation still reaches it (characters), unless a detector says otherwise
NEGATION_SPAN = 45

# on top of the core's function words: contractions, numbers spelled out, verbs of doing
STOPWORDS = CORE_STOPWORDS | frozenset(
    """four five six seven eight nine ten s t don't doesn't isn't aren't won't can't didn't wasn't weren't let lets
    get gets got make makes made use uses used using need needs needed able new way ways thing things like
    something anything nothing everything someone anyone everyone""".split()
)

# words that carry no subject in a requirement or design sentence
GENERIC = frozenset(
    """system systems service services support supports supported supporting provide provides provided
    allow allows allowed ensure ensures ensured require requires required requirement requirements
    feature features user users able capability capabilities design designs doc document documents
    component components solution solutions implement implementation implemented build built building
    add adds added include includes included including handle handles handled time times level levels
    set sets value values data number numbers based case cases part parts well good better best first
    second seconds minute minutes hour hours day days week weeks month months year years ms sec secs min
    mins percent section see note notes approach approaches change changes changed current currently
    nfr fr req p0 p1 p2 p3 must-have should-have nice-to-have mvp v1 v2 release version phase plan plans future""".split()
)

# ------------------------------------------------------------------ stems

# stems that name the same thing ('purge' and 'erase' both delete)
SYNONYMS = {
    "purge": "delet", "eras": "delet", "remov": "delet", "destroy": "delet", "wipe": "delet",
    "retain": "retent", "retention": "retent", "kept": "retent", "keep": "retent",
    "encrypt": "encrypt", "encryption": "encrypt", "encrypted": "encrypt",
    "authn": "authent", "authenticat": "authent", "login": "authent", "sign-in": "authent",
    "authz": "authoriz", "permission": "authoriz", "rbac": "authoriz",
    "latenc": "latenc", "fast": "latenc",
    "notif": "notif", "alert": "alert",
    "log": "log", "logg": "log",
    "export": "export", "exportabl": "export",
    "audit": "audit", "auditor": "audit",
    "approv": "approv", "approval": "approv",
    "region": "region", "regional": "region",
    "tenant": "tenant", "multi-tenant": "tenant",
    "spend": "cost", "expens": "cost", "cut": "reduc", "lower": "reduc", "decreas": "reduc", "shrink": "reduc", "minimiz": "reduc",
}
SUFFIXES = ("ational", "ization", "isation", "ations", "ation", "ments", "ment", "ness", "ings", "ing", "able", "ible",
            "ities", "ity", "ies", "ied", "ers", "er", "ed", "es", "s", "ally", "ly", "al", "ive")  # 'ally' before 'ly': globally ~ global
SUFFIX_KEEP = {"ation": "at", "ations": "at", "ization": "iz", "isation": "iz", "ational": "at"}


@lru_cache(maxsize=20000)
def stem(word: str) -> str:
    w = word.lower().strip("'’-.")
    if w.endswith("'s"):
        w = w[:-2]
    if len(w) <= 3 or any(c.isdigit() for c in w):
        return SYNONYMS.get(w, w)
    for suf in SUFFIXES:
        if w.endswith(suf) and len(w) - len(suf) >= 3:
            w = w[: -len(suf)] + SUFFIX_KEEP.get(suf, "")
            if suf in ("ed", "ing", "ings", "es", "s") and w.endswith("er") and len(w) - 2 >= 3:
                w = w[:-2]  # 'delivered' and 'delivers' stem as 'deliver' does
            break
    if len(w) > 4 and w[-1] == w[-2] and w[-1] not in "ls":
        w = w[:-1]
    if w.endswith("e") and len(w) > 4:
        w = w[:-1]
    return SYNONYMS.get(w, w)


# ------------------------------------------------------------------ words

# a word as written: starts with a letter, keeps its case, inner apostrophes, hyphens and underscores
# (the core's `words` lower-cases and lets a word start with a digit; quoting needs the surface form)
WRITTEN_WORD = re.compile(r"[A-Za-z][A-Za-z0-9'’_-]*[A-Za-z0-9]|[A-Za-z]")


def written_words(text: str) -> list[str]:
    return WRITTEN_WORD.findall(plain(text))


def surface_words(text: str, stems: set[str]) -> list[str]:
    """The words of `text` whose stems are in `stems`, as written (a reader sees 'guarantee',
    not the stem 'guarant'), in order of appearance."""
    out: dict[str, str] = {}
    for w in written_words(text):
        for part in [w] + (w.split("-") if "-" in w else []):
            key = stem(part.lower())
            if key in stems and key not in out:
                out[key] = part.lower()
    return list(out.values())


def term_set(text: str) -> set[str]:
    """Stemmed content words of ``text`` (hyphenated words also give their parts)."""
    out: set[str] = set()
    for w in written_words(text):
        lw = w.lower()
        parts = [lw] + (lw.split("-") if "-" in lw else []) + (lw.split("_") if "_" in lw else [])
        for p in parts:
            if len(p) < 2 or p in STOPWORDS or p in GENERIC:
                continue
            if REQ_ID.fullmatch(p.upper()):
                continue
            out.add(stem(p))
    return out


# ------------------------------------------------------------------ requirement ids

KNOWN_ID_PREFIXES = "REQ|FR|NFR|US|UC|AC|BR|SR|QR|CR|DR|SEC|PERF|OPS|GOAL|OBJ|NG|G"
REQ_ID = re.compile(rf"(?<![\w-])((?:{KNOWN_ID_PREFIXES})[-_.]?\d+(?:\.\d+)*|R-?\d+(?:\.\d+)*)(?![\w-])")
# 'R1-R4', 'FR-2 to FR-5'
REQ_RANGE = re.compile(
    rf"(?<![\w-])((?:{KNOWN_ID_PREFIXES})[-_.]?|R-?)(\d+)\s*(?:-|–|—|to|through|\.\.)\s*\1?(\d+)(?![\w-])"
)
# an id a requirements document defines: the known prefixes, or any short upper-case prefix (ARC-1)
ID_GRAMMAR = rf"(?:{KNOWN_ID_PREFIXES})[-_.]?\d+(?:\.\d+)*|R-?\d+(?:\.\d+)*|[A-Z][A-Z0-9]{{1,7}}-\d{{1,4}}(?:\.\d+)*"
ID_DEF = re.compile(rf"(?:{ID_GRAMMAR})")
# an id leading an item ('**R3** ...', 'FR-2: ...'), and what follows it up to the first word
ID_PREFIX = re.compile(r"^\W*?(?:\*\*|__)?\s*(?P<id>" + ID_GRAMMAR + r")(?![\w-])(?P<tail>[^\w(]*)")


def ids_referenced(text: str) -> set[str]:
    """Requirement ids mentioned in ``text``, ranges such as 'R1–R4' expanded."""
    out = {m.group(1) for m in REQ_ID.finditer(text)}
    for m in REQ_RANGE.finditer(text):
        a, b = int(m.group(2)), int(m.group(3))
        if 0 < b - a <= 50:
            out.update(f"{m.group(1)}{k}" for k in range(a, b + 1))
    return {canon_id(i) for i in out}


def canon_id(rid: str) -> str:
    return re.sub(r"[-_.](?=\d)", "-", rid.upper()).replace("R-", "R") if rid.upper().startswith("R-") else rid.upper().replace("_", "-")


def id_prefix(rid: str) -> str:
    return re.sub(r"[-_.]?\d+(?:\.\d+)*$", "", rid)


def cites(text: str, rid: str) -> bool:
    """Whether ``text`` names the requirement id ``rid`` as a whole word."""
    return bool(re.search(rf"(?<![\w-]){re.escape(rid)}(?![\w-])", text))


# ------------------------------------------------------------------ figures

FIGURE = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?:\s?([kKmM])\b)?")
# dates, times of day, versions, ids, years and words with digits in them
NOT_A_QUANTITY = re.compile(
    r"\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}:\d{2}\b|\bv\d+(?:\.\d+)*\b"
    rf"|(?<![\w-])(?:{KNOWN_ID_PREFIXES}|R)[-_.]?\d+(?:\.\d+)*\b|\b(?:19|20)\d\d\b|\b[A-Za-z]+\d+[A-Za-z]*\b",
    re.IGNORECASE,
)


def numbers_in(text: str) -> set[str]:
    """Quantities as written, normalised (thousands separators dropped, k/M expanded).

    Dates, times of day, years, versions, ids and single-digit integers are left out: they
    say nothing about whether two documents share a figure.
    """
    out: set[str] = set()
    for m in FIGURE.finditer(NOT_A_QUANTITY.sub(" ", plain(text))):
        frac = m.group(2) or ""
        val = float(m.group(1).replace(",", "") + frac)
        if m.group(3):
            val *= 1000 if m.group(3) in "kK" else 1_000_000
        if val < 10 and not frac and not m.group(3):
            continue
        out.add(f"{val:g}")
    return out
