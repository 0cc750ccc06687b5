"""Substance checks: what is wrong in a design, not what is missing from its form.

Each check is a row of prompts/design/substance_checks.yaml (its word patterns) run by the reading
the row names, registered as a detector under the row's id:

* ``claim_against_failure_path``: every claim that a dependency is always there is checked for
  the dependency's failure path elsewhere in the design: the claim contradicts it, or there is none;
* ``failure_path_drops_work``: a failure path that acknowledges, drops or only logs the work, with
  nothing beside it that retries, parks or alerts, loses the work and is not failure handling;
* ``requirement_failure_path_missing``: a requirement about failures asks for retries, a timeout, a
  fallback or a dead-letter path, and the design has no mechanism of that kind anywhere;
* ``claim_beside_change``: "backwards compatible" / "no behaviour changes" beside a passage that
  changes what callers must do or what users see;
* ``counted_quantity_two_values``: one counted or sized thing (a stream's shards, a backup's
  retention) given two values in two sentences;
* ``removed_since_previous``: what the previous version said and this one removed (failure handling,
  a requirement's design, a guarantee) and nothing in this version still says.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from review_harness.core.markdown import Sentence
from review_harness.core.patterns import PatternTable, compile_patterns
from review_harness.core.yamlio import read_mapping
from review_harness.design.offline.document import Doc, all_matches, clause, quote_of, short, skip_context
from review_harness.design.offline.registry import Ctx, detector
from review_harness.design.offline.requirements import Req
from review_harness.core.text import negated_before
from review_harness.design.offline.vocabulary import GENERIC, STOPWORDS, V, canon_id, ids_referenced, stem, surface_words, term_set
from review_harness.design.personas import PROMPTS_DIR

CHECKS_FILE = PROMPTS_DIR / "substance_checks.yaml"


class SubstanceTableError(ValueError):
    """The substance checks table is missing, not YAML, or a row is malformed."""


@lru_cache(maxsize=1)
def checks() -> PatternTable:
    """The rows of the table, each a group of compiled patterns (its `reading` is kept as text)."""
    raw = read_mapping(CHECKS_FILE, SubstanceTableError, label="substance checks table", expected="a mapping with `checks`")
    rows = raw.get("checks")
    if not isinstance(rows, dict) or not rows:
        raise SubstanceTableError(f"{CHECKS_FILE}: `checks` must map check ids to rows")
    patterns = {}
    for cid, row in rows.items():
        if not isinstance(row, dict) or not isinstance(row.get("reading"), str):
            raise SubstanceTableError(f"{CHECKS_FILE}: check {cid!r} needs a `reading` and its patterns")
        patterns[cid] = {k: v for k, v in row.items() if k != "reading"}
    return compile_patterns(patterns, str(CHECKS_FILE))


def sentence_key(u: Sentence) -> str:
    """One key per sentence (two sentences of one paragraph line are two keys)."""
    return f"{u.line}:{u.plain[:48]}"


# ------------------------------------------------------------------------------- what a claim is about

_ARTICLE = re.compile(r"^(?:the|a|an|our|its|their|this|that|each|every|all)\s+", re.I)
_PARENS_NAME = r"\s*\(([A-Z][\w.-]+(?:\s[A-Z][\w.-]+)?)\)"


def claim_subject(text: str, start: int) -> str:
    """The noun phrase a claim is made of: the words of its clause before the claim."""
    head = text[:start]
    cut = max(head.rfind(c) for c in (",", ";", ":", "(", ". "))
    head = head[cut + 1:] if cut >= 0 else head
    head = re.sub(r"\b(?:in|on|at|for|within) (?:our|the|this) \w+\s*$", "", head.strip(), flags=re.I)  # "in our platform"
    words = re.findall(r"[A-Za-z][\w.-]*", head)
    return _ARTICLE.sub("", " ".join(words[-4:])).strip()


def subject_names(doc: Doc, subject: str) -> set[str]:
    """The words that name the subject ('mail provider' -> {mail, provider}) and the names the
    document gives it in parentheses ('the mail provider (SendGrid)' -> SendGrid)."""
    words = {w.lower() for w in re.findall(r"[A-Za-z][\w-]+", subject)
             if w.lower() not in STOPWORDS and w.lower() not in GENERIC and w.lower() not in {"is", "are", "will", "be"}}
    names = set(words)
    if subject:
        for m in re.finditer(re.escape(subject) + _PARENS_NAME, doc.text, re.I):
            names.add(m.group(1).lower())
    return names


def _mentions(text: str, names: set[str]) -> bool:
    low = text.lower()
    return any(re.search(r"\b" + re.escape(n) + r"\b", low) for n in names)


# ------------------------------------------------------------------------------------------ readings


@detector("always-claim-failure-path")
def always_claim_failure_path(ctx: Ctx) -> None:
    """Every claim that another system is always available, each one: its failure path elsewhere
    in the design contradicts it, or there is none."""
    row = checks()["always-claim-failure-path"]
    doc = ctx.artifact
    for u in doc.body_units():
        if u.kind in ("heading", "code") or skip_context(doc, u):
            continue
        for m in row.claim.finditer(u.plain):
            if negated_before(u.plain, m.start(), 12):
                continue
            subject = claim_subject(u.plain, m.start())
            if not V.outside_party.search(subject):
                continue  # a guarantee the design makes about itself
            names = subject_names(doc, subject)
            if not names:
                continue
            handled = next((v for v in doc.body_units() if v is not u and v.kind != "heading"
                            and _mentions(v.plain, names) and row.failure.search(v.plain)
                            and not row.claim.search(v.plain)), None)
            claim = clause(u.plain, m)
            if handled is not None:
                ctx.add(
                    "claim-contradicts-failure-path",
                    title=f"'{short(subject, 30)}' is called always available, yet the design handles it failing",
                    section=doc.path_of(u.line),
                    issue=(f"The design states '{claim}', and '{short(handled.plain, 110)}' ({doc.path_of(handled.line)}) "
                           f"describes {short(subject, 30)} failing: the claim contradicts the design's own failure path."),
                    why="Code written under the claim (no fallback, no error handling) has no path for the failure the other section admits.",
                    suggestion=f"Drop the claim, state {short(subject, 30)}'s documented availability, and design every path that uses it for its failure.",
                    evidence=quote_of(u, m.group(0)), key=f"always:{sentence_key(u)}:{m.start()}")
            else:
                ctx.add(
                    "claim-without-failure-path",
                    title="Dependency reliability taken as given",
                    section=doc.path_of(u.line),
                    issue=(f"The design states '{claim}' and no passage says what happens when {short(subject, 30)} "
                           "is down, slow or returns errors."),
                    why="Every dependency fails sometimes; the day it does, the design has no path and the failure reaches users unplanned.",
                    suggestion=f"State {short(subject, 30)}'s documented availability and design the behaviour for its outage (retry, queue, fallback, alert).",
                    evidence=quote_of(u, m.group(0)), key=f"always:{sentence_key(u)}:{m.start()}")


def dropping_failure_paths(doc: Doc) -> list[tuple[Sentence, re.Match[str]]]:
    """Failure paths that lose the work: on an error the work is acknowledged, dropped or only
    logged, and nothing in the sentence or its section retries, parks or alerts."""
    row = checks()["failure-drops-work"]
    out = []
    for u in doc.body_units():
        if u.kind in ("heading", "code") or skip_context(doc, u):
            continue
        cond = row.condition.search(u.plain)
        drop = row.drops.search(u.plain) if cond else None
        if not drop or negated_before(u.plain, drop.start(), 20):
            continue
        sec = doc.section_of(u.line)
        around = doc.units_under([sec]) if sec else doc.neighbours(u, 2)
        if any(row.keeps.search(v.plain) and not negated_before(v.plain, row.keeps.search(v.plain).start(), 25) for v in around):
            continue
        out.append((u, drop))
    return out


@detector("failure-drops-work")
def failure_drops_work(ctx: Ctx) -> None:
    """A failure path that loses the work it failed on."""
    doc = ctx.artifact
    for u, m in dropping_failure_paths(doc)[:2]:
        ctx.add(
            "failure-path-loses-work", title="Failure handling loses the work it failed on",
            section=doc.path_of(u.line),
            issue=(f"The design's failure path is '{short(u.plain, 120)}': the work is {short(m.group(0), 40)} and nothing "
                   "retries it, parks it in a dead-letter store or alerts anyone."),
            why="Every failure silently loses the operation (an email, a message, a write); nobody knows how many were lost or which.",
            suggestion="Retry with a bound and backoff, park what still fails in a dead-letter store with an alert, and count the losses.",
            evidence=quote_of(u, m.group(0)), key=f"drops:{sentence_key(u)}")


# what a design does when it provides each kind of failure behaviour, for the finding's text
_PROVIDING = {"retries": "retries the failed operation", "timeout": "sets a timeout",
              "fallback": "falls back or degrades", "dead-letter": "parks failed work in a dead-letter store"}


@detector("required-failure-behaviour")
def required_failure_behaviour(ctx: Ctx) -> None:
    """Failure behaviour a requirement asks for (retries, a timeout, a fallback, a dead-letter
    path) of which the design has no mechanism of that kind anywhere."""
    row = checks()["required-failure-behaviour"]
    doc = ctx.artifact
    if doc is ctx.requirements or ctx.requirements.empty:
        return  # the requirements under review are not checked against themselves
    design_text = [u.plain for u in doc.units_with_code if not skip_context(doc, u)]
    missing: dict[str, list[tuple[Req, re.Match[str]]]] = {}
    for r in ctx.reqset.reqs:
        if r.kind == "nongoal" or r.priority == "wont" or not row.failure.search(r.text):
            continue
        for kind, asks in row.asks.items():
            m = asks.search(r.text)
            if m is None or negated_before(r.text, m.start(), 25):
                continue
            if not any(row.provides[kind].search(t) for t in design_text):
                missing.setdefault(kind, []).append((r, m))
    if not missing:
        return
    asked = [(kind, r, m) for kind, hits in missing.items() for r, m in hits]
    labels = list(dict.fromkeys(r.rid or "a requirement" for _, r, _ in asked))
    kinds = list(missing)
    lead_kind, lead, lm = asked[0]
    quoted = next((u for u in [lead.unit, *lead.extra] if row.asks[lead_kind].search(u.plain)), lead.unit)
    where = ctx.requirements.path_of(lead.unit.line)
    ctx.add(
        "required-failure-path-missing", when={"must": any(r.priority == "must" for _, r, _ in asked)},
        title=f"Failure handling that {' and '.join(labels[:3])} count{'s' if len(labels) == 1 else ''} on is missing ({', '.join(kinds)})",
        section=where,
        issue=("The requirements count on failure behaviour the design never provides: "
               + "; ".join(f"{r.label} names {kind} ('{clause(r.text, m, 80)}')" for kind, r, m in asked[:4])
               + ". No passage of the design " + " or ".join(_PROVIDING[k] for k in kinds) + "."),
        why="The requirement holds only on the failure path, and the design has none for it: the first failure breaks the requirement in production, untested.",
        suggestion=("Add the failure handling the requirements name: the retry policy (attempts, backoff, what happens after the last), "
                    "the timeout of each call, the fallback, the dead-letter path, and who is alerted."),
        evidence=quote_of(quoted, lm.group(0)), key="required-failure-path")


@detector("compatibility-beside-change")
def compatibility_beside_change(ctx: Ctx) -> None:
    """A compatibility claim beside a change to what callers must do or what users see: in the same
    section, or anywhere when the claim sits in a compatibility section."""
    row = checks()["compatibility-beside-change"]
    doc = ctx.artifact
    claims = [(u, m) for u, m in all_matches(doc, row.claim) if not negated_before(u.plain, m.start(), 20)
              and not re.search(r"\b(?:if|unless|whether|may not|might not)\b", u.plain[max(0, m.start() - 40): m.start()], re.I)]
    if not claims:
        return
    changes = [(v, mm) for v in doc.body_units() if v.kind not in ("heading", "code") and not skip_context(doc, v)
               for mm in [row.change.search(v.plain)] if mm and not negated_before(v.plain, mm.start(), 20)]
    title = doc.single_title

    def top(line: int) -> str:  # the part of the document a line is in (below a single title)
        path = doc.path_of(line)
        if title and path.startswith(title):
            path = path[len(title):].lstrip(" >")
        return path.split(" > ")[0]

    for u, m in claims:
        in_compat_section = bool(row.section.search(top(u.line)))
        near = [(v, mm) for v, mm in changes if v is not u and (in_compat_section or top(v.line) == top(u.line))]
        if not near:
            continue
        v, mm = near[0]
        ctx.add(
            "compatibility-claim-beside-change", title="Compatibility claimed beside a change callers or users see",
            section=doc.path_of(u.line),
            issue=(f"The design says '{clause(u.plain, m, 90)}', and '{short(v.plain, 120)}' ({doc.path_of(v.line)}) changes "
                   "what existing callers must do or what users see."),
            why="Readers who trust the compatibility claim skip the migration, and the change breaks them on upgrade.",
            suggestion="Narrow the claim to what really stays the same, and list each change with who it breaks and how they migrate.",
            # a compatibility section's claim is the statement to correct; elsewhere the change is
            evidence=quote_of(u, m.group(0)) if in_compat_section else quote_of(v, mm.group(0)), key=f"compat:{sentence_key(v)}")
        return


_UNIT_STEM = {"retries": "retry", "percent": "%", "rps": "requests per second", "qps": "requests per second"}


def _unit_key(unit: str) -> str:
    u = unit.lower()
    u = _UNIT_STEM.get(u, u)
    return u[:-1] if u.endswith("s") and len(u) > 3 and u not in ("requests per second",) else u


def _figure(raw: str) -> float:
    return float(raw.replace(",", ""))


def _about(text: str, start: int, end: int) -> set[str]:
    """What a figure counts: the distinctive words of its clause (names, not verbs of doing)."""
    left = text[:start]
    cut = max(left.rfind(c) for c in (";", ". ", ":"))
    right = text[end:]
    stop = re.search(r"[;.]\s|,\s(?:and|so|which|then)\b", right)
    clause_text = (left[cut + 1:] if cut >= 0 else left)[-80:] + " " + (right[: stop.start()] if stop else right)[:40]
    return term_set(clause_text) - {"day", "hour", "minut", "second", "week", "month", "year"}


@dataclass(frozen=True)
class _Stated:
    """A figure the design states: where, the match, what it is compared under, its value, what it counts."""

    unit: Sentence
    match: re.Match[str]
    key: tuple[str, str]  # its unit, and what it is counted per ('' when it is no rate)
    value: float
    about: frozenset[str]
    approximate: bool


APPROXIMATE_APART = 2.0  # an approximate figure disagrees with another only this many times apart


def _stated_figures(doc: Doc, row: PatternTable) -> list[_Stated]:
    stated = []
    for u in doc.body_units():
        if u.kind == "code" or skip_context(doc, u):
            continue
        for m in row.figure.finditer(u.plain):
            if row.not_one_value.search(u.plain[max(0, m.start() - 40): m.end() + 25]):
                continue
            per = row.rate_after.match(u.plain[m.end(): m.end() + 25]) or row.rate_before.search(u.plain[max(0, m.start() - 60): m.start()])
            key = (_unit_key(m.group(2)), stem(per.group(1)) if per else "")
            stated.append(_Stated(u, m, key, _figure(m.group(1)), frozenset(_about(u.plain, m.start(), m.end())),
                                  bool(row.approximate.search(u.plain[max(0, m.start() - 20): m.start()]))))
    return stated


def _disagree(a: _Stated, b: _Stated) -> bool:
    """Two statements of one figure (the same unit, counted per the same thing) with different values."""
    if a.unit is b.unit or a.key != b.key or a.value == b.value or min(a.value, b.value) <= 0:
        return False
    if (a.approximate or b.approximate) and max(a.value, b.value) < APPROXIMATE_APART * min(a.value, b.value):
        return False
    names_a, names_b = set(re.findall(r"`([^`]+)`", a.unit.text)), set(re.findall(r"`([^`]+)`", b.unit.text))
    if names_a and names_b and not names_a & names_b:
        return False  # each names its own thing ('delivery_attempts' and 'deliveries')
    small, large = sorted((a.about, b.about), key=len)
    return len(a.about & b.about) >= 2 or bool(small and small <= large)


@detector("quantities-disagree")
def quantities_disagree(ctx: Ctx) -> None:
    """One counted or sized thing given two values in different sentences of the design: the same
    unit, counted per the same thing (5 replicas per range against 15 replicas per range)."""
    doc = ctx.artifact
    stated = _stated_figures(doc, checks()["quantities-disagree"])
    reported = 0
    for i, a in enumerate(stated):
        b = next((b for b in stated[i + 1:] if _disagree(a, b)), None)
        if b is None:
            continue
        u, m, v, mm = a.unit, a.match, b.unit, b.match
        shared = a.about & b.about
        ctx.add(
            "figures-disagree-count", title=f"The design gives one quantity two values ({m.group(0)} and {mm.group(0)})",
            section=doc.path_of(v.line),
            issue=(f"'{short(u.plain, 90)}' ({doc.path_of(u.line)}) says {m.group(0)}, and '{short(v.plain, 90)}' "
                   f"({doc.path_of(v.line)}) says {mm.group(0)} for the same {', '.join(sorted(surface_words(u.plain + ' ' + v.plain, set(shared)))[:3]) or 'thing'}."),
            why="Whichever value is built, the other statement is wrong: capacity, cost or retention is sized on a figure the system does not have.",
            suggestion="Settle one value, state it once, and refer to that statement elsewhere.",
            evidence=quote_of(v, mm.group(0)), key=f"count:{sentence_key(u)}:{sentence_key(v)}")
        reported += 1
        if reported >= 2:
            return


def _removed_sentences(ctx: Ctx) -> list[str]:
    """The removed lines as sentences (headings and blank lines left out)."""
    out = []
    for line in ctx.removed.splitlines():
        text = line.strip()
        if not text or text.startswith("#") or set(text) <= set("-=*_|: "):
            continue
        out.extend(s.strip() for s in re.split(r"(?<=[.!?])\s+", text) if len(s.strip()) > 12)
    return out


def _still_said(doc: Doc, sentence: str, share: float = 0.6, kind: re.Pattern[str] | None = None) -> bool:
    """Whether the current version still says most of a removed sentence somewhere (with a word of
    the same `kind` when given: a guarantee is still said only by a sentence that guarantees)."""
    terms = term_set(sentence)
    if not terms:
        return True
    return any(len(terms & term_set(u.plain)) >= share * len(terms) and (kind is None or kind.search(u.plain))
               for u in doc.units)


@detector("removed-failure-handling")
def removed_failure_handling(ctx: Ctx) -> None:
    """Failure handling the previous version had and this one removed."""
    doc = ctx.artifact
    lost = [s for s in _removed_sentences(ctx)
            if (V.handling_mechanism.search(s) or V.failure_condition.search(s))
            and not _still_said(doc, s, kind=V.handling_mechanism)]
    if not lost:
        return
    remaining = any(V.handling_mechanism.search(u.plain) or V.failure_condition.search(u.plain) for u in doc.body_units())
    ctx.add(
        "failure-handling-removed", when={"none-left": not remaining},
        title="Failure handling removed since the previous version", section=doc.title or "(whole document)",
        issue=(f"The previous version said '{short(lost[0], 120)}'" + (f" and {len(lost) - 1} more sentence(s) on failures" if len(lost) > 1 else "")
               + "; this version no longer says it anywhere" + ("" if remaining else ", and now has no failure handling, retries, timeouts or fallbacks at all") + "."),
        why="A revision that drops failure handling leaves the failures it covered unhandled; fewer findings here means less was written, not that the design got safer.",
        suggestion="Restore the failure handling (retries, timeouts, fallbacks, dead-letter paths) or say what replaces it and why.",
        evidence=None, key="removed-failure")


@detector("removed-commitments")
def removed_commitments(ctx: Ctx) -> None:
    """A requirement's design or a guarantee the previous version had and this one removed."""
    row = checks()["removed-in-revision"]
    doc = ctx.artifact
    sentences = _removed_sentences(ctx)
    if not sentences:
        return
    cited_now = ids_referenced(doc.text)
    lost_ids = []
    for s in sentences:
        for rid in sorted(ids_referenced(s) - cited_now):
            if any(r.rid and canon_id(r.rid) == rid for r in ctx.reqset.reqs) and rid not in lost_ids:
                lost_ids.append(rid)
    if lost_ids:
        ctx.add(
            "requirement-design-removed",
            title=f"The design of {', '.join(lost_ids[:3])} was removed since the previous version", section=doc.title or "(whole document)",
            issue=(f"The previous version addressed {', '.join(lost_ids)}; the passages that did are gone and this version no longer "
                   "cites them."),
            why="A requirement whose design is deleted ships unmet unless someone notices the deletion.",
            suggestion=f"Restore the design of {', '.join(lost_ids[:3])}, or record the descoping as an agreed change to the requirements.",
            evidence=None, key="removed-req")
    guarantees = [s for s in sentences if row.guarantee.search(s) and not _still_said(doc, s, kind=row.guarantee)]
    if guarantees:
        ctx.add(
            "guarantee-removed",
            title="A guarantee was removed since the previous version", section=doc.title or "(whole document)",
            issue=f"The previous version promised '{short(guarantees[0], 120)}'; this version no longer says it anywhere.",
            why="Users and other teams built on the guarantee; dropping it silently changes what they can rely on.",
            suggestion="Keep the guarantee, or state that it is withdrawn, why, and who has to change.",
            evidence=None, key="removed-guarantee")
