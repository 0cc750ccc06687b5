"""`review-harness calibrate`: fit the calibrated rubric's scoring to the holistic gold windows.

The default rubric follows the design's formulas and is not fitted; this command fits the named
alternative, prompts/ds/rubric.calibrated.yaml (`-T rubric=calibrated`), and prints the default
rubric's figures beside it.

The gold files carry a verdict band and score window judged by reading each document (see
`window_basis: holistic`). Scoring *from the gold findings alone* (each gold finding deducts the
points of its severity, each gold positive earns its strength credit) shows whether the scoring
rules reproduce that judgement, independently of any reviewer. The fit searches a small grid:

- points per severity, inside the seed's ranges (CRITICAL 15-20, MAJOR 8-10, MINOR 3-7);
- the credit cap and a scale on the credit values;
- the diminishing-returns curve (v1's, or none);
- the analysis weight (the seed's v1 50/50 was to be revisited with calibration data);
- the domain dimension's weight, fitted on the three-dimension cases (gold files with
  `options: {domain: ...}`) once the rest is fitted (a second stage: it moves no two-dimension case);
- two extra floor rules: a CRITICAL analysis finding with N more MAJOR-or-worse analysis
  findings, and N MAJOR-or-worse findings in the whole review, each capping at Major Rework.

Fixed rules (not fitted, the issue requires them): credits only offset MINOR deductions.
The objective is band accuracy, then window rate, then the distance of scores from their
windows, then the smallest change from the current rubric. Leave-one-out refits without each
fixture and checks it, which says how much of the fit is memorisation.
"""

from __future__ import annotations

import argparse
import itertools
import re
from dataclasses import astuple, dataclass, field
from pathlib import Path

from dataclasses import replace

from review_harness.core.commands import progress
from review_harness.core.files import input_folder_problem, write_output
from review_harness.core.paths import GOLD_DIR
from review_harness.domain.reviewer import ReviewerRubric, default_reviewer_rubric
from review_harness.ds import scoring
from review_harness.core.gold import GoldError
from review_harness.ds.gold import GoldFile, load_gold
from review_harness.ds.models import Severity
from review_harness.ds.rubric import CALIBRATED_RUBRIC, DEFAULT_RUBRIC, FloorRule, Rubric, RubricError, load_rubric

# (analysis, communication) deduction weights: each dimension's shortfall from 100 counts at
# its weight; (0.5, 0.5) is the seed's mean, (1, 1) counts every deduction in full
WEIGHT_OPTIONS = ((0.5, 0.5), (0.6, 0.4), (1.0, 0.75), (1.0, 1.0))
# the domain dimension's deduction weight (seed 001's 50/25/25 is half the analysis weight)
DOMAIN_WEIGHT_OPTIONS = (0.25, 0.5, 0.75, 1.0)
# the gold sets calibrate reads by default: the DS fixtures and the Search fixtures reviewed with a domain
DEFAULT_GOLD_DIRS = (GOLD_DIR / "ds", GOLD_DIR / "domain" / "search")
V1_DIMINISHING = [[30, 1.0], [50, 0.75], [None, 0.5]]
NO_DIMINISHING = [[None, 1.0]]

CRITICAL_WITH_SERIOUS_WHY = (
    "A CRITICAL analysis finding and {count} MAJOR-or-worse analysis findings in all: the main "
    "conclusion is unsupported and the analysis is weak beyond it, so the verdict is Major Rework."
)
SERIOUS_WHY = (
    "{count} MAJOR-or-worse findings (at least {at_least}): problems this many and this serious "
    "cap the verdict at Major Rework whatever the computed score."
)

SERIOUS_MINOR_FIX_WHY = (
    "{count} MAJOR-or-worse finding(s): a MAJOR finding is a gap to close before sharing, so the "
    "verdict is at most Minor Fix whatever the computed score."
)


class CalibrationError(ValueError):
    """The gold set or rubric cannot be calibrated (one-line message)."""


