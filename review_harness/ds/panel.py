"""The panel's state in the Inspect sample store, and the synthesis over it.

Solvers write here; the synthesis scorer reads here, so `inspect score` can re-synthesize a
log after a rubric change without calling any model. Each reviewer writes its own keys, so
concurrent reviewers never overwrite each other.
"""

from __future__ import annotations

from typing import Any, Protocol

from review_harness.core.documents import SourceMap
from review_harness.core.matching import normalize_space
from review_harness.ds.models import (
    PANEL_STORE_KEY,
    PanelRecord,
    PreparedDocument,
    Review,
    ReviewerReport,
    ReviewerRun,
)
from review_harness.ds.domain_dim import load_domain_input
from review_harness.ds.rubric import Rubric
from review_harness.ds.synthesis import synthesize

PREPARED_KEY = "prepared_document"
SOURCE_MAP_KEY = "source_map"


class StoreLike(Protocol):
    def get(self, key: str, default: Any = None) -> Any: ...
    def set(self, key: str, value: Any) -> None: ...


def _reviewer_key(dimension: str) -> str:
    return f"reviewer:{dimension}"


def save_record(store: StoreLike, record: PanelRecord) -> None:
    store.set(PANEL_STORE_KEY, record.model_dump(mode="json", exclude={"reports", "runs"}))


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
    return PreparedDocument.model_validate({**data, "text": text})


def save_reviewer_result(
    store: StoreLike, dimension: str, run: ReviewerRun, report: ReviewerReport | None, prefix_hash: str = ""
) -> None:
    # one write per reviewer: every store write is an event in the transcript
    store.set(
        _reviewer_key(dimension),
        {
            "run": run.model_dump(mode="json"),
            "report": report.model_dump(mode="json") if report else None,
            "prompt_prefix_hash": prefix_hash,
        },
    )


def mark_retried(store: StoreLike, dimension: str, attempts: int) -> None:
    entry = store.get(_reviewer_key(dimension))
    if entry is not None:
        entry["run"]["attempts"] = attempts
        store.set(_reviewer_key(dimension), entry)


def load_record(store: StoreLike, rubric: Rubric) -> PanelRecord:
    data = store.get(PANEL_STORE_KEY)
    if data is None:
        raise RuntimeError("no review panel record in the sample store: run prepare_document() first")
    record = PanelRecord.model_validate(data)
    for dimension in rubric.dimensions:
        entry = store.get(_reviewer_key(dimension)) or {}
        if entry.get("run") is not None:
            record.runs.append(ReviewerRun.model_validate(entry["run"]))
        report = entry.get("report")
        record.reports[dimension] = ReviewerReport.model_validate(report) if report else None
        if entry.get("prompt_prefix_hash"):
            record.prompt_prefix_hashes[dimension] = entry["prompt_prefix_hash"]
    return record


def review_from_store(
    store: StoreLike, rubric: Rubric, document_text: str | None = None, with_domain: bool = True
) -> Review:
    """The review synthesized from the stored reports; with a domain (-T domain=) it has the
    domain dimension unless `with_domain` is False (the dedup step reads the two-dimension
    findings). With `document_text`, each evidence quote is checked against it: one that is not
    verbatim is kept, marked unverified, and named in the warnings."""
    record = load_record(store, rubric)
    review = synthesize(
        record.document,
        record.reports,
        record.runs,
        rubric,
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
    document = normalize_space(document_text)
    for finding in review.findings:
        if finding.evidence:
            finding.evidence_verified = normalize_space(finding.evidence) in document
    unverified = [f.id for f in review.findings if f.evidence_verified is False]
    if unverified:
        review.warnings.append(f"Evidence quotes not found verbatim in the document (kept, unverified): {', '.join(unverified)}.")
