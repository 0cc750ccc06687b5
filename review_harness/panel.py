"""The panel's state in the Inspect sample store, and the synthesis over it.

Solvers write here; the synthesis scorer reads here, so `inspect score` can re-synthesize a
log after a rubric change without calling any model. Each reviewer writes its own keys, so
concurrent reviewers never overwrite each other.
"""

from __future__ import annotations

from typing import Any, Protocol

from review_harness.models import (
    PANEL_STORE_KEY,
    PanelRecord,
    PreparedDocument,
    Review,
    ReviewerReport,
    ReviewerRun,
)
from review_harness.rubric import Rubric
from review_harness.synthesis import synthesize

PREPARED_KEY = "prepared_document"


class StoreLike(Protocol):
    def get(self, key: str, default: Any = None) -> Any: ...
    def set(self, key: str, value: Any) -> None: ...


def _report_key(dimension: str) -> str:
    return f"reviewer_report:{dimension}"


def _run_key(dimension: str) -> str:
    return f"reviewer_run:{dimension}"


def save_record(store: StoreLike, record: PanelRecord) -> None:
    store.set(PANEL_STORE_KEY, record.model_dump(mode="json", exclude={"reports", "runs"}))


def save_prepared(store: StoreLike, prepared: PreparedDocument) -> None:
    # the text is the sample input already; do not copy it into the log twice
    store.set(PREPARED_KEY, prepared.model_dump(mode="json", exclude={"text"}))


def load_prepared(store: StoreLike, text: str) -> PreparedDocument:
    data = store.get(PREPARED_KEY)
    if data is None:
        raise RuntimeError("no prepared document in the sample store: run prepare_document() first")
    return PreparedDocument.model_validate({**data, "text": text})


def save_reviewer_result(
    store: StoreLike, dimension: str, run: ReviewerRun, report: ReviewerReport | None
) -> None:
    store.set(_run_key(dimension), run.model_dump(mode="json"))
    store.set(_report_key(dimension), report.model_dump(mode="json") if report else None)


def load_record(store: StoreLike, rubric: Rubric) -> PanelRecord:
    data = store.get(PANEL_STORE_KEY)
    if data is None:
        raise RuntimeError("no review panel record in the sample store: run prepare_document() first")
    record = PanelRecord.model_validate(data)
    for dimension in rubric.dimensions:
        run = store.get(_run_key(dimension))
        if run is not None:
            record.runs.append(ReviewerRun.model_validate(run))
        report = store.get(_report_key(dimension))
        record.reports[dimension] = ReviewerReport.model_validate(report) if report else None
    return record


def review_from_store(store: StoreLike, rubric: Rubric) -> Review:
    record = load_record(store, rubric)
    return synthesize(
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
    )
