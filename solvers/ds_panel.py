"""Solvers of the review panel: prepare the document, run reviewers concurrently, render.

One reviewer mechanism (`reviewer(dimension)`) serves every dimension; what differs between
reviewers is rubric data.
"""

from __future__ import annotations

from pathlib import Path

from inspect_ai.model import CachePolicy, ChatMessageSystem, ChatMessageUser, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver

from review_harness.core.member import MemberResult, RetryPolicy, call_member
from review_harness.core.viewer import answer_message
from review_harness.core.panel import run_concurrently, scoped_cache, text_hash
from review_harness.domain.dedup import dedup
from review_harness.domain.member import domain_review
from review_harness.domain.prompt import PROMPT_VERSION as DOMAIN_PROMPT_VERSION
from review_harness.domain.reviewer import default_reviewer_rubric
from review_harness.domain.skill import get_domain_context
from review_harness.domain.topics import domain_fit
from review_harness.ds.domain_dim import (
    analysis_refs,
    domain_refs,
    load_brief,
    load_domain_input,
    load_fit,
    save_brief,
    save_dedup,
    save_domain_run,
)
from review_harness.ds.models import PanelRecord, ReviewerReport, ReviewOptions
from review_harness.ds.panel import (
    KIND,
    count_earlier_round,
    no_analysis,
    load_prepared,
    load_record,
    load_reviewer_result,
    review_from_store,
    save_prepared,
    save_record,
    save_reviewer_result,
    save_source_map,
)
from review_harness.ds.parse import parse_reviewer_output
from review_harness.core import progress
from review_harness.core.files import write_output
from review_harness.core.text import invisible_warning
from review_harness.ds.preflight import review_file
from review_harness.core.documents import DocumentError
from review_harness.ds.prepare import domain_content, english_share, looks_like_html, prepare_document
from review_harness.ds.prompts import PROMPT_VERSION, render_reviewer_prompt
from review_harness.ds.render import render_report
from review_harness.ds.rubric import Rubric, default_rubric, load_rubric
from review_harness.ds.schemas import reviewer_schema

# below this share of English function words the document is probably not English
ENGLISH_SHARE_MIN = 0.08


def _rubric(path: str | None) -> Rubric:
    return load_rubric(path) if path else default_rubric()


@solver
def prepare_document_step(rubric: str | None = None, domains: list[str] | None = None) -> Solver:
    """Lead steps 1-6: word count, tier, section map or extraction, TL;DR, partial input.
    Also applies the level-1 downgrade for over-long documents in full mode. `domains`: the
    domains of every sample (-T domain=), recorded in its options."""
    the_rubric = _rubric(rubric)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        options = ReviewOptions.model_validate(state.metadata.get("options", {}))
        if domains:
            options.domains = list(domains)
        source = state.metadata.get("source", str(state.sample_id))
        if state.metadata.get("input_error"):  # an unreadable file of a folder: this sample fails
            raise DocumentError(state.metadata["input_error"])
        warnings: list[str] = list(state.metadata.get("input_warnings") or [])
        save_source_map(state.store, state.metadata.get("source_map"))
        degradation = 0
        reader = {"audience": options.audience, "workflow": options.workflow}  # named in a tier-3 extraction
        prepared = prepare_document(state.input_text, source=source, mode=options.mode, **reader)
        limit = the_rubric.scoring.full_mode_word_limit
        if options.mode == "full" and prepared.word_count > limit:
            options.mode = "quick"
            degradation = 1
            warnings.append(
                f"The document has {prepared.word_count:,} words, over the {limit:,}-word limit "
                "for a full review: reviewed in quick mode on a structured extraction."
            )
            prepared = prepare_document(state.input_text, source=source, mode="quick", **reader)
        invisible = invisible_warning(prepared.invisible_characters)
        if invisible:
            warnings.append(invisible)
        if prepared.no_analysis and not (options.draft and prepared.word_count):
            warnings.append(f"No analysis to review: the document {prepared.no_analysis}. Nothing was sent to the reviewers.")
        elif prepared.partial_input.is_partial and not options.draft:
            warnings.append(
                "This looks like an early draft ("
                + "; ".join(prepared.partial_input.reasons)
                + "). Reviewed at full rigor, so missing parts count as findings; "
                "rerun with -T draft=true for draft feedback without a score."
            )
        if looks_like_html(state.input_text):
            warnings.append(
                "The document looks like HTML, not markdown: headings, tables and the TL;DR may be "
                "missed. Export it as markdown for a better review."
            )
        if prepared.word_count >= 50 and english_share(state.input_text) < ENGLISH_SHARE_MIN:
            warnings.append(
                "The document does not look like English; the rubric and the offline reviewer's "
                "rules are written for English, so findings may be missing."
            )
        if prepared.structure_inferred:
            warnings.append("The document has no clear headings: its structure was inferred from content signals.")
        save_prepared(state.store, prepared)
        save_record(
            state.store,
            PanelRecord(
                options=options,
                document=prepared.info(),
                degradation_level=degradation,
                warnings=warnings,
                prompt_version=PROMPT_VERSION,
            ),
        )
        return state

    return solve


