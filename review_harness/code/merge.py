"""Merging two reviewers' reports of one stage, the confidence scenario, and the decision.

Merge: findings of model A and model B are matched one to one (same file, nearby lines,
same category, similar text); matched pairs are Agreed, the rest B-only or A-only, except a
finding at a place the other model explicitly checked and declared fine, which is a
Contradiction. A model's PASS/FAIL is derived here from its findings: FAIL when it reports a
Critical or Important finding. A stage fails when any model reports a blocking finding;
a model whose run did not complete counts as neither PASS nor agreement (the stage is
INCOMPLETE unless the remaining findings already fail it). What parsed of a malformed answer
is kept as that model's own findings, matched with none of the other's: it can fail the stage,
never pass it or agree.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

from rapidfuzz import fuzz

from review_harness.code.config import ReviewConfig
from review_harness.code.models import CheckedFine, CodeFinding, Confidence, MergedFinding, ReviewerAnswer, Severity, StageMerge
from review_harness.core.matching import one_to_one

MATCH_THRESHOLD = 0.6
LINE_WINDOW = 5
LINE_BUCKET = 5  # candidate pairs: findings in neighbouring buckets of this many lines

# (scenario, label, value, action), in the order they are tested: the first that applies wins
SCENARIOS: tuple[tuple[str, str, float, str], ...] = (
    ("incomplete", "Low", 0.4, "Human decides (a reviewer produced no report)"),
    ("both-fail-agreed-critical", "High", 0.9, "Auto-reject -> fix loop"),
    ("b-only-critical", "Medium", 0.7, "Human decides (stronger model found something)"),
    ("both-fail-agreed", "Medium", 0.6, "Human decides (both models name the same issues, none critical)"),
    ("both-fail-disagree", "Medium", 0.6, "Human decides (the models disagree on which issues)"),
    ("split", "Low", 0.4, "Human decides"),
    ("both-pass-clean", "Very High", 1.0, "Auto-approve"),
    ("both-pass-minor", "High", 0.85, "Auto-approve with notes"),
)


def model_verdict(report: ReviewerAnswer | None) -> str | None:
    if report is None:
        return None
    return "FAIL" if any(f.blocking for f in report.findings) else "PASS"


def similarity(a: CodeFinding, b: CodeFinding) -> float:
    if a.file != b.file:
        return 0.0
    if a.line is None and b.line is None:
        place = fuzz.token_set_ratio(a.quote or a.description, b.quote or b.description) / 100
    elif a.line is None or b.line is None:
        place = 0.3
    else:
        place = max(0.0, 1 - abs(a.line - b.line) / (LINE_WINDOW + 1))
    text = fuzz.token_set_ratio(a.description, b.description) / 100
    return 0.5 * place + 0.3 * (a.category == b.category) + 0.2 * text


EXACT_GROUP = 4_096  # line-less pairs of one file scored exhaustively up to this many
RARE_TOKEN = 8  # a word shared by at most this many line-less findings of one file pairs them up
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{3,}")


def _text_key(f: CodeFinding) -> str:
    return " ".join((f.quote or f.description).lower().split())


def candidate_pairs(a: list[CodeFinding], b: list[CodeFinding]) -> set[tuple[int, int]]:
    """The (A, B) index pairs whose similarity can reach MATCH_THRESHOLD, found without scoring
    every pair (a change of 300 files, or a spec of 10,000 requirements, has thousands of
    findings per model):

    - different files score 0: only pairs within one file are candidates;
    - two findings with lines need |line difference| <= 4 (at 5 the place counts 1/6 and the
      score stays under the threshold): pairs within neighbouring 5-line buckets;
    - a finding with a line and one without need the same category: pairs within (file, category);
    - two line-less findings (missing requirements, whole-file findings) compare their quotes:
      every pair while a file has few of them; beyond EXACT_GROUP pairs, those with the same
      quote or sharing a rare word (one used by at most RARE_TOKEN of them), so a long spec's
      findings pair with their twins in linear time.
    """
    out: set[tuple[int, int]] = set()
    b_near: dict[tuple[str, int], list[int]] = defaultdict(list)  # B's findings with a line, by 5-line bucket
    b_lined: dict[tuple[str, str], list[int]] = defaultdict(list)  # ... by (file, category)
    b_unlined: dict[tuple[str, str], list[int]] = defaultdict(list)  # B's line-less findings by (file, category)
    unlined: dict[str, tuple[list[int], list[int]]] = defaultdict(lambda: ([], []))  # line-less, per file: (A, B)
    for j, f in enumerate(b):
        if f.line is None:
            unlined[f.file][1].append(j)
            b_unlined[(f.file, f.category)].append(j)
        else:
            b_near[(f.file, f.line // LINE_BUCKET)].append(j)
            b_lined[(f.file, f.category)].append(j)
    for i, f in enumerate(a):
        if f.line is None:
            unlined[f.file][0].append(i)
            out.update((i, j) for j in b_lined.get((f.file, f.category), ()))
            continue
        bucket = f.line // LINE_BUCKET
        for near in (bucket - 1, bucket, bucket + 1):
            out.update((i, j) for j in b_near.get((f.file, near), ()))
        out.update((i, j) for j in b_unlined.get((f.file, f.category), ()))
    for mine, theirs in unlined.values():
        if len(mine) * len(theirs) <= EXACT_GROUP:
            out.update((i, j) for i in mine for j in theirs)
            continue
        keys: dict[str, tuple[list[int], list[int]]] = defaultdict(lambda: ([], []))
        for side, items, findings in ((0, mine, a), (1, theirs, b)):
            for n in items:
                f = findings[n]
                keys["q:" + _text_key(f)][side].append(n)
                for word in set(WORD.findall(f"{f.quote or ''} {f.description}".lower())):
                    keys["w:" + word][side].append(n)
        for key, (left, right) in keys.items():
            if key.startswith("q:") or len(left) + len(right) <= RARE_TOKEN:
                out.update((i, j) for i in left for j in right)
    return out


class FineIndex:
    """The first of a model's "checked and fine" places covering a file and line (as
    `CheckedFine.covers` tells, in the model's order), in time linear in the places and lines."""

    def __init__(self, places: list[CheckedFine]) -> None:
        self.places = places
        self.first_in_file: dict[str, int] = {}
        self.whole_file: dict[str, int] = {}
        self.by_line: dict[str, dict[int, int]] = defaultdict(dict)
        successor: dict[str, dict[int, int]] = defaultdict(dict)  # per file: next line not yet claimed
        for n, place in enumerate(places):
            self.first_in_file.setdefault(place.file, n)
            if place.line is None:
                self.whole_file.setdefault(place.file, n)
                continue
            lines, jump = self.by_line[place.file], successor[place.file]
            line, end = place.line, place.end_line or place.line  # an end before the start covers nothing
            while line <= end:  # each line is claimed once, by the first place that covers it
                line = _next_free(jump, line)
                if line > end:
                    break
                lines[line] = n
                jump[line] = line + 1
                line += 1

    def first_covering(self, file: str, line: int | None) -> CheckedFine | None:
        if file not in self.first_in_file:
            return None
        if line is None:
            return self.places[self.first_in_file[file]]
        found = [n for n in (self.whole_file.get(file), self.by_line[file].get(line)) if n is not None]
        return self.places[min(found)] if found else None