@dataclass(frozen=True)
class Params:
    critical: float
    major: float
    minor: float
    credit_cap: float
    credit_scale: float
    diminishing: bool
    weights: tuple[float, float]  # analysis, communication
    critical_with_serious: int | None
    serious: int | None
    serious_minor_fix: int | None
    domain_weight: float = 0.5

    def describe(self) -> str:
        rules = []
        if self.critical_with_serious is not None:
            rules.append(f"CRITICAL+{self.critical_with_serious} serious in analysis -> Major Rework")
        if self.serious is not None:
            rules.append(f"{self.serious}+ serious -> Major Rework")
        if self.serious_minor_fix is not None:
            rules.append(f"{self.serious_minor_fix}+ serious -> Minor Fix")
        return (
            f"CRITICAL {self.critical:g}, MAJOR {self.major:g}, MINOR {self.minor:g}; credits x{self.credit_scale:g} "
            f"cap {self.credit_cap:g} (offset MINOR only); diminishing returns {'v1' if self.diminishing else 'none'}; "
            f"deduction weights analysis {self.weights[0]:g} / communication {self.weights[1]:g} / "
            f"domain {self.domain_weight:g}; "
            f"floor rules: the two CRITICAL rules{''.join('; ' + r for r in rules)}"
        )


@dataclass
class Case:
    name: str
    gold: GoldFile

    @property
    def domain(self) -> bool:
        """A three-dimension case: reviewed with a domain."""
        return bool(self.gold.options.get("domain"))


@dataclass
class Outcome:
    score: float
    verdict: str
    band_ok: bool
    in_window: bool
    distance: float


@dataclass
class Fit:
    params: Params
    outcomes: dict[str, Outcome] = field(default_factory=dict)

    def band_accuracy(self, names: list[str] | None = None) -> float:
        names = names or list(self.outcomes)
        return sum(self.outcomes[n].band_ok for n in names) / len(names)

    def window_rate(self, names: list[str] | None = None) -> float:
        names = names or list(self.outcomes)
        return sum(self.outcomes[n].in_window for n in names) / len(names)


def load_cases(gold_dirs: Path | list[Path] | tuple[Path, ...], rubric: Rubric) -> list[Case]:
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
        cases.append(Case(path.stem, gold))
    return cases


def structural_rubric(base: Rubric, p: Params) -> Rubric:
    """The base rubric with the fitted scoring settings and floor rules (points are separate)."""
    rubric = base.model_copy(deep=True)
    rubric.scoring.credit_cap = p.credit_cap
    rubric.scoring.credits_offset = "minor"
    rubric.scoring.diminishing_returns = [tuple(x) for x in (V1_DIMINISHING if p.diminishing else NO_DIMINISHING)]
    rubric.scoring.weights = {"analysis": p.weights[0], "communication": p.weights[1], "domain": p.domain_weight}
    rules = [r for r in base.floor_rules if r.rule == "criticals"]
    if p.critical_with_serious is not None:
        rules.append(FloorRule(rule="critical_with_serious", at_least=p.critical_with_serious,
                               cap="Major Rework", dimension="analysis", why=CRITICAL_WITH_SERIOUS_WHY))
    if p.serious is not None:
        rules.append(FloorRule(rule="serious", at_least=p.serious, cap="Major Rework", why=SERIOUS_WHY))
    if p.serious_minor_fix is not None:
        rules.append(FloorRule(rule="serious", at_least=p.serious_minor_fix, cap="Minor Fix", why=SERIOUS_MINOR_FIX_WHY))
    rubric.floor_rules = rules
    return rubric


def dimension_scores(gold: GoldFile, rubric: Rubric, points: dict[Severity, float], credit_scale: float = 1.0,
                     domain_rubric: ReviewerRubric | None = None, with_domain: bool = True) -> dict[str, float]:
    """Each dimension's score for a review whose findings and positives are exactly the gold
    ones, through the same scoring functions a real review uses. The domain dimension (a case
    reviewed with a domain, unless `with_domain` is False) uses the domain reviewer's credits and
    credit cap."""
    scores: dict[str, float] = {}
    for dim_id, dimension in rubric.dimensions.items():
        deductions = [(points[f.severity], f.severity) for f in gold.expected_findings if f.dimension == dim_id]
        seen: set[str] = set()
        credits = []
        for positive in gold.positives:
            credit = dimension.credit(positive.credit) if positive.dimension == dim_id else None
            if credit is not None and credit.id not in seen:
                seen.add(credit.id)
                credits.append(round(credit.points * credit_scale))
        scores[dim_id] = scoring.dimension_score(deductions, credits, rubric)[0]
    if with_domain and gold.options.get("domain"):
        domain_rubric = domain_rubric or default_reviewer_rubric()
        deductions = [(points[f.severity], f.severity) for f in gold.expected_findings if f.dimension == "domain"]
        credit_ids = list(dict.fromkeys(p.credit for p in gold.positives if p.dimension == "domain" and p.credit))
        credits = [domain_rubric.credit(c).points for c in credit_ids]
        scores["domain"] = scoring.dimension_score(deductions, credits, rubric,
                                                   credit_cap=domain_rubric.scoring.credit_cap)[0]
    return scores


