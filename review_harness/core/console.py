"""What a user must see on stderr whatever Inspect's display shows (even ``--display none``).

* The first retry of a model call, once per model and cause: an unreachable endpoint is named
  within seconds instead of surfacing as a reviewer timeout minutes later.
* A task whose log ends in error gets one line with the reason, and under ``inspect eval`` the
  process exits non-zero (Inspect itself exits 0 when a task errors at run time).
* A run the user stops with Ctrl-C gets one line (how many reviews finished, the log marked
  cancelled) and exit code 130 (Inspect exits 0, silent under ``--display none``); Ctrl-C before
  the run starts is review_harness/_startup.py's.
* After a run over a planted gold set (`review-harness plant`), the table of what the reviewers
  missed: recall per planted flaw, one column per model when several ran.
* After a run over a kind's gold set, a short table: each case, its gold verdict, the verdict it
  got and the must-catch findings it missed, then the commands that judge and gate the run.
* After a run that reviewed the user's own documents (a review kind's task whose samples have no
  gold file: ``metadata["user_documents"]``), one line per document: its verdict, the figure
  that goes with it and the finding counts (the kind's ``verdict_line`` hook), then the command
  that prints the review, the one that browses the log and the viewer's address of the review. Under the ``inspect`` command always
  (also with ``--display none``); from eval() in a program only when it asked for a display.

Under the ``inspect`` command these reports are printed as the process exits, after Inspect's own
box of results, so they are the last lines a user sees in a terminal.

Registered as an Inspect hook when this module is imported (the core task helper and every
kind's solvers import it).
"""

from __future__ import annotations

import atexit
import os
import re
import shlex
import signal
import sys
import threading
from pathlib import Path
from typing import Any

from inspect_ai.hooks import Hooks, ModelRetry, RunEnd, RunStart, SampleEnd, TaskStart, hooks
from inspect_ai.log import EvalSample

from review_harness.core.commands import shown_path
from review_harness.core.files import shown
from review_harness.core.viewer import review_url

CONNECTION_ERRORS = ("APIConnectionError", "ConnectError", "ConnectTimeout", "APITimeoutError",
                     "ConnectionError", "ConnectionRefusedError")


def say(message: str) -> None:
    print(f"review-harness: {message}", file=sys.stderr, flush=True)


def first_line(text: str) -> str:
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    return lines[0] if lines else "no reason given"


def error_text(message: str) -> str:
    """Inspect records a sample error as the exception's repr: keep what it says."""
    line = first_line(message)
    unwrapped = re.fullmatch(r"""\w+\((['"])(.*)\1\)""", line)
    return unwrapped.group(2) if unwrapped else line


def under_inspect_eval() -> bool:
    """Whether this process is the ``inspect eval`` command (not eval() inside a program)."""
    return Path(sys.argv[0]).name == "inspect" and sys.argv[1:2] == ["eval"]


def at_a_terminal_command() -> bool:
    """Whether the verdict lines are for a person: the `inspect eval` (or eval-retry, eval-set)
    command, whatever its display, or eval() in a program that asked for a display."""
    from inspect_ai.util import display_type

    command = Path(sys.argv[0]).name == "inspect" and sys.argv[1:2] in (["eval"], ["eval-retry"], ["eval-set"])
    return command or display_type() != "none"


_LAST: list[str] = []  # what is printed as the process exits


def _print_last() -> None:
    for text in _LAST:
        print("\n" + text, file=sys.stderr, flush=True)
    _LAST.clear()


def report_last(text: str) -> None:
    """Print a report after a run: under the ``inspect`` command when the process exits (Inspect
    prints its box of results after the run's end hooks), else now."""
    if Path(sys.argv[0]).name != "inspect":
        print("\n" + text, file=sys.stderr, flush=True)
        return
    if not _LAST:
        atexit.register(_print_last)
    _LAST.append(text)


def gold_verdict_of(sample: EvalSample) -> str:
    """The verdict the case's gold file gives (its `verdict`, `verdict_band` or `decision`)."""
    from review_harness.core.yamlio import read_yaml

    path = (sample.metadata or {}).get("gold")
    try:
        gold = read_yaml(path) if isinstance(path, str) else None
    except Exception:  # an unreadable gold file failed the sample already
        gold = None
    if not isinstance(gold, dict):
        return "-"
    value = next((gold[k] for k in ("verdict_band", "verdict", "decision") if gold.get(k)), None)
    return str(value) if value is not None else "-"


