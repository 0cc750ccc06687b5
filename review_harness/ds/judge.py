"""LLM-as-judge of review quality (seed 000 s15.3) and the LLM finding matcher: prompts,
answer parsing and the scoring math. Pure functions over pydantic models; the scorers in
``scorers/ds_judge.py`` and ``scorers/ds_gold.py`` make the model calls.

The judge rates five dimensions 0-10, weighted 30/20/20/15/15 into ``overall``. Consistency
proper needs several runs of the same document (``--epochs N``, where ``review_epochs()``
measures the spread); shown a single review, the judge rates its internal consistency.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, Field, ValidationError, model_validator

from review_harness.core.member import MemberRun
from review_harness.ds.gold import GoldFinding
from review_harness.ds.matching import Match, similarity
from review_harness.ds.models import Finding, LensRating, Review, ReviewerReport
from review_harness.ds.prepare import prepare_document
from review_harness.ds.prompts import template_environment
from review_harness.ds.render import render_report
from review_harness.ds.rubric import PROMPTS_DIR, Rubric
from review_harness.ds.synthesis import synthesize

JUDGE_PROMPT_VERSION = "judge.v1"
MATCHER_PROMPT_VERSION = "matcher.v1"
# Both prompts start with this line: the offline judge recognises its prompts by it.
JUDGE_TASK_MARKER = "JUDGE TASK:"
JUDGE_TASK = "review-quality"
MATCHER_TASK = "finding-matching"
BLOCK_TAGS = ("gold_findings", "review_data", "review_findings", "review_report", "document")

JUDGE_WEIGHTS: dict[str, float] = {
    "finding_accuracy": 0.30,
    "severity_calibration": 0.20,
    "coverage": 0.20,
    "actionability": 0.15,
    "consistency": 0.15,
}
JUDGE_DIMENSIONS = tuple(JUDGE_WEIGHTS)
OVERALL = "overall"


class JudgeResult(BaseModel):
    """One judge call: its scores (0-1, NaN when unusable) and why. Defined here, in the package,
    not in the scorer file: `inspect score --scorer scorers/ds_judge.py@review_judge` loads that file
    outside the package, where pydantic could not resolve `MemberRun` (PydanticUserError)."""

    model: str
    scores: dict[str, float]
    reasons: dict[str, str] = {}
    error: str | None = None
    raw: str = ""
    run: MemberRun | None = None

    def explanation(self) -> str:
        if self.error:
            return f"judge answer unusable ({self.model}): {self.error}"
        lines = [f"overall {self.scores[OVERALL]:.2f} (judge {self.model}, {JUDGE_PROMPT_VERSION})"]
        lines += [f"{d}: {self.scores[d] * 10:g}/10 - {self.reasons.get(d, '')}" for d in JUDGE_DIMENSIONS]
        return "\n".join(lines)
JUDGE_KEYS = (*JUDGE_DIMENSIONS, OVERALL)
SCALE = 10.0


class JudgeAnswerError(ValueError):
    """The judge (or matcher) answered something that cannot be used."""


# ----------------------------------------------------------------------------- answers


class DimensionJudgement(BaseModel):
    score: float = Field(ge=0, le=SCALE, description="0 (worst) to 10 (best).")
    reason: str = Field(description="One or two sentences: the evidence behind the score.")


class JudgeAnswer(BaseModel):
    """The judge's response schema: one rating per rubric dimension."""

    finding_accuracy: DimensionJudgement
    severity_calibration: DimensionJudgement
    coverage: DimensionJudgement
    actionability: DimensionJudgement
    consistency: DimensionJudgement

    def scores(self) -> dict[str, float]:
        """Dimension scores on 0-1, plus the weighted overall."""
        scores = {d: getattr(self, d).score / SCALE for d in JUDGE_DIMENSIONS}
        return {**scores, OVERALL: overall_score(scores)}

    def reasons(self) -> dict[str, str]:
        return {d: getattr(self, d).reason for d in JUDGE_DIMENSIONS}


def overall_score(scores: Mapping[str, float]) -> float:
    """Weighted sum of the five dimension scores, on their scale; NaN if any is missing."""
    values = [float(scores.get(d, math.nan)) for d in JUDGE_DIMENSIONS]
    if any(math.isnan(v) for v in values):
        return math.nan
    return round(sum(JUDGE_WEIGHTS[d] * v for d, v in zip(JUDGE_DIMENSIONS, values)), 6)


class MatchPair(BaseModel):
    finding_id: str
    gold_id: str


class MatcherAnswer(BaseModel):
    """The matcher's response schema."""

    matches: list[MatchPair] = Field(
        default_factory=list, description="One-to-one pairs of a review finding and the gold finding it describes."
    )