def score_gold(gold: GoldFile, rubric: Rubric, points: dict[Severity, float], credit_scale: float = 1.0,
               with_domain: bool = True) -> tuple[float, str]:
    """(final score, verdict) of a review whose findings and positives are exactly the gold ones
    (`with_domain` False: the same document reviewed without its domain)."""
    scores = dimension_scores(gold, rubric, points, credit_scale, with_domain=with_domain)
    final = scoring.final_score(scores, scoring.review_weights(rubric, scores))
    findings = [f for f in gold.expected_findings if with_domain or f.dimension != "domain"]
    verdict, _ = scoring.apply_floor_rules(scoring.band_verdict(final, rubric), findings, rubric)
    return final, verdict


def evaluate(cases: list[Case], rubric: Rubric, points: dict[Severity, float], credit_scale: float, params: Params) -> Fit:
    fit = Fit(params)
    for case in cases:
        score, verdict = score_gold(case.gold, rubric, points, credit_scale)
        low, high = case.gold.score_window
        fit.outcomes[case.name] = Outcome(
            score=score, verdict=verdict, band_ok=verdict == case.gold.verdict_band,
            in_window=low <= score <= high, distance=max(0.0, low - score, score - high),
        )
    return fit


def current_params(rubric: Rubric) -> Params:
    """The rubric's own settings as a point of the grid (for 'before' figures)."""
    extra = {(r.rule, r.cap): r.at_least for r in rubric.floor_rules if r.rule != "criticals"}
    return Params(
        critical=rubric.severity_points(Severity.CRITICAL), major=rubric.severity_points(Severity.MAJOR),
        minor=rubric.severity_points(Severity.MINOR), credit_cap=rubric.scoring.credit_cap, credit_scale=1.0,
        diminishing=len(rubric.scoring.diminishing_returns) > 1,
        weights=(rubric.scoring.weights["analysis"], rubric.scoring.weights["communication"]),
        critical_with_serious=extra.get(("critical_with_serious", "Major Rework")),
        serious=extra.get(("serious", "Major Rework")), serious_minor_fix=extra.get(("serious", "Minor Fix")),
        domain_weight=rubric.weight("domain"),
    )


def evaluate_rubric_as_is(cases: list[Case], rubric: Rubric) -> Fit:
    """Score the gold findings with the rubric exactly as written (no fitted changes)."""
    points = {s: rubric.severity_points(s) for s in Severity}
    return evaluate(cases, rubric, points, 1.0, current_params(rubric))


def grid(rubric: Rubric) -> list[Params]:
    ranges = {s: rubric.severities[s].range for s in Severity}

    def steps(s: Severity) -> list[float]:
        low, high = ranges[s]
        return sorted({float(low), float(round((low + high) / 2)), float(high)})

    domain_weight = rubric.weight("domain")
    return [
        Params(c, m, n, cap, scale, dr, w, cws, ser, smf, domain_weight)
        for c, m, n, cap, scale, dr, w, cws, ser, smf in itertools.product(
            steps(Severity.CRITICAL), steps(Severity.MAJOR), steps(Severity.MINOR),
            (10.0, 25.0), (0.6, 1.0), (True, False), WEIGHT_OPTIONS, (None, 1, 2), (None, 4, 5), (None, 1, 2),
        )
    ]


def _objective(fit: Fit, names: list[str], reference: Params) -> tuple:
    change = (
        abs(fit.params.critical - reference.critical) + abs(fit.params.major - reference.major)
        + abs(fit.params.minor - reference.minor)
        + sum(abs(a - b) for a, b in zip(fit.params.weights, reference.weights)) * 10
        + abs(fit.params.domain_weight - reference.domain_weight) * 10
        + (fit.params.critical_with_serious is not None) + (fit.params.serious is not None)
        + (fit.params.serious_minor_fix is not None)
    )
    return (
        sum(fit.outcomes[n].band_ok for n in names),
        sum(fit.outcomes[n].in_window for n in names),
        -round(sum(fit.outcomes[n].distance for n in names), 6),
        -change,
    )


