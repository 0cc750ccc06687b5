"""Prompt templates: one jinja2 environment per prompt folder, data delimiters, prefix hashes.

Every kind keeps its versioned templates under prompts/<kind>/; the system message is the
stable, cacheable prefix, the request carries the per-review payload with the documents last.
Templates held in data files (impact's YAML templates) compile through the same environment
(`compile_template`), so every prompt fails the same way: a `PromptError`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined, Template, TemplateError, TemplateSyntaxError

DOCUMENT_OPEN = "<document>"
DOCUMENT_CLOSE = "</document>"


class PromptError(ValueError):
    """A prompt template is missing or cannot be filled."""


def prefix_hash(system: str) -> str:
    """Hash of a stable prefix: when it changes, provider prompt caches go cold."""
    return hashlib.sha256(system.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class ReviewerPrompt:
    system: str
    request: str
    version: str

    @property
    def prefix_hash(self) -> str:
        return prefix_hash(self.system)


@lru_cache(maxsize=16)
def template_environment(prompts_dir: str) -> Environment:
    return Environment(
        loader=FileSystemLoader(prompts_dir),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,
    )


@lru_cache(maxsize=64)
def compile_template(source: str, prompts_dir: str) -> Template:
    """A template kept in a data file (not a file of its own) compiled by the environment of its
    prompt folder; a syntax error is a `PromptError` naming the line."""
    try:
        return template_environment(prompts_dir).from_string(source)
    except TemplateSyntaxError as ex:
        raise PromptError(f"template syntax error at line {ex.lineno}: {ex.message}") from None


def render_template(prompts_dir: Path, name: str, **values: object) -> str:
    """Fill one template of a kind's prompt folder; a missing template or value is a PromptError
    naming the file."""
    try:
        return template_environment(str(prompts_dir)).get_template(name).render(**values)
    except TemplateError as ex:
        raise PromptError(f"prompt template {prompts_dir / name} cannot be filled: {ex}") from None


def neutralize_blocks(content: str, tags: Iterable[str]) -> str:
    """`content` with every `<tag>` / `</tag>` of a prompt's data blocks neutralized, so an input
    cannot open or close any block of the request it is pasted into."""
    for tag in tags:
        content = neutralize_delimiters(content, f"<{tag}>", f"</{tag}>")
    return content


def neutralize_delimiters(content: str, open_tag: str = DOCUMENT_OPEN, close_tag: str = DOCUMENT_CLOSE) -> str:
    """A document must not be able to close its own data block."""
    return content.replace(close_tag, close_tag.replace("</", "</ ")).replace(
        open_tag, open_tag.replace("<", "< ", 1)
    )


def data_block(text: str, start: str, end: str) -> str | None:
    """The content of the last data block that opens on a line of its own (system prompts
    mention the tags in prose), or None when there is none."""
    opening = f"\n{start}\n"
    begin = text.rfind(opening)
    if begin < 0:
        return None
    begin += len(opening)
    finish = text.rfind(f"\n{end}")
    return text[begin : finish if finish >= begin else len(text)]
