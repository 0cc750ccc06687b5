"""Public documents by URL (http or https): one GET with no credentials, then read as a file of
its type would be, through the same readers (markdown and text as written, HTML, PDF, Word and
notebooks converted). A Confluence page URL is not a public document: it goes to the Confluence
reader, which authenticates.

    doc = fetch_public("https://example.org/design.md")   # Document: markdown, warnings

Every problem is one `DocumentError` line naming the URL (credentials are never put in one).
"""

from __future__ import annotations

import tempfile
import urllib.error
import urllib.request
from pathlib import Path, PurePosixPath
from urllib.parse import urlparse

from review_harness.core.documents.confluence import parse_page_url
from review_harness.core.documents.loader import FORMATS, read_file
from review_harness.core.documents.model import Document, DocumentError, safe_text

MAX_BYTES = 20 * 1024 * 1024
TIMEOUT_SECONDS = 30.0
# a content type says what the bytes are when the address has no known file extension
CONTENT_TYPES = {
    "text/markdown": ".md", "text/x-markdown": ".md", "text/plain": ".txt", "text/html": ".html",
    "application/xhtml+xml": ".html", "application/pdf": ".pdf",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": ".docx",
    "application/x-ipynb+json": ".ipynb",
}


def is_confluence_page(url: str) -> bool:
    """Whether `url` is the address of a Confluence page (read by the Confluence reader)."""
    try:
        parse_page_url(url)
    except DocumentError:
        return False
    return True


def _shown(url: str) -> str:
    """The URL for messages: without credentials, which are refused."""
    parsed = urlparse(url.strip())
    if parsed.username or parsed.password:
        bare = parsed._replace(netloc=(parsed.hostname or "") + (f":{parsed.port}" if parsed.port else "")).geturl()
        raise DocumentError(f"{bare}: a public document is read without credentials; remove them from the URL")
    return safe_text(url.strip())


def _suffix(url: str, content_type: str) -> str:
    suffix = PurePosixPath(urlparse(url).path).suffix.lower()
    if suffix in FORMATS:
        return suffix
    return CONTENT_TYPES.get(content_type.split(";")[0].strip().lower(), ".txt")


def fetch_public(url: str, *, timeout: float = TIMEOUT_SECONDS, max_bytes: int = MAX_BYTES) -> Document:
    """The document at a public http(s) URL, read by the reader its extension or content type names."""
    shown = _shown(url)
    if urlparse(shown).scheme.lower() not in ("http", "https"):
        raise DocumentError(f"{shown}: only http and https addresses can be fetched")
    request = urllib.request.Request(shown, headers={"User-Agent": "review-harness", "Accept": "*/*"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 (the user's own http(s) URL)
            data = response.read(max_bytes + 1)
            content_type = response.headers.get("Content-Type", "")
            final = response.geturl() or shown
    except urllib.error.HTTPError as ex:
        raise DocumentError(f"{shown} could not be fetched: the server answered {ex.code} {ex.reason}") from None
    except urllib.error.URLError as ex:
        raise DocumentError(f"{shown} could not be fetched: {getattr(ex, 'reason', ex)}") from None
    except (TimeoutError, OSError) as ex:
        raise DocumentError(f"{shown} could not be fetched: {ex.strerror or ex}") from None
    if len(data) > max_bytes:
        raise DocumentError(f"{shown} is larger than {max_bytes // (1024 * 1024)} MB: save it and give the file instead")
    if not data.strip():
        raise DocumentError(f"{shown} is empty")
    name = safe_text(PurePosixPath(urlparse(final).path).stem) or (urlparse(final).hostname or "page")
    with tempfile.TemporaryDirectory(prefix="review-harness-url-") as folder:
        path = Path(folder) / f"{name[:80] or 'page'}{_suffix(final, content_type)}"
        path.write_bytes(data)
        document = read_file(path, shown)
    document.name = name
    document.metadata = {**(document.metadata or {}), "url": shown}
    return document
