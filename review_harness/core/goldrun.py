"""What every gold run records beside its kind's comparison, the same way for every kind:

- **cost per correct finding**: the sample's input tokens (cached input apart), output tokens and,
  with prices, dollars; the number of correct findings (gold findings the review matched); and
  tokens and dollars per correct finding. Dollars come from Inspect's own price data (its model
  database, or `--model-cost-config FILE`), else from a price table named by the
  `REVIEW_HARNESS_PRICES` environment variable (YAML: model -> dollars per million `input`,
  `output`, `input_cache_read`, `input_cache_write`); cached input is priced as cached. A model
  with no price leaves dollars not applicable (NaN) rather than a partial sum. Offline the tokens
  are what the offline provider reports. A grader's calls (an LLM matcher) are not counted: the
  cost is the reviewers'.
- **recall per planted flaw**: `recall@<operator>` is 1 when the review caught the flaw planted
  in the sample, 0 when it missed it, NaN for the other operators of the set (every sample of a
  planted set carries every operator's key, so the run's metric per operator is its recall).
  Caught means matched by the kind's matcher *and*, for a kind whose matcher can pair findings
  by lens alone (DS, design), about the planted flaw: its quote overlaps the planted text (when
  the flaw has one) and its words name the flaw (one of the gold finding's keywords). A finding
  of the same lens about another place, or about something else at the planted place, is not
  the planted flaw.
- **not judged**: a planted gold file lists only its planted flaw, so precision figures are NaN
  on it (the review's other findings may be real).
- **each gold finding's outcome** (`finding_outcomes`, score metadata `gold_findings`): per
  expected finding, whether it is must-catch, whether the review caught it, and its summary, so
  the gate can hold every must-catch finding a baseline caught (core/gate.py's ratchet).
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

NAN = float("nan")
PRICES_ENV = "REVIEW_HARNESS_PRICES"
OPERATOR_KEY = "recall@"
COST_KEYS = ("input_tokens", "cached_input_tokens", "output_tokens", "dollars", "correct_findings",
             "tokens_per_correct", "dollars_per_correct")
PLANTED_METADATA = "plant_operators"  # sample metadata: every operator of the run's planted set


class Price(BaseModel):
    """Dollars per million tokens."""

    model_config = ConfigDict(extra="forbid")
    input: float = Field(ge=0)
    output: float = Field(ge=0)
    input_cache_read: float | None = Field(default=None, ge=0)
    input_cache_write: float | None = Field(default=None, ge=0)


class PriceError(ValueError):
    """A price table that cannot be read (one line naming the file)."""


_prices: dict[tuple[str, float], dict[str, Price]] = {}


def price_table(path: str | None = None) -> dict[str, Price]:
    """The price table named by REVIEW_HARNESS_PRICES (or `path`); {} when none is named."""
    from review_harness.core.yamlio import read_mapping

    path = path or os.environ.get(PRICES_ENV)
    if not path:
        return {}
    file = Path(path).expanduser()
    try:
        key = (str(file), file.stat().st_mtime)
    except OSError:
        raise PriceError(f"{PRICES_ENV}={path}: no such file") from None
    if key not in _prices:
        raw = read_mapping(file, PriceError, f"price table {file}:")
        try:
            _prices[key] = {str(model): Price.model_validate(value) for model, value in raw.items()}
        except ValueError as ex:
            raise PriceError(f"price table {file}: {str(ex).splitlines()[0]} ({ex})") from None
    return _prices[key]


def _dollars(model: str, usage: Any, prices: Mapping[str, Price]) -> float | None:
    if getattr(usage, "total_cost", None) is not None:
        return float(usage.total_cost)
    price = prices.get(model) or prices.get(model.split("/", 1)[-1])
    if price is None:
        return None
    read = price.input_cache_read if price.input_cache_read is not None else price.input
    write = price.input_cache_write if price.input_cache_write is not None else price.input
    return (usage.input_tokens * price.input + usage.output_tokens * price.output
            + (usage.input_tokens_cache_read or 0) * read + (usage.input_tokens_cache_write or 0) * write) / 1e6


def cost_figures(usage: Mapping[str, Any], correct: int | None, prices: Mapping[str, Price] | None = None) -> dict[str, float]:
    """The cost keys from Inspect's usage per model (`ModelUsage`) and the number of correct
    findings (None: nothing was compared)."""
    if not usage:
        figures = dict.fromkeys(COST_KEYS, NAN)
        figures["correct_findings"] = NAN if correct is None else float(correct)
        return figures
    prices = price_table() if prices is None else prices
    cached = sum(u.input_tokens_cache_read or 0 for u in usage.values())
    inputs = sum(u.input_tokens + (u.input_tokens_cache_write or 0) for u in usage.values()) + cached
    outputs = sum(u.output_tokens for u in usage.values())
    each = [_dollars(model, u, prices) for model, u in usage.items()]
    dollars = sum(each) if each and all(d is not None for d in each) else NAN
    tokens = inputs + outputs
    return {
        "input_tokens": float(inputs),
        "cached_input_tokens": float(cached),
        "output_tokens": float(outputs),
        "dollars": dollars,
        "correct_findings": NAN if correct is None else float(correct),
        "tokens_per_correct": tokens / correct if correct else NAN,
        "dollars_per_correct": dollars / correct if correct and not math.isnan(dollars) else NAN,
    }


def reviewer_usage(by_model: Mapping[str, Any], by_role: Mapping[str, Any], not_counted: Iterable[str] = ("grader",)) -> dict[str, Any]:
    """Usage per model without the roles that are no reviewers' (the grader's matcher calls)."""
    out = dict(by_model)
    for role in not_counted:
        usage = by_role.get(role)
        if usage is None:
            continue
        for model, total in list(out.items()):
            if total.input_tokens >= usage.input_tokens and total.output_tokens >= usage.output_tokens:
                rest = total.model_copy()
                rest.input_tokens -= usage.input_tokens
                rest.output_tokens -= usage.output_tokens
                rest.total_tokens = max(0, rest.total_tokens - usage.total_tokens)
                if usage.total_cost is not None and rest.total_cost is not None:
                    rest.total_cost -= usage.total_cost
                out[model] = rest
                break
    return {m: u for m, u in out.items() if u.input_tokens or u.output_tokens or u.input_tokens_cache_read}


FINDINGS_METADATA = "gold_findings"  # score metadata: finding id -> its outcome (finding_outcomes)


def finding_outcomes(gold: Any, caught: set[str] | None) -> dict[str, dict[str, Any]]:
    """Each expected finding of `gold` -> {must_catch, matched, summary}; `caught`: the ids the
    review caught (None: nothing was compared, so none was)."""
    return {f.id: {"must_catch": bool(f.must_catch), "matched": f.id in (caught or set()),
                   "summary": str(getattr(f, "summary", "") or "")}
            for f in getattr(gold, "expected_findings", None) or []}


LOCATED = 0.6  # quote overlap (0-1) that puts a finding on the planted text


def located_matches(matches: Iterable[Any], gold: Any,
                    described: Mapping[str, tuple[str | None, str]] | None) -> set[str]:
    """The gold finding ids the review caught. On a planted file with `described` (finding id ->
    (its evidence quote, its words without the quote)), a match counts only when the finding is
    about the planted flaw: its quote overlaps the planted text (when the flaw has a quote; an
    absence has none) and its words hold one of the gold finding's keywords."""
    from review_harness.core.matching import quote_overlap

    planted = getattr(gold, "planted", None) is not None
    expected = {f.id: f for f in getattr(gold, "expected_findings", [])}
    caught = set()
    for match in matches:
        finding = expected.get(match.gold)
        if planted and described is not None and finding is not None:
            quote, words = described.get(match.finding, (None, ""))
            if finding.evidence and (not quote or quote_overlap(quote, finding.evidence) < LOCATED):
                continue
            if finding.keywords and not any(k.lower() in words.lower() for k in finding.keywords):
                continue
        caught.add(match.gold)
    return caught