def search(cases: list[Case], base: Rubric) -> list[Fit]:
    """Every grid point evaluated on every case (leave-one-out reuses this table)."""
    fits = []
    rubrics: dict[tuple, Rubric] = {}
    for p in progress(grid(base), "calibrate: grid points"):
        key = (p.credit_cap, p.diminishing, p.weights, p.critical_with_serious, p.serious, p.serious_minor_fix)
        if key not in rubrics:
            rubrics[key] = structural_rubric(base, p)
        points = {Severity.CRITICAL: p.critical, Severity.MAJOR: p.major, Severity.MINOR: p.minor}
        fits.append(evaluate(cases, rubrics[key], points, p.credit_scale, p))
    return fits


def domain_stage(cases: list[Case], base: Rubric, chosen: Fit, names: list[str], reference: Params) -> Fit:
    """Stage 2: with everything else fitted, the domain weight that fits the three-dimension
    cases best (ties: the smallest change). Two-dimension cases do not depend on it."""
    p = chosen.params
    points = {Severity.CRITICAL: p.critical, Severity.MAJOR: p.major, Severity.MINOR: p.minor}
    fits = []
    for weight in DOMAIN_WEIGHT_OPTIONS:
        q = replace(p, domain_weight=weight)
        fits.append(evaluate(cases, structural_rubric(base, q), points, q.credit_scale, q))
    return max(fits, key=lambda f: _objective(f, names, reference))


def best(fits: list[Fit], names: list[str], reference: Params) -> Fit:
    return max(fits, key=lambda f: _objective(f, names, reference))


def fit_all(cases: list[Case], base: Rubric, fits: list[Fit], names: list[str], reference: Params) -> Fit:
    """Both stages over the cases named."""
    return domain_stage(cases, base, best(fits, names, reference), names, reference)


def leave_one_out(cases: list[Case], base: Rubric, fits: list[Fit], names: list[str], reference: Params) -> dict[str, Outcome]:
    """For each case: fit on all the others, then score the held-out case with that fit."""
    result = {}
    for name in progress(names, "calibrate: leave-one-out fits"):
        chosen = fit_all(cases, base, fits, [n for n in names if n != name], reference)
        result[name] = chosen.outcomes[name]
    return result


def fitted_rubric_text(base_text: str, base: Rubric, p: Params, version: str) -> str:
    """The rubric YAML with the fitted values, comments kept: severity defaults, every deduction
    row moved by its severity's shift (clamped to the range), credits scaled, scoring settings
    and floor rules replaced."""
    text = re.sub(r"(?m)^version: .*$", f"version: {version}", base_text)
    shift = {}
    for sev, value in ((Severity.CRITICAL, p.critical), (Severity.MAJOR, p.major), (Severity.MINOR, p.minor)):
        shift[sev] = value - base.severity_points(sev)
        text = re.sub(rf"(?ms)(^  {sev.value}:\n.*?default_points: )[0-9.]+", rf"\g<1>{value:g}", text, count=1)

    def row(m: re.Match) -> str:
        sev = Severity(m.group(2))
        low, high = base.severities[sev].range
        return f"{m.group(1)}{min(high, max(low, float(m.group(3)) + shift[sev])):g}"

    text = re.sub(r"(severity: (CRITICAL|MAJOR|MINOR), points: )([0-9.]+)", row, text)
    text = re.sub(
        r"(\{id: \w+, points: )([0-9.]+)(, description)",
        lambda m: f"{m.group(1)}{max(1, round(float(m.group(2)) * p.credit_scale)):g}{m.group(3)}", text,
    )
    curve = "[[null, 1.0]]" if not p.diminishing else "[[30, 1.0], [50, 0.75], [null, 0.5]]"
    text = re.sub(r"(?m)^  diminishing_returns:\n(?:    - [^\n]*\n)+", f"  diminishing_returns: {curve}\n", text)
    text = re.sub(r"(?m)^  diminishing_returns: \[\[.*$", f"  diminishing_returns: {curve}", text)
    text = re.sub(r"(?m)^  credit_cap: .*$", f"  credit_cap: {p.credit_cap:g}", text)
    text = re.sub(r"(?m)^  credits_offset: .*$", "  credits_offset: minor", text)
    text = re.sub(r"(?m)^    analysis: [0-9.]+$", f"    analysis: {p.weights[0]:g}", text)
    text = re.sub(r"(?m)^    communication: [0-9.]+$", f"    communication: {p.weights[1]:g}", text)
    text = re.sub(r"(?m)^    domain: [0-9.]+$", f"    domain: {p.domain_weight:g}", text)
    rules = [line for line in re.findall(r"(?m)^  - \{rule: criticals, .*$", text)]
    if p.critical_with_serious is not None:
        rules.append(f'  - {{rule: critical_with_serious, at_least: {p.critical_with_serious}, cap: Major Rework, '
                     f'dimension: analysis, why: "{CRITICAL_WITH_SERIOUS_WHY}"}}')
    if p.serious is not None:
        rules.append(f'  - {{rule: serious, at_least: {p.serious}, cap: Major Rework, why: "{SERIOUS_WHY}"}}')
    if p.serious_minor_fix is not None:
        rules.append(f'  - {{rule: serious, at_least: {p.serious_minor_fix}, cap: Minor Fix, why: "{SERIOUS_MINOR_FIX_WHY}"}}')
    text = re.sub(r"(?m)^floor_rules:\n(?:  - [^\n]*\n)+", "floor_rules:\n" + "\n".join(rules) + "\n", text)
    return text