def gold_run_table(log: Any) -> str | None:
    """A gold run's cases in short: case, gold verdict, the verdict it got (and whether it is the
    gold one), the must-catch findings it missed; then what to run next. None: no gold cases."""
    from review_harness.core.kinds import kind_of_log
    from review_harness.core.logs import text_table
    from review_harness.core.verdicts import row_of

    kind = kind_of_log(log)
    if not log.samples:  # the run's end may hold the log's header only
        from inspect_ai.log import read_eval_log

        log = read_eval_log(log.location)
    samples = [s for s in log.samples or [] if kind.gold_scorer in (s.scores or {}) or s.error is not None]
    if not samples or not kind.gold_scorer:
        return None
    rows = [("case", "gold verdict", "got", "missed must-catch")]
    missed = 0
    for sample in samples:
        row = row_of(kind, sample)
        got = f"failed: {row.error}" if row.error else (row.verdict + (f" ({row.gold_verdict})" if row.gold_verdict else ""))
        missed += bool(row.error or row.gold_verdict == "wrong" or row.missed)
        rows.append((show_name(str(sample.id)), gold_verdict_of(sample), got, ", ".join(row.missed) or "-"))
    where = shlex.quote(shown_path(log.location))
    return "\n".join([f"{kind.name} gold run: {missed} of {len(samples)} case(s) missed their gold verdict or a "
                      f"must-catch finding", text_table(rows),
                      f"  next: review-harness verdict {where}   (exit 1 on the cases that missed)",
                      f"        review-harness gate {where}      (compare with its baseline)"])


show_name = shown  # a name as data on a terminal line: control characters and line breaks escaped


def shell_word(text: str) -> str:
    """A word of a command to copy: quoted for the shell, in $'...' with escapes when it holds
    control characters (so the command stays one line and runs as printed in bash)."""
    if text.isprintable():
        return shlex.quote(text)
    return "$'" + show_name(text).replace("'", "\\'") + "'"


class InterruptWatch:
    """Whether the user pressed Ctrl-C during a run: wraps the SIGINT handler the run's event loop
    installed (it cancels the run; Inspect then writes the log as cancelled and exits 0, saying
    nothing under `--display none`), and puts it back when the run ends."""

    def __init__(self, previous: Any) -> None:
        self.previous = previous
        self.pressed = False

    @classmethod
    def start(cls) -> InterruptWatch | None:
        if threading.current_thread() is not threading.main_thread():
            return None
        watch = cls(signal.getsignal(signal.SIGINT))
        signal.signal(signal.SIGINT, watch.handle)
        return watch

    def handle(self, signum: int, frame: Any) -> None:
        self.pressed = True
        if callable(self.previous):
            self.previous(signum, frame)
        elif self.previous != signal.SIG_IGN:
            raise KeyboardInterrupt

    def stop(self) -> bool:
        """Put the run's handler back; whether Ctrl-C was pressed."""
        if signal.getsignal(signal.SIGINT) == self.handle:
            signal.signal(signal.SIGINT, self.previous)
        return self.pressed


def interrupted_line(finished: int, logs: Any) -> str:
    """One line for a run the user stopped with Ctrl-C."""
    where = ", ".join(shown_path(log.location) for log in logs or [] if log.location)  # (a cancelled run gives none)
    return (f"interrupted: the run was stopped after {finished} finished review(s); its log is marked cancelled and "
            f"keeps them ({where or 'inspect view shows it'})")


def retry_message(data: ModelRetry) -> str:
    cause = data.exception_type or "an error"
    if data.status_code:
        cause += f" (HTTP {data.status_code})"
    if data.exception_type in CONNECTION_ERRORS:
        advice = "cannot reach the provider: check its base URL, the network and the provider's status"
    elif data.status_code == 429:
        advice = "rate limited"
    else:
        advice = "the provider failed the call"
    return (f"{data.model_name}: {advice}; {cause}, retry {data.attempt} "
            f"in {data.wait_time:.0f} s (later retries of this kind are not repeated here)")


# sample metadata keys under which a kind's solver records what it wrote for the user
WRITTEN_KEYS = ("review_file", "artifacts")


def sample_verdict(kind_name: str, sample: EvalSample) -> str:
    """The verdict line of one reviewed sample (or why it has none)."""
    from review_harness.core.kinds import get_kind
    from review_harness.core.viewer import review_verdict

    kind = get_kind(kind_name)
    if sample.error is not None:
        return f"failed: {error_text(sample.error.message)}"
    score = (sample.scores or {}).get(kind.synthesis_scorer or "")
    review = kind.review_from_score(score.metadata if score else None)
    verdict = review_verdict(kind, review) if review is not None else None
    return verdict.line() if verdict else "no review recorded"


