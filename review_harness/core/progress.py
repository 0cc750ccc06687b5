"""Progress of a review's members on the terminal, through Inspect's display: never raw prints
that would break a live display.

- rich and full (textual) displays: a counter in the task's footer (`display_counter`), one per
  review, holding the latest line ("3/6 done · Edge Case Prober 14 s");
- plain and log displays: one line per event through the display's own print ("Assumption
  Hunter: done [1/6] 14 s");
- `--display none`: nothing, except an event marked `important` (something the user must know
  that the log alone would hide, such as a review written to another folder than asked), which
  goes to stderr as one line.
"""

from __future__ import annotations

from inspect_ai.util import display_counter, display_type

from review_harness.core.console import say
from review_harness.core.inspect_adapter import display_print

LINE_DISPLAYS = ("plain", "log")
COUNTER_DISPLAYS = ("full", "rich", "conversation")


def report(caption: str, value: str, line: str, *, important: bool = False) -> None:
    """Show one progress event: `caption: value` as a counter, or `line` as a line."""
    kind = display_type()
    if kind in LINE_DISPLAYS:
        display_print(line)
    elif kind in COUNTER_DISPLAYS:
        display_counter(caption, value)
    elif important:
        say(line)
