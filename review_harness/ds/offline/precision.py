"""How often each offline check is right, measured on labelled runs: for every check (a DS rule, or
a domain reading, named by the issue type its findings carry), how often it fired and how often what
it found matched a gold finding, per gold split, read from gold-set eval logs of the offline reviewer
(`inspect eval tasks/ds_review.py -T fixtures=...`). A finding matched to a gold finding is right; an
unmatched one is not. A check that falls below the bar on the dev half, with enough fires to judge,
is off by default (prompts/ds/offline_checks.yaml) unless turning it off would lose a must-catch
finding it alone catches.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import click

BAR = 0.8  # the dev precision a check needs to stay on
MIN_FIRES = 3  # fewer fires on the dev half: too few to judge, the check stays as it is


@dataclass
class Tally:
    fired: int = 0
    right: int = 0
    must_catch: set[str] = field(default_factory=set)  # "case/gold id" of must-catch findings it matched

    @property
    def precision(self) -> float | None:
        return self.right / self.fired if self.fired else None


def check_name(finding: Any) -> str:
    """The check a finding came from: its dimension and issue type ("analysis/leakage")."""
    return f"{finding.dimension}/{finding.issue_type or 'unnamed'}"


def tally_log(log, tallies: dict[str, dict[str, Tally]]) -> int:
    """Add one gold-set log's findings to `tallies` (check -> split -> Tally); the number of samples read."""
    from review_harness.core.gold import sample_gold_path
    from review_harness.core.logs import reviewed_samples
    from review_harness.ds.gold import load_gold
    from review_harness.ds.matching import shown_findings

    read = 0
    for sample, review in reviewed_samples(log, "ds"):
        score = (sample.scores or {}).get("gold_comparison")
        path = sample_gold_path(sample.metadata or {})
        if score is None or path is None or not (score.metadata or {}).get("gold"):
            continue
        raw = score.metadata["gold"]
        comparison = json.loads(raw) if isinstance(raw, str) else raw
        gold = load_gold(path)
        must = {g.id for g in gold.expected_findings if g.must_catch}
        matched = {m["finding"]: m["gold"] for m in comparison.get("matches", [])}
        for f in shown_findings(review):
            for split in (gold.split, "all"):
                t = tallies[check_name(f)][split]
                t.fired += 1
                if f.id in matched:
                    t.right += 1
                    if matched[f.id] in must:
                        t.must_catch.add(f"{sample.id}/{matched[f.id]}")
        read += 1
    return read


def tally_logs(paths: list[str | Path]) -> tuple[dict[str, dict[str, Tally]], int]:
    from review_harness.core.logs import newest_log, read_log

    tallies: dict[str, dict[str, Tally]] = defaultdict(lambda: defaultdict(Tally))
    read = sum(tally_log(read_log(newest_log(p)), tallies) for p in paths)
    return tallies, read


def verdict(tally: dict[str, Tally]) -> str:
    """What the bar says of a check, from its dev figures."""
    dev = tally.get("dev", Tally())
    if dev.fired < MIN_FIRES:
        return "too few to judge"
    if (dev.precision or 0.0) >= BAR:
        return "on"
    if any(t.must_catch for t in tally.values()):
        return "below the bar, catches a must-catch"
    return "off"


def _cell(t: Tally | None) -> str:
    if t is None or not t.fired:
        return "-"
    return f"{t.right}/{t.fired} ({t.precision:.2f})"


def precision_table(tallies: dict[str, dict[str, Tally]], configured_off: set[str] = frozenset()) -> str:
    """A markdown table: each check's right/fired (precision) per split and what the bar says."""
    lines = ["| check | dev | held-out | all | must-catch matched | bar (dev >= 0.8, >= 3 fires) | default |",
             "|---|---|---|---|---|---|---|"]
    for name in sorted(tallies, key=lambda n: (-(tallies[n]["all"].fired), n)):
        t = tallies[name]
        must = len(t["all"].must_catch) if "all" in t else 0
        lines.append(f"| {name} | {_cell(t.get('dev'))} | {_cell(t.get('heldout'))} | {_cell(t.get('all'))} | {must} | "
                     f"{verdict(t)} | {'off' if name.split('/', 1)[1] in configured_off else 'on'} |")
    return "\n".join(lines)


CHECKS_FILE = "offline_checks.yaml"
ENV_ON = "REVIEW_HARNESS_OFFLINE_CHECKS"


def configured_off() -> dict[str, str]:
    """The checks off by default (issue type -> the figure that put it there)."""
    return dict(_configured_off())


@lru_cache(maxsize=1)
def _configured_off() -> tuple[tuple[str, str], ...]:
    """The project's table, read once per process (every review and every offline call asks)."""
    from review_harness.core.paths import PROMPTS_DIR
    from review_harness.core.yamlio import read_yaml

    return tuple((str(k), str(v)) for k, v in ((read_yaml(PROMPTS_DIR / "ds" / CHECKS_FILE) or {}).get("disabled") or {}).items())


def checks_off() -> frozenset[str]:
    """The checks this run leaves out: the configured ones, less those the environment turns on."""
    import os

    on = os.environ.get(ENV_ON, "").strip()
    off = set(configured_off())
    if on == "all":
        return frozenset()
    return frozenset(off - {c.strip() for c in on.split(",") if c.strip()})


@click.command("offline-precision", epilog="\b\nExamples:\n"
               "  inspect eval review_harness/ds_review -T fixtures=ds --log-dir logs/gold/ds\n"
               "  review-harness offline-precision logs/gold/ds logs/gold/domain-search logs/gold/ds-real")
@click.argument("logs", nargs=-1, required=True, type=click.Path(exists=True), metavar="LOG...")
def offline_precision(logs: tuple[str, ...]) -> None:
    """For every offline DS and domain check, how often it fired on gold-set runs and how often that
    was right (matched a gold finding), per split; and what the bar (dev precision >= 0.8 with at
    least 3 fires) says of it. Each LOG is a gold-set eval log of the offline reviewer, or a folder
    (its newest log is read)."""
    from review_harness.core.commands import CommandError, one_line
    from review_harness.core.gold import GoldError
    from review_harness.core.logs import LogError

    with one_line(LogError, GoldError):
        tallies, read = tally_logs(list(logs))
    if not read:
        raise CommandError(f"{', '.join(logs)}: no gold-compared DS review in these logs; run a gold set first "
                           "(inspect eval review_harness/ds_review -T fixtures=ds)")
    click.echo(f"{read} gold-compared reviews; a finding matched to a gold finding is right.\n")
    click.echo(precision_table(tallies, set(configured_off())))
