"""Solvers of the design review: claim the review's iteration, dispatch the stage's personas
concurrently, ask the synthesizer to group their findings, compare with the earlier iteration,
apply auto-fixes when asked, then render the summary and write the iteration's folder.

One persona mechanism (`persona_reviewer(persona_id)`) serves all nine personas; what differs
is persona data. Every call is the core's member call under the personas file's failure
settings: one retry with exponential backoff when a call fails or its answer is malformed; the
review goes on when enough personas complete.
"""

from __future__ import annotations

import datetime
from pathlib import Path

from inspect_ai.model import CachePolicy, ChatMessageSystem, ChatMessageUser, model_roles
from inspect_ai.solver import Generate, Solver, TaskState, solver

from review_harness.core import progress
from review_harness.core.member import MemberResult, MemberRun, call_member, save_result
from review_harness.core.viewer import answer_message
from review_harness.core.panel import run_concurrently, scoped_cache, text_hash
from review_harness.core.schema import response_schema
from review_harness.design.artifacts import (
    ArtifactError,
    claim_iteration,
    earlier_iteration,
    iterations,
    partial_to_complete,
    read_run,
    write_iteration,
)
from review_harness.design.autofix import AutoFixError, apply_fixes
from review_harness.design.budget import fit_documents
from review_harness.design.changes import blob_id, changed_sections, file_text
from review_harness.design.delta import (
    DeltaError,
    build_delta,
    delta_record,
    grader_pairs,
    grader_reasons,
    parse_grader_answer,
)
from review_harness.design.models import GRADER, KIND_NAME, SYNTHESIZER, DeltaAnswer, PersonaReport, SynthesisAnswer
from review_harness.design.panel import (
    AUTO_FIX_KEY,
    CALIBRATION_KEY,
    DELTA_KEY,
    DOCUMENTS_KEY,
    FIXED_KEY,
    REQUEST_KEY,
    add_note,
    documents,
    load_context,
    load_reports,
    result_key,
    retry_policy,
    review_from_store,
)
from review_harness.design.parse import parse_persona_output, parse_synthesis_output
from review_harness.design.personas import PersonaConfig, default_personas
from review_harness.design.prompts import (
    PROMPT_VERSION,
    render_grader_prompt,
    render_persona_prompt,
    render_synthesizer_prompt,
)
from review_harness.design.render import render_summary
from review_harness.design.synthesis import ReviewContext, outcome_text
from review_harness.design.triage import TriageError, calibration_block

PERSONA_SCHEMA = response_schema(
    "persona_report", PersonaReport,
    description="Findings with severity, phase, section, issue, impact, suggestion, evidence; a blind spot check.",
)
SYNTHESIS_SCHEMA = response_schema(
    "design_synthesis", SynthesisAnswer,
    description="Groups of duplicate findings with phases, contradictions, patterns, mechanical fixes.",
)
DELTA_SCHEMA = response_schema(
    "iteration_delta", DeltaAnswer,
    description="Pairs of an earlier and a current finding that describe the same problem.",
)
PROGRESS_KEY = "design:progress"


def _say(state: TaskState, line: str, value: str | None = None) -> None:
    """Progress of a review of the user's documents (the gold set's 14 reviews stay quiet)."""
    if state.metadata.get("gold") is None:
        progress.report(f"design review {state.metadata['topic']}", value or line, line)


def _previous_blob(folder: Path, before: int) -> tuple[int, str | None]:
    """(the latest complete iteration before `before`, the reviewed text's blob id it recorded)."""
    earlier = [n for n in iterations(folder) if n < before]
    if not earlier:
        return 0, None
    try:
        return earlier[-1], read_run(folder, earlier[-1]).get("reviewed_blob") or None
    except ArtifactError:
        return earlier[-1], None


