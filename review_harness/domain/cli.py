"""`review-harness domain ...`: the domain digests from the command line.

    review-harness domain list
    review-harness domain show search-ranking [--hints "position bias,click model"] [--tokens 5000]
    review-harness domain refresh search-ranking --source knowledge/domain/pages/search-ranking
    review-harness domain refresh search-ranking --confluence https://wiki.example.com   # CONFLUENCE_USERNAME / CONFLUENCE_API_TOKEN, or CONFLUENCE_PERSONAL_TOKEN
    review-harness domain rollback search-ranking

`refresh` asks the `curator` model (`--model`, default $INSPECT_EVAL_MODEL or offline/rules).
"""

from __future__ import annotations

import argparse
import os
import sys
from datetime import datetime, timezone

import anyio

from review_harness.core.commands import command_group
from review_harness.domain.config import INDEX_FILE, ROSTER_FILE, DomainConfigError, load_index, load_roster
from review_harness.domain.digest import DigestError
from review_harness.domain.importance import ask_curator, curator_model
from review_harness.domain.refresh import refresh_domain
from review_harness.domain.skill import DEFAULT_BUDGET, get_domain_context
from review_harness.domain.sources import ConfluenceSource, FolderSource, SourceError
from review_harness.domain.versions import DigestStoreError, list_versions, load_current, read_status, rollback

TIERS = ("all", "workstream", "foundational")


def add_domain_commands(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    domain, sub = command_group(subparsers, "domain", "domain knowledge digests: list, show, refresh, rollback")
    domain.add_argument("--index", default=str(INDEX_FILE), help="domain-index.yaml (default: %(default)s)")
    domain.add_argument("--roster", default=str(ROSTER_FILE), help="team-roster.yaml (default: %(default)s)")
    sub.add_parser("list", help="each domain with its current digest version, age and last refresh")
    show = sub.add_parser("show", help="the context brief a reviewer would get for a domain")
    show.add_argument("domain", help="a domain, or several separated by commas")
    show.add_argument("--hints", help="topic hints, separated by commas")
    show.add_argument("--tokens", type=int, default=DEFAULT_BUDGET, help="budget per domain (default: %(default)s)")
    refresh = sub.add_parser("refresh", help="rebuild a domain's digest from its pages (a new version)")
    refresh.add_argument("domain")
    where = refresh.add_mutually_exclusive_group(required=True)
    where.add_argument("--source", metavar="FOLDER", help="a folder of markdown pages with front matter")
    where.add_argument("--confluence", metavar="URL",
                       help="Confluence base URL (credentials from CONFLUENCE_USERNAME / CONFLUENCE_API_TOKEN, or CONFLUENCE_PERSONAL_TOKEN)")
    refresh.add_argument("--tier", choices=TIERS, default="all", help="which tier to rebuild (default: %(default)s)")
    refresh.add_argument("--model", help="curator model when the role is unbound (default: $INSPECT_EVAL_MODEL or offline/rules)")
    refresh.add_argument("--tokens", type=int, default=DEFAULT_BUDGET, help="budget (default: %(default)s)")
    refresh.add_argument("--synthesis", choices=("model", "extractive"), default="model",
                         help="model: the curator drafts the digest (checked against pages and budgets); "
                              "extractive: the pages' most knowledge-dense sentences, no model call (default: %(default)s)")
    back = sub.add_parser("rollback", help="make the version before the current one current again")
    back.add_argument("domain")
    return domain


def _now() -> datetime:
    return datetime.now(timezone.utc)


def run_list(args: argparse.Namespace) -> int:
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


def run_show(args: argparse.Namespace) -> int:
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


def source_for(args: argparse.Namespace):
    if args.source:
        return FolderSource(args.source)
    return ConfluenceSource(args.confluence)  # credentials from the environment, as for page input


def run_refresh(args: argparse.Namespace) -> int:
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


def run_rollback(args: argparse.Namespace) -> int:
    index = load_index(args.index)
    was, now = rollback(index.digest_path(args.domain), at=_now())
    print(f"{args.domain}: rolled back from {was or 'an unreadable current file'} to {now}")
    return 0


COMMANDS = {"list": run_list, "show": run_show, "refresh": run_refresh, "rollback": run_rollback}


def run_domain(args: argparse.Namespace) -> int:
    """Dispatch; bad input is one line on stderr and exit code 2."""
    try:
        return COMMANDS[args.domain_command](args)
    except (DomainConfigError, DigestStoreError, DigestError, SourceError) as ex:
        print(f"review-harness domain: {ex}", file=sys.stderr)
        return 2


def main(argv: list[str] | None = None) -> int:  # for `python -m review_harness.domain.cli`
    parser = argparse.ArgumentParser(prog="review-harness")
    add_domain_commands(parser.add_subparsers(dest="command", required=True))
    return run_domain(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