def next_version(version: str) -> str:
    m = re.search(r"v(\d+)$", version)
    return f"{version[: m.start()]}v{int(m.group(1)) + 1}" if m else f"{version}-v2"


def _row(name: str, case: Case, o: Outcome, loo: Outcome | None) -> str:
    low, high = case.gold.score_window
    loo_text = "" if loo is None else f"  loo {loo.score:5.1f} {'ok' if loo.band_ok else 'MISS'}"
    return (f"{name:28s} {case.gold.split:7s} {case.gold.verdict_band:12s} [{low:g},{high:g}]".ljust(66)
            + f" {o.score:5.1f} {o.verdict:12s} {'ok' if o.band_ok else 'MISS':4s} {'in' if o.in_window else 'out'}"
            + loo_text)


def enough_cases(cases: list[Case], gold_dirs: list[Path], base: Rubric) -> None:
    """A fit needs at least as many gold cases as the values it fits: with fewer, any set of
    values fits and leave-one-out agreement says nothing."""
    needed = sum(len(v) if isinstance(v, tuple) else 1 for v in astuple(current_params(base)))
    if len(cases) < needed:
        raise CalibrationError(f"{', '.join(str(d) for d in gold_dirs)}: {len(cases)} gold case(s); calibrate fits "
                               f"{needed} values and needs at least {needed} cases (add gold files, or fit on the "
                               f"project's set without --gold)")


