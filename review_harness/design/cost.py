"""Estimated cost of a review run from the price table in data (prompts/design/prices.yaml).

Each member run is priced by its own model (a persona on the evaluated model, the synthesizer or
grader on their roles' models); a model the table does not know gets its tokens only, and the
run's total is then null with the unknown models named.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from pydantic import BaseModel

from review_harness.core.member import MemberRun
from review_harness.core.yamlio import read_model
from review_harness.design.personas import PROMPTS_DIR, PersonaError

PRICES_FILE = PROMPTS_DIR / "prices.yaml"


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
    return read_model(PRICES_FILE, PriceTable, f"price table {PRICES_FILE}", PersonaError)


def run_cost(runs: Sequence[MemberRun], table: PriceTable | None = None) -> dict[str, Any]:
    """{"currency", "as_of", "estimated": total or None, "by_model": {model: cost or None}, "unpriced": [...]}"""
    table = table or price_table()
    by_model: dict[str, float | None] = {}
    for run in runs:
        price = table.price(run.model)
        if price is None:
            by_model[run.model] = None
            continue
        cost = (run.input_tokens * price.input + run.output_tokens * price.output) / 1_000_000
        by_model[run.model] = round((by_model.get(run.model) or 0.0) + cost, 6)
    unpriced = sorted(m for m, c in by_model.items() if c is None)
    total = None if unpriced or not by_model else round(sum(c or 0.0 for c in by_model.values()), 6)
    return {"currency": table.currency, "as_of": table.as_of, "estimated": total, "by_model": by_model,
            "unpriced": unpriced}
