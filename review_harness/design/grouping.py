"""The deterministic synthesizer of the design review.

``group_findings(reports)`` answers what the synthesizer model answers (``SynthesisAnswer``):

* groups: findings from different personas that describe one issue (same or overlapping
  evidence quote with agreeing wording, or same section and closely matching wording), every
  finding in exactly one group; two problems that quote one sentence stay two findings; the group's title is its most severe member's, its primary phase the most upstream
  member phase;
* contradictions: a finding against something another persona checked and found sound, or two
  findings on one section whose suggestions pull in opposite directions (add versus cut); both
  positions are given with tie-breaking criteria, and no winner is picked;
* patterns: groups clustered into at most 15 themes by shared key terms;
* auto_fixes: the fixes that findings carry in their suggestion (`autofix.mechanical_suggestion`,
  written by the offline reviewer's document checks).

Reviewer finding ids are ``{persona}-{n:03d}``, n the 1-based position in the persona's list.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rapidfuzz import fuzz

from review_harness.core.markdown import normalize
from review_harness.design.autofix import proposal_in
from review_harness.core.text import STOPWORDS, content_words, words
from review_harness.design.models import (
    Contradiction,
    ContradictionPosition,
    FindingGroup,
    Pattern,
    PersonaFinding,
    PersonaReport,
    SynthesisAnswer,
)

PHASE_ORDER = {"survey": 0, "calibrate": 1, "design": 2, "plan": 3}
PHASE_LABEL = {"survey": "survey gap", "calibrate": "calibrate gap", "design": "design flaw", "plan": "plan concern"}
SEV_ORDER = {"Critical": 0, "Important": 1, "Minor": 2}
MAX_PATTERNS = 15
TEXT_THRESHOLD = 72  # token_set_ratio of key words of title + issue, same section
EVIDENCE_THRESHOLD = 90
SAME_QUOTE_TEXT = 50  # with the same quote, this much agreement of title and issue makes one problem

# words every finding of a design review uses: they say nothing about which issue it is
_DESIGN_STOP = frozenset("design designs document requirement requirements section states stated".split())
_STOP = STOPWORDS | _DESIGN_STOP
_REQ_ID = re.compile(r"(?<![\w-])((?:REQ|FR|NFR|US|UC|AC|BR|SR|QR|CR|DR|SEC|PERF|OPS)[-_.]?\d+(?:\.\d+)*|R-?\d+(?:\.\d+)*)(?![\w-])")

_ADD = re.compile(r"^(add|extend|introduce|expand|increase|include|define|document|design|build|run|state|set|attach|cap|size|"
                  r"derive|describe|list|map|make|send|treat|replace|cite|record|number|name|give|move|split|show)\b", re.I)
_CUT = re.compile(r"^(remove|cut|drop|simplify|delete|defer|reduce|eliminate|merge|consolidate|restate|scope down|shrink|postpone)\b", re.I)
_ADD_ANY = re.compile(r"\b(add|extend|introduce|expand|increase|more|additional|another|second)\b", re.I)
_CUT_ANY = re.compile(r"\b(remove|cut|drop|simplify|delete|defer|reduce|eliminate|fewer|smaller|less)\b", re.I)

# themes for patterns: (slug, theme, key terms that vote for it)
THEMES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("contradictory-requirements", "Requirements that contradict each other",
     ("cannot both hold", "cannot all hold", "inconsistent requirements")),
    ("untraced-requirements", "Requirements the design does not trace or meet",
     ("not addressed", "untraced", "trace", "deferred", "never references", "contradicts", "success criteri", "breaks r", "forbids")),
    ("scope-creep", "Scope beyond the requirements",
     ("out of scope", "exclude", "no requirement", "extra scope", "gold", "objective includes", "excluded scope", "rebuilds")),
    ("unhandled-failure-modes", "Unhandled failure modes",
     ("timeout", "time out", "retry", "retries", "failure", "fallback", "idempot", "dead-letter", "poison", "backlog", "outcome", "single point")),
    ("unsafe-defaults-and-inputs", "Unsafe defaults and unbounded inputs",
     ("unrecognised", "default", "unbounded", "limit", "pagination", "empty", "null", "concurren")),
    ("stale-data", "Stale or late data",
     ("cache", "stale", "freshness", "propagat", "poll", "ttl")),
    ("unsupported-assumptions", "Claims and assumptions without evidence",
     ("assum", "asserted", "without evidence", "unsourced", "settled fact", "taken as given", "no source", "generalisation", "claim",
      "take care of itself", "unchecked")),
    ("unquantified-claims", "Qualities claimed without numbers",
     ("without a number", "adjective", "untestable", "measurable", "cannot be verified", "figure")),
    ("capacity-and-cost", "Capacity, cost and complexity",
     ("capacity", "cost", "effort", "moving parts", "components", "infrastructure", "instance", "on-call", "estimate")),
    ("build-versus-buy", "Building what already exists",
     ("custom", "in-house", "build", "alternatives", "existing", "already has")),
    ("problem-framing", "Problem framing and goals",
     ("problem", "goal", "objective", "framing", "success", "user", "scope has no")),
    ("operational-readiness", "Rollout, monitoring and contracts",
     ("rollout", "rollback", "monitor", "alert", "contract", "versioning", "migration")),
    ("plan-order-and-testing", "Plan order and testing",
     ("task", "later task", "testing", "tests", "debt", "estimates")),
)


@dataclass
class _F:
    fid: str
    persona: str
    idx: int
    f: PersonaFinding

    @property
    def sev(self) -> int:
        return SEV_ORDER[self.f.severity.value if hasattr(self.f.severity, "value") else str(self.f.severity)]


def finding_id(persona: str, n: int) -> str:
    return f"{persona}-{n:03d}"


def _flatten(reports: dict[str, PersonaReport]) -> list[_F]:
    out: list[_F] = []
    for persona in sorted(reports):
        for n, f in enumerate(reports[persona].findings, 1):
            out.append(_F(finding_id(persona, n), persona, len(out), f))
    return out


def _norm_evidence(e: str | None) -> str:
    if not e:
        return ""
    return re.sub(r"[^\w%$.,' ]+", " ", normalize(e)).strip(" .,")


def _key_words(text: str) -> str:
    return " ".join(w for w in words(normalize(text)) if w not in _STOP)


def _norm_section(s: str) -> str:
    return normalize(s).strip()


def _section_tail(s: str) -> str:
    return _norm_section(s.split(" > ")[-1])


def _same_evidence(a: _F, b: _F) -> int:
    ea, eb = _norm_evidence(a.f.evidence), _norm_evidence(b.f.evidence)
    if not ea or not eb:
        return 0
    if ea == eb:
        return 100
    short, long_ = sorted((ea, eb), key=len)
    if len(short) >= 25 and short in long_:
        return 97
    if min(len(ea), len(eb)) >= 25:
        r = fuzz.ratio(ea, eb)
        if r >= EVIDENCE_THRESHOLD:
            return int(r)
    return 0


def _same_section(a: _F, b: _F) -> bool:
    sa, sb = _norm_section(a.f.section), _norm_section(b.f.section)
    if not sa or not sb:
        return False
    return sa == sb or (len(_section_tail(sa)) > 3 and _section_tail(sa) == _section_tail(sb))


def _text_score(a: _F, b: _F) -> float:
    ta = _key_words(a.f.title + " " + a.f.issue)
    tb = _key_words(b.f.title + " " + b.f.issue)
    if not ta or not tb:
        return 0.0
    return fuzz.token_set_ratio(ta, tb)


def _shared_quote(a: _F, b: _F) -> bool:
    """Both issues quote the same phrase of the documents (a heading, a claim)."""
    qa = {normalize(q) for q in _quoted(a.f.issue) if len(q) >= 12}
    qb = {normalize(q) for q in _quoted(b.f.issue) if len(q) >= 12}
    return bool(qa & qb)


def _pair_score(a: _F, b: _F) -> float:
    """How surely two findings report one problem: the same evidence counts only when what they say
    about it agrees too (two problems often quote one sentence: 'T1 uses the queue that T3
    creates' is not 'no failure handling'); otherwise the same section and close wording."""
    ev = _same_evidence(a, b)
    if ev and _text_score(a, b) >= SAME_QUOTE_TEXT:
        return 200 + ev
    if _same_section(a, b):
        ts = _text_score(a, b)
        if ts >= TEXT_THRESHOLD:
            return ts
        if _shared_quote(a, b):
            return TEXT_THRESHOLD
    return 0.0


def _groups(items: list[_F]) -> list[list[_F]]:
    """Greedy merge of the best-matching pairs; a group holds at most one finding per persona."""
    parent = list(range(len(items)))
    personas = [{it.persona} for it in items]

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    pairs = []
    for i in range(len(items)):
        for j in range(i + 1, len(items)):
            if items[i].persona == items[j].persona:
                continue
            s = _pair_score(items[i], items[j])
            if s > 0:
                pairs.append((-s, i, j))
    for _, i, j in sorted(pairs):
        ri, rj = root(i), root(j)
        if ri == rj or personas[ri] & personas[rj]:
            continue
        lo, hi = min(ri, rj), max(ri, rj)
        parent[hi] = lo
        personas[lo] |= personas[hi]
    buckets: dict[int, list[_F]] = {}
    for i, it in enumerate(items):
        buckets.setdefault(root(i), []).append(it)
    groups = [sorted(m, key=lambda x: (x.sev, x.idx)) for m in buckets.values()]
    groups.sort(key=lambda g: (min(x.sev for x in g), min(PHASE_ORDER[x.f.phase] for x in g), min(x.idx for x in g)))
    return groups


def _group_model(members: list[_F]) -> FindingGroup:
    lead = members[0]  # most severe, earliest
    phases = sorted({m.f.phase for m in members}, key=PHASE_ORDER.get)
    primary = phases[0]
    upstream = [m.f.contributing_phase for m in members
                if m.f.contributing_phase and PHASE_ORDER[m.f.contributing_phase] < PHASE_ORDER[primary]]
    contributing = min(upstream, key=PHASE_ORDER.get) if upstream else None
    if len(members) == 1:
        rationale = f"{lead.fid} classifies it as a {PHASE_LABEL[primary]}."
    else:
        votes = "; ".join(f"{m.fid}: {m.f.phase}" for m in members)
        if len(phases) == 1:
            rationale = f"All {len(members)} reviewers place it in {primary} ({votes})."
        else:
            rationale = (f"Reviewers place it in {', '.join(phases)} ({votes}); {primary} is primary because it is the most "
                         "upstream phase among them, where the fix starts.")
    if contributing:
        who = next(m.fid for m in members if m.f.contributing_phase == contributing)
        rationale += f" {who} names {contributing} as the upstream cause."
    return FindingGroup(members=[m.fid for m in members], title=lead.f.title, primary_phase=primary,  # type: ignore[arg-type]
                        contributing_phase=contributing, phase_rationale=rationale)  # type: ignore[arg-type]


# ------------------------------------------------------------------------------------ contradictions

def _direction(suggestion: str) -> str | None:
    s = suggestion.strip()
    first_clause = _first_clause(s)
    if _CUT.match(s):
        return "cut"
    if _ADD.match(s):
        return None if _CUT_ANY.search(first_clause) else "add"
    add, cut = bool(_ADD_ANY.search(first_clause)), bool(_CUT_ANY.search(first_clause))
    if add != cut:
        return "add" if add else "cut"
    return None


def _quoted(text: str) -> list[str]:
    return re.findall(r"(?<![\w])'([^']{4,}?)'(?![\w])", text)


def _content(text: str) -> set[str]:
    return content_words(normalize(text), extra_stop=_DESIGN_STOP, stem=6)


def _fine_conflict(item: str, it: _F) -> bool:
    """Whether a checked-and-fine statement covers the claim or section a finding attacks."""
    item_n = normalize(item)
    ev = _norm_evidence(it.f.evidence)
    if ev and len(ev) >= 20 and (ev[:50] in _norm_evidence(item) or any(_norm_evidence(q) and _norm_evidence(q) in ev for q in _quoted(item) if len(q) >= 20)):
        return True
    ids_item = {m.upper() for m in _REQ_ID.findall(item)}
    ids_f = {m.upper() for m in _REQ_ID.findall(it.f.title + " " + it.f.issue)}
    if ids_item & ids_f and _MET.search(item) and _BROKEN.search(it.f.title + " " + it.f.issue):
        return True
    tail = _section_tail(it.f.section)
    if len(tail) > 3 and any(_section_tail(q) == tail or normalize(q) == _norm_section(it.f.section) for q in _quoted(item)):
        sec_words = _content(it.f.section)
        shared = (_content(item_n) & _content(it.f.title + " " + it.f.issue)) - sec_words
        return len(shared) >= 2
    return False


_MET = re.compile(r"\b(covered|met|meets|satisf\w+|addressed|sound|handled|holds?)\b", re.I)
_BROKEN = re.compile(r"\b(breaks?|broken|violat\w+|forbids?|contradicts?|fails?|not addressed|never|cannot|misses|missing)\b", re.I)

_TIE_FINE = (
    "Which position the documents' own text supports when read in full: quote the passage each side relies on.",
    "Which requirement is at stake, and its priority: a must requirement outweighs a quality concern.",
    "Cost of being wrong: which mistake is cheaper to undo after launch.",
)
_TIE_DIRECTION = (
    "Which requirement each suggestion serves, and that requirement's priority.",
    "Reversibility: which change is cheaper to undo if it turns out unnecessary.",
    "Delivery risk: which option keeps the required scope on schedule.",
)


def _contradictions(items: list[_F], reports: dict[str, PersonaReport], group_of: dict[str, int]) -> list[Contradiction]:
    out: list[Contradiction] = []
    seen: set[tuple] = set()
    for it in items:
        for persona in sorted(reports):
            if persona == it.persona:
                continue
            for item in reports[persona].checked_and_fine:
                if not _fine_conflict(item, it):
                    continue
                key = ("fine", group_of[it.fid], persona)
                if key in seen:
                    continue
                seen.add(key)
                out.append(Contradiction(
                    topic=it.f.title,
                    positions=[
                        ContradictionPosition(persona=it.persona, finding=it.fid, position=f"{it.f.issue} Suggests: {it.f.suggestion}"),
                        ContradictionPosition(persona=persona, finding=None, position=f"Checked and found sound: {item}"),
                    ],
                    tension=(f"{it.persona} reports a problem in '{it.f.section}', while {persona} checked the same claim or section "
                             "and found it sound; both cannot be right about the same text."),
                    tie_breakers=list(_TIE_FINE),
                ))
                break
    by_section: dict[str, list[_F]] = {}
    for it in items:
        by_section.setdefault(_norm_section(it.f.section), []).append(it)
    for sec, members in by_section.items():
        for i, a in enumerate(members):
            da = _direction(a.f.suggestion)
            if not da:
                continue
            for b in members[i + 1:]:
                if b.persona == a.persona:
                    continue
                db = _direction(b.f.suggestion)
                if not db or db == da:
                    continue
                key = ("dir",) + tuple(sorted((group_of[a.fid], group_of[b.fid])))
                if key in seen:
                    continue
                seen.add(key)
                add, cut = (a, b) if da == "add" else (b, a)
                out.append(Contradiction(
                    topic=f"{add.f.title} / {cut.f.title}",
                    positions=[
                        ContradictionPosition(persona=add.persona, finding=add.fid, position=add.f.suggestion),
                        ContradictionPosition(persona=cut.persona, finding=cut.fid, position=cut.f.suggestion),
                    ],
                    tension=(f"In '{add.f.section}', {add.persona} asks for more ({_first_clause(add.f.suggestion)}) while "
                             f"{cut.persona} asks for less ({_first_clause(cut.f.suggestion)}): completeness against simplicity."),
                    tie_breakers=list(_TIE_DIRECTION),
                ))
    return out


def _first_clause(s: str) -> str:
    c = re.split(r"[;:]|(?<!\d)\.(?:\s|$)|,\s(?:or|and)\s", s, maxsplit=1)[0].strip()
    return c if len(c) <= 90 else c[:87].rsplit(" ", 1)[0] + " …"


# ------------------------------------------------------------------------------------ patterns

def _has(text: str, key: str) -> bool:
    """Whether ``key`` starts a word in ``text`` (keys are word prefixes such as 'idempot')."""
    return re.search(r"(?<![a-z0-9])" + re.escape(key), text) is not None


def _theme_of(members: list[_F]) -> tuple[str, str]:
    text = normalize(" ".join(m.f.title + " " + m.f.issue for m in members))
    title_text = normalize(" ".join(m.f.title for m in members))
    best, score = None, 0.0
    for slug, theme, keys in THEMES:
        s = sum(2.0 if _has(title_text, k) else 1.0 for k in keys if _has(text, k))
        if s > score:
            best, score = (slug, theme), s
    if best is None:
        phase = min((m.f.phase for m in members), key=PHASE_ORDER.get)
        return f"other-{phase}", f"Other {PHASE_LABEL[phase]}s"
    return best


def _patterns(groups: list[list[_F]]) -> list[Pattern]:
    themes: dict[tuple[str, str], list[_F]] = {}
    order: list[tuple[str, str]] = []
    for g in groups:
        t = _theme_of(g)
        if t not in themes:
            themes[t] = []
            order.append(t)
        themes[t].extend(g)
    order.sort(key=lambda t: (-len(themes[t]), min(m.idx for m in themes[t])))
    if len(order) > MAX_PATTERNS:
        keep, rest = order[: MAX_PATTERNS - 1], order[MAX_PATTERNS - 1:]
        merged = [m for t in rest for m in themes[t]]
        other = ("other", "Other findings")
        themes[other] = merged
        order = keep + [other]
    out = []
    for i, t in enumerate(order, 1):
        members = sorted(themes[t], key=lambda m: m.idx)
        out.append(Pattern(id=f"p{i}-{t[0]}", theme=t[1], members=[m.fid for m in members]))
    return out


# ------------------------------------------------------------------------------------ entry point

def group_findings(reports: dict[str, PersonaReport]) -> SynthesisAnswer:
    """Group, classify and cross-check the personas' findings, deterministically."""
    items = _flatten(reports)
    groups = _groups(items)
    group_of = {m.fid: gi for gi, g in enumerate(groups) for m in g}
    fixes = [proposal_in(it.fid, it.f.suggestion) for it in items]
    return SynthesisAnswer(
        groups=[_group_model(g) for g in groups],
        contradictions=_contradictions(items, reports, group_of),
        patterns=_patterns(groups),
        auto_fixes=[f for f in fixes if f is not None],
    )
