"""What a document is about, for the domain knowledge skill: the methods and metrics it names
(`topic_hints`, given to `get_domain_context` so the brief puts what concerns the document first)
and whether a requested domain fits it at all (`domain_fit`: what the document does is about the
scope the domain declares in the index; scope.py). A domain that does not fit has nothing to
review: the DS review says so and does not score the dimension, rather than counting it as a
perfect one.
"""

from __future__ import annotations

import re
from functools import lru_cache

from pydantic import BaseModel, Field

from review_harness.core.text import STOPWORDS
from review_harness.domain.config import DomainIndex, default_index

# metric and method names of search work (dedup's "same metric or method" signal uses these)
SEARCH_TERMS = (
    "ndcg", "mrr", "map@", "ctr", "click-through", "precision", "recall", "auc", "f1", "dwell", "p99", "p95",
    "p50", "latency", "ipw", "inverse propensity weighting", "inverse propensity", "propensity", "position bias", "doubly-robust",
    "interleaving", "a/b", "t-test", "chi-squared", "bootstrap", "mann-whitney", "regression", "lambdamart",
    "learning-to-rank", "ltr", "bm25", "click model", "selection bias", "tail queries", "head queries",
    "confidence interval", "stratif", "randomiz",
)
# more methods and metrics of data-science write-ups, for topic hints only
GENERAL_TERMS = (
    "conversion", "retention", "churn", "revenue", "accuracy", "mape", "rmse", "forecast", "cohort",
    "difference-in-differences", "synthetic control", "holdout", "cuped", "uplift", "propensity score",
    "classifier", "embedding", "retrieval", "load test", "throughput", "qps", "query", "queries", "ranking",
    "relevance", "engagement", "sessions",
)


def _pattern(term: str) -> re.Pattern[str]:
    """A term at a word start (hyphens read as spaces); a whole-word term may take a plural 's'."""
    term = re.sub(r"[-_]", " ", term)
    tail = r"(?:e?s)?\b" if term[-1].isalnum() else ""
    return re.compile(r"(?<![\w])" + re.escape(term) + tail, re.IGNORECASE)


@lru_cache(maxsize=512)
def _compiled(term: str) -> re.Pattern[str]:
    return _pattern(term)


def names(text: str, terms: tuple[str, ...] | list[str]) -> list[str]:
    """The terms the text names, in the order of their first appearance."""
    flat = re.sub(r"[-_]", " ", text)
    found = []
    for term in terms:
        match = _compiled(term.lower()).search(flat)
        if match:
            found.append((match.start(), term))
    return [term for _, term in sorted(found)]


ACRONYM_WORD = re.compile(r"\b[A-Z][A-Z0-9]{1,6}\b")
NOT_ACRONYMS = frozenset({"TL", "DR", "OK", "TODO", "TBD", "US", "UK", "EU", "AM", "PM", "Q1", "Q2", "Q3", "Q4"})


def terms_named(text: str) -> list[str]:
    """The methods and metrics a text names (the vocabulary above) and the acronyms it uses."""
    vocabulary = names(text, tuple(dict.fromkeys(SEARCH_TERMS + GENERAL_TERMS)))
    acronyms = [a for a in dict.fromkeys(ACRONYM_WORD.findall(text)) if a not in NOT_ACRONYMS]
    return vocabulary + [a for a in acronyms if a.lower() not in vocabulary]


def conflict_touches(conflict: str, texts: list[str]) -> bool:
    """Whether a digest conflict concerns a document: one term the conflict names (a method, a
    metric, an acronym) is named in one of `texts` (the document's terms, its findings), an
    abbreviation and its long form counting as one term ("IPW", "inverse propensity weighting")."""
    ours = terms_named(conflict)
    theirs = [t for text in texts for t in terms_named(text)]
    return any(same_term(a, b) for a in ours for b in theirs)


def topic_hints(document: str, limit: int = 12) -> list[str]:
    """The methods and metrics a document names, first named first (topic hints for the brief)."""
    return names(document, tuple(dict.fromkeys(SEARCH_TERMS + GENERAL_TERMS)))[:limit]


