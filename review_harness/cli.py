"""`review-harness`: read, show and gate the logs of review runs, and the commands of each kind
(design folders, code analytics, domain digests, impact checks).

The command line is click. Start-up imports nothing but click: each command imports what it
needs when it runs, and the kinds' command groups are loaded only when named, so
`review-harness --help` is quick. Bad input is one line on stderr and exit code 2; a closed
output pipe (`review-harness summary LOG | head`) ends the command quietly.
"""

from __future__ import annotations

import errno
import importlib
import os
import sys
from pathlib import Path
from typing import Any

import click

from review_harness.core.commands import PROG, CommandError, KindFileError, one_line, shown_path
from review_harness.core.paths import user_dir

DEFAULT_LOG_DIR = "logs"
EXIT_BAD_INPUT = 2
EXIT_CLOSED_PIPE = 1  # as click (and Python's own advice) exits when stdout's reader went away

# commands defined outside this module: name -> ("module:attribute", one line of help for the list)
LAZY_COMMANDS: dict[str, tuple[str, str]] = {
    "calibrate": ("review_harness.ds.cli:calibrate", "Fit the DS rubric's deductions and credits to the gold windows."),
    "design": ("review_harness.design.cli:design", "Design review folders: write them from a log, accept or reject findings."),
    "code": ("review_harness.code.cli:code", "Code reviews: analytics from logs, a human's approve or reject."),
    "domain": ("review_harness.domain.cli:domain", "Domain knowledge digests: list, show, refresh, roll back."),
    "offline-precision": ("review_harness.ds.offline.precision:offline_precision",
                          "Each offline DS and domain check's precision on gold-set runs, per split."),
    "impact": ("review_harness.impact.cli:impact", "Impact results: check an artifact, an initiative's confidence."),
}