def _next_free(jump: dict[int, int], line: int) -> int:
    """The first line at or after `line` no earlier place claimed (path-compressed)."""
    path = []
    while line in jump:
        path.append(line)
        line = jump[line]
    for seen in path:
        jump[seen] = line
    return line


@dataclass(frozen=True)
class Recalled:
    """What memory says of one finding: the entry (`entry_id`), whether it applies (a dismissal at
    this very place; or a pattern dismissed service-wide, for a finding that is neither Critical
    nor about security), and a note for the report."""

    entry_id: str
    applies: bool
    note: str


Recall = Callable[[CodeFinding], Recalled | None]


def _recalled(report: ReviewerAnswer | None, recall: Recall | None) -> tuple[ReviewerAnswer | None, dict[int, tuple[Recalled, Severity | None]]]:
    """A report with the findings memory applies to lowered to Minor (copies: the stored report
    is kept as the model gave it), and per finding index what memory said and the severity before."""
    if report is None or recall is None:
        return report, {}
    hits: dict[int, tuple[Recalled, Severity | None]] = {}
    findings = []
    for n, finding in enumerate(report.findings):
        said = recall(finding)
        if said is not None and said.applies and finding.severity != Severity.MINOR:
            hits[n] = (said, finding.severity)
            finding = finding.model_copy(update={"severity": Severity.MINOR})
        elif said is not None:
            hits[n] = (said, None)
        findings.append(finding)
    return report.model_copy(update={"findings": findings}), hits


