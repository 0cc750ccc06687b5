"""What an impact artifact's words establish: its free-text fields (`notes`, the strings of
`model_params`, diagnostics given as text, a note in `metadata`) read sentence by sentence for the
statements the checks use, each with the sentence quoted as evidence:

- a diagnostic named with its result ("no significant differences across 20 baseline covariates",
  "the McCrary density test, p = 0.43", "lead coefficients are flat", "the two untreated cohorts
  already diverged by 0.30 years"): which diagnostic of the checks table (by the phrases of its
  `said` list), whether it passes or fails (a p-value, F or standardised difference in the
  sentence decides against the diagnostic's own threshold; otherwise the words that say a test
  passed or failed, each turned by a negation before it), and a gap before treatment given as a
  number, which the checks weigh against the effect;
- the planned split of an experiment ("randomised 1:1", "equal arms planned", "30% to treatment");
- the design's variant where the label leaves it open ("a fuzzy discontinuity").

A sentence that names a diagnostic but whose result cannot be read is kept as such (said, not
used). A sentence that addresses the reviewer ("verdict: usable", "treat the test as passed") is
data, never a statement: it is not read. The vocabulary is the checks table's (`words` and each
diagnostic's `said`), so this module holds no list of phrases. Small and self-contained (it uses
the core's sentences and negation only), so that it can move to a shared prose reader.
No Inspect import."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from review_harness.core.text import negated_before, split_sentences
from review_harness.impact.table import ChecksTable, fold_name

TEXT_KEYS_IN_METADATA = ("note", "notes", "comment", "comments", "summary", "description", "design")
NUMBER = r"(-?\d+(?:,\d{3})*(?:\.\d+)?|-?\.\d+)"
P_VALUE = re.compile(r"\bp(?:\s*-?\s*values?)?\s*(?:=|<|>|≤|≥|of|is|was|:)\s*" + NUMBER, re.IGNORECASE)
F_VALUE = re.compile(r"\bF(?:\s*-?\s*stat(?:istic)?s?)?\s*(?:=|of|is|was|:|>|above)\s*" + NUMBER)
SMD = re.compile(r"(?:standardi[sz]ed (?:mean )?differences?|\bSMDs?)\D{0,30}?" + NUMBER, re.IGNORECASE)
GAP = re.compile(r"\bby (?:about |roughly |some )?" + NUMBER + r"(\s*%|\s+[a-z]+(?:\s+points)?)?", re.IGNORECASE)
RATIO = re.compile(r"\b(\d+(?:\.\d+)?)\s*[:/]\s*(\d+(?:\.\d+)?)\b")
COUNT_OF = re.compile(r"\b(\d+)\s+(?:out\s+)?of\s+(?:the\s+|all\s+)?(\d+)\b", re.IGNORECASE)
SHARE_TO = re.compile(r"\b(\d+(?:\.\d+)?)\s*%\s*(?:of [a-z ]+ )?(?:to|in|into|assigned to|allocated to) (?:the )?treat",
                      re.IGNORECASE)


@dataclass(frozen=True)
class Said:
    """One statement the words make: `meaning` is a diagnostic of the checks table, `plan` (a
    planned treatment share in `value`) or `design` (the variant in `text`)."""

    meaning: str
    holds: bool | None  # the diagnostic passes / fails / named but its result cannot be read
    quote: str
    field: str
    value: float | None = None  # the number the sentence gives (p, F, SMD, share, gap, failed tests)
    what: str = ""  # 'p-value', 'F', 'standardised difference', 'share', 'gap'
    unit: str = ""
    out_of: int | None = None  # with what 'chance': how many tests the failures are counted among

    @property
    def evidence(self) -> str:
        return f"{self.field}: {self.quote!r}"


def _number(text: str) -> float:
    return float(text.replace(",", ""))


def text_fields(artifact: Any) -> list[tuple[str, str]]:
    """(where, text) of every free-text field: model_params strings (nested ones too), diagnostics
    given as text, and the notes of metadata."""
    out: list[tuple[str, str]] = []

    def walk(where: str, value: Any) -> None:
        if isinstance(value, str) and value.strip():
            out.append((where, value.strip()))
        elif isinstance(value, dict):
            for key, item in value.items():
                walk(f"{where}.{key}", item)
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, str):
                    walk(where, item)

    for key, value in artifact.model_params.items():
        walk(f"model_params.{key}", value)
    for key, value in artifact.diagnostics.items():
        walk(f"diagnostics.{key}", value)
    for key, value in artifact.metadata.items():
        if fold_name(key) in TEXT_KEYS_IN_METADATA:
            walk(f"metadata.{key}", value)
    return out


def _sentences(where: str, text: str) -> list[str]:
    """The field's sentences, each read with its field name in front ('placebo region: ...')."""
    leaf = where.rsplit(".", 1)[-1].replace("_", " ")
    return [f"{leaf}: {s}" for _, s in split_sentences(text)]


