"""General readings of a design that several detectors share: what a word means in its context.

* ``remote_calls``: calls that cross a network ("calls the payments API"), not function calls
  ("call generic PodSpec validation", "calls the plugin's Filter method");
* ``broker_queues``: message brokers and queues between processes, not a scheduler's or a
  controller's in-process queue;
* ``drawn_only``: what a diagram draws and the text never names;
* ``specified``: a passage that specifies what is built, not one that discusses it (a FAQ, a use
  case, an example, an area still being researched) or puts it aside (alternatives, later work);
* ``dismissals``: readiness questions answered with 'None' or 'n/a', and risk sections whose body
  is only a dismissal;
* ``open_decisions``: what the design itself says is still undecided;
* ``unenforced``: properties the design relies on and says it does not enforce or guarantee;
* ``dismissed_risks``: a risk waved away without a reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from review_harness.core.markdown import MdSection, Sentence, subtree_end
from review_harness.design.offline.document import Doc, all_matches, skip_context
from review_harness.design.offline.vocabulary import V

CLAUSE_END = re.compile(r"[.;:!?]|,\s|\s(?:and|but|while|which|then)\s")


def _clause_after(text: str, end: int, limit: int = 70) -> str:
    rest = text[end: end + limit]
    stop = CLAUSE_END.search(rest)
    return rest[: stop.start()] if stop else rest


def remote_calls(doc: Doc) -> list[tuple[Sentence, re.Match[str]]]:
    """(unit, call-verb match) for each unit that calls something over the network: the verb's
    clause names a network target (an API, endpoint, service, URL, webhook, ...) and no local
    callee (a function, method, plugin, callback) comes first."""
    out = []
    for u, m in all_matches(doc, V.call_verb):
        for mm in V.call_verb.finditer(u.plain):
            after = _clause_after(u.plain, mm.end())
            target = V.network_target.search(after)
            if not target:
                continue
            local = V.local_call.search(after)
            if local and local.start() <= target.end() + 12:
                continue  # a local callee first, or named by the target ('server hooks', 'the API's handler')
            out.append((u, mm))
            break
    return out


def specified(doc: Doc, u: Sentence) -> bool:
    """Whether ``u`` specifies the design: not an alternative, a non-goal or later work, and not a
    passage that only discusses the design (a FAQ answer, a use case, an example) or names an
    area still open ('Open areas of research', 'Unresolved questions')."""
    return not (skip_context(doc, u) or doc.in_section_like(u, V.sec_illustrative) or doc.in_section_like(u, V.sec_open))


def _named(word: str) -> str:
    return re.sub(r"[^a-z]", "", word.lower())[:4]


def diagram_lines(doc: Doc) -> set[int]:
    """The lines of the document's diagrams (code blocks drawn with arrows or box lines)."""
    code = [u for u in doc.units_with_code if u.kind == "code"]
    diagrams = {u.block for u in code if V.diagram_line.search(u.text)}
    return {u.line for u in code if u.block in diagrams}


def drawn_only(doc: Doc, pattern: re.Pattern[str]) -> list[tuple[Sentence, re.Match[str]]]:
    """(diagram line, match) for what a diagram draws and no sentence of the text names: a box
    labelled 'dead-letter topic' that the prose never explains."""
    lines = diagram_lines(doc)
    said = {_named(m.group(0)) for u in doc.units for m in pattern.finditer(u.plain)}
    return [(u, m) for u in doc.units_with_code if u.kind == "code" and u.line in lines
            for m in pattern.finditer(u.plain) if _named(m.group(0)) not in said]


def broker_queues(doc: Doc) -> list[tuple[Sentence, re.Match[str]]]:
    """(unit, match) for each mention of a message broker or a queue between processes."""
    return [(u, m) for u, m in all_matches(doc, V.async_infra) if not V.in_process_queue.search(u.plain[max(0, m.start() - 30): m.end() + 10])]


# ------------------------------------------------------------------------------------ questionnaires


@dataclass
class Dismissal:
    """A readiness question (or a risk section) answered with a dismissal ('None.', 'n/a')."""

    section: MdSection | None
    question: str  # the question as written (or the section heading)
    answer: str
    unit: Sentence  # what a finding quotes: the question, or the dismissal under a heading


