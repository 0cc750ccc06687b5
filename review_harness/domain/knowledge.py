"""What makes a sentence of a page domain knowledge: cue words for decisions, standards,
pitfalls, evaluation and results. The extractive synthesis and the offline curator read pages
through these same features, so an importance score and a digest bullet rest on one reading."""

from __future__ import annotations

import re
from dataclasses import dataclass

from review_harness.core.markdown import sentences

CUES = {
    "standard": ("standard", "must", "always", "never", "required", "primary metric", "guideline", "policy",
                 "preferred", "should"),
    "decision": ("decided", "decision", "we will", "switching", "switch to", "replaces", "instead of",
                 "adopt", "ships only", "going forward", "no longer"),
    "pitfall": ("pitfall", "bias", "gotcha", "leak", "confound", "regress", "incident", "failure", "fails",
                "wrong", "misleading", "hides", "drift", "overfit", "clickbait"),
    "evaluation": ("ndcg", "mrr", "precision", "recall", "ctr", "interleav", "a/b", "experiment", "p99", "p50",
                   "latency", "judg", "offline", "online", "metric", "benchmark"),
    "result": ("found", "showed", "learned", "lesson", "raised", "cut", "improved", "dropped", "lift"),
}
NUMBER_RE = re.compile(r"\d+(?:\.\d+)?\s*(?:%|ms|x\b)|\b0\.\d+|\b\d+(?:\.\d+)?\s*-\s*\d+(?:\.\d+)?")
LEARNING_WORDS = ("post-mortem", "postmortem", "incident", "retro", "experiment", "learning", "a/b result")
POSTMORTEM_WORDS = ("post-mortem", "postmortem", "incident", "retro")
REPLACEMENT_RE = re.compile(
    r"(?:instead of|replaces?|replacing|switching from|rather than|no longer (?:use|need)s?|makes)\s+"
    r"(?:plain |the )?(?P<term>[A-Za-z][\w/-]*(?: [a-z][\w-]*){0,2})", re.IGNORECASE)
TERM_STOP = frozenset({"it", "them", "this", "that", "unnecessary", "redundant", "obsolete", "with", "by", "to", "for",
                       "in", "on", "is", "are", "as"})


@dataclass(frozen=True)
class KnowledgeSentence:
    text: str
    kinds: tuple[str, ...]
    numbers: int

    @property
    def weight(self) -> float:
        """How much a sentence teaches: each cue kind counts, a concrete number counts extra."""
        return len(self.kinds) + (0.5 if self.numbers else 0.0)


LINK_TEXT_RE = re.compile(r"\[[^\]]*\]")


def classify(text: str) -> KnowledgeSentence:
    low = LINK_TEXT_RE.sub(" ", text).lower()  # a link's text names another page, not knowledge
    kinds = tuple(kind for kind, words in CUES.items() if any(w in low for w in words))
    return KnowledgeSentence(text=text, kinds=kinds, numbers=len(NUMBER_RE.findall(text)))


def page_sentences(body: str) -> list[KnowledgeSentence]:
    """The prose of a page (paragraphs, list items, table rows), classified; headings skipped."""
    out = []
    for unit in sentences(body):
        if unit.kind == "heading" or len(unit.text.split()) < 5:
            continue
        out.append(classify(unit.text.strip()))
    return out


def is_learning(title: str, labels: list[str], body: str = "") -> bool:
    """Experiment write-ups, post-mortems and retros: advisory knowledge."""
    text = " ".join([title, *labels]).lower()
    return any(w in text for w in LEARNING_WORDS)


def is_postmortem(title: str, labels: list[str]) -> bool:
    text = " ".join([title, *labels]).lower()
    return any(w in text for w in POSTMORTEM_WORDS)


def subsection_for(sentence: KnowledgeSentence) -> str:
    """Foundational subsection of a sentence."""
    if "pitfall" in sentence.kinds:
        return "Known Pitfalls"
    if "evaluation" in sentence.kinds and "standard" in sentence.kinds:
        return "Evaluation Standards"
    return "Methodology"


def replaced_terms(text: str) -> list[str]:
    """Techniques a sentence says are replaced or unnecessary ("switching from IPW", "makes IPW
    unnecessary", "instead of inverse propensity weighting"): the name as written, up to three
    words, stopping at a word that is no part of a name."""
    out = []
    for m in REPLACEMENT_RE.finditer(text):
        words = []
        for word in m.group("term").split():
            word = word.strip(".,;:")
            if word.lower() in TERM_STOP:
                break
            words.append(word)
        if words:
            out.append(" ".join(words))
    return out
