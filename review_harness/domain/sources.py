"""Where the refresh pipeline reads pages: a `PageSource` gives pages by id and discovers pages
changed since a date in some spaces OR with some labels.

Two sources: `ConfluenceSource` (Confluence REST through atlassian-python-api) and
`FolderSource` (a folder of markdown pages with YAML front matter, for offline use and tests):

    ---
    id: "12347"
    title: Known Pitfalls & Gotchas
    space: SEARCH-RANKING
    author: jchen
    updated: 2026-11-10
    labels: [ranking-standards]
    comments: 4            # optional
    incoming-links: 12     # optional; otherwise counted from links between the fetched pages
    restricted: true       # optional: the page exists but the refresh may not read it (hidden)
    external-url: https://...  # optional: a saved copy of an external reference of the index
    ---
    page body in markdown
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Protocol

import frontmatter
import yaml
from pydantic import BaseModel, ValidationError

from review_harness.core.documents.confluence import without_credentials  # the one URL check (redacts, then refuses)
from review_harness.core.documents.confluence import confluence_client
from review_harness.core.documents.model import require
from review_harness.core.yamlio import first_error


class SourceError(ValueError):
    """A page source that cannot be read (unreachable, refused, malformed page): one line."""


class PageHidden(SourceError):
    """A page the source has but will not show (restricted, no permission): counted as hidden."""


class Page(BaseModel):
    id: str
    title: str
    space: str = ""
    author: str | None = None
    updated: dt.datetime
    labels: list[str] = []
    body: str
    comment_count: int = 0
    incoming_links: int | None = None
    url: str | None = None


class PageSource(Protocol):
    name: str

    def get_page(self, page_id: str) -> Page | None:
        """The page; None when the source has no such page; PageHidden when it may not be read;
        SourceError when reading it failed."""

    def discover(self, spaces: list[str], labels: list[str], since: dt.datetime) -> list[Page]: ...

    def get_reference(self, url: str) -> Page | None:
        """A copy of an external reference (a web page the index names), or None when this source
        cannot fetch it."""


def _aware(moment: dt.datetime | dt.date) -> dt.datetime:
    if not isinstance(moment, dt.datetime):
        moment = dt.datetime(moment.year, moment.month, moment.day)
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.timezone.utc)


def matches_discovery(page: Page, spaces: list[str], labels: list[str], since: dt.datetime) -> bool:
    return _aware(page.updated) >= since and (page.space in spaces or bool(set(page.labels) & set(labels)))


class FolderSource:
    """Markdown pages with front matter, one per file (any depth under the folder)."""

    def __init__(self, folder: str | Path):
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise SourceError(f"page folder {self.folder}: not a folder")
        self.name = f"folder {self.folder}"
        self._pages: dict[str, Page] | None = None

    def _load(self) -> dict[str, Page]:
        if self._pages is None:
            pages: dict[str, Page] = {}
            self._hidden: set[str] = set()
            self._references: dict[str, Page] = {}
            for path in sorted(self.folder.rglob("*.md")):
                page, meta = self._read(path)
                if page.id in pages:
                    raise SourceError(f"{path}: page id {page.id} is also used by another page")
                pages[page.id] = page
                if meta.get("restricted"):
                    self._hidden.add(page.id)
                if meta.get("external-url"):
                    self._references[str(meta["external-url"])] = page
            self._pages = pages
        return self._pages

    def _restricted(self) -> set[str]:
        self._load()
        return self._hidden

    @staticmethod
    def _read(path: Path) -> tuple[Page, dict]:
        try:
            post = frontmatter.load(path)
        except (yaml.YAMLError, ValueError, OSError) as ex:  # bad YAML, bad encoding, unreadable file
            raise SourceError(f"{path}: front matter unreadable ({type(ex).__name__}: {ex})") from None
        meta = dict(post.metadata)
        if not meta:
            raise SourceError(f"{path}: no front matter (needs id, title, updated)")
        fields = {
            "id": str(meta.get("id", "")) or None, "title": meta.get("title"), "space": meta.get("space", ""),
            "author": meta.get("author"), "updated": meta.get("updated"), "labels": meta.get("labels") or [],
            "body": post.content, "comment_count": meta.get("comments", 0),
            "incoming_links": meta.get("incoming-links"), "url": str(path),
        }
        try:
            page = Page.model_validate(fields)
        except ValidationError as ex:
            where, message, _ = first_error(ex)
            raise SourceError(f"{path}: front matter {where}: {message}") from None
        page.updated = _aware(page.updated)
        return page, meta

    def get_page(self, page_id: str) -> Page | None:
        if page_id in self._restricted():
            raise PageHidden(f"{self.name}: page {page_id} is restricted")
        return self._load().get(page_id)

    def discover(self, spaces: list[str], labels: list[str], since: dt.datetime) -> list[Page]:
        hidden = self._restricted()
        return [p for p in self._load().values() if p.id not in hidden and matches_discovery(p, spaces, labels, since)]

    def get_reference(self, url: str) -> Page | None:
        self._load()
        return self._references.get(url)


PAGE_EXPAND = "body.storage,version,space,metadata.labels,children.comment,history"


class ConfluenceSource:
    """Confluence (Server/Data Center REST v1 or Cloud) through atlassian-python-api. Discovery
    is one CQL query: (space in (...) OR label in (...)) AND lastmodified >= since."""

    def __init__(self, url: str, username: str | None = None, token: str | None = None, *,
                 cloud: bool | None = None, client=None, page_size: int = 25, timeout: float = 30):
        without_credentials(url)  # a password in the URL never reaches output, logs or the refresh record
        self.name = f"Confluence {url}"
        self.page_size = page_size
        self.client = client or confluence_client(
            url, username, token, advanced_mode=False, cloud=cloud, timeout=timeout
        )

    def _call(self, what: str, fn, *args, **kwargs):
        import requests  # with atlassian-python-api (the documents extra)
        from atlassian.errors import ApiError

        try:
            return fn(*args, **kwargs)
        except requests.RequestException as ex:
            status = getattr(getattr(ex, "response", None), "status_code", None)
            detail = f"HTTP {status}" if status else type(ex).__name__
            raise SourceError(f"{self.name}: {what} failed ({detail})") from None
        except (ApiError, ValueError) as ex:  # the client's errors, JSON decoding errors
            raise SourceError(f"{self.name}: {what} failed ({type(ex).__name__}: {ex})") from None

    def get_page(self, page_id: str) -> Page | None:
        """The page; None when Confluence says there is no such page; PageHidden when it refuses
        to show it (401, 403: restricted or no permission)."""
        try:
            data = self._call(f"page {page_id}", self.client.get_page_by_id, page_id, expand=PAGE_EXPAND)
        except SourceError as ex:
            if "HTTP 404" in str(ex) or "no content with the given id" in str(ex):
                return None
            if "HTTP 401" in str(ex) or "HTTP 403" in str(ex):
                raise PageHidden(str(ex)) from None
            raise
        return page_from_content(data)

    def get_reference(self, url: str) -> Page | None:
        return None  # external references are web pages, not Confluence content

    @staticmethod
    def discovery_cql(spaces: list[str], labels: list[str], since: dt.datetime) -> str:
        quoted = lambda values: ", ".join(f'"{v}"' for v in values)  # noqa: E731
        scope = []
        if spaces:
            scope.append(f"space in ({quoted(spaces)})")
        if labels:
            scope.append(f"label in ({quoted(labels)})")
        return f'type = page AND ({" OR ".join(scope)}) AND lastmodified >= "{since.strftime("%Y-%m-%d")}"'

    def discover(self, spaces: list[str], labels: list[str], since: dt.datetime) -> list[Page]:
        cql = self.discovery_cql(spaces, labels, since)
        expand = ",".join(f"content.{part}" for part in PAGE_EXPAND.split(","))
        pages: dict[str, Page] = {}
        start = 0
        while True:
            data = self._call("discovery search", self.client.cql, cql, start=start, limit=self.page_size, expand=expand)
            results = data.get("results", []) if isinstance(data, dict) else []
            for item in results:
                content = item.get("content") or item
                if content.get("type", "page") != "page":
                    continue
                page = page_from_content(content)
                if matches_discovery(page, spaces, labels, since):
                    pages[page.id] = page
            if len(results) < self.page_size:
                break
            start += len(results)
        return list(pages.values())


def _html_to_markdown(html: str) -> str:
    markdownify = require("markdownify", "Reading Confluence pages")
    text = markdownify.markdownify(html, heading_style="ATX", bullets="-")
    return re.sub(r"\n{3,}", "\n\n", text).strip() + "\n"


def page_from_content(data: dict) -> Page:
    """A Confluence content object (REST v1, with PAGE_EXPAND) as a Page."""
    try:
        history = data.get("history") or {}
        version = data.get("version") or {}
        when = version.get("when") or history.get("createdDate")
        author = (version.get("by") or history.get("createdBy") or {})
        labels = [item["name"] for item in ((data.get("metadata") or {}).get("labels") or {}).get("results", [])]
        comments = ((data.get("children") or {}).get("comment") or {}).get("size", 0)
        links = data.get("_links") or {}
        return Page(
            id=str(data["id"]), title=data["title"], space=(data.get("space") or {}).get("key", ""),
            author=author.get("username") or author.get("publicName") or author.get("accountId"),
            updated=_aware(dt.datetime.fromisoformat(when.replace("Z", "+00:00"))),
            labels=labels, body=_html_to_markdown(((data.get("body") or {}).get("storage") or {}).get("value", "")),
            comment_count=int(comments), url=(links.get("base", "") + links.get("webui", "")) or None,
        )
    except (KeyError, TypeError, AttributeError, ValueError, ValidationError) as ex:
        raise SourceError(f"Confluence page {data.get('id', '?')}: unexpected content ({type(ex).__name__}: {ex})") from None
