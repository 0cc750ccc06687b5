"""`review-harness calibrate`: fit the default DS rubric's values inside the design's formula.

The formula is fixed: each dimension is 100 minus its deductions on the diminishing-returns curve
plus its capped credits; the final score is the weighted mean of the scored dimensions (50/50, or
50/25/25 with a domain); one CRITICAL caps the verdict at Minor Fix, two at Major Rework. The
values inside it are fitted: the points per severity (inside the severity ranges; every
deduction-table row moves with its severity, clamped to the range), the curve (its band limits and
weights, each band weighing no more than the one before) and the credit cap. Credits offset only
MINOR deductions, so a dimension holding a MAJOR or CRITICAL finding never scores 100.

The starting values are the seed rubric (prompts/ds/rubric.seed-v1.yaml, `-T rubric=seed-v1`); the
fit writes prompts/ds/rubric.yaml, the default. Two readings of every gold case are scored:

- the gold file's own findings and positives (no reviewer involved: do the values reproduce the
  judgement when the findings are right?);
- the offline reviewer's findings and credits on the same document, kept in
  prompts/ds/calibration.findings.json (`--write` runs the offline reviewer on the gold sets again
  and rewrites that file first).

The fit uses the dev cases only (gold `split: dev`) of both gold sets, `gold/ds` (the project's
fixtures) and `gold/ds/real` (real write-ups); the held-out cases are measured, never fitted. The
objective is band accuracy, then the window rate, then the distance of scores from their windows,
then the smallest change from the seed values; ties go to the first grid point, so the fit is
deterministic.
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from review_harness.core.commands import progress
from review_harness.core.files import input_folder_problem, write_output
from review_harness.core.gold import GoldError
from review_harness.core.paths import GOLD_DIR, PROJECT_ROOT
from review_harness.domain.reviewer import ReviewerRubric, default_reviewer_rubric
from review_harness.ds import scoring
from review_harness.ds.gold import GoldFile, load_gold
from review_harness.ds.models import Severity
from review_harness.ds.rubric import (
    CALIBRATED_RUBRIC, DEFAULT_RUBRIC, PROMPTS_DIR, SEED_RUBRIC, FloorRule, Rubric, RubricError, load_rubric,
)

FINDINGS_FILE = PROMPTS_DIR / "calibration.findings.json"
# the fitted values plus one floor rule beyond the design's two: an option (-T rubric=strict)
STRICT_RUBRIC = PROMPTS_DIR / "rubric.strict.yaml"
# the gold sets the fit reads: (name, gold folder, the fixture set `-T fixtures=` runs them as)
GOLD_SETS = (("fixtures", GOLD_DIR / "ds", "ds"), ("real", GOLD_DIR / "ds" / "real", "ds/real"))
# reported beside, not fitted: the Search documents reviewed with their domain (gold findings only)
DOMAIN_GOLD = GOLD_DIR / "domain" / "search"
FITTED_VERSION = "ds-rubric-v5"
SOURCES = ("gold", "offline")

# the grid: points per severity (inside the seed's ranges), credit caps, and the curve
POINTS = {Severity.CRITICAL: (15.0, 18.0, 20.0), Severity.MAJOR: (8.0, 9.0, 10.0), Severity.MINOR: (3.0, 5.0, 7.0)}
CREDIT_CAPS = (0.0, 5.0, 10.0, 15.0, 25.0)
FIRST_LIMITS = (5.0, 8.0, 10.0, 12.0, 15.0, 20.0, 30.0)
FIRST_WEIGHTS = tuple(round(1.0 + 0.25 * i, 2) for i in range(21))  # 1 .. 6
SECOND_SPANS = (5.0, 10.0, 20.0, 40.0)
SECOND_RATIOS = (1.0, 0.75, 0.5, 0.25, 0.1)
THIRD_RATIOS = (1.0, 0.5, 0.25)
ORDER = [scoring.GOOD_TO_GO, scoring.MINOR_FIX, scoring.MAJOR_REWORK]


class CalibrationError(ValueError):
    """The gold set, the findings file or a rubric cannot be calibrated (one-line message)."""


# ------------------------------------------------------------------ what is scored


@dataclass(frozen=True)
class Item:
    """One scored finding: enough for the deduction table and the floor rules."""

    dimension: str
    lens: str
    issue_type: str | None
    severity: Severity


@dataclass
class Reading:
    """What a review of one document scores: its charged findings and the credits its positives
    earned, per reviewed dimension. `partial`: a DS dimension was not reviewed."""

    items: list[Item]
    credits: dict[str, list[str]]
    partial: bool = False

    def to_json(self) -> dict:
        return {"partial": self.partial, "credits": self.credits,
                "findings": [[i.dimension, i.lens, i.issue_type, i.severity.value] for i in self.items]}

    @classmethod
    def from_json(cls, data: dict) -> "Reading":
        return cls([Item(d, lens, t, Severity(s)) for d, lens, t, s in data["findings"]],
                   {d: list(c) for d, c in data["credits"].items()}, bool(data.get("partial")))


@dataclass
class Case:
    name: str
    corpus: str
    gold: GoldFile
    readings: dict[str, Reading] = field(default_factory=dict)

    @property
    def domain(self) -> bool:
        return bool(self.gold.options.get("domain"))

    @property
    def scored(self) -> bool:
        """A case with a verdict to compare (a draft gets no score)."""
        return bool(self.gold.verdict_band) and not self.gold.options.get("draft")


def gold_reading(gold: GoldFile, rubric: Rubric) -> Reading:
    """The review a careful reader expects: the gold findings (each at its severity's points) and
    the credits the gold positives name."""
    credits: dict[str, list[str]] = {d: [] for d in rubric.dimensions}
    if gold.options.get("domain"):
        credits["domain"] = []
    for positive in gold.positives:
        if positive.credit and positive.dimension in credits and positive.credit not in credits[positive.dimension]:
            credits[positive.dimension].append(positive.credit)
    return Reading([Item(f.dimension, f.lens, None, f.severity) for f in gold.expected_findings], credits)


def review_reading(review) -> Reading:
    """What a synthesized review scored: findings that were charged (a cross-cutting copy, a
    merged one, deducted elsewhere, is left out) and the credits each dimension earned."""
    items = [Item(f.dimension, f.lens, f.issue_type, f.severity) for f in review.findings
             if f.deduction > 0 and not f.merged_into and f.dimension != "domain"]
    credits = {d: list(r.credits_earned) for d, r in review.dimensions.items() if r.reviewed and d != "domain"}
    return Reading(items, credits, partial=review.status == "partial")


def score_reading(reading: Reading, rubric: Rubric, draft: bool = False,
                  domain_rubric: ReviewerRubric | None = None) -> tuple[float | None, str | None]:
    """(final score, verdict) of a reading under the rubric, through the scoring functions a real
    review uses (None, None for a draft)."""
    scores: dict[str, float] = {}
    scored = list(reading.credits)
    with_domain = scoring.uses_domain_weights(rubric, scored)
    for dim_id in scored:
        items = [i for i in reading.items if i.dimension == dim_id]
        if dim_id == "domain":
            domain_rubric = domain_rubric or default_reviewer_rubric()
            deductions = [(rubric.severity_points(i.severity), i.severity) for i in items]
            credits = [domain_rubric.credit(c).points for c in reading.credits[dim_id]]
            scores[dim_id] = scoring.dimension_score(deductions, credits, rubric, credit_cap=domain_rubric.scoring.credit_cap,
                                                     **scoring.recalibration(rubric, dim_id, with_domain))[0]
            continue
        dimension = rubric.dimension(dim_id)
        deductions = [(scoring.finding_deduction(i, dimension, rubric), i.severity) for i in items]
        credits = [dimension.credit(c).points for c in reading.credits[dim_id] if dimension.credit(c)]
        scores[dim_id] = scoring.dimension_score(deductions, credits, rubric, clamp=False,
                                                 **scoring.recalibration(rubric, dim_id, with_domain))[0]
    if draft or not scores:
        return None, None
    final, _ = scoring.review_score(rubric, scores)
    verdict, _ = scoring.apply_floor_rules(scoring.band_verdict(final, rubric), reading.items, rubric)
    if reading.partial and verdict == scoring.GOOD_TO_GO:
        verdict = scoring.MINOR_FIX
    return final, verdict


# ------------------------------------------------------------------ the gold corpus


def load_cases(gold_dirs: Path | list[Path] | tuple[Path, ...], rubric: Rubric, corpus: str | None = None) -> list[Case]:
    folders = [gold_dirs] if isinstance(gold_dirs, Path) else list(gold_dirs)
    for folder in folders:  # a file or a named pipe is named as such
        if input_folder_problem(folder, "gold folder"):
            raise CalibrationError(f"{folder}: {input_folder_problem(folder, 'gold folder')}")
    paths = [p for folder in folders for p in sorted(folder.glob("*.yaml"))]
    if not paths:
        raise CalibrationError(f"{', '.join(str(f) for f in folders)}: no gold files (*.yaml)")
    cases = []
    for path in paths:
        try:
            gold = load_gold(path, rubric)
        except GoldError as ex:
            raise CalibrationError(str(ex)) from None
        if gold.window_basis != "holistic":
            raise CalibrationError(
                f"{path}: window_basis is '{gold.window_basis}'; calibrate only against windows judged "
                "holistically (set by reading the document, not copied from a computed score)"
            )
        case = Case(path.stem, corpus or path.parent.name, gold)
        case.readings["gold"] = gold_reading(gold, rubric)
        cases.append(case)
    return cases


def corpus_cases(rubric: Rubric, findings: dict | None = None) -> list[Case]:
    """Both gold sets, each case with its gold reading and (from the findings file) its offline one."""
    cases = [c for name, folder, _ in GOLD_SETS for c in load_cases(folder, rubric, corpus=name)]
    findings = read_findings() if findings is None else findings
    for case in cases:
        data = findings.get(f"{case.corpus}/{case.name}")
        if data is not None:
            case.readings["offline"] = Reading.from_json(data)
    return cases


def read_findings(path: Path = FINDINGS_FILE) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CalibrationError(f"{path}: no findings file; `review-harness calibrate --write` runs the offline "
                               "reviewer on the gold sets and writes it") from None
    except (OSError, ValueError) as ex:
        raise CalibrationError(f"{path}: not a readable findings file ({ex})") from None
    return data.get("cases", {})


def offline_findings() -> dict:
    """Run the offline reviewer over both gold sets (as `inspect eval tasks/ds_review.py -T
    fixtures=...` does) and return what each review scored, by `<set>/<case>`."""
    import tempfile

    import review_harness._registry  # noqa: F401  (registers the offline model and the tasks by name)
    from inspect_ai import eval as inspect_eval

    from review_harness.core.gold import sample_gold_path
    from review_harness.core.logs import reviewed_samples

    out: dict[str, dict] = {}
    for name, _, fixtures in GOLD_SETS:
        with tempfile.TemporaryDirectory() as tmp:
            try:
                [log] = inspect_eval("review_harness/ds_review", task_args={"fixtures": fixtures}, model="offline/rules",
                                     log_dir=tmp, display="none")
            except Exception as ex:  # a missing document of the gold set is a one-line error of the task
                raise CalibrationError(f"the offline review of the {name} gold set could not run: "
                                       f"{str(ex).splitlines()[0] if str(ex) else type(ex).__name__}") from None
            if log.status != "success":
                raise CalibrationError(f"the offline review of the {name} gold set did not finish ({log.status})")
            for sample, review in reviewed_samples(log):
                path = sample_gold_path(sample.metadata or {})
                if path is not None:
                    out[f"{name}/{path.stem}"] = review_reading(review).to_json()
    return dict(sorted(out.items()))


def write_findings(data: dict, path: Path = FINDINGS_FILE) -> None:
    body = {"about": "What the offline reviewer's review of each gold case scored (charged findings, earned "
                     "credits); written by `review-harness calibrate --write`, read by the fit.",
            "cases": data}
    path.write_text(json.dumps(body, indent=1, sort_keys=True) + "\n", encoding="utf-8")


# ------------------------------------------------------------------ the fit


@dataclass(frozen=True)
class Params:
    critical: float
    major: float
    minor: float
    credit_cap: float
    curve: tuple[tuple[float | None, float], ...]

    def points(self) -> dict[Severity, float]:
        return {Severity.CRITICAL: self.critical, Severity.MAJOR: self.major, Severity.MINOR: self.minor}

    def describe(self, offset: str = "minor") -> str:
        return (f"CRITICAL {self.critical:g}, MAJOR {self.major:g}, MINOR {self.minor:g}; curve {curve_text(self.curve)}; "
                f"credits cap {self.credit_cap:g} ({'offset MINOR only' if offset == 'minor' else 'offset anything'})")


def curve_text(curve) -> str:
    parts, lower = [], 0.0
    for upper, weight in curve:
        parts.append(f"{lower:g}-{'' if upper is None else f'{upper:g}'} x{weight:g}")
        lower = upper or lower
    return ", ".join(parts)


def rubric_params(rubric: Rubric) -> Params:
    return Params(rubric.severity_points(Severity.CRITICAL), rubric.severity_points(Severity.MAJOR),
                  rubric.severity_points(Severity.MINOR), rubric.scoring.credit_cap,
                  tuple((u, float(w)) for u, w in rubric.scoring.diminishing_returns))


CRITICAL_WITH_SERIOUS_WHY = (
    "A CRITICAL analysis finding and {count} MAJOR-or-worse analysis findings in all: the main "
    "conclusion is unsupported and the analysis is weak beyond it, so the verdict is Major Rework."
)


def with_extra_floor(rubric: Rubric) -> Rubric:
    """The rubric plus one floor rule beyond the design's two (an option measured beside the
    default, never in it): a CRITICAL analysis finding with another MAJOR-or-worse one there caps
    the verdict at Major Rework."""
    extra = rubric.model_copy(deep=True)
    extra.floor_rules.append(FloorRule(rule="critical_with_serious", at_least=1, cap="Major Rework",
                                       dimension="analysis", why=CRITICAL_WITH_SERIOUS_WHY))
    return extra


def fitted_rubric(seed: Rubric, p: Params) -> Rubric:
    """The seed rubric with the fitted values: severity defaults, every deduction row moved by its
    severity's shift (clamped to the range), the curve, the credit cap, credits offsetting MINOR only."""
    rubric = seed.model_copy(deep=True)
    rubric.version = FITTED_VERSION
    for sev, value in p.points().items():
        shift = value - seed.severity_points(sev)
        rubric.severities[sev].default_points = value
        low, high = seed.severities[sev].range
        for dim in rubric.dimensions.values():
            for lens in dim.lenses:
                for row in lens.deductions:
                    if row.severity == sev:
                        row.points = min(high, max(low, row.points + shift))
    rubric.scoring.diminishing_returns = [tuple(b) for b in p.curve]
    rubric.scoring.credit_cap = p.credit_cap
    rubric.scoring.credits_offset = "minor"
    return rubric