def _remember(merged: MergedFinding, hit: tuple[Recalled, Severity | None] | None) -> MergedFinding:
    if hit is not None:
        said, before = hit
        merged.memory_note = said.note
        if said.applies and before is not None and merged.finding.severity == Severity.MINOR:  # an agreed pair: both lowered
            merged.memory, merged.severity_before = said.entry_id, before
    return merged


def merge_stage(stage: str, reports: dict[str, ReviewerAnswer | None], letters: tuple[str, ...],
                reasons: dict[str, str] | None = None, pairs: list[tuple[int, int]] | None = None,
                matcher: str = "rules", salvaged: dict[str, ReviewerAnswer] | None = None,
                recall: Recall | None = None) -> StageMerge:
    """`reports` holds the completed reviewers' reports (None: the run did not complete).
    `pairs` (A index, B index) from an LLM matcher replace the deterministic matching.
    `salvaged` holds what parsed of a model's malformed answer: its findings are that model's
    alone (never agreed) and it has no verdict. `recall` is the reviewers' memory: a finding it
    applies to counts as Minor (its severity before is kept), so memory can lower a model's
    verdict but never add or remove a finding."""
    hits: dict[str, dict[int, tuple[Recalled, Severity | None]]] = {}
    reports = dict(reports)
    for letter in list(reports):
        reports[letter], hits[letter] = _recalled(reports[letter], recall)
    salvaged = dict(salvaged or {})
    for letter in list(salvaged):
        salvaged[letter], hits[letter + "*"] = _recalled(salvaged[letter], recall)
    verdicts = {letter: model_verdict(reports.get(letter)) for letter in letters}
    merged = StageMerge(stage=stage, models=list(letters), verdicts=verdicts, matcher=matcher if pairs is not None else "rules")
    merged.reasons = [f"{'model ' + k if k in letters else k}: {v}" for k, v in (reasons or {}).items() if v]
    a = reports.get("A") if "A" in letters else None
    b = reports.get("B")
    a_findings = a.findings if a else []
    b_findings = b.findings if b else []
    if pairs is None:
        pairs = [(i, j) for i, j, _ in one_to_one(a_findings, b_findings, similarity, MATCH_THRESHOLD,
                                                  candidate_pairs(a_findings, b_findings))]
    used_a = {i for i, _ in pairs}
    used_b = {j for _, j in pairs}
    for i, j in pairs:
        # the stronger model's wording leads; the more severe severity counts
        finding = b_findings[j].model_copy()
        if a_findings[i].severity.rank < finding.severity.rank:
            finding.severity = a_findings[i].severity
        merged.findings.append(_remember(MergedFinding(category="agreed", finding=finding, other=a_findings[i]),
                                         hits.get("B", {}).get(j) or hits.get("A", {}).get(i)))
    for letter, own, other, used in (("B", b_findings, a, used_b), ("A", a_findings, b, used_a)):
        alone = [(f, False, hits.get(letter, {}).get(n)) for n, f in enumerate(own) if n not in used]
        if letter in letters and letter in salvaged:
            alone += [(f, True, hits.get(letter + "*", {}).get(n)) for n, f in enumerate(salvaged[letter].findings)]
        vouched = FineIndex(other.checked_fine if other else [])
        for finding, from_malformed, hit in alone:
            fine = vouched.first_covering(finding.file, finding.line)
            category = "contradiction" if fine is not None else ("b_only" if letter == "B" else "a_only")
            merged.findings.append(_remember(MergedFinding(
                category=category, finding=finding, by=letter, salvaged=from_malformed,
                fine_note=fine.note if fine is not None else None), hit))
    order = {"agreed": 0, "b_only": 1, "a_only": 2, "contradiction": 3}
    merged.findings.sort(key=lambda m: (order[m.category], m.finding.severity.rank, m.finding.file, m.finding.line or 0))
    if any(m.finding.blocking for m in merged.findings):
        merged.verdict = "FAIL"
    elif any(v is None for v in verdicts.values()):
        merged.verdict = "INCOMPLETE"
    else:
        merged.verdict = "PASS"
    return merged


