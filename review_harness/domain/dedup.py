"""Two-stage dedup between the analysis reviewer's and the domain reviewer's findings.

Stage 1 (no model call), per pair, three signals: the same metric or method named in both; the
same section of the document (or overlapping quotes); the same or a similar alternative proposed.
Two or more signals: one issue, the domain version is kept. None: two issues. Exactly one:
inconclusive, so stage 2 asks the model "same underlying issue?" for that pair only.
Every decision is recorded (pair, stage, signals, outcome), so a re-run of synthesis can replay
the stage-2 answers from the log without a model call.
"""

from __future__ import annotations

import json
import re

import anyio

from inspect_ai.model import ChatMessageUser, Model
from pydantic import BaseModel
from rapidfuzz import fuzz

from review_harness.core.jsonsalvage import load_json_lenient
from review_harness.core.matching import normalize_space, quote_overlap
from review_harness.core.member import ParseOutcome, RetryPolicy, call_member
from review_harness.core.paths import PROMPTS_DIR
from review_harness.core.prompts import neutralize_delimiters, template_environment
from review_harness.core.text import content_words
from review_harness.core.schema import response_schema
from review_harness.domain.members import DEDUP
from review_harness.domain.reviewer import DedupSettings
from review_harness.domain.topics import SEARCH_TERMS as TERMS

ACRONYM_RE = re.compile(r"\b[A-Z][A-Z0-9@]{1,}\b")
QUOTE_OVERLAP = 0.8
DEDUP_POLICY = RetryPolicy(timeout_seconds=60.0)  # a yes/no question: a minute is plenty


class FindingRef(BaseModel):
    """What dedup needs of a finding of either reviewer."""

    id: str
    summary: str
    quote: str | None = None
    section: str | None = None
    fix: str | None = None


class DedupDecision(BaseModel):
    analysis_id: str
    domain_id: str
    stage: str  # heuristic | llm | llm-failed
    signals: list[str]
    duplicate: bool
    kept: str | None = None  # the domain finding's id when merged
    reason: str


class DedupAnswer(BaseModel):
    same_issue: bool
    reason: str


DEDUP_SCHEMA = response_schema("dedup_answer", DedupAnswer, description="whether two findings are one issue")


def terms_in(text: str) -> set[str]:
    low = text.lower()
    found = {t for t in TERMS if t in low}
    found |= {a.lower() for a in ACRONYM_RE.findall(text) if a.lower() not in {"tl", "dr", "ok"}}
    return found


def _text(f: FindingRef) -> str:
    return " ".join(x for x in (f.summary, f.quote or "") if x)


def signals(analysis: FindingRef, domain: FindingRef, settings: DedupSettings) -> list[str]:
    """Which stage-1 signals two findings share."""
    out = []
    shared = terms_in(_text(analysis)) & terms_in(_text(domain))
    if shared:
        out.append(f"same metric/method: {', '.join(sorted(shared))}")
    same_section = (analysis.section and domain.section
                    and normalize_space(analysis.section).lower() == normalize_space(domain.section).lower())
    if same_section:
        out.append(f"same section: {analysis.section}")
    elif quote_overlap(analysis.quote, domain.quote) >= QUOTE_OVERLAP:
        out.append("overlapping quotes")
    if analysis.fix and domain.fix:
        similarity = fuzz.token_set_ratio(analysis.fix.lower(), domain.fix.lower()) / 100
        fix_terms = terms_in(analysis.fix) & terms_in(domain.fix)
        if similarity >= settings.alternative_similarity or fix_terms:
            out.append(f"similar alternative ({similarity:.2f}" + (f"; {', '.join(sorted(fix_terms))}" if fix_terms else "") + ")")
    return out


def heuristic_stage(analysis: list[FindingRef], domain: list[FindingRef], settings: DedupSettings
                    ) -> tuple[list[DedupDecision], list[tuple[FindingRef, FindingRef, list[str]]]]:
    """Stage 1 over all pairs: decisions for conclusive pairs, the inconclusive pairs to ask.
    An analysis finding merges into at most one domain finding."""
    decisions: list[DedupDecision] = []
    questions = []
    merged: set[str] = set()
    for a in analysis:
        for d in domain:
            found = signals(a, d, settings)
            if a.id in merged:
                break
            if len(found) >= settings.signals_to_merge:
                merged.add(a.id)
                decisions.append(DedupDecision(analysis_id=a.id, domain_id=d.id, stage="heuristic", signals=found,
                                               duplicate=True, kept=d.id, reason=f"{len(found)} signals match"))
            elif len(found) == 1:
                questions.append((a, d, found))
    # a pair is only asked about when its analysis finding was not merged conclusively
    return decisions, [(a, d, s) for a, d, s in questions if a.id not in merged]


def dedup_prompt(analysis: FindingRef, domain: FindingRef) -> str:
    env = template_environment(str(PROMPTS_DIR / "domain"))
    pair = json.dumps({"analysis": analysis.model_dump(), "domain": domain.model_dump()}, indent=1)
    return env.get_template("dedup_request.v1.j2").render(pair=neutralize_delimiters(pair, "<findings>", "</findings>"))


