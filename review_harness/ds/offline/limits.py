"""What a review made by the offline rule checks says about itself, at its top: that rule checks made
it (no language model read the document), and what they cannot assess, so no reader takes a lens
nobody checked for a sound one."""

from __future__ import annotations

from collections.abc import Iterable

CANNOT_ASSESS = (
    "whether a causal claim is warranted beyond what the stated design shows",
    "leakage or errors inside code or queries it cannot run",
    "whether cited sources say what the document says they say",
    "a method that is subtly wrong for its data (assumptions no text rule can verify)",
    "whether the numbers are right where the document gives nothing to check them against",
)


def made_by_rules(models: Iterable[str]) -> bool:
    """Whether every reviewer of a review was the offline rule engine (an `offline/...` model)."""
    names = [m for m in models if m]
    return bool(names) and all(m.startswith("offline/") for m in names)


def rule_check_notice(checks_off: Iterable[str] = ()) -> str:
    """The line a rule-check review opens with."""
    off = sorted(checks_off)
    left_out = (f" Checks left out by default for low measured precision: {', '.join(off)}." if off else "")
    return ("**Made by rule checks** (the offline reviewer; no language model read this document). It cannot assess "
            + "; ".join(CANNOT_ASSESS) + ". A lens it did not check is rated NOT ASSESSED, never sound." + left_out)
