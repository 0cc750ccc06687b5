"""Before and after a DS run: the domain parameters, and where the review is.

After a `-T document=` run the console says where the review is (the log, `review-harness show`,
and the written file with `-T output_dir=`). The shared checks (loud one-line errors, the output
folder) are the core task helper's (review_harness.core.task).
"""

from __future__ import annotations

import sys
from pathlib import Path

from review_harness.core.inspect_adapter import PrerequisiteError
from inspect_ai.hooks import Hooks, RunEnd, hooks

from review_harness.core.params import resolve_user_path

TASK_NAME = "ds_review"
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
    path = resolve_user_path(str(reference))
    if not path.is_file():
        raise PrerequisiteError(f"-T reference={reference}: no such file")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as ex:
        raise PrerequisiteError(f"-T reference={reference}: cannot read it as text ({ex})") from None
    if not text.strip():
        raise PrerequisiteError(f"-T reference={reference}: the file is empty")
    return text


def review_file(folder: Path, sample_id: str) -> Path:
    return folder / f"{sample_id}{REVIEW_SUFFIX}"


def write_atomically(path: Path, text: str) -> None:
    """Write `text` to a temporary file beside `path`, then rename it into place: a reader never
    sees half a review, and a failed write leaves any earlier file as it was."""
    import os
    import tempfile

    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    import os

    mask = os.umask(0)
    os.umask(mask)
    return mask


_pointer: dict = {"active": False, "folder": None, "registered": False}


def register_review_pointer(folder: Path | None) -> None:
    """After this run, tell the user where the review is. The hook is registered on the first
    document run only, so fixture runs and other kinds never see it."""
    _pointer["active"] = True
    _pointer["folder"] = folder
    if not _pointer["registered"]:
        hooks(name="ds_review_pointer", description="After a DS review of a document, say where the review is")(ReviewPointer)
        _pointer["registered"] = True


def where_the_review_is(log_location: str, sample_ids: list[str], folder: Path | None) -> str:
    lines = [
        f"ds_review: the review is the sample's answer in {log_location}",
        f"  read it: review-harness show {log_location}   (or: inspect view)",
    ]
    if folder is not None:
        for sid in sample_ids:
            path = review_file(folder, sid)
            lines.append(f"  written: {path}" if path.is_file() else f"  NOT written: {path} (the review's warnings say why)")
    return "\n".join(lines)


class ReviewPointer(Hooks):
    def enabled(self) -> bool:
        return bool(_pointer["active"])

    async def on_run_end(self, data: RunEnd) -> None:
        for log in data.logs:
            if log.eval.task.split("/")[-1] != TASK_NAME or not log.eval.task_args.get("document"):
                continue
            ids = [str(s.id) for s in log.samples or []] or [str(i) for i in (log.eval.dataset.sample_ids or [])]
            print("\n" + where_the_review_is(log.location, ids, _pointer["folder"]), file=sys.stderr)
        _pointer["active"] = False
