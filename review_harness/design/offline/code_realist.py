"""The code realist: implementation order (a task using what a later task builds), a testing
strategy, and debt the plan takes on with no task to pay it back.
"""

from __future__ import annotations

import re

from review_harness.design.offline.document import all_matches, plan_tasks, quote_of, short
from review_harness.design.offline.registry import Ctx, detector
from review_harness.design.offline.vocabulary import V


# a name a task can create and another use: `code`, CamelCase or snake_case
IDENT = re.compile(r"`([^`]{3,60})`|\b([A-Z][a-z]+(?:[A-Z][a-z0-9]+)+)\b|\b([a-z]+(?:_[a-z0-9]+)+)\b")


@detector("task-order")
def task_order(ctx: Ctx) -> None:
    """A task that uses a name (table, class, file) that a later task creates."""
    doc = ctx.artifact
    tasks = plan_tasks(doc)
    if len(tasks) < 2:
        return
    built_in: dict[str, int] = {}
    for i, (_, _, a, b) in enumerate(tasks):
        for u in doc.units_with_code:
            if a <= u.line <= b:
                for m in IDENT.finditer(u.text):
                    ident = next(g for g in m.groups() if g)
                    before = u.text[max(0, m.start() - 40): m.start()]
                    if V.build_right_before.search(before) and ident not in built_in:
                        built_in[ident] = i
    reported = 0
    for i, (label, first, a, b) in enumerate(tasks):
        for u in doc.units_with_code:
            if not (a <= u.line <= b):
                continue
            for m in IDENT.finditer(u.text):
                ident = next(g for g in m.groups() if g)
                j = built_in.get(ident)
                if j is not None and j > i and not V.build_right_before.search(u.text[max(0, m.start() - 40): m.start()]):
                    reported += 1
                    ctx.add(
                        "uses-later-task-output",
                        title="Task uses something a later task builds", section=doc.path_of(u.line),
                        issue=f"'{label}' uses {ident}, which '{tasks[j][0]}' creates later in the plan.",
                        why="The earlier task blocks on the later one or gets built against a stub that drifts; either way the schedule is wrong.",
                        suggestion=f"Move the creation of {ident} ahead of '{label}', or split it into an interface task that comes first.",
                        evidence=quote_of(u, ident), key=f"order:{ident}")
                    break
            if reported >= 3:
                return


@detector("testing-strategy")
def testing_strategy(ctx: Ctx) -> None:
    doc = ctx.artifact
    u = next((u for u in doc.units if V.testing.search(u.plain)), None)
    if u is not None:
        ctx.ok(f"Testing is addressed in '{doc.path_of(u.line)}'")
        return
    manual = next((u for u in doc.units if V.manual_check.search(u.plain)), None)
    ctx.add(
        "no-testing-strategy",
        title="No testing strategy", section=doc.path_of(manual.line) if manual else (doc.title or "Plan"),
        issue=("The plan never says how any task is tested: no unit, integration or end-to-end tests, no acceptance check."
               + (f" The only verification is a manual check ('{short(manual.plain, 80)}')." if manual else "")),
        why="Defects surface in production instead of in review, and nobody can say when a task is done.",
        suggestion="Add the tests each task ships with and an end-to-end check per requirement, run before any production change.",
        evidence=quote_of(manual, V.manual_check) if manual else None, key="no-tests")


@detector("unpaid-debt")
def unpaid_debt(ctx: Ctx) -> None:
    doc = ctx.artifact
    for u, m in all_matches(doc, V.debt, skip_ctx=False)[:2]:
        ctx.add(
            "debt-without-payback",
            title="Plan takes on debt with no payback task", section=doc.path_of(u.line),
            issue=f"The plan accepts '{short(m.group(0), 30)}' and schedules no task to remove it.",
            why="Temporary work without a removal task becomes permanent and constrains later changes.",
            suggestion="Add a task, with an owner, that removes it, or state why it is acceptable long term.",
            evidence=quote_of(u, m.group(0)), key=f"debt:{u.line}")