def _critical(findings: list[MergedFinding], category: str) -> bool:
    return any(m.category == category and m.finding.severity == Severity.CRITICAL for m in findings)


def counted_stages(spec: StageMerge, quality: StageMerge | None) -> list[StageMerge]:
    """The stages whose results count: quality is left out when it was discarded or not run."""
    return [spec] + ([quality] if quality is not None and not quality.discarded else [])


def confidence(spec: StageMerge, quality: StageMerge | None) -> Confidence:
    """The seed's discrete confidence scenarios (plus 'incomplete') over the counted stages."""
    return stage_confidence(counted_stages(spec, quality))


def stage_confidence(stages: list[StageMerge]) -> Confidence:
    """The confidence scenario of some stages' results, tested in SCENARIOS order."""
    letters = stages[0].models
    overall: dict[str, str | None] = {}
    for letter in letters:
        per_stage = [s.verdicts.get(letter) for s in stages]
        overall[letter] = None if None in per_stage else ("FAIL" if "FAIL" in per_stage else "PASS")
    findings = [m for s in stages for m in s.findings]
    values = list(overall.values())
    b_critical_contradiction = any(m.category == "contradiction" and m.by == "B" and m.finding.severity == Severity.CRITICAL
                                   for m in findings)
    if None in values:
        scenario = "incomplete"
    elif all(v == "FAIL" for v in values) and _critical(findings, "agreed"):
        scenario = "both-fail-agreed-critical"
    elif _critical(findings, "b_only") or b_critical_contradiction:
        scenario = "b-only-critical"
    elif all(v == "FAIL" for v in values):
        # the same blocking issues from both (every blocking finding agreed), or different ones
        blocking = [m for m in findings if m.finding.blocking]
        scenario = "both-fail-agreed" if blocking and all(m.category == "agreed" for m in blocking) else "both-fail-disagree"
    elif "FAIL" in values:
        scenario = "split"
    elif not findings:
        scenario = "both-pass-clean"
    else:
        scenario = "both-pass-minor"
    name, label, value, action = next(row for row in SCENARIOS if row[0] == scenario)
    return Confidence(scenario=name, label=label, value=value, action=action)


def lowered_by_memory(stages: list[StageMerge]) -> list[MergedFinding]:
    """The findings of some stages that memory lowered to Minor."""
    return [m for s in stages for m in s.findings if m.memory]


def decide(spec: StageMerge, quality: StageMerge | None, config: ReviewConfig) -> str:
    """AUTO_APPROVE / AUTO_REJECT_TO_IMPLEMENTER / PRESENT_TO_HUMAN, as the seed's decision logic,
    with auto-actions only when their flag is on and never on an incomplete review. Memory never
    approves by itself: an approval that rests on findings memory lowered goes to a human."""
    decision = _decide(spec, quality, config)
    if decision == "AUTO_APPROVE" and lowered_by_memory(counted_stages(spec, quality)):
        return "PRESENT_TO_HUMAN"
    return decision


def _decide(spec: StageMerge, quality: StageMerge | None, config: ReviewConfig) -> str:
    if spec.verdict == "FAIL":
        if _critical(spec.findings, "agreed") and config.auto_reject:
            return "AUTO_REJECT_TO_IMPLEMENTER"
        return "PRESENT_TO_HUMAN"
    if spec.verdict == "INCOMPLETE" or quality is None:
        return "PRESENT_TO_HUMAN"
    return decide_quality(quality, config, spec.findings)


def decide_quality(quality: StageMerge, config: ReviewConfig, spec_findings: list[MergedFinding] = ()) -> str:
    """The seed's step 2, once spec has passed (by the reviewers, or by a human's approval):
    nothing or only Minor findings -> approve; an agreed Critical quality finding -> reject;
    otherwise a human decides."""
    if quality.verdict == "INCOMPLETE":
        return "PRESENT_TO_HUMAN"
    everything = list(spec_findings) + quality.findings
    if all(m.finding.severity == Severity.MINOR for m in everything):
        held = any(m.memory for m in everything)  # memory never approves by itself
        return "AUTO_APPROVE" if config.auto_approve and not held else "PRESENT_TO_HUMAN"
    if quality.verdict == "FAIL" and _critical(quality.findings, "agreed") and config.auto_reject:
        return "AUTO_REJECT_TO_IMPLEMENTER"
    return "PRESENT_TO_HUMAN"


