"""`review-harness show`: one review of a log, for a person at a terminal.

The review is re-rendered from the log's review JSON by its kind (so `--details` can add the
scoring internals), else (no review JSON, or one an older version wrote that no longer
validates) the sample's stored report. In a terminal it is rendered with rich
(headings, tables, emphasis) under a line that says which log and document it is; with `--raw`,
or when the output is not a terminal (a pipe, a file), the markdown is printed as it is and
that line goes to stderr, so `review-harness show LOG > review.md` writes the review alone.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import IO

from pydantic import ValidationError

from review_harness.core.files import shown
from review_harness.core.kinds import kind_of_log
from review_harness.core.logs import LogError, chosen_sample, log_to_read, read_log


def review_text(log_path: Path, sample_id: str | None, epoch: int | None, kind_name: str | None,
                details: bool = False) -> tuple[str, Path, str]:
    """(which review it is, the log it is in, its markdown)."""
    log_path = log_to_read(log_path, kind_name)
    log = read_log(log_path)
    kind = kind_of_log(log)
    sample = chosen_sample(log, sample_id, epoch)
    if sample.error is not None:
        raise LogError(f"sample {sample.id}: failed with an error: {sample.error.message.splitlines()[0]}")
    score = (sample.scores or {}).get(kind.synthesis_scorer or "")
    try:
        review = kind.review_from_score(score.metadata if score else None)
    except ValidationError:  # a log written under an older review model: show its stored report
        review = None
    if review is not None and kind.render is not None:
        text = kind.render(review, details=details)
    else:
        text = sample.output.completion if sample.output else ""
    if not text.strip():
        raise LogError(f"sample {sample.id}: has no review text in {log_path}")
    epochs = sorted({s.epoch for s in log.samples or []})
    of_epochs = f", epoch {sample.epoch} of {len(epochs)}" if len(epochs) > 1 else ""
    return f"{kind.title} review of {shown(str(sample.id))}{of_epochs}", log_path, text


def show_review(path: Path, sample_id: str | None, epoch: int | None, kind_name: str | None, *,
                raw: bool = False, details: bool = False, terminal: bool | None = None,
                out: IO[str] | None = None) -> None:
    """Print the review: rendered when `terminal` (default: stdout is a terminal) and not `raw`."""
    out = out or sys.stdout
    which, log_path, text = review_text(path, sample_id, epoch, kind_name, details)
    if terminal is None:
        terminal = out.isatty()
    if raw or not terminal:
        print(f"{which} in {log_path}", file=sys.stderr)
        out.write(text if text.endswith("\n") else text + "\n")
        return
    from rich.console import Console
    from rich.markup import escape

    console = Console(file=out, force_terminal=True, highlight=False)
    console.rule(f"[bold]{escape(which)}[/bold]", align="left")
    console.print(f"[dim]log: {escape(str(log_path))}[/dim]", soft_wrap=True)
    console.print(terminal_markdown(text))


def terminal_markdown(text: str):
    """rich's Markdown of the review, with a line break where the markdown has one (as the
    viewer renders it: the reports put 'Where:', 'Issue:' and 'Suggested fix:' on lines of their
    own without a blank line between)."""
    from rich.markdown import Markdown

    markdown = Markdown(text)
    for token in markdown.parsed:
        for child in token.children or []:
            if child.type == "softbreak":
                child.type = "hardbreak"
    return markdown
