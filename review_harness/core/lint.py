"""The one prompt lint driver: every registered kind's prompt variants, with instruction counts
and recorded stable-prefix hashes.

A kind's lint (`ReviewKind.lint(options)`) renders each of its prompt variants and returns
`PromptPrefixes`: the stable prefix of each variant, where its hashes are recorded, and the
problems only the kind can see (a template that does not render, a rubric item missing from the
prompt). The driver counts instructions against the limit, compares each prefix's hash with the
recorded one (or records it, after an intended change) and gives one `LintReport`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from review_harness.core.prompts import prefix_hash

if TYPE_CHECKING:
    from review_harness.core.kinds import ReviewKind

INSTRUCTION_LIMIT = 150
HASHES_FILE = "prefix_hashes.json"


def count_instructions(prompt: str) -> int:
    """Bullets and numbered lines count one each; other prose lines count their sentences.
    Headings, blank lines and the JSON answer skeleton do not count."""
    count = 0
    for line in prompt.splitlines():
        text = line.strip()
        if not text or text.startswith("#") or text[0] in '{"':
            continue
        if re.match(r"^([-*]|\d+\.)\s", text):
            count += 1
        else:
            count += max(1, len(re.findall(r"[.!?](\s|$)", text)))
    return count


def check_prefix_hashes(
    hashes: dict[str, str], prompts_dir: Path, version: str, update: bool = False
) -> list[str]:
    """Compare each member's stable-prefix hash with the one recorded in prompts_dir, or
    record them (after an intended prompt change). Returns the problems."""
    recorded_path = prompts_dir / HASHES_FILE
    recorded = json.loads(recorded_path.read_text()) if recorded_path.exists() else {}
    if update:
        recorded[version] = hashes
        recorded_path.write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n")
        return []
    problems = []
    for member, digest in hashes.items():
        before = recorded.get(version, {}).get(member)
        if before != digest:
            problems.append(
                f"{member}: stable prefix changed ({before} -> {digest}): provider prompt caches "
                "go cold; if intended, run `review-harness lint-prompts --update-hashes`"
            )
    return problems


@dataclass(frozen=True)
class PromptPrefixes:
    """What a kind's lint gives the driver. `prefixes`: variant key (member, persona@stage, ...)
    -> its stable prefix (the system prompt); hashes are recorded under `version` in
    `hashes_dir`/prefix_hashes.json."""

    prefixes: dict[str, str]
    hashes_dir: Path
    version: str
    problems: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class LintedPrompt:
    kind: str
    key: str
    prefix_hash: str
    instructions: int

    @property
    def line(self) -> str:
        return f"{self.kind} {self.key}: prefix {self.prefix_hash}, {self.instructions}/{INSTRUCTION_LIMIT} instructions"


@dataclass
class LintReport:
    prompts: list[LintedPrompt] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.problems

    def lines(self) -> list[str]:
        """What `review-harness lint-prompts` prints: one line per prompt variant, the problems,
        and PASS or FAIL."""
        return (
            [p.line for p in self.prompts]
            + [f"problem: {problem}" for problem in self.problems]
            + ["lint-prompts: " + ("PASS" if self.passed else f"FAIL ({len(self.problems)} problem(s))")]
        )


def lint_prefixes(kind: str, found: PromptPrefixes, update_hashes: bool = False) -> LintReport:
    """Instruction counts and prefix hashes of one kind's prompt variants, with its own problems."""
    prompts = [LintedPrompt(kind, key, prefix_hash(text), count_instructions(text)) for key, text in found.prefixes.items()]
    problems = list(found.problems)
    problems += [f"{p.key}: {p.instructions} instructions, over the limit of {INSTRUCTION_LIMIT}"
                 for p in prompts if p.instructions > INSTRUCTION_LIMIT]
    problems += check_prefix_hashes({p.key: p.prefix_hash for p in prompts}, found.hashes_dir, found.version,
                                    update=update_hashes)
    return LintReport(prompts, [f"{kind} {problem}" for problem in problems])


def lint_kinds(kinds: Sequence[ReviewKind], options: Mapping[str, Any] | None = None,
               update_hashes: bool = False) -> LintReport:
    """Every given kind's prompt lint in one report (kinds without prompts of their own are skipped).
    `options` are the lint command's options (e.g. `rubric`), each kind reads the ones it knows."""
    report = LintReport()
    for kind in kinds:
        if kind.lint is None:
            continue
        one = lint_prefixes(kind.name, kind.lint(options or {}), update_hashes)
        report.prompts += one.prompts
        report.problems += one.problems
    return report
