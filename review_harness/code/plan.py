"""The feature plan's living state table (seed 002, E1), given as `-T plan=FILE`.

The plan is a markdown file with a task table (columns `#`, `Task`, `Status`, and optionally
`Assignee`, `Spec`, `Quality`, `Fix Iterations`, ...) and a dependencies list, as the seed writes
them:

    ### Dependencies
    - Tasks 1, 3, 5: independent (wave 1)
    - Task 2: depends on Task 1
    - Task 4: depends on Tasks 1, 2
    - Task 8: depends on all others

(a `Depends on` column works too). After a review, the reviewed task's row gets its status, spec
and quality marks and Fix Iterations; every task that depends on an escalated task, directly or
through others, and is not done is `blocked` (a blocked task whose blockers are no longer
escalated goes back to `pending`). The table, with the Fix Iterations column added when missing,
is written back into the file in place (atomically, under a lock: reviews of several tasks may
finish at once); the rest of the file is kept as it was.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from review_harness.core.files import FileReadError, file_lock, read_text, write_atomic

COLUMNS = ("#", "Task", "Status", "Assignee", "Spec", "Quality", "Fix Iterations")
DONE = ("complete", "escalated")
ITEM = re.compile(r"^\s*[-*+]\s+(.*\S)\s*$")
HEADING = re.compile(r"^#{1,6}\s+(.*)$")
NUMBER = re.compile(r"\d+")
TASK_REF = re.compile(r"\btasks?\b", re.IGNORECASE)


class PlanError(ValueError):
    """A plan file without a task table, or one that does not hold the reviewed task."""


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _is_rule(line: str) -> bool:
    return bool(re.fullmatch(r"\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*", line.strip()))


@dataclass
class Plan:
    lines: list[str]  # the file, line by line
    start: int  # index of the table's header line
    end: int  # index after its last row
    header: list[str]
    rows: list[list[str]]
    depends: dict[str, set[str]] = field(default_factory=dict)

    def column(self, name: str) -> int:
        return next(i for i, h in enumerate(self.header) if h.lower() == name.lower())

    def has(self, name: str) -> bool:
        return any(h.lower() == name.lower() for h in self.header)

    @property
    def tasks(self) -> list[str]:
        return [row[self.column("#")] for row in self.rows]

    def row(self, task: str) -> list[str] | None:
        return next((r for r in self.rows if r[self.column("#")] == str(task)), None)

    def status(self, task: str) -> str:
        row = self.row(task)
        return row[self.column("Status")].strip().lower() if row else ""

    def dependents(self, task: str) -> set[str]:
        """Tasks that depend on `task`, directly or through others."""
        found: set[str] = set()
        frontier = [task]
        while frontier:
            current = frontier.pop()
            for other, needs in self.depends.items():
                if current in needs and other not in found and other != task:
                    found.add(other)
                    frontier.append(other)
        return found

    @property
    def title(self) -> str | None:
        """The plan's title (its first level-1 heading): the feature its tasks build."""
        return next((line[2:].strip() for line in self.lines if line.startswith("# ") and line[2:].strip()), None)

    def render_table(self) -> list[str]:
        widths = [max(len(self.header[i]), *(len(r[i]) for r in self.rows), 3) for i in range(len(self.header))]
        line = lambda cells: "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths)) + " |"  # noqa: E731
        return [line(self.header), "|" + "|".join("-" * (w + 2) for w in widths) + "|"] + [line(r) for r in self.rows]

    def text(self) -> str:
        return "\n".join(self.lines[: self.start] + self.render_table() + self.lines[self.end:]) + "\n"


def parse_plan(text: str, where: str) -> Plan:
    lines = text.splitlines()
    for n, line in enumerate(lines):
        header = _cells(line) if line.strip().startswith("|") else []
        names = [h.lower() for h in header]
        if not {"#", "task", "status"} <= set(names) or n + 1 >= len(lines) or not _is_rule(lines[n + 1]):
            continue
        end = n + 2
        rows = []
        while end < len(lines) and lines[end].strip().startswith("|"):
            cells = _cells(lines[end])
            rows.append((cells + [""] * len(header))[: len(header)])
            end += 1
        plan = Plan(lines=lines, start=n, end=end, header=header, rows=rows)
        plan.depends = _dependencies(lines, plan)
        return plan
    raise PlanError(f"{where}: no task table (a markdown table with the columns #, Task and Status)")


def _dependencies(lines: list[str], plan: Plan) -> dict[str, set[str]]:
    tasks = plan.tasks
    depends: dict[str, set[str]] = {t: set() for t in tasks}
    for name in ("Depends on", "Dependencies"):
        if plan.has(name):
            for row in plan.rows:
                depends[row[plan.column("#")]] |= set(NUMBER.findall(row[plan.column(name)]))
    section = False
    for line in lines:
        heading = HEADING.match(line)
        if heading:
            section = "depend" in heading.group(1).lower()
            continue
        item = ITEM.match(line) if section else None
        if item is None or "depends on" not in item.group(1).lower():
            continue
        text = item.group(1)
        left, _, right = re.split(r"(?i)(depends on)", text, maxsplit=1)
        subjects = NUMBER.findall(left)
        right = right.split("(")[0]
        needs = [t for t in tasks if t not in subjects] if re.search(r"\ball\b", right, re.IGNORECASE) else NUMBER.findall(right)
        for subject in subjects:
            depends.setdefault(subject, set()).update(n for n in needs if n != subject)
    return depends


