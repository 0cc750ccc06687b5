"""The design review's own task parameters (tasks/design_review.py): the user's design and
requirements or the gold set, the stage, topic and personas, and the persona timeout's range
from personas.yaml. The shared ones are checked by the core task helper."""

from __future__ import annotations

from review_harness.core.inspect_adapter import PrerequisiteError
from review_harness.core.params import within_range
from review_harness.core.task import ReviewInput, TaskRun
from review_harness.design.dataset import check_topic, gold_samples, parse_personas, user_samples
from review_harness.design.personas import default_personas
from review_harness.design.prompts import PROMPT_VERSION


def design_input(run: TaskRun) -> ReviewInput:
    args = run.args
    config = default_personas()
    if run.timeout is not None:
        within_range("timeout", run.timeout, *config.failure.timeout_range)
    personas = parse_personas(args["personas"], config)
    if args["topic"] is not None:
        check_topic(str(args["topic"]))
    design, requirements = args["design"], args["requirements"]
    if design is not None:
        samples = user_samples(design, requirements, args["stage"], args["topic"], personas, config)
    elif requirements is not None:
        raise PrerequisiteError("-T design=PATH is required with -T requirements=PATH")
    else:
        samples = gold_samples(args["fixtures"], args["split"], args["stage"], personas, config)
    return ReviewInput(
        samples=samples,
        source=f"{design or args['fixtures']}",
        metadata={"prompt_version": PROMPT_VERSION, "personas_version": config.version},
    )
