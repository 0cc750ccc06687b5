"""Whether a domain fits a document, by what the document does.

A domain's scope is data in its index entry (config.Scope): concepts (lists of terms) and the
combinations of them that make a kind of system the domain covers, its data and its decisions. A
document fits when what it does -- its title, summary, method and results, not its background,
discussion or references -- names a system of the domain together with the domain's data or a
decision about that system. Each concept of a combination must be salient: named in the title or
summary, or in at least two sentences of the body. A word that merely resembles the domain ("we
ranked the subject lines by CTR") names no system of it, so a randomised e-mail test that ranks its
variants by click-through is not a search-ranking document.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from review_harness.domain.config import Scope
from review_harness.domain.reading import Reading, Unit, negated, read

MIN_BODY_MENTIONS = 2  # a concept named only in the body must be named this many times


@lru_cache(maxsize=1024)
def term_pattern(term: str) -> re.Pattern[str]:
    """A term at a word start (hyphens and underscores read as spaces); a whole-word term may take
    a plural 's'; a term ending in '*' is a prefix ("randomi*")."""
    flat = re.sub(r"[-_]", " ", term.lower().strip())
    if flat.endswith("*"):
        return re.compile(r"(?<![\w])" + re.escape(flat[:-1]))
    tail = r"(?:e?s)?(?![\w])" if flat[-1].isalnum() else ""
    return re.compile(r"(?<![\w])" + re.escape(flat) + tail)


def term_matches(low: str, terms: list[str] | tuple[str, ...], *, allow_negated: bool = False) -> list[str]:
    """Each mention of one of `terms` in a lower-cased unit (not negated, unless allowed), by term."""
    out = []
    for term in terms:
        for match in term_pattern(term).finditer(low):
            if allow_negated or not negated(low, match.start()):
                out.append(term)
    return out


def first_term(low: str, terms: list[str] | tuple[str, ...], *, allow_negated: bool = False) -> str | None:
    """The first of `terms` a lower-cased unit names (not negated, unless allowed)."""
    found = term_matches(low, terms, allow_negated=allow_negated)
    return found[0] if found else None


@dataclass
class ConceptHits:
    units: list[Unit] = field(default_factory=list)
    terms: list[str] = field(default_factory=list)
    mentions: int = 0

    @property
    def salient(self) -> bool:
        return any(u.part in ("title", "summary") for u in self.units) or self.mentions >= MIN_BODY_MENTIONS


def concept_hits(reading: Reading, scope: Scope) -> dict[str, ConceptHits]:
    """concept -> the units of what the document does that name it. When the document reports
    results, what it only proposes to do next ("we should pick a control group") is not what it
    does; a plan with no results is read whole."""
    hits = {name: ConceptHits() for name in scope.concepts}
    done = [u for u in reading.core if not u.is_plan] if reading.has_results else reading.core
    for unit in done:
        if scope.exclude and first_term(unit.low, scope.exclude, allow_negated=True):
            continue
        for name, terms in scope.concepts.items():
            found = term_matches(unit.low, terms)
            if found:
                hits[name].units.append(unit)
                hits[name].mentions += len(found)
                hits[name].terms += [t for t in dict.fromkeys(found) if t not in hits[name].terms]
    return hits


@dataclass
class ScopeFit:
    fits: bool
    reason: str
    terms: list[str]  # the scope's terms the document names (topic hints)
    quote: str | None = None


def _met(combos: list[list[str]], hits: dict[str, ConceptHits]) -> list[str] | None:
    return next((combo for combo in combos if all(hits[c].salient for c in combo)), None)


def _names(concepts: list[str]) -> str:
    return " + ".join(concepts)


def _examples(scope: Scope, concept: str, n: int = 4) -> str:
    return ", ".join(scope.concepts[concept][:n])


def scope_fit(document: str, domain: str, scope: Scope) -> ScopeFit:
    """Whether `document` is about `scope`, with one line saying why (or why not)."""
    reading = read(document)
    hits = concept_hits(reading, scope)
    terms = list(dict.fromkeys(t for h in hits.values() for t in h.terms))
    system = _met(scope.systems, hits)
    if system is None:
        partial = max(scope.systems, key=lambda combo: sum(hits[c].salient for c in combo))
        named = [c for c in partial if hits[c].salient]
        missing = [c for c in partial if not hits[c].salient]
        has = ", ".join(f"{c} ({', '.join(hits[c].terms[:3])})" for c in named)
        why = " or ".join(f"{c} (e.g. {_examples(scope, c)})" for c in missing)
        said = f"name {has} but not {why}" if named else f"name no {why}"
        return ScopeFit(False, f"{domain} covers {scope.covers}; what this document does is not about that: its "
                               f"title, summary, method and results {said}", terms)
    quote_unit = next((u for c in system for u in hits[c].units if all(u in hits[x].units for x in system)),
                      hits[system[0]].units[0])
    evidence = scope.data + scope.decisions
    if evidence and _met(evidence, hits) is None:
        wanted = "; ".join(_names(combo) for combo in evidence)
        return ScopeFit(False, f"{domain} covers {scope.covers}; this document names such a system "
                               f"(\"{quote_unit.text[:90]}\") but none of its data or decisions ({wanted})", terms,
                        quote_unit.text)
    return ScopeFit(True, f"{domain}: the document works on {_names(system)} (\"{quote_unit.text[:120]}\")", terms,
                    quote_unit.text)