def _parse(text: str, model: type[BaseModel], who: str) -> BaseModel:
    if not text or not text.strip():
        raise JudgeAnswerError(f"the {who} returned empty output")
    # the object may come wrapped in prose or a code fence; a cut-off answer is unusable
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        raise JudgeAnswerError(f"the {who}'s answer holds no JSON object: {text.strip()[:120]!r}")
    try:
        data = json.loads(text[start : end + 1])
    except json.JSONDecodeError as ex:
        raise JudgeAnswerError(f"the {who}'s answer is not valid JSON ({ex.msg} at character {ex.pos})") from None
    try:
        return model.model_validate(data)
    except ValidationError as ex:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or '(top level)'}: {e['msg']}" for e in ex.errors()[:4]
        )
        raise JudgeAnswerError(f"the {who}'s answer does not fit the schema: {problems}") from None


def parse_judge_answer(text: str) -> JudgeAnswer:
    """The judge's answer, or JudgeAnswerError saying why it is unusable."""
    return _parse(text, JudgeAnswer, "judge")  # type: ignore[return-value]


def parse_matcher_answer(text: str) -> MatcherAnswer:
    return _parse(text, MatcherAnswer, "matcher")  # type: ignore[return-value]


def validate_matches(
    answer: MatcherAnswer, findings: Sequence[Finding], gold: Sequence[GoldFinding]
) -> tuple[list[Match], list[str]]:
    """Keep the pairs that name a known finding and gold finding, each used once.
    Returns (matches, what was dropped and why)."""
    by_id = {f.id: f for f in findings}
    gold_by_id = {g.id: g for g in gold}
    used_findings: set[str] = set()
    used_gold: set[str] = set()
    matches, dropped = [], []
    for pair in answer.matches:
        label = f"{pair.finding_id}->{pair.gold_id}"
        if pair.finding_id not in by_id or pair.gold_id not in gold_by_id:
            dropped.append(f"{label}: unknown id")
        elif pair.finding_id in used_findings or pair.gold_id in used_gold:
            dropped.append(f"{label}: not one-to-one")
        else:
            used_findings.add(pair.finding_id)
            used_gold.add(pair.gold_id)
            finding, expected = by_id[pair.finding_id], gold_by_id[pair.gold_id]
            matches.append(
                Match(
                    finding=finding.id,
                    gold=expected.id,
                    similarity=similarity(finding, expected),  # informative only
                    severity_agrees=finding.severity == expected.severity,
                )
            )
    return matches, dropped


# ----------------------------------------------------------------------------- what is judged


class DimensionView(BaseModel):
    dimension: str
    score: float | None = Field(description="Computed by the rubric from the findings.")
    self_reported_score: int | None = Field(description="The reviewer's own estimate.")
    lens_ratings: dict[str, LensRating] = Field(default_factory=dict)


class JudgedReview(BaseModel):
    """What the judge sees of a review: its structured parts and the report as read."""

    findings: list[Finding] = Field(default_factory=list)
    dimensions: list[DimensionView] = Field(default_factory=list)
    final_score: float | None = None
    verdict: str | None = None
    report: str = Field(default="", description="Rendered markdown; the prompt sends it in its own block.")


def judged_review(review: Review, rubric: Rubric, preamble: str = "") -> JudgedReview:
    report = render_report(review, rubric)
    return JudgedReview(
        findings=review.findings,
        dimensions=[
            DimensionView(
                dimension=d.dimension,
                score=d.score,
                self_reported_score=d.self_reported_score,
                lens_ratings=d.lens_ratings,
            )
            for d in review.dimensions.values()
            if d.reviewed
        ],
        final_score=review.final_score,
        verdict=review.verdict,
        report=f"{preamble.strip()}\n\n{report}" if preamble.strip() else report,
    )


# ----------------------------------------------------------------------------- prompts


@dataclass(frozen=True)
class JudgePrompt:
    system: str
    request: str
    version: str


def _neutralize(text: str) -> str:
    """Content must not be able to close (or open) a block of the prompt."""
    for tag in BLOCK_TAGS:
        text = text.replace(f"</{tag}>", f"</ {tag}>").replace(f"<{tag}>", f"< {tag}>")
    return text


def _json(items: Sequence[BaseModel] | BaseModel, exclude: set[str] | None = None) -> str:
    data = (
        items.model_dump(mode="json", exclude=exclude)
        if isinstance(items, BaseModel)
        else [i.model_dump(mode="json", exclude=exclude) for i in items]
    )
    return _neutralize(json.dumps(data, indent=1, ensure_ascii=False))


def _render(template_name: str, version: str, prompts_dir: Path, **context: object) -> JudgePrompt:
    """The template's `system` block is the stable prefix; its `request` block the payload."""
    template = template_environment(str(prompts_dir)).get_template(template_name)
    ctx = template.new_context(dict(context))
    system = "".join(template.blocks["system"](ctx)).strip() + "\n"
    request = "".join(template.blocks["request"](ctx)).strip() + "\n"
    return JudgePrompt(system=system, request=request, version=version)


