"""Metrics shared by the scorers (defined in the core, so a kind's own scorer can use them)."""

from review_harness.core.metrics import nanmean

__all__ = ["nanmean"]
