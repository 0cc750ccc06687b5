"""What these reviewers miss: recall per planted flaw (operator), one column per model, from the
logs of runs over planted gold sets. The terminal prints it after such a run
(`core/console.py`); `review-harness gold report LOG...` prints it from logs afterwards. The
figures are the gold scorer's `recall@<operator>` metrics (so the gate can hold them too)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from inspect_ai.log import EvalLog

from review_harness.core.goldrun import OPERATOR_KEY


class PlantReportError(ValueError):
    """Logs that hold no run over a planted gold set (one line)."""


def caught_by_operator(log: EvalLog) -> dict[str, tuple[int, int]]:
    """Operator -> (caught, scored) of one log (empty when the run planted nothing)."""
    out: dict[str, tuple[int, int]] = {}
    for score in (log.results.scores if log.results else []):
        if not score.name.startswith(OPERATOR_KEY):
            continue
        metric = score.metrics.get("average")
        scored = score.scored_samples or 0
        if metric is None or metric.value != metric.value:  # NaN: nothing scored
            continue
        out[score.name[len(OPERATOR_KEY):]] = (round(metric.value * scored), scored)
    return out


def _column(log: EvalLog, taken: set[str]) -> str:
    name = log.eval.model
    if name in taken:  # the same model twice: tell the runs apart by their log
        name = f"{name} ({Path(log.location).stem[-8:]})"
    taken.add(name)
    return name


def missed_table(logs: Sequence[EvalLog]) -> str:
    """One table per kind: a row per operator (most missed first), the number planted, and for
    each model (log) how many it caught and its recall; a last row for all operators."""
    planted_logs = [log for log in logs if (log.eval.metadata or {}).get("planted")]
    if not planted_logs:
        raise PlantReportError("no run over a planted gold set in these logs (plant one: review-harness plant)")
    kinds: dict[str, list[EvalLog]] = {}
    for log in planted_logs:
        kinds.setdefault(str((log.eval.metadata or {}).get("kind", "")), []).append(log)
    return "\n\n".join(_kind_table(kind, group) for kind, group in kinds.items())


def _kind_table(kind: str, planted_logs: list[EvalLog]) -> str:
    taken: set[str] = set()
    columns = [(_column(log, taken), caught_by_operator(log)) for log in planted_logs]
    planted: dict[str, int] = {}
    for log in planted_logs:
        for op, n in (log.eval.metadata or {})["planted"].items():
            planted[op] = max(planted.get(op, 0), int(n))

    def recall(op: str) -> float:
        got = [c for _, col in columns if op in col for c in [col[op][0] / max(1, col[op][1])]]
        return sum(got) / len(got) if got else 0.0

    rows = [("operator", "planted", *(name for name, _ in columns))]
    for op in sorted(planted, key=lambda o: (recall(o), o)):
        rows.append((op, str(planted[op]), *(_cell(col.get(op)) for _, col in columns)))
    totals = [(sum(c for c, _ in col.values()), sum(n for _, n in col.values())) for _, col in columns]
    rows.append(("all", str(sum(planted.values())), *(_cell(t) for t in totals)))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths))).rstrip()
             for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    head = f"What these reviewers miss ({kind} review, planted flaws caught per operator; recall@<operator> in the log):"
    return "\n".join([head, *lines])


def _cell(value: tuple[int, int] | None) -> str:
    if value is None or not value[1]:
        return "-"
    caught, scored = value
    return f"{caught}/{scored} {caught / scored:.2f}"


def logs_of(paths: Iterable[str | Path]) -> list[EvalLog]:
    """The logs named (their headers: results and metadata): files, or every .eval log of a
    folder (oldest first)."""
    from review_harness.core.logs import LogError, read_eval_log_header

    out = []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            files = sorted(path.glob("*.eval"), key=lambda p: p.stat().st_mtime)
            if not files:
                raise LogError(f"{path}: folder has no .eval logs")
            out += [read_eval_log_header(f) for f in files]
        else:
            out.append(read_eval_log_header(path))
    return out


def recall_report(paths: Iterable[str | Path]) -> str:
    return missed_table(logs_of(paths))
