"""A sentence's mood: whether it reports what the work did, or speaks of what is still to be done
(a plan, a recommendation, a condition, advice). A correction, a design or a test that is only
announced does not describe the work the document's results came from, whatever its wording: the
reading is by the verb's tense and modality and by the section a sentence sits in, never by the
thing being planned.
"""

from __future__ import annotations

import re

# a modal or future verb phrase: "we will", "we'll", "should follow", "is scheduled for", "going to"
_MODAL = re.compile(
    r"(?:\b(?:will|shall|should|would|could|must|might)\b|\w'll\b|\bgoing to\b|\b(?:plan|plans|planned|intend|intends|"
    r"aim|aims|hope|hopes|want|wants|need|needs|propose|proposes|expect|expects) to\b|\b(?:is|are|was|were) (?:to be|"
    r"scheduled|planned|due|proposed|pending|upcoming)\b|\bto be (?:run|done|set up|scheduled|started|carried out)\b|"
    r"\b(?:recommend|recommends|recommended|suggest|suggests|propose|proposes|proposal)\b|"
    r"\bnext (?:week|month|quarter|sprint|year|release|step|steps)\b|\bin (?:a|the) (?:future|follow[- ]up)\b|"
    r"\blater (?:this|next) (?:week|month|quarter|year)\b|\bupcoming\b|\bunless\b)",
    re.IGNORECASE,
)
# a condition the work has not met: "if it wins offline, ...", "before any launch"
_CONDITION = re.compile(r"(?:^|[,;:]\s*)if\b|\bbefore (?:any|a|the) (?:launch|rollout|roll-out|release|ship|decision)\b",
                        re.IGNORECASE)
# a sentence that opens with a bare verb is an instruction ("Launch v7 ...", "Run an A/B test ...")
_IMPERATIVE = re.compile(
    r"^\W*(?:\d+[.)]\s*)?(?:\*\*[^*]*\*\*:?\s*)?(?:then\s+|next,?\s+|first,?\s+)?(?:launch|ship|roll|run|move|proceed|"
    r"schedule|start|set|plan|use|add|confirm|validate|test|measure|keep|deploy|release|replace|switch|adopt|follow|"
    r"wait|repeat|extend|rerun|re-run|try|consider|debias|correct|weight|reweight|randomi[sz]e|apply|fix|check|"
    r"compare|report|collect|gather|build|stop|hold|pause|revisit|investigate|explore)\b",
    re.IGNORECASE,
)
# sections that hold what is to come, not what was done
_PROSPECTIVE_HEADING = re.compile(
    r"\b(?:plans?|planned|proposal|proposed|next steps?|next|roadmap|ask|asks|recommendations?|recommend\w*|decisions?|"
    r"follow[- ]?ups?|future(?: work)?|to ?do|todo|action items?|open questions?|what(?:'s| is) next|going forward|"
    r"pre-?registration|design of the test)\b",
    re.IGNORECASE,
)


def prospective_at(text: str, start: int) -> bool:
    """Whether the words at `start` are announced rather than reported: the sentence up to them
    (from the last clause break) is prospective ("we recommend an A/B test", "we should randomise")."""
    head = text[:start]
    cut = max(head.rfind(";"), head.rfind(": "), head.rfind(". "))
    return prospective(text[cut + 1:] if cut >= 0 else text)


def prospective(text: str, heading: str = "") -> bool:
    """Whether a sentence speaks of what is still to be done rather than what the work did: a
    future or modal verb, a recommendation, an unmet condition, an instruction, or a section of
    plans, recommendations or next steps."""
    return bool(_MODAL.search(text) or _CONDITION.search(text) or _IMPERATIVE.search(text)
                or (heading and _PROSPECTIVE_HEADING.search(heading)))


# a hedge that governs what follows: "it's difficult to say definitively", "too early to conclude", "we are not sure"
_HEDGE = re.compile(
    r"\b(?:difficult|hard|impossible|too early|premature|unclear|uncertain|unsure|not (?:yet )?(?:possible|clear|sure|able)|"
    r"unable|no way|cannot|can'?t|could not|couldn'?t|would not|wouldn'?t|hesitate|we do not know|we don'?t know|"
    r"not (?:enough|sufficient) (?:data|evidence) to|may|might|perhaps|possibly|tentatively)\b[^.;:]*$",
    re.IGNORECASE,
)


def hedged_before(text: str, start: int, window: int = 50) -> bool:
    """Whether a hedge governs the words at `start` ("it's difficult to say definitively that ...",
    "too early to call it proven"): the strong word is what the sentence says cannot (yet) be said."""
    return bool(_HEDGE.search(text[max(0, start - window):start]))
