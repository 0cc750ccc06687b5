"""`review-harness code ...`: analytics rebuilt from eval logs, and human overrides.

    review-harness code analytics LOGS... [--overrides FILE] [--output FILE] [--html FILE]
    review-harness code override LOG --sample ID --decision approve|reject [--memory-dir DIR] [--overrides FILE]

Analytics are written to the log folder unless told otherwise, never into the repository.
"""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

from review_harness.core.commands import CommandError, one_line, text_file, writable_file

if TYPE_CHECKING:
    from review_harness.code.models import CodeReview

DEFAULT_OVERRIDES = Path(".claude") / "review-overrides.jsonl"
DEFAULT_MEMORY = Path(".claude") / "agent-memory"
ANALYTICS_FILE = "review-analytics.json"


@click.group(epilog="Run `review-harness code COMMAND --help` for its options and an example.")
def code() -> None:
    """Code reviews: analytics rebuilt from logs, and a human's approve or reject of a review."""


@code.command(epilog="\b\nExamples:\n  review-harness code analytics logs/\n"
                     "  review-harness code analytics logs/ --output out/review-analytics.json --html out/analytics.html")
@click.argument("logs", metavar="LOG...", nargs=-1, required=True, type=click.Path())
@click.option("--overrides", default=str(DEFAULT_OVERRIDES), show_default=True, metavar="FILE",
              help="The humans' overrides to count in (read only).")
@click.option("--output", metavar="FILE", type=click.Path(),
              help=f"Where the analytics JSON goes. Default: {ANALYTICS_FILE} in the (first) log's folder.")
@click.option("--html", metavar="FILE", type=click.Path(), help="Also write a one-page report with plots here.")
def analytics(logs: tuple[str, ...], overrides: str, output: str | None, html: str | None) -> int:
    """Rebuild the review analytics (decisions, fix iterations, each model's accuracy, tuning
    hints) from code review logs, and print their summary.

    LOG...: .eval logs of the code review, or folders of them.
    """
    from review_harness.core.logs import LogError

    paths = _log_paths(list(logs))
    if Path(overrides).exists():
        text_file("--overrides", overrides)
    target = writable_file("--output", output or paths[0].parent / ANALYTICS_FILE)
    page = writable_file("--html", html) if html else None
    with one_line(LogError):
        return run_analytics(paths, Path(overrides), target, page)


@code.command(epilog="Example: review-harness code override logs/ --sample task-3 --decision approve --note 'logged and re-raised'")
@click.argument("log", metavar="LOG", type=click.Path())
@click.option("--sample", required=True, metavar="ID", help="The reviewed task (sample id), e.g. task-3.")
@click.option("--decision", required=True, type=click.Choice(("approve", "reject")),
              help="approve: the findings were wrong (kept as false positives); reject: they were right.")
@click.option("--note", default="", help="Why: stored with the false positives on approve.")
@click.option("--memory-dir", default=str(DEFAULT_MEMORY), show_default=True, metavar="DIR",
              help="The reviewers' memory to update.")
@click.option("--overrides", default=str(DEFAULT_OVERRIDES), show_default=True, metavar="FILE",
              help="The overrides file the decision is added to (analytics reads it).")
def override(log: str, sample: str, decision: str, note: str, memory_dir: str, overrides: str) -> int:
    """Record a human's approve or reject of a review, in the reviewers' memory and in the
    overrides that analytics reads.

    LOG: the .eval log holding the review, or a folder (its newest log).
    """
    from review_harness.core.logs import LogError, newest_log

    with one_line(LogError):
        return run_override(str(newest_log(log)), sample, decision, note, Path(memory_dir), Path(overrides))


def _log_paths(items: list[str]) -> list[Path]:
    paths: list[Path] = []
    for item in items:
        path = Path(item)
        if path.is_dir():
            found = sorted(path.glob("*.eval"))
            if not found:
                raise CommandError(f"{path}: folder has no .eval logs")
            paths += found
        elif path.exists():
            paths.append(path)
        else:
            raise CommandError(f"{path}: no such log file or folder")
    return paths


def read_overrides(path: Path) -> list[dict]:
    if not path.exists():
        return []
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            raise CommandError(f"{path}: line {n} is not JSON") from None
    return out


def run_analytics(paths: list[Path], overrides: Path, output: Path, html: Path | None) -> int:
    from review_harness.code.analytics import build_analytics, render_html
    from review_harness.core.logs import read_log

    logs = [read_log(p) for p in paths]
    analytics = build_analytics(logs, read_overrides(overrides))
    if not analytics["reviews"]:
        raise CommandError("no code reviews in these logs")
    output.write_text(json.dumps(analytics, indent=2), encoding="utf-8")
    print(f"wrote {output}: {len(analytics['reviews'])} entries")
    if html:
        html.write_text(render_html(analytics), encoding="utf-8")
        print(f"wrote {html}")
    summary = analytics["summary"]
    print(f"reviews {summary['total_reviews']} ({summary['tasks']} tasks): auto-approved {summary['auto_approved']}, "
          f"auto-rejected {summary['auto_rejected']}, human {summary['human_decided']}; "
          f"avg fix iterations {summary['avg_fix_iterations']:g}")
    for model, c in summary["model_accuracy"].items():
        print(f"  {model}: true positives {c['true_positive']}, false positives {c['false_positive']}, missed {c['missed']}")
    for hint in summary["tuning_hints"]:
        print(f"  hint: {hint}")
    return 0


def run_override(log: str, sample: str, decision: str, note: str, root: Path, overrides: Path,
                 today=datetime.date.today) -> int:
    from review_harness.code.memory import pattern_of, update_service
    from review_harness.code.merge import counted_stages
    from review_harness.core.logs import read_log, reviews_in_log

    found = [review for sample_id, _, review in reviews_in_log(read_log(log), expected_kind="code")
             if sample_id == sample]
    if not found:
        raise CommandError(f"{log}: no code review for sample {sample!r}")
    review = found[-1]
    first = review.first
    touched = []
    for stage in counted_stages(first.spec, first.quality):
        blocking = [m for m in stage.findings if m.finding.blocking or decision == "reject"]
        if not blocking:
            continue
        if decision == "approve":
            why = note or f"the lead approved task {review.task} despite it"
            update_service(root, stage.stage, review.service, today=today,
                           false_positives=[(pattern_of(m.finding.description), why) for m in blocking])
        else:
            update_service(root, stage.stage, review.service, today=today,
                           findings=[(pattern_of(m.finding.description), m.finding.severity.value, m.finding.where) for m in blocking])
        touched.append(stage.stage)
    record = {"date": today().isoformat(), "log": str(log), "sample": sample, "task": review.task,
              "service": review.service, "auto_decision": first.decision, "decision": decision, "note": note}
    path = overrides
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(record) + "\n")
    print(f"recorded {decision} of task {review.task} ({review.service}): memory "
          f"{', '.join(touched) or 'unchanged'}; overrides in {path}")
    return 0


def summary_row(review: CodeReview) -> dict[str, str]:
    """The columns of `review-harness summary` for one code review (its first round)."""
    row = {"decision": "-", "confidence": "-", "spec": "-", "quality": "-", "status": review.final_status,
           "fixes": str(review.fix_iterations), "degraded": "-"}
    if not review.iterations:
        return row
    first = review.first
    quality = "discarded" if first.quality and first.quality.discarded else (first.quality.verdict if first.quality else "-")
    return {**row, "decision": first.decision, "confidence": f"{first.confidence.value:g}", "spec": first.spec.verdict,
            "quality": quality, "degraded": str(len(first.degraded))}