def _claim(state: TaskState, output_dir: str, context: ReviewContext) -> None:
    """Claim the review's iteration and topic folder; a folder that cannot be written keeps the
    review in the log and says so. When the topic's latest iteration is partial and reviewed this
    same text, this run completes it in place: the personas that completed keep their reports and
    only the others are called again."""
    meta = state.metadata
    partial = None
    if not meta.get("gold"):
        partial = partial_to_complete(output_dir, context.topic, context.document, context.reviewed_blob, context.personas)
    try:
        claim = claim_iteration(output_dir, context.topic, context.document,
                                wanted=context.iteration if meta.get("gold") else (partial.iteration if partial else None),
                                replace=partial is not None)
    except (OSError, ArtifactError) as ex:
        where = getattr(ex, "filename", None) or Path(output_dir) / context.topic
        context.warnings.append(f"The review folder {where} could not be written ({getattr(ex, 'strerror', None) or ex}): "
                                "the review is in the log only.")
        return
    context.folder, context.iteration, context.topic = str(claim.folder), claim.iteration, claim.topic
    if partial is not None and claim.iteration == partial.iteration:
        for persona, kept in partial.kept.items():
            run = MemberRun.model_validate(kept["run"]) if kept.get("run") else MemberRun(kind=KIND_NAME, member=persona,
                                                                                          status="complete")
            # its tokens were spent and recorded by the earlier run
            run = run.model_copy(update={"input_tokens": 0, "output_tokens": 0, "attempts": 0})
            save_result(state.store, result_key(persona), MemberResult(run, PersonaReport.model_validate(kept["report"])))
        context.kept = sorted(partial.kept)
        names = default_personas().personas
        note = (f"completes iteration {partial.iteration} in place: the reports of "
                f"{', '.join(names[p].name for p in context.kept)} are kept from it, and only "
                f"{', '.join(names[p].name for p in partial.missing)} are called again")
        context.warnings.append(note[0].upper() + note[1:] + ".")
        progress.report(f"design review {meta['topic']}", note, f"Design review: {note}", important=True)
    if claim.note:
        context.warnings.append(claim.note[0].upper() + claim.note[1:] + ".")
        progress.report(f"design review {meta['topic']}", claim.note, f"Design review: {claim.note}", important=True)


def _earlier_context(context: ReviewContext) -> str:
    """What the topic folder says about earlier iterations: the calibration block (returned, its
    version set), and, when the reviewed text changed since the last iteration, the iteration it
    revises and its changed sections (from git)."""
    folder = Path(context.folder)
    calibration = ""
    try:
        calibration, context.calibration_version = calibration_block(folder)
    except TriageError as ex:
        context.warnings.append(f"The calibration rules cannot be read ({ex}): this review runs without them.")
    previous, previous_blob = _previous_blob(folder, context.iteration)
    if previous and previous_blob != context.reviewed_blob:
        context.revised_from = previous
        changes = changed_sections(context.reviewed_file, previous_blob) if context.reviewed_file else None
        if changes is not None:
            context.changes, context.changes_since, context.changed_sections = changes.text, changes.since, changes.sections
    return calibration


def _fit(state: TaskState, context: ReviewContext, config: PersonaConfig) -> None:
    """Cut the documents to the input budget when they exceed it (kept in the store), and say so."""
    fitted = fit_documents(state.input_text, context.requirements_text, context.reviewed, config.input)
    if not fitted.cut:
        return
    context.budget_note = fitted.note
    state.store.set(DOCUMENTS_KEY, {slot: getattr(fitted, slot) for slot in fitted.cut})
    context.warnings.append(
        f"The documents exceed the input budget of {config.input.budget_tokens:,} tokens per persona request: "
        f"{fitted.note.split('. ')[0]}. Findings cover only what was kept."
    )