def operator_keys(metadata: Mapping[str, Any]) -> list[str]:
    return [OPERATOR_KEY + op for op in metadata.get(PLANTED_METADATA) or []]


def operator_recall(metadata: Mapping[str, Any], gold: Any | None, caught: set[str] | None) -> dict[str, float]:
    """recall@<operator> for every operator of the set: 1/0 for the sample's own planted flaw
    (caught: the ids of the gold findings the review matched), NaN for the others."""
    values = dict.fromkeys(operator_keys(metadata), NAN)
    planted = getattr(gold, "planted", None) if gold is not None else None
    if planted is not None and caught is not None and OPERATOR_KEY + planted.operator in values:
        ids = [f.id for f in gold.expected_findings]
        values[OPERATOR_KEY + planted.operator] = float(any(i in caught for i in ids))
    return values


def not_judged(value: dict[str, Any], gold: Any | None) -> dict[str, Any]:
    """A planted gold file lists only its flaw: the precision figures are not judged (NaN)."""
    if gold is None or getattr(gold, "findings_complete", True):
        return value
    return {k: (NAN if "precision" in k else v) for k, v in value.items()}


def planted_operators(gold_paths: Iterable[str | Path]) -> dict[str, int]:
    """Operator -> how many gold files of the set planted it (read without the kind's model)."""
    from review_harness.core.yamlio import YamlReadError, read_yaml

    counts: dict[str, int] = {}
    for path in gold_paths:
        try:
            raw = read_yaml(path)
        except YamlReadError:
            continue  # the kind's loader reports a broken gold file
        planted = raw.get("planted") if isinstance(raw, dict) else None
        if isinstance(planted, dict) and planted.get("operator"):
            op = str(planted["operator"])
            counts[op] = counts.get(op, 0) + 1
    return dict(sorted(counts.items()))


def ratio_of_sums(costs: Iterable[Mapping[str, Any] | None], of: str) -> float:
    """Tokens (or dollars) per correct finding over a run: the sum over samples divided by the
    sum of correct findings (NaN when none was correct, or a sample's dollars are unknown)."""
    total = correct = 0.0
    for cost in costs:
        if not cost:
            continue
        value, right = cost.get(of), cost.get("correct")
        if value is None or right is None or (isinstance(value, float) and math.isnan(value)):
            if of == "dollars" and right is not None:
                return NAN  # an unpriced sample: no partial sum
            continue
        total += value
        correct += right
    return total / correct if correct else NAN
