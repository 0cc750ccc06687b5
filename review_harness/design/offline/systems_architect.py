"""The systems architect: how the plan runs in production: staged rollout and rollback,
monitoring, a way back from a cutover or a data migration, and contracts between components.
(Failure handling is the edge case prober's detector, which this persona runs too.)
"""

from __future__ import annotations

from review_harness.design.offline.document import all_matches, clause, design_has, quote_of, short
from review_harness.design.offline.registry import Ctx, detector
from review_harness.design.offline.vocabulary import V

# what the plan must mention somewhere: (finding, vocabulary pattern, what it is, title, issue, why, suggestion)
MUST_MENTION = (
    ("no-rollout-plan", "rollout", "Rollout", "No rollout or rollback plan",
     "The plan ships the change in one step with no staged rollout, flag or rollback path.",
     "A bad release reaches every user at once and the only fix is a forward patch under pressure.",
     "Add a staged rollout (flag or canary), the signal that stops it, and the rollback procedure."),
    ("no-monitoring", "monitoring", "Monitoring", "No monitoring or alerting",
     "The plan adds no metric, alert or dashboard for the new behaviour.",
     "Failures are found by users instead of alerts, and nobody can tell whether the launch worked.",
     "List the metrics and alerts each component ships with, tied to the requirements' targets."),
)


@detector("operations")
def operations(ctx: Ctx) -> None:
    """Rollout, monitoring, rollback of a cutover or migration, and interface contracts."""
    doc = ctx.artifact
    for finding, pattern_name, what, title, issue, why, suggestion in MUST_MENTION:
        pattern = V[pattern_name]
        if design_has(doc, pattern):
            u = next((u for u in doc.units if pattern.search(u.plain)), None)
            if u:
                ctx.ok(f"{what} is covered in '{doc.path_of(u.line)}'")
            continue
        ctx.add(finding, title=title, section=doc.title or "Plan", issue=issue, why=why, suggestion=suggestion,
                evidence=None, key=f"ops:{pattern_name}")
    cutover = all_matches(doc, V.cutover)
    if cutover and not design_has(doc, V.rollback):
        u, m = cutover[0]
        ctx.add(
            "cutover-without-rollback",
            title="Cutover has no way back", section=doc.path_of(u.line),
            issue=f"The plan switches production over ('{clause(u.plain, m, 80)}') and never describes how to roll back if the new path misbehaves.",
            why="A defect found after the switch has no fast recovery; if the old path is already removed, recovery means rebuilding it under pressure.",
            suggestion="Keep the old path until the new one is proven, and write down the rollback trigger and steps before the switch.",
            evidence=quote_of(u, m.group(0)), key="rollback")
    integ = all_matches(doc, V.integration)
    if integ and not design_has(doc, V.interface_contract):
        u, m = integ[0]
        ctx.add(
            "no-interface-contract",
            title="Integration points have no contract or versioning", section=doc.path_of(u.line),
            issue=f"The plan connects components through '{short(m.group(0), 30)}' without a schema, contract or versioning rule.",
            why="The first change on one side breaks the other silently; with several consumers the breakage spreads.",
            suggestion="Define the schema for each interface, version it, and state the compatibility rule for changes.",
            evidence=quote_of(u, m.group(0)), key="contract")
    mig = all_matches(doc, V.migration)
    if mig and not design_has(doc, V.reversible_migration):
        u, m = mig[0]
        ctx.add(
            "migration-without-rollback",
            title="Data migration has no way back", section=doc.path_of(u.line),
            issue=f"The plan runs '{short(m.group(0), 30)}' without a backfill check, dual-write period or reversal.",
            why="A migration that fails halfway leaves data in two shapes and no tested way to recover.",
            suggestion="Make the migration reversible or dual-write during the cut-over, and verify the backfill before switching reads.",
            evidence=quote_of(u, m.group(0)), key="migration")