def parse_dedup_answer(text: str) -> ParseOutcome[DedupAnswer]:
    """The stage-2 answer; anything but a whole answer in the schema is malformed."""
    data, repaired, problem, _ = load_json_lenient(text) if text else (None, False, "empty answer", False)
    if not isinstance(data, dict) or repaired:
        return ParseOutcome(None, [problem or "no JSON object"], malformed=True)
    try:
        return ParseOutcome(DedupAnswer.model_validate(data))
    except ValueError as ex:
        return ParseOutcome(None, [f"answer does not fit the schema ({str(ex).splitlines()[0]})"], malformed=True)


def llm_decision(analysis: FindingRef, domain: FindingRef, found: list[str], answer: DedupAnswer | None,
                 failure: str | None = None) -> DedupDecision:
    """Stage 2's decision from the model's answer; no usable answer keeps both findings."""
    if answer is None:
        return DedupDecision(analysis_id=analysis.id, domain_id=domain.id, stage="llm-failed", signals=found,
                             duplicate=False, reason=f"kept both: no usable answer ({failure or 'empty answer'})")
    return DedupDecision(analysis_id=analysis.id, domain_id=domain.id, stage="llm", signals=found,
                         duplicate=answer.same_issue, kept=domain.id if answer.same_issue else None,
                         reason=answer.reason)


async def dedup(analysis: list[FindingRef], domain: list[FindingRef], settings: DedupSettings,
                model: Model | None = None, recorded: list[DedupDecision] | None = None) -> list[DedupDecision]:
    """Both stages. `recorded` decisions (from a log) answer stage-2 pairs without a model call.
    The stage-2 questions go out at once (one round trip however many there are); their answers
    are then applied in pair order, so an analysis finding merges into its first match."""
    decisions, questions = heuristic_stage(analysis, domain, settings)
    replay = {(r.analysis_id, r.domain_id): r for r in recorded or [] if r.stage.startswith("llm")}
    if model is not None:
        asked = [(a, d, found) for a, d, found in questions if (a.id, d.id) not in replay]

        async def ask(a: FindingRef, d: FindingRef, found: list[str]) -> None:
            result = await call_member("domain", DEDUP, [ChatMessageUser(content=dedup_prompt(a, d))], DEDUP_SCHEMA,
                                       parse_dedup_answer, policy=DEDUP_POLICY, model=model,
                                       span_name=f"dedup {a.id}/{d.id}")
            replay[(a.id, d.id)] = llm_decision(a, d, found, result.report, result.run.describe())

        async with anyio.create_task_group() as group:
            for a, d, found in asked:
                group.start_soon(ask, a, d, found)
    merged = {d.analysis_id for d in decisions}
    for a, d, found in questions:
        if a.id in merged:
            continue
        if (a.id, d.id) in replay:
            decision = replay[(a.id, d.id)]
        else:
            decision = llm_decision(a, d, found, None, "no model to ask and no recorded answer")
        if decision.duplicate:
            merged.add(a.id)
        decisions.append(decision)
    return decisions


def replay_dedup(analysis: list[FindingRef], domain: list[FindingRef], settings: DedupSettings,
                 recorded: list[DedupDecision]) -> list[DedupDecision]:
    """Both stages with no model call, for a synthesis re-run (`inspect score`): stage 1 again,
    stage 2 from the recorded decisions (a pair with none keeps both findings)."""
    coroutine = dedup(analysis, domain, settings, model=None, recorded=recorded)
    try:  # with no model the coroutine never awaits: it finishes in one step
        coroutine.send(None)
    except StopIteration as done:
        return done.value
    coroutine.close()
    raise RuntimeError("dedup replay tried to call a model")


def suppressed(decisions: list[DedupDecision]) -> set[str]:
    """Analysis finding ids to drop (their domain version stands)."""
    return {d.analysis_id for d in decisions if d.duplicate}


SAME_QUOTE = 0.8
SAME_WORDS = 0.25


def issue_words(text: str) -> set[str]:
    """Words that carry the issue: content words but no metric or method names (those are what
    two different issues about one metric share), cut to a 6-letter stem."""
    return {w[:6] for w in content_words(text) if not terms_in(w)}


def offline_same_issue(analysis: dict, domain: dict) -> tuple[bool, str]:
    """The offline model's answer to the stage-2 question: the same issue when both quote the same
    passage, or when what they say is wrong and what they propose share enough words beyond the
    metric's name."""
    overlap = quote_overlap(analysis.get("quote"), domain.get("quote"))
    a = issue_words(f"{analysis.get('summary', '')} {analysis.get('fix') or ''}")
    d = issue_words(f"{domain.get('summary', '')} {domain.get('fix') or ''}")
    shared = len(a & d) / len(a | d) if a | d else 0.0
    same = overlap >= SAME_QUOTE or shared >= SAME_WORDS
    return same, f"quote overlap {overlap:.2f}, shared issue words {shared:.2f}"