async def call_reviewer(
    dimension_id: str,
    state: TaskState,
    rubric: Rubric,
    record: PanelRecord,
    *,
    policy: RetryPolicy,
    max_tokens: int | None,
    cache: bool | CachePolicy,
    guardrail: str | None = None,
) -> MemberResult[ReviewerReport]:
    """Ask one reviewer under `policy` and parse what it returns: a malformed or cut-off answer
    is retried, then counts as malformed with what parsed kept beside the run."""
    dimension = rubric.dimension(dimension_id)
    options = record.options
    prepared = load_prepared(state.store, state.input_text)
    prompt = render_reviewer_prompt(
        dimension,
        rubric,
        prepared,
        mode=options.mode,
        audience=options.audience,
        workflow=options.workflow,
        draft=options.draft,
        guardrail=guardrail,
    )
    return await call_member(
        KIND, dimension.reviewer,
        [ChatMessageSystem(content=prompt.system), ChatMessageUser(content=prompt.request)],
        reviewer_schema(dimension), lambda text: parse_reviewer_output(text, dimension, rubric),
        policy=policy, max_tokens=max_tokens,
        cache=scoped_cache(cache, document_sha=text_hash(state.input_text), prompt=prompt.version),
        prompt_version=prompt.version, prefix_hash=prompt.prefix_hash,
    )


@solver
def reviewer(
    dimension: str,
    rubric: str | None = None,
    policy: RetryPolicy | None = None,
    max_tokens: int | None = None,
    cache: bool | CachePolicy = False,
    guardrail: str | None = None,
) -> Solver:
    """One reviewer of the panel, defined by a rubric dimension (e.g. 'analysis'). `policy`:
    its calls' retry policy (None: the rubric's `reviewer_calls`). `guardrail`: a sentence added
    to its instructions; the analysis reviewer gets the domain boundary by itself when its
    sample is reviewed with a domain that fits the document."""
    the_rubric = _rubric(rubric)
    the_rubric.dimension(dimension)  # fail at task creation on an unknown dimension
    policy = policy or the_rubric.reviewer_calls

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        record = load_record(state.store, the_rubric)
        if no_analysis(record):  # nothing to review: no model call
            return state
        fit = load_fit(state.store)
        boundary = guardrail
        if boundary is None and dimension == "analysis" and record.options.domains and (fit is None or fit.applicable):
            boundary = default_reviewer_rubric().analysis_guardrail
        result = await call_reviewer(
            dimension, state, the_rubric, record, policy=policy, max_tokens=max_tokens, cache=cache,
            guardrail=boundary,
        )
        earlier = load_reviewer_result(state.store, the_rubric, dimension)
        count_earlier_round(result.run, earlier.run if earlier else None)
        save_reviewer_result(state.store, the_rubric, dimension, result, mode=record.options.mode)
        return state

    return solve


@solver
def review_panel(reviewers: list[Solver], rubric: str | None = None) -> Solver:
    """Run the reviewers concurrently. If a reviewer's answer was still cut off in full mode
    after its retry, switch to quick mode and run the panel once more (degradation level 1)."""
    the_rubric = _rubric(rubric)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        await run_concurrently(reviewers, state, generate)
        record = load_record(state.store, the_rubric)
        cut_off = [r for r in record.runs if r.status == "malformed" and r.truncated]
        if cut_off and record.options.mode == "full":
            names = ", ".join(r.member for r in cut_off)
            record.options.mode = "quick"
            record.degradation_level = 1
            record.warnings.append(
                f"Output of {names} was cut off: switched to quick mode (tighter finding caps, "
                "structured extraction) and ran both reviewers again."
            )
            prepared = prepare_document(
                state.input_text, source=record.document.source, mode="quick",
                audience=record.options.audience, workflow=record.options.workflow,
            )
            record.document = prepared.info()
            save_prepared(state.store, prepared)
            save_record(state.store, record)
            await run_concurrently(reviewers, state, generate)
        return state

    return solve


@solver
def render_review(rubric: str | None = None, output_dir: str | None = None) -> Solver:
    """Synthesize the stored reports and make the markdown report the sample's answer: the
    final assistant message (what `inspect view` shows) and the output. With output_dir, also
    write it to DIR/<sample id>.review.md."""
    the_rubric = _rubric(rubric)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        review = review_from_store(state.store, the_rubric, state.input_text)
        report = render_report(review, the_rubric)
        if output_dir:
            path = review_file(Path(output_dir), str(state.sample_id))
            try:
                written = write_output(path, report)  # never over a file the user wrote: beside it, said so
                state.metadata["review_file"] = str(written.path)
                if written.note:
                    record = load_record(state.store, the_rubric)
                    record.warnings.append(written.note)
                    save_record(state.store, record)
                    progress.report("review file", written.path.name, written.note, important=True)
                    report = render_report(review_from_store(state.store, the_rubric, state.input_text), the_rubric)
                    write_output(written.path, report)
            except OSError as ex:  # the review stays in the log; the file it could not write is named
                record = load_record(state.store, the_rubric)
                record.warnings.append(
                    f"The review could not be written to {path} ({ex.strerror or ex}); it is in the log as the "
                    "sample's answer (review-harness show).")
                save_record(state.store, record)
                state.metadata["review_file_error"] = f"{path}: {ex.strerror or ex}"
                report = render_report(review_from_store(state.store, the_rubric, state.input_text), the_rubric)
        return answer_message(state, report)

    return solve