def verdict_report(kind_name: str, verdicts: dict[str, str], written: list[str], log_location: str,
                   epochs: int = 1) -> str:
    """What is printed after a run of the user's documents: one line per document (sample id:
    verdict; with several epochs, the last epoch's), what was written, how to read each review."""
    log = shown_path(log_location)
    last = f" (epoch {epochs} of {epochs})" if epochs > 1 else ""
    text = [f"{kind_name} review of {show_name(sample_id)}{last}: {line}" for sample_id, line in verdicts.items()]
    text += [f"  written: {shown_path(path)}" for path in dict.fromkeys(written)]
    first = next(iter(verdicts), None)
    read = f"  read it: review-harness show {shell_word(log)}"
    if first is not None:
        read += f" --sample {shell_word(first)}" + ("   (--sample ID for the others)" if len(verdicts) > 1 else "")
    text += [read, f"  browse:  inspect view --log-dir {shell_word(str(Path(log).parent))}"]
    if first is not None:  # the viewer opens a sample on its transcript: this opens on the review
        text.append(f"           then {review_url(log, first, epochs)}")
    return "\n".join(text)


@hooks(name="review_harness_console", description="Names provider trouble and failed tasks on stderr.")
class ConsoleReports(Hooks):
    def __init__(self) -> None:
        self.named: set[tuple[str, str | None]] = set()
        self.user_runs: dict[str, str] = {}  # eval id -> kind, for runs of the user's documents
        self.verdicts: dict[str, dict[str, tuple[int, str]]] = {}  # eval id -> sample id -> (epoch, line)
        self.written: dict[str, list[str]] = {}
        self.interrupt: InterruptWatch | None = None
        self.finished = 0  # samples of this run reviewed without error

    async def on_task_start(self, data: TaskStart) -> None:
        metadata: dict[str, Any] = data.spec.metadata or {}
        if metadata.get("kind") and metadata.get("user_documents"):
            self.user_runs[data.eval_id] = str(metadata["kind"])

    async def on_sample_end(self, data: SampleEnd) -> None:
        self.finished += data.sample.error is None
        kind = self.user_runs.get(data.eval_id)
        if kind is None:
            return
        seen = self.verdicts.setdefault(data.eval_id, {})
        sample = data.sample
        if sample.epoch >= seen.get(str(sample.id), (0, ""))[0]:
            seen[str(sample.id)] = (sample.epoch, sample_verdict(kind, sample))
        metadata = data.sample.metadata or {}
        self.written.setdefault(data.eval_id, []).extend(str(metadata[k]) for k in WRITTEN_KEYS if metadata.get(k))

    async def on_model_retry(self, data: ModelRetry) -> None:
        key = (data.model_name, data.exception_type)
        if key not in self.named:
            self.named.add(key)
            say(retry_message(data))

    async def on_run_start(self, data: RunStart) -> None:
        self.interrupt = InterruptWatch.start()
        self.finished = 0

    async def on_run_end(self, data: RunEnd) -> None:
        interrupt, self.interrupt = self.interrupt, None
        if interrupt is not None and interrupt.stop() and under_inspect_eval():
            say(interrupted_line(self.finished, data.logs))
            raise SystemExit(130)  # the shell's code for an interrupt (Inspect would exit 0, silent without a display)
        if data.exception is not None:  # Inspect reports its own exceptions
            return
        planted = [log for log in data.logs if (log.eval.metadata or {}).get("planted") and log.results]
        if planted and at_a_terminal_command():
            from review_harness.core.plant.report import missed_table

            report_last(missed_table(planted))
        for log in data.logs:
            kind = self.user_runs.pop(log.eval.eval_id, None)
            seen = self.verdicts.pop(log.eval.eval_id, {})
            if kind and seen and at_a_terminal_command():
                lines = {sample_id: line for sample_id, (_, line) in seen.items()}
                report_last(verdict_report(kind, lines, self.written.pop(log.eval.eval_id, []), log.location,
                                           epochs=log.eval.config.epochs or 1))
            elif (not kind and log.status == "success" and not (log.eval.metadata or {}).get("planted")
                  and (log.eval.metadata or {}).get("kind") and under_inspect_eval()):
                table = gold_run_table(log)
                if table:
                    report_last(table)
        failed = [log for log in data.logs if log.status == "error"]
        for log in failed:
            reason = error_text(log.error.message) if log.error else "no reason recorded"
            say(f"{log.eval.task} failed: {reason} (log: {log.location})")
        if failed and under_inspect_eval():
            raise SystemExit(1)