class DomainFit(BaseModel):
    """Whether the requested domains have anything to say about a document."""

    applicable: bool
    topics: dict[str, list[str]] = Field(default_factory=dict, description="domain -> the terms of its scope the document names")
    hints: list[str] = Field(default_factory=list, description="the topic hints given to get_domain_context")
    terms: list[str] = Field(default_factory=list, description="every method, metric and acronym the document names")
    reason: str = ""
    evidence: dict[str, str] = Field(default_factory=dict, description="domain -> the sentence that shows it fits")


def domain_fit(document: str, domains: list[str], index: DomainIndex | None = None) -> DomainFit:
    """The domains fit when what the document does (its title, summary, method and results) is about
    the scope one of them declares in the index: a system of the domain with its data or a decision
    about it (scope.py). A domain that declares no scope is offered every document."""
    from review_harness.domain.scope import scope_fit

    index = index or default_index()
    fits: dict[str, object] = {}
    for d in domains:
        scope = index.entry(d).scope
        fits[d] = scope_fit(document, d, scope) if scope else None
    topics = {d: (f.terms if f else []) for d, f in fits.items()}
    hints = list(dict.fromkeys([t for d in domains for t in topics[d]] + topic_hints(document)
                               + [t for d in domains for t in names(document, index.entry(d).topics)]))[:16]
    terms = terms_named(document)
    fitting = [d for d, f in fits.items() if f is None or f.fits]
    evidence = {d: f.quote for d, f in fits.items() if f is not None and f.fits and f.quote}
    if fitting:
        reasons = [fits[d].reason if fits[d] else f"{d}: declares no scope, so every document is reviewed"
                   for d in fitting]
        return DomainFit(applicable=True, topics=topics, hints=hints, terms=terms, reason="; ".join(reasons),
                         evidence=evidence)
    return DomainFit(applicable=False, topics=topics, hints=hints, terms=terms, evidence=evidence,
                     reason="; ".join(fits[d].reason for d in domains)
                     + "; the domain dimension is not applicable and not scored")


ACRONYM = re.compile(r"^[A-Z][A-Z0-9]{1,6}$")
_PHRASE_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*")


def is_acronym(term: str) -> bool:
    """"IPW", "LTR", "NDCG": two to seven capitals or digits, starting with a capital."""
    return bool(ACRONYM.match(term.strip()))


def acronym_of(phrase: str) -> str:
    """The initials of a phrase's words ("inverse propensity weighting" -> "IPW")."""
    return "".join(w[0] for w in _PHRASE_WORD.findall(phrase)).upper()


def _flat(text: str) -> str:
    return re.sub(r"[-_]", " ", text)


def _named(text: str, term: str) -> bool:
    return bool(re.search(r"(?<![\w])" + re.escape(_flat(term)) + r"(?![\w])", _flat(text), re.IGNORECASE))


def mentions_term(text: str, term: str) -> bool:
    """Whether `text` names `term`, an abbreviation and its long form counting as one term: an
    acronym is named by itself (any case) or by consecutive content words with its initials ("IPW"
    by "inverse propensity weighting"); a phrase of two or more words by itself or by its acronym
    written in capitals ("inverse propensity weighting" by "IPW"). Hyphens count as spaces."""
    term = term.strip()
    if not term:
        return False
    if _named(text, term):
        return True
    if is_acronym(term) and term.isalpha():
        flat = _flat(text)
        found = list(re.finditer(r"[A-Za-z][A-Za-z0-9]*", flat))
        n = len(term)
        for i in range(len(found) - n + 1):
            run = found[i:i + n]
            adjacent = all(not flat[run[k].end():run[k + 1].start()].strip() for k in range(n - 1))
            content = all(len(w.group()) >= 3 and w.group().lower() not in STOPWORDS for w in run)
            if adjacent and content and acronym_of(" ".join(w.group() for w in run)) == term:
                return True
        return False
    if len(_PHRASE_WORD.findall(term)) >= 2:
        return bool(re.search(r"(?<![\w])" + acronym_of(term) + r"(?![\w])", text))
    return False


def same_term(a: str, b: str) -> bool:
    """Two names of one term: equal (case and hyphens aside), or an abbreviation and its long form
    (a single word whose letters are the initials of the other's words, e.g. "ipw")."""
    if _flat(a).strip().lower() == _flat(b).strip().lower():
        return True
    for short, long in ((a, b), (b, a)):
        short = short.strip()
        if short.isalpha() and 2 <= len(short) <= 7 and len(_PHRASE_WORD.findall(long)) == len(short) \
                and acronym_of(long) == short.upper():
            return True
    return False