def _curve_grid() -> np.ndarray:
    rows = []
    for b1, w1, span, r2, r3 in itertools.product(FIRST_LIMITS, FIRST_WEIGHTS, SECOND_SPANS, SECOND_RATIOS, THIRD_RATIOS):
        w2 = round(w1 * r2, 2)
        rows.append((b1, w1, b1 + span, w2, round(w2 * r3, 2)))
    return np.array(rows)


def _curve(raw: np.ndarray | float, c: np.ndarray) -> np.ndarray:
    b1, w1, b2, w2, w3 = c.T
    return w1 * np.minimum(raw, b1) + w2 * np.clip(raw - b1, 0, b2 - b1) + w3 * np.maximum(raw - b2, 0)


def _curve_tuple(c) -> tuple:
    b1, w1, b2, w2, w3 = (float(x) for x in c)
    return ((b1, w1), (b2, w2), (None, w3))


@dataclass
class Outcome:
    score: float
    verdict: str
    band_ok: bool
    in_window: bool
    distance: float


def outcome(case: Case, score: float, verdict: str) -> Outcome:
    low, high = case.gold.score_window
    return Outcome(score, verdict, verdict == case.gold.verdict_band, low <= score <= high,
                   max(0.0, low - score, score - high))


def _units(cases: list[Case]) -> list[tuple[Case, str]]:
    """Every scored (case, reading) pair of two-dimension cases (the grid's vectorised path)."""
    return [(c, s) for c in cases if c.scored and not c.domain for s in SOURCES if s in c.readings]


