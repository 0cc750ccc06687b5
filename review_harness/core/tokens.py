"""The one token estimate the harness uses where no tokenizer is at hand: words x 1.3."""

from __future__ import annotations

TOKENS_PER_WORD = 1.3


def estimate_tokens(text: str) -> int:
    return round(len(text.split()) * TOKENS_PER_WORD)
