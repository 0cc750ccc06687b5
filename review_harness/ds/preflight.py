"""Before a DS run: the domain parameters, and where `-T output_dir=` writes each review.

After a `-T document=` run the console says each document's verdict and where the review is
(core/console.py, from the written file the solver records as `review_file`). The shared checks
(loud one-line errors, the output folder) are the core task helper's (review_harness.core.task).
"""

from __future__ import annotations

from pathlib import Path

from review_harness.core.inspect_adapter import PrerequisiteError
from review_harness.core.files import FileReadError, read_text
from review_harness.core.params import resolve_user_path

REVIEW_SUFFIX = ".review.md"


def task_domains(domain: str | list[str] | None) -> list[str] | None:
    """`-T domain=` as a list of domains (None: no domain dimension), or a one-line error."""
    from review_harness.domain.config import default_index, domain_task_param

    if domain is None:
        return None
    domains = domain_task_param(domain)
    if not domains:
        raise PrerequisiteError("-T domain=: name one or more domains; choose from: "
                                + ", ".join(default_index().reviewable()))
    return domains


def domain_reference(reference: str | None, domains: list[str] | None) -> str | None:
    """The text of `-T reference=PATH` (it supplements the domain brief), or a one-line error."""
    if reference is None:
        return None
    if not domains:
        raise PrerequisiteError(f"-T reference={reference}: a reference supplements the domain brief; "
                                "add -T domain=DOMAIN")
    try:
        text = read_text(resolve_user_path(str(reference)), f"-T reference={reference}")  # the core's one reader
    except FileReadError as ex:
        raise PrerequisiteError(str(ex)) from None
    if not text.strip():
        raise PrerequisiteError(f"-T reference={reference}: the file is empty")
    return text


def review_file(folder: Path, sample_id: str) -> Path:
    return folder / f"{sample_id}{REVIEW_SUFFIX}"