def _grid_figures(units, seed: Rubric, points: dict[Severity, float], cap: float, curves: np.ndarray):
    """Per unit, vectors over the curves: (band ok, in window, distance). The same arithmetic as
    scoring.dimension_score / review_score with credits offsetting MINOR only (checked against the
    real path for the chosen point)."""
    rubric = fitted_rubric(seed, Params(points[Severity.CRITICAL], points[Severity.MAJOR], points[Severity.MINOR], cap,
                                        ((None, 1.0),)))
    curve_of: dict[float, np.ndarray] = {}

    def on_curve(raw: float) -> np.ndarray:
        if raw not in curve_of:
            curve_of[raw] = _curve(raw, curves)
        return curve_of[raw]

    out = []
    for case, source in units:
        reading = case.readings[source]
        scores = []
        for dim_id in reading.credits:
            dimension = rubric.dimension(dim_id)
            items = [i for i in reading.items if i.dimension == dim_id]
            pts = [(scoring.finding_deduction(i, dimension, rubric), i.severity) for i in items]
            raw = sum(p for p, _ in pts)
            serious = sum(p for p, s in pts if s != Severity.MINOR)
            effective, eff_serious = on_curve(raw), on_curve(serious)
            earned = sum(dimension.credit(c).points for c in reading.credits[dim_id] if dimension.credit(c))
            credits = np.minimum(min(earned, cap), effective - eff_serious)
            scores.append(np.round(np.maximum(0.0, 100 - np.clip(effective - credits, 0, 100)), 2))
        final = np.round(sum(scores) / len(scores), 2)
        band = np.where(final >= seed.scoring.bands["good_to_go"], 0, np.where(final >= seed.scoring.bands["minor_fix"], 1, 2))
        criticals = sum(1 for i in reading.items if i.severity == Severity.CRITICAL)
        verdict = np.maximum(band, 2 if criticals >= 2 else 1 if criticals == 1 or reading.partial else 0)
        low, high = case.gold.score_window
        out.append((verdict == ORDER.index(case.gold.verdict_band), (final >= low) & (final <= high),
                    np.maximum(0.0, np.maximum(low - final, final - high))))
    return out