def render_judge_prompt(
    document: str,
    review: JudgedReview,
    gold: Sequence[GoldFinding],
    *,
    prompts_dir: Path = PROMPTS_DIR,
) -> JudgePrompt:
    return _render(
        f"{JUDGE_PROMPT_VERSION}.j2",
        JUDGE_PROMPT_VERSION,
        prompts_dir,
        marker=f"{JUDGE_TASK_MARKER} {JUDGE_TASK} ({JUDGE_PROMPT_VERSION})",
        weights={d: round(w * 100) for d, w in JUDGE_WEIGHTS.items()},
        gold_findings=_json(gold),
        review_data=_json(review, exclude={"report"}),
        report=_neutralize(review.report),
        document=_neutralize(document),
    )


def render_matcher_prompt(
    findings: Sequence[Finding], gold: Sequence[GoldFinding], *, prompts_dir: Path = PROMPTS_DIR
) -> JudgePrompt:
    return _render(
        f"{MATCHER_PROMPT_VERSION}.j2",
        MATCHER_PROMPT_VERSION,
        prompts_dir,
        marker=f"{JUDGE_TASK_MARKER} {MATCHER_TASK} ({MATCHER_PROMPT_VERSION})",
        gold_findings=_json(gold),
        review_findings=_json(findings, exclude={"deduction", "issue_type"}),
    )


def judge_task_of(prompt: str) -> str | None:
    """JUDGE_TASK or MATCHER_TASK when the prompt starts with a judge marker, else None."""
    if not prompt.startswith(JUDGE_TASK_MARKER):
        return None
    first_line = prompt.splitlines()[0]
    task = first_line[len(JUDGE_TASK_MARKER) :].split()
    return task[0] if task and task[0] in (JUDGE_TASK, MATCHER_TASK) else None


def read_block(prompt: str, tag: str) -> str | None:
    """The content of a `<tag>` block the templates write on lines of their own."""
    opening = f"\n<{tag}>\n"
    start = prompt.rfind(opening)
    if start < 0:
        return None
    start += len(opening)
    end = prompt.find(f"\n</{tag}>", start)
    return prompt[start : end if end >= 0 else len(prompt)]


# ----------------------------------------------------------------------------- meta-eval

VariantKind = Literal["faithful", "invented", "gamed"]


class MetaVariant(BaseModel):
    """One review of known quality of a fixture document."""

    kind: VariantKind
    expected_rank: int = Field(ge=1, description="1 is best; variants with equal ranks are not compared.")
    description: str
    preamble: str = Field(default="", description="Free text put before the rendered report.")
    reports: dict[str, ReviewerReport] = Field(description="Reviewer reports by dimension, as a panel returns them.")


class MetaFixture(BaseModel):
    gold: str = Field(description="Gold file relative to gold/, e.g. 'ds/causal-without-method.yaml'.")
    variants: list[MetaVariant]

    @model_validator(mode="after")
    def _one_of_each(self) -> "MetaFixture":
        kinds = sorted(v.kind for v in self.variants)
        if kinds != sorted(("faithful", "invented", "gamed")):
            raise ValueError(f"needs exactly one faithful, invented and gamed variant, got {kinds}")
        return self

    def variant(self, kind: VariantKind) -> MetaVariant:
        return next(v for v in self.variants if v.kind == kind)


def load_meta_fixture(path: str | Path) -> MetaFixture:
    path = Path(path)
    try:
        return MetaFixture.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
    except (OSError, yaml.YAMLError, ValidationError) as ex:
        raise ValueError(f"{path}: not a valid judge meta fixture: {ex}") from None


def variant_review(variant: MetaVariant, document: str, rubric: Rubric, source: str = "") -> JudgedReview:
    """Synthesize and render a variant exactly as the panel's reports would be."""
    prepared = prepare_document(document, source=source or "meta", mode="full")
    review = synthesize(
        prepared.info(),
        dict(variant.reports),
        [],
        rubric,
        requested_mode="full",
        mode="full",
        audience="mixed",
        workflow="general",
    )
    return judged_review(review, rubric, preamble=variant.preamble)


def pairwise_ordering(overall: Mapping[str, float], expected_rank: Mapping[str, int]) -> tuple[int, int]:
    """(correctly ordered pairs, pairs) over variants with different expected ranks.
    A pair is correct only when the better variant scores strictly higher; NaN never is."""
    names = sorted(expected_rank)
    correct = pairs = 0
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            if expected_rank[a] == expected_rank[b]:
                continue
            better, worse = (a, b) if expected_rank[a] < expected_rank[b] else (b, a)
            pairs += 1
            correct += int(overall.get(better, math.nan) > overall.get(worse, math.nan))
    return correct, pairs
