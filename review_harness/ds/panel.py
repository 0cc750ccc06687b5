"""The panel's state in the Inspect sample store, and the synthesis over it.

Solvers write here; the synthesis scorer reads here, so `inspect score` can re-synthesize a
log after a rubric change without calling any model. Each reviewer writes its own keys, so
concurrent reviewers never overwrite each other.
"""

from __future__ import annotations

from typing import Any

from review_harness.core.documents import SourceMap
from review_harness.core.matching import normalize_space
from review_harness.core.text import visible_text
from review_harness.core.member import MemberResult, MemberRun, StoreLike, load_result, member_key, save_result
from review_harness.ds.models import (
    PANEL_STORE_KEY,
    Mode,
    PanelRecord,
    PreparedDocument,
    Review,
    ReviewerReport,
)
from review_harness.ds.domain_dim import load_domain_input
from review_harness.ds.rubric import Rubric
from review_harness.ds.synthesis import no_analysis_review, synthesize

KIND = "ds"
PREPARED_KEY = "prepared_document"
SOURCE_MAP_KEY = "source_map"


def save_record(store: StoreLike, record: PanelRecord) -> None:
    store.set(PANEL_STORE_KEY, record.model_dump(mode="json", exclude={"reports", "salvaged", "runs"}))


def save_prepared(store: StoreLike, prepared: PreparedDocument) -> None:
    # the text is the sample input already; do not copy it into the log twice
    store.set(PREPARED_KEY, prepared.model_dump(mode="json", exclude={"text"}))


def save_source_map(store: StoreLike, source_map: dict[str, Any] | None) -> None:
    """Where the prepared lines came from in the original (None: the original is the text)."""
    if source_map is not None:
        store.set(SOURCE_MAP_KEY, source_map)


def load_prepared(store: StoreLike, text: str) -> PreparedDocument:
    data = store.get(PREPARED_KEY)
    if data is None:
        raise RuntimeError("no prepared document in the sample store: run prepare_document() first")
    # the reviewers read the text as preparation did: invisible characters removed
    return PreparedDocument.model_validate({**data, "text": visible_text(text)[0]})


def no_analysis(record: PanelRecord) -> bool:
    """The document holds no analysis to review (an empty or comments-only file, images, a short
    note): nobody is asked and the review says so. A draft with some text still gets draft feedback."""
    doc = record.document
    return bool(doc.no_analysis) and not (record.options.draft and doc.word_count)


def reviewer_key(rubric: Rubric, dimension: str) -> str:
    return member_key(KIND, rubric.dimension(dimension).reviewer)


def load_reviewer_result(store: StoreLike, rubric: Rubric, dimension: str) -> MemberResult[ReviewerReport] | None:
    return load_result(store, reviewer_key(rubric, dimension), ReviewerReport)


def save_reviewer_result(
    store: StoreLike, rubric: Rubric, dimension: str, result: MemberResult[ReviewerReport], mode: Mode
) -> None:
    """One write per reviewer (every store write is an event in the transcript); `mode` is the
    review mode the reviewer answered in."""
    save_result(store, reviewer_key(rubric, dimension), result, mode=mode)


def count_earlier_round(run: MemberRun, earlier: MemberRun | None) -> None:
    """After a switch to quick mode (level 1) a member is asked again: its run counts the calls,
    tokens and seconds of the full-mode round too."""
    if earlier is None:
        return
    run.attempts += earlier.attempts
    run.input_tokens += earlier.input_tokens
    run.output_tokens += earlier.output_tokens
    run.seconds = round(run.seconds + earlier.seconds, 3)


def load_record(store: StoreLike, rubric: Rubric) -> PanelRecord:
    data = store.get(PANEL_STORE_KEY)
    if data is None:
        raise RuntimeError("no review panel record in the sample store: run prepare_document() first")
    record = PanelRecord.model_validate(data)
    for dimension in rubric.dimensions:
        result = load_reviewer_result(store, rubric, dimension)
        record.reports[dimension] = result.report if result else None
        if result is None:
            continue
        record.runs.append(result.run)
        if result.salvaged is not None:
            record.salvaged[dimension] = result.salvaged
        if result.run.prefix_hash:
            record.prompt_prefix_hashes[dimension] = result.run.prefix_hash
    return record


def review_from_store(
    store: StoreLike, rubric: Rubric, document_text: str | None = None, with_domain: bool = True
) -> Review:
    """The review synthesized from the stored reports; with a domain (-T domain=) it has the
    domain dimension unless `with_domain` is False (the dedup step reads the two-dimension
    findings). With `document_text`, each evidence quote is checked against it: one that is not
    verbatim is kept, marked unverified, and named in the warnings."""
    record = load_record(store, rubric)
    if no_analysis(record):
        return no_analysis_review(record, rubric)
    review = synthesize(
        record.document,
        record.reports,
        record.runs,
        rubric,
        salvaged=record.salvaged,
        requested_mode=record.options.requested_mode,
        mode=record.options.mode,
        audience=record.options.audience,
        workflow=record.options.workflow,
        draft=record.options.draft,
        degradation_level=record.degradation_level,
        warnings=record.warnings,
        prompt_version=record.prompt_version,
        prompt_prefix_hashes=record.prompt_prefix_hashes,
        domain=load_domain_input(store) if with_domain else None,
    )
    source_map = store.get(SOURCE_MAP_KEY)
    if source_map:  # line references point into the original (cell, section, page)
        mapping = SourceMap.model_validate(source_map)
        for finding in review.findings:
            finding.location = mapping.relabel(finding.location)
    if document_text is not None:
        mark_evidence(review, document_text)
    return review


def mark_evidence(review: Review, document_text: str) -> None:
    """Whether each quote is verbatim in the document, read as the reviewers read it (invisible
    characters removed, whitespace folded)."""
    document = normalize_space(visible_text(document_text)[0])
    for finding in review.findings:
        if finding.evidence:
            finding.evidence_verified = normalize_space(visible_text(finding.evidence)[0]) in document
    unverified = [f.id for f in review.findings if f.evidence_verified is False]
    if unverified:
        review.warnings.append(f"Evidence quotes not found verbatim in the document (kept, unverified): {', '.join(unverified)}.")