@solver
def prepare_design_review(output_dir: str | None = None) -> Solver:
    """Record the request: documents, stage, personas, topic, iteration (claimed in the topic
    folder when the review is written), calibration rules, changed sections, input budget."""
    config = default_personas()

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        meta = state.metadata
        info = config.stage(meta["stage"])
        reviewed_file = meta.get(f"{info.reviews}_file")
        context = ReviewContext(
            topic=meta["topic"], stage=meta["stage"], personas=list(meta["personas"]),
            design_path=meta["design"], requirements_path=meta["requirements"],
            date=datetime.date.today().isoformat(), iteration=int(meta.get("iteration", 1)),
            requirements_text=meta["requirements_text"], prompt_version=PROMPT_VERSION,
            warnings=list(meta.get("input_warnings") or []), reviewed=info.reviews, document=meta.get("document", ""),
            reviewed_file=reviewed_file, calibration_version="cal-0",
        )
        reviewed_text = state.input_text if info.reviews == "design" else meta["requirements_text"]
        current = file_text(reviewed_file)
        context.reviewed_blob = blob_id(current if current is not None else reviewed_text)
        calibration = ""
        if output_dir:
            _claim(state, output_dir, context)
        if context.folder:
            calibration = _earlier_context(context)
        _fit(state, context, config)
        # the design is the sample input: do not copy it into the log twice
        state.store.set(REQUEST_KEY, {k: v for k, v in vars(context).items() if k != "design_text"})
        state.store.set(CALIBRATION_KEY, calibration)
        _say(state, f"Design review {context.topic}: iteration {context.iteration}, {len(context.personas)} reviewers "
                    f"({context.stage} stage)" + (f", {len(context.changed_sections)} changed section(s)"
                                                  if context.changed_sections else ""))
        return state

    return solve


def _progress(state: TaskState, config: PersonaConfig, run: MemberRun, dispatched: int) -> None:
    if state.metadata.get("gold") is not None:  # the gold set's reviews stay quiet (and keep no count)
        return
    done = list(state.store.get(PROGRESS_KEY) or []) + [run.member]
    state.store.set(PROGRESS_KEY, done)
    name = config.personas[run.member].name
    outcome = "done" if run.completed else outcome_text(run, with_reason=False)
    line = f"{name}: {outcome} [{len(done)}/{dispatched}] {run.seconds:.0f} s"
    _say(state, line, f"{len(done)}/{dispatched} · {line}")


@solver
def persona_reviewer(
    persona: str,
    timeout: float | None = None,
    max_tokens: int | None = None,
    cache: bool | CachePolicy = False,
) -> Solver:
    """One persona of the panel (e.g. 'edge-case-prober')."""
    config = default_personas()
    name = config.persona(persona).name  # fail at task creation on an unknown persona
    policy = retry_policy(config.failure, timeout)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        context = load_context(state.store)
        fixed = state.store.get(FIXED_KEY) or {}
        if persona in context.kept and not fixed.get("second_round"):
            return state  # its report is kept from the partial iteration this run completes
        design, requirements = documents(state.store, state.input_text, context)
        prompt = render_persona_prompt(
            persona, config, stage=context.stage, design=design, requirements=requirements, topic=context.topic,
            iteration=context.iteration, revised_from=context.revised_from, changes=context.changes,
            changes_since=context.changes_since,
            budget_note=context.budget_note, calibration=state.store.get(CALIBRATION_KEY, ""),
            calibration_version=context.calibration_version,
        )
        scoped = scoped_cache(cache, design_sha=text_hash(state.input_text), prompt=prompt.version)
        result = await call_member(
            KIND_NAME, persona, prompt.messages(), PERSONA_SCHEMA, lambda text: parse_persona_output(text, persona),
            policy=policy, cache=scoped, max_tokens=max_tokens, prompt_version=prompt.version,
            prefix_hash=prompt.prefix_hash, span_name=name,
        )
        save_result(state.store, result_key(persona), result)
        _progress(state, config, result.run, len(context.personas))
        return state

    return solve