@solver
def domain_brief(domains: list[str] | None = None, reference: str | None = None) -> Solver:
    """Lead step 6.5, for a sample reviewed with a domain (its options' `domains`, else
    `domains`): name the methods and metrics the document names (topic hints), check that the
    domains fit the document at all, fetch the context brief for those hints before dispatch and
    record it (digest versions, tokens, warnings, fit) in the store and the sample metadata."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        record = load_record(state.store, default_rubric())
        asked = record.options.domains or domains
        if not asked or no_analysis(record):
            return state
        fit = domain_fit(state.input_text, asked)
        brief = get_domain_context(asked, topic_hints=fit.hints)
        save_brief(state.store, brief, reference, fit)
        state.metadata["domain_brief"] = {**brief.log_record(), "topic_hints": fit.hints, "applicable": fit.applicable}
        return state

    return solve


@solver
def domain_reviewer(
    policy: RetryPolicy | None = None,
    max_tokens: int | None = None,
    cache: bool | CachePolicy = False,
    reference_text: str | None = None,
) -> Solver:
    """The domain expert reviewer (third panel member): the document against the brief, under
    the evaluated model and `policy` (None: the DS rubric's `reviewer_calls`, as the other
    reviewers). A failed or malformed answer is recorded with its reason (the review goes
    partial)."""
    domain_rubric = default_reviewer_rubric()
    policy = policy or default_rubric().reviewer_calls

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        brief = load_brief(state.store)
        if brief is None:  # this sample is reviewed without a domain
            return state
        fit = load_fit(state.store)
        if fit is not None and not fit.applicable:  # nothing of the domain to review: nobody is asked
            return state
        prepared = load_prepared(state.store, state.input_text)
        result = await domain_review(
            domain_content(prepared), brief, domain_rubric, model=get_model(), policy=policy,
            reference=reference_text, max_tokens=max_tokens,
            cache=scoped_cache(cache, document_sha=text_hash(state.input_text), prompt=DOMAIN_PROMPT_VERSION),
        )
        earlier = load_domain_input(state.store)
        count_earlier_round(result.run, earlier.run if earlier else None)
        save_domain_run(state.store, result, brief)
        return state

    return solve


@solver
def domain_dedup(rubric: str | None = None) -> Solver:
    """Lead step 9a: two-stage dedup between the analysis and domain findings. Stage 1 is
    heuristic; stage 2 asks the evaluated model about one-signal pairs only. The decisions go to
    the store, where synthesis (and `inspect score`) replays them without a model call."""
    the_rubric = _rubric(rubric)
    settings = default_reviewer_rubric().dedup

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        domain = load_domain_input(state.store)
        if domain is None or not domain.reviewed or not domain_refs(domain.findings):
            return state
        review = review_from_store(state.store, the_rubric, with_domain=False)
        decisions = await dedup(analysis_refs(review.findings), domain_refs(domain.findings), settings,
                                model=get_model())
        save_dedup(state.store, decisions)
        return state

    return solve


def review_pipeline(
    rubric: str | None = None,
    timeout: float | None = None,
    max_tokens: int | None = None,
    cache: bool | CachePolicy = False,
    output_dir: str | None = None,
    domains: list[str] | None = None,
    reference: str | None = None,
    reference_text: str | None = None,
    with_domain: bool = False,
) -> list[Solver]:
    """prepare -> one reviewer per rubric dimension, concurrently -> rendered report. Every
    reviewer's policy is the rubric's `reviewer_calls`; `timeout` (seconds per member call)
    overrides its seconds.
    With `domains` (every sample) or `with_domain` (the samples whose options name domains): the
    brief is fetched before dispatch, the domain expert reviewer joins the panel, the analysis
    reviewer gets the domain guardrail, and dedup runs before synthesis; a sample without a domain
    skips these steps."""
    the_rubric = _rubric(rubric)
    policy = the_rubric.reviewer_calls.with_timeout(timeout)
    reviewers = [
        reviewer(dimension, rubric=rubric, policy=policy, max_tokens=max_tokens, cache=cache)
        for dimension in the_rubric.dimensions
    ]
    if not domains and not with_domain:
        return [
            prepare_document_step(rubric=rubric),
            review_panel(reviewers, rubric=rubric),
            render_review(rubric=rubric, output_dir=output_dir),
        ]
    reviewers.append(domain_reviewer(policy=policy, max_tokens=max_tokens, cache=cache,
                                     reference_text=reference_text))
    return [
        prepare_document_step(rubric=rubric, domains=domains),
        domain_brief(domains, reference=reference),
        review_panel(reviewers, rubric=rubric),
        domain_dedup(rubric=rubric),
        render_review(rubric=rubric, output_dir=output_dir),
    ]