def _blocks(doc: Doc) -> list[list[Sentence]]:
    groups: dict[int, list[Sentence]] = {}
    for u in doc.units:
        if u.kind != "heading":
            groups.setdefault(u.block, []).append(u)
    return list(groups.values())


def dismissals(doc: Doc) -> list[Dismissal]:
    """Questions about failure, rollback, tests, monitoring, skew, outages or security whose answer
    only dismisses them: an open question ('How can a rollout fail?') answered 'None', or a
    question whether a safeguard exists ('Are there any tests ...?') answered 'No' / 'Not at this
    time'; and sections on such a topic whose whole body is a dismissal ('Version Skew Strategy:
    No issues'). A yes/no question about a harm ('Will this increase API calls? No') is an answer."""
    out: list[Dismissal] = []
    for block in _blocks(doc):
        text = " ".join(u.plain for u in block)
        if "?" not in text:
            continue
        q_end = text.rfind("?")
        answer = text[q_end + 1:].strip()
        if not answer or not V.dismissal.search(answer):
            continue
        q_start = max(text.rfind(". ", 0, q_end), text.rfind("?", 0, q_end - 1), -1)
        question = text[: q_end + 1].strip()
        first = question[q_start + 1:].strip() if q_start > 0 else question
        if not V.risk_topic.search(question):
            continue
        opening = question.split("?")[0]
        open_q = bool(V.open_question_word.search(opening))
        safeguard = bool(V.safeguard_question.search(opening)) and not V.harm_question.search(opening)
        if not (open_q or safeguard):
            continue
        unit = next((u for u in block if "?" in u.plain), block[0])
        out.append(Dismissal(doc.section_of(unit.line), first or question, answer, unit))
    for sec in doc.sections:
        if sec.level == 0 or not V.risk_topic.search(sec.heading):
            continue
        body = [u for u in doc.units if sec.start_line < u.line <= sec.end_line and u.kind != "heading"]
        if len(body) == 1 and V.dismissal.search(body[0].plain) and subtree_end(doc.sections, sec) == sec.end_line:
            out.append(Dismissal(sec, sec.heading, body[0].plain, body[0]))
    return out


# ------------------------------------------------------------------------------------ open decisions


@dataclass
class OpenItem:
    unit: Sentence
    match: re.Match[str] | None
    group: MdSection | None  # the open-questions section it sits in, or its own section
    decisive: bool


def open_decisions(doc: Doc) -> list[OpenItem]:
    """What the design says is still undecided: admissions in its text ('We don't know yet',
    'still under development', 'not the final name') and each question of a section of open
    questions ('Unresolved questions'). Future work, alternatives and non-goals are not open
    decisions of this design, nor is what is unclear about an idea offered on top of it ('one
    possibility to further reduce ... although it is not clear what') or about something it says
    is not part of it ('not part of this proposal today, but we are considering adding it')."""
    open_secs = [s for s in doc.sections if s.level > 0 and V.sec_open.search(s.heading)]
    spans = [(s, s.start_line, subtree_end(doc.sections, s)) for s in open_secs]
    out: list[OpenItem] = []
    items: dict[int, list[Sentence]] = {}  # one item per list item (or paragraph) of an open-questions section
    for u in doc.units:
        if u.kind == "heading" or skip_context(doc, u):
            continue
        owner = next((s for s, a, b in spans if a <= u.line <= b), None)
        m = V.open_decision.search(u.plain)
        if owner is None:
            if m and not V.optional_idea.search(u.plain) and not V.deferral.search(u.plain):
                out.append(OpenItem(u, m, doc.section_of(u.line), bool(V.open_decisive.search(u.plain))))
            continue
        if u.kind == "bullet" or m or u.plain.rstrip().endswith("?"):
            items.setdefault(u.block, []).append(u)
    for block in items.values():
        owner = next(s for s, a, b in spans if a <= block[0].line <= b)
        hits = [(u, m) for u in block for m in [V.open_decision.search(u.plain)] if m]
        u, m = hits[0] if hits else (next((v for v in block if v.plain.rstrip().endswith("?")), block[0]), None)
        out.append(OpenItem(u, m, owner, bool(V.open_decisive.search(" ".join(v.plain for v in block)))))
    return sorted(out, key=lambda o: o.unit.line)


# ------------------------------------------------------------------------------------ unenforced, dismissed