def fit(cases: list[Case], seed: Rubric) -> Params:
    """The grid point that fits the dev cases best (see the module's docstring)."""
    units = [u for u in _units(cases) if u[0].gold.split == "dev"]
    if not units:
        raise CalibrationError("no dev gold case to fit to")
    curves = _curve_grid()
    base = rubric_params(seed)
    seed_shape = np.array([float(_curve(x, np.array([[30, 1.0, 50, 0.75, 0.5]]))[0]) for x in (10, 20, 30, 50)])
    shape = np.stack([_curve(float(x), curves) for x in (10, 20, 30, 50)], axis=1)
    shape_change = np.abs(shape - seed_shape).sum(axis=1) / 10
    best_key, best = None, None
    combos = list(itertools.product(POINTS[Severity.CRITICAL], POINTS[Severity.MAJOR], POINTS[Severity.MINOR], CREDIT_CAPS))
    for c, m, n, cap in progress(combos, "calibrate: grid points"):
        points = {Severity.CRITICAL: c, Severity.MAJOR: m, Severity.MINOR: n}
        figures = _grid_figures(units, seed, points, cap, curves)
        bands = sum(f[0] for f in figures)
        windows = sum(f[1] for f in figures)
        distance = np.round(sum(f[2] for f in figures), 4)
        change = (abs(c - base.critical) + abs(m - base.major) + abs(n - base.minor) + abs(cap - base.credit_cap) / 5
                  + shape_change)
        # lexicographic: bands, windows, -distance, -change; np.lexsort sorts by the last key first
        i = int(np.lexsort((np.arange(len(curves)), change, distance, -windows, -bands))[0])
        key = (-int(bands[i]), -int(windows[i]), float(distance[i]), round(float(change[i]), 6))
        if best_key is None or key < best_key:
            best_key, best = key, Params(c, m, n, cap, _curve_tuple(curves[i]))
    return best