def run_calibrate(args: argparse.Namespace) -> int:
    if getattr(args, "log", None):
        from review_harness.core.kinds import KindError, kind_of_log
        from review_harness.core.logs import newest_log, read_log

        path = newest_log(args.log)
        log = read_log(path)
        try:
            kind = kind_of_log(log)
        except KindError as ex:
            raise CalibrationError(f"{path.name}: {ex}") from None
        if kind.name != "ds":  # an all-zero table would read as a reviewer that found nothing
            raise CalibrationError(f"{path.name}: a log of the {kind.title} review; calibrate --log reads gold-set runs "
                                   "of the DS review (inspect eval tasks/ds_review.py)")
        figures = log_figures(log)
        if not figures["all"]["fixtures"]:
            raise CalibrationError(f"{path.name}: no sample has a gold comparison (a review of documents without "
                                   "gold files); calibrate --log reads a gold-set run (inspect eval tasks/ds_review.py)")
        print(f"gold figures of {path.name} (rubric {(log.eval.metadata or {}).get('rubric_version', '?')}) by split:")
        print(figures_table(figures))
        return 0
    gold_dirs = [Path(args.gold)] if args.gold else list(DEFAULT_GOLD_DIRS)
    try:
        base = load_rubric(CALIBRATED_RUBRIC)
        default = load_rubric(DEFAULT_RUBRIC)
    except RubricError as ex:
        raise CalibrationError(str(ex)) from None
    cases = load_cases(gold_dirs, base)
    enough_cases(cases, gold_dirs, base)
    names = [c.name for c in cases]
    by_name = {c.name: c for c in cases}
    before = evaluate_rubric_as_is(cases, base)
    designed = evaluate_rubric_as_is(cases, default)
    fits = search(cases, base)
    reference = current_params(base)
    chosen = fit_all(cases, base, fits, names, reference)
    loo = leave_one_out(cases, base, fits, names, reference)
    print(f"calibrate: {len(cases)} gold cases in {', '.join(str(d) for d in gold_dirs)}, {len(fits)} grid points "
          f"(then {len(DOMAIN_WEIGHT_OPTIONS)} domain weights), scoring from gold findings alone")
    print(f"default rubric {default.version} (the design's formulas, not fitted): band accuracy "
          f"{designed.band_accuracy():.2f}, window rate {designed.window_rate():.2f}")
    print(f"calibrated rubric {base.version}: band accuracy {before.band_accuracy():.2f}, window rate {before.window_rate():.2f}")
    print(f"fitted: {chosen.params.describe()}")
    print(f"fitted: band accuracy {chosen.band_accuracy():.2f}, window rate {chosen.window_rate():.2f}; "
          f"leave-one-out band accuracy {sum(o.band_ok for o in loo.values()) / len(loo):.2f}, "
          f"window rate {sum(o.in_window for o in loo.values()) / len(loo):.2f}")
    groups = [("two dimensions", [n for n in names if not by_name[n].domain]),
              ("three dimensions", [n for n in names if by_name[n].domain])]
    groups += [(split, [n for n in names if by_name[n].gold.split == split]) for split in ("dev", "heldout")]
    for label, part in groups:
        if part:
            print(f"  {label}: {len(part)} cases, band accuracy {chosen.band_accuracy(part):.2f}, "
                  f"window rate {chosen.window_rate(part):.2f}; leave-one-out band accuracy "
                  f"{sum(loo[n].band_ok for n in part) / len(part):.2f}")
    print()
    for name in names:
        print(_row(name, by_name[name], chosen.outcomes[name], loo[name]))
    three = [n for n in names if by_name[n].domain]
    if three:
        print("\nthe same documents without and with their domain, fitted rubric, from gold findings:")
        print(recalibration_table([by_name[n] for n in three], structural_rubric(base, chosen.params), chosen.params))
    if args.write:
        version = next_version(base.version)
        target = Path(args.output) if args.output else CALIBRATED_RUBRIC
        text = fitted_rubric_text(CALIBRATED_RUBRIC.read_text(encoding="utf-8"), base, chosen.params, version)
        if args.output:  # a file the user named: never replaced unless the tool wrote it (else beside it)
            placed = write_output(target, text)
            target = placed.path
            if placed.note:
                print(placed.note)
        else:
            target.write_text(text, encoding="utf-8")
        written = load_rubric(target)  # the written file must load and pass its own range checks
        print(f"\nwrote {target} ({written.version})")
    return 0


def recalibration_table(cases: list[Case], rubric: Rubric, p: Params) -> str:
    """Each three-dimension case scored without its domain (its analysis and communication gold
    findings) and with it: whether its band moves, and which way."""
    points = {Severity.CRITICAL: p.critical, Severity.MAJOR: p.major, Severity.MINOR: p.minor}
    lines = ["| document | 2 dimensions | 3 dimensions | band |", "|---|---|---|---|"]
    order = [scoring.GOOD_TO_GO, scoring.MINOR_FIX, scoring.MAJOR_REWORK]
    for case in cases:
        s2, v2 = score_gold(case.gold, rubric, points, p.credit_scale, with_domain=False)
        s3, v3 = score_gold(case.gold, rubric, points, p.credit_scale)
        moved = "same" if v2 == v3 else ("down" if order.index(v3) > order.index(v2) else "UP")
        lines.append(f"| {case.name} | {s2:g} {v2} | {s3:g} {v3} | {moved} |")
    return "\n".join(lines)


FIGURES = ("precision", "recall", "must_catch_recall", "severity_agreement", "verdict_band_accuracy", "score_in_window",
           "unsupported_critical")


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
        figures: dict[str, float | None] = {"fixtures": float(len(values))}
        for key in FIGURES:
            present = [float(v[key]) for v in values if v.get(key) is not None and v[key] == v[key]]
            figures[key] = sum(present) / len(present) if present else None
        out[split] = figures
    return out


def figures_table(figures: dict[str, dict[str, float | None]]) -> str:
    head = "| split | fixtures | " + " | ".join(k.replace("_", " ") for k in FIGURES) + " |"
    lines = [head, "|" + "---|" * (len(FIGURES) + 2)]
    for split, row in figures.items():
        cells = ["-" if row[k] is None else f"{row[k]:.2f}" for k in FIGURES]
        lines.append(f"| {split} | {int(row['fixtures'] or 0)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
