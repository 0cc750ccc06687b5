"""`review-harness domain ...`: the domain digests from the command line.

    review-harness domain list
    review-harness domain show search-ranking [--hints "position bias,click model"] [--tokens 5000]
    review-harness domain refresh search-ranking --source knowledge/domain/pages/search-ranking
    review-harness domain refresh search-ranking --confluence https://wiki.example.com   # CONFLUENCE_USERNAME / CONFLUENCE_API_TOKEN, or CONFLUENCE_PERSONAL_TOKEN
    review-harness domain rollback search-ranking

`refresh` asks the `curator` model (`--model`, default $INSPECT_EVAL_MODEL or offline/rules).
"""

from __future__ import annotations

import sys
from datetime import datetime, timezone
from types import SimpleNamespace

import click

from review_harness.core.commands import one_line
from review_harness.domain.config import INDEX_ENV, INDEX_FILE, ROSTER_FILE
from review_harness.domain.skill import DEFAULT_BUDGET

TIERS = ("all", "workstream", "foundational")
WHO = "review-harness domain"


def _errors():
    """The domain's expected errors (loaded when a command runs)."""
    from review_harness.domain.config import DomainConfigError
    from review_harness.domain.digest import DigestError
    from review_harness.domain.sources import SourceError
    from review_harness.core.documents import DocumentError
    from review_harness.domain.versions import DigestStoreError

    return DomainConfigError, DigestStoreError, DigestError, SourceError, DocumentError


@click.group(epilog="Run `review-harness domain COMMAND --help` for its options and an example.")
@click.option("--index", default=str(INDEX_FILE), show_default=True, metavar="FILE", envvar=INDEX_ENV, show_envvar=True,
              help="The domain index (which domains exist, where their digests are).")
@click.option("--roster", default=str(ROSTER_FILE), show_default=True, metavar="FILE",
              help="The team roster (whose pages weigh more in a refresh).")
@click.pass_context
def domain(ctx: click.Context, index: str, roster: str) -> None:
    """Domain knowledge digests, the DS review's third dimension: list, show, refresh, roll back."""
    ctx.obj = SimpleNamespace(index=index, roster=roster)


def _run(ctx: click.Context, command, **options) -> int:
    with one_line(*_errors(), who=WHO):
        return command(SimpleNamespace(index=ctx.obj.index, roster=ctx.obj.roster, **options))


@domain.command("list", epilog="Example: review-harness domain list")
@click.pass_context
def list_command(ctx: click.Context) -> int:
    """Each domain with its current digest version, its age and its last refresh."""
    return _run(ctx, run_list)


@domain.command("show", epilog="Example: review-harness domain show search-ranking --hints 'position bias,click model'")
@click.argument("domain_names", metavar="DOMAIN")
@click.option("--hints", metavar="TOPICS", help="Topic hints, separated by commas: the sections to favour.")
@click.option("--tokens", type=click.IntRange(min=1), default=DEFAULT_BUDGET, show_default=True,
              help="Token budget per domain.")
@click.pass_context
def show_command(ctx: click.Context, domain_names: str, hints: str | None, tokens: int) -> int:
    """The context brief a domain reviewer would get.

    DOMAIN: a domain, or several separated by commas.
    """
    return _run(ctx, run_show, domain=domain_names, hints=hints, tokens=tokens)


@domain.command("refresh", epilog="\b\nExamples:\n"
                "  review-harness domain refresh search-ranking --source knowledge/domain/pages/search-ranking\n"
                "  review-harness domain refresh search-ranking --confluence https://wiki.example.com")
@click.argument("domain_name", metavar="DOMAIN")
@click.option("--source", metavar="FOLDER", help="A folder of markdown pages with front matter.")
@click.option("--confluence", metavar="URL",
              help="A Confluence site (credentials: CONFLUENCE_USERNAME and CONFLUENCE_API_TOKEN, or CONFLUENCE_PERSONAL_TOKEN).")
@click.option("--tier", type=click.Choice(TIERS), default="all", show_default=True, help="Which tier of pages to rebuild.")
@click.option("--model", metavar="MODEL",
              help="The curator model when the role is unbound. Default: $INSPECT_EVAL_MODEL, else offline/rules.")
@click.option("--tokens", type=click.IntRange(min=1), default=DEFAULT_BUDGET, show_default=True, help="Token budget of the digest.")
@click.option("--synthesis", type=click.Choice(("model", "extractive")), default="model", show_default=True,
              help="model: the curator drafts the digest (checked against the pages and budgets); "
                   "extractive: the pages' most knowledge-dense sentences, no model call.")
