"""Knowledge bases: methodology notes retrieved into the reviewer's system prompt.

``KnowledgeBase`` is the interface (``retrieve(query, top_k) -> list[Chunk]``);
``StaticKnowledgeBase`` reads the .md and .txt files of a folder, cuts them into one chunk per
heading and ranks chunks by keyword overlap with the query (a term in the heading counts twice).
Ranking is deterministic: score, then file name, then position in the file.

``KnowledgeRegistry`` maps the configuration's ``knowledge.type`` to a class, the seed's registry
idiom: built in are ``static`` and ``none``; a user's class registers with
``@KnowledgeRegistry.register("vector")`` or through the ``review_harness.impact.knowledge`` entry
point group (``vector = "my_pkg.kb:VectorKnowledgeBase"``), without editing the package.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from review_harness.core.text import STOPWORDS
from review_harness.core.files import FileReadError, input_folder_problem, read_text
from review_harness.impact.config import IMPACT_DIR, default_settings

# letters and digits only: 'a/b' and 'difference-in-differences' are looked up word by word
WORD = re.compile(r"[a-z0-9]+")
# the order of the pre and post periods is what an impact review is about: these words rank notes
PERIOD_WORDS = frozenset({"before", "after", "during"})
IMPACT_STOPWORDS = STOPWORDS - PERIOD_WORDS
HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")


class KnowledgeError(ValueError):
    """A knowledge folder that cannot be read."""


def terms(text: str) -> set[str]:
    """Lower-case words without stopwords, plural 's' dropped (so 'tests' meets 'test')."""
    out = set()
    for word in WORD.findall(text.lower()):
        if word in IMPACT_STOPWORDS:
            continue
        if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        out.add(word)
    return out


@dataclass(frozen=True)
class Chunk:
    source: str
    heading: str
    text: str
    position: int = 0
    score: float = 0.0


class KnowledgeBase(ABC):
    @abstractmethod
    def retrieve(self, query: str, top_k: int = 5) -> list[Chunk]:
        """The top_k chunks most relevant to the query, best first."""

    @classmethod
    def from_config(cls, path: Path | None, options: Mapping[str, Any]) -> KnowledgeBase:
        """The knowledge base a configuration describes (`knowledge.path`, `knowledge.options`)."""
        return cls(path, **options) if path is not None else cls(**options)  # type: ignore[call-arg]


class KnowledgeRegistry:
    """knowledge.type -> KnowledgeBase class (decorator or entry point)."""

    ENTRY_POINTS = "review_harness.impact.knowledge"
    _types: dict[str, type[KnowledgeBase]] = {}

    @classmethod
    def register(cls, name: str) -> Callable[[type[KnowledgeBase]], type[KnowledgeBase]]:
        def add(kb: type[KnowledgeBase]) -> type[KnowledgeBase]:
            if not (isinstance(kb, type) and issubclass(kb, KnowledgeBase)):
                raise KnowledgeError(f"knowledge type {name!r}: {kb!r} is not a KnowledgeBase class")
            cls._types[name] = kb
            return kb

        return add

    @classmethod
    def _from_entry_points(cls, name: str) -> type[KnowledgeBase] | None:
        from importlib.metadata import entry_points

        for point in entry_points(group=cls.ENTRY_POINTS):
            if point.name == name:
                try:
                    loaded = point.load()
                except (ImportError, AttributeError) as ex:
                    raise KnowledgeError(f"knowledge type {name!r}: entry point {point.value} cannot be loaded ({ex})") from None
                return cls.register(name)(loaded)
        return None

    @classmethod
    def get(cls, name: str) -> type[KnowledgeBase]:
        found = cls._types.get(name) or cls._from_entry_points(name)
        if found is None:
            raise KnowledgeError(f"knowledge type {name!r} is not registered; known: {', '.join(cls.names())}")
        return found

    @classmethod
    def names(cls) -> list[str]:
        from importlib.metadata import entry_points

        return sorted({*cls._types, *(p.name for p in entry_points(group=cls.ENTRY_POINTS))})

    @classmethod
    def create(cls, name: str, path: Path | None = None, options: Mapping[str, Any] | None = None) -> KnowledgeBase:
        kb = cls.get(name)
        try:
            return kb.from_config(path, dict(options or {}))
        except TypeError as ex:
            raise KnowledgeError(f"knowledge type {name!r}: {ex}") from None


@KnowledgeRegistry.register("none")
class EmptyKnowledgeBase(KnowledgeBase):
    def __init__(self, path: Path | None = None):
        self.path = path

    def retrieve(self, query: str, top_k: int = 5) -> list[Chunk]:
        return []


def split_chunks(source: str, text: str) -> list[Chunk]:
    """One chunk per heading; text before the first heading is a chunk titled by the file."""
    chunks: list[Chunk] = []
    heading, body = Path(source).stem.replace("_", " "), []

    def flush() -> None:
        content = "\n".join(body).strip()
        if content:
            chunks.append(Chunk(source=source, heading=heading, text=content, position=len(chunks)))

    for line in text.splitlines():
        match = HEADING.match(line)
        if match:
            flush()
            heading, body = match.group(2), []
        else:
            body.append(line)
    flush()
    return chunks


@KnowledgeRegistry.register("static")
class StaticKnowledgeBase(KnowledgeBase):
    def __init__(self, path: str | Path | None = None):
        self.path = Path(path) if path is not None else default_knowledge_dir()
        if input_folder_problem(self.path, "knowledge folder"):
            raise KnowledgeError(f"{self.path}: {input_folder_problem(self.path, 'knowledge folder')}")
        files = sorted(p for p in self.path.rglob("*") if p.suffix in (".md", ".txt") and p.is_file())
        if not files:
            raise KnowledgeError(f"{self.path}: knowledge folder has no .md or .txt files")
        self.chunks: list[Chunk] = []
        for file in files:
            try:
                text = read_text(file)  # the core's one reader
            except FileReadError as ex:
                raise KnowledgeError(str(ex)) from None
            self.chunks += split_chunks(file.relative_to(self.path).as_posix(), text)
        self._terms = [(terms(c.heading), terms(c.text)) for c in self.chunks]

    def retrieve(self, query: str, top_k: int = 5) -> list[Chunk]:
        if top_k < 1:
            raise KnowledgeError(f"top_k must be at least 1, got {top_k}")
        wanted = terms(query)
        scored = []
        for chunk, (head, body) in zip(self.chunks, self._terms):
            score = 2 * len(wanted & head) + len(wanted & (body - head))
            if score:
                scored.append((score, chunk))
        scored.sort(key=lambda t: (-t[0], t[1].source, t[1].position))
        return [Chunk(c.source, c.heading, c.text, c.position, float(s)) for s, c in scored[:top_k]]


def default_knowledge_dir() -> Path:
    return IMPACT_DIR / default_settings().knowledge_dir


def knowledge_context(chunks: list[Chunk]) -> str:
    """The chunks as the prompt's knowledge_context (empty string without any)."""
    return "\n\n".join(f"### {c.heading} ({c.source})\n{c.text}" for c in chunks)
