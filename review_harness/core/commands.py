"""What every kind's `review-harness` commands share: one error for bad input (printed as one
line, exit code 2) and a command group with its own subcommands."""

from __future__ import annotations

import argparse


class CommandError(ValueError):
    """Bad input to a command; printed as one line."""


def command_group(
    subparsers: argparse._SubParsersAction, name: str, help: str
) -> tuple[argparse.ArgumentParser, argparse._SubParsersAction]:
    """`review-harness <name> <command> ...`: the group's parser and its subcommands (the chosen
    one is `args.<name>_command`)."""
    parser = subparsers.add_parser(name, help=help)
    return parser, parser.add_subparsers(dest=f"{name}_command", required=True)