def decision_note(confidence_: Confidence, decision: str, config: ReviewConfig, stages: list[StageMerge]) -> str | None:
    """Why a decision is what it is, when the scenario alone does not say: an approval says what the
    reviewers did not assess (their own words); a human decides because a scenario's automatic action
    is off (and what happens instead), because memory alone would have approved, or because of the
    findings it names."""
    if decision == "AUTO_APPROVE":
        unassessed = not_assessed(stages)
        return f"approved on what the reviewers could check; not assessed: {unassessed}" if unassessed else None
    if decision != "PRESENT_TO_HUMAN":
        return None
    note = _human_note(confidence_, config, stages)
    causes = blocking_of(stages)
    if confidence_.scenario in ("both-pass-clean", "both-pass-minor", "incomplete") or not causes:
        return note
    named = "; ".join(f"{m.id or m.finding.where} ({m.finding.severity.value}, {m.finding.where}: "
                      f"{_short(m.finding.description)})" for m in causes[:3])
    more = f" and {len(causes) - 3} more" if len(causes) > 3 else ""
    because = f"a human decides because of {named}{more}"
    return f"{note}; {because}" if note else because


BLIND_SPOTS = re.compile(r"(?:Rules cannot see|Not checked|Not assessed offline)[^.]*(?:\([^)]*\))?[^.]*")


def not_assessed(stages: list[StageMerge]) -> str | None:
    """What the reviewers of some stages said they could not assess, from their summaries."""
    parts: list[str] = []
    for stage in stages:
        for summary in stage.summaries.values():
            for match in BLIND_SPOTS.finditer(summary or ""):
                text = match.group(0).strip()
                if text not in parts:
                    parts.append(text)
    return "; ".join(parts) or None


def _short(text: str, limit: int = 90) -> str:
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


def _human_note(confidence_: Confidence, config: ReviewConfig, stages: list[StageMerge]) -> str | None:
    lowered = lowered_by_memory(stages)
    if confidence_.scenario in ("both-pass-clean", "both-pass-minor"):
        if not config.auto_approve:
            return ("auto-approve is off (review.auto_approve: false, the default), so a human confirms this approval "
                    "instead; -T auto_approve=true lets the review approve such a change itself")
        if lowered:
            return (f"memory lowered {', '.join(m.id or m.finding.where for m in lowered)} to Minor (a dismissal at "
                    "that place); memory alone never approves a change, so a human decides")
    if confidence_.scenario == "both-fail-agreed-critical" and not config.auto_reject:
        return ("auto-reject is off (review.auto_reject: false, the default), so a human confirms sending it back "
                "instead; -T auto_reject=true sends such a change to the implementer itself")
    return None


def blocking_of(stages: list[StageMerge], dismissed: list[str] = ()) -> list[MergedFinding]:
    """The blocking findings of some stages, contradictions and the ones a human dismissed left out."""
    return [m for s in stages for m in s.findings
            if m.finding.blocking and m.category != "contradiction" and m.id not in dismissed]


def issue_line(m: MergedFinding) -> str:
    return f"{m.finding.where}: [{m.finding.severity.value}] {m.finding.description}"


def fix_message(attempt: int, maximum: int, issues: list[MergedFinding], unreviewed: list[MergedFinding] = ()) -> str:
    """The seed's message to the implementer; `unreviewed`: Critical or security findings of
    discarded speculative results, named so they are not lost (they decide nothing yet)."""
    body = "\n".join(f"- {issue_line(m)}" for m in issues) or "- (no blocking findings listed; see the review)"
    seen = "".join(f"\n- {issue_line(m)}" for m in unreviewed)
    if seen:
        seen = "\nAlso seen, not yet reviewed (quality is reviewed once spec passes):" + seen
    return f"Fix attempt {attempt}/{maximum}: fix these issues\n{body}{seen}"


def escalation_message(task: str, maximum: int, issues: list[MergedFinding]) -> str:
    remaining = "; ".join(issue_line(m) for m in issues) or "none listed (the review still needs a human)"
    return f"Task {task} failed review after {maximum} fix attempts. Remaining issues: {remaining}"