def read_plan(path: str | Path) -> Plan:
    try:
        text = read_text(path)
    except FileReadError as ex:
        raise PlanError(str(ex)) from None
    return parse_plan(text, str(path))


def _mark(verdict: str | None) -> str:
    return {"PASS": "✅", "FAIL": "❌", "INCOMPLETE": "⚠️"}.get(verdict or "", "—")


def apply_review(plan: Plan, review) -> list[str]:
    """Put one review's outcome into the plan (its row, then who is blocked); returns the
    tasks now blocked."""
    for name in COLUMNS:
        if not plan.has(name):
            plan.header.append(name)
            for row in plan.rows:
                row.append("—" if name != "Fix Iterations" else "0")
    row = plan.row(review.task)
    if row is None:
        raise PlanError(f"task {review.task} is not in the plan's task table (tasks: {', '.join(plan.tasks)})")
    last = review.last
    quality = last.after_approval.quality if last.after_approval else last.quality
    spec_mark = _mark(last.spec.verdict) + (" (approved)" if last.after_approval else "")
    if review.fixes and review.final_status != "complete" and review.first.spec.verdict != last.spec.verdict:
        spec_mark = f"{_mark(review.first.spec.verdict)}→{spec_mark}"
    at_max = review.final_status == "escalated" and review.fix_iterations >= review.config["max_fix_iterations"]
    values = {"Status": review.final_status, "Spec": spec_mark,
              "Quality": "—" if quality is None or quality.discarded else _mark(quality.verdict),
              "Fix Iterations": f"{review.fix_iterations}" + (" (max)" if at_max else "")}
    for name, value in values.items():
        row[plan.column(name)] = value
    escalated = [t for t in plan.tasks if plan.status(t) == "escalated"]
    blocked = set().union(*(plan.dependents(t) for t in escalated)) if escalated else set()
    status = plan.column("Status")
    for r in plan.rows:
        task, current = r[plan.column("#")], r[status].strip().lower()
        if task in blocked and current not in DONE:
            r[status] = "blocked"
        elif task not in blocked and current == "blocked":
            r[status] = "pending"
    return sorted((t for t in plan.tasks if plan.status(t) == "blocked"), key=lambda t: (len(t), t))


def update_plan(path: str | Path, review) -> dict:
    """Apply a review to the plan file in place, under a lock; what the review records."""
    path = Path(path)
    with file_lock(path.parent / f".{path.name}.lock"):
        plan = read_plan(path)
        blocked = apply_review(plan, review)
        write_atomic(path, plan.text())
    paused = sorted(plan.dependents(review.task) & set(blocked), key=lambda t: (len(t), t))
    return {"path": str(path), "blocked": blocked, "paused": paused, "table": "\n".join(plan.render_table())}


def mark_fixing(path: str | Path, task: str, attempt: int, spec: str | None, quality: str | None) -> None:
    """While fix attempt N runs: the task's row says `review-fix-N` (the seed's in-fix status), with
    the spec and quality marks of the review that sent it back (❌→🔄: being fixed)."""
    path = Path(path)
    with file_lock(path.parent / f".{path.name}.lock"):
        plan = read_plan(path)
        for name in COLUMNS:
            if not plan.has(name):
                plan.header.append(name)
                for row in plan.rows:
                    row.append("—" if name != "Fix Iterations" else "0")
        row = plan.row(task)
        if row is None:
            raise PlanError(f"task {task} is not in the plan's task table (tasks: {', '.join(plan.tasks)})")
        fixing = {"FAIL": "❌→🔄", "PASS": "✅", "INCOMPLETE": "⚠️→🔄"}
        values = {"Status": f"review-fix-{attempt}", "Spec": fixing.get(spec or "", "—"),
                  "Quality": fixing.get(quality or "", "—"), "Fix Iterations": str(attempt)}
        for name, value in values.items():
            row[plan.column(name)] = value
        write_atomic(path, plan.text())


def plan_fixing(state, task: str, attempt: int, spec: str | None, quality: str | None) -> str | None:
    """The solver's side of `mark_fixing` (a failure is a warning of the review)."""
    path = state.metadata.get("plan")
    if not path:
        return None
    try:
        mark_fixing(path, task, attempt, spec, quality)
    except PlanError as ex:
        return f"plan not updated during fix {attempt}: {ex}"
    except OSError as ex:
        return f"plan not updated during fix {attempt}: could not write {ex.filename or path} ({ex.strerror})"
    return None


def update_plan_after_review(state, review) -> str | None:
    """The solver's side: write the plan back when the run has one (`plan` in the metadata);
    a failure is a warning of the review (kept in the log), never a lost review."""
    from review_harness.code.panel import PLAN_KEY

    path = state.metadata.get("plan")
    if not path or not review.iterations:
        return None
    try:
        state.store.set(PLAN_KEY, update_plan(path, review))
    except PlanError as ex:
        return f"plan not updated: {ex}"
    except OSError as ex:
        return f"plan not updated: could not write {ex.filename or path} ({ex.strerror})"
    return None
