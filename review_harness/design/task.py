"""The design review's own task parameters (tasks/design_review.py): the user's documents or the
gold set, the stage, topic and personas, where the review folder goes, auto-fix, and the persona
timeout's range from personas.yaml. The shared ones are checked by the core task helper.

A run over the user's documents writes its review folder by default to `docs/reviews/<topic>/`
under the folder the command was run from (checked writable before any sample runs); the gold
set writes nothing unless `-T output_dir=` is given.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from review_harness.core.inspect_adapter import PrerequisiteError
from review_harness.core.params import as_flag, within_range
from review_harness.core.paths import user_dir
from review_harness.core.task import ReviewInput, TaskRun
from review_harness.design.dataset import (
    as_text_value,
    check_topic,
    gold_samples,
    is_inline,
    parse_personas,
    user_samples,
)
from review_harness.design.personas import default_personas
from review_harness.design.prompts import PROMPT_VERSION

DEFAULT_OUTPUT_DIR = "docs/reviews"


@dataclass
class DesignInput(ReviewInput):
    output_dir: Path | None = None
    auto_fix: bool = False

    def pipeline_options(self, run: TaskRun) -> dict[str, Any]:
        """The keywords of `design_pipeline`: the core's, with this kind's output folder."""
        return run.pipeline_options | {"output_dir": str(self.output_dir) if self.output_dir else None,
                                       "auto_fix": self.auto_fix}


def default_output_dir() -> Path:
    """docs/reviews under the folder the command was run from, checked writable (the nearest
    existing folder on the way) before any sample runs; created only when a review is written."""
    base = user_dir()
    folder = base / DEFAULT_OUTPUT_DIR
    probe = folder
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if not probe.is_dir():
        raise PrerequisiteError(f"-T output_dir (default {DEFAULT_OUTPUT_DIR}): {probe} is a file, not a folder; "
                                "give -T output_dir=DIR")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise PrerequisiteError(f"-T output_dir (default {DEFAULT_OUTPUT_DIR}): cannot write {folder} ({probe} is not "
                                "writable); give -T output_dir=DIR")
    return folder


def design_input(run: TaskRun) -> DesignInput:
    args = run.args
    config = default_personas()
    if run.timeout is not None:
        within_range("timeout", run.timeout, *config.failure.timeout_range)
    personas = parse_personas(args["personas"], config)
    if args["topic"] is not None:
        check_topic(args["topic"])
    auto_fix = bool(as_flag("auto_fix", args.get("auto_fix")))
    design, requirements = args["design"], args["requirements"]
    output_dir = run.output_dir
    if design is not None or requirements is not None:
        samples = user_samples(design, requirements, args["stage"], args["topic"], personas, config,
                               requirements_sections=args["requirements_sections"], auto_fix=auto_fix)
        if output_dir is None:
            output_dir = default_output_dir()
    else:
        if auto_fix:
            raise PrerequisiteError("-T auto_fix=true: the gold set is never edited; give -T design=PATH")
        samples = gold_samples(args["fixtures"], args["split"], args["stage"], personas, config)
    return DesignInput(
        samples=samples,
        source=_source(design if design is not None else requirements, args["fixtures"]),
        metadata={"prompt_version": PROMPT_VERSION, "personas_version": config.version},
        output_dir=output_dir,
        auto_fix=auto_fix,
    )


def _source(given: Any, fixtures: str) -> str:
    """What the dataset is named after: the reviewed file, 'inline', or the fixture set."""
    if given is None:
        return fixtures
    text = as_text_value("design", given)
    return "inline" if is_inline(text) else text.strip()
