"""The project's price table (prompts/prices.yaml) and the estimated cost of a review run from it.

Each member run is priced by its own model (a design persona on the evaluated model, the
synthesizer or grader on their roles' models); a model the table does not know gets its tokens
only, and the run's total is then null with the unknown models named. (A gold run's dollars per
correct finding come from Inspect's own price data first: core/goldrun.py.)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from pydantic import BaseModel

from review_harness.core.member import MemberRun
from review_harness.core.paths import PROMPTS_DIR
from review_harness.core.yamlio import read_model

PRICES_FILE = PROMPTS_DIR / "prices.yaml"


class PriceTableError(ValueError):
    """The price table is missing or malformed (one line naming the file)."""


class Price(BaseModel):
    match: str
    input: float
    output: float
    cached_input: float


class PriceTable(BaseModel):
    as_of: str
    currency: str
    per_million_tokens: list[Price]

    def price(self, model: str) -> Price | None:
        """The entry with the longest `match` that `model` starts with."""
        found = [p for p in self.per_million_tokens if model.startswith(p.match)]
        return max(found, key=lambda p: len(p.match)) if found else None


@lru_cache(maxsize=1)
def price_table() -> PriceTable:
    return read_model(PRICES_FILE, PriceTable, f"price table {PRICES_FILE}", PriceTableError)


def run_cost(runs: Sequence[MemberRun], table: PriceTable | None = None) -> dict[str, Any]:
    """{"currency", "as_of", "estimated": total or None, "by_model": {model: cost or None}, "unpriced": [...],
    "input_tokens", "cached_input_tokens", "output_tokens", "saved_by_cache": what the cached input
    would have cost at the full input price, less what it cost}. Input read from a provider's prompt
    cache is priced at its cached price."""
    table = table or price_table()
    by_model: dict[str, float | None] = {}
    saved = 0.0
    for run in runs:
        price = table.price(run.model)
        if price is None:
            by_model[run.model] = None
            continue
        cost = (run.input_tokens * price.input + run.cached_input_tokens * price.cached_input
                + run.output_tokens * price.output) / 1_000_000
        saved += run.cached_input_tokens * (price.input - price.cached_input) / 1_000_000
        by_model[run.model] = round((by_model.get(run.model) or 0.0) + cost, 6)
    unpriced = sorted(m for m, c in by_model.items() if c is None)
    total = None if unpriced or not by_model else round(sum(c or 0.0 for c in by_model.values()), 6)
    return {"currency": table.currency, "as_of": table.as_of, "estimated": total, "by_model": by_model,
            "unpriced": unpriced, "input_tokens": sum(r.input_tokens for r in runs),
            "cached_input_tokens": sum(r.cached_input_tokens for r in runs),
            "output_tokens": sum(r.output_tokens for r in runs), "saved_by_cache": round(saved, 6)}


def cost_line(cost: Mapping[str, Any]) -> str:
    """'Estimated cost: 0.0421 USD (38,200 input tokens, 31,900 of them read from the prompt cache,
    saving 0.0861 USD; 4,100 output tokens)'; without a total, the unpriced models are named."""
    cached, fresh = cost.get("cached_input_tokens", 0), cost.get("input_tokens", 0)
    tokens = (f"{fresh + cached:,} input tokens, {cached:,} of them read from the prompt cache"
              + (f" (saving {cost['saved_by_cache']:.4f} {cost['currency']})" if cost.get("saved_by_cache") else "")
              + f"; {cost.get('output_tokens', 0):,} output tokens")
    if cost.get("estimated") is None:
        return f"Estimated cost: unknown, no price for {', '.join(cost.get('unpriced') or ['the model'])} ({tokens})"
    return f"Estimated cost: {cost['estimated']:.4f} {cost['currency']} ({tokens}; prices as of {cost['as_of']})"
