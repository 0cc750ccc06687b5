"""Prompt lint shared by every kind: instruction counts and recorded stable-prefix hashes."""

from __future__ import annotations

import json
import re
from pathlib import Path

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