def unenforced(doc: Doc) -> list[tuple[Sentence, re.Match[str]]]:
    """Sentences in which the design says a property it relies on is not enforced, checked or
    guaranteed, or is left to its users ('does not prevent', 'cannot currently enforce', 'it is up
    to the service owner to')."""
    return [(u, m) for u, m in all_matches(doc, V.unenforced) if u.kind != "heading"]


def dismissed_risks(doc: Doc) -> list[tuple[Sentence, re.Match[str]]]:
    """A risk (security, privacy, compatibility, ...) waved away, unless the next sentence takes
    it back ('Nevertheless, ...')."""
    out = []
    units = doc.units
    for u, m in all_matches(doc, V.dismissed_risk):
        sec = doc.section_of(u.line)
        if not (V.risk_word.search(u.plain) or (sec and V.risk_word.search(sec.heading))):
            continue
        i = doc.position(u)
        nxt = next((v for v in units[i + 1:] if v.kind != "heading"), None)
        if nxt is not None and V.dismissal_qualified.search(nxt.plain):
            continue
        out.append((u, m))
    return out


# ------------------------------------------------------------------------------------ secrets


@dataclass
class SecretIssue:
    unit: Sentence
    noun: str  # the secret as written ('reset token')
    kind: str  # plaintext | unprotected | predictable
    access: bool  # the secret grants access (a reset, session or API token, a password)
    match: re.Match[str]


def secret_handling(doc: Doc) -> list[SecretIssue]:
    """Secrets and tokens the design stores in plain text, stores or logs with no protection
    stated nearby, or makes from guessable parts (a timestamp, a user id, a counter, MD5 of
    an email). A token said to come from a secure random source is not predictable."""
    out: list[SecretIssue] = []
    for u in doc.units:
        if u.kind == "heading" or skip_context(doc, u):
            continue
        noun = V.secret_noun.search(u.plain)
        if not noun:
            continue
        near = " ".join(v.plain for v in doc.neighbours(u, 1))
        access = bool(V.access_secret.search(noun.group(0)) or V.access_secret.search(u.plain[max(0, noun.start() - 30): noun.end()]))
        plain_m = V.plaintext.search(u.plain)
        if plain_m:
            out.append(SecretIssue(u, noun.group(0), "plaintext", access, plain_m))
            continue
        pred = V.predictable.search(u.plain)
        if pred and V.secret_made.search(u.plain) and not V.unguessable.search(near):
            out.append(SecretIssue(u, noun.group(0), "predictable", access, pred))
            continue
        stored = V.stored_in.search(u.plain)
        if stored and access and not V.protected.search(near) and not re.search(r"\b(never|not|no)\b[^.;]{0,20}" + re.escape(stored.group(1)), u.plain, re.I):
            out.append(SecretIssue(u, noun.group(0), "unprotected", access, stored))
    return out


# ------------------------------------------------------------------------------------ estimates

_COUNT = {"one": 1, "a single": 1, "a": 1, "an": 1, "half a": 0.5, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
          "seven": 7, "eight": 8, "nine": 9, "ten": 10, "twelve": 12}
_DAYS = {"hour": 1 / 8, "day": 1, "week": 5, "sprint": 10, "month": 21}


def _count(word: str) -> float:
    word = word.lower()
    return _COUNT[word] if word in _COUNT else float(word)


def _days(unit: str) -> float:
    return _DAYS[unit.lower().rstrip("s")]


@dataclass
class Estimate:
    unit: Sentence
    person_days: float
    raw: str


def effort_estimates(doc: Doc) -> list[Estimate]:
    """Effort the design or plan states: 'N engineer-weeks', or a team size and a span in one
    sentence ('one engineer, two days'), in person-days."""
    out = []
    for u in doc.units:
        if u.kind == "heading":
            continue
        m = V.person_effort.search(u.plain)
        if m:
            out.append(Estimate(u, _count(m["n"]) * _days(m["unit"]), m.group(0)))
            continue
        people, span = V.staffing.search(u.plain), V.effort_span.search(u.plain)
        if people and span and V.effort_context.search(u.plain + " " + (doc.section_of(u.line).heading if doc.section_of(u.line) else "")):
            raw = u.plain[min(people.start(), span.start()): max(people.end(), span.end())]
            out.append(Estimate(u, _count(people["people"]) * _count(span["n"]) * _days(span["unit"]), raw))
    return out