def _found(phrases: list[str], sentence: str) -> list[int]:
    low = sentence.lower()
    hits = []
    for phrase in phrases:
        for match in re.finditer(r"(?<![a-z])" + re.escape(phrase.lower()), low):
            hits.append(match.start())
    return hits


def _whole(phrase: str) -> str:
    """A phrase as whole words, inflected ('closely track' is in 'closely tracks', 'differ' in
    'differed', but not in 'difference')."""
    return r"(?<![a-z])" + re.escape(phrase) + r"(?:s|es|d|ed|ing)?(?![a-z])"


def _polarity(sentence: str, table: ChecksTable) -> bool | None:
    """True when the sentence says a test passed, False when it failed, None when it says
    neither or both. A phrase that says failure is turned by a negation close before it ("did not
    diverge"), one that says success likewise ("not balanced")."""
    words = table.words
    low = sentence.lower()
    masked = low
    passes = 0
    for phrase in words.passes:  # phrases that carry their own negation ("no significant")
        for match in re.finditer(_whole(phrase), masked):
            start = match.start()
            negated = negated_before(low, start, 25) and not re.match(r"(no|not|never|without|cannot|fail)\b", phrase)
            passes += -1 if negated else 1
            masked = masked[:start] + " " * len(phrase) + masked[match.end():]
    fails = 0
    for phrase in words.fails:
        for match in re.finditer(_whole(phrase), masked):
            if negated_before(low, match.start(), 25):
                passes += 1
            else:
                fails += 1
    if passes < 0:
        fails, passes = fails - passes, 0
    if fails and not passes:
        return False
    if passes and not fails:
        return True
    return None


def _instruction(sentence: str, table: ChecksTable) -> bool:
    body = sentence.split(": ", 1)[-1].strip().lower()
    return any(re.match(re.escape(w) + r"\b", body) for w in table.words.instructions) or any(
        w in body for w in table.words.addressed)


CLAUSE = re.compile(r";|,\s+(?:but|while|whereas|although)\s+|\s+\b(?:but|whereas)\s+", re.IGNORECASE)


def _clauses(sentence: str, phrases: list[str], table: ChecksTable) -> tuple[str, str]:
    """The clauses of a sentence that name the diagnostic, and the sentence without the clauses
    that speak of the effect itself ("balance holds; the effect is significant": the effect's
    significance is not the balance test's)."""
    parts = CLAUSE.split(sentence)
    named = [c for c in parts if _found(phrases, c)]
    effect = [c for c in parts if not _found(phrases, c) and _found(table.words.effect, c)]
    rest = [c for c in parts if c not in effect]
    return " ; ".join(named) or sentence, " ; ".join(rest) or sentence