@click.pass_context
def refresh_command(ctx: click.Context, domain_name: str, source: str | None, confluence: str | None, tier: str,
                    model: str | None, tokens: int, synthesis: str) -> int:
    """Rebuild a domain's digest from its pages, as a new version (the old one stays for
    rollback). Exit code 1 when no new version was published.

    DOMAIN: the domain to refresh. Give its pages with --source or --confluence.
    """
    if bool(source) == bool(confluence):
        raise click.UsageError("give the pages with one of --source FOLDER or --confluence URL")
    return _run(ctx, run_refresh, domain=domain_name, source=source, confluence=confluence, tier=tier,
                model=model, tokens=tokens, synthesis=synthesis)


@domain.command("rollback", epilog="Example: review-harness domain rollback search-ranking")
@click.argument("domain_name", metavar="DOMAIN")
@click.pass_context
def rollback_command(ctx: click.Context, domain_name: str) -> int:
    """Make the digest version before the current one current again.

    DOMAIN: the domain whose digest is rolled back.
    """
    return _run(ctx, run_rollback, domain=domain_name)


def _now() -> datetime:
    return datetime.now(timezone.utc)


def run_list(args: SimpleNamespace) -> int:
    from review_harness.domain.config import load_index
    from review_harness.domain.versions import DigestStoreError, list_versions, load_current, read_status

    index = load_index(args.index)
    rows = [("domain", "kind", "current version", "age (days)", "versions", "last refresh")]
    for name, entry in index.domains.items():
        path = index.digest_path(name)
        try:
            served = load_current(path)
            version, age = served.digest.version, str((_now() - served.digest.version_time).days)
        except DigestStoreError:
            version, age = "-", "-"
        status = read_status(path)
        rows.append((name, "cross-domain" if entry.is_cross_domain else "domain", version, age,
                     str(len(list_versions(path))), status["status"] if status else "-"))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for n, row in enumerate(rows):
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())
        if n == 0:
            print("  ".join("-" * w for w in widths))
    return 0


def run_show(args: SimpleNamespace) -> int:
    from review_harness.domain.config import load_index
    from review_harness.domain.skill import get_domain_context

    index = load_index(args.index)
    hints = [h.strip() for h in args.hints.split(",")] if args.hints else None
    brief = get_domain_context(args.domain, hints, args.tokens, index=index)
    print(f"domains: {', '.join(brief.domains_included)}")
    print(f"version: {brief.version}")
    print(f"tokens: {brief.tokens} of {brief.budget}")
    for warning in brief.warnings:
        print(f"warning: {warning}")
    print()
    print(brief.content, end="")
    return 0


def source_for(args: SimpleNamespace):
    from review_harness.domain.sources import ConfluenceSource, FolderSource

    if args.source:
        return FolderSource(args.source)
    return ConfluenceSource(args.confluence)  # credentials from the environment, as for page input


def run_refresh(args: SimpleNamespace) -> int:
    import os

    import anyio

    from review_harness.domain.config import load_index, load_roster
    from review_harness.domain.importance import ask_curator, curator_model
    from review_harness.domain.refresh import refresh_domain

    index = load_index(args.index)
    index.entry(args.domain)
    roster = load_roster(args.roster)
    source = source_for(args)
    model = curator_model(args.model or os.environ.get("INSPECT_EVAL_MODEL") or "offline/rules")

    async def curator(page, context):
        return await ask_curator(args.domain, page, context, model)

    report = anyio.run(lambda: refresh_domain(
        args.domain, index, roster, source, curator, now=_now(), budget=args.tokens, tier=args.tier,
        synthesis_model=model if args.synthesis == "model" else None))
    for score in sorted(report.scores, key=lambda s: -s["final_importance"]):
        print(f"page {score['page']}: importance {score['final_importance']:.3f} "
              f"(budget {report.budgets.get(score['page'], 0)} tokens) - {score['rationale'] or score['problem']}")
    for candidate in report.candidates:
        print(f"candidate for inclusion: {candidate['id']} \"{candidate['title']}\" ({candidate['space']}, {candidate['updated']})")
    for item in report.review_items:
        print(f"conflict review: {item}")
    for warning in report.warnings:
        print(f"warning: {warning}")
    if report.published:
        print(f"{args.domain}: published version {report.version} ({report.tokens} tokens) at {report.digest_path}")
        return 0
    print(f"{args.domain}: no new version published; the current digest stays")
    return 1


def run_rollback(args: SimpleNamespace) -> int:
    from review_harness.domain.config import load_index
    from review_harness.domain.versions import rollback

    index = load_index(args.index)
    was, now = rollback(index.digest_path(args.domain), at=_now())
    print(f"{args.domain}: rolled back from {was or 'an unreadable current file'} to {now}")
    return 0


def main(argv: list[str] | None = None) -> int:  # for `python -m review_harness.domain.cli`
    from review_harness.cli import main as cli_main

    return cli_main(["domain", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