class LazyGroup(click.Group):
    """A group whose commands from LAZY_COMMANDS are imported when named (the help list uses
    their one-line help without importing them)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted([*super().list_commands(ctx), *LAZY_COMMANDS])

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in LAZY_COMMANDS:
            module, _, attribute = LAZY_COMMANDS[name][0].partition(":")
            return getattr(importlib.import_module(module), attribute)
        return super().get_command(ctx, name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, LAZY_COMMANDS[name][1] if name in LAZY_COMMANDS else self.commands[name].get_short_help_str(80))
                for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


def default_log_dir() -> Path:
    """./logs of the folder the command runs in (never another folder's: a CI step judges the
    log its own run wrote); none there is one line naming the folder."""
    from review_harness.core.logs import LogError

    here = user_dir() / DEFAULT_LOG_DIR
    if not here.is_dir():
        raise LogError(f"no ./{DEFAULT_LOG_DIR} folder in {user_dir()}: name a log or a folder of logs "
                       f"(the --log-dir of the run), or run where its logs/ is")
    return here


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
             epilog="Run `review-harness COMMAND --help` for a command's options and an example.")
@click.version_option(package_name="review-harness", prog_name=PROG, message="%(prog)s %(version)s")
def cli() -> None:
    """Read, show and gate the logs of review runs (`inspect eval review_harness/<kind>_review`), and
    manage what each kind keeps outside its logs."""


LOG_HELP = "An .eval log, or a folder (its newest log)."


def chosen_log(log: str | None, kind_name: str | None) -> Path:
    """The log a command reads: LOG (a file, or a folder's newest log; default ./logs), the
    newest of a kind with `--kind`."""
    from review_harness.core.logs import log_to_read

    return log_to_read(Path(log) if log else default_log_dir(), kind_name)


@cli.command(epilog="\b\nExamples:\n  review-harness summary\n  review-harness summary logs/ci/ds_review")
@click.argument("log", metavar="[LOG]", required=False, type=click.Path())
@click.option("--kind", "kind_name", metavar="KIND",
              help="Only logs of this review kind (ds, design, code, impact): the newest of them in the folder.")
def summary(log: str | None, kind_name: str | None) -> int:
    """One line per review in a log: verdict, score, findings (the columns of its kind).

    LOG: an .eval log, or a folder (its newest log). Default: the newest log in ./logs of the
    current folder. It says which log it read. Exit code 1 when the run did not succeed.
    """
    from review_harness.core.kinds import KindError
    from review_harness.core.logs import LogError, read_log, summary_table

    with one_line(LogError, KindError):
        path = chosen_log(log, kind_name)
        run = read_log(path)
        table = summary_table(run)
    click.echo(f"log: {shown_path(path)}")
    click.echo(table)
    return 0 if run.status == "success" else 1


@cli.command(epilog="\b\nExamples:\n  review-harness verdict --fail-on major-rework\n"
                    "  review-harness verdict logs/ --fail-on escalate --fail-on no-verdict\n"
                    "  review-harness verdict logs/ci/ds_review          (a gold run: which cases missed)")
@click.argument("log", metavar="[LOG]", required=False, type=click.Path())
@click.option("--fail-on", "fail_on", metavar="CONDITION", multiple=True,
              help="Exit 1 when a review meets it: a verdict of the kind, which fails on that verdict and every "
                   "stricter one (ds: good-to-go < minor-fix < major-rework; design: proceed < revise < escalate; "
                   "code: auto-approve < human-decides < auto-reject-to-the-implementer; impact: usable < caution "
                   "< unreviewed < unusable), not-passed, no-verdict, or missed (a gold run's case that missed its "
                   "gold verdict or a must-catch finding). Repeat it or separate by commas. Default: missed for a "
                   "gold run, none for your own documents.")
@click.option("--kind", "kind_name", metavar="KIND",
              help="Only logs of this review kind (ds, design, code, impact): the newest of them in the folder.")
def verdict(log: str | None, fail_on: tuple[str, ...], kind_name: str | None) -> int:
    """A CI step's verdict: pass or fail per reviewed document, exit code 1 when one fails.

    LOG: an .eval log, or a folder (its newest log). Default: the newest log in ./logs of the
    current folder. A document that could not be reviewed, or a run that did not finish, fails
    whatever the conditions. Exit codes: 0 pass, 1 fail, 2 bad input.
    """
    from review_harness.core.kinds import KindError
    from review_harness.core.logs import LogError, read_log
    from review_harness.core.verdicts import verdict_report

    with one_line(LogError, KindError):
        path = chosen_log(log, kind_name)
        report = verdict_report(read_log(path), list(fail_on))
    click.echo(f"log: {shown_path(path)}")
    click.echo(report.table())
    click.echo(report.last_line())
    return 0 if report.passed else 1


@cli.command(epilog="\b\nExamples:\n  review-harness show\n  review-harness show logs/ --kind design --sample billing-export\n"
                    "  review-harness show LOG --raw > review.md")
@click.argument("log", metavar="[LOG]", required=False, type=click.Path())
@click.option("--sample", "sample_id", metavar="ID", help="The document (sample id) to show. Default: the log's first.")
@click.option("--epoch", type=click.IntRange(min=1), help="Which run of the document, with --epochs N. Default: 1.")
@click.option("--kind", "kind_name", metavar="KIND",
              help="Only logs of this review kind (ds, design, code, impact): the newest of them in the folder.")
@click.option("--raw", is_flag=True, help="Print the markdown as it is, not rendered for the terminal.")
@click.option("--details", is_flag=True, help="Add the scoring internals (deductions, credits, points per finding).")
def show(log: str | None, sample_id: str | None, epoch: int | None, kind_name: str | None, raw: bool,
         details: bool) -> int:
    """Print one review from a log: rendered in a terminal, plain markdown otherwise.

    LOG: an .eval log, or a folder (its newest log). Default: the newest log in ./logs of the
    current folder. It says which log and document it shows.
    """
    from review_harness.core.kinds import KindError
    from review_harness.core.logs import LogError
    from review_harness.core.show import show_review

    with one_line(LogError, KindError):
        show_review(Path(log) if log else default_log_dir(), sample_id, epoch, kind_name, raw=raw, details=details)
    return 0


@cli.command(epilog="\b\nExamples:\n  review-harness gate logs/ci/ds_review\n"
                    "  review-harness gate --write-baseline logs/ci/ds_review   (after an intended change)")
@click.argument("log", metavar="[LOG]", required=False, type=click.Path())
@click.option("--baseline", type=click.Path(), metavar="FILE",
              help="The baseline to compare with. Default: logs/baselines/<task>.json of the log's kind.")
@click.option("--config", type=click.Path(), metavar="FILE",
              help="The tolerances. Default: <baseline>.gate.yaml beside the baseline, else its folder's gate.yaml.")
@click.option("--write-baseline", metavar="LOG", type=click.Path(),
              help="Instead of checking: write the baseline from this log (a gold-set run). It says what it replaced.")
@click.option("--allow-fewer-samples", is_flag=True,
              help="With --write-baseline: replace a baseline with one of fewer samples (e.g. from a --limit run).")
@click.option("--allow-task-change", is_flag=True,
              help="With --write-baseline: replace a baseline of another task.")
@click.option("--allow-degraded", is_flag=True,
              help="With --write-baseline: record a run with failed samples or deferred reviews, or one the "
                   "current baseline's gate would fail.")
def gate(log: str | None, baseline: str | None, config: str | None, write_baseline: str | None,
         allow_fewer_samples: bool, allow_task_change: bool, allow_degraded: bool) -> int:
    """Fail (exit 1) when a gold-set run got worse than its kind's committed baseline.

    LOG: the new .eval log, or a folder (its newest log). A log without gold comparison, of
    another task than the baseline's, or sharing no sample with it is bad input (exit 2).
    """
    from review_harness.core.gate import run_gate

    return run_gate(log, baseline, config, write_baseline, allow_fewer_samples=allow_fewer_samples,
                    allow_task_change=allow_task_change, allow_degraded=allow_degraded)


@cli.command("lint-prompts", epilog="Example: review-harness lint-prompts")
@click.option("--rubric", type=click.Path(), metavar="FILE", help="The DS rubric to check. Default: prompts/ds/rubric.yaml.")
@click.option("--update-hashes", is_flag=True,
              help="Accept the current stable prompt prefixes (after an intended prompt change).")
def lint_prompts(rubric: str | None, update_hashes: bool) -> int:
    """Check every kind's prompt templates: instructions present, stable prefixes unchanged."""
    from review_harness.core.kinds import kinds
    from review_harness.core.lint import lint_kinds

    with one_line(KindFileError):  # --rubric is the DS rubric: RubricError is a KindFileError
        report = lint_kinds(kinds(), {"rubric": rubric}, update_hashes=update_hashes)
    click.echo("\n".join(report.lines()))
    return 0 if report.passed else 1


PLANT_KINDS = ("ds", "design", "code", "impact")


def not_empty(*options: tuple[str, str | None]) -> None:
    """An option given with an empty value (`--operators ''`) is refused, never read as not given."""
    for name, value in options:
        if value is not None and not value.strip():
            raise CommandError(f"{name} '': an empty value; give one, or leave the option out")


@cli.command(epilog="\b\nExamples:\n  review-harness plant ds ../shared/real/ds --out planted/\n"
                    "  review-harness plant design fixtures/design --out planted/ --operators secret-in-plain-text\n"
                    "  review-harness plant code . --base main --head HEAD --spec SPEC.md --out planted/\n"
                    "  inspect eval review_harness/ds_review -T fixtures=planted/   (then: what the reviewers miss)")
@click.argument("kind", metavar="KIND")
@click.argument("inputs", metavar="INPUT...", nargs=-1, required=True)
@click.option("--out", required=True, metavar="DIR", help="The gold set to write (fixtures/KIND/ and gold/KIND/ in it).")
@click.option("--operators", metavar="NAMES", help="Comma-separated operator ids. Default: every operator of the kind.")
@click.option("--per-input", type=click.IntRange(min=1), metavar="N", help="At most N mutations per input (drawn by the seed).")
@click.option("--seed", type=int, default=0, show_default=True, help="The same seed plants the same set.")
@click.option("--split", type=click.Choice(["dev", "heldout"]), default="heldout", show_default=True,
              help="The split the planted gold files belong to.")
@click.option("--table", "tables", multiple=True, metavar="FILE", help="A team's own operator table, added to the kind's.")
@click.option("--reasons", is_flag=True, help="Also say why each operator that did not apply did not.")
@click.option("--base", metavar="REV", help="code, a git repository: the change's old revision.")
@click.option("--head", metavar="REV", help="code, a git repository: the change's new revision (default HEAD).")
@click.option("--spec", metavar="FILE", help="code, a git repository: the task spec.")
@click.option("--force", is_flag=True, help="Replace files already in --out that this run did not write.")
def plant(kind: str, inputs: tuple[str, ...], out: str, operators: str | None, per_input: int | None, seed: int,
          split: str, tables: tuple[str, ...], reasons: bool, base: str | None, head: str | None,
          spec: str | None, force: bool) -> int:
    """Plant known flaws in copies of real inputs and write a gold file for each (mutation testing
    for reviewers): recall per flaw on your own documents, without labelling them.

    KIND: ds, design, code or impact. INPUT: files or folders of the kind (a DS document, a
    design folder with design.md and requirements.md or a design document with a goals section,
    an impact results JSON, a code case folder or a git repository). Inputs are only read.
    """
    from review_harness.core.files import UnsafeName, folder_problem, replacing
    from review_harness.core.plant import PlantError, TableError, plant as plant_flaws
    from review_harness.core.plant.expr import ExpressionError

    if kind not in PLANT_KINDS:
        raise CommandError(f"plant: unknown kind '{kind}'; choose one of {', '.join(PLANT_KINDS)}")
    not_empty(("--out", out), ("--operators", operators), ("--base", base), ("--head", head), ("--spec", spec))
    problem = folder_problem(out)
    if problem:
        raise CommandError(f"--out {out}: {problem}")
    names = [n.strip() for n in operators.split(",")] if operators is not None else None
    if names is not None and not all(names):
        raise CommandError(f"--operators {operators}: an empty operator id; give ids separated by commas "
                           f"(review-harness plant {kind} INPUT --out DIR --reasons lists them)")
    with one_line(PlantError, TableError, ExpressionError, UnsafeName), replacing(force):
        report = plant_flaws(kind, inputs, out, operators=names, per_input=per_input, seed=seed, split=split,
                             tables=tables, options={"base": base, "head": head, "spec": spec})
    click.echo("\n".join(report.lines(reasons=reasons)))
    return 0 if report.written else 1


@cli.group(epilog="Run `review-harness gold COMMAND --help` for its options.")
def gold() -> None:
    """Your own gold sets: scaffold a hand-written gold file, check gold files, report what a run missed."""


@gold.command("new", epilog="Example: review-harness gold new ds analysis.md --out my-gold/")
@click.argument("kind", metavar="KIND")
@click.argument("given", metavar="INPUT")
@click.option("--out", metavar="DIR", help="The gold set to copy INPUT into (fixtures/KIND/ and gold/KIND/ in it). "
              "Default: the set INPUT is in (<set>/fixtures/KIND/).")
@click.option("--id", "case_id", metavar="ID", help="The case's name. Default: the input's name.")
@click.option("--base", metavar="REV", help="code, a git repository: the change's old revision.")
@click.option("--head", metavar="REV", help="code, a git repository: the change's new revision (default HEAD).")
@click.option("--spec", metavar="FILE", help="code, a git repository: the task spec.")
@click.option("--force", is_flag=True, help="Replace a file already in --out that this run did not write.")
def gold_new(kind: str, given: str, out: str | None, case_id: str | None, base: str | None, head: str | None,
             spec: str | None, force: bool) -> int:
    """Write a gold file for INPUT to fill in by hand (with --out, after copying INPUT into that set).

    KIND: ds, design, code or impact. Then fill in its TODOs and run `review-harness gold check`.
    """
    from review_harness.core.files import UnsafeName, replacing
    from review_harness.core.goldset import gold_new as scaffold_gold
    from review_harness.core.plant import PlantError, TableError

    if kind not in PLANT_KINDS:
        raise CommandError(f"gold new: unknown kind '{kind}'; choose one of {', '.join(PLANT_KINDS)}")
    not_empty(("--out", out), ("--id", case_id), ("--base", base), ("--head", head), ("--spec", spec))
    with one_line(PlantError, TableError, UnsafeName), replacing(force):
        fixture, gold_path = scaffold_gold(kind, given, out, case_id, {"base": base, "head": head, "spec": spec})
    where = out or gold_path.parent.parent.parent
    click.echo((f"copied {given} to {fixture}\n" if out else "") + f"wrote {gold_path}: fill in its TODOs, then run\n"
               f"  review-harness gold check {gold_path}\n  inspect eval review_harness/{kind}_review -T fixtures={where}")
    return 0


@gold.command("check", epilog="\b\nExamples:\n  review-harness gold check my-gold/\n"
                               "  review-harness gold check my-gold/gold/ds/analysis.yaml")
@click.argument("path", metavar="PATH")
@click.option("--kind", metavar="KIND", help="The kind of the gold files. Default: from their folder (gold/KIND/).")
def gold_check(path: str, kind: str | None) -> int:
    """Validate gold files: one line per problem (fields, evidence quotes that do not occur in the
    input, ids that repeat, placeholders left). Exit code 1 when there is any.

    PATH: a gold file, a gold/KIND/ folder, or a gold set (a folder holding gold/).
    """
    from review_harness.core.goldset import gold_check as check_gold
    from review_harness.core.kinds import KindError
    from review_harness.core.plant import PlantError

    with one_line(PlantError, KindError):
        problems, checked = check_gold(path, kind)
    for line in problems:
        click.echo(line)
    click.echo(f"{checked} gold file(s) checked: " + (f"{len(problems)} problem(s)" if problems else "no problems"))
    return 1 if problems else 0


@gold.command("report", epilog="Example: review-harness gold report logs/planted/")
@click.argument("logs", metavar="LOG...", nargs=-1, required=True)
def gold_report(logs: tuple[str, ...]) -> int:
    """What the reviewers miss: recall per planted flaw (operator), one column per model, from the
    logs of runs over planted gold sets.

    LOG: an .eval log, or a folder (every log in it of a planted set).
    """
    from review_harness.core.logs import LogError
    from review_harness.core.plant.report import PlantReportError, recall_report

    with one_line(LogError, PlantReportError):
        click.echo(recall_report(logs))
    return 0


def _quiet_closed_pipe() -> int:
    """stdout's reader went away (`| head`): stop writing and say nothing."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is no real file (a test's capture)
        pass
    return EXIT_CLOSED_PIPE


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code (0 done, 1 a check failed, 2 bad input)."""
    from review_harness.core.files import new_run  # stdlib only: start-up stays light

    new_run()
    try:
        result: Any = cli.main(args=argv, prog_name=PROG, standalone_mode=False)
    except click.exceptions.Exit as ex:  # --help, --version
        return ex.exit_code
    except SystemExit as ex:  # click's own exit when stdout's reader went away (`| head`)
        return ex.code if isinstance(ex.code, int) else EXIT_BAD_INPUT
    except click.UsageError as ex:  # one line: what is wrong and where the help is
        where = ex.ctx.command_path if ex.ctx is not None else PROG
        click.echo(f"{where}: {' '.join(ex.format_message().split()).rstrip('.')} (see {where} --help)", err=True)
        return ex.exit_code
    except click.ClickException as ex:
        click.echo(f"{PROG}: {ex.format_message()}", err=True)
        return ex.exit_code
    except (click.Abort, KeyboardInterrupt):  # Ctrl-C at any point: one line, the shell's code for it
        click.echo(f"{PROG}: interrupted", err=True)
        return 130
    except CommandError as ex:
        click.echo(f"{ex.who}: {ex}", err=True)
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        return _quiet_closed_pipe()
    except OSError as ex:
        if ex.errno == errno.EPIPE:
            return _quiet_closed_pipe()
        raise
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        return _quiet_closed_pipe()
    return result if isinstance(result, int) else 0


def __getattr__(name: str) -> Any:
    """Names older callers import from here, loaded when asked for (start-up stays light)."""
    if name in ("summary_table", "merge_columns", "reviews_in_log"):
        from review_harness.core import logs

        return getattr(logs, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


if __name__ == "__main__":
    sys.exit(main())
