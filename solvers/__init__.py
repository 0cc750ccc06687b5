from solvers.ds_panel import (
    prepare_document_step,
    render_review,
    review_panel,
    review_pipeline,
    reviewer,
)

__all__ = ["prepare_document_step", "render_review", "review_panel", "review_pipeline", "reviewer"]