def evaluate(cases: list[Case], rubric: Rubric, source: str) -> dict[str, Outcome]:
    """Each scored case's outcome under the rubric, from one reading (the real scoring path)."""
    out = {}
    for case in cases:
        if case.scored and source in case.readings:
            score, verdict = score_reading(case.readings[source], rubric)
            out[case.name] = outcome(case, score, verdict)
    return out


def figures(outcomes: dict[str, Outcome], names: list[str]) -> tuple[float, float, int] | None:
    names = [n for n in names if n in outcomes]
    if not names:
        return None
    return (sum(outcomes[n].band_ok for n in names) / len(names), sum(outcomes[n].in_window for n in names) / len(names),
            len(names))


def comparison_table(cases: list[Case], rubrics: dict[str, Rubric], domain_cases: list[Case] | None = None) -> str:
    """Band accuracy / score-in-window of each rubric on each part of the corpus, per reading."""
    parts = [(f"{corpus} {split}", [c.name for c in cases if c.corpus == corpus and c.gold.split == split])
             for corpus in ("real", "fixtures") for split in ("heldout", "dev")]
    head = "| rubric | reading | " + " | ".join(label.replace("heldout", "held out") for label, _ in parts)
    head += " | Search with domain (gold findings) |" if domain_cases else " |"
    lines = [head, "|" + "---|" * (len(parts) + 2 + bool(domain_cases))]
    for rname, rubric in rubrics.items():
        for source in SOURCES:
            outcomes = evaluate(cases, rubric, source)
            cells = []
            for _, names in parts:
                f = figures(outcomes, names)
                cells.append("-" if f is None else f"{f[0]:.2f} / {f[1]:.2f} ({f[2]})")
            if domain_cases:
                f = figures(evaluate(domain_cases, rubric, "gold"), [c.name for c in domain_cases]) if source == "gold" else None
                cells.append("-" if f is None else f"{f[0]:.2f} / {f[1]:.2f} ({f[2]})")
            lines.append(f"| {rname} | {source} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


# ------------------------------------------------------------------ writing the rubric


def fitted_rubric_text(seed_text: str, seed: Rubric, p: Params) -> str:
    """The seed rubric's YAML with the fitted values, comments kept, under the default's header."""
    text = re.sub(r"(?m)^version: .*$", f"version: {FITTED_VERSION}", seed_text)
    shift = {}
    for sev, value in p.points().items():
        shift[sev] = value - seed.severity_points(sev)
        text = re.sub(rf"(?ms)(^  {sev.value}:\n.*?default_points: )[0-9.]+", rf"\g<1>{value:g}", text, count=1)

    def row(m: re.Match) -> str:
        sev = Severity(m.group(2))
        low, high = seed.severities[sev].range
        return f"{m.group(1)}{min(high, max(low, float(m.group(3)) + shift[sev])):g}"

    text = re.sub(r"(severity: (CRITICAL|MAJOR|MINOR), points: )([0-9.]+)", row, text)
    curve = "[" + ", ".join(f"[{'null' if u is None else f'{u:g}'}, {w:g}]" for u, w in p.curve) + "]"
    text = re.sub(r"(?m)^  diminishing_returns: .*$", f"  diminishing_returns: {curve}", text)
    text = re.sub(r"(?m)^  credit_cap: .*$", f"  credit_cap: {p.credit_cap:g}", text)
    text = re.sub(r"(?m)^  # all: a dimension's credits offset any deduction, up to the cap$",
                  "  # minor: credits offset only MINOR deductions, so a dimension holding a MAJOR or CRITICAL finding\n"
                  "  # never scores 100 (all: the starting values', credits offset any deduction up to the cap)", text)
    text = re.sub(r"(?m)^  credits_offset: .*$", "  credits_offset: minor", text)
    header = (
        "# Rubric for reviews of data-science analyses (the default).\n#\n"
        "# This file is data: the reviewer prompt template renders it, the synthesis scorer reads its\n"
        "# deduction and credit tables, and the offline reviewer's rules cite its issue types.\n"
        "# The design's formula with fitted values: each dimension is 100 minus its deductions on the\n"
        "# diminishing-returns curve plus its credits (capped; they offset MINOR findings only); the final\n"
        "# score is the mean of analysis and communication (50/50), or 50/25/25 with the domain dimension;\n"
        "# one CRITICAL finding caps the verdict at Minor Fix, two at Major Rework. The points per severity\n"
        "# (inside the severity ranges), the curve and the credit cap are written by `review-harness\n"
        "# calibrate --write` from the starting values (prompts/ds/rubric.seed-v1.yaml, -T rubric=seed-v1) and\n"
        "# the dev gold cases; do not edit them by hand.\n# Fitted: " + p.describe() + ".\n\n"
    )
    return header + text[text.index("version: "):]


def strict_rubric_text(fitted_text: str) -> str:
    """The fitted rubric's YAML plus the CRITICAL-with-MAJOR floor rule (`with_extra_floor`)."""
    rule = (f'  - {{rule: critical_with_serious, at_least: 1, cap: Major Rework, dimension: analysis, '
            f'why: "{CRITICAL_WITH_SERIOUS_WHY}"}}\n')
    text = re.sub(r"(?m)^version: .*$", f"version: {FITTED_VERSION}-strict", fitted_text)
    text = re.sub(r"(?m)^(floor_rules:\n(?:  - [^\n]*\n)+)", lambda m: m.group(1) + rule, text)
    header = (
        "# The default rubric's fitted values plus one floor rule beyond the design's two: a named option\n"
        "# (-T rubric=strict). A CRITICAL analysis finding with another MAJOR-or-worse analysis finding caps\n"
        "# the verdict at Major Rework. Written by `review-harness calibrate --write` beside the default.\n\n"
    )
    return header + text[text.index("version: "):]


# ------------------------------------------------------------------ the command


def _row(case: Case, outcomes: dict[str, dict[str, Outcome]]) -> str:
    low, high = case.gold.score_window
    cells = []
    for label, by_case in outcomes.items():
        o = by_case.get(case.name)
        cells.append(f"{label} {'-':>5s}" if o is None else
                     f"{label} {o.score:5.1f} {o.verdict:12s} {'ok' if o.band_ok else 'MISS':4s}")
    return (f"{case.corpus}/{case.name}"[:40].ljust(40) + f" {case.gold.split:7s} {case.gold.verdict_band:12s} "
            f"[{low:g},{high:g}]".ljust(10) + "  " + "  ".join(cells))


def fitted_value_count(params: Params) -> int:
    """How many values a fit chooses: three severities' points, the credit cap, and each band of the
    curve's bound and weight (the last band has no bound)."""
    return 4 + sum(1 if upper is None else 2 for upper, _ in params.curve)


def enough_cases(cases: list[Case], gold_dir: Path, seed: Rubric) -> None:
    """A fit needs at least as many gold cases as the values it fits: with fewer, any set of
    values fits and agreement on those cases says nothing."""
    needed = fitted_value_count(rubric_params(seed))
    if len(cases) < needed:
        raise CalibrationError(f"{gold_dir}: {len(cases)} gold case(s); calibrate fits {needed} values and needs at "
                               f"least {needed} cases (add gold files, or fit on the project's set without --gold)")


def run_calibrate(args: argparse.Namespace) -> int:
    if getattr(args, "log", None):
        return run_log_figures(args.log)
    try:
        seed = load_rubric(SEED_RUBRIC)
        default = load_rubric(DEFAULT_RUBRIC)
    except RubricError as ex:
        raise CalibrationError(str(ex)) from None
    if args.gold:
        cases = load_cases(Path(args.gold), seed)
        enough_cases(cases, Path(args.gold), seed)
        findings = read_findings() if FINDINGS_FILE.exists() else {}
        for case in cases:
            key = next((k for k in findings if k.endswith("/" + case.name)), None)
            if key:
                case.readings["offline"] = Reading.from_json(findings[key])
    else:
        if args.write:
            print("calibrate: running the offline reviewer on the gold sets (about a minute)")
            write_findings(offline_findings())
            print(f"wrote {FINDINGS_FILE.relative_to(PROJECT_ROOT)}")
        cases = corpus_cases(seed)
    chosen = fit(cases, seed)
    fitted = fitted_rubric(seed, chosen)
    dev = sum(1 for c in cases if c.scored and c.gold.split == "dev")
    print(f"calibrate: {len(cases)} gold cases ({dev} dev, fitted on), two readings each (the gold findings; the "
          f"offline reviewer's, {FINDINGS_FILE.name})")
    print(f"starting values ({seed.version}, -T rubric=seed-v1): {rubric_params(seed).describe(seed.scoring.credits_offset)}")
    print(f"fitted ({FITTED_VERSION}): {chosen.describe()}")
    current = rubric_params(default)
    print("the default rubric " + ("holds the fitted values" if current == chosen and default.scoring.credits_offset == "minor"
                                   else f"differs: {current.describe(default.scoring.credits_offset)} (run with --write)"))
    domain_cases = load_cases(DOMAIN_GOLD, seed, corpus="domain") if DOMAIN_GOLD.is_dir() and not args.gold else None
    print("\nband accuracy / score in window (cases):")
    compared = {"seed-v1": seed, "fitted (the default)": fitted, "strict (fitted + CRITICAL-with-MAJOR floor)":
                with_extra_floor(fitted)}
    if CALIBRATED_RUBRIC.is_file():
        compared["calibrated (shortfall sum, 4 floor rules)"] = load_rubric(CALIBRATED_RUBRIC)
    print(comparison_table(cases, compared, domain_cases))
    print()
    per_source = {f"{r}:{s}": evaluate(cases, rub, s) for r, rub in (("seed", seed), ("fit", fitted)) for s in SOURCES}
    for case in cases:
        if case.scored:
            print(_row(case, per_source))
    if args.write:
        text = fitted_rubric_text(SEED_RUBRIC.read_text(encoding="utf-8"), seed, chosen)
        target = Path(args.output) if args.output else DEFAULT_RUBRIC
        if args.output:  # a file the user named: never replaced unless the tool wrote it (else beside it)
            placed = write_output(target, text)
            target = placed.path
            if placed.note:
                print(placed.note)
        else:
            target.write_text(text, encoding="utf-8")
        written = load_rubric(target)  # the written file must load and pass its own range checks
        print(f"\nwrote {target} ({written.version})")
        if not args.output:
            STRICT_RUBRIC.write_text(strict_rubric_text(text), encoding="utf-8")
            print(f"wrote {STRICT_RUBRIC} ({load_rubric(STRICT_RUBRIC).version})")
    return 0


# ------------------------------------------------------------------ a run's figures (--log)


FIGURES = ("precision", "recall", "must_catch_recall", "severity_agreement", "verdict_band_accuracy", "score_in_window",
           "unsupported_critical")


def run_log_figures(where: str) -> int:
    from review_harness.core.kinds import KindError, kind_of_log
    from review_harness.core.logs import newest_log, read_log

    path = newest_log(where)
    log = read_log(path)
    try:
        kind = kind_of_log(log)
    except KindError as ex:
        raise CalibrationError(f"{path.name}: {ex}") from None
    if kind.name != "ds":  # an all-zero table would read as a reviewer that found nothing
        raise CalibrationError(f"{path.name}: a log of the {kind.title} review; calibrate --log reads gold-set runs "
                               "of the DS review (inspect eval review_harness/ds_review)")
    result = log_figures(log)
    if not result["all"]["fixtures"]:
        raise CalibrationError(f"{path.name}: no sample has a gold comparison (a review of documents without "
                               "gold files); calibrate --log reads a gold-set run (inspect eval review_harness/ds_review)")
    print(f"gold figures of {path.name} (rubric {(log.eval.metadata or {}).get('rubric_version', '?')}) by split:")
    print(figures_table(result))
    return 0


def log_figures(log) -> dict[str, dict[str, float | None]]:
    """Gold metrics of a DS eval log by gold split (dev, heldout, all): the mean of each metric
    over the samples that have it (NaN values, e.g. a draft's verdict, are left out)."""
    from review_harness.core.gold import sample_gold_path

    rows: dict[str, list[dict[str, float]]] = {"dev": [], "heldout": [], "all": []}
    for sample in log.samples or []:
        score = (sample.scores or {}).get("gold_comparison")
        path = sample_gold_path(sample.metadata or {})
        if score is None or path is None or not isinstance(score.value, dict):
            continue
        split = load_gold(path).split
        rows[split].append(score.value)
        rows["all"].append(score.value)
    out: dict[str, dict[str, float | None]] = {}
    for split, values in rows.items():
        result: dict[str, float | None] = {"fixtures": float(len(values))}
        for key in FIGURES:
            present = [float(v[key]) for v in values if v.get(key) is not None and v[key] == v[key]]
            result[key] = sum(present) / len(present) if present else None
        out[split] = result
    return out


def figures_table(result: dict[str, dict[str, float | None]]) -> str:
    head = "| split | fixtures | " + " | ".join(k.replace("_", " ") for k in FIGURES) + " |"
    lines = [head, "|" + "---|" * (len(FIGURES) + 2)]
    for split, row in result.items():
        cells = ["-" if row[k] is None else f"{row[k]:.2f}" for k in FIGURES]
        lines.append(f"| {split} | {int(row['fixtures'] or 0)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