@solver
def design_panel(members: dict[str, Solver]) -> Solver:
    """Run the personas this sample dispatches (its stage's, or the override set) at once."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        dispatched = load_context(state.store).personas
        await run_concurrently([members[p] for p in dispatched], state, generate)
        return state

    return solve


@solver
def synthesizer(max_tokens: int | None = None, cache: bool | CachePolicy = False) -> Solver:
    """Ask the `synthesizer` model role (the evaluated model when unbound) to group the
    findings; its answer is checked and, if unusable, replaced in code (see synthesis.py)."""
    config = default_personas()
    policy = retry_policy(config.failure)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        context = load_context(state.store)
        reports = load_reports(state.store, context.personas)
        if len(reports) < config.failure.min_successes(len(context.personas)):
            return state  # no verdict: nothing to synthesize
        if not any(r.findings for r in reports.values()):
            return state  # nothing to group
        prompt = render_synthesizer_prompt(reports, config, topic=context.topic, stage=context.stage)
        messages = [ChatMessageSystem(content=prompt.system), ChatMessageUser(content=prompt.request)]
        result = await call_member(
            KIND_NAME, SYNTHESIZER, messages, SYNTHESIS_SCHEMA, parse_synthesis_output,
            policy=policy, role="synthesizer", cache=cache, max_tokens=max_tokens,
            prompt_version=prompt.version, prefix_hash=prompt.prefix_hash, span_name="Synthesizer",
        )
        save_result(state.store, result_key(SYNTHESIZER), result)
        return state

    return solve


@solver
def track_iterations(max_tokens: int | None = None) -> Solver:
    """Compare the review with the topic's latest earlier iteration (read whole first): resolved /
    persisting / new findings and patterns. With a `grader` role bound the grader pairs the
    findings by meaning; otherwise, or when its answer is unusable, the offline matcher does."""
    config = default_personas()
    policy = retry_policy(config.failure)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        context = load_context(state.store)
        if not context.folder:
            return state
        earlier, why = earlier_iteration(Path(context.folder), context.iteration)
        if why:
            add_note(state.store, why)
        if earlier is None:
            return state
        review = review_from_store(state.store, config, state.input_text)
        if review.status == "failed":
            add_note(state.store, f"No delta against iteration {earlier.iteration}: this review has no verdict.")
            return state
        previous = [delta_record(f) for f in earlier.findings]
        current = [delta_record(f) for f in review.findings]
        pairs, reasons, grader_model = None, None, ""
        if GRADER in model_roles() and previous and current:
            prompt = render_grader_prompt(previous, current, topic=context.topic,
                                          previous_iteration=earlier.iteration, current_iteration=context.iteration)
            ids = ([p["id"] for p in previous], [c["id"] for c in current])
            result = await call_member(
                KIND_NAME, GRADER, [ChatMessageSystem(content=prompt.system), ChatMessageUser(content=prompt.request)],
                DELTA_SCHEMA, lambda text: parse_grader_answer(text, *ids), policy=policy, role=GRADER,
                max_tokens=max_tokens, prompt_version=prompt.version, prefix_hash=prompt.prefix_hash, span_name="Grader",
            )
            save_result(state.store, result_key(GRADER), result)
            if result.report is not None:
                pairs, reasons = grader_pairs(result.report, *ids), grader_reasons(result.report)
                grader_model = result.run.model or str(model_roles()[GRADER])
            else:
                add_note(state.store, f"The grader {outcome_text(result.run, with_reason=True)}: the delta was "
                                      "matched offline instead.")
        try:
            delta = build_delta(earlier.findings, earlier.patterns, review.findings, review.patterns,
                                from_iteration=earlier.iteration, to_iteration=context.iteration, pairs=pairs,
                                reasons=reasons)
        except DeltaError as ex:
            add_note(state.store, f"No delta against iteration {earlier.iteration}: {ex}.")
            return state
        if pairs is not None and grader_model:
            delta.grader_model = grader_model
        state.store.set(DELTA_KEY, delta.model_dump(mode="json"))
        return state

    return solve


@solver
def apply_auto_fixes(enabled: bool = False) -> Solver:
    """Step 4: apply the accepted mechanical fixes to the reviewed file as a git commit of their
    own, only when enabled (`-T auto_fix=true`); otherwise they stay proposed in the summary."""
    config = default_personas()

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        context = load_context(state.store)
        review = review_from_store(state.store, config, state.input_text)
        fixes = [f for f in review.auto_fixes if f.status == "proposed"]
        if not fixes:
            return state
        if not enabled:
            add_note(state.store, f"{len(fixes)} mechanical fix(es) proposed and not applied: run with "
                                  "-T auto_fix=true to commit them to the document.")
            return state
        if not context.reviewed_file:
            add_note(state.store, "The proposed fixes were not applied: the document is given as text, not as a file.")
            return state
        try:
            message = apply_fixes(Path(context.reviewed_file), fixes, context.topic)
        except (AutoFixError, OSError) as ex:
            add_note(state.store, f"The proposed fixes were not applied: {ex}.")
            return state
        state.store.set(AUTO_FIX_KEY, {f.finding: ["applied", f"committed: {message}"] for f in fixes})
        _say(state, f"Auto-fix: {len(fixes)} fix(es) committed ({message})")
        state.store.set(FIXED_KEY, {"text": Path(context.reviewed_file).read_text(encoding="utf-8"), "second_round": False})
        return state

    return solve


@solver
def re_review_after_fixes(panel: Solver, synthesis: Solver) -> Solver:
    """After auto-fix: the fixed document is reviewed again by the same panel and synthesizer, so
    the review holds the findings that remain; the fixed ones are kept as fixed, not pending and
    not counted (the first round's review is kept in the store)."""
    config = default_personas()

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        fixed = state.store.get(FIXED_KEY)
        if not fixed or fixed.get("second_round"):
            return state
        context = load_context(state.store)
        first = review_from_store(state.store, config, state.input_text)
        cut = dict(state.store.get(DOCUMENTS_KEY) or {})
        cut[context.reviewed] = fixed["text"]
        state.store.set(DOCUMENTS_KEY, cut)
        state.store.set(FIXED_KEY, {"text": fixed["text"], "second_round": True, "first_review": first.model_dump(mode="json")})
        state.store.set(AUTO_FIX_KEY, {})  # the second round's own proposals stay proposed
        state.store.set(PROGRESS_KEY, [])
        remaining = len(first.findings) - sum(1 for f in first.auto_fixes if f.status == "applied")
        _say(state, f"Design review {context.topic}: re-reviewing the fixed document ({remaining} finding(s) remain)")
        await panel(state, generate)
        await synthesis(state, generate)
        return state

    return solve


@solver
def render_design_review() -> Solver:
    """Synthesize, make summary.md the sample's answer, and write the iteration's folder when the
    review has one (a write failure keeps the review in the log and names what failed)."""
    config = default_personas()

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        context = load_context(state.store)
        review = review_from_store(state.store, config, state.input_text)
        if context.folder:
            try:
                written = write_iteration(review, Path(context.folder))
            except (OSError, ArtifactError) as ex:
                where = getattr(ex, "filename", None) or Path(context.folder) / f"v{context.iteration}"
                add_note(state.store, f"The review folder could not be written: {where} "
                                      f"({getattr(ex, 'strerror', None) or ex}); the review is in the log only.")
                review = review_from_store(state.store, config, state.input_text)
                _say(state, f"Design review {context.topic}: could not write {where}; the review is in the log")
            else:
                state.metadata["artifacts"] = str(written)
                _say(state, f"Design review {context.topic}: {review.verdict or 'no verdict'}; written to "
                            f"{written} and {Path(context.folder) / 'summary.md'}")
        summary = render_summary(review)
        # the summary is the sample's answer: the final assistant message and the output
        return answer_message(state, summary)

    return solve


def design_pipeline(
    *,
    output_dir: str | None = None,
    auto_fix: bool = False,
    timeout: float | None = None,
    max_tokens: int | None = None,
    cache: bool | CachePolicy = False,
) -> list[Solver]:
    """prepare -> personas (concurrently) -> synthesizer -> auto-fix -> the fixed document reviewed again
    (only when fixes were applied) -> delta -> summary (+ folder)."""
    members = {
        p: persona_reviewer(p, timeout=timeout, max_tokens=max_tokens, cache=cache) for p in default_personas().personas
    }
    panel, synthesis = design_panel(members), synthesizer(max_tokens=max_tokens, cache=cache)
    return [
        prepare_design_review(output_dir=output_dir),
        panel,
        synthesis,
        apply_auto_fixes(enabled=auto_fix),
        re_review_after_fixes(panel, synthesis),
        track_iterations(max_tokens=max_tokens),
        render_design_review(),
    ]