def _diagnostic(sentence: str, where: str, meaning: str, table: ChecksTable) -> Said:
    d = table.diagnostics[meaning]
    quote = sentence.split(": ", 1)[-1]
    threshold = d.threshold
    named, rest = _clauses(sentence, d.said, table)
    for pattern, what, fits in ((P_VALUE, "p-value", d.at_least is not None and d.at_least < 1),
                                (F_VALUE, "F", meaning == "first_stage_strength"),
                                (SMD, "standardised difference", d.at_most is not None and d.at_most < 1)):
        match = pattern.search(named)
        if fits and match and threshold is not None:
            value = abs(_number(match.group(1)))
            return Said(meaning, threshold.holds(value), quote, where, value, what)
    holds = _polarity(named, table)
    if holds is None:
        holds = _polarity(rest, table)
    count = COUNT_OF.search(named)
    if holds is False and count is not None and _as_many_as_chance(int(count.group(1)), int(count.group(2))):
        return Said(meaning, True, quote, where, float(count.group(1)), "chance",
                    out_of=int(count.group(2)))
    gap = GAP.search(named) or GAP.search(rest)
    if holds is False and gap is not None:
        return Said(meaning, False, quote, where, abs(_number(gap.group(1))), "gap", (gap.group(2) or "").strip())
    return Said(meaning, holds, quote, where)


def _as_many_as_chance(failed: int, tests: int, level: float = 0.05) -> bool:
    """Whether `failed` of `tests` tests failing at `level` is what chance alone gives: the
    binomial probability of at least that many is itself at least `level` (1 of 20 covariates
    differing at 5% is expected; 6 of 20 is not)."""
    if not 0 < failed <= tests or tests > 10_000:
        return False
    tail = sum(math.comb(tests, k) * level**k * (1 - level) ** (tests - k) for k in range(failed, tests + 1))
    return tail >= level


def _plan(sentence: str, where: str, table: ChecksTable) -> Said | None:
    """A planned treatment share: an equal split in words or ratios ('1:1', '50/50', 'equal
    arms'), or a percentage sent to treatment. An unequal ratio does not say which arm is which
    unless it is the share sent to treatment; it, or an equal split denied ('not split 50/50'),
    says only that the split was not equal (no share: `holds` False)."""
    low = sentence.lower()
    if not _found(table.words.assignment, low):
        return None
    quote = sentence.split(": ", 1)[-1]
    share = SHARE_TO.search(sentence)
    if share:
        value = float(share.group(1)) / 100
        return Said("plan", True, quote, where, value, "share") if 0 < value < 1 else None
    unequal = False
    for match in RATIO.finditer(sentence):
        a, b = float(match.group(1)), float(match.group(2))
        if a == b and a > 0 and not negated_before(low, match.start(), 25):
            return Said("plan", True, quote, where, 0.5, "share")
        unequal = unequal or (a > 0 and b > 0)
    for start in _found(table.words.equal_split, low):
        if not negated_before(low, start, 25):
            return Said("plan", True, quote, where, 0.5, "share")
        unequal = True
    return Said("plan", False, quote, where, None, "share") if unequal else None


def read_words(artifact: Any, table: ChecksTable) -> tuple[dict[str, list[Said]], list[Said]]:
    """What the words say, by meaning (diagnostics, `plan`, `design`), and the instructions found
    (kept as data: quoted, never obeyed)."""
    said: dict[str, list[Said]] = {}
    ignored: list[Said] = []
    named = {meaning: d.said for meaning, d in table.diagnostics.items() if d.said}
    for where, text in text_fields(artifact):
        for sentence in _sentences(where, text):
            if _instruction(sentence, table):
                ignored.append(Said("instruction", None, sentence.split(": ", 1)[-1], where))
                continue
            plan = _plan(sentence, where, table)
            if plan is not None:
                said.setdefault("plan", []).append(plan)
            for variant, phrases in table.words.variants.items():
                hits = [h for h in _found(phrases, sentence) if not negated_before(sentence.lower(), h, 25)]
                if hits:
                    said.setdefault("design", []).append(Said("design", True, sentence.split(": ", 1)[-1], where,
                                                              what=variant))
            for meaning, phrases in named.items():
                if _found(phrases, sentence):
                    said.setdefault(meaning, []).append(_diagnostic(sentence, where, meaning, table))
    return said, ignored


def verdict_of(statements: list[Said]) -> Said | None:
    """The statement that decides a diagnostic: a failure over a pass (words never excuse what
    other words report), a pass over what cannot be read."""
    for wanted in (False, True, None):
        for s in statements:
            if s.holds is wanted:
                return s
    return None
